"""An estimator resolved for one sample size (:class:`EstimatorPlan`), shared by :mod:`knowsum.stats.unseen`
and the nonlinear planners of :mod:`knowsum.stats.long_range`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

__all__ = ["Chao1Form", "EstimatorPlan", "Params"]

Chao1Form = Literal["bias-corrected", "classic"]
Params = Mapping[str, float | int | str]


@dataclass(frozen=True, slots=True)
class EstimatorPlan:
    """An estimator resolved for one sample size: what the bootstrap re-applies to resamples.

    Linear estimators carry ``weights(s_max)`` (``h_0..h_{s_max}``) and ``support`` (the largest
    ``s`` with ``h_s ≠ 0``, ``None`` if unbounded); Chao1 carries ``form``; the nonlinear ones
    (``preseq``, ``pitman-yor``) carry ``rows`` (whole histograms ``(B, s_max + 1)`` → ``Û`` of each row,
    NaN with a reason where there is none) and ``details`` (the fitted parameters of one histogram).
    """

    name: str
    t: float | None
    k: int | None
    parameters: Params
    weights: Callable[[int], NDArray[np.float64]] | None = None
    form: Chao1Form | None = None
    support: int | None = None
    rows: Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], tuple[str | None, ...]]] | None = None
    details: Callable[[NDArray[np.float64]], Params] | None = None
