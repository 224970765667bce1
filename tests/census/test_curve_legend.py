"""The extrapolation curve names its bands: the confidence band by its level and method, and the
prediction interval (drawn as a second band) by name, so the figure says which interval it shows."""

from __future__ import annotations

import json
from pathlib import Path

from knowsum.census import load_result
from knowsum.census.page import plots
from knowsum.cli import main


def test_the_curve_legend_names_the_confidence_band_and_the_prediction_interval(tmp_path: Path) -> None:
    queries = [[f"d{(7 * i + j) % 60}" for j in range(5)] + [f"u{i}"] for i in range(30)]
    items = tmp_path / "c.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": q}) + "\n" for i, q in enumerate(queries))
    )
    run = tmp_path / "run"
    assert main(["census", "score", str(items), "--out", str(run), "--n-bootstrap", "30"]) == 0
    result = load_result(run)
    assert any(c.unseen_pred_lower is not None for c in result.curve)
    fig, caption = plots(result)["curve"]
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "prediction interval" in legend
    assert f"{result.level:.0%} {result.interval_method} bootstrap band (confidence)" in legend
    assert "prediction interval (hatched)" in caption
