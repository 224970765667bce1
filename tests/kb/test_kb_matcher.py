"""The matcher: stages, cut-off, batch == single, search — on the DOID slice."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from knowsum.errors import InputError
from knowsum.kb import Matcher, Ontology, normalize_text


@pytest.fixture(scope="module")
def matcher(doid: Ontology) -> Matcher:
    return Matcher(doid)


@pytest.mark.parametrize(
    ("text", "stage"),
    [
        ("Alzheimer's disease", "exact"),
        ("Alzheimer disease", "exact"),
        ("Alzheimer's Disease", "normalized"),
        ("ALZHEIMER'S DISEASE (DOID:10652)", "normalized"),
        ("alzheimers disease", "fuzzy"),
        ("Alzheimers dementa", "fuzzy"),
    ],
)
def test_alzheimer_variants(matcher: Matcher, text: str, stage: str) -> None:
    m = matcher.match(text)
    assert m is not None
    assert (m.id, m.name, m.stage) == ("DOID:10652", "Alzheimer's disease", stage)
    assert m.query == text
    assert (m.score == 1.0) == (stage != "fuzzy")


def test_fuzzy_score_is_rapidfuzz_ratio(matcher: Matcher) -> None:
    m = matcher.match("alzheimers disease")
    assert m is not None
    assert m.matched == "Alzheimer's disease"
    # ratio("alzheimers disease", "alzheimer disease") = 1 - 1/35
    assert m.score == pytest.approx(fuzz.ratio("alzheimers disease", "alzheimer disease") / 100)
    assert m.score == pytest.approx(34 / 35)


def test_cutoff(doid: Ontology) -> None:
    text = "alzheimer diseases of old"
    loose, strict = Matcher(doid, cutoff=0.75), Matcher(doid, cutoff=0.95)
    assert loose.match(text) is not None
    assert strict.match(text) is None
    assert Matcher(doid).match("table lamp") is None
    with pytest.raises(InputError, match="cut-off"):
        Matcher(doid, cutoff=0)


def test_empty_text(matcher: Matcher) -> None:
    for text in ("", "   "):
        with pytest.raises(InputError, match="empty text"):
            matcher.match(text)
    assert matcher.match("!!!") is None
    assert matcher.match_many(["", " ", "Alzheimer's disease"])[:2] == [None, None]


def test_obsolete_labels_only_on_request(hpo: Ontology) -> None:
    obsolete = next(t for t in hpo.values() if t.obsolete and t.name)
    live = Matcher(hpo).match(obsolete.name)
    assert live is None or live.id != obsolete.id
    assert obsolete.id not in Matcher(hpo).choice_ids
    m = Matcher(hpo, include_obsolete=True).match(obsolete.name)
    assert m is not None and m.id == obsolete.id


def test_synonym_scopes_priority(hpo: Ontology) -> None:
    m = Matcher(hpo).match("Epileptic seizure")
    assert m is not None and m.id == "HP:0001250" and m.stage == "exact"


def _perturb(label: str, rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return label.upper()
    if kind == 1 and len(label) > 4:
        i = rng.randrange(len(label))
        return label[:i] + label[i + 1 :]
    if kind == 2:
        return label.replace(" ", "-") + " (DOID:1)"
    return label + rng.choice(["x", "s", " y"])


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_batch_equals_single_and_naive(doid: Ontology, matcher: Matcher, seed: int) -> None:
    rng = random.Random(seed)
    labels = [label for _, label in doid.labels()]
    queries = [_perturb(rng.choice(labels), rng) for _ in range(30)] + ["table lamp", "kidney"]
    batch = matcher.match_many(queries)
    for q, b in zip(queries, batch, strict=True):
        single = matcher.match(q)
        assert b == single
        hit = matcher.exact_labels.get(q.strip())
        if hit is None:  # the naive reference: extractOne over all normalized labels
            ref = process.extractOne(
                normalize_text(q), matcher.choices, scorer=fuzz.ratio, processor=None, score_cutoff=90
            )
            assert (ref is None) == (b is None)
            if ref is not None and b is not None:
                assert (matcher.choice_ids[ref[2]], ref[1] / 100) == (b.id, b.score)


def test_batch_tie_break_matches_extract_one() -> None:
    from knowsum.kb import Synonym, Term

    # two labels at the same ratio from the query: the first one in priority order must win
    terms = {
        "X:1": Term("X:1", "abcdefghij"),
        "X:2": Term("X:2", "abcdefghik"),
        "X:3": Term("X:3", "zzz", synonyms=(Synonym("abcdefghil", "EXACT"),)),
    }
    m = Matcher(terms, cutoff=0.85)
    query = "abcdefghiq"
    ref = process.extractOne(query, m.choices, scorer=fuzz.ratio, processor=None, score_cutoff=85)
    assert ref is not None and m.choice_ids[ref[2]] == "X:1"
    (b,) = m.match_many([query])
    assert b is not None and b.id == "X:1" and m.match(query) == b


def test_search_ranks_candidates(matcher: Matcher) -> None:
    hits = matcher.search("alzheimer", limit=3)
    assert len(hits) == 3
    assert hits[0].id == "DOID:10652"
    assert len({h.id for h in hits}) == 3
    assert all(h.stage == "search" for h in hits)
    with pytest.raises(InputError):
        matcher.search(" ")
