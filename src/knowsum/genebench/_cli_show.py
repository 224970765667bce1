"""What ``knowsum genebench`` prints: a run (summary or JSON, then ``report: PATH``) and a build."""

from __future__ import annotations

from pathlib import Path

import click

from knowsum.cliutil.options import echo_json, finish
from knowsum.genebench import BuildReport, GenebenchRun, Question, token_budgets
from knowsum.genebench.page import build_text, result_numbers, summary_text

__all__ = ["show_build", "show_run"]


def show_run(run: GenebenchRun, as_json: bool) -> None:
    """The run's summary (or its key numbers as one JSON object), then ``report: PATH``."""
    if as_json:
        echo_json(result_numbers(run.record))
    else:
        click.echo(summary_text(run.record))
    finish(run.report, as_json=as_json)


def show_build(questions: list[Question], report: BuildReport, output: Path, n: int, as_json: bool) -> None:
    """What a build made (per task once), then where it went (on stderr with ``--json``)."""
    budgets = token_budgets(questions)
    if as_json:
        echo_json(
            {
                "output": str(output),
                "n_questions": n,
                "counts": report.counts,
                "excluded": report.excluded,
                "skipped": report.skipped,
                "unknown_genes": report.unknown_genes,
                "token_budgets": budgets,
                "kb_releases": report.kb_releases,
            }
        )
    else:
        click.echo(build_text(report.counts, report.excluded, report.skipped, budgets))
    click.echo(f"wrote {n} questions to {output}", err=as_json)
