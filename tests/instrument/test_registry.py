"""The instrument interface and its registry: every registered instrument implements it, the three of
knowsum register through entry points like any plug-in, a broken plug-in is named in one line, and
the command line lists what is installed with its package."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest
from pydantic import BaseModel

import knowsum
from knowsum.cli import main
from knowsum.errors import ConfigError, UnknownNameError
from knowsum.instrument import (
    INSTRUMENTS,
    Instrument,
    get_instrument,
    installed,
    instruments,
    release_caveat,
)
from knowsum.records import Record


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    installed.cache_clear()
    yield
    installed.cache_clear()


def test_knowsums_own_instruments_come_first_from_their_entry_points() -> None:
    every = instruments()
    assert list(every)[:3] == ["census", "recall", "genebench"]
    own = {i.name: i for i in installed(INSTRUMENTS)}
    for name in ("census", "recall", "genebench"):
        assert own[name].package == "knowsum" and own[name].target == f"knowsum.{name}:INSTRUMENT"
    assert knowsum.Instrument is Instrument


@pytest.mark.parametrize("name", list(instruments()))
def test_every_instrument_implements_the_interface(name: str) -> None:
    inst = get_instrument(name)
    assert inst.name == name and inst.title and inst.paper in inst.title
    assert issubclass(inst.Config, BaseModel) and issubclass(inst.Record, Record)
    assert issubclass(inst.Budget, BaseModel)
    steps = inst.steps(inst.read_budget({}, None))  # the table's defaults make a valid run
    assert steps and all(s.instrument == name and isinstance(s.config, inst.Config) for s in steps)
    assert len({s.name for s in steps}) == len(steps) and all(s.name.startswith(name) for s in steps)
    assert inst.identity(steps[0].config)  # what makes a run the same run is not empty
    for point in inst.published:  # one label format for every paper's rows
        assert point.label == f"{point.model} · {inst.paper} " + point.label.rsplit(f"{inst.paper} ", 1)[1]


def test_the_published_points_sit_beside_measures_each_instrument_names() -> None:
    census = get_instrument("census")
    points = census.points("diseases/relaxed/n_total")
    assert len(points) == 9  # KnowSum Table 1: nine models
    llama = next(p for p in points if p.model == "LLaMA-V3-70B-instruct")
    assert llama.value == 7564 and llama.label == "LLaMA-V3-70B-instruct · KnowSum Table 1"
    gpt4 = next(p for p in get_instrument("recall").points("go/accuracy") if p.model == "GPT-4")
    assert gpt4.value == pytest.approx(0.1270) and gpt4.label == "GPT-4 · Bombieri et al. Table 1"
    assert release_caveat({"go": ""}).startswith("judged against go (release unknown)")


def test_an_unknown_instrument_lists_the_installed_ones() -> None:
    with pytest.raises(UnknownNameError) as err:
        get_instrument("cencus")
    assert "census" in str(err.value) and "genebench" in str(err.value)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            EntryPoint("broken", "knowsum_no_such_module:X", INSTRUMENTS),
            "failed to load: ModuleNotFoundError",
        ),
        (EntryPoint("other", "knowsum.census:INSTRUMENT", INSTRUMENTS), "must be the object's name"),
        (EntryPoint("elements", "knowsum_elements:ELEMENTS", INSTRUMENTS), "is not a knowsum.Instrument"),
    ],
)
def test_a_broken_plugin_is_refused_in_one_line_naming_it(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch, entry: EntryPoint, message: str
) -> None:
    real = [*installed(INSTRUMENTS)]
    installed.cache_clear()
    monkeypatch.setattr("knowsum.instrument._registry.entry_points", lambda group: [entry])
    assert entry.name not in instruments()  # left out: a broken plug-in costs only itself
    with pytest.raises(ConfigError) as err:
        get_instrument(entry.name)
    text = str(err.value)
    assert message in text and repr(entry.name) in text and entry.value in text and "\n" not in text
    assert real  # the real registry was readable before


def test_two_packages_registering_one_name_are_refused(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    twice = [EntryPoint("census", "knowsum.census:INSTRUMENT", INSTRUMENTS)] * 2
    monkeypatch.setattr("knowsum.instrument._registry.entry_points", lambda group: twice)
    with pytest.raises(ConfigError, match=r"'census' .* is registered twice"):
        get_instrument("census")


def test_knowsum_instruments_lists_each_with_its_package(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["instruments", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["instruments"]
    assert [i["name"] for i in listed] == list(instruments())
    assert {i["package"] for i in listed[:3]} == {"knowsum"}
    assert main(["instruments"]) == 0
    text = capsys.readouterr().out
    assert "Bombieri et al." in text and "knowsum" in text.splitlines()[2]
    assert listed[0]["description"] == get_instrument("census").title


def test_a_plugin_instrument_runs_through_a_whole_profile_untouched(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A budget names the plug-in's table; plan, run, card, page and compare take it like the others."""
    from knowsum.models import MockBackend, ResponseStore
    from knowsum.profile import load_budget, load_profile, plan_profile, run_profile
    from knowsum.report.profile import compare_table

    real = entry_points(group=INSTRUMENTS)
    yes = EntryPoint("yes", "tests.instrument._yes:INSTRUMENT", INSTRUMENTS)

    def patched(group: str) -> list[EntryPoint]:
        return [*real, yes] if group == INSTRUMENTS else list(entry_points(group=group))

    monkeypatch.setattr("knowsum.instrument._registry.entry_points", patched)
    assert list(instruments())[-1] == "yes"
    plan_file = tmp_path / "yes.toml"
    plan_file.write_text('description = "a plug-in only"\n[yes]\nqueries = 3\n', encoding="utf-8")
    backend = MockBackend(lambda r: "Yes." if r.sample_index % 3 else "No.")
    with ResponseStore(tmp_path / "s.sqlite") as store:
        plan = plan_profile(load_budget(plan=plan_file), backend, store=store)
        assert plan.summary.requests == 3 and list(plan.summary.instruments) == ["yes"]
        run = run_profile(plan, backend, store=store, out=tmp_path / "out", progress=False)
    r = load_profile(run.out_dir)
    assert list(r.instruments) == ["yes"] and r.instruments["yes"].title == "Yes — does it agree? (a plug-in)"
    share = r.measures()[0]
    assert share.key == "yes/share" and share.value == pytest.approx(2 / 3)
    assert share.lower is not None and share.lower < 2 / 3 < (share.upper or 0)
    html = run.report.read_text(encoding="utf-8")
    assert "Yes — does it agree? (a plug-in)" in html and 'href="yes/report.html"' in html
    _, rows = compare_table([r, r])
    assert rows[0][0] == "share of yes" and rows[0][1] == rows[0][2]


def test_a_plugin_object_of_another_kind_is_named_as_such(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`INSTRUMENT = 42` said "is an object named None: the entry point's name must be the object's
    name"; the object's kind is what is wrong."""
    entry = EntryPoint("forty", "knowsum.instrument._base:ORDER_DEFAULT", INSTRUMENTS)  # an int
    monkeypatch.setattr("knowsum.instrument._registry.entry_points", lambda group: [entry])
    with pytest.raises(ConfigError) as err:
        get_instrument("forty")
    assert str(err.value).endswith(
        f"({INSTRUMENTS}, package ?: {entry.value}) is not a knowsum.Instrument (int)"
    )
