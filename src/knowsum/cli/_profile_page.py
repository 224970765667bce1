"""``knowsum profile page RUN…``: a profile page from finished run directories, asking nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from knowsum.cliutil.options import echo_json, finish, json_option, out_option

__all__ = ["card_text", "page_cmd"]


def card_text(result: Any) -> str:
    """A profile's card as a terminal table: measure, value, interval, the papers' range."""
    from knowsum.report import text_table
    from knowsum.report.profile import card_rows

    return text_table(["measure", "value", "95 % interval", "papers' models"], card_rows(result))


@click.command("page")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@out_option("Profile folder [default: profile-runs/runs-MODEL].")
@click.option("--overwrite", is_flag=True, help="Replace another profile in --out (else it is refused).")
@json_option
def page_cmd(runs: tuple[Path, ...], out: Path | None, overwrite: bool, as_json: bool) -> None:
    """A profile page from finished run directories of one model, asking nothing: runs read back from
    inspect logs (`score --inspect-log`), runs of one's own, steps of other profiles. OUT/index.html
    and OUT/profile.json; the runs stay where they are and the page links them.

    Runs of different models are refused, and so are the same run twice and two runs that give the
    same card row (two censuses of one task and criterion: `census compare` them instead).

    \b
      knowsum census score --inspect-log logs/census.eval --out census-runs/inspect
      knowsum profile page census-runs/inspect recall-runs/inspect --out profile-inspect
    """
    from knowsum.profile import profile_page

    run = profile_page(list(runs), out, overwrite=overwrite)
    if as_json:
        echo_json(run.record.model_dump(mode="json"))
    else:
        click.echo(card_text(run.record))
    finish(run.report, as_json=as_json)
