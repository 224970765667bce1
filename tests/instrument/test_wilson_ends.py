"""``wilson(k, n)``: exact ends where the formula's are in theory (0 at k = 0, 1 at k = n), and the
interval always holds its point ``k / n`` (a card row's interval must hold its value)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from knowsum.instrument import wilson
from tests.instrument._yes import INSTRUMENT as YES


def test_the_ends_are_exact_at_none_and_all() -> None:
    assert wilson(0, 3)[0] == 0.0
    assert wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (None, None)


@given(st.integers(min_value=1, max_value=10**7).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_the_interval_holds_its_point_and_its_ends_are_exact(kn: tuple[int, int]) -> None:
    k, n = kn
    lo, hi = wilson(k, n)
    assert lo is not None and hi is not None
    p = k / n
    assert 0.0 <= lo <= p <= hi <= 1.0
    assert (lo == 0.0) == (k == 0) and (hi == 1.0) == (k == n)
    YES.measure("share", "share", p, "m", run="r", interval=(lo, hi), percent=True)  # a sound card row


@given(st.integers(min_value=1, max_value=10**4), st.floats(0.0, 1.0))
def test_a_share_of_a_mean_score_is_held_too(n: int, share: float) -> None:
    lo, hi = wilson(share * n, n)  # genebench's form: a mean score times its questions
    assert lo is not None and hi is not None
    assert 0.0 <= lo <= min(1.0, share * n / n) and max(0.0, share * n / n) <= hi <= 1.0
    YES.measure("share", "share", share, "m", run="r", interval=(lo, hi))
