"""What a profile used: its requests, tokens and time, from the store or from the steps' own records.

A profile's usage counts each distinct request of an instrument once (two steps may score the
same answers under two criteria), with the tokens and latencies the backend reported when it generated the
answer. Each finished step is counted from one of two sources:

- **the response store** given to this run, when the step ran now, or when it was read back from its
  folder and the store holds the answers its record counted: the store's responses to the step's
  requests add up to the record's requests, failures, prompt and completion tokens;
- **the step's own record** (``result.json``'s ``usage``) otherwise: a step finished earlier with
  another ``--store`` (or whose answers were since replaced) is not asked again, and this store
  cannot tell what its answers cost, but its record counted them when it ran. Two such steps with
  the same requests count once; one whose requests the store part already counts is left out. A
  step whose requests overlap another's only in part is added whole, so a shared request may then
  count twice, and a note says so. A record written before ``usage`` existed leaves the usage
  unknown (``None``), never zero.

``asked`` is only what this invocation generated; ``wall_seconds`` is this invocation's time.
``generation_seconds`` in all is one union over the store's answers plus each counted record's own
generation time: exact for steps that ran one after another, as a profile's do, an upper bound on
the union otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from knowsum.instrument import Step
from knowsum.models import Response, ResponseStore, usage_of
from knowsum.records import Record, Usage

__all__ = ["ProfileUsage", "StepRun", "profile_usage"]

StepRun = tuple[Step, Record, bool]
"""A finished step: the step, its record, and whether this invocation ran it (``False``: read back)."""


@dataclass
class ProfileUsage:
    """The usage of each instrument and in all (``None``: unknown), and the notes saying how it was
    counted when not all from the store."""

    parts: dict[str, Usage | None]
    total: Usage | None
    notes: list[str] = field(default_factory=list)


def _same_answers(recorded: Usage | None, keys: Sequence[str], stored: dict[str, Response]) -> bool:
    """Whether ``stored`` holds the answers a step's record counted (its requests, failures and tokens;
    with no usage recorded: whether the store answers every request)."""
    have = [stored[k] for k in dict.fromkeys(keys) if k in stored]
    if recorded is None:
        return len(have) == len(set(keys)) and all(r.ok for r in have)
    now = usage_of(have)
    fields = ("requests", "failed", "prompt_tokens", "completion_tokens")
    return all(getattr(now, f) == getattr(recorded, f) for f in fields)


@dataclass
class _Part:
    """One instrument's count: the keys answered from the store, the records' usage of the others."""

    store_keys: dict[str, None] = field(default_factory=dict)
    from_records: dict[frozenset[str], Usage | None] = field(default_factory=dict)
    elsewhere: list[str] = field(default_factory=list)
    overlap: bool = False


def _split(
    steps: Sequence[StepRun], keys_of: Callable[[Step], list[str]], stored: dict[str, Response]
) -> _Part:
    """Sort one instrument's ``steps`` into those counted from the store and those from their records."""
    part = _Part()
    others: list[tuple[str, frozenset[str], Usage | None]] = []
    for step, record, ran_now in steps:
        keys = keys_of(step)
        if ran_now or _same_answers(record.usage, keys, stored):
            part.store_keys.update(dict.fromkeys(keys))
        else:
            others.append((step.name, frozenset(keys), record.usage))
    for name, own, recorded in others:
        if own <= part.store_keys.keys():
            continue  # its requests are counted from the store (a step that ran now asked them)
        part.elsewhere.append(name)
        if own in part.from_records:
            continue  # a step with the same requests counted them
        counted = set(part.store_keys).union(*part.from_records)
        part.overlap = part.overlap or bool(own & counted)
        part.from_records[own] = recorded
    return part


def _sum_generation(values: Collection[float | None]) -> float | None:
    """Σ of generation times (``None`` when one is unknown)."""
    return None if any(v is None for v in values) else round(sum(v or 0.0 for v in values), 6)


def profile_usage(
    steps: dict[str, list[StepRun]],
    keys_of: Callable[[Step], list[str]],
    store: ResponseStore,
    *,
    asked: dict[str, int],
    walls: dict[str, float],
    wall_seconds: float,
) -> ProfileUsage:
    """The usage of a profile's finished ``steps`` (instrument → its steps), see the module docstring.

    Args:
        steps: Each instrument's finished steps, in the plan's order.
        keys_of: The store keys of a step's requests.
        store: The response store of this run.
        asked: Instrument → responses this invocation generated.
        walls: Instrument → seconds this invocation spent on its steps.
        wall_seconds: This invocation's time, start to record.
    """
    parts: dict[str, Usage | None] = {}
    every: list[Response] = []
    recorded: list[Usage | None] = []
    elsewhere: list[str] = []
    overlap = False
    for name, runs in steps.items():
        every_key = list(dict.fromkeys(k for s, _, _ in runs for k in keys_of(s)))
        stored = {r.key: r for r in store.responses(every_key)}
        part = _split(runs, keys_of, stored)
        used = [stored[k] for k in part.store_keys if k in stored and stored[k].ok]
        every += used
        usage: Usage | None = usage_of(used, asked=asked.get(name, 0), wall_seconds=walls.get(name, 0.0))
        for u in part.from_records.values():
            recorded.append(u)
            usage = (
                None
                if u is None or usage is None
                else usage + u.model_copy(update={"asked": 0, "wall_seconds": 0.0})
            )
        parts[name] = usage
        elsewhere += part.elsewhere
        overlap = overlap or part.overlap
    notes = _notes(elsewhere, unknown=any(u is None for u in recorded), overlap=overlap)
    if any(u is None for u in parts.values()):
        return ProfileUsage(parts, None, notes)
    total = Usage()
    for u in parts.values():
        total = total + (u or Usage())
    generation = _sum_generation(
        [usage_of(every).generation_seconds, *(u.generation_seconds for u in recorded if u)]
    )
    total = total.model_copy(
        update={"wall_seconds": round(wall_seconds, 6), "generation_seconds": generation}
    )
    return ProfileUsage(parts, total, notes)


def _notes(elsewhere: list[str], *, unknown: bool, overlap: bool) -> list[str]:
    """What the page and the console say when part of the usage is not this store's."""
    if not elsewhere:
        return []
    notes = [
        f"the answers of {', '.join(elsewhere)} are not in this run's response store (they were answered "
        "with another one, or replaced since): those steps were read back, not asked again, and their "
        "requests, tokens and times are the ones their own records counted when they ran (a request "
        "two of them share counts once)"
    ]
    if unknown:
        notes.append(
            "a step read back records no usage (written before knowsum recorded it) and its answers are "
            "not in this run's store: the requests, tokens and cost are unknown; rerun with the store it "
            "used to count them"
        )
    if overlap:
        notes.append(
            "some of those steps share part of their requests with others: a shared request may be "
            "counted once for each, so more requests and tokens may be counted than the model answered"
        )
    return notes
