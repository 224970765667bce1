"""A tiny plan and scripted backends shared by the profile tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from knowsum.errors import BackendError
from knowsum.models import MockBackend, Request, Response

TINY = """\
description = "tests: the smallest plan that runs every instrument"

[census]
tasks = ["diseases", "theorems"]
criteria = ["relaxed", "strict"]
queries = 3
answers = 5
n_bootstrap = 50

[recall]
kbs = ["go"]
per_bucket = 1
n_buckets = 5
n_perm = 50

[genebench]
per_type = 1
n_perm = 50
"""

XSS = "<script>window.__pwned = 1;</script>"


def tiny_plan(folder: Path) -> Path:
    """Write the tiny plan into ``folder``; return its path."""
    path = folder / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    return path


def answer(request: Request) -> str:
    """Diseases, a theorem, a GO ID, a letter — and a script tag, which must stay text on every page."""
    return f"Asthma\nInfluenza\nMeasles\nPythagorean theorem\nGO:0008150\nA\n{XSS} #{request.sample_index}"


class FailingBackend(MockBackend):
    """A mock that answers ``budget`` requests, then fails (a crash mid-plan)."""

    def __init__(self, budget: int) -> None:
        super().__init__(answer)
        self.budget = budget

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        if len(self.calls) + len(requests) > self.budget:
            raise BackendError("the model server went away")
        return await super().generate(requests)


class ErrorOnce(MockBackend):
    """A mock whose ``nth`` request (1-based) fails for good once: a server error its retries did not
    outlast, recorded as a failed response (not raised)."""

    def __init__(self, nth: int) -> None:
        super().__init__(answer)
        self.nth = nth

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        done = len(self.calls)
        got = await super().generate(requests)
        return [
            self.failure(r.request, "HTTP 500: boom") if done + i + 1 == self.nth else r
            for i, r in enumerate(got)
        ]
