"""The documentation pages stay true by test: every command block of every page under ``docs/`` is run
and its output compared, as the README's are (:mod:`tests._examples` says how blocks are run, compared
and marked; a block that cannot run here says why in its marker).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests._examples import (
    KNOWSUM,
    ROOT,
    Block,
    Command,
    blocks,
    check_marks,
    param,
    run_block,
    runnable,
    work_folder,
)


def _same(block: Block) -> tuple[object, ...]:
    """What a block runs and shows, wherever it is."""
    return (block.mark, *((c.argv, c.expected) for c in block.commands))


PAGES = sorted((ROOT / "docs").rglob("*.md"))
BLOCKS = {page: blocks(page) for page in PAGES}
IN_README = {_same(b) for b in blocks(ROOT / "README.md", "## A quick tour")}
RUN = [block for found in BLOCKS.values() for block in runnable(found) if _same(block) not in IN_README]
"""The blocks this test runs: a block the README shows too (the tour's first steps) is run by its test."""


def test_the_pages_have_command_blocks_and_every_mark_is_known() -> None:
    every = [block for found in BLOCKS.values() for block in found]
    # the README's long tour moved to docs/tour.md with its blocks (8 of them, 5 run, before the move)
    tour = BLOCKS[ROOT / "docs" / "tour.md"]
    assert len(tour) >= 8 and len(runnable(tour)) >= 5
    assert len(every) > len(tour)
    check_marks(every)


def test_a_marker_may_name_stored_responses_and_an_exit_code() -> None:
    fixture = "tests/fixtures/census/README.md"  # any file of the repository: the marker checks it exists
    check_marks([Block("page.md:1", f"needs kb doid; responses {fixture}; exit 2", ())])
    for bad in ("responses tests/fixtures/no-such-store.sqlite", "exit two", "store x.sqlite"):
        with pytest.raises(AssertionError):
            check_marks([Block("page.md:1", bad, ())])


def _ask(prompt: str, *expected: str) -> Command:
    return Command("page.md:2", ("knowsum", "ask", "-m", "mock", "-n", "1", prompt), expected)


def test_a_block_on_stored_responses_runs_on_them_and_must_not_ask_the_model(tmp_path: Path) -> None:
    store = tmp_path / "responses.sqlite"  # one stored response of the mock model
    (tmp_path / "work").mkdir()
    folder, env = work_folder(tmp_path / "work")
    subprocess.run(
        [str(KNOWSUM), "ask", "-m", "mock", "-n", "1", "--store", str(store), "Name one disease."],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    mark = f"responses {store}"  # an absolute path stays itself under the repository root
    run_block(Block("page.md:1", mark, (_ask("Name one disease.", "Name one disease. #0"),)), folder, env)
    asked = Block("page.md:1", mark, (_ask("Name one theorem.", "Name one theorem. #0"),))
    with pytest.raises(AssertionError, match="the model was asked"):
        run_block(asked, folder, env)  # printed what the page shows, but the mock was asked for it
    failing = Block("page.md:1", f"{mark}; exit 2", (_ask("Name one disease.", "Name one disease. #0"),))
    with pytest.raises(AssertionError, match="exit 0"):
        run_block(failing, folder, env)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, str]]]:
    """One work folder per page, by page name: a page's blocks run in order in it."""
    return {
        page.relative_to(ROOT).as_posix(): work_folder(tmp_path_factory.mktemp(page.stem)) for page in PAGES
    }


@pytest.mark.parametrize("block", [param(b) for b in RUN])
def test_a_docs_block_prints_what_the_page_shows(
    block: Block, folders: dict[str, tuple[Path, dict[str, str]]]
) -> None:
    run_block(block, *folders[block.where.rpartition(":")[0]])
