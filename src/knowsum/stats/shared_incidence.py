"""Species shared by two assemblages from two incidence samples (SpadeR ``ChaoShared``, incidence).

The incidence analogue of :func:`~knowsum.stats.chao1_shared` (Chao et al. 2000, Statistica Sinica
10:227; Pan, Huang & Chao 2009; SpadeR's "Chao2-shared"): sample ``j`` has ``T_j`` sampling units and
``Y_ij`` = the units of sample ``j`` in which species ``i`` was found. With ``Q_{1+}`` (``Q_{+1}``) the
shared species found in exactly one unit of sample 1 (2), ``Q_{2+}``, ``Q_{+2}`` in two, ``Q_{11}``,
``Q_{22}`` in one (two) units of both, and ``K_j = (T_j − 1)/T_j``:

``Ŝ12 = D12 + K1 Q_{1+}²/(2 Q_{2+}) + K2 Q_{+1}²/(2 Q_{+2}) + K1 K2 Q_{11}²/(4 Q_{22})``

(the bias-corrected form ``K1 Q_{1+}(Q_{1+}−1)/(2(Q_{2+}+1)) + …`` when a doubleton count is 0, and in
:func:`chao2_shared_bc`). The s.e. is the delta method over the seven counts with
``cov(A, B) = |A ∩ B| − |A||B|/Ŝ12``, the interval log-normal around ``D12`` — exactly the abundance
forms of :mod:`knowsum.stats.shared` with ``T_j`` in place of ``n_j``.
"""

from __future__ import annotations

import math

import numpy as np

from knowsum.stats import _spade
from knowsum.stats._errors import StatsError
from knowsum.stats.shared import Counts, SharedEstimate, _pair, _pan, _summaries, _zero_doubletons

__all__ = ["chao2_shared", "chao2_shared_bc"]


def _units(t: int, y: np.ndarray, which: str) -> float:
    if isinstance(t, bool) or not isinstance(t, int | np.integer) or t < 1:
        raise StatsError(
            f"sample {which}: the number of sampling units T must be a positive integer, got {t!r}"
        )
    if y.size and int(y.max()) > t:
        raise StatsError(
            f"sample {which}: T = {t} is smaller than the largest incidence count {int(y.max())}"
        )
    return (t - 1) / t


def _chao2_shared(y1: Counts, y2: Counts, t1: int, t2: int, conf: float, bc: bool) -> SharedEstimate:
    a, b = _pair(y1, y2)
    k1, k2 = _units(t1, a, "1"), _units(t2, b, "2")
    summ, sets = _summaries(a, b)
    because = None if bc else _zero_doubletons(summ, "Q")
    fn = _pan(k1, k2, bc or because is not None)
    est = float(fn(**{k: complex(v) for k, v in summ.items()}).real)
    names = list(summ)
    step = 1e-30  # complex-step derivative of each count
    grad = np.array(
        [
            complex(fn(**{k: complex(v) + (step * 1j if k == n else 0) for k, v in summ.items()})).imag / step
            for n in names
        ]
    )
    overlap = np.array([[float((sets[i] & sets[j]).sum()) for j in names] for i in names])
    size = np.array([summ[k] for k in names])
    var = float(grad @ (overlap - np.outer(size, size) / est if est > 0 else overlap) @ grad)
    d12 = int(summ["d12"])
    se = math.sqrt(var) if var > 0 else None
    return SharedEstimate(
        "chao2-shared-bc" if bc else "chao2-shared",
        est,
        se,
        _spade.lognormal_interval(d12, est, var, conf) if se is not None else None,
        d12,
        (int((a > 0).sum()), int((b > 0).sum())),
        conf,
        "delta" if se is not None else "none",
        bias_corrected_because=because,
    )


def chao2_shared(y1: Counts, y2: Counts, t1: int, t2: int, *, conf: float = 0.95) -> SharedEstimate:
    """Chao2-shared (module docstring): ``y1``, ``y2`` aligned incidence counts, ``T1``, ``T2`` units."""
    return _chao2_shared(y1, y2, t1, t2, conf, bc=False)


def chao2_shared_bc(y1: Counts, y2: Counts, t1: int, t2: int, *, conf: float = 0.95) -> SharedEstimate:
    """Bias-corrected Chao2-shared (module docstring)."""
    return _chao2_shared(y1, y2, t1, t2, conf, bc=True)
