"""docs/plugins.md tells a plug-in's author the whole interface and what registration refuses: its
interface block names every public member of ``knowsum.Instrument``, its table of harness hooks
gives each one's default as the class has it, and the one line it shows for a plug-in without a
``title`` is the line knowsum prints for the page's own package without one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main
from knowsum.instrument import Instrument
from tests.instrument._tutorial import PAGE, installed_tutorial, tutorial_files

TEXT = PAGE.read_text(encoding="utf-8")
BLOCK = re.search(r"^```\nknowsum\.Instrument\[Config, Record\]\n.*?^```$", TEXT, re.S | re.M)
HELPERS = {"points"}
"""Public members the block leaves out: ``points(key)``, the published rows ``measure`` fills in."""


def _section(title: str) -> str:
    found = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^### )", TEXT, re.S | re.M)
    assert found is not None, title
    return found.group(1)


def test_the_interface_block_names_every_public_member_of_instrument() -> None:
    assert BLOCK is not None
    public = {n for n in dir(Instrument) if not n.startswith("_")} | set(Instrument.__annotations__)
    named = set(re.findall(r"[A-Za-z_]\w*", BLOCK.group(0)))
    assert public - HELPERS - named == set()


def test_the_hook_table_gives_each_default_as_the_class_has_it() -> None:
    rows = {
        m["hook"]: m["default"]
        for m in re.finditer(
            r"^\| `(?P<hook>\w+)[^`]*` \| (?P<default>[^|]*) \|",
            _section("Its inspect task: the hooks and their defaults"),
            re.M,
        )
    }
    hooks = ("task_summary", "task_defaults", "task_args", "figures", "caveat_codes", "draws", "reply_items")
    assert set(rows) == set(hooks)

    class Bare(Instrument):  # every hook left at its default
        def requests(self, config: Any, kbs: Any) -> list[Any]:
            return []

        def steps(self, table: Any) -> list[Any]:
            return []

        def measures(self, record: Any, run: str) -> list[Any]:
            return [("card row of", record, "in", run)]

    bare = Bare()
    assert bare.task_summary == "" and rows["task_summary"].startswith('`""`')
    assert bare.task_defaults() == {} and rows["task_defaults"].startswith("`{}`")
    given = {"countries": 3}
    assert bare.task_args(given) is given and rows["task_args"].startswith("`given`, unchanged")
    assert bare.figures("R") == [("card row of", "R", "in", "")] and 'measures(record, "")' in rows["figures"]
    assert bare.caveat_codes == () and rows["caveat_codes"] == "`()`"
    assert bare.draws is None and rows["draws"].startswith("`None`")
    assert bare.reply_items(None) is None and rows["reply_items"].startswith("`None`")


def test_the_registration_line_on_the_page_is_what_knowsum_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = re.search(
        r"^```\n(knowsum: broken plug-in .*)\n```$", _section("Registration: what is checked"), re.M
    )
    assert shown is not None
    files = tutorial_files()
    module = "src/knowsum_capitals/__init__.py"
    title = '    title = "Capitals — does it know the capital of each country?"\n'
    assert files[module].count(title) == 1
    files[module] = files[module].replace(title, "")  # what its author forgot
    monkeypatch.chdir(tmp_path)
    with installed_tutorial(tmp_path / "knowsum-capitals", files):
        assert main(["instruments"]) == 1
        assert shown.group(1) in capsys.readouterr().err.splitlines()
        assert main(["run", "capitals", "-m", "mock"]) == 2
        assert shown.group(1).removeprefix("knowsum: broken ") in capsys.readouterr().err
