"""``knowsum census sensitivity RUN_DIR`` and ``knowsum census sweep TASK`` (KnowSum §5.2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import ValidationError

from knowsum.census import CensusConfig, add_sensitivity, run_sweep, sweep_cells
from knowsum.census._config import config_error
from knowsum.census._sensitivity import K_GRID, T_GRID
from knowsum.cli._census_score import k_value
from knowsum.errors import ConfigError

__all__ = ["sensitivity", "sweep"]

V = TypeVar("V")


def _list(option: str, raw: str | None, cast: Callable[[str], V], default: list[V]) -> list[V]:
    """A comma-separated option value (``0.7,1``)."""
    if raw is None:
        return default
    try:
        values = [cast(x.strip()) for x in raw.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"{option}: expected comma-separated values, got {raw!r}") from None
    if not values:
        raise ConfigError(f"{option}: no value in {raw!r}")
    return values


def _variant(x: str) -> Any:
    if x not in ("full", "simple"):
        raise ConfigError(f"--prompt-variant: {x!r} is neither full nor simple")
    return x


@click.command("sensitivity")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--t-grid", default=None, help=f"Comma-separated t values [{','.join(f'{t:g}' for t in T_GRID)}]."
)
@click.option("--k-grid", default=None, help="Comma-separated k values [2,…,12].")
@click.option(
    "--n-bootstrap", type=int, default=None, help="Resamples of the t band [the run's --n-bootstrap]."
)
def sensitivity(run_dir: Path, t_grid: str | None, k_grid: str | None, n_bootstrap: int | None) -> None:
    """N_tot and SKR over t, N_tot and held-out NMSE over k, from one run (KnowSum Figs. 8-9 left).

    No new sampling: the run's items.jsonl is re-estimated. Prints both tables, adds
    plots/sensitivity_t.png, plots/sensitivity_k.png and a section to report.html, and stores the
    study in result.json (sensitivity).
    """
    ts = _list("--t-grid", t_grid, float, list(T_GRID))
    ks = _list("--k-grid", k_grid, int, list(K_GRID))
    if any(t <= 0 for t in ts) or any(not 1 <= k <= 50 for k in ks) or (n_bootstrap or 0) < 0:
        raise ConfigError("--t-grid values must be > 0, --k-grid values in [1, 50], --n-bootstrap >= 0")
    from knowsum.report._census_studies import sensitivity_tables

    result, report = add_sensitivity(run_dir, ts, ks, n_bootstrap)
    assert result.sensitivity is not None
    click.echo(sensitivity_tables(result.sensitivity))
    click.echo(f"report: {report}")


@click.command("sweep")
@click.argument("task")
@click.option("--model", "-m", default=None, envvar="KNOWSUM_MODEL", help="Model spec [the embedded model].")
@click.option("--base-url", default=None, help="API root for openai:MODEL.")
@click.option("--queries", type=int, default=None, help="N_query per cell [30].")
@click.option("--temperature", "temps", default=None, help="Temperatures, e.g. 0.7,1 (paper) [1].")
@click.option("--top-p", "top_ps", default=None, help="Nucleus masses, e.g. 1,0.9 (paper) [1].")
@click.option("--answers", "answers", default=None, help="N_ans values, e.g. 10,20 (paper) [task default].")
@click.option("--prompt-variant", "variants", default=None, help="full,simple (App. B.2) [full].")
@click.option("--t", "t", type=float, default=None, help="Extrapolation factor t [100].")
@click.option("--k", "k", default=None, help="Truncation k: 'auto' or an integer.")
@click.option("--seed", type=int, default=None, help="Run seed [0].")
@click.option("--criterion", type=click.Choice(["strict", "relaxed"]), default=None, help="[relaxed].")
@click.option("--n-bootstrap", type=int, default=None, help="Bootstrap resamples [1000].")
@click.option("--interval", type=click.Choice(["lognormal", "percentile"]), default=None, help="[lognormal].")
@click.option("--count", type=click.Choice(["mention", "incidence"]), default=None, help="[mention].")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="Sweep directory."
)
@click.option(
    "--store", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Response store."
)
def sweep(
    task: str, temps: str | None, top_ps: str | None, answers: str | None, variants: str | None, **opts: Any
) -> None:
    """Run TASK once per setting and compare N_seen and N_tot (KnowSum Figs. 8-9 right).

    Each cell is an ordinary, resumable run directory OUT/<cell>; the sweep writes OUT/sweep.html
    and OUT/sweep.json. The paper's grids: --temperature 0.7,1 --top-p 1,0.9 (sampling) and
    --answers 10,20 --prompt-variant full,simple (prompt; 30,50 answers for diseases).

    \b
    Example:
      knowsum census sweep theorems --answers 10,20 --prompt-variant full,simple --queries 40
    """
    opts["k"] = k_value(opts["k"])
    out = opts.pop("out")
    try:
        base = CensusConfig(task=task, **{k: v for k, v in opts.items() if v is not None})
    except ValidationError as exc:
        raise config_error(exc, "census sweep") from None
    cells = sweep_cells(
        _list("--temperature", temps, float, [base.temperature]),
        _list("--top-p", top_ps, float, [base.top_p]),
        _list("--answers", answers, int, [base.answers]),
        _list("--prompt-variant", variants, _variant, [base.prompt_variant]),
    )
    outcome = run_sweep(base, cells, out, echo=lambda m: click.echo(m, err=True))
    from knowsum.report._census_studies import SWEEP_HEADERS, sweep_rows
    from knowsum.report._tables import text_table

    entries = [(label, r, str(d)) for label, (_, r, d) in zip(outcome.labels, outcome.cells, strict=True)]
    click.echo(text_table(SWEEP_HEADERS, sweep_rows(entries)))
    click.echo(f"page: {outcome.page}")
