"""A fourth instrument defined outside knowsum (the docs/plugins.md example): one question asked
``queries`` times, scored by the share of replies that say "yes". Registered in the tests through a
patched entry-point list, exactly as a package's ``knowsum.instruments`` entry would be."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from knowsum.instrument import Instrument, KBs, Measure, Step, wilson
from knowsum.models import Backend, GenerationParams, Request, ResponseStore, make_requests, sample_sync
from knowsum.records import Record, Run, write_run_dir


class YesConfig(BaseModel):
    """One run: the question and how often it is asked."""

    question: str = "Is water wet? Answer yes or no."
    queries: int = Field(4, ge=1)


class YesRecord(Record):
    """``result.json`` of a yes run."""

    KIND: ClassVar[str] = "yes"
    version: int = 1
    kind: Literal["yes"] = "yes"
    config: dict[str, Any]
    n: int
    yes: int


def run_yes(
    config: YesConfig,
    backend: Backend,
    *,
    store: ResponseStore,
    out: Path | None = None,
    progress: bool | None = None,
    overwrite: bool = False,
) -> Run[YesRecord]:
    """Ask, count the yeses, write ``out`` (result.json and a one-line report)."""
    replies = sample_sync(backend, INSTRUMENT.requests(config, KBs()), store=store, progress=False)
    record = YesRecord(
        model=backend.model_id,
        backend=backend.kind,
        config=config.model_dump(mode="json"),
        n=len(replies),
        yes=sum("yes" in r.text.lower() for r in replies),
    )
    folder = out or Path("yes-runs") / backend.model_id
    write_run_dir(folder, record, {"report.html": "<p>yes</p>"})
    return Run(record, folder, folder / "report.html")


class YesInstrument(Instrument[YesConfig, YesRecord]):
    """Does the model agree?"""

    name = "yes"
    title = "Yes — does it agree? (a plug-in)"
    paper = ""
    Budget = YesConfig
    entry = staticmethod(run_yes)

    def requests(self, config: YesConfig, kbs: KBs) -> list[Request]:
        """``queries`` draws of the question."""
        return make_requests([config.question], GenerationParams(max_tokens=4), n=config.queries)

    def steps(self, table: BaseModel) -> list[Step]:
        """One run, ``yes``."""
        assert isinstance(table, YesConfig)
        return [Step(self.name, "yes", table, "yes")]

    def measures(self, record: YesRecord, run: str) -> list[Measure]:
        """The share of yes, with its Wilson interval."""
        share = record.yes / record.n if record.n else None
        return [
            self.measure(
                "share",
                "share of yes",
                share,
                "yes / n; Wilson 95 %",
                run=run,
                interval=wilson(record.yes, record.n),
                percent=True,
            )
        ]


INSTRUMENT = YesInstrument()
