"""Concept universe and selection (all / sample / stratified), polysemy, completion mode, popularity."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.errors import ConfigError, SourceError
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, Request
from knowsum.recall import (
    Buckets,
    Concept,
    LabelIndex,
    RecallConfig,
    judge,
    load_popularity_source,
    load_predictions,
    prepare,
    run_recall,
    select,
    universe,
)
from tests.recall.test_run_mock import ANSWERS


def test_universe_skips_obsolete_terms(mini_go: Path) -> None:
    go = load_ontology("go")
    ids = [c.id for c in universe("go", go)]
    assert len(ids) == 10 and "GO:0000005" not in ids and ids == sorted(ids)


def test_sample_and_stratified_selection() -> None:
    concepts = [Concept(f"GO:{i:07d}", f"t{i}", float(i), 1 + i // 10) for i in range(30)]
    a = select(concepts, "sample", n=7, seed=1)
    assert (
        len(a) == 7
        and a == select(concepts, "sample", n=7, seed=1)
        and a != select(concepts, "sample", n=7, seed=2)
    )
    assert [c.id for c in a] == sorted(c.id for c in a)  # input order kept
    assert len(select(concepts, "sample", n=100)) == 30
    s = select(concepts, "stratified", per_bucket=4, seed=0)
    assert sorted(c.bucket for c in s) == [1] * 4 + [2] * 4 + [3] * 4
    few = [*concepts[:2], Concept("GO:9", "x", None, None)]
    assert len(select(few, "stratified", per_bucket=5)) == 2  # bucket with fewer gives all; no bucket skipped
    assert select(concepts, "all") == concepts
    with pytest.raises(ConfigError, match="--sample N"):
        select(concepts, "sample")
    with pytest.raises(ConfigError, match="needs popularity"):
        select([Concept("GO:1", "x")], "stratified", per_bucket=2)


def test_stratified_run_needs_popularity(mini_go: Path) -> None:
    cfg = RecallConfig(kb="go", select="stratified", per_bucket=1, popularity="none")
    with pytest.raises(ConfigError, match="needs popularity"):
        run_recall(cfg, MockBackend(["GO:1"]), store=None, progress=False)


def test_prepare_stratified_takes_k_per_bucket(mini_go: Path) -> None:
    cfg = RecallConfig(
        kb="go",
        select="stratified",
        per_bucket=2,
        n_buckets=3,
        popularity=str(mini_go / "mini_go_popularity.csv"),
    )
    concepts, buckets, _, _ = prepare(cfg, load_ontology("go"))
    assert buckets is not None and buckets.sizes == (3, 3, 4)  # distinct values 0 5 | 10 50 | 200 … 5000
    assert sorted(c.bucket for c in concepts) == [1, 1, 2, 2, 3, 3]


def test_popularity_sources(mini_go: Path, tmp_path: Path) -> None:
    table = tmp_path / "pop.tsv"
    table.write_text("id\tcount\ngo:1822\t12\nGO:0000003\t4\n")
    assert load_popularity_source("go", str(table)) == {"GO:0001822": 12.0, "GO:0000003": 4.0}
    assert load_popularity_source("go", "none") is None
    assert load_popularity_source("icd10", "auto") is None
    with pytest.raises(ConfigError, match="no web-popularity table for 'icd10'"):
        load_popularity_source("icd10", "web")
    with pytest.raises(ConfigError, match="applies to go only"):
        load_popularity_source("doid", "annotations")
    with pytest.raises(ConfigError, match="neither a file nor one of"):
        load_popularity_source("go", "popular")
    b = Buckets.build({"a": 0, "b": 0, "c": 7}, 2)
    assert b.of == {"a": 1, "b": 1, "c": 2} and b.sizes == (2, 1) and b.n == 2


def test_polysemy_accepts_any_id_with_the_label(mini_go: Path) -> None:
    go = load_ontology("go")
    index = LabelIndex([("GO:1", "Kidney  development"), ("GO:2", "kidney development"), ("GO:3", "other")])
    assert index.ids("KIDNEY DEVELOPMENT") == {"GO:1", "GO:2"}
    assert index.ids("unknown") == frozenset()
    c = Concept("GO:0001822", "kidney development")
    ok = judge(c, "GO:0060993", "GO:0060993", go, accepted=frozenset({"GO:0001822", "GO:0060993"}))
    assert ok.status == "correct"
    assert judge(c, "GO:0060993", "GO:0060993", go).status == "wrong"
    # an alternative ID of another term exists: wrong, not invented, with that term's label
    alt = judge(c, "GO:0019952", "GO:0019952", go)
    assert alt.status == "wrong" and alt.predicted_label == "reproduction"
    assert LabelIndex.of(go).ids("reproduction") == {"GO:0000003"}


def test_completion_mode_prepends_the_prefix(mini_go: Path) -> None:
    seen: list[str] = []

    def complete(r: Request) -> str:
        seen.append(str(r.prompt))
        label = str(r.prompt).split('"')[1]
        answer = ANSWERS[label]
        return answer[3:] + "\nIn the Gene" if answer.startswith("GO:") else answer

    cfg = RecallConfig(kb="go", api="completions", popularity="none")
    run = run_recall(cfg, MockBackend(complete), store=None, progress=False)
    result, records = run.record, load_predictions(run.out_dir)
    assert all(
        p.startswith("In the Gene Ontology, the GO ID of the label") and p.endswith("is GO:") for p in seen
    )
    assert result.scores.n_correct == 3 and result.scores.n_invented == 2
    assert result.config["max_tokens"] is None and cfg.tokens == 10  # the paper's 10 new tokens
    assert {r.id: r.predicted for r in records}["GO:0003179"] == "GO:0061384"


def test_auto_popularity_without_the_shared_tables(mini_go: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(kb: str | None = None, path: Path | None = None) -> list[object]:
        raise SourceError("data/web_popularity/go_web_occurrences.csv not found")

    monkeypatch.setattr("knowsum.recall._popularity.load_popularity", missing)
    result = run_recall(RecallConfig(kb="go"), MockBackend(["GO:0001822"]), store=None, progress=False).record
    assert result.scores.popularity is None and result.scores.n == 10
    with pytest.raises(SourceError, match="not found"):
        run_recall(
            RecallConfig(kb="go", popularity="web"),
            MockBackend(["GO:0001822"]),
            store=None,
            progress=False,
            overwrite=True,  # another run than the one above, into the same default folder
        )
