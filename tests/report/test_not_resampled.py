"""``--n-bootstrap 0`` asks for no interval: the census table and ``knowsum estimate`` say so in the
interval's cell ("n/a: not asked (--n-bootstrap 0)"), as every interval that is not shown says why,
instead of a bare dash."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.report import NOT_RESAMPLED

ROOT = Path(__file__).resolve().parents[2]


def test_census_and_estimate_say_the_interval_was_not_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = ROOT / "tests" / "fixtures" / "census" / "study" / "diseases-0.5b.jsonl"
    assert main(["census", "score", str(items), "--n-bootstrap", "0", "--out", str(tmp_path / "r")]) == 0
    rows = [x for x in capsys.readouterr().out.splitlines() if "confidence interval" in x]
    assert len(rows) == 3 and all(r.rstrip().endswith(NOT_RESAMPLED) for r in rows)
    assert main(["estimate", str(ROOT / "examples" / "fisher_butterflies.tsv"), "--n-bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    for label in ("unseen        Û(t)", "total         N̂_tot", "SKR(t)"):
        assert next(x for x in out.splitlines() if x.strip().startswith(label.strip())).endswith(
            NOT_RESAMPLED
        )
