"""Text normalization and ID syntax."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowsum.kb import SYNTAX, normalize_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Alzheimer's Disease", "alzheimer disease"),
        ("Alzheimer’s disease (DOID:10652)", "alzheimer disease"),
        ("  type 2   diabetes–mellitus ", "type 2 diabetes mellitus"),
        ("TGF-β signaling pathway", "tgf beta signaling pathway"),
        ("kidney development [GO:0001822]", "kidney development"),
        ('"Crohn disease"', "crohn disease"),
        ("Asthma (disorder)", "asthma"),
        ("non-small cell lung carcinoma", "non small cell lung carcinoma"),
        ("Parkinson disease (late onset)", "parkinson disease late onset"),
        ("!!!", ""),
    ],
)
def test_normalize_examples(text: str, expected: str) -> None:
    assert normalize_text(text) == expected


@given(st.text(max_size=60))
def test_normalize_is_idempotent_and_case_blind(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert normalize_text(text.upper()) == normalize_text(text.lower()) or not text.isascii()
    assert once == " ".join(once.split())


@pytest.mark.parametrize(
    ("kb", "raw", "canonical"),
    [
        ("go", "GO:0001822", "GO:0001822"),
        ("go", "go:1822", "GO:0001822"),
        ("go", "GO_0001822", "GO:0001822"),
        ("go", "GO 0001822", "GO:0001822"),
        ("hpo", "hp:1250", "HP:0001250"),
        ("uberon", "UBERON_0002113", "UBERON:0002113"),
        ("doid", "doid:10652", "DOID:10652"),
        ("doid", "DOID:0050117", "DOID:0050117"),
        ("mesh", "d000544", "D000544"),
        ("icd10", "a00.1", "A00.1"),
        ("icd10", "A00-A09", "A00-A09"),
        ("icd10cm", "G30.9", "G30.9"),
        ("theorems", "q11518", "Q11518"),
        ("genes", "7157", "7157"),
    ],
)
def test_id_syntax_normalizes(kb: str, raw: str, canonical: str) -> None:
    assert SYNTAX[kb].normalize(raw) == canonical
    assert SYNTAX[kb].is_well_formed(raw)


@pytest.mark.parametrize(
    ("kb", "raw"),
    [
        ("go", "GO:00018220"),
        ("go", "kidney"),
        ("go", "DOID:4"),
        ("hpo", "HP:12345678"),
        ("mesh", "X000544"),
        ("theorems", "Q0"),
        ("genes", "TP53"),
        ("icd10", "cholera"),
        ("doid", ""),
    ],
)
def test_id_syntax_rejects_garbage(kb: str, raw: str) -> None:
    assert SYNTAX[kb].normalize(raw) is None


@given(st.integers(min_value=0, max_value=9_999_999))
def test_go_ids_roundtrip(n: int) -> None:
    canonical = f"GO:{n:07d}"
    assert SYNTAX["go"].normalize(canonical) == canonical
    assert SYNTAX["go"].normalize(f"go_{n}") == canonical
