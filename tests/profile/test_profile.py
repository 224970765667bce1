"""``knowsum.profile`` end to end on the mock backend and the installed KBs: plan → run → page,
a crash mid-plan and a rerun, a rerun of a finished profile, the page's escaping."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from knowsum.errors import BackendError, ConfigError, InputError, UnknownNameError
from knowsum.models import MockBackend, ResponseStore
from knowsum.profile import BUDGETS, Prices, ProfileRun, load_budget, load_profile, plan_profile, run_profile
from knowsum.report.profile import card_rows
from tests.profile._tiny import XSS, ErrorOnce, FailingBackend, answer, tiny_plan

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[ProfileRun, Path, int]:
    """One tiny profile of the mock: the run, its store and the requests its plan counted."""
    folder = tmp_path_factory.mktemp("profile")
    budget = load_budget(plan=tiny_plan(folder))
    backend = MockBackend(answer)
    with ResponseStore(folder / "s.sqlite") as store:
        plan = plan_profile(budget, backend, store=store, prices=Prices(1.0, 2.0))
        run = run_profile(plan, backend, store=store, out=folder / "out", progress=False)
    assert len(backend.calls) == plan.summary.requests  # every distinct request asked once
    return run, folder / "s.sqlite", plan.summary.requests


def test_plan_counts_every_instrument_and_the_store(tmp_path: Path) -> None:
    budget = load_budget(plan=tiny_plan(tmp_path))
    backend = MockBackend(answer)
    plan = plan_profile(budget, backend, store=None, prices=Prices(1.0, 2.0))
    s = plan.summary
    census, recall, gene = (s.instruments[k] for k in ("census", "recall", "genebench"))
    # 2 tasks × 3 queries; the strict criterion reuses the relaxed run's responses
    assert census.requests == 6 and census.stored == 0
    assert recall.requests == 5  # 1 concept × 5 popularity buckets
    assert gene.requests > 0 and s.requests == 6 + 5 + gene.requests
    assert census.prompt_tokens_estimated and "estimated" in s.tokens_source
    # the upper bound is Σ max_tokens; the cost is Σ tokens × price / 10^6
    assert census.completion_tokens == sum(r.params.max_tokens for r in plan.requests["census"])
    assert s.cost_usd == pytest.approx((s.prompt_tokens * 1.0 + s.completion_tokens * 2.0) / 1e6, abs=1e-5)
    assert s.completion_tokens_expected is None and s.seconds_expected is None  # nothing measured yet


def test_run_writes_the_record_and_the_page(finished: tuple[ProfileRun, Path, int]) -> None:
    run, _, requests = finished
    data = json.loads((run.out_dir / "profile.json").read_text())
    assert data["kind"] == "profile" and {"instruments", "plan", "usage"} <= set(data)
    assert list(data["instruments"]) == ["census", "recall", "genebench"]  # the registry's order
    r = load_profile(run.out_dir)
    assert r.usage is not None and r.usage.requests == requests and r.usage.asked == requests
    assert r.cost_usd is not None and r.cost_usd > 0
    census = r.instruments.get("census")
    assert census is not None
    assert set(census.runs) == {
        f"census-{t}-{c}" for t in ("diseases", "theorems") for c in ("relaxed", "strict")
    }
    for folder in (*census.runs.values(), "recall-go", "genebench-balanced"):
        assert (run.out_dir / folder / "result.json").is_file()
    keys = {m.key for m in r.measures()}
    assert {"census/diseases/strict/n_total", "recall/go/accuracy", "genebench/overall"} <= keys
    assert len([k for k in keys if k.startswith("genebench/knowledge/")]) == 8
    assert len([k for k in keys if k.startswith("genebench/perspective/")]) == 4
    rho = next(m for m in r.measures() if m.key == "recall/go/popularity_rho")  # the mock knows no GO ID
    assert rho.value is None and "undefined: accuracy is 0.0% in every bucket" in rho.method
    seen = next(m for m in r.measures() if m.key == "census/diseases/relaxed/n_seen")
    assert seen.value == 3  # Asthma, Influenza, Measles
    html = run.report.read_text(encoding="utf-8")
    for ref in (
        "LLaMA-V3-70B-instruct · KnowSum Table 1",
        "GPT-4 · Bombieri et al. Table 1",
        "GPT-5 · SciHorizon-GENE Table 2",
    ):
        assert ref in html
    assert 'href="census-diseases-relaxed/report.html"' in html
    assert "N_query = 3 here, 3,000 in the paper" in html  # the budget caveat


def test_the_card_and_page_carry_the_runs_caveats(finished: tuple[ProfileRun, Path, int]) -> None:
    """A census of a handful of observations is marked on the card and the page as in its result.json."""
    run = finished[0]
    r = load_profile(run.out_dir)
    total = next(m for m in r.measures() if m.key == "census/diseases/relaxed/n_total")
    folder = r.instruments["census"].runs["census-diseases-relaxed"]
    record = json.loads((run.out_dir / folder / "result.json").read_text())
    assert "tiny-sample" in {c["kind"] for c in record["caveats"]}
    assert [c.kind for c in total.marks] == [c["kind"] for c in record["caveats"]]  # copied, not re-derived
    seen = next(m for m in r.measures() if m.key == "census/diseases/relaxed/n_seen")
    assert seen.marks == []  # a count carries no estimate's caveat
    card = next(row for row in card_rows(r) if row[0] == "census: diseases (relaxed) N̂_tot")
    assert "tiny sample" in card[1]
    html = run.report.read_text(encoding="utf-8")
    assert 'class="caveat-mark"' in html and "tiny sample" in html


def test_a_model_reply_is_text_on_the_page(finished: tuple[ProfileRun, Path, int]) -> None:
    html = finished[0].report.read_text(encoding="utf-8")
    assert "<script" not in html
    assert "&lt;script&gt;window.__pwned = 1;&lt;/script&gt;" in html


def test_a_rerun_of_a_finished_profile_asks_nothing(finished: tuple[ProfileRun, Path, int]) -> None:
    run, store_path, requests = finished
    backend = MockBackend(answer)
    with ResponseStore(store_path) as store:
        before = store.count()
        plan = plan_profile(load_budget(plan=store_path.parent / "tiny.toml"), backend, store=store)
        assert plan.summary.stored == plan.summary.requests == requests
        again = run_profile(plan, backend, store=store, out=run.out_dir, progress=False)
        assert store.count() == before  # no row added
    assert backend.calls == []
    assert again.record.usage is not None and again.record.usage.asked == 0
    assert again.record.usage.requests == requests
    first = run.record.usage
    assert first is not None and first.generation_seconds is not None and first.generation_seconds > 0
    assert again.record.usage.generation_seconds == first.generation_seconds  # the answers' time, kept


def test_a_profile_killed_mid_plan_continues_and_asks_each_request_once(tmp_path: Path) -> None:
    budget = load_budget(plan=tiny_plan(tmp_path))
    with ResponseStore(tmp_path / "s.sqlite") as store:
        failing = FailingBackend(budget=8)  # census (6 requests) finishes, recall fails midway
        plan = plan_profile(budget, failing, store=store)
        with pytest.raises(BackendError):
            run_profile(plan, failing, store=store, out=tmp_path / "out", progress=False)
        assert not (tmp_path / "out" / "profile.json").exists()
        first = store.count()
        assert first == len(failing.calls) and 6 <= first < plan.summary.requests
        healthy = MockBackend(answer)
        plan = plan_profile(budget, healthy, store=store)
        assert plan.summary.stored == first
        run = run_profile(plan, healthy, store=store, out=tmp_path / "out", progress=False)
        assert store.count() == plan.summary.requests  # every response stored once
    asked = [healthy.key(r) for r in failing.calls + healthy.calls]
    assert len(asked) == len(set(asked)) == plan.summary.requests
    assert run.record.usage is not None and run.record.usage.asked == plan.summary.requests - first


def test_a_census_step_with_a_failed_request_is_not_finished(tmp_path: Path) -> None:
    """A step computed from part of its requests would stay on the card for good (a rerun reads a
    finished step back): the profile stops instead, and its rerun asks only the failed request."""
    budget = load_budget(plan=tiny_plan(tmp_path))
    with ResponseStore(tmp_path / "s.sqlite") as store:
        flaky = ErrorOnce(nth=2)  # the second census request
        plan = plan_profile(budget, flaky, store=store)
        with pytest.raises(BackendError, match="1 of 3 requests failed; rerun the same command"):
            run_profile(plan, flaky, store=store, out=tmp_path / "out", progress=False)
        assert not (tmp_path / "out" / "profile.json").exists()
        healthy = MockBackend(answer)
        run = run_profile(
            plan_profile(budget, healthy, store=store), healthy, store=store, out=tmp_path / "out"
        )
    census = [json.loads(p.read_text()) for p in sorted((tmp_path / "out").glob("census-*/result.json"))]
    assert len(census) == 4 and {
        (c["counts"]["responses"], c["counts"]["failed_responses"]) for c in census
    } == {(3, 0)}
    assert run.record.usage is not None and run.record.usage.failed == 0


def test_the_paper_budget_is_the_papers_size() -> None:
    b = load_budget("paper")
    census, recall, genebench = b.part("census"), b.part("recall"), b.part("genebench")
    assert census is not None and census.queries == {"diseases": 3000, "theorems": 30000}
    assert recall is not None and recall.select == "all" and recall.invariance == ("pi2", "pi3")
    assert recall.invariance_per_bucket * recall.n_buckets == 1000  # Bombieri et al. §6
    assert genebench is not None and genebench.paper_size
    assert BUDGETS == ("smoke", "quick", "paper")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[censsu]\nqueries = 3\n", "unknown key or instrument 'censsu'"),
        ("[census]\nquerys = 3\n", "invalid census.querys"),
        ('[census]\nqueries = "many"\n', "invalid census.queries"),
        ('[census]\nqueries = "3"\n', "invalid census.queries='3': Input should be a valid integer"),
        ("[census]\nqueries = true\n", "invalid census.queries=True: Input should be a valid integer"),
        ('[census]\nqueries = { diseases = "3" }\n', "invalid census.queries: diseases: Input should be"),
        # the census config's own limit (10^7 queries), not a ValidationError traceback at run time
        ("[census]\nqueries = 20000000\n", "census.queries=20000000: Input should be less than or equal to"),
        ("[census]\nn_bootstrap = 1e3\n", "invalid census.n_bootstrap=1000.0"),
        ("[recall]\nn_buckets = 5000\n", "invalid recall.n_buckets=5000"),
        ('[genebench]\nper_type = "2"\n', "invalid genebench.per_type='2'"),
        ("[genebench]\npaper_size = 1\n", "invalid genebench.paper_size=1"),
        (
            '[recall]\nkbs = ["go"]\ninvariance_kbs = ["icd10"]\n',
            "invariance_kbs ['icd10'] are not among kbs",
        ),
        # an unknown KB is the plan's error (file and key named), not a run's after its folder is made
        ('[recall]\nkbs = ["nokb"]\n', "invalid recall.kbs=['nokb']: unknown knowledge base 'nokb'; known: "),
        # two sizes or two selections asked at once: refused, neither silently dropped
        (
            "[genebench]\nper_type = 1\npaper_size = true\n",
            "invalid genebench: per_type and paper_size both set",
        ),
        (
            '[recall]\nselect = "all"\nper_bucket = 2\n',
            'per_bucket is for select = "stratified", and select = "all"',
        ),
        ('description = "nothing"\n', "needs at least one of the tables"),
        ("[census\n", "not valid TOML"),
    ],
)
def test_a_bad_plan_file_is_refused_in_one_line(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_budget(plan=path)
    assert str(path) in str(err.value) and message in str(err.value) and "\n" not in str(err.value)


def test_an_unknown_budget_and_a_foreign_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError):
        load_budget("huge")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    plan = plan_profile(load_budget(plan=tiny_plan(tmp_path)), MockBackend(answer), store=None)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(InputError, match="not a profile's"):
            run_profile(plan, MockBackend(answer), store=store, out=out, progress=False)
        assert store.count() == 0
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_the_page_in_headless_chromium_shows_the_reply_as_text(
    finished: tuple[ProfileRun, Path, int], browser_bin: str
) -> None:
    from tests.report._cdp import inspect_report

    page, errors = inspect_report(browser_bin, finished[0].report, "profile-mock.png")
    assert errors == []
    assert page["pwned"] is None and page["scripts"] == 0
    assert XSS in page["text"]  # shown as text, never run
    assert {name for name, done, width in page["plots"] if done and width > 100} == {
        "strip-census",
        "strip-recall",
        "strip-genebench",
    }


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_killed_profile_of_another_model_is_refused_unless_overwrite(tmp_path: Path) -> None:
    """A profile stopped before its profile.json (its step folders written) is still that model's:
    another model's profile into it is refused before anything is asked, its files untouched (was:
    the other model's step folders silently replaced), also when only its finished steps' records
    name the model (no claim file: an older knowsum); --overwrite empties it first."""
    budget = load_budget(plan=tiny_plan(tmp_path))
    out = tmp_path / "out"
    with ResponseStore(tmp_path / "s.sqlite") as store:
        killed = FailingBackend(budget=8)  # the census steps finish, recall fails midway
        with pytest.raises(BackendError):
            run_profile(
                plan_profile(budget, killed, store=store), killed, store=store, out=out, progress=False
            )
        assert not (out / "profile.json").exists() and (out / "census-diseases-relaxed").is_dir()
        before = _tree(out)
        other = MockBackend(answer, model_id="mock-other")
        plan = plan_profile(budget, other, store=store)
        with pytest.raises(InputError) as err:
            run_profile(plan, other, store=store, out=out, progress=False)
        assert "model=mock" in str(err.value) and "mock-other asked" in str(err.value)
        assert "--overwrite" in str(err.value) and "\n" not in str(err.value)
        assert _tree(out) == before and other.calls == []
        (out / ".knowsum-run.json").unlink()  # stopped by an older knowsum: its steps name the model
        with pytest.raises(InputError, match="model=mock "):
            run_profile(plan, other, store=store, out=out, progress=False)
        assert other.calls == []
        run = run_profile(plan, other, store=store, out=out, progress=False, overwrite=True)
    assert run.record.model == "mock-other"
    assert json.loads((out / "census-diseases-relaxed" / "result.json").read_text())["model"] == "mock-other"


def test_each_strip_names_only_the_published_models_its_papers_have(
    finished: tuple[ProfileRun, Path, int],
) -> None:
    """The strips label LLaMA-V3-70B-instruct, GPT-4 and GPT-5 where a paper published them: each
    instrument's caption names those of its own paper (KnowSum: LLaMA; Bombieri et al.: GPT-4;
    SciHorizon-GENE: GPT-5), never the other papers' models."""
    html = finished[0].report.read_text(encoding="utf-8")
    captions = re.findall(r"<figcaption>Grey: the models the paper published([^;]*);", html)
    assert captions == [" (LLaMA-V3-70B-instruct named)", " (GPT-4 named)", " (GPT-5 named)"]
