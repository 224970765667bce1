"""knowsum/census as an inspect_ai task on inspect's mockllm provider, and its log read back.

The mock model answers each sample with a known Zipf draw over real DOID names (tests/census/zipf.py,
the pipeline test's synthetic model), chosen by the sample's seed: the seed inspect sends is the one
knowsum derives for that sample index, so each sample gets its own draw. The log's metrics must be
the figures of knowsum's own census on the same texts, and ``knowsum census score --inspect-log``
must write a run directory whose record holds exactly those figures.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Epochs
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from knowsum.census import CensusConfig, load_result, run_census
from knowsum.cli import main
from knowsum.harness import caveat_metrics, figures, request_id, requests_of
from knowsum.harness.tasks import census
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, ResponseStore
from tests.census.zipf import disease_names, make_responses, truth_counts
from tests.harness._mock import assert_same_metrics, log_metrics, output

QUERIES, PER_QUERY = 24, 8


@pytest.fixture
def texts(kb_home: Path) -> list[str]:
    names = disease_names(load_ontology("doid"), 80)
    return make_responses(names, QUERIES, PER_QUERY)[0]


def _mock(texts: list[str], config: CensusConfig, calls: list[int] | None = None) -> Any:
    """mockllm answering sample i's request (found by the seed inspect sends) with ``texts[i]``."""
    by_seed = {r.seed: r.sample_index for r in requests_of("census", config)}

    def answer(_input: Any, _tools: Any, _choice: Any, cfg: GenerateConfig) -> ModelOutput:
        index = by_seed[cfg.seed]
        if calls is not None:
            calls.append(index)
        return output(texts[index])

    return get_model("mockllm/model", custom_outputs=answer)


def _run(texts: list[str], tmp_path: Path, **args: Any) -> EvalLog:
    config = CensusConfig(task="diseases", queries=QUERIES, **args)
    logs = inspect_eval(
        census(task="diseases", queries=QUERIES, **args),
        model=_mock(texts, config),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return logs[0]


_got = log_metrics


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_log_metrics_are_knowsums_census_of_the_same_texts(
    texts: list[str], tmp_path: Path, store: ResponseStore
) -> None:
    log = _run(texts, tmp_path, n_bootstrap=100)
    assert log.samples is not None and len(log.samples) == QUERIES
    # distinct samples (ids, knowsum sample indexes, seeds), not epochs
    assert [s.id for s in log.samples] == list(range(1, QUERIES + 1))
    meta = [s.metadata for s in log.samples]
    assert sorted(m["sample_index"] for m in meta) == list(range(QUERIES))
    assert len({m["knowsum_generate"]["seed"] for m in meta}) == QUERIES
    assert {m["knowsum_generate"]["temperature"] for m in meta} == {1.0}  # the paper's sampling
    assert {m["knowsum_generate"]["top_p"] for m in meta} == {1.0}

    # knowsum's own census on the same texts (the mock backend answers sample i with texts[i])
    cfg = CensusConfig(task="diseases", queries=QUERIES, n_bootstrap=100)
    own = run_census(cfg, MockBackend(lambda r: texts[r.sample_index]), store=store, out=tmp_path / "own")
    values, caveats = figures(own.record)
    got = _got(log)
    for name in ("N_seen", "N_tot", "N_tot_lower", "N_tot_upper", "SKR", "coverage", "chao1_bc", "U_unseen"):
        assert name in values, name
        assert got[name] == values[name], name  # exactly: the same code on the same texts
    assert got["N_seen"] == own.record.n_seen > 0
    assert math.isfinite(got["N_tot"]) and got["N_tot"] >= got["N_seen"]
    assert {k: got[k] for k in caveat_metrics(caveats)} == caveat_metrics(caveats)
    assert got["caveat_partial"] == 0.0  # every request answered

    # the scorer kept each sample's verified items
    first = log.samples[0]
    assert first.scores is not None
    score = next(iter(first.scores.values()))
    items = score.metadata["items"]  # type: ignore[index]
    valid = [it for it in items if it["status"] == "valid"]
    assert score.value == len(valid) > 0
    assert all(it["key"].startswith("DOID:") for it in valid)
    assert score.answer == texts[first.metadata["sample_index"]]
    # the explanation names the verified items
    assert score.explanation is not None
    assert score.explanation.startswith(f"{len(valid)} of {len(items)} items verified: {valid[0]['key']} ")


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_census_score_inspect_log_reproduces_the_logs_figures(
    texts: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _run(texts, tmp_path, n_bootstrap=100, count="incidence")
    out = tmp_path / "from-log"
    assert main(["census", "score", "--inspect-log", log.location, "--out", str(out), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["out_dir"] == str(out)
    result = load_result(out)
    assert (out / "report.html").is_file() and (out / "items.jsonl").is_file()
    assert result.model == "mockllm/model" and result.backend == "inspect"
    assert result.counting == "incidence" and result.n_queries == QUERIES
    assert_same_metrics(log, result)  # every figure and caveat code, exactly
    # the truth of the synthetic model: N_seen is the number of distinct DOIDs it named
    truth = make_responses(disease_names(load_ontology("doid"), 80), QUERIES, PER_QUERY)[1]
    assert result.n_seen == len(truth_counts(truth))


def test_samples_are_the_instruments_requests(kb_home: Path) -> None:
    config = CensusConfig(task="diseases", queries=5, seed=3)
    task = census(task="diseases", queries=5, seed=3)
    want = requests_of("census", config)
    samples = list(task.dataset)
    assert [s.metadata["knowsum_request"] for s in samples] == [request_id(r) for r in want]  # type: ignore[index]
    assert {s.input for s in samples} == {want[0].prompt}
    assert [s.metadata["knowsum_generate"]["seed"] for s in samples] == [r.seed for r in want]  # type: ignore[index]
    assert [s.metadata["knowsum_generate"]["max_tokens"] for s in samples] == [
        r.params.max_tokens for r in want
    ]  # type: ignore[index]
    assert task.metadata["knowsum"]["config"] == config.model_dump(mode="json")  # type: ignore[index]


def test_another_epochs_reducer_gives_no_figures_and_says_why(texts: list[str], tmp_path: Path) -> None:
    """An epochs reducer other than the task's (knowsum/draws) averages the replies away: the census
    then reports no figure, and the caveat code ``epochs`` says so."""
    calls: list[int] = []

    def answer(_input: Any, _tools: Any, _choice: Any, cfg: GenerateConfig) -> ModelOutput:
        calls.append(1)
        return output(texts[len(calls) % len(texts)])  # each epoch another reply

    (log,) = inspect_eval(
        census(task="diseases", queries=4, n_bootstrap=10),
        model=get_model("mockllm/model", custom_outputs=answer),
        epochs=Epochs(2, "mean"),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    got = _got(log)
    assert len(calls) == 8  # 4 samples x 2 epochs
    assert math.isnan(got["N_seen"])  # every figure name is kept, undefined (docs/inspect.md)
    assert got["caveat_epochs"] == 1.0
