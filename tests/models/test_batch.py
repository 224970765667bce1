"""OpenAI Batch JSONL export/import (golden files in tests/fixtures/models)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knowsum.errors import ConfigError, InputFileError
from knowsum.models import (
    BatchImport,
    GenerationParams,
    MockBackend,
    ResponseStore,
    export_batch,
    import_batch,
    make_requests,
    open_backend,
    sample_sync,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "models"
PROMPTS = ["Name a human disease.", "Name a GO biological process."]
PARAMS = GenerationParams(max_tokens=64, seed=0)


def _backend():  # type: ignore[no-untyped-def]
    return open_backend("openai:gpt-4o-mini", base_url="https://api.openai.com/v1")


def test_export_matches_the_golden_file(tmp_path: Path) -> None:
    out = tmp_path / "batch.jsonl"
    with ResponseStore(tmp_path / "s.sqlite") as store:
        assert export_batch(_backend(), make_requests(PROMPTS, PARAMS, n=2), store, out) == 4
    assert out.read_text() == (FIXTURES / "batch_input.jsonl").read_text()


def test_import_stores_results_and_errors_then_export_skips_them(tmp_path: Path) -> None:
    reqs = make_requests(PROMPTS, PARAMS, n=2)
    backend = _backend()
    with ResponseStore(tmp_path / "s.sqlite") as store:
        export_batch(backend, reqs, store, tmp_path / "batch.jsonl")
        assert import_batch(store, FIXTURES / "batch_results.jsonl") == BatchImport(
            new=4, errors=1, refusals=0, unchanged=0, failed_again=0, missing=0
        )
        got = {
            r.request.sample_index + 2 * PROMPTS.index(str(r.request.prompt)): r for r in store.responses()
        }
        assert [got[i].text for i in range(3)] == ["Influenza.", "Asthma.", "Apoptosis."]
        assert got[0].completion_tokens == 3 and got[0].model == "gpt-4o-mini" and got[0].backend == "openai"
        assert got[3].error == "batch error (HTTP 429): Rate limit reached"
        assert store.get(backend.key(reqs[0])) == got[0]
        # the next export only holds the failed request
        assert export_batch(backend, reqs, store, tmp_path / "again.jsonl") == 1
        line = json.loads((tmp_path / "again.jsonl").read_text())
        assert line["custom_id"] == backend.key(reqs[3])


def test_a_malformed_line_names_file_and_line_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "results.jsonl"
    shutil.copy(FIXTURES / "batch_results.jsonl", bad)
    with bad.open("a") as fh:
        fh.write('{"custom_id": "x", "response": {"status_code": 200, "body": {"choices": []}}}\n')
    with ResponseStore(tmp_path / "s.sqlite") as store:
        export_batch(_backend(), make_requests(PROMPTS, PARAMS, n=2), store, tmp_path / "b.jsonl")
        with pytest.raises(InputFileError, match=r"results.jsonl:5: not an OpenAI Batch result line"):
            import_batch(store, bad)
        assert store.count() == 0


def test_unknown_custom_id_is_rejected(tmp_path: Path) -> None:
    with (
        ResponseStore(tmp_path / "s.sqlite") as store,
        pytest.raises(InputFileError, match=r":1: custom_id .* was not exported"),
    ):
        import_batch(store, FIXTURES / "batch_results.jsonl")


def test_export_needs_an_openai_backend(tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "s.sqlite") as store, pytest.raises(ConfigError, match="openai:MODEL"):
        export_batch(MockBackend(), make_requests(PROMPTS, PARAMS), store, tmp_path / "b.jsonl")


def test_export_skips_what_the_store_holds(tmp_path: Path) -> None:
    from knowsum.models.testing import LoopbackServer

    with LoopbackServer() as srv, ResponseStore(tmp_path / "s.sqlite") as store:
        backend = open_backend("openai:m", base_url=srv.base_url)
        reqs = make_requests(PROMPTS, PARAMS, n=3)
        sample_sync(backend, reqs[:2], store=store)
        assert export_batch(backend, reqs, store, tmp_path / "b.jsonl") == 4
