"""The one seed scheme of every back-test split: split ``j`` of ``t`` depends only on ``(seed, t, j)``,
so the trust horizon of ``census run``/``census score`` and ``census backtest --seed S`` print the same
numbers for the same cell, and a longer back-test's first splits are a shorter one's; and the design
every back-test states (:class:`SplitDesign`: splits, resamples, seed, level, held-out shuffles)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["SPLIT_BLOCK", "SplitDesign", "community_rng", "split_orders", "split_rng"]

SPLIT_BLOCK = 100
"""Splits whose shuffles are drawn together (:func:`split_orders`)."""


@dataclass(frozen=True, slots=True)
class SplitDesign:
    """How a back-test draws and scores its splits, as its record states them (``Backtest`` keeps
    these five fields under the same names).

    Attributes:
        repeats: Random splits per ``t``.
        resamples: Bootstrap resamples per split (``< 2``: no confidence interval).
        seed: Seed of the splits and resamples (:func:`split_rng`).
        level: Interval level.
        heldout_shuffles: Splits of the held-out ``k`` inside each split (``sgt-heldout``; 0: none).
    """

    repeats: int
    resamples: int
    seed: int
    level: float = 0.95
    heldout_shuffles: int = 0


def split_rng(seed: int, t: float, j: int) -> np.random.Generator:
    """The stream of split ``j`` of ``t`` for its held-out ``k`` and resamples (see the module docstring)."""
    return np.random.default_rng(np.random.SeedSequence([abs(int(seed)), round(1000 * t), j, 1]))


def community_rng(seed: int, t: float, j: int) -> np.random.Generator:
    """The stream of split ``j`` of ``t`` for iNEXT's parametric bootstrap from its estimated community
    (the iNEXT rows' own interval): a sibling of :func:`split_rng`, so adding it moves no other draw."""
    return np.random.default_rng(np.random.SeedSequence([abs(int(seed)), round(1000 * t), j, 2]))


def split_orders(seed: int, t: float, splits: range, n_queries: int) -> NDArray[np.int64]:
    """The shuffled query order of each split of ``splits`` (one row each): the splits of block
    ``b = j // SPLIT_BLOCK`` are the rows of one ``permuted`` call on the stream
    ``SeedSequence([seed, round(1000 t), b])``, so split ``j``'s order depends only on
    ``(seed, t, j)`` and costs one vectorised draw per block."""
    out = np.empty((len(splits), n_queries), dtype=np.int64)
    if not len(splits):
        return out
    base = np.arange(n_queries, dtype=np.int64)
    for b in range(splits[0] // SPLIT_BLOCK, (splits[-1] // SPLIT_BLOCK) + 1):
        rng = np.random.default_rng(np.random.SeedSequence([abs(int(seed)), round(1000 * t), b]))
        block = rng.permuted(np.broadcast_to(base, (SPLIT_BLOCK, n_queries)), axis=1)
        lo, hi = max(splits[0], b * SPLIT_BLOCK), min(splits[-1] + 1, (b + 1) * SPLIT_BLOCK)
        out[lo - splits[0] : hi - splits[0]] = block[lo - b * SPLIT_BLOCK : hi - b * SPLIT_BLOCK]
    return out
