"""Coverage, the Chao estimate of the counting mode and Hill numbers beside the KnowSum headline:
hand-computed values through the CLI, the Zipf census against its known truth, the older record,
and the invariants (hypothesis)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.census import CensusConfig, load_result, richness_info, run_census, sample_of_result
from knowsum.census.page import summary_table, write_census_report
from knowsum.census.record import RichnessInfo
from knowsum.cli import main
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, ResponseStore
from knowsum.stats import Abundance, Incidence, chao2_bc, hill_numbers, sample_coverage
from tests.census.zipf import disease_names, make_responses, truth_counts

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# a×3, b×2, c×1, d×1 over five queries (Q5 names nothing): n = 7, S_obs = 4, f1 = 2, f2 = 1
ITEMS = [["a", "b"], ["a", "c"], ["a", "b"], ["d"], []]


def _score(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"Q{i}", "items": x}) + "\n" for i, x in enumerate(ITEMS, 1))
    )
    code = main(
        [
            "census",
            "score",
            str(items),
            "--k",
            "2",
            "--n-bootstrap",
            "50",
            "--json",
            "--out",
            str(tmp_path / "run"),
            *extra,
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_mention_counting_gives_chao1_bc_coverage_and_hill_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rich = _score(tmp_path, capsys)["richness"]
    assert rich["data"] == "abundance" and rich["size"] == 7
    # Chao & Jost (2012): 1 − f1/n · (n−1)f1/((n−1)f1 + 2f2) = 1 − 2/7 · 12/14
    assert rich["coverage"] == pytest.approx(1 - 2 / 7 * 12 / 14, rel=1e-12)
    chao = rich["chao"]
    # Chao1-bc: S + (n−1)/n · f1(f1−1)/(2(f2+1)) = 4 + 6/7 · 2/4
    assert chao["name"] == "chao1-bc" and chao["estimate"] == pytest.approx(4 + 6 / 7 * 0.5, rel=1e-12)
    assert chao["std_error"] > 0 and chao["interval"][0] >= 4 and "Chao 2005" in chao["method"]
    hill = rich["hill"]
    assert hill["q"] == [0, 1, 2] and hill["observed"][0] == 4
    assert hill["observed"][2] == pytest.approx(49 / 15)  # 1 / Σ p²
    assert hill["estimated"][2] == pytest.approx(42 / 8)  # n(n−1) / Σ X(X−1)
    assert hill["estimated"][0] == pytest.approx(4 + 6 / 7 * 4 / 2)  # q = 0: classic Chao1 (f2 > 0), iNEXT
    assert hill["n_bootstrap"] == 50 and len(hill["lower"]) == 3
    result = load_result(tmp_path / "run")
    table = summary_table(result)
    assert re.search(r"\nsample coverage C \(Chao & Jost 2012\) +0\.7551\n", table)
    assert re.search(r"\nChao1-bc \(s\.e\., 95% log-normal interval\) +4\.429 \(s\.e\. [0-9.]+\) \[4", table)
    assert "Hill q=1 (exp(Shannon)), asymptotic" in table
    page = (tmp_path / "run" / "report.html").read_text()
    assert "Coverage, Chao and Hill numbers" in page and "Chao1-bc = S_obs + (n−1)/n" in page
    assert "sample coverage Ĉ, Chao &amp; Jost 2012" in page  # a key number after the headline


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_incidence_counting_gives_chao2_bc_over_all_responses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rich = _score(tmp_path, capsys, "--count", "incidence")["richness"]
    assert rich["data"] == "incidence" and rich["size"] == 5  # T counts Q5, which named nothing
    # U = 7, Q1 = 2, Q2 = 1: Ĉ = 1 − Q1/U · (T−1)Q1/((T−1)Q1 + 2Q2) = 1 − 2/7 · 8/10
    assert rich["coverage"] == pytest.approx(1 - 2 / 7 * 0.8, rel=1e-12)
    assert rich["chao"]["name"] == "chao2-bc"
    assert rich["chao"]["estimate"] == pytest.approx(
        4 + 4 / 5 * 0.5, rel=1e-12
    )  # S + (T−1)/T·Q1(Q1−1)/(2(Q2+1))
    assert "Q1/U" in rich["coverage_method"]


@pytest.fixture
def zipf(kb_home: Path) -> tuple[list[str], list[list[str]]]:
    return make_responses(disease_names(load_ontology("doid"), 300), 80, 12)


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_zipf_census_richness_equals_the_statistics_of_its_truth(
    zipf: tuple[list[str], list[list[str]]], tmp_path: Path, store: ResponseStore
) -> None:
    texts, truth = zipf
    backend = MockBackend(lambda r: texts[r.sample_index], model_id="zipf")
    cfg = CensusConfig(task="diseases", queries=80, n_bootstrap=100, count="incidence")
    result = run_census(cfg, backend, store=store, out=tmp_path / "run").record
    data = Incidence.from_frequencies(list(truth_counts(truth).values()), 80)
    rich = result.richness
    assert rich is not None and rich.data == "incidence" and rich.size == 80
    assert rich.coverage == pytest.approx(sample_coverage(data).coverage, rel=1e-12)
    ref = chao2_bc(data)
    assert rich.chao.estimate == pytest.approx(ref.estimate, rel=1e-12)
    assert rich.chao.std_error == pytest.approx(ref.std_error, rel=1e-12)
    hill = hill_numbers(data, n_bootstrap=100, seed=0)
    assert rich.hill.estimated == pytest.approx(hill.estimated.tolist(), rel=1e-12)
    assert rich.hill.lower == pytest.approx(hill.lower.tolist(), rel=1e-12)  # type: ignore[union-attr]
    # the record alone rebuilds the same sample (what compare --at-coverage reads)
    again = sample_of_result(load_result(tmp_path / "run"))
    assert isinstance(again, Incidence) and again.T == 80
    assert sorted(again.frequencies.tolist()) == sorted(data.frequencies.tolist())


def test_version_4_record_loads_without_richness_and_says_so(tmp_path: Path) -> None:
    old = json.loads((FIXTURES / "result_v4.json").read_text())
    assert old["version"] == 4 and "richness" not in old
    result = load_result(FIXTURES / "result_v4.json")
    assert result.version == 6 and result.richness is None and result.n_seen == old["n_seen"]
    assert "not in this record" in summary_table(result)
    write_census_report(tmp_path, result)
    assert "not in this record" in (tmp_path / "report.html").read_text()
    # the sample is still there: coverage and Chao can be computed from the record
    data = sample_of_result(result)
    assert isinstance(data, Abundance) and data.n == old["n_observations"] and data.s_obs == old["n_seen"]


@given(st.lists(st.integers(1, 40), min_size=1, max_size=60), st.booleans())
@settings(max_examples=60, deadline=None)
def test_invariants_coverage_chao_hill(counts: list[int], incidence: bool) -> None:
    data: Abundance | Incidence = (
        Incidence.from_frequencies(counts, max(counts) + 3) if incidence else Abundance(np.array(counts))
    )
    info = richness_info(data, n_bootstrap=0, level=0.95, seed=0)
    assert 0.0 <= info.coverage <= 1.0
    assert info.chao.estimate >= data.s_obs - 1e-9
    if info.chao.interval is not None:
        assert info.chao.interval[0] >= data.s_obs - 1e-9
    observed = info.hill.observed
    assert observed[0] == data.s_obs and observed[0] >= observed[1] - 1e-9 >= observed[2] - 2e-9
    q0 = info.hill.estimated[0]
    assert q0 is not None and q0 >= observed[0] - 1e-9
    assert all(x is None or math.isfinite(x) for x in info.hill.estimated)
    assert (None in info.hill.estimated) == any("undefined" in n for n in info.notes)
    RichnessInfo.model_validate_json(info.model_dump_json())  # what result.json holds reads back


def test_a_one_observation_census_says_its_numbers_say_little(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "one.jsonl"
    items.write_text(json.dumps({"query": "Q1", "items": ["a"]}) + "\n")
    code = main(["census", "score", str(items), "--json", "--out", str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert code == 0, err
    hill = json.loads(out)["richness"]["hill"]
    assert hill["estimated"][2] is None  # 1 / Σ X(X−1)/(n(n−1)) is 0/0 with n = 1: undefined, not inf
    assert hill["lower"] == [None, None, None] and hill["upper"] == [None, None, None]  # never [1, 1]
    assert "tiny sample: coverage, Chao estimate and Hill numbers from 1 observation (fewer than 20)" in err
    assert "Hill numbers q=2: undefined on this sample" in err
    assert "Hill numbers q=0, q=1: no interval, every bootstrap replicate gave the same value" in err
    assert "undefined (observed 1)" in summary_table(load_result(tmp_path / "run"))
