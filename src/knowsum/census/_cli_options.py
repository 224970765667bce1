"""The census commands' shared pieces: method options, config assembly, the run's output."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import ValidationError

from knowsum._util import config_error
from knowsum.census import RUN_KEYS, CensusConfig, CensusRun, RunSettings, load_config
from knowsum.census.page import summary_data, summary_table
from knowsum.cliutil.common import ModelOptions, apply_options, store_from
from knowsum.cliutil.options import echo_json, finish, n_bootstrap_option, note, seed_option
from knowsum.errors import ConfigError
from knowsum.models import Backend

__all__ = [
    "census_settings",
    "default",
    "estimation_options",
    "explicit",
    "k_value",
    "opened",
    "print_run",
    "run_opened",
    "run_options",
    "setting_option",
]

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")

_K_HELP = "Truncation k: 'auto' (held-out choice among 6, 8, 10) or an integer in [1, 50]."


def default(name: str) -> Any:
    """The :class:`CensusConfig` default of ``name`` (the options show the config's own defaults)."""
    return CensusConfig.model_fields[name].default


def k_value(value: str | None) -> int | str | None:
    """``--k``: ``auto``, an integer, or ``None`` (not given)."""
    if value is None or value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"invalid --k {value!r}: give 'auto' or an integer in [1, 50]") from None


def estimation_options(func: F) -> F:
    """``--t --k --criterion --interval --count --seed --n-bootstrap`` (every census command)."""
    return apply_options(
        func,
        [
            setting_option("--t", float, "Extrapolation factor t (the paper's t)."),
            setting_option("--k", None, _K_HELP),
            setting_option(
                "--criterion", click.Choice(["strict", "relaxed"]), "Verification criterion (paper §4.1)."
            ),
            setting_option(
                "--interval",
                click.Choice(["lognormal", "percentile"]),
                "Interval: lognormal (Chao 1987, never below N_seen) or percentile (re-centred).",
            ),
            setting_option(
                "--count",
                click.Choice(["mention", "incidence"]),
                "Counting unit: every mention (paper App. B.3) or once per response.",
            ),
            seed_option,
            n_bootstrap_option(default("n_bootstrap"), "Bootstrap resamples (0 = no interval)."),
        ],
    )


def setting_option(flag: str, type_: Any, help_text: str, **extra: Any) -> Callable[[F], F]:
    """``flag`` as a census method option whose default is :class:`CensusConfig`'s own (shown)."""
    extra.setdefault("default", default(flag.lstrip("-").replace("-", "_")))
    extra.setdefault("show_default", True)
    return click.option(flag, type=type_, help=help_text, **extra)


def run_options(func: F) -> F:
    """The sampling, stop-rule and diversity options of ``census run``."""
    return apply_options(
        func,
        [
            setting_option(
                "--queries",
                int,
                "N_query: independent queries, 1 to 10,000,000 (the maximum with a stop rule).",
            ),
            setting_option(
                "--answers",
                int,
                "N_ans: answers asked for per query, 1 to 1,000.",
                show_default="by task: 50 diseases, 20 theorems",
            ),
            setting_option("--temperature", float, "Sampling temperature (the paper's: 1)."),
            setting_option("--top-p", float, "Nucleus mass (1 = off)."),
            setting_option("--max-tokens", int, "Token budget per response.", show_default="from --answers"),
            setting_option(
                "--until-new-rate",
                float,
                "Stop once fewer than EPS (> 0) new verified items per further query are predicted.",
                metavar="EPS",
            ),
            setting_option(
                "--until-coverage",
                float,
                "Stop once the sample coverage (Chao & Jost 2012) reaches C, in (0, 1).",
                metavar="C",
            ),
            setting_option(
                "--batch-queries",
                int,
                "Queries per batch with a stop rule.",
                show_default="max(5, queries/10)",
            ),
            setting_option("--quantile", float, "Diversity: q of the pooled 10-NN distances."),
            setting_option(
                "--pool-with",
                click.Path(file_okay=False, path_type=Path),
                "Diversity: another run whose distances are pooled (repeatable).",
                multiple=True,
                show_default=False,
            ),
            setting_option("--prompt", str, "Prompt override ({n} = answers).", show_default=False),
        ],
    )


def explicit(kw: dict[str, Any]) -> dict[str, Any]:
    """The options of ``kw`` given on the command line or in the environment (not defaults)."""
    ctx = click.get_current_context()
    defaults = {p.name: p.default for p in ctx.command.params}
    given = {}
    for name, value in kw.items():
        source = ctx.get_parameter_source(name)
        by_default = source is None or source.name in ("DEFAULT", "DEFAULT_MAP")
        if by_default and (value is None or value == () or value == defaults.get(name)):
            continue
        given[name] = value
    return given


def census_settings(
    task: str | None, config_path: Path | None, kw: dict[str, Any], where: str
) -> tuple[CensusConfig, ModelOptions, RunSettings]:
    """The method settings, the model options and the run settings of a census command.

    Options given on the command line win over a ``--config`` file, which wins over the defaults. A
    TASK and a ``--config`` together are refused (the file names its task, prompt and KB: a merge of
    the two would be neither). ``kw`` holds the values of the model, store, out and method options.
    """
    if task is not None and config_path is not None:
        raise ConfigError(
            f"{where}: give a TASK or a --config that names one, not both "
            f"(TASK {task!r} and --config {config_path})"
        )
    given = explicit(kw)
    if "store_path" in given:
        given["store"] = given.pop("store_path")
    if "k" in given:
        given["k"] = k_value(given["k"])
    if "pool_with" in given:
        given["pool_with"] = tuple(given["pool_with"])
    if task is not None:
        given["task"] = task
    api = given.pop("api", kw.get("api", "chat"))
    if config_path is not None:
        loaded = load_config(config_path, given, given_by=where)
        cfg, run = loaded.config, loaded.run
    else:
        if task is None:
            raise click.UsageError(
                "give a TASK (diseases, theorems, ontology:KB, diversity) or --config FILE"
            )
        try:
            cfg = CensusConfig(**{k: v for k, v in given.items() if k not in RUN_KEYS})
            run = RunSettings(**{k: v for k, v in given.items() if k in RUN_KEYS})
        except ValidationError as exc:
            raise config_error(exc, where) from None
    return cfg, run.options(api), run


@contextmanager
def opened(options: ModelOptions) -> Iterator[Backend]:
    """Open the backend of ``options`` and close it when done."""
    backend = options.open()
    try:
        yield backend
    finally:
        asyncio.run(backend.aclose())


def run_opened(
    run: Callable[..., R], args: tuple[Any, ...], model: ModelOptions, settings: RunSettings, **extra: Any
) -> R:
    """``run(*args, backend, store=…, out=…, echo=…, **extra)`` with the backend of ``model`` and the
    store and run directory of ``settings`` (both closed when it returns); notes go to stderr."""
    with opened(model) as backend, store_from({"store_path": settings.store}) as store:
        return run(*args, backend, store=store, out=settings.out, echo=_to_stderr, **extra)


def _to_stderr(message: str) -> None:
    click.echo(message, err=True)


def print_run(run: CensusRun, *, markdown: bool, as_json: bool) -> None:
    """The notes (stderr), the summary table or JSON object, and last the ``report: PATH`` line."""
    for message in run.record.notes:
        note(message)
    if as_json:
        echo_json({**summary_data(run.record), "out_dir": str(run.out_dir), "report": str(run.report)})
    else:
        click.echo(summary_table(run.record, markdown=markdown))
    finish(run.report, as_json=as_json)
