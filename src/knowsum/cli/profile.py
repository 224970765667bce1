"""``knowsum profile run|plan|compare|page``: how much does this model know? One command, one page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from knowsum.cli._profile_page import card_text, page_cmd
from knowsum.cliutil.common import ModelOptions, model_options, store_option
from knowsum.cliutil.options import ctx_default, echo_json, finish, json_option, note, out_option
from knowsum.cliutil.params import Number
from knowsum.models import ResponseStore
from knowsum.records import default_run_dir
from knowsum.records.profile import Prices

__all__ = ["profile"]


@click.group()
def profile() -> None:
    """One model, every instrument of a budget, one page: census (KnowSum), recall (Bombieri et al.),
    genebench (SciHorizon-GENE) and any installed plug-in's (knowsum instruments) on one response
    store, placed among the papers' models.

    \b
      knowsum profile plan -m smollm2-135m-instruct --budget smoke
      knowsum profile run -m smollm2-135m-instruct --budget smoke --out profile-smollm2
      knowsum profile compare profile-smollm2 profile-qwen --published --html compare.html
      knowsum profile page census-runs/from-inspect recall-runs/from-inspect --out profile-inspect
    """


profile.add_command(page_cmd)


def _price(name: str, help_text: str) -> Any:
    """A price: a finite number >= 0 (``nan`` and ``inf`` refused in one line naming the option)."""
    return click.option(name, type=Number(name, whole=False, minimum=0, strict=False), help=help_text)


def _budget_options(func: Any) -> Any:
    from knowsum.profile import BUDGETS

    for deco in reversed(
        [
            click.option(
                "--budget",
                type=click.Choice(BUDGETS),
                default="smoke",
                show_default=True,
                help="How big: smoke (minutes on a small local model), quick (a first real profile), "
                "paper (the papers' sizes, for a GPU server).",
            ),
            click.option(
                "--plan",
                "plan_file",
                type=click.Path(path_type=Path),
                default=None,
                help="A budget TOML of one's own (the keys of the shipped ones; see docs/profile.md).",
            ),
            _price(
                "--price-in",
                "USD per million prompt tokens, for the plan's cost; give both --price-in and "
                "--price-out, or neither (no cost).",
            ),
            _price(
                "--price-out",
                "USD per million completion tokens, for the plan's cost; give both --price-in and "
                "--price-out, or neither (no cost).",
            ),
        ]
    ):
        func = deco(func)
    return func


def _prices(kw: dict[str, Any]) -> Prices | None:
    pin, pout = kw["price_in"], kw["price_out"]
    if (pin is None) != (pout is None):
        raise click.UsageError("give both --price-in and --price-out (USD per million tokens), or neither")
    return None if pin is None else Prices(pin, pout)


def _seconds(s: float | None) -> str:
    if s is None:
        return "unknown"
    return f"{s / 3600:.1f} h" if s >= 5400 else f"{s / 60:.1f} min" if s >= 90 else f"{s:.0f} s"


def _plan_text(summary: Any) -> str:
    from knowsum.report import text_table

    rows = []
    for name, p in summary.instruments.items():
        est = " (est.)" if p.prompt_tokens_estimated else ""
        exp = "–" if p.completion_tokens_expected is None else f"{p.completion_tokens_expected:,}"
        cost = "–" if p.cost_usd is None else f"${p.cost_usd:,.2f}"
        rows.append(
            [
                name,
                f"{p.requests:,}",
                f"{p.stored:,}",
                f"{p.prompt_tokens:,}{est}",
                f"{p.completion_tokens:,}",
                exp,
                _seconds(p.seconds_expected),
                cost,
            ]
        )
    total_cost = "–" if summary.cost_usd is None else f"${summary.cost_usd:,.2f}"
    exp_total = (
        "–" if summary.completion_tokens_expected is None else f"{summary.completion_tokens_expected:,}"
    )
    rows.append(
        [
            "all",
            f"{summary.requests:,}",
            f"{summary.stored:,}",
            f"{summary.prompt_tokens:,}",
            f"{summary.completion_tokens:,}",
            exp_total,
            _seconds(summary.seconds_expected),
            total_cost,
        ]
    )
    table = text_table(
        ["instrument", "requests", "stored", "prompt tokens", "completion ≤", "expected", "time", "cost ≤"],
        rows,
    )
    lines = [
        f"budget {summary.budget}: {summary.description}",
        table,
        f"prompt tokens: {summary.tokens_source}; time: {summary.time_source}",
    ]
    if summary.cost_expected_usd is not None:
        lines.append(f"expected cost: ${summary.cost_expected_usd:,.2f} (≤ {total_cost})")
    return "\n".join(lines)


def _budget(kw: dict[str, Any]) -> Any:
    from knowsum.profile import load_budget

    if kw["plan_file"] is not None and not ctx_default("budget", kw):
        raise click.UsageError(
            f"give --budget {kw['budget']} or --plan {kw['plan_file']}, not both "
            "(a plan is a budget of its own)"
        )
    budget = load_budget(kw["budget"], kw["plan_file"])
    if kw["plan_file"] is None:  # a shipped budget composes the healthy instruments' tables
        from knowsum.instrument import broken_instruments

        for why in broken_instruments().values():
            note(f"a broken plug-in is left out of --budget {budget.name}: {why}")
    return budget


@profile.command("plan")
@model_options
@store_option
@_budget_options
@click.option(
    "--probe",
    is_flag=True,
    help="First answer a few pending requests per instrument (2-8, stored) to measure the speed.",
)
@json_option
def plan_cmd(**kw: Any) -> None:
    """What a profile will ask, and what it will cost, before anything is asked: requests, stored
    answers, prompt and completion tokens, expected time and cost, per instrument."""
    from knowsum.profile import plan_profile

    prices = _prices(kw)
    budget = _budget(kw)
    backend = ModelOptions.take(kw).open()
    path = kw["store_path"]
    store = ResponseStore(path) if kw["probe"] else _existing_store(path)
    try:
        plan = plan_profile(budget, backend, store=store, probe=kw["probe"], prices=prices)
    finally:
        if store is not None:
            store.close()
    if kw["as_json"]:
        echo_json(plan.summary.model_dump(mode="json"))
    else:
        click.echo(_plan_text(plan.summary))


def _existing_store(path: Path | None) -> ResponseStore | None:
    """The store, read-only, when it exists (a plan never creates one)."""
    from knowsum._util import paths

    file = path or paths.store_path()
    return ResponseStore(file, read_only=True) if file.exists() else None


@profile.command("run")
@model_options
@store_option
@_budget_options
@out_option("Profile folder [default: profile-runs/BUDGET-MODEL].")
@click.option("--overwrite", is_flag=True, help="Replace another profile in --out (else it is refused).")
@json_option
def run_cmd(**kw: Any) -> None:
    """Run the profile: every instrument run of the budget on one model and one response store, then
    OUT/index.html and OUT/profile.json.

    Resumable: answers are kept in the store as they arrive; rerun the same command to continue. A
    rerun of a finished profile asks the model nothing and rewrites the page.
    """
    from knowsum.profile import plan_profile, run_profile

    prices = _prices(kw)
    budget = _budget(kw)
    backend = ModelOptions.take(kw).open()
    out = kw["out"] or default_run_dir("profile", budget.name, backend.model_id)
    with ResponseStore(kw["store_path"]) as store:
        plan = plan_profile(budget, backend, store=store, prices=prices)
        s = plan.summary
        note(
            f"profile {budget.name} of {backend.model_id}: {s.requests:,} requests, "
            f"{s.stored:,} already stored; expected time {_seconds(s.seconds_expected)}"
        )
        run = run_profile(
            plan,
            backend,
            store=store,
            out=out,
            echo=lambda m: click.echo(m, err=True),
            overwrite=kw["overwrite"],
        )
    r = run.record
    if kw["as_json"]:
        echo_json(r.model_dump(mode="json"))
    else:
        u = r.usage
        if u is not None:
            click.echo(
                f"{u.requests:,} requests ({u.asked:,} asked now), {u.prompt_tokens:,} prompt + "
                f"{u.completion_tokens:,} completion tokens, generated in {_seconds(u.generation_seconds)}, "
                f"this run {_seconds(u.wall_seconds)}"
                + ("" if r.cost_usd is None else f", cost ${r.cost_usd:,.4f}")
            )
        click.echo(card_text(r))
    finish(run.report, as_json=kw["as_json"])


@profile.command("compare")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--published", is_flag=True, help="Add the papers' models (range per measure, points in the figure)."
)
@click.option(
    "--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write a page."
)
@click.option("--markdown", is_flag=True, help="A Markdown table instead of a terminal table.")
@click.option(
    "--allow-mixed",
    is_flag=True,
    help="Show profiles of different budgets side by side (each marked) instead of refusing them.",
)
@json_option
def compare_cmd(
    dirs: tuple[Path, ...],
    published: bool,
    html_path: Path | None,
    markdown: bool,
    allow_mixed: bool,
    as_json: bool,
) -> None:
    """Profiles side by side: one table (one row per measure, a column per profile, and the rank
    change where ranking by N_seen and by N̂_tot differ) and, with --html, one small-multiples figure.

    Profiles of different budgets are refused (their figures differ by sample size, not by model)
    unless --allow-mixed; the same profile given twice is always refused."""
    from knowsum.profile import load_profile
    from knowsum.records import DIFFERS, comparable_records
    from knowsum.report.profile import compare_table, compare_text, write_profile_compare

    results = comparable_records([load_profile(d) for d in dirs], dirs, allow_mixed=allow_mixed)
    differs = [next((c.mark for c in r.caveats if c.kind == DIFFERS), "") for r in results]
    for d, mark in zip(dirs, differs, strict=True):
        if mark:
            note(f"{d}: {mark}")
    if as_json:
        headers, rows = compare_table(results, published, folders=dirs)
        echo_json(
            {
                "headers": headers,
                "rows": rows,
                "differs": {str(d): m for d, m in zip(dirs, differs, strict=True)},
            }
        )
    else:
        click.echo(compare_text(results, published=published, markdown=markdown, folders=dirs))
    if html_path is not None:
        write_profile_compare(html_path, results, published=published, folders=dirs)
        finish(html_path, as_json=as_json)
