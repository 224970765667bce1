"""One message style for file errors: every command that reads a file it was given, fed a missing, an
empty, a binary and a non-UTF-8 file, answers with one line on stderr — ``knowsum: error:``, the file
named, what is wrong — and a non-zero exit code, never Python's own words (``[Errno 2]``,
``IndexError(…)``, ``'utf-8' codec can't decode …``).

Cases whose reader belongs to another package and still words a case badly are marked
``xfail(strict=True)`` with what is wrong, so fixing that reader turns them into failures to unmark.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.genebench import write_questions
from knowsum.kb import install
from tests.genebench._mixture import QUESTIONS, write_predictions

RECALL_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"

KINDS = ("missing", "empty", "binary", "non-utf8")
PYTHON_WORDS = ("[Errno", "Error(", "codec", "Traceback", "can't decode", "position ")


def _bad_file(folder: Path, kind: str) -> Path:
    path = folder / f"{kind}.input"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "binary":  # e.g. a gzipped file given as is
        path.write_bytes(gzip.compress(b'{"id": "GO:0008150", "prediction": "GO:0008150"}\n'))
    elif kind == "non-utf8":  # text saved as Latin-1
        path.write_bytes('{"id": "café", "prediction": "naïve"}\nnaïve\tcafé\n'.encode("latin-1"))
    return path


def _questions(folder: Path) -> Path:
    path = folder / "questions.jsonl"
    write_questions(path, QUESTIONS)
    return path


Args = Callable[[Path, Path], list[str]]
"""(bad file, work folder) → the command line."""

COMMANDS: dict[str, Args] = {
    "estimate": lambda f, d: ["estimate", str(f)],
    "census score ITEMS": lambda f, d: ["census", "score", str(f), "--out", str(d / "run")],
    "census run --config": lambda f, d: ["census", "run", "--config", str(f), "-m", "mock"],
    "recall score --predictions": lambda f, d: [
        "recall",
        "score",
        "--kb",
        "go",
        "--predictions",
        str(f),
        "--out",
        str(d / "run"),
    ],
    "genebench score --questions": lambda f, d: [
        "genebench",
        "score",
        "--questions",
        str(f),
        "--predictions",
        str(write_predictions(d / "preds.jsonl")),
        "--out",
        str(d / "run"),
    ],
    "genebench score --predictions": lambda f, d: [
        "genebench",
        "score",
        "--questions",
        str(_questions(d)),
        "--predictions",
        str(f),
        "--out",
        str(d / "run"),
    ],
    "batch import": lambda f, d: ["batch", "import", str(f), "--store", str(d / "s.sqlite")],
    **{
        f"{name} score --inspect-log": (
            lambda f, d, name=name: [name, "score", "--inspect-log", str(f), "--out", str(d / "run")]
        )
        for name in ("census", "recall", "genebench")
    },
    "kb install --from": lambda f, d: ["kb", "install", "go", "--from", str(f)],
}

_CODEC = "prints Python's codec error ('utf-8' codec can't decode byte … in position …)"
NOT_OURS = {}
"""Readers owned elsewhere (census, kb) that still word a case badly: what is wrong with each."""


def _cases() -> list[object]:
    out: list[object] = []
    for name in COMMANDS:
        for kind in KINDS:
            why = NOT_OURS.get((name, kind))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            out.append(pytest.param(name, kind, marks=marks, id=f"{name}-{kind}"))
    return out


@pytest.fixture
def work(tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A work folder (the current directory) in an isolated home with a tiny GO installed."""
    install(["go"], from_files=[RECALL_FIX / "mini_go.obo"])
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.mark.parametrize(("command", "kind"), _cases())
def test_a_bad_file_is_one_line_naming_it(
    work: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str
) -> None:
    bad = _bad_file(work, kind)
    args = COMMANDS[command](bad, work)
    capsys.readouterr()
    code = main(args)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code != 0, err
    assert len(lines) == 1, err
    assert lines[0].startswith("knowsum: error: "), err
    assert bad.name in lines[0], err
    assert not any(word in lines[0] for word in PYTHON_WORDS), err
    assert not (work / "run").exists()  # nothing written


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("missing", "no such file; check the path"),
        ("binary", "not a text file (binary data"),
        ("non-utf8", "not UTF-8 text (invalid continuation byte at byte 11); re-save it as UTF-8"),
    ],
)
@pytest.mark.parametrize(
    "command", ["recall score --predictions", "genebench score --predictions", "batch import"]
)
def test_the_same_words_as_estimate(
    work: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str, words: str
) -> None:
    """The readers knowsum owns here word a missing, binary or non-UTF-8 file as ``estimate`` does."""
    bad = _bad_file(work, kind)
    assert main(COMMANDS[command](bad, work)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"knowsum: error: {bad}: ") and words in err


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        (
            "release.txt",
            "GO:0008150;biological_process;5;abc;GO:0008150\n",
            "release.txt:1: release format: field n_web_occurrences 'abc' (column 4) is not a number: the "
            "popularity must be a number >= 0; correct it, or leave it empty",
        ),
        (
            "release.txt",
            "GO:0008150;biological_process;5;-5;GO:0008150\n",
            "release.txt:1: release format: field n_web_occurrences '-5' (column 4) is negative: the "
            "popularity must be a number >= 0",
        ),
        (
            "rows.csv",
            "id,prediction,popularity\nGO:0008150,GO:0008150,-5\n",
            "rows.csv:2: csv format: field popularity '-5' is negative",
        ),
        (
            "rows.jsonl",
            '{"id": "GO:0008150", "prediction": "GO:0008150", "popularity": "abc"}\n',
            "rows.jsonl:1: jsonl format: field popularity 'abc' is not a number",
        ),
    ],
)
def test_a_bad_popularity_names_the_field_and_the_value(
    work: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, words: str
) -> None:
    """A popularity of ``abc`` or ``-5`` names the field, its value and the fix (was: the line only)."""
    path = work / name
    path.write_text(content, encoding="utf-8")
    assert main(COMMANDS["recall score --predictions"](path, work)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"knowsum: error: {work / words}" in err


@pytest.mark.parametrize("command", [c for c in COMMANDS if "--inspect-log" not in c])  # a log: zip or JSON
def test_a_non_utf8_file_names_the_line_of_its_first_bad_byte(
    work: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Every reader of a user's file, streamed (OBO) or read whole, names the first bad byte and its
    line (one sentence, ``knowsum._util.not_utf8``): a Latin-1 ``ï`` at byte 51, on line 2."""
    bad = work / "later.input"
    bad.write_bytes('{"id": "GO:0008150", "prediction": "GO:0008150"}\nnaïve\tcafé\n'.encode("latin-1"))
    assert main(COMMANDS[command](bad, work)) != 0
    err = capsys.readouterr().err
    assert "not UTF-8 text (invalid continuation byte at byte 51); " in err
    assert "(byte 51 is on line 2)" in err
