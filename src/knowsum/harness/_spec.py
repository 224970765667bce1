"""The instruments as an evaluation harness sees them: a configuration, its requests, a run.

Every instrument comes from knowsum's registry (:func:`knowsum.instrument.get_instrument`: knowsum's own
and any plug-in registered under ``knowsum.instruments``), and the
harness uses only its interface: ``Config`` (what the task arguments validate into), ``requests``
(the samples: exactly what its run sends, what ``knowsum profile plan`` counts) and ``run`` (its own
entry point, here on the harness's answers through a :class:`~knowsum.harness.ReplayBackend`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from knowsum._util import config_error
from knowsum.errors import ConfigError
from knowsum.instrument import KBs, get_instrument
from knowsum.models import Backend, Request, ResponseStore
from knowsum.records import Record, Run

__all__ = ["as_task_args", "make_config", "requests_of", "run_instrument"]


def _takes_bool(annotation: Any) -> bool:
    try:
        TypeAdapter(annotation).validate_python(True, strict=True)
    except (ValidationError, TypeError, ValueError):
        return False
    return True


def as_task_args(message: str, config: type[BaseModel]) -> str:
    """``message`` with each command-line option that is a field of ``config`` (``--popularity``)
    spelled as inspect's task argument (``-T popularity=``)."""

    def spell(match: re.Match[str]) -> str:
        name = match.group(1).replace("-", "_")
        return f"-T {name}=" if name in config.model_fields else match.group(0)

    return re.sub(r"(?<![\w-])--([a-z][a-z0-9-]*)(?: (?=[^\s-]))?", spell, message)


def make_config(instrument: str, args: Mapping[str, Any]) -> BaseModel:
    """The validated configuration of ``instrument`` from a harness's task arguments.

    Arguments left ``None`` take the instrument's defaults. The instrument reads the others
    (``Instrument.task_args``: what one argument implies for another, as the instrument's own
    command-line options do, or its own names for its fields); one that is then not a field of the
    instrument's ``Config`` is refused, whatever the ``Config`` does with extra keys (a plug-in's may
    ignore them: a typo would pass unseen). A configuration on the raw completions endpoint
    (``api="completions"``) is refused: a harness task asks chat models.

    Raises:
        UnknownNameError: an unknown instrument (lists the installed ones).
        ConfigError: an invalid or unknown argument (one line naming it and what to give).
    """
    inst = get_instrument(instrument)
    config_type = inst.Config
    given = {k: v for k, v in args.items() if v is not None}
    known = set(config_type.model_fields) | {
        a
        for f in config_type.model_fields.values()
        for a in (f.alias, f.validation_alias)
        if isinstance(a, str)
    }
    for key, value in given.items():  # inspect reads -T queries=true as True, which pydantic takes as 1
        field = config_type.model_fields.get(key)
        if isinstance(value, bool) and field is not None and not _takes_bool(field.annotation):
            raise ConfigError(
                f"knowsum/{instrument}: -T {key}={str(value).lower()} is a yes/no value, but {key} is not "
                f"a yes/no setting: give -T {key}=VALUE ({field.description or key})"
            )
    given = inst.task_args(given)  # the instrument's own argument names become its fields here
    unknown = sorted(k for k in given if k not in known)
    if unknown:  # a Config that ignores or keeps extra keys would take a typo silently
        fields = list(config_type.model_fields)
        near = difflib.get_close_matches(unknown[0], fields, n=1)
        what = f"did you mean -T {near[0]}=?" if near else f"its arguments are {', '.join(fields)}"
        raise ConfigError(f"knowsum/{instrument}: unknown task argument -T {unknown[0]}=: {what}")
    try:
        config: BaseModel = config_type.model_validate(given)
    except ValidationError as exc:
        raise config_error(exc, f"knowsum/{instrument}") from None
    api = getattr(config, "api", "chat")
    if api != "chat":
        raise ConfigError(
            f"knowsum/{instrument}: api={api!r} needs the raw completions endpoint, which a harness task "
            f"does not use; leave api unset (chat) or run `knowsum {instrument} run`"
        )
    return config


def requests_of(instrument: str, config: BaseModel, kbs: KBs | None = None) -> list[Request]:
    """The requests ``instrument``'s run on ``config`` sends, exactly as its run builds them.

    Raises:
        KBNotInstalledError: a knowledge base the requests need (says the install command).
        ConfigError, UnknownNameError: a setting the instrument refuses (an unknown task…).
    """
    return get_instrument(instrument).requests(config, kbs or KBs())


def run_instrument(
    instrument: str,
    config: BaseModel,
    backend: Backend,
    *,
    store: ResponseStore,
    out: Path | None,
    overwrite: bool = False,
) -> Run[Record]:
    """Run ``instrument`` on ``backend`` and write its run directory (the instrument's ``run``).

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set.
        BackendError: requests the backend could not answer.
        KnowsumError: whatever else the instrument's run raises.
    """
    return get_instrument(instrument).run(
        config, backend, store=store, out=out, progress=False, overwrite=overwrite
    )
