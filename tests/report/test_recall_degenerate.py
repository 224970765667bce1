"""Recall pages of degenerate runs: an all-zero accuracy chart is drawn (stubs on a 0–1 axis, not a
blank), a run without repeated wrong IDs says so instead of drawing "R_B of the top-0", and an emoji
in a label never leaks matplotlib's glyph warning (with its source path) to stderr.

Run through the installed ``knowsum`` CLI in a subprocess (so stderr is exactly what a user sees) on
the 11-term ``mini_go.obo``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from knowsum.kb import install
from knowsum.recall._page_plots import recall_figures
from knowsum.recall.record import RecallRecord

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"
KNOWSUM = Path(sys.executable).parent / "knowsum"
IDS = ["GO:0001822", "GO:0060993", "GO:0003179", "GO:0061384", "GO:0051302", "GO:2000145"]


@pytest.fixture
def mini_go(tmp_home: Path) -> Path:
    install(["go"], from_files=[FIX / "mini_go.obo"])
    return tmp_home


def _score(tmp_path: Path, name: str, predictions: list[str]) -> tuple[Path, str]:
    rows = ["id,prediction,popularity"]
    rows += [
        f"{gid},{pred},{10 * (i + 1)}" for i, (gid, pred) in enumerate(zip(IDS, predictions, strict=True))
    ]
    path = tmp_path / name
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    cmd = [str(KNOWSUM), "recall", "score", "--kb", "go", "--predictions", str(path)]
    cmd += ["--n-buckets", "3", "--n-perm", "20", "--out", str(out)]
    done = subprocess.run(
        cmd, capture_output=True, text=True, env=os.environ.copy(), cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    return out, done.stderr


def _ink(png: Path, colour: str = "#2f5fb3") -> int:
    """Pixels of the bar colour (the first of the palette) in the figure."""
    from matplotlib.image import imread

    rgb = imread(png)[..., :3]
    target = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return int(np.sum(np.all(np.abs(rgb - target) < 0.02, axis=-1)))


def test_an_all_zero_run_draws_its_zeros_and_skips_r_b(mini_go: Path, tmp_path: Path) -> None:
    out, stderr = _score(tmp_path, "answers.csv", ["no idea"] * len(IDS))  # every answer: no ID
    result = RecallRecord.model_validate(json.loads((out / "result.json").read_text()))
    pop = result.scores.popularity
    assert pop is not None and all((b.accuracy or 0) == 0 for b in pop.buckets) and pop.top_k_used == 0
    accuracy = out / "plots" / "accuracy_per_bucket.png"
    assert _ink(accuracy) > 200  # three visible stubs, not a blank chart
    assert (out / "plots" / "rb_per_bucket.png").is_file()  # titled "no wrong ID was answered", no bars
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "top-0" not in page and "R_B (paper Fig. 3) is not defined: no wrong ID was answered" in page
    figures = recall_figures(result)
    ax = figures["accuracy"].axes[0]
    assert ax.get_ylim()[1] == 1.0 and ax.get_ylim()[0] <= 0.0  # the 0–1 accuracy axis
    assert figures["rb"].axes[0].get_title() == "R_B per bucket: no wrong ID was answered (cf. paper Fig. 3)"
    assert "Warning" not in stderr


def test_repeated_wrong_ids_still_draw_r_b(mini_go: Path, tmp_path: Path) -> None:
    # every answer is the first concept's ID: right once, a wrong ID (of bucket 1) five times
    out, _ = _score(tmp_path, "answers.csv", [IDS[0]] * len(IDS))
    result = json.loads((out / "result.json").read_text())
    assert result["scores"]["popularity"]["top_k_used"] == 1
    assert _ink(out / "plots" / "rb_per_bucket.png") > 200
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "R_B (paper Fig. 3) is not defined" not in page and "Most repeated wrong IDs" in page


def test_an_emoji_in_a_label_leaks_no_matplotlib_warning(mini_go: Path, tmp_path: Path) -> None:
    out, stderr = _score(tmp_path, "🧬 answers.csv", [IDS[0]] * len(IDS))  # the model name is the file
    assert (out / "plots" / "accuracy_per_bucket.png").is_file()
    assert "UserWarning" not in stderr and "missing from font" not in stderr and ".py:" not in stderr


def test_grouped_bars_draw_measured_zeros(tmp_path: Path) -> None:
    """Genebench's completeness figure (paper Fig. 6) of a run that scored 0 everywhere is not blank:
    each zero is a stub in its series' colour; NaN (not measured) still draws nothing."""
    from knowsum.report import _plots as plots

    fig = plots.grouped_bars(
        ["Synonyms (Q2-B)", "Related Proteins (Q5)"],
        {"precision": [0.0, 0.0], "recall": [0.0, float("nan")]},
        bounds=(0.0, 100.0),
    )
    png = tmp_path / "completeness.png"
    plots.save(fig, png)
    assert _ink(png, plots.PALETTE[0]) > 100  # two precision stubs
    assert 0 < _ink(png, plots.PALETTE[1]) < _ink(png, plots.PALETTE[0])  # one recall stub, one NaN
