"""Decoders, prompts, tasks, verifiers and the held-out check, one piece at a time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from knowsum.census import CONCEPT_WORDS, CensusConfig, decode, make_verifier, resolve_task
from knowsum.census._estimate import heldout_check, t_grid
from knowsum.census._prompts import (
    DISEASES_PROMPT,
    DISEASES_SIMPLE_PROMPT,
    THEOREMS_PROMPT,
    THEOREMS_SIMPLE_PROMPT,
)
from knowsum.census._verify import words_rule
from knowsum.census._words import matched_words
from knowsum.errors import ConfigError, KBNotInstalledError, UnknownNameError
from knowsum.stats import Prevalence

# App. B.2 of the KnowSum paper, verbatim (provenance: tests/fixtures/census/README.md)
PAPER = Path(__file__).resolve().parents[1] / "fixtures" / "census" / "knowsum_paper_app_b2.txt"


def test_decode_lines_strips_markers_claims_and_filler() -> None:
    text = (
        "Here are 5 human diseases:\n- Alzheimer's Disease (DOID:10652)\n- **Asthma** (DOID: 2841)\n"
        "2. Type 2 diabetes mellitus - DOID:9352\n3) Parkinson's disease.\nNote: all valid.\n\n12.\n"
    )
    items = decode(text, 7)
    assert [(i.text, i.claimed_id) for i in items] == [
        ("Alzheimer's Disease", "DOID:10652"),
        ("Asthma", "DOID:2841"),
        ("Type 2 diabetes mellitus", "DOID:9352"),
        ("Parkinson's disease", None),
    ]
    assert {i.query for i in items} == {7} and [i.position for i in items] == [0, 1, 2, 3]


def test_decode_comma_whole_and_custom_separator() -> None:
    items = decode(
        "Pythagorean theorem, Fermat's Last Theorem, and Gödel's incompleteness theorems.", 0, "comma"
    )
    assert [i.text for i in items] == [
        "Pythagorean theorem",
        "Fermat's Last Theorem",
        "Gödel's incompleteness theorems",
    ]
    assert [i.text for i in decode("  A poet.\n It helps.  ", 0, "whole")] == ["A poet. It helps."]
    assert [i.text for i in decode("femur | tibia|  ", 0, separator="|")] == ["femur", "tibia"]
    assert decode("", 0) == [] and decode("1.\n2.\n", 0) == []


def test_prompts_are_the_papers_words() -> None:
    paper = " ".join(PAPER.read_text(encoding="utf-8").split()).replace("<u>20</u>", "20")
    assert " ".join(THEOREMS_PROMPT.replace("{n}", "20").split()) in paper
    assert " ".join(DISEASES_PROMPT.replace("{n}", "50").split()) in paper
    task = resolve_task(CensusConfig(task="theorems", answers=7))
    assert "listing 7 theorem names" in task.prompt and task.decoder == "comma" and task.kb == "theorems"
    assert resolve_task(CensusConfig(task="diseases")).answers == 50
    assert "dream like a human" in resolve_task(CensusConfig(task="diversity:dream-jobs")).prompt
    # App. B.2's simplified prompts (prompt sensitivity, §5.2 Fig. 8 right / Fig. 12 right)
    assert f"“{THEOREMS_SIMPLE_PROMPT.replace('{n}', '20')}”" in paper
    assert f"“{DISEASES_SIMPLE_PROMPT.replace('{n}', '50')}”" in paper
    simple = resolve_task(CensusConfig(task="diseases", prompt_variant="simple", answers=30))
    assert simple.prompt == DISEASES_SIMPLE_PROMPT.replace("{n}", "30") and simple.kb == "doid"
    assert resolve_task(CensusConfig(task="theorems", prompt_variant="simple")).prompt.endswith(
        "separated by commas."
    )
    with pytest.raises(ConfigError, match="diseases and theorems only"):
        resolve_task(CensusConfig(task="ontology:go", prompt_variant="simple"))
    go = resolve_task(CensusConfig(task="ontology:go", answers=5))
    assert go.kb == "go" and "Gene Ontology" in go.prompt and "5 " in go.prompt


@pytest.mark.parametrize(
    ("task", "error", "text"),
    [
        ("colours", UnknownNameError, "unknown census task 'colours'"),
        ("ontology:", ConfigError, "needs a knowledge base"),
        ("ontology:nope", UnknownNameError, "unknown ontology 'nope'"),
        ("ontology:genes", UnknownNameError, "unknown ontology 'genes'"),
        ("diversity:poems", UnknownNameError, "unknown diversity prompt"),
        ("custom", ConfigError, "needs prompt ="),
    ],
)
def test_bad_tasks(task: str, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        resolve_task(CensusConfig(task=task))


def test_missing_kb_says_the_install_command(tmp_home: Path) -> None:
    with pytest.raises(KBNotInstalledError, match="knowsum kb install doid"):
        make_verifier(resolve_task(CensusConfig(task="diseases")), "relaxed", 0.9)


def test_disease_criteria_and_claimed_ids(kb_home: Path) -> None:
    task = resolve_task(CensusConfig(task="diseases"))
    relaxed = make_verifier(task, "relaxed", 0.9)
    strict = make_verifier(task, "strict", 0.9)
    texts = ["alzheimers disease", "Alzheimer's disease", "banana bread", "disease"]
    claims = ["DOID:10652", "DOID:1612", None, None]
    v = relaxed.verify(texts, claims)
    assert [x.status for x in v] == ["valid", "valid", "invalid", "valid"]
    assert v[0].key == v[1].key == "DOID:10652" and v[0].stage == "fuzzy" and v[0].score is not None
    assert v[0].score >= 0.9
    assert [x.claimed_ok for x in v] == [True, False, None, None]
    s = strict.verify(texts, claims)
    assert [x.status for x in s] == [
        "valid",
        "valid",
        "invalid",
        "excluded",
    ]  # DOID:4 itself is not anatomical


def test_theorem_criteria_and_unverified(kb_home: Path) -> None:
    task = resolve_task(CensusConfig(task="theorems"))
    texts = [
        "Pythagorean theorem",
        "binomial theorem",
        "Zorn's Lemma of Nowhere",
        "Made-up theorem of Quux",
        "cake",
    ]
    strict = make_verifier(task, "strict", 0.9).verify(texts, [None] * 5)
    relaxed = make_verifier(task, "relaxed", 0.9).verify(texts, [None] * 5)
    assert [x.status for x in strict] == ["valid", "valid", "invalid", "unverified", "invalid"]
    assert [x.status for x in relaxed] == ["valid", "valid", "unverified", "unverified", "invalid"]
    assert strict[0].key == "Q11518"


def test_words_rule_is_whole_word_with_plurals() -> None:
    rule = words_rule(["law", "lemma"])
    assert rule.search("Kepler's laws") and rule.search("Lemmata of Zorn") and not rule.search("flawless")


# issue 18: the paper's twelve words (§4.1, App. B.4) in their word forms; each row: text → the
# words it must admit under the relaxed rule (in the order of the twelve), and whether the strict
# rule ("theorem" only) admits it
WORD_TABLE = [
    ("Pythagorean theorem", ("theorem",), True),
    ("Sylow theorems", ("theorem",), True),
    ("Theorema Egregium", ("theorem",), True),
    ("THEOREM OF THE DAY", ("theorem",), True),
    ("Fermat's theorem's converse", ("theorem",), True),
    ("the theorems' proofs", ("theorem",), True),
    ("Zorn's lemma", ("lemma",), False),
    ("Lemmata on sieves", ("lemma",), False),
    ("Kepler's laws", ("law",), False),
    ("Newton's Law of cooling", ("law",), False),
    ("Archimedes' principle", ("principle",), False),
    ("Euler's formula", ("formula",), False),
    ("Newton–Cotes formulae", ("formula",), False),
    ("Frenet–Serret formulas", ("formula",), False),
    ("Cauchy criterion", ("criterion",), False),
    ("Routh–Hurwitz criteria", ("criterion",), False),
    ("Euler's identity", ("identity",), False),
    ("Newton's identities", ("identity",), False),
    ("Goldbach's conjecture", ("conjecture",), False),
    ("L'Hôpital's rule", ("rule",), False),
    ("Kirchhoff's rules", ("rule",), False),
    ("Navier–Stokes equations", ("equation",), False),
    ("parallel postulate", ("postulate",), False),
    ("Corollaries of Zorn's lemma", ("lemma", "corollary"), False),
    ("corollary", ("corollary",), False),
    ("law of large numbers theorem", ("theorem", "law"), True),
    # not words of the rule: a form inside another word, or another word altogether
    ("flawless proof", (), False),
    ("lawyer's paradox", (), False),
    ("Ruler of a group", (), False),
    ("theoremhood", (), False),
    ("formulaic construction", (), False),
    ("dilemma", (), False),
    ("Riemann hypothesis", (), False),
]


@pytest.mark.parametrize(("text", "words", "strict"), WORD_TABLE)
def test_twelve_word_rule_with_word_forms(text: str, words: tuple[str, ...], strict: bool) -> None:
    assert matched_words(text) == words
    assert bool(words_rule(CONCEPT_WORDS).search(text)) == bool(words)
    assert bool(words_rule(["theorem"]).search(text)) == strict


def test_custom_words_get_plain_plurals() -> None:
    rule = words_rule(["syndrome", "box"])
    assert rule.search("Down syndromes") and rule.search("black boxes") and not rule.search("boxer")


def test_t_grid_and_heldout_check_against_brute_force() -> None:
    assert t_grid(100)[0] == pytest.approx(0.1) and t_grid(100)[-1] == 100 and 1.0 in t_grid(100)
    rng = np.random.default_rng(3)
    items = rng.zipf(1.6, size=600) % 97
    queries = np.repeat(np.arange(60), 10)
    prev = Prevalence.from_items(items.tolist(), queries.tolist())
    points = heldout_check(prev, "et", 8, fractions=(0.5,), points=1, n_shuffles=1, seed=5)
    (pt,) = points
    # brute force with the same shuffle
    order = np.random.default_rng(5).permutation(60)  # rank of each query
    observed_q = set(np.flatnonzero(order < 30).tolist())
    seen = {it for it, q in zip(items.tolist(), queries.tolist(), strict=True) if q in observed_q}
    new = {it for it, q in zip(items.tolist(), queries.tolist(), strict=True) if q not in observed_q} - seen
    assert pt.actual == len(new) and pt.t == 1.0 and pt.r_obs == 0.5


@pytest.mark.parametrize("t", [0.25, 1.0, 3.0, 100.0])
def test_fast_et_path_equals_the_estimator_core(t: float) -> None:
    from knowsum.census._estimate import _unseen
    from knowsum.stats import estimate_unseen

    prev = Prevalence.from_items((np.random.default_rng(1).zipf(1.4, size=3000) % 500).tolist())
    cache: dict[tuple[float, int], np.ndarray] = {}
    for k in (6, 8, 10, 6, 8, 10):  # the second pass takes the weights from the held-out check's cache
        want = estimate_unseen(prev, "et", t, k).estimate
        assert _unseen(prev, "et", t, k) == pytest.approx(want, rel=1e-12)
        assert _unseen(prev, "et", t, k, cache) == pytest.approx(want, rel=1e-12)
    assert len(cache) == 3


@pytest.mark.parametrize("name", ["diseases.toml", "bones.toml"])
def test_example_configs_are_valid(name: str) -> None:
    from knowsum.census import load_config

    path = Path(__file__).resolve().parents[2] / "examples" / "census" / name
    loaded = load_config(path)
    task = resolve_task(loaded.config)
    assert loaded.run.out is not None and loaded.run.out.is_absolute()
    assert task.answers == 20 and "{n}" not in task.prompt


def test_parenthesised_alternatives_are_tried(kb_home: Path) -> None:
    task = resolve_task(CensusConfig(task="diseases"))
    v = make_verifier(task, "relaxed", 0.9).verify(
        ["AD (Alzheimer's disease)", "Alzheimer's disease (xyzzy)", "xyzzy (plugh)"], [None, None, None]
    )
    assert [x.key for x in v] == ["DOID:10652", "DOID:10652", None]


def test_fast_jsonl_lines_equal_the_record_json(kb_home: Path) -> None:
    import io
    import json

    from knowsum.census import analyse

    cfg = CensusConfig(task="diseases", n_bootstrap=0, count="incidence")
    task = resolve_task(cfg)
    texts = [
        (0, '- Asthma (DOID:2841)\n- asthma\n- "banana"\n- Alzheimer\'s disease'),
        (1, "- Asthma\n- malaria\n- Alzheimer disease"),
    ]
    a = analyse(cfg, task, make_verifier(task, "relaxed", 0.9), texts, model="m", backend="mock")
    buf = io.StringIO()
    assert a.write_jsonl(buf) == 7
    lines = buf.getvalue().splitlines()
    assert [json.loads(x) for x in lines] == [json.loads(r.to_json()) for r in a.items()]
    assert [json.loads(x)["counted"] for x in lines] == [
        True,
        False,
        False,
        True,
        True,
        False,
        True,
    ]  # malaria is not in the slice
    mentions = analyse(
        cfg.model_copy(update={"count": "mention"}),
        task,
        make_verifier(task, "relaxed", 0.9),
        texts,
        model="m",
        backend="mock",
    )
    assert mentions.counted == [True, True, False, True, True, False, True]  # "asthma" again counts


def test_decode_glosses_and_unclosed_claims() -> None:
    text = (
        "- Asthma - A chronic respiratory condition of the airways\n"
        "- Muscular dystrophy (DOID: 0000492\n"
        "- Type 2 diabetes: a metabolic disorder of glucose\n"
        "- Creutzfeldt-Jakob disease\n"
        "- Hepatitis A - liver\n"
    )
    assert [(i.text, i.claimed_id) for i in decode(text, 0)] == [
        ("Asthma", None),
        ("Muscular dystrophy", "DOID:0000492"),
        ("Type 2 diabetes", None),
        ("Creutzfeldt-Jakob disease", None),
        ("Hepatitis A - liver", None),
    ]
