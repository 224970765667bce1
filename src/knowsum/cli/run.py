"""``knowsum run INSTRUMENT`` and ``knowsum score INSTRUMENT``: any registered instrument, alone.

Both reach the instrument through its interface only (:class:`knowsum.Instrument`), so they work
for knowsum's own instruments and for every plug-in alike:

- ``run``: the instrument's part of a budget — its shipped table of ``--budget``
  (:meth:`~knowsum.Instrument.budget_table`) or its ``[NAME]`` table of a ``--plan`` file — turned
  into runs by :meth:`~knowsum.Instrument.steps`, each run by :meth:`~knowsum.Instrument.run` into
  ``OUT/<step>/`` on one response store, exactly as a profile runs it (without the profile page);
- ``score``: the log of ``inspect eval knowsum/NAME`` read back into an ordinary run directory
  (:func:`knowsum.harness.run_from_log`: the instrument's own run on the log's replies).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from pydantic import BaseModel, ValidationError

from knowsum._util import claim_folder, config_error
from knowsum.cli._profile_page import card_text
from knowsum.cliutil.common import ModelOptions, model_options, store_option
from knowsum.cliutil.options import (
    ctx_default,
    echo_json,
    file_option,
    finish,
    json_option,
    note,
    out_option,
    overwrite_option,
)
from knowsum.errors import ConfigError
from knowsum.instrument import Instrument, KBs, Step, get_instrument
from knowsum.profile import BUDGETS, load_budget, profile_entry, step_requests, unique_steps
from knowsum.records import Record, Run, default_run_dir

if TYPE_CHECKING:
    from knowsum.models import Backend

__all__ = ["run_cmd", "score_cmd"]


def _table(inst: Instrument[Any, Any], budget: str, plan: Path | None) -> BaseModel:
    """The instrument's budget table: its ``[NAME]`` table of ``plan``, else its shipped ``budget``.

    Raises:
        ConfigError: the plan has no such table, the instrument ships no table of ``budget``, or a
            bad key or value (one line naming the file or budget and the key).
    """
    if plan is not None:
        table: BaseModel | None = load_budget(plan=plan).part(inst.name)
        if table is None:
            raise ConfigError(
                f"{plan}: has no [{inst.name}] table: add one (its keys are the {inst.name} budget's fields)"
            )
        return table
    data = inst.budget_table(budget)
    if data is None:
        raise ConfigError(
            f"{inst.name} ships no {budget} budget (budgets/{budget}.toml of its package): "
            f"give --plan FILE with a [{inst.name}] table"
        )
    try:
        return inst.read_budget(data, None)
    except ValidationError as exc:
        raise config_error(exc, f"budget {budget}", inst.name) from None


def _show(inst: Instrument[Any, Any], done: list[tuple[str, Run[Record]]], as_json: bool) -> None:
    """The card rows of each run (a table, or one JSON object), then one ``report:`` line per run."""
    rows = [(name, run, inst.measures(run.record, name)) for name, run in done]
    if as_json:
        runs = [
            {
                "name": name,
                "out_dir": str(run.out_dir),
                "report": str(run.report),
                "measures": [m.model_dump(mode="json") for m in measures],
            }
            for name, run, measures in rows
        ]
        echo_json({"instrument": inst.name, "runs": runs})
    else:
        click.echo(card_text([m for _, _, measures in rows for m in measures]))
    for _, run, _ in rows:
        finish(run.report, as_json=as_json)


@click.command("run")
@click.argument("instrument")
@model_options
@store_option
@click.option(
    "--budget",
    type=click.Choice(BUDGETS),
    default="smoke",
    show_default=True,
    help="The instrument's shipped table of this budget (as `knowsum profile run --budget`).",
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(path_type=Path),
    default=None,
    help="A budget TOML of one's own: its [INSTRUMENT] table is run (the other tables are checked, not run).",
)
@out_option("Folder of the runs, one OUT/STEP/ each [default: INSTRUMENT-runs/BUDGET-MODEL].")
@overwrite_option
@file_option(
    "--export-batch",
    "export_batch_file",
    metavar="FILE",
    help_text="Run nothing: write the requests these runs still lack in the store as an OpenAI Batch "
    "JSONL file (needs -m openai:MODEL and --base-url: unlike `knowsum batch export`, no default URL); "
    "import its results with `knowsum batch import`, then run the same command without this option.",
)
@json_option
def run_cmd(instrument: str, **kw: Any) -> None:
    """Run one installed instrument alone (knowsum's or a plug-in's: knowsum instruments): its part
    of a budget, each of its runs an ordinary run directory OUT/STEP/ (the folders a profile makes),
    then its card rows.

    Resumable: every answer is kept in the response store as it arrives; rerun the same command to
    continue (a run stopped while its folder was being written is written again). OUT holds one
    model's runs at one budget: a folder of the same run is rewritten; another model's or budget's
    (a profile's too) is refused, unless --overwrite, which empties it first.

    \b
    Examples:
      knowsum run census -m smollm2-135m-instruct --budget smoke
      knowsum run recall -m mock --plan my-plan.toml --out runs/recall
    """
    from knowsum.models import ResponseStore

    inst = get_instrument(instrument)  # an unknown one: one line listing the installed ones
    plan: Path | None = kw["plan_file"]
    if plan is not None and not ctx_default("budget", kw):
        raise click.UsageError(f"give --budget {kw['budget']} or --plan {plan}, not both")
    where = str(plan) if plan is not None else f"budget {kw['budget']}"
    steps = unique_steps(inst.steps(_table(inst, kw["budget"], plan)), where, inst.name)
    backend = ModelOptions.take(kw).open()
    if kw["export_batch_file"] is not None:
        _export(steps, backend, kw["store_path"], kw["export_batch_file"])
        return
    budget = load_budget(plan=plan).name if plan is not None else kw["budget"]
    out = kw["out"] or default_run_dir(inst.name, plan.stem if plan else kw["budget"], backend.model_id)
    # OUT is one model's runs at one budget, as a profile folder is (a profile's own folder of the
    # same model and budget takes them; any other is refused before anything is asked)
    identity = {"model": backend.model_id, "budget": budget}
    claim_folder(out, identity, owns=profile_entry, overwrite=kw["overwrite"])
    done: list[tuple[str, Run[Record]]] = []
    with ResponseStore(kw["store_path"]) as store:
        for step in steps:
            folder = out / step.name
            note(f"{step.label} → {folder}")
            run = inst.run(step.config, backend, store=store, out=folder, overwrite=kw["overwrite"])
            done.append((step.name, run))
    _show(inst, done, kw["as_json"])


def _export(steps: list[Step], backend: Backend, store_path: Path | None, out: Path) -> None:
    """Write the requests of ``steps`` the store lacks to ``out`` (OpenAI Batch JSONL) and say what
    to do next; the requests are each instrument's own (:meth:`~knowsum.Instrument.requests`), so the
    rerun finds every imported answer under the key it asks."""
    from knowsum.models import export_batch

    kbs = KBs()
    requests = [r for step in steps for r in step_requests(step, kbs)]
    count = export_batch(backend, requests, store_path, out)  # the store is opened once they pass
    if count == 0:
        click.echo(
            f"nothing to export: the store holds all {len(requests):,} requests; run without --export-batch"
        )
        return
    click.echo(
        f"exported {count:,} of the {len(requests):,} requests to {out} ({len(requests) - count:,} stored "
        "or repeated); run them (OpenAI Batch API, vllm run-batch), `knowsum batch import RESULTS` into the "
        "same --store, then this command without --export-batch"
    )


@click.command("score")
@click.argument("instrument")
@file_option(
    "--inspect-log",
    "inspect_log",
    required=True,
    metavar="LOG",
    help_text="The log of `inspect eval knowsum/INSTRUMENT` (.eval or .json); its task arguments are "
    "the run's settings.",
)
@out_option("Run directory [default: INSTRUMENT-runs/score-LOG] (LOG: the log file's stem).")
@overwrite_option
@json_option
def score_cmd(instrument: str, inspect_log: Path, out: Path | None, overwrite: bool, as_json: bool) -> None:
    """Score the log of `inspect eval knowsum/INSTRUMENT` (no model call): its replies go through the
    instrument's own run, written as an ordinary run directory (report, card rows), for any installed
    instrument, knowsum's or a plug-in's.

    \b
    Example:
      inspect eval knowsum/recall -T kb=go --model openai/gpt-4o-mini
      knowsum score recall --inspect-log logs/2026-01-01T00-00-00_recall_abc.eval
    """
    from knowsum.harness import run_from_log

    inst = get_instrument(instrument)
    folder = out or default_run_dir(inst.name, f"score-{inspect_log.stem}")
    run, _ = run_from_log(inspect_log, inst.name, out=folder, overwrite=overwrite)
    _show(inst, [(folder.name, run)], as_json)
