"""Prompt templates of the recall probe (Bombieri et al., "Do LLMs Dream of Ontologies?", §4.2, §6.2).

Two forms per ontology, as in the paper:

- *chat* (instruction-tuned models): ``Provide the GO ID for the label "l". In the answer write only
  the corresponding GO ID.``
- *completion* (base models): ``In the Gene Ontology, the GO ID of the label "l" is GO:`` — the
  model continues after the ID prefix, so its answer usually lacks the prefix (see
  :func:`knowsum.recall.extract_id`).

For PI-3 (prediction invariance across prompt languages, §6.1) the same prompts are shipped in
English, Italian, German, French and Spanish; only the instruction is translated, the ontology
label stays in English. Templates are ``str.format`` strings with the fields ``{label}``,
``{ontology}``, ``{id_name}`` and ``{prefix}``; a user template may use any of them but must
contain ``{label}``.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Literal

from knowsum.errors import ConfigError
from knowsum.kb import SYNTAX

__all__ = [
    "CHAT_TEMPLATES",
    "COMPLETION_TEMPLATES",
    "KB_PROMPT_NAMES",
    "LANGUAGES",
    "Api",
    "PromptNames",
    "check_template",
    "render_prompt",
]

Api = Literal["chat", "completions"]

#: PI-3 languages of the paper (§6.2), ISO 639-1 codes.
LANGUAGES: tuple[str, ...] = ("en", "it", "de", "fr", "es")


@dataclass(frozen=True, slots=True)
class PromptNames:
    """How the prompts name an ontology and its identifiers.

    Attributes:
        ontology: Name used by the completion form ("Gene Ontology" → "In the Gene Ontology, …").
        id_name: Name of the identifier in the chat form ("GO ID").
        completion_id_name: Name of the identifier in the completion form (the paper writes
            "Uberon ID" there but "UBERON ID" in the chat form).
    """

    ontology: str
    id_name: str
    completion_id_name: str = ""

    @property
    def completion_name(self) -> str:
        """The identifier name of the completion form."""
        return self.completion_id_name or self.id_name


#: Prompt names per KB; GO, Uberon, ICD-10 and Wikidata (``theorems``) spelled as in §4.2.
KB_PROMPT_NAMES: dict[str, PromptNames] = {
    "go": PromptNames("Gene Ontology", "GO ID"),
    "uberon": PromptNames("Uberon Ontology", "UBERON ID", "Uberon ID"),
    "icd10": PromptNames("ICD-10", "ICD-10 ID"),
    "icd10cm": PromptNames("ICD-10-CM", "ICD-10-CM code"),
    "doid": PromptNames("Human Disease Ontology", "DOID ID"),
    "hpo": PromptNames("Human Phenotype Ontology", "HPO ID"),
    "mondo": PromptNames("Mondo Disease Ontology", "MONDO ID"),
    "mesh": PromptNames("MeSH", "MeSH ID"),
    "hgnc": PromptNames("HGNC", "HGNC ID"),
    "theorems": PromptNames("Wikidata", "Wikidata ID"),
}

#: Chat-form templates by language (§4.2; translations for PI-3, labels stay English).
CHAT_TEMPLATES: dict[str, str] = {
    "en": 'Provide the {id_name} for the label "{label}". In the answer write only the corresponding '
    "{id_name}.",
    "it": 'Fornisci il {id_name} per l\'etichetta "{label}". Nella risposta scrivi solo il {id_name} '
    "corrispondente.",
    "de": 'Gib die {id_name} für das Label "{label}" an. Schreibe in der Antwort nur die entsprechende '
    "{id_name}.",
    "fr": 'Donne le {id_name} pour le libellé "{label}". Dans la réponse, écris uniquement le {id_name} '
    "correspondant.",
    "es": 'Proporciona el {id_name} para la etiqueta "{label}". En la respuesta escribe solo el {id_name} '
    "correspondiente.",
}

#: Completion-form templates by language (§4.2); the prompt ends with the ID prefix.
COMPLETION_TEMPLATES: dict[str, str] = {
    "en": 'In the {ontology}, the {id_name} of the label "{label}" is {prefix}',
    "it": 'Nella {ontology}, il {id_name} dell\'etichetta "{label}" è {prefix}',
    "de": 'In der {ontology} ist die {id_name} des Labels "{label}" {prefix}',
    "fr": 'Dans la {ontology}, le {id_name} du libellé "{label}" est {prefix}',
    "es": 'En la {ontology}, el {id_name} de la etiqueta "{label}" es {prefix}',
}

_FIELDS = frozenset({"label", "ontology", "id_name", "prefix"})


def check_template(template: str) -> str:
    """Validate a user template: known ``{fields}`` only, ``{label}`` required.

    Raises:
        ConfigError: unknown field, missing ``{label}`` or a malformed format string.
    """
    try:
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
    except ValueError as exc:
        raise ConfigError(f"invalid prompt template {template!r}: {exc}") from exc
    unknown = fields - _FIELDS
    if unknown:
        raise ConfigError(
            f"prompt template uses unknown field(s) {sorted(unknown)}; allowed: {sorted(_FIELDS)}"
        )
    if "label" not in fields:
        raise ConfigError("prompt template must contain {label}")
    return template


def prompt_names(kb: str) -> PromptNames:
    """Prompt names of a KB (a generic ``"<KB> ID"`` for KBs without an entry)."""
    return KB_PROMPT_NAMES.get(kb, PromptNames(kb.upper(), f"{kb.upper()} ID"))


def completion_prefix(kb: str) -> str:
    """The ID prefix a completion prompt ends with (``"GO:"``; ``""`` for bare IDs such as ICD-10)."""
    syntax = SYNTAX.get(kb)
    return syntax.prefix if syntax is not None else ""


def render_prompt(
    kb: str, label: str, api: Api = "chat", language: str = "en", template: str | None = None
) -> str:
    """The prompt asking for the ID of ``label`` in ``kb``.

    Args:
        kb: KB name (``"go"``).
        label: The concept label, inserted verbatim (quotes included as in the paper).
        api: ``"chat"`` or ``"completions"``.
        language: One of :data:`LANGUAGES` (ignored when ``template`` is given).
        template: A user template (see module docstring) overriding the shipped one.

    Example:
        >>> render_prompt("go", "kidney development", "completions")
        'In the Gene Ontology, the GO ID of the label "kidney development" is GO:'
    """
    names = prompt_names(kb)
    if template is None:
        table = CHAT_TEMPLATES if api == "chat" else COMPLETION_TEMPLATES
        if language not in table:
            raise ConfigError(f"unknown prompt language {language!r}; known: {', '.join(LANGUAGES)}")
        template = table[language]
    id_name = names.id_name if api == "chat" else names.completion_name
    text = template.format(
        label=label, ontology=names.ontology, id_name=id_name, prefix=completion_prefix(kb)
    )
    return text.rstrip() if api == "completions" else text
