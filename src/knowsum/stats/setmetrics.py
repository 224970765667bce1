"""Set-based precision, recall and F1 (predicted set vs. reference set).

``P = |pred ∩ ref| / |pred|``, ``R = |pred ∩ ref| / |ref|``, ``F1 = 2PR / (P + R)``. When a
denominator is zero the value is ``zero_division`` (default 0.0) — except that an empty prediction
of an empty reference is perfect (P = R = F1 = 1). :func:`macro_prf` averages over several cases
(macro P/R/F1 as in SciHorizon-GENE App. D).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from knowsum.stats._errors import StatsError

__all__ = ["PRF", "macro_prf", "set_prf"]


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall, F1 and the confusion counts they come from."""

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int


def _ratio(num: int, den: int, zero_division: float) -> float:
    return num / den if den else zero_division


def set_prf(predicted: Iterable[Hashable], reference: Iterable[Hashable], zero_division: float = 0.0) -> PRF:
    """Precision, recall and F1 of a predicted set against a reference set (duplicates ignored)."""
    pred, ref = set(predicted), set(reference)
    tp = len(pred & ref)
    fp, fn = len(pred) - tp, len(ref) - tp
    if not pred and not ref:
        return PRF(1.0, 1.0, 1.0, 0, 0, 0)
    precision = _ratio(tp, tp + fp, zero_division)
    recall = _ratio(tp, tp + fn, zero_division)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return PRF(precision, recall, f1, tp, fp, fn)


def macro_prf(results: Iterable[PRF]) -> PRF:
    """Macro average: the mean of P, R and F1 over cases (confusion counts are summed)."""
    items = list(results)
    if not items:
        raise StatsError("macro_prf needs at least one result")
    m = len(items)
    return PRF(
        precision=sum(r.precision for r in items) / m,
        recall=sum(r.recall for r in items) / m,
        f1=sum(r.f1 for r in items) / m,
        tp=sum(r.tp for r in items),
        fp=sum(r.fp for r in items),
        fn=sum(r.fn for r in items),
    )
