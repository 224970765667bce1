"""The fast paths of the back-test and the held-out selection equal their plain definitions.

``foresee._histograms``/``_rows`` (the panel of every back-test split) and
``heldout._first_of_shuffles`` (the kept queries of ``select_k``'s shuffles) were rewritten for
speed; each is checked here against the obvious computation on random inputs, ties and stored
zeros included."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from knowsum.stats import foresee as fs
from knowsum.stats.heldout import _first_of_shuffles


def _plain_histograms(dense: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((dense.shape[0], cap + 2), dtype=np.int64)
    for i, row in enumerate(dense):
        for v in row:
            out[i, min(int(v), cap + 1)] += 1
    return out


@pytest.mark.parametrize("seed", range(40))
def test_histograms_equal_a_plain_count_and_leave_the_input_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    dense = rng.poisson(rng.uniform(0.1, 4), (int(rng.integers(1, 12)), int(rng.integers(1, 30))))
    matrix = sp.csr_matrix(dense.astype(rng.choice([np.int32, np.int64])))
    if seed % 3 == 0 and matrix.nnz:
        matrix.data[::2] = 0  # stored zeros count as absent items
    dense = matrix.toarray()
    stored = matrix.data.copy()
    cap = int(rng.integers(1, 8))
    assert (fs._histograms(fs._rows(matrix), cap) == _plain_histograms(dense, cap)).all()
    assert matrix.nnz == stored.size and (matrix.data == stored).all()
    p, q = fs.panel(matrix, matrix, 1.5, 3), fs.panel(dense, dense, 1.5, 3)
    assert (p.hist == q.hist).all() and (p.incidence == q.incidence).all() and (p.n == q.n).all()


@pytest.mark.parametrize("seed", range(40))
def test_first_of_shuffles_is_the_stable_sorted_prefix(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, shuffles = int(rng.integers(2, 40)), int(rng.integers(1, 6))
    keys = rng.random((n, shuffles)) if seed % 2 else rng.integers(0, 4, (n, shuffles)).astype(float)
    sizes = sorted({int(m) for m in rng.integers(1, n, 3)})
    order = np.argsort(keys, axis=0, kind="stable")
    for m, mask in zip(sizes, _first_of_shuffles(keys, sizes), strict=True):
        expected = np.zeros((n, shuffles), dtype=np.int32)
        np.put_along_axis(expected, order[:m], 1, axis=0)
        assert (mask == expected).all()
        assert (mask.sum(axis=0) == m).all()


def test_a_curve_bootstrapped_beside_its_headline_is_the_curve_bootstrapped_alone() -> None:
    """``summarize(curve_ts=…)`` draws the resamples once for the headline and the curve; each
    result equals a separate ``bootstrap_plans`` call with the same seed, and the census's curve
    built from them equals the curve that draws its own."""
    from knowsum.census._estimate import curve, t_grid
    from knowsum.stats import Prevalence, summarize
    from knowsum.stats.bootstrap import bootstrap_plans
    from knowsum.stats.unseen import apply_plan, plan_estimator

    rng = np.random.default_rng(5)
    p = 1 / np.arange(1, 301) ** 1.1
    queries = [[f"i{x}" for x in rng.choice(300, 8, p=p / p.sum())] for _ in range(60)]
    prev = Prevalence.from_items(
        [i for q in queries for i in q], queries=[j for j, q in enumerate(queries) for _ in q]
    )
    grid = t_grid(20.0)
    alone = summarize(prev, "et", 20.0, n_bootstrap=200, seed=3, own_t=False)
    both = summarize(prev, "et", 20.0, n_bootstrap=200, seed=3, own_t=False, curve_ts=grid)
    assert (
        both.bootstrap == alone.bootstrap and both.estimate == alone.estimate and len(both.curve) == len(grid)
    )
    plans = [plan_estimator(prev, "et", t, both.estimate.k) for t in grid]
    separate = bootstrap_plans(prev, plans, 200, 0.95, 3, [apply_plan(q, prev) for q in plans])
    assert list(both.curve) == separate
    args = (prev, "et", 20.0, both.estimate.k, 200, 0.95, 3)
    assert curve(*args, boots=both.curve) == curve(*args)
    with pytest.raises(ValueError, match="one bootstrap result of et per t"):
        curve(*args, boots=both.curve[1:])
