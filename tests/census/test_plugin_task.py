"""A census task from another package (examples/plugin, installed by ``make install``): listed with
its package, run by name, used in a profile plan, and nothing under src/ knows it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from knowsum.census import CensusConfig, plugin_tasks, resolve_task, run_census
from knowsum.cli import main
from knowsum.errors import UnknownNameError
from knowsum.models import MockBackend, ResponseStore

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin"
HINT = (
    "the example plug-in is not installed in this venv: run `make install` (pip install -e examples/plugin)"
)


def _needs_plugin() -> None:
    assert "elements" in plugin_tasks(), HINT


def test_census_tasks_lists_the_plugin_with_its_package(capsys: pytest.CaptureFixture[str]) -> None:
    _needs_plugin()
    assert main(["census", "tasks", "--json"]) == 0
    tasks = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tasks"]}
    assert tasks["elements"]["package"] == "knowsum-elements" and tasks["elements"]["version"] == "0.1.0"
    assert tasks["diseases"]["package"] == "knowsum"
    assert main(["census", "tasks"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("elements"))
    assert "knowsum-elements" in line and "periodic table" in line


def test_the_plugin_task_verifies_and_clusters_on_its_own_vocabulary(tmp_path: Path) -> None:
    _needs_plugin()
    reply = "Hydrogen\nhelium\nAluminium\nGold\nUnobtainium\nFe"  # Fe: the symbol; Unobtainium: invented
    with ResponseStore(tmp_path / "s.sqlite") as store:
        run = run_census(
            CensusConfig(task="elements", queries=3, n_bootstrap=20),
            MockBackend(lambda r: reply),
            store=store,
            out=tmp_path / "out",
            progress=False,
        )
    r = run.record
    assert r.n_seen == 5  # H, He, Al, Au, Fe; each in all three replies
    assert r.kb_releases == {"elements": "periodictable 2.1.0"}
    task = resolve_task(CensusConfig(task="elements", answers=7))
    assert task.answers == 7 and "List 7 chemical elements" in task.prompt and task.max_tokens == 48 + 7 * 6


def test_an_unknown_task_lists_the_installed_plugins_too() -> None:
    _needs_plugin()
    with pytest.raises(UnknownNameError) as err:
        resolve_task(CensusConfig(task="elemnts"))
    assert "elements" in str(err.value) and "diseases" in str(err.value)


def _knowsum_imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    return [n for n in names if n.split(".")[0] == "knowsum"]


def test_the_plugin_uses_the_public_api_only_and_src_does_not_know_it() -> None:
    sources = sorted((PLUGIN / "src").rglob("*.py"))
    assert sources
    used = [n for p in sources for n in _knowsum_imports(p)]
    assert "knowsum.census.CensusTask" in used
    assert not [n for n in used if any(part.startswith("_") for part in n.split(".")[1:])], used
    mentions = [
        f"{p.relative_to(ROOT)}"
        for p in sorted((ROOT / "src").rglob("*"))
        if p.is_file()
        and "__pycache__" not in p.parts
        and any(
            w in p.read_text(encoding="utf-8", errors="replace")
            for w in ("knowsum_elements", "periodictable")
        )
    ]
    assert mentions == [], "src/ must not know the plug-in"
    assert "knowsum-elements" not in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.realmodel
def test_a_profile_runs_the_plugin_task_on_the_test_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs_plugin()
    plan, store, out = PLUGIN / "elements.toml", tmp_path / "s.sqlite", tmp_path / "out"
    model = ["-m", "smollm2-135m-instruct", "--plan", str(plan), "--store", str(store)]
    assert main(["profile", "plan", *model, "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["instruments"]["census"]["requests"] == 4
    assert main(["profile", "run", *model, "--out", str(out)]) == 0
    data = json.loads((out / "profile.json").read_text(encoding="utf-8"))
    census = data["instruments"]["census"]
    assert set(census["runs"]) == {"census-elements-relaxed"}
    keys = {m["key"]: m for m in census["measures"]}
    assert {"census/elements/relaxed/n_seen", "census/elements/relaxed/n_total"} <= set(keys)
    assert keys["census/elements/relaxed/n_seen"]["value"] >= 1  # the model names at least one element
    assert data["usage"]["asked"] == planned["requests"] == 4
    with ResponseStore(store, read_only=True) as s:
        assert s.count() == 4
