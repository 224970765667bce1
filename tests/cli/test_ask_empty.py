"""`knowsum ask` refuses an empty prompt and an empty stop sequence (was: both accepted, and `--stop ''`
stored a success with an empty answer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.errors import ConfigError
from knowsum.models import GenerationParams


@pytest.mark.parametrize("prompt", ["", "   ", "\n\t"])
def test_an_empty_prompt_is_refused(tmp_home: Path, capsys: pytest.CaptureFixture[str], prompt: str) -> None:
    assert main(["ask", "-m", "mock", prompt]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"knowsum: error: empty prompt {prompt!r}: give the question to ask")
    assert not (tmp_home / "store.sqlite").exists()


def test_an_empty_stop_sequence_is_refused(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "-m", "mock", "--stop", "\n", "--stop", "", "Name a disease."]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        "knowsum: error: --stop '': a stop sequence must be non-empty (it would end every answer before "
        "its first token); give the text that ends an answer, or leave --stop out\n"
    )
    assert not (tmp_home / "store.sqlite").exists()


def test_the_library_refuses_an_empty_stop_sequence_too() -> None:
    with pytest.raises(ConfigError, match=r"invalid stop=\['\\n', ''\]: a stop sequence must be a non-empty"):
        GenerationParams(stop=("\n", ""))
    assert GenerationParams(stop=(" ",)).stop == (" ",)
