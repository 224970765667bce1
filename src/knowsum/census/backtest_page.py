"""The back-test page and table (``knowsum census backtest``): KnowSum Fig. 7 extended to large ``t``.

One panel per estimator family: the mean prediction of each predictor with its 2.5–97.5 % band over
the splits, against what the held-back queries showed, on log axes over ``t``. Reads
:class:`~knowsum.census.backtest_record.Backtest` records only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from knowsum.census.backtest_record import Backtest, BacktestRow, TrustHorizon
from knowsum.report import PALETTE, save, text_table
from knowsum.report import html as h
from knowsum.stats.prediction import wilson_bounds

__all__ = [
    "BACKTEST_HEADERS",
    "backtest_figure",
    "backtest_rows",
    "backtest_table",
    "horizon_cell",
    "horizon_text",
    "horizon_value",
    "share_text",
    "size_curve_lines",
    "write_backtest_report",
]

BACKTEST_HEADERS = (
    "t",
    "estimator",
    "kept",
    "predicted",
    "observed",
    "rel. bias",
    "rel. RMSE (floor)",
    "RMSE/N_tot",
    "CI cover",
    "PI cover",
    "CI / PI score",
)
"""Columns: relative bias and RMSE to the mean new items U with their Monte Carlo s.e. and the noise
floor ``1/sqrt(mean U)``; RMSE relative to the mean N_tot of a split; coverage of the confidence
(CI) and prediction (PI) interval, ± s.e., with the share of n/a intervals; mean interval scores."""


def _num(x: float | None) -> str:
    """``1,234.5``; ``3.6e+19`` beyond a million (Good–Toulmin at large t); n/a when it overflowed."""
    if x is None:
        return "n/a: diverged"
    return f"{x:.3g}" if abs(x) >= 1e6 else f"{x:,.1f}"


def _pct(x: float | None) -> str:
    """``-9%``; ``0%`` for anything that rounds to zero (never ``-0%``); ``3.6e+19%`` beyond 10,000 %."""
    if x is None:
        return "n/a: diverged"
    text = f"{100 * x:.3g}%" if abs(x) >= 100 else f"{x:.0%}"
    return "0%" if text == "-0%" else text


def _se(x: float | None) -> str:
    return "" if x is None else f" ± {_pct(x)}"


def _cover(share: float | None, se: float | None, na: float | None, splits: int | None = None) -> str:
    """``90% ± 2% (9% n/a)``: the share of intervals that covered, its s.e., and the share of splits
    without an interval (left out when none); a share below 0.5 % reads ``<1%``, never ``0%``. At
    ``0%`` or ``100%`` the binomial s.e. is 0 whatever the number of splits, so the two-sided 95 %
    Wilson (1927) bound stands in its place: ``0% (≤ 43.4%)`` from 5 splits (:data:`COVER_NOTE`). One
    split is no share: ``covered (1 split)``, ``missed (1 split)`` or ``n/a (1 split)``."""
    if share is None:
        return "n/a"
    if splits == 1:
        return f"{'n/a' if na else 'covered' if share else 'missed'} (1 split)"
    spread = _se(se)
    if splits and share in (0.0, 1.0):  # the binomial s.e. is 0 here: the Wilson bound says how little
        low, high = wilson_bounds(round(share * splits), splits, 0.95)
        spread = f" (≤ {100 * high:.3g}%)" if share == 0 else f" (≥ {100 * low:.3g}%)"
    return f"{share_text(share)}{spread}" + (f" ({share_text(na)} n/a)" if na else "")


def _score(x: float | None) -> str:
    return "n/a" if x is None else _num(x)


NO_ESTIMATE = frozenset({"preseq", "pitman-yor"})
"""Predictors whose NaN means "no estimate on this split" (no stable rational function, no fit), not
a diverging series."""


def share_text(share: float) -> str:
    """A share as a whole percentage that never rounds a non-zero share to ``0%`` (``<1%``), nor a
    share below the whole to ``100%`` (``>99%``)."""
    text = f"{share:.0%}"
    if share > 0 and text == "0%":
        return "<1%"
    return ">99%" if share < 1 and text == "100%" else text


def _missing(r: BacktestRow) -> str | None:
    """Why a row has no errors: the predictor diverged (Good–Toulmin's series), or it gives no
    estimate on some splits (preseq without a stable rational function, Pitman–Yor without a fit)."""
    if r.predicted is not None:
        return None
    if r.estimator in NO_ESTIMATE:
        return f"n/a: no estimate on {share_text(r.diverged)} of splits"
    return "n/a: diverged"


def backtest_rows(bt: Backtest) -> list[list[str]]:
    """The table's rows: one per ``t`` and predictor, every number formatted (n/a where it diverged
    or where the predictor gave no estimate on some splits: its errors would be those of a chosen subset)."""
    out = []
    for r in sorted(bt.rows, key=lambda r: (r.t, bt.estimators.index(r.estimator))):
        missing = _missing(r)
        if missing is not None and r.estimator in NO_ESTIMATE:
            cover = (
                _cover(r.coverage, r.coverage_se, r.no_interval, r.repeats),
                _cover(r.pi_coverage, r.pi_coverage_se, r.pi_no_interval, r.repeats),
            )
            out.append(
                [
                    f"{r.t:g} ({r.t_effective:.3g})",
                    r.estimator,
                    str(r.kept_queries),
                    missing,
                    f"{r.observed:,.1f}",
                    "n/a",
                    "n/a",
                    "n/a",
                    *cover,
                    f"{_score(r.ci_score)} / {_score(r.pi_score)}",
                ]
            )
            continue
        scale = r.observed if r.observed > 0 else None
        bias_se = None if r.bias_se is None or scale is None else r.bias_se / scale
        floor = f" ({1 / r.observed**0.5:.0%})" if r.observed > 0 else ""
        out.append(
            [
                f"{r.t:g} ({r.t_effective:.3g})",
                r.estimator,
                str(r.kept_queries),
                _num(r.predicted),
                f"{r.observed:,.1f}",
                _pct(r.relative_bias) + (_se(bias_se) if r.relative_bias is not None else ""),
                _pct(r.relative_rmse)
                + (_se(r.relative_rmse_se) if r.relative_rmse is not None else "")
                + floor,
                "n/a" if r.relative_rmse_total is None else _pct(r.relative_rmse_total),
                _cover(r.coverage, r.coverage_se, r.no_interval, r.repeats),
                _cover(r.pi_coverage, r.pi_coverage_se, r.pi_no_interval, r.repeats),
                f"{_score(r.ci_score)} / {_score(r.pi_score)}",
            ]
        )
    return out


COVER_NOTE = (
    "cover: share of splits whose interval held the new items, ± its binomial s.e.; at 0% or 100% that "
    "s.e. is 0, so the bracket gives the two-sided 95 % Wilson bound instead"
)
"""What the coverage cells' ``±`` and brackets are (printed under the table and on the page)."""


def _methods(bt: Backtest) -> list[str]:
    """One line per predictor: which intervals its rows use; first, what the coverage cells show."""
    seen: dict[str, str] = {"": COVER_NOTE}
    for r in bt.rows:
        if r.pi_method is not None and r.estimator not in seen:
            seen[r.estimator] = (
                f"{r.estimator}: confidence interval {r.ci_method}; prediction interval {r.pi_method}"
            )
    return list(seen.values())


def size_curve_lines(bt: Backtest) -> list[str]:
    """The size curve: relative RMSE against kept queries at fixed t, and its extrapolation."""
    if not bt.size_curve:
        return []
    name = bt.size_curve[0].estimator or (bt.horizon.estimator if bt.horizon is not None else None)
    whose = "" if name is None else f" of the census's own estimator, {name}"
    lines = [f"error against kept size{whose} (relative RMSE ± MC s.e.; fitted ∝ kept^-β on log-log):"]
    for p in bt.size_curve:
        err = "n/a" if p.relative_rmse is None else f"{p.relative_rmse:.0%}{_se(p.relative_rmse_se)}"
        lines.append(f"  t = {p.t:g}, kept {p.kept_queries}: {err} (mean new items {p.observed:,.1f})")
    for t, v in bt.size_extrapolation.items():
        lines.append(
            f"  t = {t}: extrapolated to kept = {bt.n_queries} queries: {v:.0%} "
            "(an extrapolation of the fit, not a measurement)"
        )
    return lines


def horizon_cell(horizon: TrustHorizon | None) -> str:
    """The trust-horizon sentence every surface prints (``None``: a record written before it)."""
    if horizon is None:
        return "not in this record (written before back-testing was added)"
    return horizon.message


def horizon_value(horizon: TrustHorizon | None) -> str:
    """The tile's value: ``t = 9``, or ``–`` when nothing passed or it was not computed."""
    return "–" if horizon is None or horizon.t is None else f"t = {horizon.t:g}"


def horizon_text(horizon: TrustHorizon | None) -> str:
    """``trust horizon (sgt-k8): back-tested to t = 9 …`` (one line)."""
    name = "" if horizon is None else f" ({horizon.estimator})"
    return f"trust horizon{name}: {horizon_cell(horizon)}"


def backtest_table(bt: Backtest) -> str:
    """The terminal table, the skipped ``t`` and the horizon."""
    lines = [
        f"{bt.task} · {bt.model} · {bt.n_queries} queries · {bt.counting} counting · "
        f"{bt.repeats} split{'s' if bt.repeats != 1 else ''} per t, {bt.resamples} resamples per split "
        f"(the {bt.level:.0%} confidence interval, and the prediction interval's bootstrap variance)",
        text_table(BACKTEST_HEADERS, backtest_rows(bt)),
    ]
    lines += [f"t = {s.t:g}: not checked ({s.reason})" for s in bt.skipped]
    lines += _methods(bt)
    lines += size_curve_lines(bt)
    lines.append(horizon_text(bt.horizon))
    return "\n".join(lines)


def _family_rows(bt: Backtest) -> dict[str, dict[str, list[BacktestRow]]]:
    panels: dict[str, dict[str, list[BacktestRow]]] = {}
    for r in bt.rows:
        panels.setdefault(r.family, {}).setdefault(r.estimator, []).append(r)
    return panels


def backtest_figure(bt: Backtest) -> Any:
    """Predicted vs observed new items over ``t``, one panel per family (KnowSum Fig. 7, to large ``t``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = _family_rows(bt)
    cols = 2
    rows = max(1, math.ceil(len(panels) / cols))
    fig = Figure(figsize=(5.2 * cols, 3.6 * rows), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    for i, (family, series) in enumerate(sorted(panels.items())):
        ax = fig.add_subplot(rows, cols, i + 1)
        ax.grid(True, alpha=0.3)
        truth = sorted({(r.t_effective, r.observed) for rs in series.values() for r in rs})
        ax.plot([t for t, _ in truth], [o for _, o in truth], "k-", lw=2, label="observed")
        for j, (name, rs) in enumerate(sorted(series.items())):
            rs = sorted((r for r in rs if r.predicted is not None and r.band is not None), key=lambda r: r.t)
            if not rs:
                continue
            colour = PALETTE[j % len(PALETTE)]
            xs = [r.t_effective for r in rs]
            ax.plot(xs, [r.predicted or 0.0 for r in rs], "o-", color=colour, label=name, ms=3)
            ax.fill_between(
                xs,
                [r.band[0] for r in rs if r.band],
                [r.band[1] for r in rs if r.band],
                color=colour,
                alpha=0.15,
            )
        ax.set_xscale("log")
        top = max((r.band[1] for rs in series.values() for r in rs if r.band is not None), default=0.0)
        if top > 10 * max((o for _, o in truth), default=1.0):  # Good–Toulmin: keep the truth readable
            ax.set_yscale("symlog", linthresh=max((o for _, o in truth), default=1.0))
            ax.set_ylim(bottom=0)  # predictions are reported as max(Û, 0)
        ax.set_title(family, fontsize=10)
        ax.set_xlabel("t (held-back / kept queries)")
        ax.set_ylabel("new items")
        ax.legend(fontsize=7)
    return fig


def write_backtest_report(out_dir: Path, bt: Backtest, written: Sequence[Path] = ()) -> Path:
    """Write ``plots/backtest.png`` and ``report.html`` into ``out_dir``; returns the page."""
    png = save(backtest_figure(bt), out_dir / "plots" / "backtest.png")
    skipped = [f"t = {s.t:g}: not checked ({s.reason})" for s in bt.skipped]
    doc = h.page(
        f"Back-test · {bt.task} · {bt.model}",
        h.key_numbers([("queries", bt.n_queries), ("N_seen", bt.n_seen), ("splits per t", bt.repeats)]),
        h.paragraph(horizon_text(bt.horizon)),
        h.section(
            "Predicted vs observed new items",
            h.figure_png(
                png,
                "back-test",
                "Mean prediction (band: 2.5–97.5 % of the splits) vs what the held-back queries showed",
                name="backtest",
            ),
            h.table(BACKTEST_HEADERS, backtest_rows(bt), numeric=[False] * len(BACKTEST_HEADERS)),
            *(h.paragraph(s) for s in skipped),
            *(h.paragraph(s) for s in _methods(bt)),
            *(h.paragraph(s) for s in size_curve_lines(bt)),
        ),
        h.section(
            "Method",
            h.paragraph(
                f"Each t keeps a random 1/(t+1) of the {bt.n_queries} queries ({bt.repeats} seeded "
                f"shuffles, seed {bt.seed}) and predicts the items the other queries show that the kept "
                "ones do not. The confidence interval (CI) is the census's log-normal "
                f"{bt.level:.0%} interval from {bt.resamples} bootstrap resamples of the kept queries "
                "(iNEXT's own interval on the iNEXT rows); the prediction interval (PI) adds the "
                "variance of the new items themselves, as the census headline does (for the linear "
                "estimators max(Σ h² f, the bootstrap variance) + D̂·Û, D̂ the kept queries' "
                "dispersion). Each estimator's two methods are named above. "
                "Relative RMSE and bias are over the mean observed "
                "value, ± their Monte Carlo standard error; the noise floor in parentheses, 1/sqrt(mean U), "
                "is the error an estimator that knew E U would still make. Coverage is the share of splits "
                "whose interval holds the observed value (an n/a interval does not); the interval score "
                "(Gneiting & Raftery 2007) charges width and misses. t in parentheses: held-back / kept "
                "queries as split."
            ),
        ),
        subtitle=f"{bt.counting} counting · run {bt.run}",
    )
    return h.write_page(out_dir / "report.html", doc)
