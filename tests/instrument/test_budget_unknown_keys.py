"""A plug-in's budget table refuses a key its ``Budget`` has no field for (``countrys = 3``), as the
census and recall tables do, whatever the plug-in's pydantic ``extra`` setting: one line naming the
file, the table and the key; a field's alias is a key too."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowsum.cli import main
from knowsum.errors import ConfigError
from knowsum.instrument import Instrument, KBs, Measure, Step
from knowsum.models import Request
from knowsum.profile import load_budget
from tests.instrument._registered import yes_plug_in
from tests.instrument._yes import INSTRUMENT as YES
from tests.instrument._yes import YesConfig, YesRecord

__all__ = ["yes_plug_in"]


@pytest.mark.parametrize("extra", ["ignore", "allow", "forbid"])
def test_an_unknown_key_is_refused_whatever_extra_says(extra: Literal["ignore", "allow", "forbid"]) -> None:
    class Table(BaseModel):
        model_config = ConfigDict(extra=extra)
        countries: int = 20
        seed: int = Field(0, alias="random_seed")

    class Capitals(Instrument[YesConfig, YesRecord]):
        name = "capitals"
        Budget = Table

        def requests(self, config: YesConfig, kbs: KBs) -> list[Request]:
            return []

        def measures(self, record: YesRecord, run: str) -> list[Measure]:
            return []

        def steps(self, table: BaseModel) -> list[Step]:
            return []

    with pytest.raises(ValidationError, match=r"not a key of \[capitals\]; its keys: countries, seed") as err:
        Capitals().read_budget({"countrys": 3}, None)
    assert [e["loc"] for e in err.value.errors()] == [("countrys",)]
    assert Capitals().read_budget({"countries": 3, "random_seed": 1}, None) == Table(
        countries=3, random_seed=1
    )


def test_a_plan_with_a_misspelt_key_is_one_line_naming_file_table_and_key(
    yes_plug_in: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text("[yes]\nquerys = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"{plan}: invalid yes\.querys=3: not a key of \[yes\]; its keys"):
        load_budget(plan=plan)
    assert main(["run", "yes", "-m", "mock", "--plan", str(plan), "--store", str(tmp_path / "s.sqlite")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"knowsum: error: {plan}: invalid yes.querys=3: not a key of [yes]; its keys: question, queries"
    ]
    assert YES.read_budget({"queries": 3}, None).queries == 3  # type: ignore[attr-defined]
