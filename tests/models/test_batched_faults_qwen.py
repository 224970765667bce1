"""A mid-batch llama.cpp failure on the default model at the census's token budget loses no finished sample.

The SmolLM2 fault tests (``test_batched_faults.py``) at a 24-token budget, repeated where issue 17's
divergence showed: Qwen2.5-Coder 1.5B (repacked Q4_K kernels), the census's own request (diseases prompt,
20 answers, 488 tokens, KnowSum's sampling values), four sequences, six samples so that some decode at
the tail of a run with idle companions. The failure fires in the first decoding step after the first
sample finished.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from knowsum.census import CensusConfig, resolve_task
from knowsum.models import (
    GenerationParams,
    ResponseStore,
    is_installed,
    make_requests,
    model_spec,
    open_backend,
)
from knowsum.models import sample_sync as run
from knowsum.models._local import LocalBackend
from tests.models._faults import fail_on

pytestmark = [pytest.mark.realmodel, pytest.mark.realdata, pytest.mark.slow]
QWEN = "qwen2.5-coder-1.5b-instruct"


def test_qwen_mid_batch_failure_keeps_every_finished_sample_byte_identical(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    if not is_installed(model_spec(QWEN)):
        pytest.skip(f"run `knowsum models install {QWEN}`")
    task = resolve_task(CensusConfig(task="diseases", answers=20))
    assert task.max_tokens == 488
    params = GenerationParams(temperature=1.0, top_p=1.0, max_tokens=task.max_tokens, seed=11)
    reqs = make_requests([task.prompt], params, n=6)
    b = open_backend(QWEN, n_parallel=4)
    assert isinstance(b, LocalBackend)
    try:
        clean = {r.key: r.text for r in run(b, reqs, progress=False)}  # the undisturbed reference
        dec = b._decoder
        assert dec is not None and len(clean) == 6
        finished: list[int] = []
        real_run = dec.run

        def counting_run(
            jobs: Any, on_done: Callable[[int, Any], None] | None = None, cancel: Any = None
        ) -> Any:
            def done(index: int, result: Any) -> None:
                finished.append(index)
                if on_done is not None:
                    on_done(index, result)

            return real_run(jobs, done, cancel)

        monkeypatch.setattr(dec, "run", counting_run)
        fail_on(dec, monkeypatch, lambda _n, rows: len(rows) == dec.n_parallel and len(finished) >= 1)
        with ResponseStore(tmp_path / "s.sqlite") as store:
            got = run(b, reqs, store=store, progress=False)
            ok = {r.key: r.text for r in got if r.ok}
            failed = [r for r in got if not r.ok]
            assert 0 < len(ok) < len(reqs) and len(ok) + len(failed) == len(reqs)
            assert all("injected" in (r.error or "") for r in failed)
            assert ok == {k: clean[k] for k in ok}  # finished samples kept, byte-identical
            assert store.done_keys(clean) == set(ok)  # stored, and only those as successes
            monkeypatch.undo()
            rerun = {r.key: r.text for r in run(b, reqs, store=store, progress=False)}
            assert rerun == clean  # the rest regenerated after the decoder's reset, as undisturbed
            assert store.done_keys(clean) == set(clean)
    finally:
        asyncio.run(b.aclose())
