"""Sweep a census over prompt and sampling settings (KnowSum §5.2: Figs. 8-9 right, 12-13 right).

The paper varies the prompt — its clarity (full Table 3 prompt vs the App. B.2 simplified one) and
the answers requested per query (``N_ans`` 10/20 for theorems, 30/50 for diseases) — and the
sampling — temperature (0.7, 1) and nucleus sampling (top-p 0.9 vs off) — and compares ``N_seen``
and ``N̂_tot`` across settings. :func:`run_sweep` runs one ordinary census per cell of the grid, in
``OUT/<cell>`` (each resumable like any run: responses are in the store), then writes one
comparison page ``OUT/sweep.html`` and ``OUT/sweep.json``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from knowsum._util import atomic_write
from knowsum.census._config import CensusConfig, PromptVariant, config_error
from knowsum.census._result import CensusResult
from knowsum.census._run import default_out, open_for, run_census
from knowsum.census._tasks import resolve_task
from knowsum.errors import ConfigError
from knowsum.models import Backend

__all__ = ["SweepCell", "SweepOutcome", "run_sweep", "sweep_cells"]


@dataclass(frozen=True, slots=True)
class SweepCell:
    """One setting of the grid (``None``: the base configuration's value)."""

    temperature: float
    top_p: float
    answers: int | None
    prompt_variant: PromptVariant

    def label(self, answers: int) -> str:
        """``temp 1 · top-p 1 · 20 answers · full prompt``."""
        prompt = f"{self.prompt_variant} prompt"
        return f"temp {self.temperature:g} · top-p {self.top_p:g} · {answers} answers · {prompt}"

    def slug(self, answers: int) -> str:
        """Directory name of the cell: ``T1-P1-A20-full``."""
        return f"T{self.temperature:g}-P{self.top_p:g}-A{answers}-{self.prompt_variant}"


@dataclass(frozen=True, slots=True)
class SweepOutcome:
    """The cells run, in grid order, and the comparison page."""

    cells: list[tuple[SweepCell, CensusResult, Path]]
    labels: list[str]
    page: Path
    summary: Path


def sweep_cells(
    temperatures: Sequence[float],
    top_ps: Sequence[float],
    answers: Sequence[int | None],
    variants: Sequence[PromptVariant],
) -> list[SweepCell]:
    """The Cartesian product of the four axes (duplicates dropped, order kept)."""
    grid = itertools.product(
        dict.fromkeys(temperatures), dict.fromkeys(top_ps), dict.fromkeys(answers), dict.fromkeys(variants)
    )
    return [SweepCell(t, p, a, v) for t, p, a, v in grid]


def run_sweep(
    base: CensusConfig,
    cells: Sequence[SweepCell],
    out_dir: Path | None = None,
    *,
    backend: Backend | None = None,
    progress: bool | None = None,
    echo: Callable[[str], None] | None = None,
) -> SweepOutcome:
    """Run one census per cell (``base`` with the cell's settings) and write the comparison page.

    Args:
        base: Everything but the swept settings (task, model, queries, estimation…).
        cells: The settings (:func:`sweep_cells`).
        out_dir: Sweep directory (default ``census-runs/sweep-<task>-<model>``); cell ``c`` runs in
            ``out_dir/<c.slug>``.
        backend: A backend to use instead of opening ``base.model`` once for all cells.
        progress: Progress bars (``None``: when stderr is a terminal).
        echo: Called with one line per notable step.

    Raises:
        ConfigError: no cell, or a cell with an invalid setting (every cell is checked before any
            sampling);
            the errors of :func:`knowsum.census.run_census`.
    """
    from knowsum.report._census_studies import write_sweep_page

    if not cells:
        raise ConfigError(
            "census sweep: no cell to run; give at least one value for each of --temperature, "
            "--top-p, --answers and --prompt-variant"
        )
    say = echo or (lambda _m: None)
    configs = []
    for cell in cells:
        settings: dict[str, object] = {"temperature": cell.temperature, "top_p": cell.top_p}
        settings["prompt_variant"] = cell.prompt_variant
        settings["answers"] = cell.answers if cell.answers is not None else base.answers
        try:
            cfg = CensusConfig.model_validate({**base.model_dump(), **settings})
        except ValidationError as exc:
            raise config_error(exc, f"census sweep cell {cell.slug(cell.answers or 0)}") from None
        configs.append((cell, cfg, resolve_task(cfg).answers))  # a bad cell fails before any sampling
    own = backend is None
    be = backend if backend is not None else open_for(base)
    single = default_out(base, be.model_id)
    root = out_dir or single.with_name(f"sweep-{single.name}")
    done: list[tuple[SweepCell, CensusResult, Path]] = []
    try:
        for i, (cell, cfg, n_ans) in enumerate(configs, 1):
            run_dir = root / cell.slug(n_ans)
            say(f"sweep: cell {i}/{len(configs)}: {cell.label(n_ans)} → {run_dir}")
            outcome = run_census(
                cfg.model_copy(update={"out": run_dir}), backend=be, progress=progress, echo=say
            )
            done.append((cell, outcome.analysis.result, run_dir))
    finally:
        if own:
            asyncio.run(be.aclose())
    entries = [
        (cell.label(n_ans), r, f"{d.name}/report.html")
        for (cell, r, d), (_, _, n_ans) in zip(done, configs, strict=True)
    ]
    page = write_sweep_page(entries, root / "sweep.html", f"Census sweep: {base.task} on {done[0][1].model}")
    summary = [
        {"cell": d.name, "setting": label, "n_seen": r.n_seen, "n_total": r.n_total,
         "n_unseen_raw": r.n_unseen_raw, "interval_total": r.interval_total,
         "interval_method": r.interval_method, "skr": r.skr, "k": r.k}
        for (label, r, _), (_, _, d) in zip(entries, done, strict=True)
    ]  # fmt: skip
    with atomic_write(root / "sweep.json") as fh:
        fh.write(json.dumps({"task": base.task, "cells": summary}, indent=2, ensure_ascii=False) + "\n")
    return SweepOutcome(done, [label for label, _, _ in entries], page, root / "sweep.json")
