"""The documentation pages stay true by test: every command block of every page under ``docs/`` is run
and its output compared, as the README's are (:mod:`tests._examples` says how blocks are run, compared
and marked; a block that cannot run here says why in its marker).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._examples import ROOT, Block, blocks, check_marks, param, run_block, runnable, work_folder


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
