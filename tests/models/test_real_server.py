"""The OpenAI-compatible backend against a real server: llama-cpp-python's ``python -m llama_cpp.server``.

The server (``make test`` installs it: ``knowsum[server]``, the pinned llama-cpp-python's ``server``
extra) serves the embedded test model SmolLM2-135M on a free 127.0.0.1 port; the module fixture starts
it and stops it. Through ``main([...])`` with ``openai:smollm2 --base-url``: ``ask``, a small census, a
recall probe and a small genebench run; the server SIGKILLed mid-census (once while the client still
retries, once long enough for the run to give up) and restarted, after which the store holds every
sample exactly once. Texts equal the embedded sequential path's (``KNOWSUM_BATCH=1``): llama.cpp's
greedy decoding (temperature 0) and its seeded sampler (temperature 1, every truncation off) give the
same tokens for the same logits, and both paths run the same llama.cpp build on the same GGUF with the
same chat template and thread count. Measured equal on every prompt tried (docs/models.md); llama.cpp
does not promise it in general: the server keeps the previous request's KV cache and evaluates only
the prompt's new suffix, so a different split of the prompt into batches could move a near-tie.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from knowsum.cli import main
from knowsum.errors import BackendError
from knowsum.kb import installed
from knowsum.models import (
    PAPER_PARAMS,
    GenerationParams,
    make_requests,
    open_backend,
    sample_sync,
)
from tests._held import CHILD
from tests.models._llama_server import ALIAS, TEST_MODEL, LlamaServer, serve_test_model

pytestmark = [pytest.mark.realmodel, pytest.mark.slow]

MODEL = TEST_MODEL
SERVED = f"openai:{ALIAS}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-cpp-python's server on 127.0.0.1 with the test model, for this module's tests."""
    yield from serve_test_model(tmp_path_factory)


class _CountingTransport(httpx.AsyncHTTPTransport):
    """A real HTTP transport that counts the POSTs it sends."""

    posts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.posts += 1
        return await super().handle_async_request(request)


def test_the_server_is_detected_and_an_invalid_request_is_not_retried(server: LlamaServer) -> None:
    backend = open_backend(SERVED, base_url=server.base_url)
    got = sample_sync(backend, make_requests(["Name a fruit."], GenerationParams(max_tokens=4)))
    assert backend.server_kind == "llama.cpp" and got[0].ok and got[0].text  # type: ignore[attr-defined]
    # the vLLM spelling of "top-k off" (-1): llama-cpp-python answers HTTP 500 naming the validation error
    counting = _CountingTransport()
    wrong = open_backend(
        SERVED, base_url=server.base_url, server_kind="vllm", max_retries=8, transport=counting
    )
    with pytest.raises(BackendError) as info:
        sample_sync(wrong, make_requests(["Name a fruit."], PAPER_PARAMS))
    msg = str(info.value)
    assert "rejected the request as invalid, not retried (HTTP 500: 1 validation error" in msg
    assert "'loc': ('body', 'top_k'), 'msg': 'Input should be greater than or equal to 0'" in msg
    assert "--server-kind" in msg and "File " not in msg  # the server's traceback is not quoted
    assert counting.posts == 1


def _ask(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["ask", *args]) == 0
    return capsys.readouterr().out


def test_ask_prints_the_embedded_models_text_at_temperature_0(
    server: LlamaServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KNOWSUM_BATCH", "1")  # the embedded sequential path
    store = str(tmp_path / "s.sqlite")
    for prompt in ("Name a fruit.", "List 3 human diseases, one per line."):
        common = ["-t", "0", "--max-tokens", "24", prompt]
        served = _ask(["-m", SERVED, "--base-url", server.base_url, "--store", store, *common], capsys)
        embedded = _ask(["-m", MODEL, "--no-store", *common], capsys)
        assert served.strip() and served == embedded, (prompt, served, embedded)
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT backend, model, endpoint, error FROM responses").fetchall()
    assert rows == [("openai", ALIAS, f"{server.base_url}/chat/completions", None)] * 2


def test_seeded_samples_at_temperature_1_equal_the_embedded_ones(server: LlamaServer) -> None:
    """PAPER_PARAMS (every truncation off) with per-sample seeds: the same draws on both paths."""
    requests = make_requests(["Name a disease."], GenerationParams(max_tokens=24, seed=7), n=2)
    served = sample_sync(open_backend(SERVED, base_url=server.base_url), requests)
    embedded = sample_sync(open_backend(MODEL, n_parallel=1), requests)
    assert [r.text for r in served] == [r.text for r in embedded]
    assert served[0].text != served[1].text  # two draws, not one text twice


def _needs(*kbs: str) -> None:
    missing = [kb for kb in kbs if installed(kb) is None]
    if missing:
        pytest.fail(f"needs `knowsum kb install {' '.join(missing)}` (make data)")


@pytest.mark.realdata
def test_census_recall_and_genebench_run_through_the_server(server: LlamaServer, tmp_path: Path) -> None:
    _needs("doid", "go", "genes")
    store = str(tmp_path / "s.sqlite")
    via = ["-m", SERVED, "--base-url", server.base_url, "--store", store]
    census = tmp_path / "census"
    assert (
        main(
            [
                "census",
                "run",
                "diseases",
                *via,
                "--queries",
                "2",
                "--answers",
                "5",
                "--max-tokens",
                "40",
                "--n-bootstrap",
                "20",
                "--out",
                str(census),
            ]
        )
        == 0
    )
    result = json.loads((census / "result.json").read_text())
    assert result["backend"] == "openai" and result["model"] == ALIAS
    assert result["counts"]["responses"] == 2 and result["counts"]["failed_responses"] == 0
    recall = tmp_path / "recall"
    assert (
        main(
            [
                "recall",
                "run",
                "go",
                *via,
                "--sample",
                "2",
                "--max-tokens",
                "12",
                "--n-perm",
                "100",
                "--out",
                str(recall),
            ]
        )
        == 0
    )
    lines = (recall / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads((recall / "result.json").read_text())["model"] == ALIAS
    genes = tmp_path / "genebench"
    assert (
        main(
            [
                "genebench",
                "run",
                "--build-default",
                "--types",
                "Q1",
                "--per-type",
                "1",
                *via,
                "--max-tokens",
                "16",
                "--out",
                str(genes),
            ]
        )
        == 0
    )
    assert (genes / "result.json").is_file() and (genes / "predictions.jsonl").read_text().strip()
    with sqlite3.connect(store) as db:
        (errors,) = db.execute("SELECT count(*) FROM responses WHERE error IS NOT NULL").fetchone()
        backends = {b for (b,) in db.execute("SELECT DISTINCT backend FROM responses")}
    assert errors == 0 and backends == {"openai"}


def _rows(store: Path) -> dict[str, tuple[str, str | None]]:
    """key → (text, error) of every stored response (read while another process writes)."""
    if not store.exists():
        return {}
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30) as db:
            return {k: (t, e) for k, t, e in db.execute("SELECT key, text, error FROM responses")}
    except sqlite3.OperationalError as exc:  # the file exists, its tables not yet
        if "no such table" in str(exc):
            return {}
        raise


def _census(args: list[str], hold: int, release: Path) -> subprocess.Popen[str]:
    """The census, held before its next POST once ``hold`` were answered, until ``release`` exists."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, "hold_http", str(hold), str(release), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_for(store: Path, ok: int, proc: subprocess.Popen[str], limit: float = 600.0) -> None:
    """Wait until ``ok`` successes are stored (the held run cannot store more); ``limit`` is a safety
    net for a broken run, not a pace it must keep."""
    deadline = time.monotonic() + limit
    while sum(e is None for _, e in _rows(store).values()) < ok:
        if proc.poll() is not None or time.monotonic() > deadline:
            _, err = proc.communicate()
            pytest.fail(f"census ended (or stalled) before {ok} stored samples: {err[-2000:]}")
        time.sleep(0.1)


@pytest.mark.realdata
def test_server_killed_mid_census_resumes_without_losing_or_duplicating(
    server: LlamaServer, tmp_path: Path
) -> None:
    """SIGKILL the server mid-census twice: (a) it stays down, the run gives up (its failures are
    recorded as errors), the server restarts and a rerun resumes; (b) it restarts while the client
    still retries, and that run completes. The store then holds every sample once, successes from
    before the kills unchanged. Each run stops before its next request until the test has killed the
    server (``tests/_held.py``), so the kills land mid-run however busy the machine is."""
    _needs("doid")
    store, out = tmp_path / "s.sqlite", tmp_path / "census"
    args = [
        "census",
        "run",
        "diseases",
        "-m",
        SERVED,
        "--base-url",
        server.base_url,
        "--store",
        str(store),
        "--queries",
        "8",
        "--answers",
        "10",
        "--max-tokens",
        "64",
        "--n-bootstrap",
        "20",
        "--concurrency",
        "1",
        "--out",
        str(out),
    ]
    # (a) killed, kept down: the run gives up after its 2 retries
    first = _census([*args, "--retries", "1"], 2, tmp_path / "go-a")
    _wait_for(store, 2, first)
    server.kill()
    (tmp_path / "go-a").touch()
    first.communicate(timeout=600)
    before: dict[str, Any] = {k: t for k, (t, e) in _rows(store).items() if e is None}
    assert len(before) == 2
    # (b) restarted; killed again mid-run and restarted while the rerun still retries
    server.start()
    second = _census([*args, "--retries", "12"], 1, tmp_path / "go-b")  # backoff up to 30 s each
    _wait_for(store, len(before) + 1, second)
    server.kill()
    (tmp_path / "go-b").touch()  # the run's next request meets the killed server and retries
    server.start()
    _, err = second.communicate(timeout=900)
    assert second.returncode == 0, err[-2000:]
    rows = _rows(store)
    assert len(rows) == 8 and all(e is None and t for t, e in rows.values())  # key is the primary key
    assert {k: rows[k][0] for k in before} == before  # nothing asked again, nothing overwritten
    result = json.loads((out / "result.json").read_text())
    assert result["counts"]["responses"] == 8 and result["counts"]["failed_responses"] == 0
