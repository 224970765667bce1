"""Species shared by two assemblages, from two abundance samples (SpadeR ``ChaoShared``).

Notation (species detected in both samples): ``D12`` their number; ``f_{1+}`` those seen once in
sample 1 (``f_{+1}``: once in sample 2), ``f_{2+}``, ``f_{+2}`` twice, ``f_{11}``, ``f_{22}`` once
(twice) in both; ``K_j = (n_j − 1)/n_j``.

- :func:`chao1_shared` — Pan, Huang & Chao (2009, Environ. Ecol. Stat. 16:315), SpadeR's
  "Chao1-shared": ``D12 + K1 f_{1+}²/(2 f_{2+}) + K2 f_{+1}²/(2 f_{+2}) + K1 K2 f_{11}²/(4 f_{22})``
  (the bias-corrected form when ``f_{2+}``, ``f_{+2}`` or ``f_{22}`` is 0, SpadeR's rule: the result
  says so in ``bias_corrected_because``, naming the zero counts; :func:`chao2_shared` does the same);
- :func:`chao1_shared_bc` — ``D12 + K1 f_{1+}(f_{1+}−1)/(2(f_{2+}+1)) + K2 f_{+1}(f_{+1}−1)/(2(f_{+2}+1))
  + K1 K2 f_{11}(f_{11}−1)/(4(f_{22}+1))``;
- :func:`ace_shared` — Chao, Hwang, Chen & Kuo (2000, Statistica Sinica 10:227), SpadeR's
  "Heterogeneous (ACE-shared)" with its guards for zero sums (see ``_ace_shared``).

Standard errors: for the Chao1 forms, SpadeR's delta method over ``(D12, f_{11}, f_{+1}, f_{1+},
f_{+2}, f_{2+}, f_{22})`` with ``cov(A, B) = |A ∩ B| − |A||B|/Ŝ12`` for these counts of overlapping
species sets; for ACE-shared (no analytic variance in the literature) SpadeR's bootstrap from its
extended two-assemblage model (``ExtenProbFunMa``). Intervals: log-normal around ``D12``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from knowsum.stats import _spade
from knowsum.stats._arrays import IntArray
from knowsum.stats._errors import StatsError
from knowsum.stats.hill import check_bootstrap
from knowsum.stats.samples import Abundance

__all__ = [
    "SharedEstimate",
    "ace_shared",
    "chao1_shared",
    "chao1_shared_bc",
    "observed_shared",
]

Counts = Sequence[int] | NDArray[np.integer] | Mapping[Hashable, int]


@dataclass(frozen=True, slots=True)
class SharedEstimate:
    """Estimated number of species shared by two assemblages.

    Attributes:
        estimator: ``"observed"``, ``"chao1-shared"``, ``"chao1-shared-bc"`` or ``"ace-shared"``.
        estimate: ``Ŝ12``.
        std_error: Its standard error (``None`` when unavailable).
        interval: Log-normal ``conf`` interval around ``D12`` (``None`` without s.e. or if ``Ŝ12 = D12``).
        observed_shared: ``D12``.
        s_obs: Observed richness of each sample.
        conf: Confidence level.
        variance: ``"delta"``, ``"bootstrap"`` or ``"none"``.
        bias_corrected_because: Set when the classic form was asked for but the bias-corrected form
            was computed (SpadeR's rule): the doubleton counts that are 0 (``"f2+ = 0"``,
            ``"f+2 = 0 and f22 = 0"``); ``None`` when the form asked for was computed.
    """

    estimator: str
    estimate: float
    std_error: float | None
    interval: tuple[float, float] | None
    observed_shared: int
    s_obs: tuple[int, int]
    conf: float
    variance: str
    bias_corrected_because: str | None = None


def _pair(x1: Counts, x2: Counts) -> tuple[IntArray, IntArray]:
    """Two aligned count vectors (sequences of equal length, or mappings species → count)."""
    if isinstance(x1, Mapping) and isinstance(x2, Mapping):
        keys = list(dict.fromkeys([*x1, *x2]))
        x1, x2 = [x1.get(k, 0) for k in keys], [x2.get(k, 0) for k in keys]
    elif isinstance(x1, Mapping) or isinstance(x2, Mapping):
        raise StatsError("give both samples as mappings species → count, or both as aligned sequences")
    a, b = _aligned(x1, "sample 1"), _aligned(x2, "sample 2")
    if a.size != b.size:
        raise StatsError(f"the two samples must be aligned by species: {a.size} counts vs {b.size}")
    return a, b


def _aligned(x: Any, what: str) -> IntArray:
    """Validated counts, zeros kept (they align species); at least one positive count."""
    arr = np.asarray(x)
    try:
        Abundance(arr)  # validation only: negative, fractional, empty or all-zero counts raise
    except StatsError as err:
        raise StatsError(f"{what}: {err}") from None
    return arr.astype(np.int64)


def _summaries(x1: IntArray, x2: IntArray) -> tuple[dict[str, float], dict[str, NDArray[np.bool_]]]:
    both = (x1 > 0) & (x2 > 0)
    sets = {
        "d12": both,
        "f11": both & (x1 == 1) & (x2 == 1),
        "fp1": both & (x2 == 1),
        "f1p": both & (x1 == 1),
        "fp2": both & (x2 == 2),
        "f2p": both & (x1 == 2),
        "f22": both & (x1 == 2) & (x2 == 2),
    }
    return {k: float(v.sum()) for k, v in sets.items()}, sets


def _zero_doubletons(summ: Mapping[str, float], symbol: str) -> str | None:
    """``"f2+ = 0"``, ``"f2+ = 0 and f22 = 0"``, ``"f2+ = 0, f+2 = 0 and f22 = 0"``: the doubleton
    counts of ``summ`` that are 0 (the classic form divides by each), in ``symbol``'s notation (``f``,
    or ``Q`` for incidence); ``None`` when none is."""
    zero = [
        f"{symbol}{label} = 0"
        for key, label in (("f2p", "2+"), ("fp2", "+2"), ("f22", "22"))
        if summ[key] == 0
    ]
    if not zero:
        return None
    return zero[0] if len(zero) == 1 else f"{', '.join(zero[:-1])} and {zero[-1]}"


def _pan(k1: float, k2: float, bc: bool) -> Any:
    def fn(
        d12: complex, f11: complex, fp1: complex, f1p: complex, fp2: complex, f2p: complex, f22: complex
    ) -> complex:
        if bc:
            return (
                d12
                + k1 * f1p * (f1p - 1) / 2 / (f2p + 1)
                + k2 * fp1 * (fp1 - 1) / 2 / (fp2 + 1)
                + k1 * k2 * f11 * (f11 - 1) / 4 / (f22 + 1)
            )
        return d12 + k1 * f1p**2 / 2 / f2p + k2 * fp1**2 / 2 / fp2 + k1 * k2 * f11**2 / 4 / f22

    return fn


def _chao1_shared(x1: Counts, x2: Counts, conf: float, bc: bool) -> SharedEstimate:
    a, b = _pair(x1, x2)
    n1, n2 = int(a.sum()), int(b.sum())
    summ, sets = _summaries(a, b)
    because = None if bc else _zero_doubletons(summ, "f")
    fn = _pan((n1 - 1) / n1, (n2 - 1) / n2, bc or because is not None)
    est = float(fn(**{k: complex(v) for k, v in summ.items()}).real)
    names = list(summ)
    unit = {name: np.eye(len(names))[i] for i, name in enumerate(names)}
    grad = _spade.gradient(fn, summ, unit)
    inter = np.array([[float((sets[i] & sets[j]).sum()) for j in names] for i in names])
    size = np.array([summ[k] for k in names])
    cov = inter - np.outer(size, size) / est if est > 0 else inter
    var = float(grad @ cov @ grad)
    d12 = int(summ["d12"])
    se = math.sqrt(var) if var > 0 else None
    interval = _spade.lognormal_interval(d12, est, var, conf) if se is not None else None
    name = "chao1-shared-bc" if bc else "chao1-shared"
    return SharedEstimate(
        name,
        est,
        se,
        interval,
        d12,
        (int((a > 0).sum()), int((b > 0).sum())),
        conf,
        "delta" if se is not None else "none",
        because,
    )


def chao1_shared(x1: Counts, x2: Counts, *, conf: float = 0.95) -> SharedEstimate:
    """Chao1-shared (Pan et al. 2009; module docstring), SpadeR's "Chao1-shared" with delta-method s.e.

    When ``f2+``, ``f+2`` or ``f22`` is 0 the bias-corrected form is computed (SpadeR's rule) and
    ``bias_corrected_because`` names the zero counts.
    """
    return _chao1_shared(x1, x2, conf, bc=False)


def chao1_shared_bc(x1: Counts, x2: Counts, *, conf: float = 0.95) -> SharedEstimate:
    """Bias-corrected Chao1-shared (module docstring), SpadeR's "Chao1-shared-bc"."""
    return _chao1_shared(x1, x2, conf, bc=True)


def observed_shared(x1: Counts, x2: Counts) -> SharedEstimate:
    """``D12``, the number of species detected in both samples."""
    a, b = _pair(x1, x2)
    d12 = int(((a > 0) & (b > 0)).sum())
    return SharedEstimate(
        "observed", float(d12), None, None, d12, (int((a > 0).sum()), int((b > 0).sum())), 0.95, "none"
    )


def _ace_shared(x1: NDArray[np.float64], x2: NDArray[np.float64], cut: int = 10) -> float:
    """SpadeR's ``HeteroEstFun`` (Chao et al. 2000), zero guards included."""
    n1, n2 = x1.sum(), x2.sum()
    both = (x1 > 0) & (x2 > 0)
    a, b = x1[both], x2[both]
    rare = (a <= cut) & (b <= cut)
    f11 = np.sum((a == 1) & (b == 1))
    f1p, fp1 = np.sum((a == 1) & (b <= cut)), np.sum((b == 1) & (a <= cut))
    big = both & ((x1 > cut) | (x2 > cut))
    n1r, n2r = n1 - x1[big].sum(), n2 - x2[big].sum()
    n1r, n2r = (2.0 if n1r == 1 else n1r), (2.0 if n2r == 1 else n2r)
    t11 = np.sum(a[rare] * b[rare]) or 1.0
    c12 = 1 - (np.sum(b[(a == 1) & (b <= cut)]) + np.sum(a[(b == 1) & (a <= cut)]) - f11) / t11
    c12 = 1.0 if c12 == 0 or c12 > 1 else c12
    ar, br = a[rare], b[rare]
    t10, t01 = ar.sum() or 1.0, br.sum() or 1.0
    t21, t12, t22 = (
        np.sum(ar * (ar - 1) * br),
        np.sum(ar * br * (br - 1)),
        np.sum(ar * br * (ar - 1) * (br - 1)),
    )
    d12r = rare.sum()
    s0 = d12r / c12
    with np.errstate(divide="ignore", invalid="ignore"):
        cv1 = s0 * n1r * t21 / (n1r - 1) / t10 / t11 - 1
        cv2 = s0 * n2r * t12 / (n2r - 1) / t01 / t11 - 1
        cv12 = (
            n1r * n2r * s0**2 * t22 / ((n1r - 1) * (n2r - 1) * t10 * t01 * t11)
            - s0 * t11 / t10 / t01
            - cv1
            - cv2
        )
    return float(both.sum() - d12r + d12r / c12 + (f1p * cv1 + fp1 * cv2 + f11 * cv12) / c12)


def _cf0(x: NDArray[np.float64]) -> tuple[float, int]:
    """Coverage ``Ĉ`` and ``⌈f̂0⌉`` (bias-corrected Chao1) of one sample's counts."""
    n, f1, f2 = int(x.sum()), int(np.sum(x == 1)), int(np.sum(x == 2))
    f0 = float(_spade.chao1_f0(f1, f2, (n - 1) / n))
    return 1 - f1 / n * _spade.chao_jost_factor(f1, f2, n), math.ceil(f0)


def _extended(
    a: NDArray[np.float64], b: NDArray[np.float64], rng: np.random.Generator
) -> tuple[NDArray[np.float64], ...]:
    """SpadeR's ``ExtenProbFunMa``: two aligned probability vectors adding undetected species."""
    both, only1, only2 = (a > 0) & (b > 0), (a > 0) & (b == 0), (a == 0) & (b > 0)
    order = np.concatenate(
        [np.nonzero(both)[0], rng.permutation(np.nonzero(only1)[0]), rng.permutation(np.nonzero(only2)[0])]
    )
    x1, x2 = a[order], b[order]
    n1, n2 = x1.sum(), x2.sum()
    k1, k2 = (n1 - 1) / n1, (n2 - 1) / n2
    summ, _ = _summaries(x1.astype(np.int64), x2.astype(np.int64))
    d12, ga1, ga2 = int(summ["d12"]), int(only1.sum()), int(only2.sum())

    def ceil_chao(f1: float, f2: float, k: float, div: float) -> int:
        return math.ceil(k * f1 * f1 / div / f2 if f2 > 0 else k * f1 * (f1 - 1) / div / (f2 + 1))

    f0p, fp0 = ceil_chao(summ["f1p"], summ["f2p"], k1, 2), ceil_chao(summ["fp1"], summ["fp2"], k2, 2)
    f00 = ceil_chao(summ["f11"], summ["f22"], k1 * k2, 4)
    (c1, f01), (c2, f02) = _cf0(x1), _cf0(x2)
    more1, more2 = max(f01, max(ga1, fp0) - ga1 + f0p + f00), max(f02, max(ga2, f0p) - ga2 + fp0 + f00)
    add1, add2 = max(f01 - max(ga1, fp0) + ga1 - f0p - f00, 0), max(f02 - max(ga2, f0p) + ga2 - fp0 - f00, 0)
    pi = []
    for x, n, c in ((x1, n1, c1), (x2, n2, c2)):
        lam = (1 - c) / np.sum(x / n * (1 - x / n) ** n)
        pi.append(x / n * (1 - lam * (1 - x / n) ** n))
    p01, p02 = (1 - c1) / more1 if more1 else 0.0, (1 - c2) / more2 if more2 else 0.0
    fill = np.full
    prob1 = np.concatenate(
        [
            pi[0][: d12 + ga1],
            fill(max(fp0 - ga1, 0), p01),
            fill(f0p, p01),
            np.zeros(max(ga2 - f0p, 0)),
            fill(f00, p01),
            fill(add1, p01),
            np.zeros(add2),
        ]
    )
    prob2 = np.concatenate(
        [
            pi[1][:d12],
            fill(fp0, p02),
            np.zeros(max(ga1 - fp0, 0)),
            pi[1][d12 + ga1 :],
            fill(max(f0p - ga2, 0), p02),
            fill(f00, p02),
            np.zeros(add1),
            fill(add2, p02),
        ]
    )
    return prob1, prob2


def ace_shared(
    x1: Counts,
    x2: Counts,
    *,
    n_bootstrap: int = 200,
    conf: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> SharedEstimate:
    """ACE-shared (Chao et al. 2000; module docstring), rare threshold 10, with SpadeR's bootstrap s.e.

    Args:
        x1: Counts of sample 1 (aligned with ``x2``, or a mapping species → count).
        x2: Counts of sample 2.
        n_bootstrap: Replicates for the s.e. (0: no s.e.).
        conf: Confidence level.
        seed: Seed or NumPy ``Generator``.
    """
    a, b = _pair(x1, x2)
    check_bootstrap(n_bootstrap, conf)
    est = _ace_shared(a.astype(np.float64), b.astype(np.float64))
    d12 = int(((a > 0) & (b > 0)).sum())
    s_obs = (int((a > 0).sum()), int((b > 0).sum()))
    if n_bootstrap < 2 or d12 == 0:
        return SharedEstimate("ace-shared", est, None, None, d12, s_obs, conf, "none")
    rng = np.random.default_rng(seed)
    p1, p2 = _extended(a.astype(np.float64), b.astype(np.float64), rng)
    r1 = rng.multinomial(int(a.sum()), p1 / p1.sum(), size=n_bootstrap).astype(np.float64)
    r2 = rng.multinomial(int(b.sum()), p2 / p2.sum(), size=n_bootstrap).astype(np.float64)
    boot = np.array([_ace_shared(u, v) for u, v in zip(r1, r2, strict=True)])
    se = float(np.nanstd(boot[np.isfinite(boot)], ddof=1))
    interval = _spade.lognormal_interval(d12, est, se * se, conf) if se > 0 else None
    return SharedEstimate("ace-shared", est, se if se > 0 else None, interval, d12, s_obs, conf, "bootstrap")
