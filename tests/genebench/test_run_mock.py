"""End to end on the mock backend with a known mixture of replies (``_mixture.py``): every metric
equals its hand value; the run returns a :class:`GenebenchRun` and writes its directory; result.json
files of every earlier schema version still load.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from knowsum.errors import InputFileError
from knowsum.genebench import (
    KNOWLEDGE_TITLES,
    PERSPECTIVES,
    GenebenchConfig,
    GenebenchRecord,
    GenebenchRun,
    GoAnswer,
    gold_text,
    load_result,
    read_questions,
    read_records,
    run_genebench,
    token_budgets,
)
from knowsum.kb import Ontology
from knowsum.models import MockBackend, Request, Response, ResponseStore
from knowsum.records import load_record
from tests.genebench._mixture import QUESTIONS, reply

OLD = Path(__file__).resolve().parent / "old_results"


@pytest.fixture
def run(slice_go: Ontology, tmp_path: Path):  # type: ignore[no-untyped-def]
    backend = MockBackend(reply)
    with ResponseStore(tmp_path / "store.sqlite") as store:
        gb = run_genebench(
            GenebenchConfig(lenient=True), backend, store=store, questions=QUESTIONS, out=tmp_path / "run"
        )
    return gb.record, read_records(gb.out_dir), read_questions(gb.out_dir / "questions.jsonl"), backend


def _cell(result, key: str):  # type: ignore[no-untyped-def]
    return next(c for c in result.scores.cells if c.key == key)


def test_every_metric_by_hand(run) -> None:  # type: ignore[no-untyped-def]
    result, _records, _, backend = run
    assert result.n_questions == 8 and result.n_instances == 5 * 4 + 3
    c = _cell(result, "Q1/non-loc")
    assert (c.mean, c.std, c.n_questions, c.n_instances) == (0.5, 0.5, 1, 4)
    c = _cell(result, "Q1/loc")
    assert c.mean == 0.25 and c.std == pytest.approx(math.sqrt(3) / 4)
    c = _cell(result, "Q2-A/no-answer")
    assert (c.mean, c.std, c.extra["no_right_answer_chosen"]) == (1.0, 0.0, 1.0)
    c = _cell(result, "Q2-A/control")
    assert (c.mean, c.extra["no_right_answer_chosen"], c.in_overall) == (0.0, 1.0, False)
    c = _cell(result, "Q2-B")
    per_rot = [1.0, 2 / 3, 0.8, 0.0]
    assert c.mean == pytest.approx(np.mean(per_rot)) and c.std == pytest.approx(np.std(per_rot))
    assert c.extra["precision"] == pytest.approx((1 + 1 + 2 / 3 + 0) / 4)
    assert c.extra["recall"] == pytest.approx((1 + 0.5 + 1 + 0) / 4)
    c = _cell(result, "Q7/no_ref")
    assert c.mean == pytest.approx(14 / 18) and c.extra["precision"] == 1.0
    assert c.extra["recall"] == pytest.approx(7 / 11) and c.extra["hallucinated_rate"] == 0.5
    assert _cell(result, "Q7/with_ref").mean == 0.0
    c = _cell(result, "Q6")
    assert (
        c.mean == pytest.approx(0.7)
        and c.extra["category_match"] == 1.0
        and c.extra["tissue_f1"] == pytest.approx(0.4)
    )
    s = result.scores
    assert s.knowledge["full name"] == pytest.approx(0.375)
    assert s.knowledge["synonyms"] == pytest.approx((1.0 + np.mean(per_rot)) / 2)
    assert s.knowledge["go_annotation"] == pytest.approx(7 / 18)
    assert s.knowledge["expression"] == pytest.approx(0.7)
    assert s.overall == pytest.approx(np.mean([0.375, (1.0 + np.mean(per_rot)) / 2, 7 / 18, 0.7]))
    assert s.types_asked == ["full name", "synonyms", "expression", "go_annotation"]
    assert set(s.types_missing) == {"chromosome", "gene_type", "designation", "summary"}
    assert s.format_error_rate == pytest.approx(3 / 23) and s.reply_rule == "lenient"
    assert s.format_errors_by_rule["strict"]["overall"] == pytest.approx(12 / 23)
    assert s.format_errors_by_rule["strict"]["single_choice"] == pytest.approx(10 / 16)
    assert s.format_errors == pytest.approx(
        {"expression": 0.0, "go_annotation": 0.5, "multiple_choice": 0.25, "single_choice": 1 / 16}
    )
    f1, p, r = np.array([1, 2 / 3, 0.8, 0]), np.array([1, 1, 2 / 3, 0]), np.array([1, 0.5, 1, 0])
    pearson = next(x for x in s.pearson if x.key == "Q2-B")
    assert pearson.f1_precision == pytest.approx(np.corrcoef(f1, p)[0, 1])
    assert pearson.f1_recall == pytest.approx(np.corrcoef(f1, r)[0, 1])
    assert len(backend.calls) == 23


def test_protocol_temperature_zero_and_messages(run) -> None:  # type: ignore[no-untyped-def]
    _, _, _, backend = run
    assert {r.params.temperature for r in backend.calls} == {0.0}
    roles = {tuple(m[0] for m in r.messages) for r in backend.calls}
    assert roles == {("system", "user")}


def test_resume_asks_nothing_twice(slice_go: Ontology, tmp_path: Path) -> None:
    store_path = tmp_path / "store.sqlite"
    first = MockBackend(reply)
    with ResponseStore(store_path) as store:
        run_genebench(GenebenchConfig(), first, store=store, questions=QUESTIONS[:3], out=tmp_path / "a")
    second = MockBackend(reply)
    with ResponseStore(store_path) as store:
        b = run_genebench(
            GenebenchConfig(), second, store=store, questions=QUESTIONS, out=tmp_path / "b"
        ).record
    assert len(first.calls) == 12 and len(second.calls) == 23 - 12
    assert _cell(b, "Q1/non-loc").mean == 0.25  # strict rule: the chatty reply is a format error


class _LengthLimited(MockBackend):
    """Cuts every reply to ``max_tokens`` words and reports ``finish_reason == 'length'`` when it does."""

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        out = await super().generate(requests)
        cut = []
        for r in out:
            words = r.text.split(" ")
            limit = r.request.params.max_tokens or len(words)
            text = " ".join(words[:limit])
            cut.append(self.response(r.request, text, "length" if len(words) > limit else "stop"))
        return cut


def test_budgets_fit_the_gold_and_a_cut_reply_is_truncated(slice_go: Ontology, tmp_path: Path) -> None:
    go = [q for q in QUESTIONS if q.question_type == "go_annotation"]
    names = sorted(t.name for t in slice_go.values())
    long_gold = go[0].model_copy(  # 72 annotations: far over the floor of 320 tokens
        update={"answer": [GoAnswer(go=f"located_in {n}", evidence="IDA") for n in names * 3]}
    )
    budgets = token_budgets([long_gold])
    assert budgets["go_annotation"] == math.ceil(1.5 * math.ceil(len(gold_text(long_gold)) / 2.5)) > 320
    gold_json = gold_text(long_gold)
    backend = _LengthLimited(lambda _r: gold_json)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        run = run_genebench(
            GenebenchConfig(), backend, store=store, questions=[long_gold], out=tmp_path / "a"
        )
    result, records = run.record, read_records(run.out_dir)
    assert (
        backend.calls[0].params.max_tokens == budgets["go_annotation"] == result.max_tokens["go_annotation"]
    )
    assert records[0].format_error is None and not records[0].truncated  # the complete answer fits
    small = _LengthLimited(lambda _r: gold_json)
    with ResponseStore(tmp_path / "t.sqlite") as store:
        small_run = run_genebench(
            GenebenchConfig(max_tokens=50), small, store=store, questions=[long_gold], out=tmp_path / "b"
        )
    cut, recs = small_run.record, read_records(small_run.out_dir)
    assert recs[0].truncated and (recs[0].format_error or "").startswith("truncated")
    assert cut.scores.format_errors_by_kind["truncated"]["overall"] == 1.0 and recs[0].score == 0.0


def test_published_rows_are_the_papers_table2() -> None:
    from knowsum.genebench import KNOWLEDGE, PUBLISHED
    from knowsum.records import by_model

    table = by_model(PUBLISHED)
    assert len(table) == 27 and next(iter(table)) == "GPT-5"
    gpt5 = table["GPT-5"]
    assert [gpt5[f"knowledge/{k}"] for k in KNOWLEDGE] == pytest.approx(
        [0.6768, 0.8391, 0.5353, 0.7393, 0.8239, 0.5502, 0.4317, 0.3570]
    )
    for (
        model,
        row,
    ) in table.items():  # the copied overall is the equal mean of the types reported (Table 2 caption)
        vals = [v for m, v in row.items() if m.startswith("knowledge/")]
        assert row["overall"] == pytest.approx(sum(vals) / len(vals), abs=6e-5), model


def test_run_returns_its_run_directory(slice_go: Ontology, tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "store.sqlite") as store:
        gb = run_genebench(
            GenebenchConfig(), MockBackend(reply), store=store, questions=QUESTIONS, out=tmp_path / "run"
        )
    assert isinstance(gb, GenebenchRun) and gb.out_dir == tmp_path / "run"
    assert gb.report == gb.out_dir / "report.html" and gb.report.stat().st_size > 10_000
    names = {p.name for p in gb.out_dir.iterdir()}
    assert names == {"questions.jsonl", "predictions.jsonl", "plots", "report.html", "result.json"}
    plots = sorted(p.name for p in (gb.out_dir / "plots").iterdir())
    assert plots == ["attention_loc.png", "completeness.png", "go_abstracts.png"]  # the figures with data
    assert load_result(gb.out_dir) == gb.record
    assert [r.question_index for r in read_records(gb.out_dir)][:4] == [QUESTIONS[0].question_index] * 4
    r = gb.record
    assert (r.kind, r.version, r.model, r.backend) == ("genebench", 3, "mock", "mock")
    assert r.kb_releases == {"go": "fixture"}  # the GO the Q7 answers were mapped with
    assert r.knowledge_titles == KNOWLEDGE_TITLES and r.perspectives == PERSPECTIVES
    assert r.knowsum_version


def test_default_run_directory(slice_go: Ontology, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    gb = run_genebench(GenebenchConfig(), MockBackend(reply), store=None, questions=QUESTIONS[:1])
    assert (
        gb.out_dir == Path("genebench-runs/mock") and (tmp_path / "genebench-runs/mock/result.json").is_file()
    )


@pytest.mark.parametrize(("version", "rule", "overall"), [(1, "lenient", 0.62778), (2, "strict", 0.41944)])
def test_every_earlier_schema_version_loads(version: int, rule: str, overall: float) -> None:
    path = OLD / f"result_v{version}.json"
    assert json.loads(path.read_text())["version"] == version
    result = load_result(path)
    assert result == load_record(path, GenebenchRecord)
    assert (result.version, result.kind, result.model, result.knowsum_version) == (3, "genebench", "mock", "")
    assert result.scores.reply_rule == rule  # version 1 read replies by the rule now called lenient
    assert result.scores.overall == pytest.approx(overall, abs=1e-5)
    assert result.knowledge_titles == KNOWLEDGE_TITLES and result.perspectives == PERSPECTIVES
    assert result.perspective_means()["hallucination resistance"] is not None


def test_a_newer_or_foreign_record_is_refused(tmp_path: Path) -> None:
    data = json.loads((OLD / "result_v2.json").read_text())
    (tmp_path / "new.json").write_text(json.dumps({**data, "version": 99}))
    with pytest.raises(InputFileError, match="unsupported genebench result version 99"):
        load_result(tmp_path / "new.json")
    (tmp_path / "census.json").write_text(json.dumps({**data, "kind": "census"}))
    with pytest.raises(InputFileError, match=r"not a genebench result\.json"):
        load_result(tmp_path / "census.json")
