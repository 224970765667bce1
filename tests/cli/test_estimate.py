"""`knowsum estimate`: formats, auto-detection, table and JSON output, every bad-input case."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from knowsum.cli import main

ROOT = Path(__file__).resolve().parents[2]
FISHER = ROOT / "examples" / "fisher_butterflies.tsv"
FIXTURES = ROOT / "tests" / "fixtures" / "estimate"
JSON_KEYS = {"n_observations", "n_seen", "n_unseen", "n_total", "skr", "t", "k", "estimator", "interval"}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["estimate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    record: dict[str, object] = json.loads(out)
    return record


def test_demo_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(FISHER), "--t", "1", "--k", "auto")
    assert code == 0 and err == ""
    assert "format     prevalence  (auto-detected: header 's / n_s'" in out
    assert "k          " in out and "held-out: 100 binomial thinnings × r_obs 1/2, 1/3, 1/4" in out
    for label in (
        "observations  n",
        "3,306",
        "seen          N_seen",
        "501",
        "Û(t)",
        "N̂_tot",
        "SKR(t)",
        "95% confidence interval",
        "95% prediction interval",
    ):
        assert label in out
    assert "bootstrap: 1,000 resamples (multinomial on the counts), seed 0" in out


def test_json_has_the_documented_keys_and_values(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, str(FISHER), "--t", "1", "--k", "8", "--estimator", "et")
    assert set(record) >= JSON_KEYS
    assert record["n_observations"] == 3306 and record["n_seen"] == 501
    assert record["t"] == 1.0 and record["k"] == 8 and record["estimator"] == "et"
    assert record["n_unseen"] == pytest.approx(76.484375)  # Σ_{s≤8} h_s n_s at t = 1 (exact: 2^-8 weights)
    assert record["n_total"] == pytest.approx(501 + 76.484375)
    interval = record["interval"]
    assert isinstance(interval, list) and len(interval) == 2 and interval[0] < 76.48 < interval[1]
    assert record["format"] == "prevalence" and record["format_detected"] is True


def test_bootstrap_zero_skips_the_interval(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json(capsys, str(FISHER), "--n-bootstrap", "0", "--k", "8")["interval"] is None
    code, out, _ = run(capsys, str(FISHER), "--n-bootstrap", "0", "--k", "8")
    assert code == 0 and "bootstrap: skipped (--n-bootstrap 0)" in out


def test_seed_makes_output_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    a = run_json(capsys, str(FISHER), "--seed", "3", "--n-bootstrap", "200")
    b = run_json(capsys, str(FISHER), "--seed", "3", "--n-bootstrap", "200")
    c = run_json(capsys, str(FISHER), "--seed", "4", "--n-bootstrap", "200")
    assert a == b and a["interval"] != c["interval"]


def test_items_with_queries_autodetected(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(
        capsys, str(FIXTURES / "theorems_by_query.tsv"), "--t", "2", "--k", "2", "--n-bootstrap", "50"
    )
    assert record["format"] == "items" and record["n_queries"] == 10
    assert (record["n_observations"], record["n_seen"]) == (20, 11)
    assert record["bootstrap_method"] == "queries"
    code, out, _ = run(capsys, str(FIXTURES / "theorems_by_query.tsv"), "--k", "2", "--n-bootstrap", "0")
    assert code == 0
    assert "items  (auto-detected: two fields whose second is not a count" in out and "10 queries" in out


def test_plain_items_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("the\ncat\nthe\n# a comment\n\nsat\n")
    record = run_json(capsys, str(path), "--n-bootstrap", "0", "--k", "1", "--t", "1")
    assert record["format"] == "items" and (record["n_observations"], record["n_seen"]) == (4, 3)
    assert record["n_unseen"] == pytest.approx(1.0)  # k = 1, t = 1: n_1 / 2 = 2 / 2


def test_counts_with_header(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(
        capsys, str(FIXTURES / "counts_with_header.tsv"), "--estimator", "chao1", "--n-bootstrap", "0"
    )
    assert record["format"] == "counts" and record["n_seen"] == 8 and record["n_observations"] == 16
    assert record["n_total"] == pytest.approx(8 + 4 * 3 / (2 * 3))  # bias-corrected Chao1, f1 = 4, f2 = 2
    assert record["t"] is None and record["k"] is None


def test_explicit_format_overrides_detection(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "numeric_ids.tsv"
    path.write_text("1\t5\n2\t1\n3\t1\n")  # looks like a prevalence table
    assert run_json(capsys, str(path), "--n-bootstrap", "0", "--k", "2")["format"] == "prevalence"
    record = run_json(capsys, str(path), "--format", "counts", "--n-bootstrap", "0", "--k", "2")
    assert record["format"] == "counts" and record["format_detected"] is False and record["n_seen"] == 3


@pytest.mark.parametrize("name", ["good-toulmin", "osw-poisson", "chao1"])
def test_k_is_ignored_and_said_so(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, _ = run(
        capsys,
        str(FISHER),
        "--estimator",
        name,
        "--t",
        "1.5" if name != "good-toulmin" else "0.5",
        "--k",
        "5",
        "--n-bootstrap",
        "0",
    )
    assert code == 0
    assert f"note: k = 5 ignored: estimator {name} has no user-given k" in out
    assert "(not used by this estimator)" in out


def test_osw_binomial_reports_its_formula_k(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, str(FISHER), "--estimator", "osw-binomial", "--t", "10", "--n-bootstrap", "0")
    assert record["k_source"] == "formula" and isinstance(record["k"], int)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


BAD_FILES = [
    ("empty.txt", "", "empty input"),
    ("blank.txt", "\n\n# only a comment\n", "empty input"),
    ("zeros.tsv", "a\t0\nb\t0\n", "empty input"),
    ("negative.tsv", "a\t3\nb\t-2\nc\t1\n", ":2: count must be a whole number >= 0, got -2 (line: 'b\\t-2')"),
    ("fraction.tsv", "a\t3\nb\t2.5\nc\t1\n", ":2: count must be a whole number >= 0, got '2.5' (a number)"),
    (
        "malformed.tsv",
        "a\t3\nb\t2\nc\t1\textra\n",
        ":3: expected ITEM<TAB>COUNT (3 tab-separated fields found)",
    ),
    ("prev_s0.tsv", "s\tn_s\n0\t4\n1\t2\n", ":2: S must be a whole number >= 1, got 0"),
    # a headed count table with one mistyped count is a count table with a bad line, not QUERY<TAB>ITEM
    (
        "headed_typo.tsv",
        "item\tcount\napple\t5\npear\t3\nfig\t2\nkiwi\t1\nplum\t1\nlime\t1x\n",
        ":7: count must be a whole number >= 0, got '1x' (not a number)",
    ),
    ("prev_dup.tsv", "1\t4\n2\t2\n1\t2\n", "prevalence"),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD_FILES)
def test_bad_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, message: str
) -> None:
    fmt = ["--format", "prevalence"] if name == "prev_dup.tsv" else []
    code, out, err = run(capsys, write(tmp_path, name, text), *fmt)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("knowsum: error: ")
    assert message in err and name in err
    if name == "prev_dup.tsv":
        assert ":3: S = 1 appears twice" in err


def test_malformed_items_line_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(
        capsys, write(tmp_path, "items.tsv", "q1\ta\nq2\tb\nq3\tc\tzzz\n"), "--format", "items"
    )
    assert code == 2 and out == ""
    assert ":3: expected QUERY<TAB>ITEM like the first data line (line: 'q3\\tc\\tzzz')" in err


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, str(tmp_path / "nope.tsv"))
    assert (code, out) == (2, "")
    assert err == f"knowsum: error: {tmp_path / 'nope.tsv'}: no such file; check the path\n"


def test_directory_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, str(tmp_path))
    assert (code, out) == (2, "") and "is a directory" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--t", "0"], "--t must be a number > 0, got '0'"),
        (["--t", "-3"], "--t must be a number > 0, got '-3'"),
        (["--t", "abc"], "--t must be a number > 0, got 'abc'"),
        (["--t", "nan"], "--t must be a number > 0, got 'nan'"),
        (["--t", "1e300"], "--t must be a number at most 1e+06, got '1e300'"),  # the census's cap too
        (["--k", "0"], "--k must be 'auto' or an integer in [1, 50], got '0'"),
        (["--k", "-2"], "--k must be 'auto' or an integer in [1, 50], got '-2'"),
        (["--k", "2.5"], "--k must be 'auto' or an integer in [1, 50], got '2.5'"),
        (["--k", "1000"], "--k must be 'auto' or an integer in [1, 50], got '1000'"),  # as the census
        (
            ["--estimator", "magic"],
            "unknown estimator 'magic'; known: ace, ace-1, chao1, chao1-bc, chao1-bc-vegan, chao1-classic, "
            "chao2, chao2-bc, et, good-toulmin, ice, ice-1, ichao1, ichao2, jack1, jack2, osw-binomial, "
            "osw-poisson, pitman-yor, preseq",
        ),
        (["--format", "csv"], "unknown format 'csv'; known: counts, incidence-freq, items, prevalence"),
    ],
)
def test_bad_options(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = run(capsys, str(FISHER), *args)
    assert (code, out) == (2, "")
    assert err == f"knowsum: error: {message}\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--n-bootstrap", "-1"], "Invalid value for '--n-bootstrap': -1 is not in the range x>=0."),
        (["--seed", "x"], "Invalid value for '--seed': 'x' is not a valid integer range."),
    ],
)
def test_shared_typed_options_reject_bad_values(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    # --n-bootstrap and --seed are the options every command shares (click integer ranges): a bad
    # value is click's usage error, which names the option
    code, out, err = run(capsys, str(FISHER), *args)
    assert (code, out) == (2, "") and message in err


RENAMED = "knowsum: note: --bootstrap is renamed --n-bootstrap; --bootstrap will be removed\n"


def test_old_bootstrap_spelling_still_works_with_a_deprecation_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, str(FISHER), "--bootstrap", "200", "--seed", "3", "--json")
    assert code == 0 and err == RENAMED
    old = json.loads(out)
    assert old["n_bootstrap"] == 200
    assert old == run_json(capsys, str(FISHER), "--n-bootstrap", "200", "--seed", "3")
    code, out, err = run(capsys, str(FISHER), "--bootstrap", "0", "--k", "8")
    assert code == 0 and err == RENAMED and "bootstrap: skipped (--n-bootstrap 0)" in out
    code, out, err = run(capsys, str(FISHER), "--bootstrap", "-1")
    # the old spelling is checked like the new one, before anything runs: one line, exit 2
    assert (code, out) == (2, "")
    assert err == (
        "knowsum: error: Invalid value for '--bootstrap': -1 is not in the range x>=0. "
        "(see 'knowsum estimate --help')\n"
    )
    _, help_text, _ = run(capsys, "--help")
    assert "--bootstrap" not in help_text.replace("--n-bootstrap", "")  # hidden


def test_osw_with_t_at_most_one_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(FISHER), "--estimator", "osw-poisson", "--t", "1")
    assert (code, out) == (2, "") and "defined for t > 1" in err and err.count("\n") == 1


def test_negative_estimate_is_shown_with_a_warning_note(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "doubles.tsv", "s\tn_s\n1\t1\n2\t10\n")
    record = run_json(capsys, path, "--estimator", "good-toulmin", "--t", "1", "--n-bootstrap", "0")
    # Good–Toulmin at t = 1: n_1 − n_2 = 1 − 10 = −9 as computed; reported as 0 (issue 20)
    assert record["n_unseen_raw"] == pytest.approx(1 - 10)
    assert record["n_unseen"] == 0 and record["n_total"] == record["n_seen"] == 11 and record["skr"] == 1
    notes = record["notes"]
    assert isinstance(notes, list) and any("negative (raw Û = -9)" in str(n) for n in notes)


def _et(prevalence: dict[int, int], t: int, k: int) -> Fraction:
    """KnowSum eq. (1) by hand, in exact rationals: Û = Σ_{s≤k} −(−t)^s P(Bin(k, 1/(t+1)) ≥ s) n_s."""
    q = Fraction(1, t + 1)
    tail = [sum(comb(k, j) * q**j * (1 - q) ** (k - j) for j in range(s, k + 1)) for s in range(k + 1)]
    return sum((-((-t) ** s) * tail[s] * n for s, n in prevalence.items() if s <= k), Fraction(0))


def test_negative_et_estimate_is_clamped_at_zero_with_the_raw_value_beside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 20's case (a first sweep's cell T0.7 full): n_1 = 6, n_2 = 4, n_3 = 1 at t = 100, k = 6.

    Hand computation (exact rationals): h_1 = 5.7955, h_2 = −14.3205, h_3 = 18.9828, so
    Û = 6·h_1 + 4·h_2 + h_3 = 34.773 − 57.282 + 18.983 = −3.526; the headline is N̂_tot = N_seen = 11
    and SKR = 1, with the raw Û named beside it."""
    raw = float(_et({1: 6, 2: 4, 3: 1}, 100, 6))
    assert raw == pytest.approx(-3.526, abs=1e-3)
    path = write(tmp_path, "cell.tsv", "s\tn_s\n1\t6\n2\t4\n3\t1\n")
    code, out, err = run(capsys, path, "--t", "100", "--k", "6")
    assert code == 0, err
    total = next(line for line in out.splitlines() if "N̂_tot" in line)
    unseen = next(line for line in out.splitlines() if "Û(t)" in line and "unseen" in line)
    skr = next(line for line in out.splitlines() if line.lstrip().startswith("SKR(t)"))
    assert total.split()[2] == "11" and "Û clamped at 0" in total
    assert unseen.split()[2] == "0.0" and "raw Û(t) = -3.5" in unseen
    assert skr.split()[1] == "1"
    assert "note: warning: et: the estimated number of unseen items is negative (raw Û = -3.526)" in out
    # the cause named truly: k = 6 is too deep for 6 singletons at t = 100 (the held-out k picks
    # among 6, 8, 10, so "use k = auto" would not help); k = 1 gives h_1·n_1 > 0
    assert "with k = 6 at t = 100, the items seen 2 or more times outweigh the 6 singletons" in out
    assert "a smaller k (k = 1 is never negative) or a smaller t" in out and "held-out k" not in out
    # a log-normal interval around Û = 0 is the point [N_seen, N_seen] whatever the resamples: n/a
    assert "n/a: Û(t) = 0, where a log-normal interval is a point" in total
    record = run_json(capsys, path, "--t", "100", "--k", "6")
    assert record["n_unseen_raw"] == pytest.approx(raw, rel=1e-9)
    assert (record["n_unseen"], record["n_total"], record["skr"]) == (0, 11, 1)
    assert record["interval_total"] is None and record["interval_skr"] is None
    assert record["interval_reason"] == "Û(t) = 0, where a log-normal interval is a point"


def test_help_lists_the_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "QUERY<TAB>ITEM" in out and "--n-bootstrap" in out


def test_estimate_that_would_cancel_n_seen_keeps_skr_defined(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Good–Toulmin at t = 1 with only n_2 = 1: raw Û = −1 would make N̂_tot = 0 and SKR undefined;
    # reported as Û = 0, N̂_tot = N_seen = 1, SKR = 1 (issue 20)
    path = write(tmp_path, "one_double.tsv", "s\tn_s\n2\t1\n")
    code, out, err = run(
        capsys, path, "--estimator", "good-toulmin", "--t", "1", "--n-bootstrap", "0", "--json"
    )
    assert code == 0, err
    record = json.loads(out)
    assert record["n_unseen_raw"] == -1 and record["n_total"] == 1 and record["skr"] == 1


def test_huge_count_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, write(tmp_path, "huge.tsv", "a\t99999999999999999999\nb\t1\n"))
    assert (code, out) == (2, "") and "too large" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        (
            "prevalence",
            "s\tn_s\n1\t4\n2\tabc\n",
            ":3: N_S must be a whole number >= 0, got 'abc' (not a number)",
        ),
        ("prevalence", "s\tn_s\nx\t4\n", ":2: S must be a whole number >= 1, got 'x' (not a number)"),
        ("counts", "item\tcount\na\t3\nb\tmany\n", ":3: count must be a whole number >= 0, got 'many'"),
    ],
)
def test_bad_row_after_header_names_its_own_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str, text: str, message: str
) -> None:
    # issue 10 item 6: the header stays allowed with an explicit --format, and the error names the
    # bad row's line (it used to say line 1 and complain about the header)
    code, out, err = run(capsys, write(tmp_path, "bad.tsv", text), "--format", fmt)
    assert (code, out) == (2, "")
    assert message in err and ":1:" not in err


def test_header_with_explicit_format_is_skipped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, "prev.tsv", "s\tn_s\n1\t4\n2\t2\n")
    record = run_json(capsys, path, "--format", "prevalence", "--n-bootstrap", "0", "--k", "6")
    assert (record["n_seen"], record["n_observations"]) == (6, 8)


def test_interval_method_is_lognormal_by_default_and_named(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(capsys, str(FISHER), "--t", "1", "--k", "6", "--n-bootstrap", "200")
    assert record["interval_method"] == "lognormal"
    lo, hi = record["interval_total"]  # type: ignore[misc]
    assert record["n_seen"] <= lo < record["n_total"] < hi  # type: ignore[operator]
    code, out, _ = run(capsys, str(FISHER), "--t", "1", "--k", "6", "--n-bootstrap", "200")
    assert code == 0 and "95% confidence interval (lognormal)" in out and "log-normal (Chao 1987)" in out


def test_percentile_interval_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(FISHER), "--t", "1", "--k", "6", "--n-bootstrap", "200"]
    pct = run_json(capsys, *args, "--interval", "percentile")
    log = run_json(capsys, *args)
    assert pct["interval_method"] == "percentile" and pct["n_unseen"] == log["n_unseen"]
    assert pct["interval"] != log["interval"]
    code, _, err = run(capsys, *args, "--interval", "wald")
    assert code == 2 and "wald" in err


@pytest.mark.parametrize(
    ("fmt", "text", "what"),
    [
        ("counts", "a\t1000000000000\nb\t1\n", "count 1,000,000,000,000 is too large"),
        ("prevalence", "1\t1000000000000\n2\t3\n", "N_S 1,000,000,000,000 is too large"),
        ("prevalence", "S\tN_S\n10000001\t1\n", "S 10,000,001 is too large"),
        ("incidence-freq", "10\n5\n1000000000000\n", "incidence count 1,000,000,000,000 is too large"),
    ],
)
def test_a_count_too_large_to_hold_is_one_line_not_a_memory_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str, text: str, what: str
) -> None:
    """A count of 10^12 needs a 7 TiB frequency table: one line naming the line and the limit (was:
    numpy's MemoryError traceback)."""
    path = write(tmp_path, "huge.tsv", text)
    code, out, err = run(capsys, path, "--format", fmt)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert what in err and "above 10,000,000" in err and err.startswith(f"knowsum: error: {path}:")


@pytest.mark.parametrize("fmt", [None, "counts", "prevalence"])
@pytest.mark.parametrize("header", ["item\tcount", "S\tN_S", "species\tabundance"])
def test_a_header_alone_is_no_observation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str | None, header: str
) -> None:
    """A file holding only its header line is refused (was: estimated as one observation)."""
    path = write(tmp_path, "header.tsv", header + "\n")
    code, out, err = run(capsys, path, *(["--format", fmt] if fmt else []))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{path}:1: only a header line, no observations" in err


@pytest.mark.parametrize(
    ("text", "line", "sep"),
    [
        ("s,n_s\n1,5\n2,2\n", 2, "commas"),
        ("1 5\n2 2\n", 1, "spaces"),
        ("item;count\nasthma;3\nflu;1\n", 2, "semicolons"),
    ],
)
def test_a_table_with_other_separators_is_not_read_as_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, sep: str
) -> None:
    """Detected as items, a comma/space/semicolon table would count each line (header included) as one
    made-up item; it is refused naming the separator, and --format items still reads it as items."""
    path = write(tmp_path, "table.csv", text)
    code, out, err = run(capsys, path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{path}:{line}: every line is a name and a number separated by {sep}" in err
    assert "--format items" in err
    code, out, _ = run(capsys, path, "--format", "items")
    assert code == 0 and "items" in out
    # items that merely contain a space or end in a number, among others that do not, are items
    items = write(tmp_path, "items.txt", "alzheimer disease\nCOVID 19\nasthma\n")
    assert run(capsys, items)[0] == 0


def test_json_lines_are_not_read_as_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A census's items-per-query file ({"query", "items"} lines) detected as items would make each
    whole line one singleton item; it is refused pointing to `census score`, and --format items still
    reads it as items. Items that merely start with a brace are items."""
    text = '{"query": "q0", "items": ["flu", "asthma"]}\n{"query": "q1", "items": ["flu"]}\n'
    path = write(tmp_path, "items.jsonl", text)
    code, out, err = run(capsys, path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{path}:1: every line is a JSON object" in err and "knowsum census score FILE" in err
    code, out, _ = run(capsys, path, "--format", "items")
    assert code == 0 and "items" in out
    braces = write(tmp_path, "braces.txt", "{flu}\n{asthma}\n")
    assert run(capsys, braces)[0] == 0
