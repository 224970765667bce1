"""The census as a :class:`knowsum.instrument.Instrument`: its budget table, requests and card rows.

Card rows (one run = one task and criterion): ``N_seen`` (a count, no interval), ``N̂_tot`` and
``SKR`` with the run's own bootstrap interval (KnowSum §3, lognormal by default), beside the paper's
Table 1 values of the same task and criterion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationInfo, field_validator, model_validator

from knowsum.census._config import CensusConfig
from knowsum.census._inspect import census_figures, census_items
from knowsum.census._published import PAPER, PUBLISHED
from knowsum.census._run import run_census
from knowsum.census._tasks import census_requests, resolve_task
from knowsum.census.record import CensusRecord
from knowsum.errors import KnowsumError
from knowsum.instrument import Instrument, KBs, ReplyItems, Step, check_per_key, limits, release_caveat
from knowsum.models import Request
from knowsum.records.profile import Measure

if TYPE_CHECKING:
    import click

__all__ = ["INSTRUMENT", "CensusBudget", "CensusInstrument"]

PAPER_QUERIES = {"diseases": 3000, "theorems": 30000}
"""KnowSum §4.1: N_query of each task (N_ans 50 diseases, 20 theorems)."""
PAPER_ANSWERS = {"diseases": 50, "theorems": 20}


class CensusBudget(BaseModel):
    """The ``[census]`` table: tasks sampled once each and scored under every criterion (KnowSum §4.1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: tuple[str, ...] = Field(("diseases", "theorems"), min_length=1)
    criteria: tuple[Literal["relaxed", "strict"], ...] = Field(("relaxed", "strict"), min_length=1)
    queries: int | dict[str, int] = Field(20, description="N_query, one number or per task")
    answers: int | dict[str, int] | None = Field(None, description="N_ans, default the task's")
    n_bootstrap: Annotated[int, Strict(), limits(CensusConfig, "n_bootstrap")] = 1000
    seed: Annotated[int, Strict(), limits(CensusConfig, "seed")] = 0

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for task in v:  # built in, ontology:KB, or a plug-in's (knowsum census tasks lists them)
            try:
                resolve_task(CensusConfig(task=task))
            except KnowsumError as exc:
                raise ValueError(str(exc)) from None
        return v

    @field_validator("queries", "answers", mode="before")
    @classmethod
    def _per_task(cls, value: Any, info: ValidationInfo) -> Any:
        """One whole number, or one per task, each within the census config's bounds."""
        if value is None and info.field_name == "answers":
            return value
        return check_per_key(value, CensusConfig, str(info.field_name))

    @model_validator(mode="after")
    def _known_tasks(self) -> CensusBudget:
        for name in ("queries", "answers"):
            table = getattr(self, name)
            if isinstance(table, dict):
                unknown = sorted(set(table) - set(self.tasks))
                if unknown:
                    raise ValueError(f"{name} names task(s) {unknown} not in tasks {list(self.tasks)}")
        return self

    def queries_of(self, task: str) -> int:
        """N_query of ``task`` (a task missing from a per-task table gets 20)."""
        return self.queries if isinstance(self.queries, int) else self.queries.get(task, 20)

    def answers_of(self, task: str) -> int | None:
        """N_ans of ``task`` (``None``: the task's default)."""
        return self.answers if not isinstance(self.answers, dict) else self.answers.get(task)


class CensusInstrument(Instrument[CensusConfig, CensusRecord]):
    """KnowSum's census (Li, Xin, Long, Su 2025): how many items of a kind would the model name?"""

    name = "census"
    order = 10
    title = "Census — how many items would it name? (KnowSum)"
    paper = PAPER
    Budget = CensusBudget
    entry = staticmethod(run_census)
    summary = "Count what a model knows: N_seen, N_tot, SKR (KnowSum)."
    task_summary = "A KnowSum census: how many distinct items of a kind the model knows, seen and unseen."
    draws = "queries"

    def command(self) -> click.Group:
        """``knowsum census …``."""
        from knowsum.census.cli import census

        return census

    published = PUBLISHED

    def requests(self, config: CensusConfig, kbs: KBs) -> list[Request]:
        """The ``queries`` draws of the task's prompt (no KB needed to build them)."""
        return census_requests(config, resolve_task(config))

    def task_defaults(self) -> dict[str, Any]:
        """The harness task censuses diseases unless told otherwise."""
        return {"task": "diseases"}

    def reply_items(self, config: CensusConfig) -> ReplyItems:
        """Each reply decoded and verified against the task's knowledge base (loaded here)."""
        return census_items(config)

    def figures(self, record: CensusRecord) -> list[Measure]:
        """N_seen, N_tot, U_unseen, SKR, coverage, the Chao estimate, queries and valid items."""
        return census_figures(self, record)

    def examples(self, record: CensusRecord) -> list[str]:
        """Three raw replies of the run."""
        return record.examples[:3]

    def steps(self, table: BaseModel) -> list[Step]:
        """One run per task and criterion, ``census-<task>-<criterion>``; a task's criteria share their
        responses (prompt and sampling do not depend on the criterion)."""
        assert isinstance(table, CensusBudget)
        out = []
        for task in table.tasks:
            for criterion in table.criteria:
                cfg = CensusConfig(
                    task=task,
                    queries=table.queries_of(task),
                    answers=table.answers_of(task),
                    n_bootstrap=table.n_bootstrap,
                    criterion=criterion,
                    seed=table.seed,
                )
                out.append(Step(self.name, f"census-{task}-{criterion}", cfg, f"census {task} ({criterion})"))
        return out

    def measures(self, record: CensusRecord, run: str) -> list[Measure]:
        """N_seen, N̂_tot and SKR of one run (one task, one criterion), beside KnowSum Table 1."""
        from knowsum.census.page import _NOTHING  # the census report's reason, one text for both

        r = record
        task, crit = r.task, r.criterion
        caveats = []
        paper_q, answers = PAPER_QUERIES.get(task), int(r.config.get("answers") or 0)
        if paper_q and r.n_queries < paper_q:
            caveats.append(
                f"N_query = {r.n_queries:,} here, {paper_q:,} in the paper: N_seen grows with N_query, and "
                f"N̂_tot extrapolates t = {r.t:g}× from fewer observations (a wider interval)"
            )
        if task in PAPER_ANSWERS and answers and answers != PAPER_ANSWERS[task]:
            caveats.append(f"N_ans = {answers} per query here, {PAPER_ANSWERS[task]} in the paper")
        caveats.append(release_caveat(r.kb_releases))
        k = f"k = {r.k} ({r.k_source})" if r.k is not None else "k: none"
        boot = f"{r.level:.0%} {r.interval_method} bootstrap interval"
        horizon = "trust horizon: " + (r.horizon.message if r.horizon is not None else "not computed")
        seen = f"distinct verified items, {crit} criterion (KnowSum §4.1); a count, no interval"
        total = f"N_seen + Û(t), t = {r.t:g}, {r.estimator} (smoothed Good–Turing), {k}; {boot}"
        if r.prediction_interval_total is not None:  # what t times as many queries will show
            lo, hi = r.prediction_interval_total
            total += f"; {r.level:.0%} prediction interval [{lo:,.4g}, {hi:,.4g}]"
        # a census without a verified item has no N̂_tot and no SKR, for the reason its own report gives
        # them ("n/a: nothing to estimate (N_seen = 0)"), the same on every surface
        nothing = None if r.n_seen else _NOTHING.removeprefix("n/a: ")
        rows = (
            ("n_seen", "N_seen", r.n_seen, None, seen),
            ("n_total", "N̂_tot", r.n_total, r.interval_total, total),
            ("skr", "SKR", r.skr, r.interval_skr, f"N_seen / N̂_tot; interval from N̂_tot's ({boot})"),
        )
        return [
            self.measure(
                f"{task}/{crit}/{key}",
                f"{task} ({crit}) {title}",
                value,
                method,
                run=run,
                caveats=[*caveats, horizon] if key == "n_total" else caveats,
                interval=interval,
                record=None if key == "n_seen" else r,
                count=key in ("n_seen", "n_total"),
                ranked_by=f"{task}/{crit}/n_seen" if key == "n_total" else None,
                rank_label="N_seen → N̂_tot" if key == "n_total" else "",
                value_reason=nothing if value is None else None,
            )
            for key, title, value, interval, method in rows
        ]


INSTRUMENT = CensusInstrument()
"""The census instrument (registered as ``census`` under ``knowsum.instruments``)."""
