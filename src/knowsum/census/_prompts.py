"""Prompt templates of the census tasks.

The four built-in prompts are copied word for word from the KnowSum paper (Li, Xin, Long, Su 2025,
*Evaluating the Unseen Capabilities: How Many Theorems Do LLMs Know?*, App. B.2, Table 3). The
only change is that the underlined number (the answers requested per query, ``N_ans``) is the
``{n}`` placeholder, and that the disease prompt's format example sits on its own line (the paper
typesets it as a display; the words are unchanged). The ontology prompt is knowsum's own, modelled
on the disease prompt.

The two ``*_SIMPLE_PROMPT`` are the simplified prompts of the paper's prompt-sensitivity study
(App. B.2, second paragraph: "we remove instructional content from the original prompt"; §5.2,
Fig. 8 right and Fig. 12 right), word for word, with the number again as ``{n}``.
"""

from __future__ import annotations

__all__ = [
    "DISEASES_PROMPT",
    "DISEASES_SIMPLE_PROMPT",
    "DREAM_JOBS_PROMPT",
    "LLM_APPLICATIONS_PROMPT",
    "ONTOLOGY_PROMPT",
    "THEOREMS_PROMPT",
    "THEOREMS_SIMPLE_PROMPT",
    "ontology_subject",
    "render",
]

THEOREMS_PROMPT = (
    "Test your knowledge of mathematical theorems by listing {n} theorem names, separated by commas "
    "(e.g., Theorem 1, Theorem 2, Theorem 3, etc.). If a theorem is known by multiple names, choose the "
    "most classic one. Aim for variety and try to include rare or less commonly known theorems. Keep your "
    "response concise and to the point."
)
"""Table 3, "Theorems counting" (paper default ``n = 20``)."""

DISEASES_PROMPT = (
    "You are a biomedical expert helping to compile a list of human diseases. Please provide {n} human "
    "diseases along with their corresponding DOID identifiers. Format your response as:\n"
    "- Disease Name (DOID:xxxxx)\n"
    "Make sure the Disease Name matches with DOID, and the DOIDs are valid from Disease Ontology."
)
"""Table 3, "Diseases counting" (paper default ``n = 50``)."""

THEOREMS_SIMPLE_PROMPT = (
    "Test your knowledge of mathematical theorems by listing {n} theorem names, separated by commas."
)
"""App. B.2, the simplified theorem prompt (paper: ``n = 20``)."""

DISEASES_SIMPLE_PROMPT = (
    "You are a biomedical expert helping to compile a list of human diseases. Please provide {n} human "
    "diseases along with their corresponding DOID identifiers."
)
"""App. B.2, the simplified disease prompt (paper: ``n = 50``)."""

LLM_APPLICATIONS_PROMPT = (
    "Briefly describe one real or imagined application of large language models (LLMs). Keep the "
    "response short and simple, and explain why it's useful."
)
"""Table 3, "LLMs applications" (one answer per query)."""

DREAM_JOBS_PROMPT = (
    "Imagine that a large language model (LLM) could dream like a human. Describe, in one or two "
    "sentences, what kind of job it might wish to have. Be creative, and explain briefly why this job "
    "would appeal to an LLM."
)
"""Table 3, "Dream jobs" (one answer per query)."""

ONTOLOGY_PROMPT = (
    "You are an expert helping to compile a list of {subject}. Please provide {n} {subject}, using "
    "their exact names as written in {source}. Format your response as one item per line:\n"
    "- Name\n"
    "Aim for variety and try to include rare or less commonly known ones."
)
"""knowsum's generic listing prompt for ``ontology:KB`` (modelled on the disease prompt)."""

_SUBJECTS: dict[str, tuple[str, str]] = {
    "go": ("biological processes, molecular functions or cellular components", "the Gene Ontology (GO)"),
    "doid": ("human diseases", "the Human Disease Ontology"),
    "hpo": ("human phenotypic abnormalities", "the Human Phenotype Ontology (HPO)"),
    "mesh": ("biomedical concepts", "the Medical Subject Headings (MeSH)"),
    "uberon": ("anatomical structures", "the Uberon anatomy ontology"),
    "mondo": ("diseases", "the Mondo Disease Ontology"),
    "icd10": ("diseases and health conditions", "the ICD-10 classification"),
    "icd10cm": ("diseases and health conditions", "the ICD-10-CM classification"),
    "hgnc": ("human genes", "HGNC (official gene names)"),
    "theorems": ("mathematical theorems", "Wikipedia"),
}


def ontology_subject(kb: str, description: str = "") -> tuple[str, str]:
    """``(subject, source)`` phrases for the ontology prompt of KB ``kb``."""
    return _SUBJECTS.get(kb, (f"{kb.upper()} terms", description or f"the {kb.upper()} ontology"))


def render(template: str, n: int, **fields: str) -> str:
    """Replace ``{n}`` and each ``{field}`` of ``template``; other braces are left as written."""
    out = template.replace("{n}", str(n))
    for key, value in fields.items():
        out = out.replace("{" + key + "}", value)
    return out
