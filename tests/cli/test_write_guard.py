"""The one write guard, enumerated over the whole command tree.

Every parameter of every command that names a file or folder is classified as an input or an output
(``knowsum.cliutil.outputs``); a new path parameter in neither table fails here. Every output option of
every command is then pointed at each of the command's own inputs, at the folder holding them, and at
a response store: each is refused with one line and a non-zero exit, and not one byte under the test
folder changes (the store, the prompts, the run folders: hashed before and after). The guard runs
before the command's body, so no model, store or knowledge base is opened: the mock is named only so
the commands parse as they would run. Every output option is also pointed inside another run's folder
(a finished run, and a folder claimed by a run that has not written its record yet, at depth): each
is refused in one line naming that run, and every file of it is byte-identical afterwards.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import time
from pathlib import Path

import click
import pytest

from knowsum._util import storelock
from knowsum.cli import main
from knowsum.cliutil.outputs import INPUT_OPTIONS, OUTPUT_OPTIONS, option_name, output_kind
from tests._cli_tree import leaf_commands

COMMANDS = leaf_commands()


def _path_like(param: click.Parameter) -> bool:
    """Whether ``param`` names a file or folder: by type, metavar or name."""
    if isinstance(param.type, click.Path) or param.type.name == "file":
        return True
    metavar = (getattr(param, "metavar", None) or "").upper()
    if "FILE" in metavar or "DIR" in metavar:
        return True
    name = option_name(param)
    return name.endswith(("_path", "_file", "_files", "_dir", "_dirs")) or name in ("out", "output", "plot")


def test_every_path_parameter_is_classified_as_input_or_output() -> None:
    """A new option that names a file or folder must be added to OUTPUT_OPTIONS (and so pass the
    guard) or to INPUT_OPTIONS (and so be protected by it)."""
    unknown = [
        f"{' '.join(path)} {param.name}"
        for path, command in COMMANDS
        for param in command.params
        if _path_like(param) and option_name(param) not in {**OUTPUT_OPTIONS, **INPUT_OPTIONS}
    ]
    assert unknown == [], f"classify these in knowsum.cliutil.outputs: {unknown}"
    used = {option_name(p) for _, command in COMMANDS for p in command.params}
    assert set(OUTPUT_OPTIONS) | set(INPUT_OPTIONS) <= used  # no stale entry in either table


# Each command with an output: the arguments it needs to parse, its inputs written as {name}
BASE: dict[tuple[str, ...], list[str]] = {
    ("store", "export"): ["--store", "{store}"],
    ("batch", "export"): ["-m", "openai:x", "--prompts", "{prompts}", "--store", "{store}"],
    ("census", "run"): ["diseases", "-m", "mock", "--queries", "2", "--store", "{store}"],
    ("census", "score"): ["{items}"],
    ("census", "sweep"): ["diseases", "-m", "mock", "--queries", "2", "--store", "{store}"],
    ("census", "compare"): ["{run}", "{run2}/result.json"],
    ("census", "backtest"): ["{run}"],
    ("estimate",): ["{observations}", "--curve"],
    ("genebench", "build"): ["--expression", "{expression}"],
    ("genebench", "run"): ["{questions}", "-m", "mock", "--store", "{store}"],
    ("genebench", "score"): ["--questions", "{questions}", "--predictions", "{predictions}"],
    ("genebench", "compare"): ["{run}"],
    ("profile", "run"): ["-m", "mock", "--plan", "{plan}", "--store", "{store}"],
    ("profile", "compare"): ["{run}"],
    ("profile", "page"): ["{run}", "{run2}"],
    ("recall", "run"): ["go", "-m", "mock", "--store", "{store}"],
    ("recall", "score"): ["--kb", "go", "--predictions", "{predictions}"],
    ("run",): ["census", "-m", "mock", "--plan", "{plan}", "--store", "{store}"],
    ("score",): ["census", "--inspect-log", "{log}"],
}

INPUT_FILES = {
    "prompts": "Name a disease.\n",
    "items": '{"query": "Q1", "items": ["Asthma"]}\n',
    "observations": "a\t3\nb\t1\n",
    "expression": "TP53\tenriched\tliver\n",
    "questions": '{"id": "q1"}\n',
    "predictions": '{"id": "GO:0008150", "prediction": "GO:0008150"}\n',
    "plan": '[census]\ntasks = ["diseases"]\nqueries = 2\n',
    "log": "{}\n",
}


@pytest.fixture
def world(tmp_home: Path, tmp_path: Path) -> dict[str, Path]:
    """The inputs: a response store with one response, input files, two run folders."""
    folder = tmp_path / "in"
    folder.mkdir()
    made = {"folder": folder, "store": folder / "store.sqlite"}
    assert main(["ask", "-m", "mock", "hello", "--store", str(made["store"])]) == 0
    for name, text in INPUT_FILES.items():
        made[name] = folder / f"{name}.txt"
        made[name].write_text(text, encoding="utf-8")
    for name in ("run", "run2"):
        made[name] = folder / name
        made[name].mkdir()
        (made[name] / "result.json").write_text('{"kind": "census"}\n')
        (made[name] / "report.html").write_text("<!DOCTYPE html>\n")
    other = tmp_path / "other"
    (other / "plots").mkdir(parents=True)
    (other / "result.json").write_text('{"kind": "census"}\n')
    (other / "report.html").write_text("<!DOCTYPE html>\n")
    (other / "items.jsonl").write_text('{"query": "q", "items": ["a"]}\n')
    (other / "plots" / "curve.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    claimed = tmp_path / "claimed"
    (claimed / "sub").mkdir(parents=True)
    (claimed / ".knowsum-run.json").write_text('{"model": "m"}\n')
    made.update(other=other, claimed=claimed)
    return made


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


INSIDE: dict[str, list[str]] = {
    "run": ["{other}/sub", "{other}/plots", "{claimed}/sub/run"],
    "html": ["{other}/report.html", "{other}/new.html", "{claimed}/sub/page.html"],
    "png": ["{other}/plots/curve.png", "{other}/plots/new.png"],
    "jsonl": ["{other}/items.jsonl", "{other}/new.jsonl", "{claimed}/x.jsonl"],
}
"""Per output kind: paths inside another run's folder (a matching file of the run, a new one, deeper)."""


def _cases() -> list[tuple[tuple[str, ...], str, str]]:
    """(command, output option, target) for every output option of every command and every target:
    each input the command's base line names, the folder holding them, a response store, and paths
    inside another run's folder (:data:`INSIDE`)."""
    cases = []
    for path, command in COMMANDS:
        for param in command.params:
            if output_kind(param) is None or getattr(param, "hidden", False):
                continue
            base = BASE.get(path)
            assert base is not None, f"add a base command line for `knowsum {' '.join(path)}` to BASE"
            targets = [arg for arg in base if "{" in arg] + ["{folder}", "{store}"]
            option = max(param.opts, key=len)
            cases += [
                (path, option, t) for t in dict.fromkeys([*targets, *INSIDE[output_kind(param) or "run"]])
            ]
    return cases


@pytest.mark.parametrize(("command", "option", "target"), _cases(), ids=lambda v: str(v).replace(" ", ""))
def test_every_output_over_an_input_a_store_or_into_another_run_is_refused(
    world: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    command: tuple[str, ...],
    option: str,
    target: str,
) -> None:
    """Over an input or a store; or inside another run's folder: `store export -o OTHER/items.jsonl`,
    `--html C/report.html`, `--plot C/plots/curve.png`, `census backtest A --out B/backtest` each once
    replaced another run's file."""
    fill = {name: str(path) for name, path in world.items()}
    given = target.format(**fill)
    args = [*command, *(a.format(**fill) for a in BASE[command]), option, given]
    before = _hashes(world["folder"].parent)
    capsys.readouterr()
    code = main(args)
    err = capsys.readouterr().err
    assert _hashes(world["folder"].parent) == before  # not one byte written, nothing created
    assert code != 0, args
    assert err.count("\n") == 1 and err.startswith("knowsum: error: ") and option in err, err
    if "{other}" in target or "{claimed}" in target:
        run = world["claimed" if "{claimed}" in target else "other"]
        assert code == 2 and f"{option} {given} is inside the run folder {run}" in err, err
    else:  # refused by the guard, or (a folder given for a file, a file for a folder) by click's path type
        assert given in err


def test_the_default_store_is_an_input_too(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --store the command reads the knowsum home's store: no output may replace it."""
    home = Path(os.environ["KNOWSUM_HOME"])
    assert main(["ask", "-m", "mock", "hi"]) == 0
    store = home / "store.sqlite"
    before = store.read_bytes()
    capsys.readouterr()
    assert main(["store", "export", "-o", str(store)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"is this command's response store ({store})" in err
    assert store.read_bytes() == before


def test_a_hard_or_symbolic_link_to_an_input_is_the_input(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Compared by inode and resolved path: a prompts file whose lines look like JSON, reached through
    a hard link or a symbolic link named .jsonl, is still the prompts file."""
    prompts = world["folder"] / "json-prompts.txt"
    prompts.write_text('{"a": 1}\n')
    hard, soft = world["folder"] / "hard.jsonl", world["folder"] / "soft.jsonl"
    os.link(prompts, hard)
    soft.symlink_to(prompts)
    base = ["batch", "export", "-m", "openai:x", "--prompts", str(prompts), "--store", str(world["store"])]
    for link in (hard, soft):
        assert main([*base, "-o", str(link)]) == 2
        err = capsys.readouterr().err
        assert f"-o/--output {link} is this command's prompts file ({prompts})" in err
    assert prompts.read_text() == '{"a": 1}\n'


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--curve", "--plot", "{folder}"], "--plot {folder} is a folder: give a file path"),
        (["--curve", "--plot", "{folder}/missing/x.png"], "its folder {folder}/missing does not exist"),
        (["--curve", "--plot", "{prompts}"], "exists and is not a PNG image knowsum writes"),
    ],
)
def test_a_file_output_is_a_file_in_an_existing_folder(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """A folder where a file is expected is one line (was: IsADirectoryError); a file in a folder
    that does not exist is refused, the folder not created; a file of another kind is not replaced."""
    fill = {name: str(path) for name, path in world.items()}
    before = _hashes(world["folder"])
    assert main(["estimate", str(world["observations"]), *(a.format(**fill) for a in args)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message.format(**fill) in err
    assert not (world["folder"] / "missing").exists() and _hashes(world["folder"]) == before


def test_an_output_folder_that_cannot_be_written_is_found_before_the_model_is_asked(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only --out is refused before anything is sampled: no store is even created (root
    ignores permission bits, so the folder is made read-only for os.access)."""
    locked = world["folder"] / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != locked and real(p, mode))
    store = world["folder"] / "new.sqlite"
    args = ["census", "run", "diseases", "-m", "mock", "--queries", "2", "--store", str(store)]
    assert main([*args, "--out", str(locked / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--out {locked / 'run'}: {locked} cannot be written" in err
    assert not store.exists() and not (locked / "run").exists()


def test_a_config_files_out_is_guarded_too(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A census config may name its run folder and store: the same guard (the folder holding the
    store and the config is not a run folder)."""
    config = world["folder"] / "census.toml"
    config.write_text('task = "diseases"\nmodel = "mock"\nqueries = 2\nstore = "store.sqlite"\nout = "."\n')
    before = _hashes(world["folder"])
    assert main(["census", "run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "out (from --config)" in err and "holds this command's" in err
    assert _hashes(world["folder"]) == before


def test_a_second_run_on_a_store_being_sampled_is_refused(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a run samples into a store (its lock held: here by the test), another run on that store is
    refused in one line naming the holder, before it asks anything; reading commands are not held up."""
    store = world["store"]
    lock = os.open(store.with_name(store.name + ".lock"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        os.pwrite(lock, b"4242\n", 0)
        before = _hashes(world["folder"])
        out = world["folder"].parent / "out"
        args = ["census", "run", "diseases", "-m", "mock", "--queries", "2", "--store", str(store)]
        assert main([*args, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert (
            err.count("\n") == 1
            and f"another knowsum run (process 4242) is sampling into the store {store}" in err
        )
        assert _hashes(world["folder"]) == before and not out.exists()
        assert main(["store", "info", "--store", str(store)]) == 0  # a reader is not held up
    finally:
        os.close(lock)
    # with $KNOWSUM_STORE_WAIT a run waits for the holder, then samples (the holder here is gone)
    lock = os.open(store.with_name(store.name + ".lock"), os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)
    asked = threading.Event()
    take = storelock._take

    def spy(fd: int, wait: float) -> bool:
        asked.set()  # the run asks for the lock while the test still holds it
        return take(fd, wait)

    def holder_finishes() -> None:
        asked.wait(600)
        time.sleep(0.5)
        os.close(lock)

    monkeypatch.setattr(storelock, "_take", spy)
    monkeypatch.setenv("KNOWSUM_STORE_WAIT", "60")
    releaser = threading.Thread(target=holder_finishes)
    releaser.start()
    main([*args, "--out", str(out)])  # past the lock, it stops at the KB this test home lacks
    releaser.join()
    assert asked.is_set()  # the run did wait: it asked while the lock was held, and got it on release
    err = capsys.readouterr().err
    assert "another knowsum run" not in err and "knowledge base 'doid' is not installed" in err
    # a run that takes the lock and then fails (an unknown task) releases it
    assert main(["census", "run", "no-such-task", "-m", "mock", "--store", str(store)]) != 0
    free = os.open(store.with_name(store.name + ".lock"), os.O_RDWR)
    try:
        fcntl.flock(free, fcntl.LOCK_EX | fcntl.LOCK_NB)  # would raise BlockingIOError if still held
    finally:
        os.close(free)


def test_the_default_run_folder_is_checked_before_the_model_is_asked_too(
    world: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without --out a run goes to census-runs/… in the current folder: a folder this user cannot
    write is found by the run's claim of its folder (which every instrument makes before it asks the
    model anything), in one line, nothing created."""
    monkeypatch.chdir(world["folder"])
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p).resolve() != world["folder"] and real(p, mode))
    items = ["census", "score", str(world["items"])]
    assert main(items) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run folder census-runs/score-items" in err and "cannot be written" in err
    assert not (world["folder"] / "census-runs").exists()


def test_a_link_a_pipe_or_a_device_is_never_renamed_over(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Outputs are written beside and renamed into place, which replaces a symbolic link or a pipe
    (`-o /dev/stdout` once replaced the /dev/stdout link by a file): refused in one line."""
    export = world["folder"] / "export.jsonl"
    base = ["store", "export", "--store", str(world["store"])]
    assert main([*base, "-o", str(export)]) == 0
    link, pipe = world["folder"] / "link.jsonl", world["folder"] / "pipe.jsonl"
    link.symlink_to(export)
    os.mkfifo(pipe)
    capsys.readouterr()
    for target, message in ((link, "is a symbolic link"), (pipe, "is not a regular file")):
        assert main([*base, "-o", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"-o/--output {target} {message}" in err
    assert link.is_symlink() and pipe.is_fifo()
