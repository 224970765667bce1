"""Sweep a census over prompt and sampling settings (KnowSum §5.2: Figs. 8-9 right, 12-13 right).

The paper varies the prompt — its clarity (full Table 3 prompt vs the App. B.2 simplified one) and
the answers requested per query (``N_ans`` 10/20 for theorems, 30/50 for diseases) — and the
sampling — temperature (0.7, 1) and nucleus sampling (top-p 0.9 vs off) — and compares ``N_seen``
and ``N̂_tot`` across settings. :func:`run_sweep` runs one ordinary census per cell of the grid, in
``OUT/<cell>`` (each resumable like any run: responses are in the store), then writes one
comparison page ``OUT/sweep.html`` and ``OUT/sweep.json``.

``OUT`` is claimed for the sweep before anything is asked (:mod:`knowsum.census._sweep_out`): the
same sweep resumes there, another sweep (other task, model or grid) is refused naming what differs
unless ``overwrite`` (which removes the old sweep's cells and pages first), and a folder holding
anything a sweep does not write is refused either way.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from knowsum._util import CLAIM_NAME, atomic_write, config_error
from knowsum.census._config import CensusConfig, PromptVariant
from knowsum.census._run import census_identity, default_out, run_census
from knowsum.census._sweep_out import claim_sweep_folder, sweep_identity
from knowsum.census._tasks import resolve_task
from knowsum.census.record import CensusRecord
from knowsum.errors import ConfigError
from knowsum.models import Backend, ResponseStore
from knowsum.records import claim_run_dir
from knowsum.stats.caveats import caveat_dicts

__all__ = ["SweepCell", "SweepOutcome", "run_sweep", "sweep_cells", "sweep_configs"]


@dataclass(frozen=True, slots=True)
class SweepCell:
    """One setting of the grid (``answers`` ``None``: the base configuration's value)."""

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
    """The cells run, in grid order, and the comparison page.

    Attributes:
        cells: ``(cell, result, run directory)`` per cell.
        labels: Each cell's setting, as the page labels it.
        page: ``OUT/sweep.html``.
        summary: ``OUT/sweep.json``.
        rows: The cells of ``sweep.json`` (key numbers per cell).
    """

    cells: list[tuple[SweepCell, CensusRecord, Path]]
    labels: list[str]
    page: Path
    summary: Path
    rows: list[dict[str, Any]]


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


def sweep_configs(
    base: CensusConfig, cells: Sequence[SweepCell]
) -> list[tuple[SweepCell, CensusConfig, int]]:
    """Each cell's configuration and its ``N_ans``, every one validated (before any model is opened).

    Raises:
        ConfigError: no cell, or a cell with an invalid setting (the message names the cell).
    """
    if not cells:
        raise ConfigError(
            "census sweep: no cell to run; give at least one value for each of --temperature, "
            "--top-p, --answers and --prompt-variant"
        )
    configs = []
    for cell in cells:
        settings: dict[str, object] = {"temperature": cell.temperature, "top_p": cell.top_p}
        settings["prompt_variant"] = cell.prompt_variant
        settings["answers"] = cell.answers if cell.answers is not None else base.answers
        try:
            cfg = CensusConfig.model_validate({**base.model_dump(), **settings})
        except ValidationError as exc:
            raise config_error(exc, f"census sweep cell {cell.slug(cell.answers or 0)}") from None
        configs.append((cell, cfg, resolve_task(cfg).answers))
    return configs


def run_sweep(
    base: CensusConfig,
    cells: Sequence[SweepCell],
    backend: Backend,
    *,
    store: ResponseStore,
    out: Path | None = None,
    progress: bool | None = None,
    echo: Callable[[str], None] | None = None,
    overwrite: bool = False,
) -> SweepOutcome:
    """Run one census per cell (``base`` with the cell's settings) and write the comparison page.

    Args:
        base: Everything but the swept settings (task, queries, estimation…).
        cells: The settings (:func:`sweep_cells`).
        backend: The model that answers every cell (the caller opens and closes it).
        store: The response store (a rerun asks nothing already stored).
        out: Sweep directory (default ``census-runs/sweep-<task>-<model>``); cell ``c`` runs in
            ``out/<c.slug>``.
        progress: Progress bars (``None``: when stderr is a terminal).
        echo: Called with one line per notable step.
        overwrite: Replace another sweep in ``out`` (its cells and pages are removed first) and
            empty a cell folder that holds another run (else either is refused).

    Raises:
        ConfigError: no cell, or a cell with an invalid setting (every cell is checked before any
            sampling); the errors of :func:`knowsum.census.run_census`.
        OutputError: ``out`` is a run folder or lies inside one, holds files a sweep does not
            write, or holds another sweep (without ``overwrite``): see :mod:`._sweep_out`.
        InputError: a cell folder holds another run (without ``overwrite``).
    """
    configs = sweep_configs(base, cells)
    say = echo or (lambda _m: None)
    single = default_out(base, backend.model_id)
    root = out or single.with_name(f"sweep-{single.name}")
    slugs = [cell.slug(n_ans) for cell, _, n_ans in configs]
    identity = sweep_identity(base.task, backend.model_id, slugs)
    created = claim_sweep_folder(root, identity, overwrite=overwrite)
    try:
        for cell, cfg, n_ans in configs:  # every cell folder is checked before anything is asked
            cell_identity = census_identity(cfg, resolve_task(cfg), backend.model_id)
            claim_run_dir(root / cell.slug(n_ans), "census", cell_identity, overwrite=overwrite)
        return _run_cells(base, configs, backend, store, root, progress, say, overwrite)
    except BaseException:
        if created and _nothing_in(root):  # a folder this call made and left empty goes again
            shutil.rmtree(root, ignore_errors=True)
        raise


def _nothing_in(root: Path) -> bool:
    """Whether ``root`` holds nothing but its claim and empty folders."""
    return all(
        (e.name == CLAIM_NAME and e.is_file()) or (e.is_dir() and not any(e.iterdir()))
        for e in root.iterdir()
    )


def _run_cells(
    base: CensusConfig,
    configs: Sequence[tuple[SweepCell, CensusConfig, int]],
    backend: Backend,
    store: ResponseStore,
    root: Path,
    progress: bool | None,
    say: Callable[[str], None],
    overwrite: bool,
) -> SweepOutcome:
    """Run each cell into ``root/<cell>``, then write ``sweep.html`` and ``sweep.json``."""
    from knowsum.census.page import write_census_sweep

    done: list[tuple[SweepCell, CensusRecord, Path]] = []
    for i, (cell, cfg, n_ans) in enumerate(configs, 1):
        run_dir = root / cell.slug(n_ans)
        say(f"sweep: cell {i}/{len(configs)}: {cell.label(n_ans)} → {run_dir}")
        outcome = run_census(
            cfg, backend, store=store, out=run_dir, progress=progress, echo=say, overwrite=overwrite
        )
        done.append((cell, outcome.record, run_dir))
    entries = [
        (cell.label(n_ans), r, f"{d.name}/report.html")
        for (cell, r, d), (_, _, n_ans) in zip(done, configs, strict=True)
    ]
    page = write_census_sweep(
        root / "sweep.html", entries, f"Census sweep: {base.task} on {done[0][1].model}"
    )
    rows = [
        {
            "cell": d.name,
            "setting": label,
            "n_seen": r.n_seen,
            "n_total": r.n_total,
            "n_unseen_raw": r.n_unseen_raw,
            "interval_total": r.interval_total,
            "interval_method": r.interval_method,
            "skr": r.skr,
            "k": r.k,
            "caveats": caveat_dicts(r.caveats),
            "horizon": None if r.horizon is None else r.horizon.model_dump(mode="json"),
        }
        for (label, r, _), (_, _, d) in zip(entries, done, strict=True)
    ]
    with atomic_write(root / "sweep.json") as fh:
        fh.write(json.dumps({"task": base.task, "cells": rows}, indent=2, ensure_ascii=False) + "\n")
    return SweepOutcome(done, [label for label, _, _ in entries], page, root / "sweep.json", rows)
