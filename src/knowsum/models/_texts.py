"""Texts answering a list of requests, in order: the common "ask, then read the answers" step."""

from __future__ import annotations

from collections.abc import Sequence

from knowsum.errors import BackendError
from knowsum.models._base import Backend
from knowsum.models._params import Request
from knowsum.models._sample import sample_sync
from knowsum.models._store import ResponseStore

__all__ = ["sample_texts"]


def sample_texts(
    backend: Backend,
    requests: Sequence[Request],
    store: ResponseStore | None = None,
    progress: bool | None = None,
    description: str = "sampling",
) -> list[str]:
    """The generated text of each request (same order); answers already in ``store`` are reused.

    Raises:
        BackendError: some requests failed for good (every success is stored, so a rerun asks only
            the failed ones).
    """
    responses = sample_sync(backend, requests, store=store, progress=progress, description=description)
    by_key = {r.key: r for r in responses}
    texts: list[str] = []
    failed = 0
    for req in requests:
        resp = by_key.get(backend.key(req))
        if resp is None or not resp.ok:
            failed += 1
            texts.append("")
        else:
            texts.append(resp.text)
    if failed:
        raise BackendError(
            f"{failed} of {len(requests)} requests failed; rerun the same command to retry them"
        )
    return texts
