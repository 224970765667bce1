"""Prompts of §4.2 (both forms, five languages) and ID extraction/normalization per ID syntax."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.errors import ConfigError
from knowsum.recall import CHAT_TEMPLATES, LANGUAGES, IdExtractor, RecallConfig, extract_id, render_prompt


def test_paper_prompts_verbatim() -> None:
    """The exact prompts of §4.2 (the label in straight double quotes)."""
    assert render_prompt("go", "kidney development") == (
        'Provide the GO ID for the label "kidney development". '
        "In the answer write only the corresponding GO ID."
    )
    assert render_prompt("uberon", "kidney") == (
        'Provide the UBERON ID for the label "kidney". In the answer write only the corresponding UBERON ID.'
    )
    assert render_prompt("icd10", "Cholera") == (
        'Provide the ICD-10 ID for the label "Cholera". In the answer write only the corresponding ICD-10 ID.'
    )
    assert render_prompt("go", "kidney development", "completions") == (
        'In the Gene Ontology, the GO ID of the label "kidney development" is GO:'
    )
    assert render_prompt("uberon", "kidney", "completions") == (
        'In the Uberon Ontology, the Uberon ID of the label "kidney" is UBERON:'
    )
    assert (
        render_prompt("icd10", "Cholera", "completions")
        == 'In the ICD-10, the ICD-10 ID of the label "Cholera" is'
    )
    assert render_prompt("theorems", "Pythagorean theorem", "completions") == (
        'In the Wikidata, the Wikidata ID of the label "Pythagorean theorem" is'
    )


def test_five_languages_keep_the_english_label() -> None:
    assert LANGUAGES == ("en", "it", "de", "fr", "es")
    prompts = {lang: render_prompt("go", "kidney development", language=lang) for lang in LANGUAGES}
    assert len(set(prompts.values())) == 5
    for lang, text in prompts.items():
        assert '"kidney development"' in text and "GO ID" in text, lang
    assert prompts["it"].startswith("Fornisci") and prompts["de"].startswith("Gib")
    assert prompts["fr"].startswith("Donne") and prompts["es"].startswith("Proporciona")
    for lang in LANGUAGES:
        assert render_prompt("go", "x", "completions", lang).endswith("GO:")
    with pytest.raises(ConfigError, match="unknown prompt language"):
        render_prompt("go", "x", language="pt")
    assert set(CHAT_TEMPLATES) == set(LANGUAGES)


def test_custom_templates() -> None:
    assert render_prompt("go", "kidney development", template="{id_name} of {label}?") == (
        "GO ID of kidney development?"
    )
    with pytest.raises(ConfigError, match=r"must contain \{label\}"):
        RecallConfig(kb="go", template="What is the {id_name}?")
    with pytest.raises(ConfigError, match="unknown field"):
        RecallConfig(kb="go", template="{label} {colour}")
    with pytest.raises(ConfigError, match="invalid prompt template"):
        RecallConfig(kb="go", template="{label")


def test_pi3_languages_are_checked() -> None:
    with pytest.raises(ValueError, match=r"unknown PI-3 language\(s\) \['xx'\]; shipped: en, it, de, fr, es"):
        RecallConfig(kb="go", pi3_languages=("xx", "en"))
    with pytest.raises(ValueError, match="PI-3 needs at least two languages"):
        RecallConfig(kb="go", pi3_languages=("en",))
    assert RecallConfig(kb="go", pi3_languages=("it", "en")).pi3_languages == ("it", "en")


@pytest.mark.parametrize(
    ("kb", "text", "prefix", "expected"),
    [
        ("go", "GO:0001822", "", "GO:0001822"),
        ("go", "The ID is GO:0001822.", "", "GO:0001822"),  # the paper's footnote 10
        ("go", "go_1822", "", "GO:0001822"),  # prefix case, separator, zero padding
        ("go", "GO 0060993", "", "GO:0060993"),
        ("go", "0060993", "GO:", "GO:0060993"),  # completion: missing prefix
        ("go", " 0060993 is the answer", "GO:", "GO:0060993"),
        ("go", "GO:0060993", "GO:", "GO:0060993"),  # completion that repeats the prefix
        ("go", "0060993", "", None),  # chat: a bare number is not a GO ID
        ("go", "GO:12345678 then GO:0000003", "", "GO:0000003"),  # 8 digits is not well formed
        ("go", "ALGO:0001822", "", None),  # not a word boundary
        ("go", "I don't know.", "", None),
        ("go", "", "GO:", None),
        ("uberon", "UBERON_0002113 (kidney)", "", "UBERON:0002113"),
        ("hpo", "hp:1250", "", "HP:0001250"),
        ("doid", "DOID:10652", "", "DOID:10652"),
        ("icd10", "The code is A00.1.", "", "A00.1"),
        ("icd10", "a001", "", "A00.1"),  # no dot, lower case
        ("icd10", "I think it is J45", "", "J45"),  # "I" is not chapter I
        # an ICD-10-CM code is read whole, never cut to its category J45 (which would score as correct)
        ("icd10", "J45.909", "", "J45.909"),
        ("icd10", "The code is J45.909 (unspecified asthma).", "", "J45.909"),
        ("icd10", "j45909", "", "J45.909"),
        ("icd10", "E11.65", "", "E11.65"),
        ("icd10", "I", "", None),  # a bare chapter numeral is not an answer
        ("mesh", "MeSH: d000544", "", "D000544"),
        ("theorems", "Q11518", "", "Q11518"),
    ],
)
def test_extraction(kb: str, text: str, prefix: str, expected: str | None) -> None:
    assert extract_id(kb, text, prefix) == expected


def test_unknown_syntax() -> None:
    with pytest.raises(ConfigError, match="no ID syntax"):
        IdExtractor("wikipedia")


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 9_999_999), st.sampled_from(["GO:", "go:", "GO_", "GO ", "Go:"]), st.text(max_size=20))
def test_extraction_roundtrip(number: int, spelling: str, noise: str) -> None:
    canonical = f"GO:{number:07d}"
    assert extract_id("go", f"Answer: {spelling}{number}. {noise}") == canonical
    assert IdExtractor("go").normalize(canonical) == canonical
