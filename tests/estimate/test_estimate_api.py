"""``knowsum.estimate``: the library entry behind ``knowsum estimate`` (same numbers as the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

import knowsum.estimate._samples
from knowsum.errors import ConfigError, InputFileError, UnknownNameError
from knowsum.estimate import (
    EstimateConfig,
    EstimateReport,
    Observations,
    RichnessConfig,
    Source,
    estimate,
    read_observations,
    read_sample,
    richness,
)
from knowsum.estimate.page import estimate_json, estimate_table
from knowsum.stats import Prevalence

ROOT = Path(__file__).resolve().parents[2]
FISHER = ROOT / "examples" / "fisher_butterflies.tsv"
FIXTURES = ROOT / "tests" / "fixtures" / "estimate"


def test_fisher_butterflies_same_numbers_as_the_cli() -> None:
    report = estimate(str(FISHER), EstimateConfig(t=1, k=8, estimator="et"))
    assert isinstance(report, EstimateReport)
    assert report.n_observations == 3306 and report.n_seen == 501
    assert report.t == 1.0 and report.k == 8 and report.estimator == "et" and report.k_source == "given"
    assert report.n_unseen == pytest.approx(76.484375)  # Σ_{s≤8} h_s n_s at t = 1 (exact: 2^-8 weights)
    assert report.n_total == pytest.approx(501 + 76.484375)
    assert report.interval is not None and report.interval[0] < 76.48 < report.interval[1]
    assert report.bootstrap is not None and report.bootstrap.n_resamples == 1000
    assert report.bootstrap.interval == "lognormal" and report.bootstrap.unseen == report.interval
    assert (report.format, report.format_detected, report.source) == ("prevalence", True, str(FISHER))


def test_the_three_inputs_give_the_same_estimate() -> None:
    config = EstimateConfig(t=1, k=8, n_bootstrap=0)
    observations = read_observations(FISHER)
    assert isinstance(observations, Observations)
    from_path = estimate(FISHER, config)
    from_observations = estimate(observations, config)
    from_prevalence = estimate(observations.prevalence, config)
    assert from_path.n_unseen == from_observations.n_unseen == from_prevalence.n_unseen
    assert from_observations.source is None and from_observations.format == "prevalence"
    assert from_prevalence.format is None and from_prevalence.format_detected is None
    assert from_path.bootstrap is None and from_path.interval is None


def test_estimate_and_richness_read_one_source_type_alike() -> None:
    """One ``Source``: every input either entry takes gives the same KnowSum estimate, and richness
    reads observations and a prevalence as it reads the file."""
    config = EstimateConfig(t=1, k=8, n_bootstrap=0)
    observations = read_observations(FISHER)
    sample = read_sample(FISHER)
    inputs = [FISHER, observations, observations.prevalence, sample, sample.data]
    assert [estimate(i, config).n_unseen for i in inputs] == pytest.approx([76.484375] * 5)
    rich = RichnessConfig(estimator="et", unseen=config)
    unseen = [richness(i, rich).unseen for i in inputs]
    assert [None if u is None else u.n_unseen for u in unseen] == pytest.approx([76.484375] * 5)
    bc = [richness(i, RichnessConfig(estimator="chao1-bc")).richness for i in inputs]
    assert [None if b is None else b.estimate for b in bc] == pytest.approx([593.0121597] * 5)
    incidence = read_sample(FIXTURES / "theorems_by_query.tsv", count="incidence")
    for refused in (incidence, incidence.data):
        with pytest.raises(ConfigError, match="estimator et needs abundance observations"):
            estimate(refused, config)
    assert Source is knowsum.estimate._samples.Source


def test_held_out_k_and_query_bootstrap() -> None:
    report = estimate(FIXTURES / "theorems_by_query.tsv", EstimateConfig(t=2, k="auto", n_bootstrap=50))
    assert report.n_queries == 10 and (report.n_observations, report.n_seen) == (20, 11)
    assert report.k_source == "held-out" and report.selection is not None
    assert report.k in report.selection.candidates
    assert report.bootstrap is not None and report.bootstrap.method == "queries"


def test_defaults_are_the_commands() -> None:
    config = EstimateConfig()
    assert (config.estimator, config.t, config.k, config.n_bootstrap) == ("et", 100.0, "auto", 1000)
    assert (config.level, config.interval, config.seed, config.format) == (0.95, "lognormal", 0, None)


def test_the_seed_decides_the_interval() -> None:
    prev = read_observations(FISHER).prevalence
    a, b, c = (estimate(prev, EstimateConfig(seed=s, n_bootstrap=200)) for s in (3, 3, 4))
    assert a == b and a.interval != c.interval


def test_a_negative_estimate_becomes_a_warning_note(tmp_path: Path) -> None:
    path = tmp_path / "doubles.tsv"
    path.write_text("s\tn_s\n1\t1\n2\t10\n")
    report = estimate(path, EstimateConfig(estimator="good-toulmin", t=1, n_bootstrap=0))
    assert report.n_unseen_raw == pytest.approx(-9) and report.n_unseen == 0 and report.negative
    assert report.n_total == report.n_seen == 11 and report.skr == 1
    assert any(n.startswith("warning: ") and "negative (raw Û = -9)" in n for n in report.notes)


def test_config_refuses_bad_values() -> None:
    with pytest.raises(UnknownNameError, match="unknown estimator 'magic'"):
        EstimateConfig(estimator="magic")
    with pytest.raises(UnknownNameError, match="unknown format 'csv'; known: counts, items, prevalence"):
        EstimateConfig(format="csv")
    bad_values: list[dict[str, float]] = [
        {"t": 0},
        {"t": float("nan")},
        {"k": 0},
        {"n_bootstrap": -1},
        {"seed": -1},
        {"level": 1},
    ]
    for bad in bad_values:
        with pytest.raises(ValidationError):
            EstimateConfig.model_validate(bad)
    with pytest.raises(ValidationError, match="bootstrap"):  # extra keys are refused
        EstimateConfig.model_validate({"bootstrap": 10})
    config = EstimateConfig()
    with pytest.raises(ValidationError):  # frozen
        config.t = 2.0  # type: ignore[misc]


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        estimate(tmp_path / "nope.tsv")


def test_report_renders_an_in_memory_sample() -> None:
    report = estimate(Prevalence.from_table({1: 6, 2: 4, 3: 1}), EstimateConfig(k=6, n_bootstrap=0))
    table = estimate_table(report)
    assert table.splitlines()[0] == "knowsum estimate" and "format" not in table
    assert "raw Û(t) = -3.5" in table and "bootstrap: skipped (--n-bootstrap 0)" in table
    record = estimate_json(report)
    assert record["file"] is None and record["format"] is None and record["n_total"] == 11


@pytest.mark.parametrize("module", ["knowsum.stats", "knowsum.stats.summary"])
def test_the_old_home_of_the_estimate_report_still_works_with_a_warning(module: str) -> None:
    """``EstimateReport`` sits with the estimate (``knowsum.estimate.record``, beside ``RichnessReport``);
    its old home in the statistics layer still finds it, with a ``DeprecationWarning``."""
    import importlib

    old = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=rf"{module}\.EstimateReport is now knowsum\.estimate"):
        assert old.EstimateReport is EstimateReport
    with pytest.raises(AttributeError, match="NoSuchReport"):
        old.NoSuchReport  # noqa: B018  # only the moved name is found
