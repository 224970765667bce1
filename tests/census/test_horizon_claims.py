"""What the trust horizon and the back-test table claim on the edges of the data: a tiny census that
named the same items is not called exact beyond its queries; an all-singleton census, whose headline
prints no prediction interval, has no horizon that scores one; a coverage of 0 % or 100 % carries
its Wilson bound, not a zero standard error; a census without resamples is judged on the interval it
prints. Each runs ``knowsum census score`` (or the function every surface prints through)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import load_result
from knowsum.census._horizon import horizon_caveat
from knowsum.census.backtest_page import COVER_NOTE, _cover
from knowsum.census.page import compare_table
from knowsum.cli import main
from knowsum.stats.prediction import wilson_bounds


def _score(tmp_path: Path, queries: list[list[str]], name: str = "run", *more: str) -> Path:
    items = tmp_path / f"{name}.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": q}) + "\n" for i, q in enumerate(queries))
    )
    run = tmp_path / name
    args = ["census", "score", str(items), "--out", str(run), "--n-bootstrap", "20", *more]
    assert main(args) == 0
    return run


def test_two_queries_naming_the_same_items_are_exact_only_on_their_own_queries(tmp_path: Path) -> None:
    """Two queries naming "a": the back-test cannot fault Û = 0, but nothing says a third query names
    nothing new, so the message says what the queries cannot tell (it used to call N̂_tot exact)."""
    h = load_result(_score(tmp_path, [["a"], ["a"]])).horizon
    assert h is not None and h.status == "exact" and horizon_caveat(h) is None
    assert "each of the 2 queries named the same items" in h.message
    assert "cannot say" in h.message and "N̂_tot = N_seen is exact" not in h.message


def test_an_all_singleton_census_has_no_horizon_scoring_an_interval_it_does_not_print(
    tmp_path: Path,
) -> None:
    """Twenty queries of two new items each: the headline's prediction interval is n/a ("all
    singletons"), so the horizon does not report one covering 100 % of the splits."""
    run = _score(tmp_path, [[f"x{2 * i}", f"x{2 * i + 1}"] for i in range(20)])
    result = load_result(run)
    assert result.prediction_interval is None and "all singletons" in (result.prediction_reason or "")
    h = result.horizon
    assert h is not None and (h.status, h.t) == ("no-interval", None)
    assert "all singletons" in h.message and "covers" not in h.message
    headers, rows = compare_table([result])
    col = headers.index(next(c for c in headers if "horizon" in c))
    assert rows[0][col] == "n/a: no interval to back-test"


def test_a_census_without_resamples_is_back_tested_on_the_interval_it_prints(tmp_path: Path) -> None:
    """``--n-bootstrap 0``: the headline's prediction interval has only the closed-form variance, and
    so have the horizon's splits (no resamples), not the wider bootstrap one."""
    queries = [[f"d{(7 * i + j) % 90}" for j in range(6)] + [f"u{i}"] for i in range(40)]
    run = tmp_path / "nb0"
    items = tmp_path / "nb0.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": q}) + "\n" for i, q in enumerate(queries))
    )
    assert main(["census", "score", str(items), "--out", str(run), "--n-bootstrap", "0"]) == 0
    none = load_result(run).horizon
    with_boot = load_result(_score(tmp_path, queries, "boot")).horizon
    assert none is not None and with_boot is not None
    assert (none.resamples, with_boot.resamples) == (0, 20)


@pytest.mark.parametrize(("share", "splits"), [(0.0, 5), (1.0, 5), (1.0, 800), (0.0, 100)])
def test_a_coverage_of_none_or_all_shows_its_wilson_bound_not_a_zero_error(share: float, splits: int) -> None:
    """0/5 splits is consistent with a coverage up to about 43 %: the cell says so, never "± 0%"."""
    text = _cover(share, 0.0, None, splits)
    low, high = wilson_bounds(round(share * splits), splits, 0.95)
    bound = f"≤ {100 * high:.3g}%" if share == 0 else f"≥ {100 * low:.3g}%"
    assert "± 0%" not in text and text.endswith(f"({bound})")
    assert "Wilson" in COVER_NOTE
    assert _cover(0.9, 0.03, None, 100) == "90% ± 3%"  # elsewhere the binomial s.e. stands


def test_the_percentile_prediction_interval_names_the_hull_it_takes(tmp_path: Path) -> None:
    """With ``--interval percentile`` the printed prediction interval holds the confidence interval's
    re-centred lower end; its method says so, so the printed interval is the one described."""
    queries = [[f"d{(7 * i + j) % 60}" for j in range(5)] + [f"u{i}"] for i in range(30)]
    result = load_result(_score(tmp_path, queries, "pct", "--interval", "percentile"))
    ci, pi = result.interval, result.prediction_interval
    assert ci is not None and pi is not None
    widened = "widened to hold the confidence interval" in (result.prediction_method or "")
    assert pi[0] <= ci[0] and pi[1] >= ci[1]
    assert ci[0] == pi[0] or ci[1] == pi[1]  # the percentile interval reaches past a log-normal end
    assert widened


def test_a_rule_across_fields_broken_by_options_is_not_blamed_on_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both stop rules given on the command line beside a config that has neither: the message names
    the options too, not the file alone."""
    config = tmp_path / "census.toml"
    config.write_text('task = "diseases"\nqueries = 5\n')
    code = main(
        [
            "census",
            "run",
            "--config",
            str(config),
            "-m",
            "mock",
            "--until-new-rate",
            "0.5",
            "--until-coverage",
            "0.9",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"{config} with the options of census run" in err and "not both" in err


def test_compare_says_when_two_rows_are_one_items_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same file scored with two seeds is one sample: compare still ranks it (a user may name the
    rows as they like) but says so."""
    queries = [[f"d{(3 * i + j) % 40}" for j in range(4)] for i in range(12)]
    items = tmp_path / "one.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": q}) + "\n" for i, q in enumerate(queries))
    )
    runs = []
    for seed in ("0", "1"):
        run = tmp_path / f"s{seed}"
        assert (
            main(["census", "score", str(items), "--out", str(run), "--n-bootstrap", "0", "--seed", seed])
            == 0
        )
        runs.append(str(run))
    capsys.readouterr()
    assert main(["census", "compare", *runs]) == 0
    assert "are two scorings of one file" in capsys.readouterr().err


def test_a_nonlinear_estimator_without_resamples_has_no_interval_to_back_test() -> None:
    """Chao1's interval is a bootstrap one: with no resamples the census prints none, so its horizon
    is ``no-interval``, not a 0 % coverage read as a failure; a linear estimator is still judged on
    its closed-form interval."""
    import numpy as np

    from knowsum.census import trust_horizon
    from knowsum.stats import Prevalence

    rng = np.random.default_rng(1)
    draws = rng.integers(0, 150, size=(200, 5))
    prev = Prevalence.from_items(
        [f"i{d}" for d in draws.ravel()], queries=np.repeat(np.arange(200), 5).tolist()
    )
    chao = trust_horizon(prev, "chao1", None, 1.0, resamples=0, unseen=10.0)
    assert chao.status == "no-interval" and "no bootstrap" in chao.message and chao.coverage is None
    assert trust_horizon(prev, "chao1", None, 1.0, resamples=20, unseen=10.0).status != "no-interval"
    linear = trust_horizon(prev, "et", 6, 1.0, resamples=0, unseen=10.0)
    assert linear.status in ("back-tested", "fails") and linear.resamples == 0
