"""Budgets: how big each instrument's part of a profile is, as a small declarative TOML table.

Three ship with knowsum (``knowsum/profile/budgets/*.toml``): ``smoke`` (minutes on a small local
model), ``quick`` (a first real profile) and ``paper`` (the papers' sizes). ``--plan FILE`` reads one's
own with the same keys::

    description = "…"
    [census]                     # KnowSum (Li et al. 2025): each task sampled once, scored per criterion
    tasks = ["diseases", "theorems"]
    criteria = ["relaxed", "strict"]
    queries = { diseases = 3000, theorems = 30000 }   # or one number for every task
    answers = { diseases = 50 }  # N_ans per query (default: the task's, 50 diseases / 20 theorems)
    n_bootstrap = 1000
    [recall]                     # Bombieri et al.: K concepts per popularity bucket, or every label
    kbs = ["go", "icd10", "uberon"]
    select = "stratified"        # or "all"
    per_bucket = 2
    n_buckets = 50
    invariance = ["pi2", "pi3"]  # §6, on a stratified sample of invariance_per_bucket per bucket
    invariance_kbs = ["go", "icd10"]
    invariance_per_bucket = 20
    [genebench]                  # SciHorizon-GENE: the balanced build, or paper_size = true
    per_type = 2
    expression = "expression.tsv"  # user files, as genebench's --expression/--summaries/--abstracts
    summaries = "summaries.tsv"    # (relative to the plan file); without them Q6/Q8 are not asked

An instrument left out is not run. An unknown table or key, or a bad value, is refused in one line
naming the file and the key.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from knowsum._util import config_error, read_text_file
from knowsum.census import CensusConfig
from knowsum.errors import ConfigError, InputFileError, UnknownNameError
from knowsum.genebench import GenebenchConfig
from knowsum.recall import RecallConfig

__all__ = ["BUDGETS", "Budget", "CensusBudget", "GenebenchBudget", "RecallBudget", "load_budget"]

BUDGETS = ("smoke", "quick", "paper")
"""The budgets shipped with knowsum, smallest first."""

_STRICT = ConfigDict(extra="forbid", frozen=True)


def _limits(config: type[BaseModel], name: str) -> Any:
    """The bounds ``config`` sets on its field ``name`` (``ge``, ``le``…), as a ``Field``: the
    instrument's config is the one source of every limit a plan may reach."""
    bounds = {
        key: getattr(m, key)
        for m in config.model_fields[name].metadata
        for key in ("ge", "gt", "le", "lt")
        if getattr(m, key, None) is not None
    }
    return Field(**bounds)


# whole numbers only ("3" and true are refused), within the instrument config's bounds
_PER_TASK = {
    name: TypeAdapter(Annotated[int, Strict(), _limits(CensusConfig, name)])
    for name in ("queries", "answers")
}


class CensusBudget(BaseModel):
    """The census part: tasks sampled once each and scored under every criterion (KnowSum §4.1)."""

    model_config = _STRICT

    tasks: tuple[Literal["diseases", "theorems"], ...] = Field(("diseases", "theorems"), min_length=1)
    criteria: tuple[Literal["relaxed", "strict"], ...] = Field(("relaxed", "strict"), min_length=1)
    queries: int | dict[str, int] = Field(20, description="N_query, one number or per task")
    answers: int | dict[str, int] | None = Field(None, description="N_ans, default the task's")
    n_bootstrap: Annotated[int, Strict(), _limits(CensusConfig, "n_bootstrap")] = 1000
    seed: Annotated[int, Strict(), _limits(CensusConfig, "seed")] = 0

    @field_validator("queries", "answers", mode="before")
    @classmethod
    def _per_task(cls, value: Any, info: ValidationInfo) -> Any:
        """One whole number, or one per task, each within the census config's bounds."""
        if value is None and info.field_name == "answers":
            return value
        adapter = _PER_TASK[str(info.field_name)]
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for task, number in items:
            try:
                adapter.validate_python(number)
            except ValidationError as exc:
                where = "" if task is None else f"{task}: "
                raise ValueError(f"{where}{exc.errors()[0]['msg']}") from None
        return value

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


class RecallBudget(BaseModel):
    """The recall part: which KBs, which concepts, which invariance methods (Bombieri et al. §4, §6)."""

    model_config = _STRICT

    kbs: tuple[str, ...] = Field(("go",), min_length=1)
    select: Literal["stratified", "all"] = "stratified"
    per_bucket: Annotated[int, Strict(), _limits(RecallConfig, "per_bucket")] = Field(
        2, description="K concepts per popularity bucket (select=stratified)"
    )
    n_buckets: Annotated[int, Strict(), _limits(RecallConfig, "n_buckets")] = 50
    n_perm: Annotated[int, Strict(), _limits(RecallConfig, "n_perm")] = 10_000
    seed: Annotated[int, Strict(), _limits(RecallConfig, "seed")] = 0
    invariance: tuple[Literal["pi1", "pi2", "pi3"], ...] = ()
    invariance_kbs: tuple[str, ...] = ()
    invariance_per_bucket: Annotated[int, Strict(), _limits(RecallConfig, "per_bucket")] = 20

    @model_validator(mode="after")
    def _invariance_kbs(self) -> RecallBudget:
        extra = sorted(set(self.invariance_kbs) - set(self.kbs))
        if extra:
            raise ValueError(f"invariance_kbs {extra} are not among kbs {list(self.kbs)}")
        return self


class GenebenchBudget(BaseModel):
    """The genebench part: the balanced build (``per_type`` per stratum) or the paper's size."""

    model_config = _STRICT

    per_type: Annotated[int, Strict(), _limits(GenebenchConfig, "per_type")] = 2
    paper_size: Annotated[bool, Strict()] = False
    permutations: Literal["cyclic", "none"] = "cyclic"
    n_perm: Annotated[int, Strict(), _limits(GenebenchConfig, "n_perm")] = 10_000
    seed: Annotated[int, Strict(), _limits(GenebenchConfig, "seed")] = 0
    expression: Path | None = Field(None, description="expression file (Q6), as --expression")
    summaries: Path | None = Field(None, description="functional summaries file (Q8), as --summaries")
    abstracts: Path | None = Field(None, description="abstracts file (with-abstracts Q7/Q8), as --abstracts")


class Budget(BaseModel):
    """A whole profile's budget: one optional table per instrument."""

    model_config = _STRICT

    name: str = Field("custom", description="smoke, quick, paper, or the plan file's name")
    description: str = ""
    census: CensusBudget | None = None
    recall: RecallBudget | None = None
    genebench: GenebenchBudget | None = None

    @model_validator(mode="after")
    def _something(self) -> Budget:
        if self.census is None and self.recall is None and self.genebench is None:
            raise ValueError("a budget needs at least one of the tables [census], [recall], [genebench]")
        return self


def _parse(text: str, where: str, name: str) -> Budget:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    known = set(Budget.model_fields) - {"name"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key or instrument {unknown[0]!r}: a plan has description, "
            "[census], [recall] and [genebench]"
        )
    try:
        return Budget(name=name, **data)
    except ValidationError as exc:
        raise config_error(exc, where) from None


_USER_FILES = ("expression", "summaries", "abstracts")


def _with_files(budget: Budget, plan: Path) -> Budget:
    """``budget`` with its genebench user files resolved against the plan file's folder, each checked."""
    gb = budget.genebench
    if gb is None:
        return budget
    files: dict[str, Path] = {}
    for key in _USER_FILES:
        path = getattr(gb, key)
        if path is None:
            continue
        path = path if path.is_absolute() else plan.parent / path
        if not path.is_file():
            raise ConfigError(
                f"{plan}: [genebench] {key} = {str(getattr(gb, key))!r}: "
                f"{'no such file' if not path.exists() else 'not a file'} ({path}); "
                "paths are relative to the plan file"
            )
        files[key] = path
    return budget.model_copy(update={"genebench": gb.model_copy(update=files)})


def load_budget(name: str | None = None, plan: Path | None = None) -> Budget:
    """The shipped budget ``name``, or the plan file ``plan`` (which wins).

    Raises:
        UnknownNameError: not a shipped budget. InputFileError: an unreadable plan file.
        ConfigError: a bad plan (names the file and the key).
    """
    if plan is not None:
        if not plan.is_file():
            raise InputFileError(plan, "plan file not found" if not plan.exists() else "not a file")
        return _with_files(_parse(read_text_file(plan, "plan file"), str(plan), plan.stem), plan)
    name = name or "smoke"
    if name not in BUDGETS:
        raise UnknownNameError("budget", name, BUDGETS)
    text = resources.files("knowsum.profile").joinpath("budgets", f"{name}.toml").read_text(encoding="utf-8")
    return _parse(text, f"budget {name}", name)
