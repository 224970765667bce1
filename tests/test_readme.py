"""The README stays true by test: every command block of its quick tour is run and its output compared.

A *command block* is a fenced code block of the "A quick tour" section whose first line starts with
``$ ``; how blocks are run, compared and marked (``<!-- readme: not run (REASON) -->``,
``needs model NAME``, ``needs kb NAME[,NAME…]``) is :mod:`tests._examples`, shared with the test of the
documentation pages (``tests/test_docs_examples.py``). So a README figure that changes makes this test
fail until the README is updated.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._examples import ROOT, Block, blocks, check_marks, param, pattern, run_block, runnable, work_folder

README = ROOT / "README.md"
BLOCKS = blocks(README, "## A quick tour")
RUN = runnable(BLOCKS)


def test_the_tour_has_command_blocks_and_every_mark_is_known() -> None:
    # the front door keeps a short tour; the long one is docs/tour.md (tests/test_docs_examples.py)
    assert len(BLOCKS) >= 4 and len(RUN) >= 4
    check_marks(BLOCKS)


def test_the_matcher_allows_only_the_marked_parts() -> None:
    shown = ("  total         N̂_tot               41.0   [16.2, 184.8]", "…", "report: …/report.html")
    good = "  total         N̂_tot               41.0   [16.2, 184.8]\nx\ny\nreport: runs/a/report.html\n"
    assert pattern(shown).fullmatch(good)
    assert not pattern(shown).fullmatch(good.replace("184.8", "184.9"))  # a figure that changed
    assert not pattern(shown).fullmatch("extra first line\n" + good)  # only a marked part may vary


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return work_folder(tmp_path_factory.mktemp("readme"))


@pytest.mark.parametrize("block", [param(b) for b in RUN])
def test_a_tour_block_prints_what_the_readme_shows(block: Block, work: tuple[Path, dict[str, str]]) -> None:
    run_block(block, *work)
