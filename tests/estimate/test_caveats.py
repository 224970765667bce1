"""``knowsum estimate`` on degenerate samples and far extrapolations: every figure that says less than it
seems carries a named caveat, in the text and in ``--json``, and no interval is presented as evidence
when it cannot be one.

Hand values: 30 distinct items seen once: ``f1 = S_obs = 30``, ``f2 = 0`` — all singletons, and
iNEXT's asymptotic ``¹D`` (525.7) above ``⁰D`` (Chao1 = 30 + 29/30 · 30·29/2 = 450.5): out of order.
Fisher-like counts (n = 155): ``--at-coverage 0.9999`` needs m = 764.8 > 2n = 310; ``--at-size 1e9``
is 6.45e6 × n. The supported range of a smoothed estimator at n = 155 ends at ``ln 155 / ln(1/0.9) = 47.9``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main
from knowsum.stats import Prevalence, estimate_unseen
from knowsum.stats.caveats import range_caveat, supported_t

FISH = "a\t46\nb\t22\nc\t17\nd\t15\ne\t15\nf\t9\ng\t8\nh\t6\ni\t6\nj\t4\nk\t2\nl\t2\nm\t1\nn\t1\no\t1\n"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_run(capsys, *args, "--json")[0])
    return data


def _kinds(record: dict[str, Any]) -> list[str]:
    return [c["kind"] for c in record["caveats"]]


def test_one_observation_is_named_and_claims_no_coverage_it_cannot_reach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = tmp_path / "one.txt"
    one.write_text("x\n")
    out, _ = _run(capsys, "estimate", str(one), "--at-coverage", "0.5")
    assert "caveats: tiny sample; all singletons; beyond supported range; interval n/a" in out
    line = next(x for x in out.splitlines() if x.startswith("  at coverage 0.5"))
    # Ĉ = 1 for one observation: the line no longer claims Ĉ = 0.5 at m = 1; it is marked instead
    assert "Ĉ = 0.5000" not in line and "Ĉ = 1.0000" in line and line.endswith("[beyond supported range]")
    record = _json(capsys, "estimate", str(one), "--at-coverage", "0.5")
    assert {"tiny-sample", "all-singletons", "interval-na", "beyond-range"} <= set(_kinds(record))
    assert record["at_coverage"]["caveats"][0]["kind"] == "beyond-range"
    assert record["interval"] is None and record["interval_reason"] == "too few observations"


def test_all_singletons_carry_their_caveats_and_no_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    thirty = tmp_path / "thirty.txt"
    thirty.write_text("".join(f"item{i}\n" for i in range(30)))
    record = _json(capsys, "estimate", str(thirty), "--hill")
    assert record["notes"] != [] and "all-singletons" in _kinds(record) and "hill-order" in _kinds(record)
    assert (
        record["interval_skr"] is None
        and record["interval_reason"] == "all singletons, so nothing bounds the unseen items"
    )
    assert record["hill"]["q0"]["asymptotic"] == pytest.approx(30 + 29 / 30 * 30 * 29 / 2, rel=1e-12)
    assert record["hill"]["q1"]["asymptotic"] > record["hill"]["q0"]["asymptotic"]
    out, _ = _run(capsys, "estimate", str(thirty), "--hill")
    assert "all singletons" in out and "Hill numbers out of order" in out
    assert "[0.05" not in out  # the SKR interval [0.05, 0.24] of the issue is no longer shown


def test_no_singletons_shows_no_interval_as_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = tmp_path / "counts.tsv"
    counts.write_text("".join(f"i{j}\t3\n" for j in range(10)) + "z\t2\n")  # f1 = 0, raw Û(t) > 0 at k = 3
    found = estimate_unseen(Prevalence.from_counts([3] * 10 + [2]), "et", t=100, k=3)
    assert found.raw > 0 and found.estimate == 0  # the weights' artefact is kept, the headline is 0
    record = _json(capsys, "estimate", str(counts), "--k", "3")
    assert record["n_unseen"] == 0 < record["n_unseen_raw"] and "no-singletons" in _kinds(record)
    assert record["interval"] is None and record["interval_total"] is None
    assert record["interval_reason"] == "no singletons, so no evidence of unseen items"
    out, _ = _run(capsys, "estimate", str(counts), "--k", "3")
    unseen = next(x for x in out.splitlines() if "unseen        Û(t)" in x)
    assert "n/a: no singletons, so no evidence of unseen items" in unseen and "[" not in unseen


def test_two_observations_with_a_richness_estimator_are_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two = tmp_path / "two.txt"
    two.write_text("x\ny\n")
    out, _ = _run(capsys, "estimate", str(two), "--estimator", "chao1-bc")
    assert "caveats: tiny sample; all singletons" in out
    assert "tiny sample: only n = 2 observations of 2 items (fewer than 20): chao1-bc's estimate" in out
    assert _kinds(_json(capsys, "estimate", str(two), "--estimator", "chao1-bc")) == [
        "tiny-sample",
        "all-singletons",
    ]


def test_extrapolation_beyond_the_supported_range_is_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fish = tmp_path / "fish.tsv"
    fish.write_text(FISH)
    assert supported_t("et", 155) == pytest.approx(math.log(155) / math.log(1 / 0.9), rel=1e-12)
    assert supported_t("good-toulmin", 10**6) == 1.0 and supported_t("chao1", 10) is None
    assert range_caveat("et", 47.0, 155) is None and range_caveat("et", 48.0, 155) is not None

    record = _json(capsys, "estimate", str(fish), "--k", "1", "--t", "10000")
    assert "beyond-range" in _kinds(record)
    out, _ = _run(capsys, "estimate", str(fish), "--k", "1", "--t", "10000")
    assert "caveats: beyond supported range" in out and "t ∝ log n" in out

    record = _json(capsys, "estimate", str(fish), "--at-coverage", "0.9999", "--at-size", "1e9", "--t", "10")
    assert [c["kind"] for c in record["at_coverage"]["caveats"]] == ["beyond-2n"]
    assert [c["kind"] for c in record["at_size"]["caveats"]] == ["beyond-2n"]
    out, _ = _run(capsys, "estimate", str(fish), "--at-coverage", "0.9999", "--at-size", "1e9", "--t", "10")
    marked = [x for x in out.splitlines() if x.startswith(("  at coverage", "  at size"))]
    assert len(marked) == 2 and all(x.endswith("[beyond 2n]") for x in marked)
    assert "needs m = 764.8, 4.93 × the sample n = 155" in out

    record = _json(capsys, "estimate", str(fish), "--t", "10", "--k", "1")  # within every range: none
    assert record["caveats"] == []


def test_shared_with_itself_is_refused_and_above_own_is_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    counts = [1] * 6 + [2] * 2 + [5] * 3
    a.write_text("".join(f"i{j}\t{c}\n" for j, c in enumerate(counts)))
    b.write_text("".join(f"i{j}\t1\n" for j in range(len(counts))))
    code = main(["estimate", str(a), "--shared-with", str(a)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "") and "is the sample itself" in err and len(err.strip().splitlines()) == 1
    record = _json(capsys, "estimate", str(a), "--shared-with", str(b), "--estimator", "chao1-bc")
    shared = record["shared"]
    # Chao1-shared 72.3 exceeds b's own Chao1-bc of 61.0 (11 singletons: 11 + 10/11 · 11·10/2)
    assert shared["own"][1] == pytest.approx(11 + 10 / 11 * 11 * 10 / 2, rel=1e-12)
    assert shared["chao1_shared"] > shared["own"][1]
    assert {c["figure"] for c in shared["caveats"]} >= {"chao1_shared"}
    assert all(c["kind"] == "shared-above-own" for c in shared["caveats"])
    out, _ = _run(capsys, "estimate", str(a), "--shared-with", str(b), "--estimator", "chao1-bc")
    assert "[shared above own richness]" in out


def test_a_text_table_never_says_nan_nor_shows_a_point_as_an_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One observation: ²D's asymptote is undefined (f2 = 0 with f1 = n = 1) and every Hill bootstrap
    replicate is 1, so the table says ``n/a`` where it printed ``nan`` and ``[1.000, 1.000]``."""
    one = tmp_path / "one.txt"
    one.write_text("a\n", encoding="utf-8")
    out, _ = _run(capsys, "estimate", str(one), "--hill", "--at-size", "10")
    assert "nan" not in out
    assert "[1.000, 1.000]" not in out and "n/a: every resample alike" in out
    q2 = next(line for line in out.splitlines() if line.strip().startswith("q = 2"))
    assert q2.split()[3:5] == ["1.000", "n/a"]  # observed ²D = 1; the asymptote is not a number


def test_a_degenerate_bootstrap_of_a_large_sample_does_not_blame_its_size() -> None:
    """Every resample alike on n = 914 observations is not 'too few observations'."""
    from knowsum.stats import bootstrap
    from knowsum.stats.bootstrap import ALIKE_REASON, DEGENERATE_REASON

    large = Prevalence.from_counts({"a": 914})  # one item seen 914 times: every resample is the sample
    small = Prevalence.from_counts({"a": 1})
    with pytest.warns(UserWarning, match="degenerate bootstrap"):
        big = bootstrap(large, "et", t=1.0, k=1, n_resamples=50, seed=0)
    assert big.reason == ALIKE_REASON and "too few" not in big.reason
    with pytest.warns(UserWarning, match="degenerate bootstrap"):
        tiny = bootstrap(small, "et", t=1.0, k=1, n_resamples=50, seed=0)
    assert tiny.reason == DEGENERATE_REASON
