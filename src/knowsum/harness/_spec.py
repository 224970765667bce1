"""The instruments as an evaluation harness sees them: a configuration, its requests, a run.

One table (:data:`INSTRUMENTS`) says, per instrument, which configuration its task arguments
validate into, how the arguments a harness passes map onto it, and which of knowsum's entry points
build its requests and run it. A harness task (:mod:`knowsum.harness.tasks`) and a log read back
(:mod:`knowsum.harness._logs`) go through these functions only: the requests are the instrument's
own (what ``knowsum profile plan`` counts, :func:`knowsum.profile.step_requests`), and the run is
the instrument's own entry point on the harness's answers (:class:`~knowsum.harness.ReplayBackend`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from knowsum._util import config_error
from knowsum.census import CensusConfig, prepare_census, run_census
from knowsum.errors import ConfigError, UnknownNameError
from knowsum.genebench import GenebenchConfig, run_genebench
from knowsum.kb import load_ontology
from knowsum.models import Backend, Request, ResponseStore
from knowsum.profile import Step, step_requests
from knowsum.recall import RecallConfig, run_recall
from knowsum.records import Record, Run

__all__ = ["INSTRUMENTS", "Harnessed", "check", "make_config", "requests_of", "run_instrument"]

Runner = Callable[..., Run[Any]]


@dataclass(frozen=True, slots=True)
class Harnessed:
    """One instrument as a harness task.

    Attributes:
        name: The instrument (``census``, ``recall``, ``genebench``): the task is ``knowsum/<name>``.
        config: Its configuration model; the task arguments are its fields.
        runner: Its entry point (``run_census`` …): ``runner(config, backend, store=, out=, …)``.
    """

    name: str
    config: type[BaseModel]
    runner: Runner


INSTRUMENTS: dict[str, Harnessed] = {
    "census": Harnessed("census", CensusConfig, run_census),
    "recall": Harnessed("recall", RecallConfig, run_recall),
    "genebench": Harnessed("genebench", GenebenchConfig, run_genebench),
}
"""The instruments a harness can run, by name (an explicit table, never ``getattr``)."""


def _harnessed(instrument: str) -> Harnessed:
    if instrument not in INSTRUMENTS:
        raise UnknownNameError("instrument", instrument, list(INSTRUMENTS))
    return INSTRUMENTS[instrument]


def make_config(instrument: str, args: Mapping[str, Any]) -> BaseModel:
    """The validated configuration of ``instrument`` from a harness's task arguments.

    Arguments left ``None`` take the instrument's defaults. Recall's ``per_bucket`` without a
    ``select`` means ``select="stratified"``, as ``knowsum recall run --per-bucket`` does.

    Raises:
        UnknownNameError: an unknown instrument.
        ConfigError: an invalid or unsupported argument (one line naming it and what to give).
    """
    spec = _harnessed(instrument)
    given = {k: v for k, v in args.items() if v is not None}
    if instrument == "recall" and "per_bucket" in given and "select" not in given:
        given["select"] = "stratified"
    try:
        config = spec.config.model_validate(given)
    except ValidationError as exc:
        raise config_error(exc, f"knowsum/{instrument}") from None
    if isinstance(config, RecallConfig) and config.api != "chat":
        raise ConfigError(
            "knowsum/recall: api='completions' needs the raw completions endpoint, which a harness "
            "task does not use; leave api unset (chat) or run `knowsum recall run --api completions`"
        )
    return config


def check(instrument: str, config: BaseModel) -> None:
    """Fail now, before any model is asked, on what would fail the run: an unknown census task, a
    knowledge base that is not installed (the message gives the install command).

    Raises:
        UnknownNameError, ConfigError, KBNotInstalledError.
    """
    if isinstance(config, CensusConfig):
        prepare_census(config)
    elif isinstance(config, RecallConfig):
        load_ontology(config.kb)


def requests_of(instrument: str, config: BaseModel) -> list[Request]:
    """The requests ``instrument``'s run on ``config`` sends, exactly as its entry point builds them.

    Raises:
        KBNotInstalledError: the knowledge base the requests come from is not installed.
    """
    _harnessed(instrument)
    step = Step(instrument, instrument, config, instrument)  # type: ignore[arg-type]
    return step_requests(step)


def run_instrument(
    instrument: str,
    config: BaseModel,
    backend: Backend,
    *,
    store: ResponseStore,
    out: Path | None,
    overwrite: bool = False,
) -> Run[Record]:
    """Run ``instrument`` on ``backend`` and write its run directory (the instrument's entry point).

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set. BackendError: requests
        the backend could not answer. What the instrument's entry point raises.
    """
    spec = _harnessed(instrument)
    return spec.runner(config, backend, store=store, out=out, progress=False, overwrite=overwrite)
