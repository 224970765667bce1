"""A shipped budget is composed from the tables each instrument ships (``<package>/budgets/NAME.toml``).

The three built-ins ship theirs as a plug-in does; a plug-in that ships a ``smoke`` table joins
``--budget smoke``, one that ships none is left out of it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest

from knowsum.errors import ConfigError
from knowsum.instrument import INSTRUMENTS, installed, instruments
from knowsum.profile import load_budget


@pytest.fixture
def shipping_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package ``yes_shipping`` whose instrument (the tests' ``yes``) ships a smoke table."""
    pkg = tmp_path / "yes_shipping"
    (pkg / "budgets").mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "from tests.instrument._yes import YesInstrument\n\n\n"
        "class Shipping(YesInstrument):\n    pass\n\n\nINSTRUMENT = Shipping()\n",
        encoding="utf-8",
    )
    (pkg / "budgets" / "smoke.toml").write_text("queries = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    real = list(entry_points(group=INSTRUMENTS))
    yes = EntryPoint("yes", "yes_shipping:INSTRUMENT", INSTRUMENTS)
    installed.cache_clear()
    monkeypatch.setattr(
        "knowsum.instrument._registry.entry_points",
        lambda group: [*real, yes] if group == INSTRUMENTS else list(entry_points(group=group)),
    )
    yield "yes"
    installed.cache_clear()
    sys.modules.pop("yes_shipping", None)


def test_the_builtins_ship_their_own_tables() -> None:
    for name in ("smoke", "quick", "paper"):
        budget = load_budget(name)
        assert list(budget.tables) == ["census", "recall", "genebench"]
        for inst_name, inst in instruments().items():
            assert inst.budget_table(name) is not None, (inst_name, name)
    smoke = load_budget("smoke")
    assert smoke.part("census").queries == {"diseases": 3, "theorems": 3}  # census/budgets/smoke.toml
    assert smoke.part("genebench").per_type == 1


def test_a_plugin_that_ships_a_table_joins_the_budget(shipping_plugin: str) -> None:
    smoke = load_budget("smoke")
    assert list(smoke.tables)[-1] == shipping_plugin
    assert smoke.part(shipping_plugin).queries == 2
    assert shipping_plugin not in load_budget("quick").tables  # ships no quick table: left out


def test_a_plugin_number_written_as_text_is_refused(shipping_plugin: str, tmp_path: Path) -> None:
    """A plug-in's lax ``Budget`` would read ``queries = "3"`` as 3: the plan is refused instead,
    naming the file, the table and the key (the built-ins' tables are strict by themselves)."""
    plan = tmp_path / "mine.toml"
    plan.write_text(f'[{shipping_plugin}]\nqueries = "3"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_budget(plan=plan)
    assert str(err.value) == (
        f"{plan}: invalid {shipping_plugin}.queries='3': a number or true/false is written without quotes "
        "in TOML (queries = 3)"
    )
    plan.write_text(f"[{shipping_plugin}]\nqueries = 3\n", encoding="utf-8")
    assert load_budget(plan=plan).part(shipping_plugin).queries == 3
