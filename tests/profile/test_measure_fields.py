"""A measure says how it is printed and ranked (``count``, ``ranked_by``); no key suffix decides.

A profile written before those fields reads as it was shown then: its ``…/n_seen`` and ``…/n_total``
rows are counts and its ``…/n_total`` is ranked against ``…/n_seen`` (the migration map of old files).
"""

from __future__ import annotations

from knowsum.records.profile import Measure
from knowsum.report._profile_plots import fmt
from tests.instrument._yes import INSTRUMENT as YES


def _row(**fields: object) -> Measure:
    return Measure.model_validate(
        {"instrument": "yes", "label": "l", "value": 1.0, "method": "m", "run": "r"} | fields
    )


def test_a_plugin_measure_formats_and_ranks_as_it_says() -> None:
    m = YES.measure("answers", "answers", 12345.0, "counted", run="yes", count=True, ranked_by="asked")
    assert (m.key, m.count, m.ranked_by) == ("yes/answers", True, "yes/asked")
    assert fmt(m, 12345.0) == "12,345"
    plain = YES.measure("n_total", "share", 0.25, "a share", run="yes")  # the suffix alone decides nothing
    assert (plain.count, plain.ranked_by) == (False, None)
    assert fmt(plain, 0.25) == "0.250"


def test_an_older_profiles_rows_read_as_they_were_shown() -> None:
    total = _row(key="census/diseases/relaxed/n_total")
    assert total.count and total.ranked_by == "census/diseases/relaxed/n_seen"
    seen = _row(key="census/diseases/relaxed/n_seen")
    assert seen.count and seen.ranked_by is None
    skr = _row(key="census/diseases/relaxed/skr")
    assert not skr.count and skr.ranked_by is None
    assert fmt(total, 1234.0) == "1,234"
    again = Measure.model_validate_json(total.model_dump_json())  # a new file keeps what it says
    assert again == total
