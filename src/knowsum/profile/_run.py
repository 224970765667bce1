"""``run_profile``: every step of a plan as an ordinary instrument run, on one store; then one page.

Folder::

    OUT/
      census-diseases-relaxed/ census-diseases-strict/ …   each an instrument's run directory
      recall-go/ (recall-go-invariance/) …
      genebench-balanced/
      index.html        the profile page
      profile.json      the ProfileRecord, written last: its presence marks a finished profile

Every request goes through the response store, so a profile killed anywhere continues where it
stopped when rerun. A step whose folder already holds a finished run of the same model and
configuration is read back, not rerun: a rerun of a finished profile asks the model nothing and only
rewrites the page.

The profile's usage counts each distinct request once, from this run's store, or — for a step read
back whose answers this store does not hold (it ran with another ``--store``) — from that step's own
record, with a note saying so (:mod:`knowsum.profile._usage`): never zeros for answers given earlier.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from knowsum._util import atomic_write, claim_folder
from knowsum.errors import BackendError, InputError, OutputError
from knowsum.instrument import Instrument, KBs, Step, get_instrument
from knowsum.models import Backend, MeteredBackend, Response, ResponseStore, sample_sync
from knowsum.profile._plan import ProfilePlan
from knowsum.profile._steps import step_requests
from knowsum.profile._usage import StepRun, profile_usage
from knowsum.records import Record, Run, is_run_like, load_record
from knowsum.records.profile import InstrumentProfile, ProfileRecord

__all__ = [
    "PAGE_NAME",
    "RESULT_FILE",
    "ProfileRun",
    "claim_profile_dir",
    "load_profile",
    "run_profile",
    "write_profile",
]

RESULT_FILE = "profile.json"
PAGE_NAME = "index.html"


class ProfileRun(Run[ProfileRecord]):
    """What a profile wrote: its record, its folder and its page (``index.html``)."""

    __slots__ = ()


class _Display:
    """One rich display for the whole plan: the plan's requests done of all, tokens/s, ETA, and a row
    per instrument below it (nothing when disabled)."""

    def __init__(self, plan: ProfilePlan, done: dict[str, int], enabled: bool | None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.tokens = 0
        self.t0 = time.perf_counter()
        self.bar: Progress | None = None
        self.rows: dict[str, TaskID] = {}
        if not self.enabled:
            return
        self.bar = Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        total = sum(len(k) for k in plan.keys.values())
        self.overall = self.bar.add_task(
            f"profile {plan.budget.name}", total=total, completed=sum(done.values()), rate=""
        )
        for name, keys in plan.keys.items():
            self.rows[name] = self.bar.add_task(
                f"  {name}", total=len(keys), completed=done.get(name, 0), rate=""
            )

    def __enter__(self) -> _Display:
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.bar is not None:
            self.bar.__exit__(et, ev, tb)

    def step(self, step: Step) -> None:
        if self.bar is not None:
            self.bar.update(self.rows[step.instrument], description=f"  {step.label}")

    def advance(self, instrument: str, response: Response) -> None:
        self.tokens += max(0, response.completion_tokens)
        if self.bar is None:
            return
        rate = f"{self.tokens / max(1e-9, time.perf_counter() - self.t0):,.1f} tok/s"
        self.bar.update(self.overall, advance=1, rate=rate)
        self.bar.update(self.rows[instrument], advance=1)


def _finished(inst: Instrument[Any, Any], step: Step, folder: Path, backend: Backend) -> Record | None:
    """The finished run of ``step`` in ``folder`` when it is this model's and this configuration's
    (the instrument's own ``same_run``)."""
    if not (folder / "result.json").is_file():
        return None
    try:
        record = load_record(folder, inst.Record)
    except InputError:  # an unreadable or older-than-readable record: the step is run again
        return None
    return record if inst.same_run(record, step.config, backend) else None


def profile_entry(entry: Path) -> bool:
    """Whether ``entry`` (in a profile's folder, or a ``knowsum run`` folder, which a profile of the
    same model and budget may share) is one a profile writes: a run folder, its record or its page."""
    return is_run_like(entry) if entry.is_dir() else entry.name in (RESULT_FILE, PAGE_NAME)


def _held(out: Path) -> ProfileRecord | None:
    """The finished profile in ``out`` (``None``: absent, empty, or a profile that was stopped).

    Raises:
        InputError: ``out`` is a file or holds files that are not a profile's.
    """
    if not out.exists():
        return None
    if not out.is_dir():
        raise InputError(f"{out}: is a file, not a profile folder: give another --out")
    entries = [e for e in out.iterdir() if not e.name.startswith(".")]
    foreign = [e.name for e in entries if not profile_entry(e)]
    if foreign:
        raise InputError(f"{out}: holds files that are not a profile's ({foreign[0]}): give another --out")
    return load_profile(out) if (out / RESULT_FILE).is_file() else None


def claim_profile_dir(out: Path, model: str, budget: str, *, overwrite: bool = False) -> Path:
    """Check that ``out`` may take a profile of ``model`` at ``budget``; call it before asking anything.

    ``out`` may be absent, empty, hold a profile of the same model and budget (finished: it is
    rewritten; unfinished: it continues), or — with ``overwrite`` — another profile, which is then
    emptied. Anything else is refused.

    Raises:
        InputError: ``out`` is a file, holds files that are not a profile's, or another profile.
    """
    old = _held(out)
    if old is None or (old.model, old.budget) == (model, budget):
        return out  # absent, empty, a profile that was stopped (it continues), or this one
    if overwrite:
        for e in out.iterdir():
            if not e.name.startswith("."):
                shutil.rmtree(e) if e.is_dir() else e.unlink()
        return out
    raise InputError(
        f"{out} holds a profile of {old.model} at budget {old.budget} ({model} at {budget} asked): "
        "give another --out or --overwrite to replace it"
    )


def _first_answer(plan: ProfilePlan, backend: Backend, store: ResponseStore, out: Path) -> str | None:
    """Ask the first request of ``plan`` the store lacks (stored, so the run does not ask it again);
    the instrument it belongs to, or ``None`` when the store answers every request.

    Raises:
        BackendError: the backend cannot be reached, or did not answer it (the message says ``out``
            is kept).
    """
    for name, requests in plan.requests.items():
        keys = plan.keys.get(name, [])
        done = store.done_keys(set(keys))
        pending = [r for r, k in zip(requests, keys, strict=True) if k not in done]
        if not pending:
            continue
        try:
            (response,) = sample_sync(backend, pending[:1], store=store, progress=False)
        except BackendError as exc:
            exc.args = (f"{exc} ({out} keeps its profile: nothing was replaced)",)
            raise
        if not response.ok:
            why = (response.error or "no answer").splitlines()[0]
            raise BackendError(
                f"{backend.model_id} did not answer the profile's first request ({why}): {out} keeps its "
                "profile; check the model, then rerun"
            )
        return name
    return None


def _claim(
    plan: ProfilePlan, backend: Backend, store: ResponseStore, out: Path, overwrite: bool
) -> str | None:
    """Claim ``out`` for this profile (:func:`claim_profile_dir`, then the folder's claim marker).

    Another profile in ``out`` (finished, or stopped after its start) is emptied only with
    ``overwrite``, and only once the backend has answered a request (:func:`_first_answer`), so an
    unreachable model leaves it as it was. The instrument whose request was asked, if any.

    Raises:
        InputError: ``out`` holds something else than this profile, or another one without
            ``overwrite``. BackendError: the model did not answer (``out`` untouched).
    """
    model, budget = backend.model_id, plan.budget.name
    identity = {"model": model, "budget": budget}
    old = _held(out)
    replace = old is not None and (old.model, old.budget) != (model, budget)
    if not replace:
        try:
            claim_folder(out, identity, owns=profile_entry)
        except OutputError:
            if not overwrite:
                raise
            replace = True  # a profile of another model or budget that was stopped
    if not replace:
        return None
    if not overwrite:
        claim_profile_dir(out, model, budget)  # refuses, naming the profile in out
    asked = _first_answer(plan, backend, store, out)
    claim_profile_dir(out, model, budget, overwrite=True)
    claim_folder(out, identity, owns=profile_entry, overwrite=True)
    return asked


def run_profile(
    plan: ProfilePlan,
    backend: Backend,
    *,
    store: ResponseStore,
    out: Path,
    progress: bool | None = None,
    echo: Callable[[str], None] | None = None,
    overwrite: bool = False,
) -> ProfileRun:
    """Run every step of ``plan`` on ``backend`` and ``store``, then write ``OUT/index.html`` and
    ``OUT/profile.json`` (see the module docstring).

    The record's usage counts each distinct request once: from ``store`` for the steps run now and
    the steps read back whose answers it holds (their responses add up to the step record's figures),
    from the step's own record for the others (a profile rerun with another store: its answers were
    not asked again, and cost what they cost when they ran); ``asked`` is what this call generated.
    When some figures come from the records, ``notes`` says so (and ``echo`` too); a step record
    without usage and without its answers in ``store`` leaves the usage and cost unknown (``None``).

    Args:
        plan: :func:`knowsum.profile.plan_profile`'s plan.
        backend: The model (the caller opens and closes it).
        store: The one response store every step uses.
        out: The profile folder.
        progress: The rich display on stderr (``None``: when stderr is a terminal).
        echo: Called with one line per step (the CLI prints them to stderr).
        overwrite: Replace another profile in ``out`` (:func:`claim_profile_dir`): it is emptied only
            once the model has answered the plan's first pending request, so a model that cannot be
            reached leaves it whole.

    Raises:
        InputError: ``out`` holds something else than this profile (nothing is asked).
        BackendError, StoreError: the model or the store failed; what was answered is kept, and a
            rerun continues (another profile ``overwrite`` would replace is kept as it was when the
            model answers nothing). KBNotInstalledError: a KB a step needs.
    """
    say = echo or (lambda _m: None)
    t0 = time.perf_counter()
    fresh: dict[str, int] = dict.fromkeys(plan.keys, 0)
    asked = _claim(plan, backend, store, out, overwrite)
    if asked is not None:
        fresh[asked] += 1
    owner = {k: name for name, keys in plan.keys.items() for k in keys}
    done = {name: len(store.done_keys(set(keys))) for name, keys in plan.keys.items()}
    records: dict[str, list[StepRun]] = {}
    walls: dict[str, float] = {}
    out.mkdir(parents=True, exist_ok=True)
    with _Display(plan, done, progress) as display:

        def seen(response: Response) -> None:
            name = owner.get(response.key)
            if name is not None and response.ok:
                fresh[name] += 1
                display.advance(name, response)

        metered = MeteredBackend(backend, on_response=seen)
        for step in plan.steps:
            display.step(step)
            folder = out / step.name
            s0 = time.perf_counter()
            inst = get_instrument(step.instrument)
            record = _finished(inst, step, folder, backend)
            if record is None:
                say(f"profile: {step.label} → {folder}")
                # the profile owns its step folders: one that holds no finished run of this step is replaced
                run = inst.run(step.config, metered, store=store, out=folder, progress=False, overwrite=True)
                record, ran_now = run.record, True
            else:
                say(f"profile: {step.label}: finished earlier, read from {folder}")
                ran_now = False
            walls[step.instrument] = walls.get(step.instrument, 0.0) + time.perf_counter() - s0
            records.setdefault(step.instrument, []).append((step, record, ran_now))
    used = profile_usage(
        records,
        _keys_of(plan, backend),
        store,
        asked=fresh,
        walls=walls,
        wall_seconds=time.perf_counter() - t0,
    )
    for line in used.notes:
        say(f"profile: note: {line}")
    parts: dict[str, InstrumentProfile] = {}
    for name, steps in records.items():
        inst = get_instrument(name)
        parts[name] = InstrumentProfile(
            title=inst.title,
            runs={s.name: s.name for s, _, _ in steps},
            measures=[m for s, r, _ in steps for m in inst.measures(r, s.name)],
            usage=used.parts.get(name),
            examples=[x for _, r, _ in steps[:1] for x in inst.examples(r)],
        )
    releases: dict[str, str] = {}
    for steps in records.values():
        for _, r, _ in steps:
            releases.update(r.kb_releases)
    summary, prices, total = plan.summary, plan.summary.prices, used.total
    result = ProfileRecord(
        model=backend.model_id,
        backend=backend.kind,
        kb_releases=releases,
        usage=total,
        budget=plan.budget.name,
        plan=summary,
        instruments=parts,
        cost_usd=None
        if prices is None or total is None
        else prices.cost(total.prompt_tokens, total.completion_tokens),
        notes=used.notes,
    )
    return write_profile(result, out)


def _keys_of(plan: ProfilePlan, backend: Backend) -> Callable[[Step], list[str]]:
    """The store keys of a step's requests: the plan's, or asked of its instrument when the plan
    lacks them (one made without :func:`~knowsum.profile.plan_profile`)."""
    kbs = KBs()

    def keys_of(step: Step) -> list[str]:
        keys = plan.step_keys.get(step.name)
        return keys if keys is not None else [backend.key(r) for r in step_requests(step, kbs)]

    return keys_of


def write_profile(result: ProfileRecord, out: Path) -> ProfileRun:
    """Write ``OUT/index.html``, then ``OUT/profile.json`` (last), each atomically."""
    from knowsum.report.profile import write_profile_page

    out.mkdir(parents=True, exist_ok=True)
    (out / RESULT_FILE).unlink(missing_ok=True)
    page = write_profile_page(out / PAGE_NAME, result)
    with atomic_write(out / RESULT_FILE, "w") as fh:
        fh.write(result.model_dump_json(indent=2) + "\n")
    return ProfileRun(result, out, page)


def load_profile(path: Path) -> ProfileRecord:
    """Read a profile (its folder or its ``profile.json``).

    Raises:
        InputFileError: missing, unreadable or not a profile (names the file).
    """
    file = path / RESULT_FILE if path.is_dir() else path
    return load_record(file, ProfileRecord)
