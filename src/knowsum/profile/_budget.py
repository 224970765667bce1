"""Budgets: how big each instrument's part of a profile is, as a small declarative TOML table.

Three ship with knowsum: ``smoke`` (minutes on a small local model), ``quick`` (a first real profile)
and ``paper`` (the papers' sizes). ``knowsum/profile/budgets/<name>.toml`` holds a budget's
description; each instrument ships its own table of it (:meth:`knowsum.Instrument.budget_table`,
``<instrument>/budgets/<name>.toml``), so a plug-in joins ``--budget smoke`` by shipping its tables.
``--plan FILE`` reads one's own with the same keys::

    description = "…"
    [census]                     # KnowSum (Li et al. 2025): each task sampled once, scored per criterion
    tasks = ["diseases", "theorems"]   # or any installed task: knowsum census tasks
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

Each table is an installed instrument's (``knowsum instruments``): its name is the instrument's, its
keys are the instrument's ``Budget`` model — a plug-in instrument's table reads the same way. An
instrument left out is not run. An unknown table or key, or a bad value, is refused in one line
naming the file and the key.

A plan's budget name is its file's stem and a short hash of its tables as parsed (``c#1a2b3c4d``; the
description is left out): two different plans named ``c.toml`` are two budgets, which ``profile
compare`` refuses to put side by side and a profile folder refuses to take in turn, while the same
plan from another folder, or reformatted, keeps its name.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from knowsum._util import config_error, no_quoted_values, read_text_file
from knowsum.errors import ConfigError, InputFileError, UnknownNameError
from knowsum.instrument import broken_instruments, instruments
from knowsum.records import text_hash

__all__ = ["BUDGETS", "ProfileBudget", "load_budget"]

BUDGETS = ("smoke", "quick", "paper")
"""The budgets shipped with knowsum, smallest first."""


@dataclass(frozen=True)
class ProfileBudget:
    """A whole profile's budget (``smoke``, ``quick``, ``paper`` or a plan file): one budget table per
    instrument it runs, in the registry's order. ``Budget`` alone is an instrument's table class.

    Attributes:
        name: ``smoke``, ``quick``, ``paper``, or the plan file's stem and the hash of its tables
            (``c#1a2b3c4d``, :func:`load_budget`).
        description: What it is for.
        tables: Instrument name → its budget table (an instance of the instrument's ``Budget``).
    """

    name: str = "custom"
    description: str = ""
    tables: dict[str, BaseModel] = field(default_factory=dict)

    def part(self, instrument: str) -> Any:
        """The table of ``instrument`` (``None`` when the budget leaves it out)."""
        return self.tables.get(instrument)


def _toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None


def _parse(data: dict[str, Any], where: str, name: str, plan: Path | None = None) -> ProfileBudget:
    known = instruments()
    unknown = sorted(k for k in data if k != "description" and k not in known)
    if unknown:
        broken = broken_instruments()
        if unknown[0] in broken:  # installed, but cannot be used: its own line, not "unknown"
            raise ConfigError(f"{where}: [{unknown[0]}]: {broken[unknown[0]]}")
        raise ConfigError(
            f"{where}: unknown key or instrument {unknown[0]!r}: a plan has description and one table "
            f"per installed instrument ({', '.join(f'[{n}]' for n in known)})"
        )
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ConfigError(f"{where}: invalid description={description!r}: must be text")
    tables: dict[str, BaseModel] = {}
    for inst_name, inst in known.items():
        if inst_name not in data:
            continue
        table = data[inst_name]
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: invalid {inst_name}={table!r}: must be a table [{inst_name}]")
        try:
            tables[inst_name] = inst.read_budget(table, plan)
        except ValidationError as exc:
            raise config_error(exc, where, inst_name) from None
        no_quoted_values(inst.Budget, table, where, inst_name)  # valid, but a number given as text
    if not tables:
        raise ConfigError(
            f"{where}: a budget needs at least one of the tables {', '.join(f'[{n}]' for n in known)}"
        )
    return ProfileBudget(name, description, tables)


def plan_name(plan: Path, data: dict[str, Any]) -> str:
    """A plan's budget name: its file's stem, ``#`` and 8 hex digits of the SHA-256 of its tables as
    parsed (every key but ``description``, in a canonical JSON form), so that plans that ask
    different things never share a name."""
    tables = {k: v for k, v in data.items() if k != "description"}
    return plan.stem + text_hash(json.dumps(tables, sort_keys=True, default=str))[:9]


def load_budget(name: str | None = None, plan: Path | None = None) -> ProfileBudget:
    """The shipped budget ``name``, or the plan file ``plan`` (which wins), named by
    :func:`plan_name`.

    Raises:
        UnknownNameError: not a shipped budget. InputFileError: an unreadable plan file.
        ConfigError: a bad plan (names the file and the key).
    """
    if plan is not None:
        if not plan.is_file():
            raise InputFileError(plan, "plan file not found" if not plan.exists() else "not a file")
        data = _toml(read_text_file(plan, "plan file"), str(plan))
        return _parse(data, str(plan), plan_name(plan, data), plan)
    name = name or "smoke"
    if name not in BUDGETS:
        raise UnknownNameError("budget", name, BUDGETS)
    text = resources.files("knowsum.profile").joinpath("budgets", f"{name}.toml").read_text(encoding="utf-8")
    data = _toml(text, f"budget {name}")
    for inst_name, inst in instruments().items():
        table = inst.budget_table(name)
        if table is not None:
            data.setdefault(inst_name, table)
    return _parse(data, f"budget {name}", name)
