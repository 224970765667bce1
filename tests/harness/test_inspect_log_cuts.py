"""Part of a task's requests, and epochs: the log's metrics and its read-back agree, and say so.

``inspect eval --limit 2`` of a 5-query census once scored 2 of 5 queries with no caveat, and
``--epochs 2`` kept one epoch per request and dropped the other silently. Now a census log with part
of its requests (``--limit``, ``--sample-id``) is the census of the replies it holds with the caveat
``partial`` ("k of N requests"), in the log's metrics and in ``census score --inspect-log`` alike;
with ``--epochs E`` every epoch's reply is a draw of its own (epoch ``e`` of sample index ``i`` is the
request of index ``i + (e−1)·Q``, its seed included), so the log is exactly knowsum's census of
``Q·E`` queries on the same replies. Recall refuses both, in the log's caveats and in one line on
read-back. The metric names of one task are the same whatever its size; the scorer, solver and
reducer have ``knowsum/…`` names; each score explains itself; the header holds only the task
arguments given.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._util.registry import registry_info
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from knowsum.census import CensusConfig, load_result, run_census
from knowsum.cli import main
from knowsum.harness import make_config, requests_of
from knowsum.harness.tasks import census, keep_draws, knowsum_generate, knowsum_scorer, recall
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, ResponseStore
from tests.census.zipf import disease_names, make_responses
from tests.harness._mock import assert_same_metrics, log_metrics, output

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

QUERIES = 5


@pytest.fixture
def texts(kb_home: Path) -> list[str]:
    """Replies of a synthetic model (Zipf draws over real DOID names), one per sample index."""
    return make_responses(disease_names(load_ontology("doid"), 40), 2 * QUERIES, 6)[0]


def _census(texts: list[str], tmp_path: Path, queries: int = QUERIES, **run: Any) -> EvalLog:
    """The census of ``queries`` on mockllm answering the request of sample index i with ``texts[i]``
    (found by the seed inspect sends, over the indexes of up to two epochs)."""
    config = CensusConfig(task="diseases", queries=2 * queries, n_bootstrap=10)
    by_seed = {r.seed: r.sample_index for r in requests_of("census", config)}

    def answer(_input: Any, _tools: Any, _choice: Any, cfg: GenerateConfig) -> ModelOutput:
        return output(texts[by_seed[cfg.seed]])

    (log,) = inspect_eval(
        census(task="diseases", queries=queries, n_bootstrap=10),
        model=get_model("mockllm/model", custom_outputs=answer),
        log_dir=str(tmp_path / "logs"),
        display="none",
        **run,
    )
    assert log.status == "success" and log.location, log.error
    return log


def _score(log: EvalLog, instrument: str, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main([instrument, "score", "--inspect-log", str(log.location), "--out", str(out)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("run", "answered"), [({"limit": 2}, 2), ({"sample_id": [2, 4]}, 2)])
def test_part_of_a_census_is_the_census_of_its_replies_with_a_partial_caveat(
    texts: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    run: dict[str, Any],
    answered: int,
) -> None:
    log = _census(texts, tmp_path, **run)
    got = log_metrics(log)
    assert got["queries"] == answered and got["caveat_partial"] == 1.0
    code, err = _score(log, "census", tmp_path / "run", capsys)
    assert code == 0, err
    result = load_result(tmp_path / "run")
    assert result.n_queries == answered
    (note,) = [c for c in result.caveats if c.kind == "partial"]
    assert note.message.startswith(f"partial log: {answered} of {QUERIES} requests answered")
    assert_same_metrics(log, result)  # the log and its read-back agree, caveat included


def test_epochs_of_a_census_are_draws_of_a_bigger_census(
    texts: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], store: ResponseStore
) -> None:
    """``--epochs 2`` of a 4-query census: 8 replies, each with its own seed, scored as knowsum's
    census of 8 queries on the same replies (nothing reduced away)."""
    log = _census(texts, tmp_path, queries=4, epochs=2)
    assert log.samples is not None and len(log.samples) == 8
    sent = {s.epoch: [] for s in log.samples}  # type: ignore[var-annotated]
    for s in log.samples:
        sent[s.epoch].append(s.output.completion)
    assert sorted(sent[1] + sent[2]) == sorted(texts[:8])  # epoch 2 answered indexes 4..7
    got = log_metrics(log)
    assert got["queries"] == 8 and got["caveat_partial"] == 0.0 and got["caveat_epochs"] == 0.0

    own = run_census(
        CensusConfig(task="diseases", queries=8, n_bootstrap=10),
        MockBackend(lambda r: texts[r.sample_index]),
        store=store,
        out=tmp_path / "own",
    )
    assert_same_metrics(log, own.record)  # exactly knowsum's 8-query census
    code, err = _score(log, "census", tmp_path / "run", capsys)
    assert code == 0, err
    result = load_result(tmp_path / "run")
    assert result.n_queries == 8
    assert_same_metrics(log, result)


def test_two_census_sizes_have_the_same_metric_names(texts: list[str], tmp_path: Path) -> None:
    small = _census(texts, tmp_path / "a", queries=3)
    large = _census(texts, tmp_path / "b", queries=QUERIES)
    assert log_metrics(small).keys() == log_metrics(large).keys()
    assert log_metrics(small)["queries"] == 3 and log_metrics(large)["queries"] == QUERIES
    assert large.results is not None
    groups = {m.group for m in large.results.scores[0].metrics.values()}
    assert groups == {"knowsum", "caveats"}


def test_names_explanations_and_the_header(texts: list[str], tmp_path: Path) -> None:
    log = _census(texts, tmp_path, queries=3)
    assert registry_info(knowsum_scorer).name.endswith("knowsum/score")
    assert registry_info(knowsum_generate).name == "knowsum/generate"
    assert registry_info(keep_draws).name == "knowsum/draws"
    assert [s.name for s in log.eval.scorers or []] == ["knowsum/score"]  # the name `inspect score` finds
    assert [step.solver for step in log.plan.steps] == ["knowsum/generate"]
    assert log.eval.config.epochs_reducer == ["knowsum/draws"]
    assert log.eval.task_args == {"task": "diseases", "queries": 3, "n_bootstrap": 10}  # no None
    assert log.samples is not None
    for sample in log.samples:
        (score,) = (sample.scores or {}).values()
        meta = score.metadata or {}
        assert meta["epoch"] == 1
        items = meta["items"]
        valid = [f"{it['key']} {it['name']}" for it in items if it["status"] == "valid"]
        assert score.explanation == f"{len(valid)} of {len(items)} items verified: " + "; ".join(valid)


def _recall(tmp_path: Path, **run: Any) -> EvalLog:
    args = {"kb": "doid", "select": "sample", "sample": 4, "n_perm": 10}
    config = make_config("recall", args)
    assert len(requests_of("recall", config)) == 4
    (log,) = inspect_eval(
        recall(**args),
        model=get_model("mockllm/model", custom_outputs=lambda *_a: output("DOID:0000000")),
        log_dir=str(tmp_path / "logs"),
        display="none",
        **run,
    )
    assert log.status == "success" and log.location, log.error
    return log


@pytest.mark.parametrize(
    ("run", "code", "says"),
    [
        ({"epochs": 2}, "caveat_epochs", "--epochs 2 has no meaning for it: run it with one epoch"),
        ({"limit": 2}, "caveat_partial", "the log answers 2 of the task's 4 requests"),
    ],
)
def test_recall_refuses_epochs_and_part_of_its_requests(
    kb_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    run: dict[str, Any],
    code: str,
    says: str,
) -> None:
    log = _recall(tmp_path, **run)
    got = log_metrics(log)
    assert got[code] == 1.0 and math.isnan(got["accuracy"])  # no figure, and the caveat says why
    status, err = _score(log, "recall", tmp_path / "run", capsys)
    assert status == 2 and err.count("\n") == 1 and says in err, err
    assert not (tmp_path / "run").exists()


def test_a_whole_recall_log_reads_back(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _recall(tmp_path)
    status, err = _score(log, "recall", tmp_path / "run", capsys)
    assert status == 0, err
    assert log_metrics(log)["n"] == 4 and log_metrics(log)["caveat_partial"] == 0.0


def test_a_log_of_requests_this_version_does_not_make_says_so(
    texts: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replies to requests the task no longer makes (its prompt changed since the eval: another
    knowsum or plug-in version) are named as such, not as a cut log or failed requests to retry."""
    from inspect_ai.log import read_eval_log, write_eval_log

    from knowsum.harness._logs import REQUEST_KEY

    log = read_eval_log(str(_census(texts, tmp_path).location))
    for sample in log.samples or []:
        sample.metadata[REQUEST_KEY] = "0" * 64  # what another prompt would hash to
    stale = tmp_path / "stale.json"
    write_eval_log(log, str(stale))
    capsys.readouterr()
    assert main(["census", "score", "--inspect-log", str(stale), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "replies answer requests that knowsum/census does not make now" in err
    assert "rerun the same command" not in err and not (tmp_path / "run").exists()
