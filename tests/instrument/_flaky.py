"""A plug-in whose card row is whatever the test sets (``FLAKY.row``): a non-finite value, an interval
that misses its value… Registered in the tests through a patched entry-point list (``flaky_plug_in``),
as a package's ``knowsum.instruments`` entry would be."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from pydantic import BaseModel, Field

from knowsum.instrument import INSTRUMENTS, Instrument, KBs, Measure, Step, installed
from knowsum.models import Backend, GenerationParams, Request, ResponseStore, make_requests, sample_sync
from knowsum.records import Record, Run, write_run_dir

__all__ = ["INSTRUMENT", "flaky_plug_in"]


class FlakyConfig(BaseModel):
    """One run: how often the question is asked."""

    queries: int = Field(2, ge=1)


class FlakyRecord(Record):
    """``result.json`` of a flaky run."""

    KIND: ClassVar[str] = "flaky"
    version: int = 1
    kind: Literal["flaky"] = "flaky"
    config: dict[str, Any]
    n: int


def run_flaky(
    config: FlakyConfig,
    backend: Backend,
    *,
    store: ResponseStore,
    out: Path | None = None,
    progress: bool | None = None,
    overwrite: bool = False,
) -> Run[FlakyRecord]:
    """Ask, count the replies, write ``out``."""
    replies = sample_sync(backend, INSTRUMENT.requests(config, KBs()), store=store, progress=False)
    record = FlakyRecord(
        model=backend.model_id, backend=backend.kind, config=config.model_dump(mode="json"), n=len(replies)
    )
    folder = out or Path("flaky-runs") / backend.model_id
    write_run_dir(folder, record, {"report.html": "<p>flaky</p>"})
    return Run(record, folder, folder / "report.html")


class FlakyInstrument(Instrument[FlakyConfig, FlakyRecord]):
    """Its one card row is ``row``: ``(value, interval)``."""

    name = "flaky"
    title = "Flaky — a plug-in with a bug in its measures"
    Budget = FlakyConfig
    entry = staticmethod(run_flaky)
    row: tuple[float | None, tuple[float | None, float | None] | None] = (0.5, None)

    def requests(self, config: FlakyConfig, kbs: KBs) -> list[Request]:
        """``queries`` draws of one question."""
        return make_requests(["Is water wet?"], GenerationParams(max_tokens=4), n=config.queries)

    def steps(self, table: BaseModel) -> list[Step]:
        """One run, ``flaky``."""
        assert isinstance(table, FlakyConfig)
        return [Step(self.name, "flaky", table, "flaky")]

    def measures(self, record: FlakyRecord, run: str) -> list[Measure]:
        """The row the test set."""
        value, interval = self.row
        return [self.measure("share", "share", value, "set by the test", run=run, interval=interval)]


INSTRUMENT = FlakyInstrument()


@pytest.fixture
def flaky_plug_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[FlakyInstrument]:
    """knowsum's instruments, then the flaky plug-in (its row reset after the test)."""
    real = entry_points(group=INSTRUMENTS)
    flaky = EntryPoint("flaky", "tests.instrument._flaky:INSTRUMENT", INSTRUMENTS)

    def patched(group: str) -> list[EntryPoint]:
        return [*real, flaky] if group == INSTRUMENTS else list(entry_points(group=group))

    installed.cache_clear()
    monkeypatch.setattr("knowsum.instrument._registry.entry_points", patched)
    monkeypatch.setattr(INSTRUMENT, "row", (0.5, None))
    yield INSTRUMENT
    installed.cache_clear()
