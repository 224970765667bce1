"""`knowsum estimate` on the cases of a review: Good–Toulmin's own-t check past the float range, a
mistyped first line, a header over a bad row, the formula actually computed by Chao1/Chao2/ACE, the
incidence tiny-sample rule, n/a reasons that name the real cause, and a repeated single-valued option."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.estimate._observations import read_observations
from knowsum.stats import Incidence, Prevalence, StatsWarning, estimate_richness
from knowsum.stats.caveats import CaveatKind, sample_caveats
from knowsum.stats.community import check_at_own_t
from knowsum.stats.unseen import plan_estimator

ROOT = Path(__file__).resolve().parents[2]
FISHER = ROOT / "examples" / "fisher_butterflies.tsv"
# 24 singletons and a long tail up to 123: Good–Toulmin's t^s squares past the float range at t ≥ 30
OVERFLOW_COUNTS = [1] * 24 + [2, 2, 2, 2, 3, 4, 4, 6, 10, 19, 31, 58, 123]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["estimate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _overflow_file(tmp_path: Path) -> str:
    return write(tmp_path, "ovf.tsv", "".join(f"sp{i}\t{c}\n" for i, c in enumerate(OVERFLOW_COUNTS)))


# 1. Good–Toulmin at large t: the simulated check is n/a with its reason, never an OverflowError


@pytest.mark.parametrize("t", ["30", "50", "100", "150"])
def test_good_toulmin_past_the_float_range_marks_the_own_t_check_na(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, t: str
) -> None:
    path = _overflow_file(tmp_path)
    code, out, err = run(capsys, path, "--estimator", "good-toulmin", "--t", t, "--n-bootstrap", "0")
    assert code == 0, err
    assert "Traceback" not in err and "RuntimeWarning" not in err
    line = next(x for x in out.splitlines() if "simulated at own t" in x)
    assert "n/a:" in line and "overflow" in line
    code, out, _ = run(capsys, path, "--estimator", "good-toulmin", "--t", t, "--n-bootstrap", "0", "--json")
    record = json.loads(out)
    assert code == 0 and record["own_t_check"] is None and "overflow" in record["own_t_reason"]


def test_good_toulmin_overflow_with_a_bootstrap_prints_no_runtime_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _overflow_file(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy's overflow warnings must not leak
        code, out, err = run(capsys, path, "--estimator", "good-toulmin", "--t", "30", "--n-bootstrap", "50")
    assert code == 0, err
    assert "n/a: the variance is not finite" in out


def test_check_at_own_t_returns_a_reason_where_the_estimate_overflows() -> None:
    prev = Prevalence.from_counts({f"sp{i}": c for i, c in enumerate(OVERFLOW_COUNTS)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        plan = plan_estimator(prev, "good-toulmin", 30.0)
    check, _, why = check_at_own_t(prev, plan, 0)
    assert check is None and why is not None and "overflows a float" in why


# 2. a mistyped or empty count on the first line is a malformed line 1, not a header


@pytest.mark.parametrize(
    ("text", "fmt", "shown"),
    [
        ("sp1\t3O\nsp2\t7\nsp3\t2\nsp4\t1\nsp5\t1\n", None, "'3O'"),
        ("sp1\t3O\nsp2\t7\nsp3\t2\nsp4\t1\nsp5\t1\n", "counts", "'3O'"),
        ("sp1\t\nsp2\t7\nsp3\t2\n", "counts", "''"),
        ("1\t4x\n2\t3\n3\t1\n", "prevalence", "'4x'"),
    ],
)
def test_a_bad_count_on_the_first_line_is_reported_on_line_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, fmt: str | None, shown: str
) -> None:
    path = write(tmp_path, "typo.tsv", text)
    args = [path, "--t", "1", "--n-bootstrap", "0", *(["--format", fmt] if fmt else [])]
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{path}:1:" in err and shown in err


def test_a_named_header_is_still_a_header(tmp_path: Path) -> None:
    for header, fmt in [
        ("item\tcount", "counts"),
        ("species\tabundance", "counts"),
        ("s\tn_s", "prevalence"),
    ]:
        path = write(tmp_path, "h.tsv", f"{header}\n1\t3\n2\t1\n3\t1\n")
        prev = read_observations(path).prevalence  # counts 3, 1, 1; or N_S = 3, 1, 1
        assert (prev.n_observations, prev.n_seen) == ((5, 3) if fmt == "counts" else (8, 5)), header
    path = write(tmp_path, "h.tsv", "word\tfreq\na\t3\nb\t1\nc\t1\n")  # an unknown header name
    assert read_observations(path).prevalence.n_observations == 5


# 3. a header naming the count column decides the format: a bad row is reported on its own line


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("item\tcount\nsp1\t3\nsp2\tabc\n", ":3: count must be a whole number >= 0, got 'abc'"),
        ("species\tabundance\nsp1\t3\nsp2\tmany\n", ":3: count must be a whole number >= 0, got 'many'"),
        ("s\tn_s\n1\t4\n2\tabc\n", ":3: N_S must be a whole number >= 0, got 'abc'"),
    ],
)
def test_a_count_header_over_a_bad_row_decides_the_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    code, out, err = run(capsys, write(tmp_path, "bad.tsv", text), "--n-bootstrap", "0", "--t", "1")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert message in err


def test_a_query_item_header_still_reads_as_items(tmp_path: Path) -> None:
    path = write(tmp_path, "qi.tsv", "query\titem\nq1\ta\nq1\tb\nq2\ta\n")
    found = read_observations(path)
    assert found.format == "items" and found.prevalence.n_observations == 3


# 4./5. the printed formula is the one computed


def _richness_json(capsys: pytest.CaptureFixture[str], path: str, *args: str) -> dict[str, object]:
    code, out, err = run(capsys, path, *args, "--n-bootstrap", "0", "--json")
    assert code == 0, err
    record: dict[str, object] = json.loads(out)
    return record


def test_chao1_classic_without_doubletons_prints_the_bias_corrected_switch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    counts = [1, 1, 1, 1, 3, 5, 10, 25]
    path = write(tmp_path, "c2.tsv", "".join(f"s{i}\t{c}\n" for i, c in enumerate(counts)))
    record = _richness_json(capsys, path, "--estimator", "chao1-classic")
    n, f1 = sum(counts), 4
    assert record["n_total"] == pytest.approx(8 + (n - 1) / n * f1 * (f1 - 1) / 2)
    formula = str(record["formula"])
    assert "f1(f1−1)/2" in formula and "f2 = 0" in formula and "f1²/(2 f2)," not in formula
    code, out, _ = run(capsys, path, "--estimator", "chao1-classic", "--n-bootstrap", "0")
    assert code == 0 and "f1(f1−1)/2: f2 = 0" in out


def test_chao2_without_duplicates_prints_the_bias_corrected_switch() -> None:
    from knowsum.estimate._richness_titles import richness_title

    est = estimate_richness(Incidence.from_frequencies([1, 1, 1, 3], 5), "chao2")
    assert est.estimate == pytest.approx(4 + 4 / 5 * 3 * 2 / 2)
    assert "Q1(Q1−1)/2" in richness_title("chao2", est.parameters)
    assert richness_title("chao2", {"Q1": 3, "Q2": 1}).startswith("Chao2 = S + (T−1)/T · Q1²/(2 Q2)")


@pytest.mark.parametrize("name", ["ace", "ace-1"])
def test_ace_on_singleton_rare_species_says_it_fell_back_to_chao1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    path = write(tmp_path, "acesing.tsv", "sp1\t1\nsp2\t1\nsp3\t20\n")
    record = _richness_json(capsys, path, "--estimator", name)
    chao = _richness_json(capsys, path, "--estimator", "chao1-classic")
    assert record["n_total"] == pytest.approx(chao["n_total"])
    formula = str(record["formula"])
    assert "falls back to Chao1" in formula and "C_rare" in formula and "singleton" in formula
    assert str(chao["formula"]) in formula  # the Chao1 form computed (here f2 = 0's switch)
    code, out, _ = run(capsys, path, "--estimator", name, "--n-bootstrap", "0")
    assert code == 0 and "falls back to Chao1" in out


# 6. the incidence tiny-sample rule counts incidences and names sampling units


def test_incidence_tiny_sample_counts_incidences_not_units() -> None:
    many = estimate_richness(Incidence.from_frequencies([1] * 10 + [3] * 20 + [5] * 2, 19), "chao2")
    assert CaveatKind.TINY_SAMPLE not in {c.kind for c in many.caveats}  # T = 19 units, U = 80
    few = estimate_richness(Incidence.from_frequencies([1, 1, 1], 1), "chao2")
    tiny = next(c for c in few.caveats if c.kind == CaveatKind.TINY_SAMPLE)
    assert "U = 3 incidences in T = 1 sampling unit" in tiny.message and "observation" not in tiny.message


def test_abundance_tiny_sample_message_is_unchanged() -> None:
    (tiny,) = [c for c in sample_caveats(9, 3, 1) if c.kind == CaveatKind.TINY_SAMPLE]
    assert tiny.message.startswith("tiny sample: only n = 9 observations of 3 items (fewer than 20)")


# 7. n/a reasons name the real cause


def test_good_toulmin_prediction_na_names_non_finite_ends_not_a_zero_variance(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [str(FISHER), "--estimator", "good-toulmin", "--t", "5", "--n-bootstrap", "200"]
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    record = json.loads(out)
    assert "variance 0" not in record["prediction_reason"]
    assert "not finite" in record["prediction_reason"]


def test_an_analytic_point_interval_is_not_called_every_resample_alike(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "inc_t1.tsv", "1\n1\n1\n1\n")
    code, out, err = run(capsys, path, "--format", "incidence-freq", "--hill", "--n-bootstrap", "20")
    assert code == 0, err
    chao2 = next(x for x in out.splitlines() if x.lstrip().startswith("chao2"))
    assert "every resample alike" not in chao2 and "n/a: a point, its variance 0" in chao2


# 8. a single-valued option given twice is refused


@pytest.mark.parametrize("option", ["--target-fraction", "--target-coverage"])
def test_a_repeated_target_option_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str
) -> None:
    path = write(tmp_path, "c.tsv", "a\t1\nb\t1\nc\t2\nd\t5\ne\t9\n")
    code, out, err = run(capsys, path, option, "0.9", option, "0.95", "--n-bootstrap", "0")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{option} given 2 times (0.9, 0.95)" in err


# 9. the help lists every format


def test_help_lists_the_incidence_freq_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    formats = out.split("FILE formats", 1)[1].split("Example", 1)[0]
    assert "incidence-freq" in formats


def test_options_a_richness_estimator_does_not_use_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--t``, ``--k`` and ``--interval`` beside a richness estimator were dropped without a word: a
    note now names them (and no note when they are not given)."""
    counts = tmp_path / "c.tsv"
    counts.write_text("".join(f"sp{i}\t{c}\n" for i, c in enumerate([1, 1, 1, 2, 2, 3, 5, 8])))
    args = ["estimate", str(counts), "--estimator", "chao1-classic", "--n-bootstrap", "0"]
    assert main([*args, "--t", "5", "--interval", "percentile"]) == 0
    err = capsys.readouterr().err
    assert "--t, --interval not used by chao1-classic" in err
    assert main(args) == 0
    assert "not used by" not in capsys.readouterr().err


def test_a_summary_never_shows_a_point_as_its_interval() -> None:
    """Where the interval cannot be a level interval (its reason says why), ``Summary.interval`` is
    ``None``, as ``to_dict()["interval"]`` already was (it used to return ``(0.0, 0.0)``)."""
    from knowsum.stats import summarize

    s = summarize(Prevalence.from_items(list("abacdde"), queries=[1, 1, 2, 2, 3, 3, 4]), t=100, k="auto")
    assert s.interval_reason is not None
    assert s.interval is None and s.to_dict()["interval"] is None


def test_query_item_pairs_whose_first_item_is_a_column_word_stay_items(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A first line ``q1<TAB>count`` above QUERY<TAB>ITEM pairs is an observation, not a header that
    names a count table (the lines below hold words, not counts): the file reads as items."""
    path = write(tmp_path, "i.tsv", "q1\tcount\nq1\tapple\nq2\tapple\nq2\tpear\nq3\tplum\nq3\tcount\n")
    code, out, _ = run(capsys, path, "--n-bootstrap", "0", "--json")
    assert code == 0 and json.loads(out)["n_observations"] == 6


@pytest.mark.parametrize("missing", ["NA", "nan", "inf", "-"])
def test_a_first_line_with_a_missing_count_is_refused_not_read_as_a_header(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, missing: str
) -> None:
    path = write(tmp_path, "c.tsv", f"apple\t{missing}\nbanana\t3\ncherry\t1\ndate\t1\negg\t2\nfig\t1\n")
    code, out, err = run(capsys, path, "--n-bootstrap", "0")
    assert (code, out) == (2, "") and "c.tsv:1:" in err and "apple" in err
