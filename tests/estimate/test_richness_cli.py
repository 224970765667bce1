"""`knowsum estimate` with the richness toolkit: every value against the spider/ciliates reference
table (tests/fixtures/estimate_reference/README.md, iNEXT 3.0.2 / SpadeR 0.1.1 / sprex), and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.estimate import RichnessConfig, richness

REF = Path(__file__).resolve().parents[1] / "fixtures" / "estimate_reference"
GIRDLED = str(REF / "spider_Girdled.counts.tsv")
LOGGED = str(REF / "spider_Logged.counts.tsv")
CILIATES = str(REF / "ciliates_EtoshaPan.items.tsv")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["estimate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    record: dict[str, object] = json.loads(out)
    return record


@pytest.mark.parametrize(
    ("name", "value", "se"),
    [  # README "spider" table, Girdled column (SpadeR / iNEXT / vegan)
        ("chao1-classic", 43.893, 14.306),
        ("chao1-bc", 39.121, None),
        ("chao1-bc-vegan", 39.2, 10.207),
        ("ichao1", 43.893, None),
        ("ace", 48.415, None),
        ("jack1", 37.929, None),
        ("jack2", 45.857, None),
    ],
)
def test_abundance_estimators_match_the_reference(
    capsys: pytest.CaptureFixture[str], name: str, value: float, se: float | None
) -> None:
    record = run_json(capsys, GIRDLED, "--estimator", name)
    assert record["estimator"] == name and record["n_total"] == pytest.approx(value, abs=0.06)
    assert record["coverage"] == pytest.approx(0.928855, abs=5e-7)
    if se is not None:
        assert record["se"] == pytest.approx(se, abs=5e-4)
    assert "interval" in record and "formula" in record


def test_chao1_interval_and_formula_in_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, GIRDLED, "--estimator", "chao1-classic")
    assert record["interval"] == pytest.approx([30.511, 96.971], abs=5e-4)
    code, out, _ = run(capsys, GIRDLED, "--estimator", "chao1-classic")
    assert code == 0 and "43.893" in out and "Chao1 = S + (n−1)/n · f1²/(2 f2)" in out
    assert "coverage  Ĉ   0.928855" in out


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("chao2", 339.255),
        ("chao2-bc", 335.389),
        ("ichao2", 366.890),
        ("ice", 365.814),
        ("ice-1", 443.221),
        ("jack1", 317.368),
        ("jack2", 375.924),
    ],
)
def test_incidence_estimators_on_query_units(
    capsys: pytest.CaptureFixture[str], name: str, value: float
) -> None:
    record = run_json(capsys, CILIATES, "--count", "incidence", "--estimator", name)
    assert record["n_total"] == pytest.approx(value, abs=5e-4)
    assert record["datatype"] == "incidence" and record["size"] == 19 and record["s_obs"] == 216
    assert record["coverage"] == pytest.approx(0.8017, abs=5e-5)


def test_incidence_defaults_to_chao2_with_its_se(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, CILIATES, "--count", "incidence")
    assert record["estimator"] == "chao2" and record["se"] == pytest.approx(32.194, abs=5e-4)
    assert record["interval"] == pytest.approx([290.496, 419.928], abs=5e-4)


def test_incidence_freq_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = richness(CILIATES, RichnessConfig(count="incidence"))
    assert report.datatype == "incidence"
    # rebuild iNEXT's incidence_freq layout from the raw file: T, then one Y_i per line
    pairs = [line.split("\t") for line in Path(CILIATES).read_text().splitlines() if line.strip()]
    freq: dict[str, set[str]] = {}
    for unit, species in pairs:
        freq.setdefault(species, set()).add(unit)
    path = tmp_path / "ciliates.freq"
    path.write_text("19\n" + "".join(f"{len(u)}\n" for u in freq.values()))
    record = run_json(capsys, str(path), "--format", "incidence-freq")
    assert record["n_total"] == pytest.approx(339.255, abs=5e-4) and record["format"] == "incidence-freq"
    more = run_json(capsys, str(path), "--format", "incidence-freq", "--units", "25")
    assert more["size"] == 25


def test_hill_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, GIRDLED, "--hill", "--n-bootstrap", "100")
    hill = record["hill"]
    assert isinstance(hill, dict)
    assert [hill[f"q{q}"]["asymptotic"] for q in (0, 1, 2)] == pytest.approx(
        [43.893, 13.826, 8.175], abs=5e-4
    )
    assert [hill[f"q{q}"]["observed"] for q in (0, 1, 2)] == pytest.approx([26, 12.060, 7.840], abs=5e-4)
    lo, hi = hill["q1"]["interval"]
    assert lo < 13.826 < hi
    assert record["estimator"] == "et" and "n_unseen" in record  # KnowSum keys kept beside the toolkit
    logged = run_json(capsys, LOGGED, "--hill", "--n-bootstrap", "0", "--estimator", "chao1-classic")["hill"]
    assert isinstance(logged, dict) and logged["q2"]["asymptotic"] == pytest.approx(6.920, abs=5e-4)


def test_at_coverage_and_at_size(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(
        capsys, GIRDLED, "--estimator", "chao1-classic", "--at-coverage", "0.95", "--at-size", "10"
    )
    at_c, at_m = record["at_coverage"], record["at_size"]
    assert isinstance(at_c, dict) and isinstance(at_m, dict)
    assert at_c["coverage"] == 0.95 and at_c["size"] == pytest.approx(256.53, abs=5e-3)
    assert at_c["q0"] == pytest.approx(31.318, abs=5e-4)
    assert [at_m["q0"], at_m["q1"], at_m["q2"]] == pytest.approx([6.478617, 5.608968, 4.759772], abs=5e-7)
    assert at_m["coverage"] == pytest.approx(0.5969308, abs=5e-8)


def test_targets_match_sprex(capsys: pytest.CaptureFixture[str]) -> None:
    for g, extra in (("0.9", 354.12), ("0.95", 528.79), ("0.99", 934.37)):
        record = run_json(capsys, GIRDLED, "--estimator", "chao1-classic", "--target-fraction", g)
        target = record["target_richness"]
        assert isinstance(target, dict) and target["additional"] == pytest.approx(extra, abs=5e-3)
    record = run_json(capsys, GIRDLED, "--estimator", "chao1-classic", "--target-coverage", "0.99")
    target = record["target_coverage"]
    assert isinstance(target, dict) and target["additional"] > 0


def test_shared_with(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(
        capsys, GIRDLED, "--estimator", "chao1-classic", "--shared-with", LOGGED, "--n-bootstrap", "50"
    )
    shared = record["shared"]
    assert isinstance(shared, dict)
    assert shared["observed"] <= shared["chao1_shared"] <= min(61.403, 43.893)
    assert {"chao1_shared_bc", "ace_shared"} <= set(shared)


def test_curve_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "curve.png"
    code, out, err = run(
        capsys, GIRDLED, "--curve", "--plot", str(png), "--n-bootstrap", "20", "--estimator", "ace"
    )
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG" and f"curve plot: {png}" in err
    assert "extrapolation beyond 2N = 336 marked" in out
    record = run_json(capsys, GIRDLED, "--curve", "--n-bootstrap", "20", "--estimator", "ace")
    curve = record["curve"]
    assert isinstance(curve, dict)
    size_based = curve["size_based"]
    at_n = size_based["size"].index(168.0)
    assert size_based["diversity"][0][at_n] == pytest.approx(26)  # through (n, S_obs)
    assert any(size_based["beyond_double"]) and size_based["lower"] is not None


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (
            "3\n2\n5\n",
            ["--format", "incidence-freq"],
            "f.tsv:3: T = 3 sampling units is smaller than the largest",
        ),
        (
            "3\n2\n-1\n",
            ["--format", "incidence-freq"],
            "f.tsv:3: incidence count must be a whole number >= 0, got -1",
        ),
        (
            "3\n2\n1.5\n",
            ["--format", "incidence-freq"],
            "f.tsv:3: incidence count must be a whole number >= 0",
        ),
        (
            "3\n2\nx\n",
            ["--format", "incidence-freq"],
            "f.tsv:3: incidence count must be a whole number >= 0, got 'x'",
        ),
        ("", ["--format", "incidence-freq"], "f.tsv: empty input"),
        ("a\t3\nb\t1\n", ["--count", "incidence"], "--count incidence needs QUERY<TAB>ITEM lines"),
        (
            "q1\ta\nq2\tb\n",
            ["--count", "incidence", "--units", "1"],
            "--units 1 is smaller than the 2 queries",
        ),
        (
            "a\t30\nb\t1\nc\t2\n",
            ["--target-coverage", "0.1"],
            "--target-coverage 0.1: the coverage target 0.1 is",
        ),
        ("a\t3\nb\t1\n", ["--at-coverage", "0"], "--at-coverage must be a number strictly between 0 and 1"),
        ("a\t3\nb\t1\n", ["--target-fraction", "abc"], "--target-fraction must be a number strictly between"),
        ("a\t3\nb\t1\n", ["--estimator", "chao2"], "estimator chao2 needs incidence data"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, args: list[str], message: str
) -> None:
    path = tmp_path / "f.tsv"
    path.write_text(text)
    code, out, err = run(capsys, str(path), *args)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and message in err, err


def test_plot_without_curve_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, GIRDLED, "--plot", str(tmp_path / "x.png"))
    assert code == 2 and "add --curve" in err
