"""The one comparability check: may these runs stand side by side in one table?

Every command that puts runs side by side (each instrument's ``compare`` and the like, and the
profile page) asks :func:`check_comparable`. Two
runs are comparable when what they measured agrees — each record class says what that is in
:meth:`~knowsum.records.Record.comparable_on` (e.g. the task, the prompt by its hash, the knowledge
base and its release and the scoring rule; a profile: its budget) —
and they are not the same run twice (same instrument, identity, model, creation time and
``run_id``). Runs that differ are refused with one line naming what differs; with ``allow_mixed``
each row is marked with what differs from the first run instead. The same run twice is always
refused: a row beside itself says nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from typing import TypedDict, TypeVar, Unpack

from knowsum.caveats import Caveat
from knowsum.errors import ConfigError
from knowsum.records._base import Record

__all__ = [
    "DIFFERS",
    "Mixing",
    "check_comparable",
    "comparable_records",
    "difference_note",
    "differences",
    "text_hash",
    "with_difference",
]

DIFFERS = "differs"
"""The caveat kind of a row shown beside runs that measured something else (``--allow-mixed``)."""

R = TypeVar("R", bound=Record)


class Mixing(TypedDict, total=False):
    """How a comparison treats runs that measured different things (both functions below take it).

    Attributes:
        allow_mixed: Mark each row that differs from the first (``differs: …``) instead of refusing
            (default ``False``).
        option: The option that allows mixed runs, named in the refusal (default ``--allow-mixed``;
            ``""``: none exists).
        ignore: Settings of :meth:`~knowsum.records.Record.comparable_on` not compared here (a
            comparison the figure does not enter, e.g. the items two runs share).
    """

    allow_mixed: bool
    option: str
    ignore: Collection[str]


def text_hash(text: str | bytes) -> str:
    """``#`` and the first 12 hex digits of the SHA-256 of ``text`` (UTF-8) or of a file's bytes: what
    names a prompt or a scored file by its content, not its name, in every run identity."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return "#" + hashlib.sha256(data).hexdigest()[:12]


def _same_run(a: Record, b: Record) -> bool:
    """Whether ``a`` and ``b`` are one run: the same instrument, identity, model and creation time,
    and the same ``run_id`` (a copied folder keeps it), so two runs written in the same second with the
    same settings are still two runs. Files older than ``run_id`` have none: the rest decides."""
    same_id = a.run_id == b.run_id or not (a.run_id and b.run_id)
    return same_id and (a.kind, a.identity, a.model, a.created) == (b.kind, b.identity, b.model, b.created)


def differences(a: Record, b: Record, ignore: Collection[str] = ()) -> list[str]:
    """What ``b`` measured differently from ``a``: ``"task diseases vs custom"``, … (empty: comparable).
    Only what both records name is compared (a run judged against GO names no DOID release), but what is
    in ``ignore``."""
    if a.kind != b.kind:
        return [f"instrument {a.kind} vs {b.kind}"]
    on_a, on_b = a.comparable_on(), b.comparable_on()
    return [
        f"{what} {on_a[what] or 'none'} vs {on_b[what] or 'none'}"
        for what in on_a
        if what in on_b and what not in ignore and on_a[what] != on_b[what]
    ]


def check_comparable(records: Sequence[Record], labels: Sequence[str], **mixing: Unpack[Mixing]) -> list[str]:
    """Whether ``records`` may be ranked side by side (each against every earlier one); returns each
    row's mark (``""``: as every earlier row).

    Args:
        records: The runs, in the order given.
        labels: How to name each run in a message (its folder).
        **mixing: ``allow_mixed`` and ``option`` (:class:`Mixing`).

    Raises:
        ConfigError: A run given twice (always), or runs that measured different things (unless
            ``allow_mixed``): one line naming the runs and what differs.
    """
    for j, b in enumerate(records):
        for i in range(j):
            if _same_run(records[i], b):
                raise ConfigError(
                    f"{labels[i]} and {labels[j]} are the same run twice: a run ranked beside itself "
                    "says nothing; give each run once"
                )
    allow_mixed, option = mixing.get("allow_mixed", False), mixing.get("option", "--allow-mixed")
    ignore = mixing.get("ignore", ())
    marks = [""] if records else []  # the first row is the reference (no runs: no rows)
    for j, r in enumerate(records[1:], 1):
        i, found = next(((i, d) for i in range(j) if (d := differences(records[i], r, ignore))), (0, []))
        if found and not allow_mixed:
            how = f", or pass {option} to show them with each row marked" if option else ""
            raise ConfigError(
                f"{labels[i]} and {labels[j]} are not comparable ({'; '.join(found)}): compare runs that "
                f"measured the same thing{how}"
            )
        marks.append(f"differs: {'; '.join(found)}" if found else "")
    return marks


def difference_note(mark: str) -> Caveat:
    """The ``differs`` caveat of a row marked ``mark`` by :func:`check_comparable`."""
    return Caveat(
        kind=DIFFERS,
        mark=mark,
        message=f"{mark}: ranked beside runs that measured something else (--allow-mixed)",
    )


def with_difference(record: R, mark: str) -> R:
    """``record`` with a ``differs`` caveat carrying ``mark`` (:func:`check_comparable`; ``""``: as is)."""
    if not mark:
        return record
    return record.model_copy(update={"caveats": [*record.caveats, difference_note(mark)]})


def comparable_records(records: Sequence[R], labels: Sequence[object], **mixing: Unpack[Mixing]) -> list[R]:
    """:func:`check_comparable` ``records`` (named by ``labels``, e.g. their folders) and return them,
    each that differs from the first carrying its ``differs`` caveat (:func:`with_difference`)."""
    marks = check_comparable(records, [str(x) for x in labels], **mixing)
    return [with_difference(r, m) for r, m in zip(records, marks, strict=True)]
