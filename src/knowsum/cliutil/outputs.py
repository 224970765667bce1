"""Every command's outputs pass the one write guard before the command runs.

Each parameter that names a file or folder is classified here, once: :data:`OUTPUT_OPTIONS` (what it
writes, and as which kind) or :data:`INPUT_OPTIONS` (what it reads, as messages name it).
:func:`guard_tree` wraps every command of the tree so that, before its body runs (before a model is
opened or a store touched), each output it was given goes through :func:`knowsum._util.check_output`
with all of the command's inputs — the response store included, the default one when ``--store`` is
not given; a run given by a file inside it (``RUN/result.json``) is protected as its whole folder.
No output lands inside a run folder the command is not writing: its own ``--out``, or the run a
study of it is added to (``census backtest RUN``: ``RUN/backtest``). A test walks the command tree
and fails on any path parameter classified in neither table.
A command that samples a run into a store holds the store's sampling lock while it runs
(:func:`knowsum._util.sampling_lock`): a second run on the same database file is refused, not run
twice. A run whose store comes from ``--config`` takes the lock itself once it has read the config.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import click

from knowsum._util import OutputKind, check_output, enclosing_run, paths, sampling_lock
from knowsum.errors import ConfigError

__all__ = [
    "INPUT_OPTIONS",
    "OUTPUT_OPTIONS",
    "check_command",
    "guard",
    "guard_tree",
    "option_name",
    "output_kind",
]

OUTPUT_OPTIONS: dict[str, OutputKind] = {
    "out": "run",
    "output": "jsonl",
    "export_batch_file": "jsonl",
    "html_path": "html",
    "figure_path": "png",
    "plot": "png",
}
"""Parameter name → the kind of output it writes (``-o/--output`` writes JSON lines everywhere:
store and batch exports, question files; ``run --export-batch`` a batch export)."""

INPUT_OPTIONS: dict[str, str] = {
    "store_path": "response store",
    "prompts_file": "prompts file",
    "config_path": "config file",
    "plan_file": "plan file",
    "items": "items file",
    "file": "observations file",
    "shared_with": "second observations file",
    "runs": "run",
    "run_a": "run",
    "run_b": "run",
    "run_dir": "run folder",
    "dirs": "profile",
    "pool_with": "pooled run",
    "questions": "question file",
    "questions_path": "question file",
    "predictions_path": "predictions file",
    "path": "predictions file",
    "invariance_files": "invariance file",
    "popularity": "popularity file",
    "results": "batch results file",
    "from_files": "source file",
    "expression": "expression file",
    "summaries": "summaries file",
    "abstracts": "abstracts file",
    "inspect_log": "inspect log",
    "pilot": "pilot run or items file",
}
"""Parameter name → what the command reads there (named when an output would replace it)."""

RUN_INPUTS = frozenset({"run", "run folder", "profile", "pooled run"})
"""The inputs that are run folders: given by a file inside one, the whole folder is the input."""

STUDIED = "run folder"
"""The input run a command with a run-folder output adds its study to (written inside that run)."""

_RENAMED = "_renamed_"


def option_name(param: click.Parameter) -> str:
    """The name a parameter is classified by: a hidden old spelling (``renamed``) counts as the new."""
    name = param.name or ""
    if name.startswith(_RENAMED):
        new = name[len(_RENAMED) :]
        return next((n for n in (*OUTPUT_OPTIONS, *INPUT_OPTIONS) if new.startswith(n + "_")), new)
    return name


def output_kind(param: click.Parameter) -> OutputKind | None:
    """The kind of output ``param`` names, or ``None`` when it names none."""
    return OUTPUT_OPTIONS.get(option_name(param))


def _paths(value: Any) -> Iterator[Path]:
    """The paths in an option's value (a path, a text, a tuple of them, ``METHOD=FILE`` pairs)."""
    if isinstance(value, Path):
        yield value
    elif isinstance(value, str) and value:
        yield Path(value)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _paths(item)


def _spelling(param: click.Parameter) -> str:
    opts = getattr(param, "opts", None) or [param.human_readable_name]
    return "/".join(sorted(opts, key=len))


def guard(
    outputs: Iterable[tuple[str, OutputKind, Any]],
    inputs: Mapping[str, Any],
    studied: Iterable[Path] = (),
) -> None:
    """Check each output ``(option, kind, value)`` against the command's ``inputs`` (what → value),
    values being paths, texts, tuples of them or ``None``; see :func:`check_output`. The run folders
    among the outputs and the ``studied`` runs are the only run folders an output may lie in."""
    read = {label: [p for p in _paths(value) if p.name != "-"] for label, value in inputs.items()}
    for label in RUN_INPUTS & read.keys():
        read[label] += [run for p in read[label] if p.is_file() and (run := enclosing_run(p)) is not None]
    given = [(option, kind, list(_paths(value))) for option, kind, value in outputs]
    owned = [*studied, *(p for _, kind, found in given if kind == "run" for p in found)]
    for option, kind, found in given:
        for path in found:
            check_output(path, kind, read, option=option, owned=owned)


EXCLUSIVE: tuple[tuple[str, str, str], ...] = (
    ("markdown", "as_json", "--markdown prints tables, --json one JSON object: give one"),
    ("no_store", "store_path", "--no-store reads and writes no store, --store names one: give one"),
)
"""Pairs of options (parameter names) that ask for contrary things, refused together by every command
that takes both, rather than one silently winning."""


def check_exclusive(params: Mapping[str, Any]) -> None:
    """Refuse a pair of :data:`EXCLUSIVE` options given together.

    Raises:
        ConfigError: both options of a pair were given.
    """
    for first, second, why in EXCLUSIVE:
        if params.get(first) and params.get(second) is not None and params.get(second) is not False:
            raise ConfigError(why)


def check_command(command: click.Command, params: dict[str, Any]) -> None:
    """Check options that cannot go together (:func:`check_exclusive`), and every output ``command``
    was given against all of its inputs (the default response store when it takes ``--store`` and
    none was given)."""
    check_exclusive(params)
    inputs: dict[str, list[Any]] = {}
    outputs: list[tuple[str, OutputKind, Any]] = []
    for param in command.params:
        name, value = option_name(param), params.get(param.name or "")
        if name == "store_path" and value is None:
            value = paths.store_path()
        if name in INPUT_OPTIONS:
            inputs.setdefault(INPUT_OPTIONS[name], []).append(value)
        elif (kind := output_kind(param)) is not None:
            outputs.append((_spelling(param), kind, value))
    studied = list(_paths(inputs.get(STUDIED))) if any(k == "run" for _, k, _ in outputs) else []
    guard(outputs, inputs, studied)


def _samples_a_run(command: click.Command) -> bool:
    """Whether ``command`` asks a model into a store and writes a run (census, recall, genebench,
    profile runs): such a command holds the store's sampling lock while it runs."""
    names = {option_name(p) for p in command.params}
    return {"model", "store_path"} <= names and any(output_kind(p) == "run" for p in command.params)


def _guarded(command: click.Command, callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)
    def run(*args: Any, **kw: Any) -> Any:
        params = click.get_current_context().params
        check_command(command, params)
        if not _samples_a_run(command) or (params.get("config_path") and not params.get("store_path")):
            return callback(*args, **kw)
        with sampling_lock(Path(params.get("store_path") or paths.store_path())):
            return callback(*args, **kw)

    run.__knowsum_guarded__ = True  # type: ignore[attr-defined]
    return run


def guard_tree(command: click.Command) -> click.Command:
    """Route every output of ``command`` and its sub-commands through the guard (idempotent)."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            guard_tree(sub)
    elif command.callback is not None and not getattr(command.callback, "__knowsum_guarded__", False):
        command.callback = _guarded(command, command.callback)
    return command
