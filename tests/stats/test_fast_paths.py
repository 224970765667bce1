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
