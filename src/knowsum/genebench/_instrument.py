"""Genebench as a :class:`knowsum.instrument.Instrument`: its budget table, requests and card rows.

Card rows: the overall, the four perspectives and the eight knowledge types of SciHorizon-GENE's
Table 2. A knowledge type whose cells are all accuracies carries the 95 % Wilson interval on its
score and its number of questions (approximate: the score is an equal mean of cells, each a mean
over rotations); an F1, expression or summary score is no share of questions and carries none, with
the reason; nor do the overall and the perspectives, means of those. A type asked with part of its
cells is marked (``type-partial``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, model_validator

from knowsum.errors import ConfigError
from knowsum.genebench._aggregate import CELLS, SUMMARY_CUT
from knowsum.genebench._compare import SUMMARY_NOT_PAPER
from knowsum.genebench._config import PER_TYPE_OR_PAPER, GenebenchConfig
from knowsum.genebench._published import PAPER, PUBLISHED
from knowsum.genebench._run import build_from_kb, genebench_requests, run_genebench
from knowsum.genebench._schema import KNOWLEDGE, read_questions
from knowsum.genebench.record import GenebenchRecord
from knowsum.instrument import Instrument, KBs, Step, limits, release_caveat, wilson
from knowsum.models import Request
from knowsum.records import Caveat
from knowsum.records.profile import Measure

if TYPE_CHECKING:
    import click

__all__ = ["INSTRUMENT", "GenebenchBudget", "GenebenchInstrument"]

PAPER_QUESTIONS = 2710
"""SciHorizon-GENE's question set (§4)."""
_USER_FILES = ("expression", "summaries", "abstracts")


class GenebenchBudget(BaseModel):
    """The ``[genebench]`` table: the balanced build (``per_type`` per stratum) or the paper's size."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_type: Annotated[int, Strict(), limits(GenebenchConfig, "per_type")] = 2
    paper_size: Annotated[bool, Strict()] = False
    permutations: Literal["cyclic", "none"] = "cyclic"
    n_perm: Annotated[int, Strict(), limits(GenebenchConfig, "n_perm")] = 10_000
    seed: Annotated[int, Strict(), limits(GenebenchConfig, "seed")] = 0
    expression: Path | None = Field(None, description="expression file (Q6), as --expression")
    summaries: Path | None = Field(None, description="functional summaries file (Q8), as --summaries")
    abstracts: Path | None = Field(None, description="abstracts file (with-abstracts Q7/Q8), as --abstracts")

    @model_validator(mode="after")
    def _one_size(self) -> GenebenchBudget:
        if self.paper_size and "per_type" in self.model_fields_set:
            raise ValueError(PER_TYPE_OR_PAPER)
        return self


class GenebenchInstrument(Instrument[GenebenchConfig, GenebenchRecord]):
    """SciHorizon-GENE (Huang et al.): how reliably does the model reason from gene knowledge?"""

    name = "genebench"
    order = 30
    title = "Genebench — how does it reason from gene knowledge? (SciHorizon-GENE)"
    paper = PAPER
    Budget = GenebenchBudget
    entry = staticmethod(run_genebench)
    summary = "Gene-knowledge benchmark, SciHorizon-GENE (build/run/score/compare)."
    caveat_codes = ("type-not-asked",)
    task_summary = (
        "SciHorizon-GENE: questions built from curated gene records, every cyclic rotation of the options."
    )

    def command(self) -> click.Group:
        """``knowsum genebench …``."""
        from knowsum.genebench.cli import genebench

        return genebench

    published = PUBLISHED

    def requests(self, config: GenebenchConfig, kbs: KBs) -> list[Request]:
        """One chat request per question and rotation (the questions read or built as the run does)."""
        if config.questions is not None:
            questions = read_questions(config.questions)
        else:
            questions = build_from_kb(config)[0]
        return genebench_requests(config, questions)

    def figures(self, record: GenebenchRecord) -> list[Measure]:
        """The overall score, the score per knowledge type (Table 2), the mean over every cyclic
        rotation per question type and perspective (Tables 5-6 cells, ``Q1/loc`` …), the format-error
        rate; a knowledge type not asked is marked ``type-not-asked``. Every type and cell of the
        benchmark is a figure whatever was asked (``None``, a log's ``NaN``, where nothing was), so
        every log of the task has the same metric names."""
        s = record.scores
        means = {cell.key: cell.mean for cell in s.cells}
        rows: list[tuple[str, float | None, str]] = [
            ("overall", s.overall, "equal mean of the knowledge types asked"),
            *((kind, s.knowledge.get(kind), "knowledge type score") for kind in KNOWLEDGE),
            *((spec.key, means.get(spec.key), "mean over the rotations") for spec in CELLS),
            ("format_error_rate", s.format_error_rate, "replies not in the asked format"),
        ]
        missing = [
            Caveat(kind="type-not-asked", mark=f"{kind} not asked", message=why)
            for kind, why in s.types_missing.items()
        ]
        return [self.figure(k, v, how, marks=missing if n == 0 else ()) for n, (k, v, how) in enumerate(rows)]

    def read_budget(self, data: dict[str, Any], plan: Path | None) -> BaseModel:
        """The table, its user files resolved against the plan file's folder, each checked.

        Raises:
            ConfigError: a user file that is missing (names the plan file and the key).
        """
        table = GenebenchBudget.model_validate(data)
        files: dict[str, Path] = {}
        for key in _USER_FILES:
            given = getattr(table, key)
            if given is None or plan is None:
                continue
            path = given if given.is_absolute() else plan.parent / given
            if not path.is_file():
                raise ConfigError(
                    f"{plan}: [genebench] {key} = {str(given)!r}: "
                    f"{'no such file' if not path.exists() else 'not a file'} ({path}); "
                    "paths are relative to the plan file"
                )
            files[key] = path
        return table.model_copy(update=files)

    def steps(self, table: BaseModel) -> list[Step]:
        """One run: ``genebench-balanced``, or ``genebench-paper`` at the paper's size."""
        assert isinstance(table, GenebenchBudget)
        fields = dict(table)  # the table's keys are the config's (per_type has no say at the paper's size)
        cfg = GenebenchConfig(
            **{k: v for k, v in fields.items() if not (k == "per_type" and table.paper_size)}
        )
        name = "genebench-paper" if table.paper_size else "genebench-balanced"
        return [Step(self.name, name, cfg, name.replace("-", " "))]

    def measures(self, record: GenebenchRecord, run: str) -> list[Measure]:
        """Overall, the four perspectives and the eight knowledge types of a run (Table 2)."""
        s = record.scores
        caveats = []
        if record.n_questions < PAPER_QUESTIONS:
            caveats.append(
                f"{record.n_questions:,} questions here, {PAPER_QUESTIONS:,} in the paper: "
                "each type rests on fewer questions (wider intervals)"
            )
        caveats.append(release_caveat(record.kb_releases))
        overall = (
            f"equal mean of the {len(s.types_asked)} knowledge types asked (SciHorizon-GENE Table 2); "
            "no interval (see the types')"
        )
        # the record's caveats qualify the summary score: marked on the rows it enters (and the overall)
        summary = [c for c in s.cells if c.metric == "summary score"]
        keys, kinds = {c.key for c in summary}, {c.knowledge for c in summary}
        other = [SUMMARY_NOT_PAPER] if kinds and s.knowledge.get("summary") is not None else []
        out = [
            self.measure(
                "overall",
                "overall",
                s.overall,
                overall,
                run=run,
                caveats=[*caveats, *other],
                percent=True,
                record=record,
            )
        ]
        cut = [c for c in record.caveats if c.kind == SUMMARY_CUT]
        for name, value in record.perspective_means().items():
            how = "mean of the perspective's cells (§3.4, Fig. 9); the paper draws it, no table"
            out.append(
                self.measure(
                    f"perspective/{name}",
                    f"perspective: {name}",
                    value,
                    how,
                    run=run,
                    caveats=caveats,
                    percent=True,
                    marks=cut if keys & set(record.perspectives.get(name, ())) else (),
                )
            )
        for know, title in record.knowledge_titles.items():
            notes = [*caveats, *other] if know == "summary" else caveats
            out.append(self._knowledge(record, know, title, run, notes, cut if know in kinds else []))
        return out

    def _knowledge(
        self, record: GenebenchRecord, know: str, title: str, run: str, caveats: list[str], cut: list[Caveat]
    ) -> Measure:
        """A knowledge type's Table 2 score. Its interval is Wilson's on the questions where every cell
        is an accuracy (an approximation: an equal mean of cells, each a mean over rotations); an F1,
        expression or summary score is no proportion of questions, so it gets none, with the reason."""
        s = record.scores
        value = s.knowledge.get(know)
        cells = [c for c in s.cells if c.knowledge == know and c.in_overall]
        n = sum(c.n_questions for c in cells)
        why = s.types_missing.get(know)
        proportion = bool(cells) and all(c.metric == "accuracy" for c in cells)
        interval, reason = None, None
        if value is not None and proportion:
            interval = wilson(value * n, n)
            how = (
                f"Table 2 score over {n} questions (mean over rotations); "
                "Wilson 95 % on n questions, approximate"
            )
        else:
            metrics = ", ".join(dict.fromkeys(c.metric for c in cells if c.metric != "accuracy"))
            how = f"Table 2 score over {n} questions (mean over rotations)"
            if metrics:
                reason = f"a mean of {metrics} scores, not a share of questions"
                how += f"; no interval: {reason}"
        own = [c for c in record.caveats if c.figure == f"knowledge/{know}"]
        return self.measure(
            f"knowledge/{know}",
            title,
            value,
            how,
            run=run,
            percent=True,
            interval=interval,
            interval_reason=reason,
            value_reason=f"not asked: {why}" if why and value is None else None,
            caveats=[*caveats, f"not asked: {why}"] if why else caveats,
            marks=[*cut, *own],
        )


INSTRUMENT = GenebenchInstrument()
"""The genebench instrument (registered as ``genebench`` under ``knowsum.instruments``)."""
