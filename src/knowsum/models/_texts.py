"""Texts answering a list of requests, in order: the common "ask, then read the answers" step."""

from __future__ import annotations

from collections.abc import Sequence

from knowsum.errors import BackendError
from knowsum.models._base import Backend
from knowsum.models._params import Request
from knowsum.models._sample import sample_sync
from knowsum.models._store import ResponseStore

__all__ = ["failed_requests", "sample_texts"]


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
    failed_requests(backend, failed, len(requests))
    return texts


def failed_requests(backend: Backend, failed: int, total: int) -> None:
    """Stop a run some of whose requests failed for good: its figures would be computed from the
    answers that got through, as if the model had been asked fewer times. Every success is stored,
    so the rerun asks only the failed requests (the one rule of every instrument's sampling). A
    backend whose failures are final (:attr:`Backend.final`: a replay of a log's answers, where a
    rerun would fail the same way) is let through: its caller says which part was answered.

    Raises:
        BackendError: ``failed > 0``: ``N of M requests failed; rerun the same command to retry them``.
    """
    if failed and not backend.final:
        raise BackendError(f"{failed} of {total} requests failed; rerun the same command to retry them")
