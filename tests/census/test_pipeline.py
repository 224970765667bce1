"""End to end with the mock backend: known Zipf law over real DOID names → exact histogram."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import CensusConfig, load_result, run_census
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, Request, ResponseStore
from knowsum.stats import Prevalence, summarize
from knowsum.stats.bootstrap import ZERO_REASON
from tests.census.zipf import disease_names, make_responses, truth_counts

N_QUERIES, PER_QUERY = 120, 12


def _backend(texts: list[str], **kw: object) -> MockBackend:
    return MockBackend(lambda r: texts[r.sample_index], model_id="zipf", batch_size=16, **kw)  # type: ignore[arg-type]


@pytest.fixture
def zipf(kb_home: Path) -> tuple[list[str], list[list[str]]]:
    names = disease_names(load_ontology("doid"), 300)
    assert len(names) == 300
    return make_responses(names, N_QUERIES, PER_QUERY)


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_zipf_histogram_and_estimate_equal_the_truth(
    zipf: tuple[list[str], list[list[str]]], tmp_path: Path, store: ResponseStore
) -> None:
    texts, truth = zipf
    cfg = CensusConfig(task="diseases", queries=N_QUERIES, n_bootstrap=200, count="incidence")
    outcome = run_census(cfg, _backend(texts), store=store, out=tmp_path / "run")
    result = outcome.record
    assert result.counting == "incidence" and result.interval_method == "lognormal"

    expected = Prevalence.from_counts(truth_counts(truth))
    assert result.prevalence == sorted(expected.table().items())
    assert result.n_seen == expected.n_seen
    assert result.n_observations == N_QUERIES * PER_QUERY

    ids = [tid for ids in truth for tid in ids]
    queries = [q for q, ids in enumerate(truth) for _ in ids]
    ref = summarize(Prevalence.from_items(ids, queries), "et", 100.0, "auto", 200, 0.95, 0)
    assert result.k == ref.estimate.k and result.k_source == "held-out"
    assert result.n_unseen == pytest.approx(ref.n_unseen, rel=1e-12)
    assert result.n_total == pytest.approx(ref.n_total, rel=1e-12)
    # raw Û < 0 at t = 100 is clamped at 0: a log-normal interval around Û = 0 is the point
    # [N_seen, N_seen], stored as no interval with its reason (the statistics' reason), never [x, x]
    assert ref.n_unseen_raw < 0 and ref.interval_reason == ZERO_REASON == result.interval_reason
    assert result.interval is None and result.interval_total is None and result.interval_skr is None

    c = result.counts
    assert c.responses == N_QUERIES and c.counted == N_QUERIES * PER_QUERY
    assert c.invalid > 0 and c.valid > c.counted  # noise rejected; in-response duplicates not counted
    assert 0 < c.claimed_agree < c.claimed_ids  # right and wrong claimed IDs both seen
    top = result.top_items[0]
    assert top.key == truth_counts(truth).most_common(1)[0][0]

    out = outcome.out_dir
    assert {p.name for p in out.iterdir()} >= {"result.json", "items.jsonl", "report.html", "plots"}
    assert sorted(p.name for p in (out / "plots").iterdir()) == [
        "curve.png",
        "heldout.png",
        "kb_categories.png",
        "prevalence.png",
        "top_items.png",
    ]
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert len(items) == c.items and sum(i["counted"] for i in items) == c.counted
    assert load_result(out) == result
    assert result.curve[-1].t == 100.0 and result.curve[-1].unseen_lower is not None
    assert {round(1 / p.r_obs) for p in result.heldout} == {2, 3, 4}


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_default_counts_every_mention_as_the_paper(
    zipf: tuple[list[str], list[list[str]]], tmp_path: Path, store: ResponseStore
) -> None:
    """Issue 10 item 2: App. B.3 increments a DOID once per mention, so by default n is the number
    of valid mentions (the repeats inside a response included); incidence stays an option."""
    texts, truth = zipf
    cfg = CensusConfig(task="diseases", queries=N_QUERIES, n_bootstrap=100)
    result = run_census(cfg, _backend(texts), store=store, out=tmp_path / "run").record
    items = [json.loads(line) for line in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    valid = [i for i in items if i["status"] == "valid"]
    assert result.counting == "mention" and result.config["count"] == "mention"
    assert result.counts.counted == result.counts.valid == len(valid) == result.n_observations
    assert all(i["counted"] for i in valid)
    mentions = Prevalence.from_items([i["key"] for i in valid], [i["query"] for i in valid])
    assert result.prevalence == sorted(mentions.table().items())
    assert result.n_observations > N_QUERIES * PER_QUERY  # the in-response repeats now count
    assert result.n_seen == len(truth_counts(truth))
    # the query-level bootstrap and the held-out split still run on per-mention counts
    ref = summarize(mentions, "et", 100.0, "auto", 100, 0.95, 0)
    # raw Û < 0 at t = 100 is clamped at 0: a log-normal interval around Û = 0 is the point
    # [N_seen, N_seen], stored as no interval with its reason (the statistics' reason), never [x, x]
    assert ref.n_unseen_raw < 0 and ref.interval_reason == ZERO_REASON == result.interval_reason
    assert result.interval is None and result.interval_total is None and result.interval_skr is None
    assert {round(1 / p.r_obs) for p in result.heldout} == {2, 3, 4}
    old = CensusConfig(task="diseases", count_duplicates=False)  # the flag before issue 10
    assert (
        old.count == "incidence" and CensusConfig(task="diseases", count_duplicates=True).count == "mention"
    )


def test_strict_criterion_keeps_only_anatomical_diseases(
    zipf: tuple[list[str], list[list[str]]], tmp_path: Path, store: ResponseStore
) -> None:
    texts, truth = zipf
    cfg = CensusConfig(
        task="diseases", queries=N_QUERIES, criterion="strict", n_bootstrap=0, count="incidence"
    )
    result = run_census(cfg, _backend(texts), store=store, out=tmp_path / "run").record
    doid = load_ontology("doid")
    # one category per disease (issue 18, precedence rule): anatomical iff some is_a path reaches
    # DOID:7 and none reaches infectious agent, cellular proliferation, mental health or metabolism
    cause = {"DOID:0050117", "DOID:14566", "DOID:150", "DOID:0014667"}
    anatomical = {
        t: n
        for t, n in truth_counts(truth).items()
        if "DOID:7" in doid.category(t) and not cause & set(doid.category(t))
    }
    any_path = {t for t in truth_counts(truth) if "DOID:7" in doid.category(t)}
    assert 0 < len(anatomical) < len(any_path) < len(truth_counts(truth))
    assert result.prevalence == sorted(Prevalence.from_counts(anatomical).table().items())
    assert result.counts.excluded > 0


def test_resume_after_interrupt_asks_nothing_twice(
    zipf: tuple[list[str], list[list[str]]], tmp_path: Path, store: ResponseStore
) -> None:
    texts, _ = zipf
    cfg = CensusConfig(task="diseases", queries=N_QUERIES, n_bootstrap=100)
    run = tmp_path / "run"

    def dying(r: Request) -> str:
        if r.sample_index == 70:
            raise KeyboardInterrupt  # the user presses Ctrl-C mid-run
        return texts[r.sample_index]

    first = MockBackend(dying, model_id="zipf", batch_size=16)
    with pytest.raises(KeyboardInterrupt):
        run_census(cfg, first, store=store, out=run)
    assert not (tmp_path / "run" / "result.json").exists()
    asked_first = {r.sample_index for r in first.calls}
    stored = set(range(64))  # batches 0-15 … 48-63 finished; the batch holding 70 died
    assert stored <= asked_first

    second = _backend(texts)
    resumed = run_census(cfg, second, store=store, out=run).record
    asked_second = [r.sample_index for r in second.calls]
    assert sorted(asked_second) == list(range(64, N_QUERIES))  # nothing stored is asked again

    again = _backend(texts)
    rerun = run_census(cfg, again, store=store, out=run).record
    assert again.calls == []  # a finished run is served from the store
    with ResponseStore(tmp_path / "fresh.sqlite") as other:
        fresh = run_census(cfg, _backend(texts), store=other, out=tmp_path / "f").record
    for r in (resumed, rerun):
        assert r.prevalence == fresh.prevalence
        assert (r.n_seen, r.n_unseen, r.interval, r.k) == (
            fresh.n_seen,
            fresh.n_unseen,
            fresh.interval,
            fresh.k,
        )


def test_until_new_rate_stops_early_and_says_why(
    zipf: tuple[list[str], list[list[str]]], tmp_path: Path, store: ResponseStore
) -> None:
    texts, _ = zipf
    cfg = CensusConfig(
        task="diseases", queries=N_QUERIES, until_new_rate=1.0, batch_queries=20, n_bootstrap=0
    )
    backend = _backend(texts)
    result = run_census(cfg, backend, store=store, out=tmp_path / "run").record
    stop = result.stop
    assert stop is not None and stop.reason == "rate"
    assert stop.queries < N_QUERIES and stop.queries % 20 == 0
    assert result.n_queries == stop.queries == len(backend.calls)
    rates = [rate for _, rate in stop.history]
    assert rates[-1] < 1.0 <= rates[-2]
    assert "stopped after" in stop.message

    tight = cfg.model_copy(update={"until_new_rate": 1e-9})
    result2 = run_census(tight, _backend(texts), store=store, out=tmp_path / "r2").record
    assert result2.stop is not None and result2.stop.reason == "max-queries"
    assert result2.n_queries == N_QUERIES


@pytest.mark.parametrize(
    ("criterion", "expected"),
    [
        # relaxed: the twelve words; the two theorems, one equation, one postulate (CPCTC has none)
        (
            "relaxed",
            {
                "theorem": 2,
                "lemma": 0,
                "law": 0,
                "principle": 0,
                "formula": 0,
                "criterion": 0,
                "identity": 0,
                "conjecture": 0,
                "rule": 0,
                "equation": 1,
                "postulate": 1,
                "corollary": 0,
            },
        ),
        ("strict", {"theorem": 2}),
    ],
)
def test_theorem_census_counts_the_items_each_word_admitted(
    kb_home: Path, tmp_path: Path, store: ResponseStore, criterion: str, expected: dict[str, int]
) -> None:
    """Issue 18: per-word counts of N_seen, hand-counted from four responses over fixture theorems."""
    texts = [
        "1. Pythagorean theorem\n2. Binomial theorem\n3. CPCTC",
        "1. Pythagorean theorem\n2. Solutions of a general cubic equation",
        "1. Independence of the parallel postulate\n2. Binomial theorem",
        "1. Pythagorean theorem",
    ]
    cfg = CensusConfig(task="theorems", queries=4, criterion=criterion, n_bootstrap=0)
    result = run_census(cfg, _backend(texts), store=store, out=tmp_path / "run").record
    assert result.n_seen == (4 if criterion == "relaxed" else 2)
    assert result.concept_words == expected
    assert load_result(tmp_path / "run").concept_words == expected
    assert "N_seen items per word" in (tmp_path / "run" / "report.html").read_text()
