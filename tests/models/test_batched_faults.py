"""Batched decoding under injected llama.cpp failures, and each sample stored the moment it finishes.

Real test model (SmolLM2-135M). Faults are injected by wrapping the decoder's own ``_decode`` (the one
place that calls ``llama_decode``), so everything around it — template bookkeeping, slots, the store —
runs as in production.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowsum.models import (
    GenerationParams,
    ResponseStore,
    make_requests,
)
from knowsum.models import sample_sync as run
from knowsum.models._local import LocalBackend
from knowsum.models._sample import sample
from tests.models._embedded import open_smollm2
from tests.models._faults import fail_on as _fail_on

pytestmark = pytest.mark.realmodel
NAME = "smollm2-135m-instruct"
DISEASES = "List ten human diseases, one per line."
PARAMS = GenerationParams(temperature=1.0, top_p=1.0, top_k=0, min_p=0.0, max_tokens=24, seed=7)


def _open(n_parallel: int = 3) -> LocalBackend:
    return open_smollm2(n_parallel)


@pytest.fixture(scope="module")
def clean() -> Iterator[dict[str, str]]:
    """Texts of an undisturbed run of the disease requests (the reference every fault run must match)."""
    b = _open()
    try:
        yield {r.key: r.text for r in run(b, make_requests([DISEASES], PARAMS, n=8))}
    finally:
        asyncio.run(b.aclose())


def test_a_failed_template_prefill_never_serves_a_stale_template(
    clean: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect 1: the shared prompt's prefill fails after its sequence was cleared; later requests with
    that prompt must decode from a freshly evaluated template, not from an empty cache."""
    b = _open()
    try:
        run(b, make_requests(["Name one colour."], PARAMS, n=2))  # creates the decoder
        dec = b._decoder
        assert dec is not None
        template = dec.template
        _fail_on(dec, monkeypatch, lambda _n, rows: rows[0][2] == template and len(rows) > 1)
        reqs = make_requests([DISEASES], PARAMS, n=8)
        first = run(b, reqs)
        assert all(r.error is not None and "injected" in r.error for r in first)
        again = {r.key: r.text for r in run(b, reqs)}
        assert again == clean  # byte-identical to a run that never failed
    finally:
        asyncio.run(b.aclose())


def test_a_mid_batch_failure_keeps_every_finished_sample(
    clean: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Defect 2: an error after some samples finished stores those, marks only the rest failed, and a
    rerun completes the rest with the texts an undisturbed run gives."""
    b = _open()
    try:
        run(b, make_requests(["Name one colour."], PARAMS, n=2))
        dec = b._decoder
        assert dec is not None
        n_par = dec.n_parallel
        # fail in a decoding step (n_parallel rows) once the first round of slots has had time to finish
        calls = _fail_on(dec, monkeypatch, lambda n, rows: len(rows) == n_par and n > PARAMS.max_tokens + 8)
        reqs = make_requests([DISEASES], PARAMS, n=8)
        with ResponseStore(tmp_path / "s.sqlite") as store:
            got = run(b, reqs, store=store, progress=False)
            ok = {r.key: r.text for r in got if r.ok}
            failed = [r for r in got if not r.ok]
            assert calls and 0 < len(ok) < len(reqs) and len(ok) + len(failed) == len(reqs)
            assert all("injected" in (r.error or "") for r in failed)
            assert ok == {k: clean[k] for k in ok}  # finished samples kept, byte-identical
            assert store.done_keys(clean) == set(ok)  # stored, and only those as successes
            monkeypatch.undo()
            rerun = {r.key: r.text for r in run(b, reqs, store=store, progress=False)}
            assert rerun == clean
            assert store.done_keys(clean) == set(clean)
    finally:
        asyncio.run(b.aclose())


def test_each_sample_is_stored_the_moment_it_finishes(tmp_path: Path) -> None:
    """Issue 19: samples of one decoder run reach the store one by one, not when the run ends."""
    b = _open()
    # distinct budgets so the samples finish at distinct decoding steps
    story = "Write a long story about a dog."
    reqs = [
        r
        for k in range(6)
        for r in make_requests(
            [story], GenerationParams(**{**PARAMS.as_dict(), "max_tokens": 4 + 20 * k, "temperature": 0.0})
        )
    ]
    b.batch_size = len(reqs)  # all in one decoder run
    keys = [b.key(r) for r in reqs]

    async def collect(store: ResponseStore) -> list[tuple[int, int]]:
        seen: list[tuple[int, int]] = []
        async for resp in sample(b, reqs, store=store, progress=False):
            seen.append((resp.completion_tokens, len(store.done_keys(keys))))
        return seen

    try:
        with ResponseStore(tmp_path / "s.sqlite") as store:
            seen = asyncio.run(collect(store))
    finally:
        asyncio.run(b.aclose())
    assert [stored for _, stored in seen] == list(range(1, len(reqs) + 1))  # one more row each time
    budgets = [c for c, _ in seen]
    assert budgets == sorted(budgets)  # shortest first: handed over as each finished
