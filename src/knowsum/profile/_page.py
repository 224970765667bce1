"""``profile_page``: a profile page from finished run directories, asking nothing.

A run made outside a profile — one read back from an inspect log (``knowsum <instrument> score
--inspect-log LOG``), one run by hand, a step of another profile — is an ordinary run directory.
This places such runs on one page: each run's instrument is the registry's instrument of its
record's kind, its card rows are that instrument's own ``measures``, its usage the record's. The runs
stay where they are; the page links to them by relative path::

    OUT/
      index.html      the profile page (its card, a section per instrument, what the runs used)
      profile.json    the ProfileRecord, written last

Refused, in one line naming the folders: a folder without a run of an installed instrument; runs of
different models (a page is one model's); the same run twice (:func:`knowsum.records.check_comparable`);
two runs that would give the same card row (a page shows one value per measure). The budget of the
record is ``runs #<hash of the runs' instruments and configurations>``: ``profile compare`` puts two
such pages side by side only when their runs were configured alike.
"""

from __future__ import annotations

import functools
import json
import operator
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from knowsum._util import claim_folder
from knowsum.errors import ConfigError, InputFileError
from knowsum.instrument import Instrument, instruments
from knowsum.profile._run import ProfileRun, claim_profile_dir, profile_entry, write_profile
from knowsum.records import (
    RESULT_NAME,
    Record,
    Usage,
    check_comparable,
    default_run_dir,
    load_record,
    text_hash,
)
from knowsum.records.profile import InstrumentPlan, InstrumentProfile, Measure, PlanSummary, ProfileRecord

__all__ = ["RunDir", "profile_page", "read_run"]

_NOTHING_ASKED = "none: the page was built from finished runs, nothing was asked"
RunDir = tuple[Instrument[Any, Any], Record, Path]
"""A finished run: its instrument, record and folder."""


def read_run(path: Path) -> RunDir:
    """The instrument, record and folder of the finished run at ``path`` (its folder or result.json).

    Raises:
        InputFileError: no run there, or the record of no installed instrument (names the file).
    """
    if not path.exists():
        raise InputFileError(path, "no such run directory; check the path")
    if not path.is_dir() and path.name != RESULT_NAME:
        raise InputFileError(path, f"not a run directory nor its {RESULT_NAME}: give a run's folder")
    folder = path if path.is_dir() else path.parent
    file = folder / RESULT_NAME
    try:
        kind = json.loads(file.read_text(encoding="utf-8")).get("kind")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        kind = None
    by_kind = {inst.Record.KIND: inst for inst in instruments().values()}
    if kind not in by_kind:
        raise InputFileError(
            file,
            f"not the record of a finished run of an installed instrument ({', '.join(by_kind)}): "
            "give a run directory (e.g. one `score --inspect-log` wrote)",
        )
    inst = by_kind[kind]
    return inst, load_record(folder, inst.Record), folder


def _check(runs: Sequence[RunDir]) -> None:
    """Refuse runs of different models, the same run twice, and two runs giving the same card row."""
    first = runs[0]
    for _, record, folder in runs[1:]:
        if record.model != first[1].model:
            raise ConfigError(
                f"{first[2]} ({first[1].model}) and {folder} ({record.model}) are runs of different "
                "models: a profile page is one model's; give the runs of one model"
            )
    check_comparable([r for _, r, _ in runs], [str(f) for _, _, f in runs], allow_mixed=True, option="")
    rows: dict[str, Path] = {}
    for inst, record, folder in runs:
        for m in inst.measures(record, ""):
            if m.key in rows:
                side = f" (`knowsum {inst.name} compare` puts them side by side)" if inst.command() else ""
                raise ConfigError(
                    f"{rows[m.key]} and {folder} both give {m.key}: a page shows one value per measure; "
                    f"give one of them{side}"
                )
            rows[m.key] = folder


def _usage(records: Sequence[Record]) -> Usage | None:
    """The runs' usage added up, none of it asked by the page (``None`` when no record measured it)."""
    used = [r.usage for r in records if r.usage is not None]
    return functools.reduce(operator.add, used).model_copy(update={"asked": 0}) if used else None


SHARED_NOTE = (
    "usage adds up each run's own record: a request two runs of one instrument share (one run may "
    "read another's replies from the store) counts once for each, so more requests may be counted "
    "than the model answered (`profile run` counts each distinct request once)"
)
"""Said on a page with two or more runs of one instrument, whose records cannot tell which requests
they share."""


def _shared_note(groups: dict[str, list[RunDir]]) -> list[str]:
    return [SHARED_NOTE] if any(len(g) > 1 for g in groups.values()) else []


def _part(group: Sequence[RunDir], out: Path) -> InstrumentProfile:
    """One instrument's section: its runs (linked relative to ``out``), card rows and usage."""
    inst = group[0][0]
    links: dict[str, str] = {}
    measures: list[Measure] = []
    for _, record, folder in group:
        rel = os.path.relpath(folder.resolve(), out.resolve())
        links[rel if folder.name in links else folder.name] = rel
        measures += inst.measures(record, rel)
    return InstrumentProfile(
        title=inst.title,
        runs=links,
        measures=measures,
        usage=_usage([r for _, r, _ in group]),
        examples=inst.examples(group[0][1]),
    )


def _plan(budget: str, parts: dict[str, InstrumentProfile], n_runs: int) -> PlanSummary:
    """What the runs used, in the plan's terms: every request was answered before the page."""
    plans: dict[str, InstrumentPlan] = {}
    for name, part in parts.items():
        u = part.usage or Usage()
        plans[name] = InstrumentPlan(
            requests=u.requests,
            stored=u.requests,
            prompt_tokens=u.prompt_tokens,
            prompt_tokens_estimated=False,
            completion_tokens=u.completion_tokens,
            completion_tokens_expected=u.completion_tokens,
        )
    every = list(plans.values())
    return PlanSummary(
        budget=budget,
        description=f"a page of {n_runs} finished runs (knowsum profile page), their sizes as they ran",
        requests=sum(p.requests for p in every),
        stored=sum(p.stored for p in every),
        prompt_tokens=sum(p.prompt_tokens for p in every),
        completion_tokens=sum(p.completion_tokens for p in every),
        completion_tokens_expected=sum(p.completion_tokens for p in every),
        seconds_expected=None,
        cost_usd=None,
        cost_expected_usd=None,
        tokens_source="as each run's record counted them",
        time_source=_NOTHING_ASKED,
        instruments=plans,
    )


def profile_page(paths: Sequence[Path], out: Path | None = None, *, overwrite: bool = False) -> ProfileRun:
    """Write the profile page of the finished runs at ``paths`` to ``out`` (module docstring).

    Args:
        paths: Run directories (or their ``result.json``), of one model.
        out: The profile folder (absent, empty, or a page of the same model and runs; default
            ``profile-runs/runs-<model>``).
        overwrite: Replace another profile in ``out``.

    Raises:
        InputFileError: a path holds no run of an installed instrument. ConfigError: runs of different
            models, the same run twice, or two runs giving the same card row. InputError: ``out`` holds
            something else than this page.
    """
    runs = [read_run(p) for p in paths]
    if not runs:
        raise ConfigError("no run given: give the run directories to place on the page")
    _check(runs)
    groups: dict[str, list[RunDir]] = {name: [] for name in instruments()}
    for run in runs:
        groups[run[0].name].append(run)
    runs = [run for group in groups.values() for run in group]
    configs = sorted(json.dumps([i.name, i.recorded(r)], sort_keys=True, default=str) for i, r, _ in runs)
    budget = "runs " + text_hash("\n".join(configs))
    model = runs[0][1].model
    out = out or default_run_dir("profile", "runs", model)
    claim_profile_dir(out, model, budget, overwrite=overwrite)
    claim_folder(out, {"model": model, "budget": budget}, owns=profile_entry, overwrite=overwrite)
    parts = {name: _part(group, out) for name, group in groups.items() if group}
    releases = {kb: rel for _, r, _ in runs for kb, rel in r.kb_releases.items()}
    result = ProfileRecord(
        model=model,
        backend=", ".join(dict.fromkeys(r.backend for _, r, _ in runs)),
        kb_releases=releases,
        usage=_usage([r for _, r, _ in runs]),
        budget=budget,
        plan=_plan(budget, parts, len(runs)),
        instruments=parts,
        notes=[f"built from finished runs: {', '.join(str(f) for _, _, f in runs)}", *_shared_note(groups)],
    )
    return write_profile(result, out)
