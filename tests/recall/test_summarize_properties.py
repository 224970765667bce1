"""Invariants of ``summarize`` on random judged predictions (hypothesis)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.recall import Buckets, PredictionRecord, summarize

STATUS = st.sampled_from(["correct", "wrong", "invented", "no_id"])


@st.composite
def judged(draw: st.DrawFn) -> tuple[list[PredictionRecord], dict[str, float]]:
    n = draw(st.integers(1, 60))
    popularity = {f"GO:{i:07d}": float(draw(st.integers(0, 50))) for i in range(n)}
    records = []
    for i in range(n):
        gold = f"GO:{i:07d}"
        status = draw(STATUS)
        pred = {
            "correct": gold,
            "wrong": f"GO:{draw(st.integers(0, n - 1)):07d}",
            "invented": f"GO:9{draw(st.integers(0, 20)):06d}",
            "no_id": None,
        }[status]
        if status == "wrong" and pred == gold:
            status = "correct"
        records.append(
            PredictionRecord(
                id=gold,
                label="x",
                popularity=popularity[gold],
                text=str(pred),
                predicted=pred,
                status=status,
                levenshtein=None if status in ("correct", "no_id") else 3,
                jaccard=0.5 if status == "wrong" else None,
            )
        )
    return records, popularity


@settings(max_examples=60, deadline=None)
@given(judged(), st.integers(1, 8), st.integers(1, 30))
def test_summary_invariants(
    data: tuple[list[PredictionRecord], dict[str, float]], n_buckets: int, k: int
) -> None:
    records, popularity = data
    buckets = Buckets.build(popularity, n_buckets)
    records = [r.model_copy(update={"bucket": buckets.of[r.id]}) for r in records]
    s = summarize(records, buckets, top_k=k, n_perm=50)
    assert s.n == len(records) and s.n_correct + s.n_wrong == s.n
    assert math.isclose(s.accuracy, s.n_correct / s.n)
    assert s.n_invented <= s.n_wrong and s.n_no_id <= s.n_wrong
    assert s.n_invented_unique <= s.n_unique_predicted
    for pct in (s.invented_unique_pct, s.wrong_due_to_invented_pct):
        assert pct is None or 0.0 <= pct <= 100.0
    pop = s.popularity
    assert pop is not None
    assert sum(b.n for b in pop.buckets) == pop.n_with_popularity == s.n
    assert sum(b.n_universe for b in pop.buckets) == len(popularity)
    assert sum(b.n_top_k for b in pop.buckets) == pop.top_k_used <= k
    assert sum(b.n_correct for b in pop.buckets) == s.n_correct
    for b in pop.buckets:
        assert (b.accuracy is None) == (b.n == 0)
        if b.r_b is not None and pop.top_k_used:
            assert math.isclose(b.r_b, b.n_top_k / (b.n_universe / len(popularity) * pop.top_k_used))
    for rho in (pop.bucket_spearman, pop.levenshtein_spearman, pop.rb_spearman):
        assert rho is None or -1.0 - 1e-9 <= rho <= 1.0 + 1e-9
