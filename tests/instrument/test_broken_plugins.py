"""A broken plug-in costs only itself: every shape of it, on every listing and use, is one line.

Each broken shape is registered beside the real entry points (a patched entry-point list, as a package
would add it): ``knowsum instruments`` and ``knowsum census tasks`` (text and ``--json``) list the
healthy ones, name the broken one in one line with its package and why, and exit 1 (documented in
their help); knowsum's own instruments and tasks stay usable; using the broken one by name is one
line; no traceback anywhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points

import pytest

from knowsum.census import CENSUS_TASKS, CensusConfig, resolve_task
from knowsum.cli import main
from knowsum.errors import ConfigError
from knowsum.harness._spec import make_config
from knowsum.instrument import INSTRUMENTS, get_instrument, installed, instruments
from tests.instrument._broken import MISSING

TARGET = "tests.instrument._broken:"

SHAPES = {
    # group, entry name, object: the message's part saying why
    "import fails": (INSTRUMENTS, "gone", "knowsum_no_such_module:X", "failed to load: ModuleNotFoundError"),
    "SystemExit at import": (INSTRUMENTS, "exits", TARGET + "EXITS", "failed to load: SystemExit"),
    "name raises": (INSTRUMENTS, "badname", TARGET + "NAME_RAISES", "has a name that fails: KeyError"),
    "no title": (INSTRUMENTS, "notitle", TARGET + "NO_TITLE", "has no title (a text)"),
    "shadows census": (INSTRUMENTS, "census", "knowsum.census:INSTRUMENT", "shadows knowsum's own"),
    "decoder bogus": (CENSUS_TASKS, "bogus", TARGET + "BOGUS_DECODER", "invalid decoder='bogus'"),
    "answers 0": (CENSUS_TASKS, "noanswers", TARGET + "NO_ANSWERS", "invalid answers=0"),
    "prompt without {n}": (CENSUS_TASKS, "non", TARGET + "NO_N", "invalid prompt='List some things.'"),
    "shadows diseases": (CENSUS_TASKS, "diseases", TARGET + "SHADOWS", "shadows knowsum's built-in task"),
}


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    installed.cache_clear()
    yield
    installed.cache_clear()


def _register(monkeypatch: pytest.MonkeyPatch, group: str, name: str, target: str) -> None:
    real = {g: list(entry_points(group=g)) for g in (INSTRUMENTS, CENSUS_TASKS)}
    extra = EntryPoint(name, target, group)
    monkeypatch.setattr(
        "knowsum.instrument._registry.entry_points",
        lambda group: [*real.get(group, []), *([extra] if group == extra.group else [])],
    )


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_broken_plugin_is_one_line_on_every_listing(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    group, name, target, why = SHAPES[shape]
    _register(monkeypatch, group, name, target)
    listing = ["instruments"] if group == INSTRUMENTS else ["census", "tasks"]
    capsys.readouterr()
    assert main([*listing, "--json"]) == 1
    out, err = capsys.readouterr()
    data = json.loads(out)
    (line,) = data["broken"]
    assert why in line and target in line and "\n" not in line
    assert err.count("\n") == 1 and why in err and "Traceback" not in err
    healthy = [row["name"] for row in data["instruments" if group == INSTRUMENTS else "tasks"]]
    assert {"census", "recall", "genebench"} <= set(healthy) or {"diseases", "theorems"} <= set(healthy)
    assert healthy.count(name) <= 1  # a shadowing entry is not listed beside the built-in
    assert main(listing) == 1
    out, err = capsys.readouterr()
    assert "package" in out.splitlines()[0] and err.count("\n") == 1 and why in err
    # knowsum's own stay usable: the census instrument, its inspect configuration, a built-in task
    assert get_instrument("census").name == "census" and "census" in instruments()
    assert make_config("census", {"task": "diseases"}).task == "diseases"  # type: ignore[attr-defined]
    assert resolve_task(CensusConfig(task="diseases")).name == "diseases"


@pytest.mark.parametrize("shape", [s for s, v in SHAPES.items() if v[1] not in ("census", "diseases")])
def test_using_a_broken_plugin_by_name_is_one_line(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    group, name, target, why = SHAPES[shape]
    _register(monkeypatch, group, name, target)
    with pytest.raises(ConfigError) as err:
        get_instrument(name) if group == INSTRUMENTS else resolve_task(CensusConfig(task=name))
    assert why in str(err.value) and "\n" not in str(err.value)


def test_a_vocabulary_that_raises_is_one_line(
    fresh_registry: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_home: object,
) -> None:
    """A task whose vocabulary() raises: `census run` says so in one line (was: a traceback)."""
    _register(monkeypatch, CENSUS_TASKS, "boom", TARGET + "VOCABULARY_RAISES")
    capsys.readouterr()
    assert main(["census", "run", "boom", "-m", "mock", "--queries", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "census task 'boom': its vocabulary() failed: RuntimeError" in err, err


@pytest.mark.parametrize("attr", list(MISSING))
def test_an_instrument_missing_a_required_attribute_is_one_line_naming_it(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch, attr: str
) -> None:
    """Registration checks every required attribute: the line names the plug-in, its package (and
    entry point) and the attribute; knowsum's own instruments stay usable."""
    name, target = f"no{attr.lower()}", f"{TARGET}NO_{attr}"
    _register(monkeypatch, INSTRUMENTS, name, target)
    assert name not in instruments() and "census" in instruments()
    with pytest.raises(ConfigError) as err:
        get_instrument(name)
    line = str(err.value)
    assert line.startswith(f"plug-in {name!r} ({INSTRUMENTS}, package ") and target in line, line
    assert f"has no {attr} " in line or f"has {attr} = " in line, line
    assert "\n" not in line


def test_a_plugin_shadowing_another_plugin_is_refused_with_both_packages(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two plug-ins of one name: both are refused (neither silently wins), each line naming the name
    twice registered; a plug-in naming a built-in is refused as shadowing it (SHAPES above)."""
    real = list(entry_points(group=INSTRUMENTS))
    yes = EntryPoint("yes", "tests.instrument._yes:INSTRUMENT", INSTRUMENTS)
    monkeypatch.setattr(
        "knowsum.instrument._registry.entry_points",
        lambda group: [*real, yes, yes] if group == INSTRUMENTS else list(entry_points(group=group)),
    )
    assert "yes" not in instruments() and list(instruments())[:3] == ["census", "recall", "genebench"]
    with pytest.raises(ConfigError, match=r"plug-in 'yes' .* is registered twice"):
        get_instrument("yes")


def test_the_census_task_group_moved_to_the_census_package_and_is_still_found_where_it_was() -> None:
    import knowsum.instrument

    with pytest.warns(DeprecationWarning, match="import it from knowsum.census"):
        assert knowsum.instrument.CENSUS_TASKS == CENSUS_TASKS == "knowsum.census_tasks"


def test_an_error_raised_in_a_plugins_code_names_the_plugin(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line names the plug-in whose code raised, from every plug-in group loaded (the
    instruments', the census tasks'), without knowing the groups."""
    from knowsum.cli import _plugin_failure
    from knowsum.instrument import KBs, loaded
    from tests.instrument._yes import INSTRUMENT

    _register(monkeypatch, INSTRUMENTS, "yes", "tests.instrument._yes:INSTRUMENT")
    assert "yes" in instruments() and resolve_task(CensusConfig(task="diseases"))
    assert {i.name for i in loaded()} >= {"census", "yes"}
    with pytest.raises(AttributeError) as err:
        INSTRUMENT.requests(None, KBs())  # type: ignore[arg-type]  # the plug-in's own code fails
    line = _plugin_failure(err.value)
    assert line is not None and line.startswith("plug-in 'yes' (package ?: tests.instrument._yes:INSTRUMENT)")
    assert "failed: AttributeError" in line and "\n" not in line


def test_instruments_stand_by_order_after_knowsums_own(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """knowsum's own instruments come first in their ``order`` (census 10, recall 20, genebench 30),
    whatever a plug-in sets; plug-ins follow by ``order``, then by name: ``zearly`` (order 0) before
    ``yes`` (the default 100), though its name sorts after."""
    real = list(entry_points(group=INSTRUMENTS))
    extra = [
        EntryPoint("yes", "tests.instrument._yes:INSTRUMENT", INSTRUMENTS),
        EntryPoint("zearly", TARGET + "EARLY", INSTRUMENTS),
    ]
    monkeypatch.setattr(
        "knowsum.instrument._registry.entry_points",
        lambda group: [*extra, *real] if group == INSTRUMENTS else list(entry_points(group=group)),
    )
    assert [i.name for i in installed(INSTRUMENTS)] == ["census", "recall", "genebench", "zearly", "yes"]
    assert [get_instrument(n).order for n in ("census", "recall", "genebench", "yes")] == [10, 20, 30, 100]


def test_a_broken_plugin_in_a_budget_is_named_not_dropped_unsaid(
    fresh_registry: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: object,
) -> None:
    """A plan naming a broken plug-in gets its line (not "unknown instrument"); a shipped budget,
    which composes the healthy instruments' tables, says which one it left out."""
    from pathlib import Path

    _register(monkeypatch, INSTRUMENTS, "notitle", TARGET + "NO_TITLE")
    plan = Path(str(tmp_path)) / "mine.toml"
    plan.write_text("[notitle]\nqueries = 2\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["profile", "plan", "-m", "mock", "--plan", str(plan)]) == 2
    err = capsys.readouterr().err
    assert f"{plan}: [notitle]: plug-in 'notitle'" in err and "has no title (a text)" in err
    assert (
        main(["profile", "plan", "-m", "mock", "--budget", "smoke", "--store", str(plan.with_suffix(".db"))])
        == 0
    )
    err = capsys.readouterr().err
    assert "knowsum: note: a broken plug-in is left out of --budget smoke: plug-in 'notitle'" in err
