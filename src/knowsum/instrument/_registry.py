"""Plug-ins: instruments (and their own kinds of plug-in) found through entry points, as in inspect_ai.

Two entry-point groups, each entry's value an object (``"package.module:OBJECT"``)::

    [project.entry-points."knowsum.instruments"]     # an Instrument instance
    census = "knowsum.census:INSTRUMENT"
    [project.entry-points."knowsum.census_tasks"]    # a knowsum.census.CensusTask
    compounds = "knowsum_chem:COMPOUNDS"

knowsum registers its own three instruments the same way (its ``pyproject.toml``), so the code that
composes instruments treats a plug-in and a built-in alike. The entry's name must be the object's
``name``. A broken plug-in costs only itself: one that fails to load (any exception, ``SystemExit``
included), whose ``name`` fails, whose fields are refused (:func:`check_instrument`, or the
group's own check), that two packages register, or that shadows one of knowsum's own, is left out of
:func:`plugins` and named — package and why, in one line — by :func:`broken`; every listing shows
the healthy ones and one line per broken one, and using a broken one by name is refused with that
line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

from pydantic import BaseModel

from knowsum.errors import ConfigError, KnowsumError, UnknownNameError
from knowsum.instrument._base import ORDER_DEFAULT, Instrument
from knowsum.records import PublishedRow, Record

__all__ = [
    "INSTRUMENTS",
    "Installed",
    "broken",
    "broken_instruments",
    "check_instrument",
    "get_instrument",
    "installed",
    "instruments",
    "loaded",
    "plugins",
]

INSTRUMENTS = "knowsum.instruments"
"""The entry-point group of instruments (an instrument's own kinds of plug-in have theirs, named
by the instrument)."""
_ASKED: dict[str, None] = {}
"""The groups :func:`installed` has loaded, in order (:func:`loaded`)."""
T = TypeVar("T")


def _place(item: Installed) -> tuple[bool, int, str]:
    """Where an entry stands: knowsum's own first, then by its ``order`` (an instrument's place
    among the instruments; :data:`~knowsum.instrument.Instrument.order`), then by name."""
    order = getattr(item.obj, "order", None)
    return item.package != "knowsum", order if isinstance(order, int) else ORDER_DEFAULT, item.name


@dataclass(frozen=True, slots=True)
class Installed:
    """One registered plug-in: its name, the object, and where it comes from.

    Attributes:
        name: The entry point's name (the instrument's or task's name).
        obj: The loaded object (``None`` when it did not load).
        package: The distribution that registers it (``knowsum``, ``knowsum-chem``).
        version: That distribution's version.
        target: The entry point's value (``knowsum_chem:COMPOUNDS``).
        problem: Why it cannot be used (``failed to load: …``, ``is registered twice…``), in one
            line; ``""`` when it loaded.
    """

    name: str
    obj: Any
    package: str
    version: str
    target: str
    problem: str = ""


def _why(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _load(ep: EntryPoint) -> Installed:
    """The entry point loaded; a failure (an exception, ``SystemExit``, a ``name`` that raises or is
    not the entry's name) is kept as its :attr:`Installed.problem`, never raised."""
    dist = ep.dist
    package = dist.metadata["Name"] if dist is not None else "?"
    found = Installed(ep.name, None, package, dist.version if dist is not None else "", ep.value)
    try:
        obj = ep.load()
    except (Exception, SystemExit) as exc:  # a broken plug-in: say which one and why, in one line
        return replace(found, problem=f"failed to load: {_why(exc)}; reinstall or uninstall {package}")
    try:
        own = getattr(obj, "name", None)
    except (Exception, SystemExit) as exc:
        return replace(found, problem=f"has a name that fails: {_why(exc)}")
    if own != ep.name:  # the object is kept: one of another kind is named as such (:func:`_problem`)
        return replace(
            found,
            obj=obj,
            problem=f"is an object named {own!r}: the entry point's name must be the object's name",
        )
    return replace(found, obj=obj)


@cache
def installed(group: str) -> tuple[Installed, ...]:
    """Everything registered under ``group``: knowsum's own first, then plug-ins by name; an entry that
    cannot be used carries its :attr:`~Installed.problem` (a plug-in that fails to load, two packages
    registering one name, a package other than knowsum naming one of knowsum's instruments)."""
    _ASKED[group] = None
    found = [_load(ep) for ep in entry_points(group=group)]
    own = {i.name for i in found if i.package == "knowsum"}
    for n, item in enumerate(found):
        if item.name in own and item.package != "knowsum":
            found[n] = replace(item, obj=None, problem="shadows knowsum's own entry of that name: rename it")
    names = [i.name for i in found if not i.problem]
    for n, item in enumerate(found):
        if not item.problem and names.count(item.name) > 1:
            who = ", ".join(i.package for i in found if i.name == item.name)
            found[n] = replace(item, obj=None, problem=f"is registered twice (by {who}): uninstall one")
    return tuple(sorted(found, key=_place))


def loaded() -> list[Installed]:
    """Every entry loaded so far, of every group :func:`installed` was asked for (so a plug-in whose
    code raised is among them: it ran only after it loaded)."""
    return [i for group in _ASKED for i in installed(group)]


def _problem(item: Installed, kind: type[Any], what: str, check: Callable[[Any], None] | None) -> str:
    """Why ``item`` cannot be used as a ``kind`` (``""`` when it can). An object of another kind is
    named as that first (``INSTRUMENT = 42``: "is not a knowsum.Instrument (int)"), before a name
    that differs from the entry's, which only an object of the right kind can fix."""
    if item.obj is not None and not isinstance(item.obj, kind):
        return f"is not a {what} ({type(item.obj).__name__})"
    if item.problem:
        return item.problem
    if not isinstance(item.obj, kind):
        return f"is not a {what}"
    if check is not None:
        try:
            check(item.obj)
        except (Exception, SystemExit) as exc:
            return str(exc) if isinstance(exc, KnowsumError) else f"fails its check: {_why(exc)}"
    return ""


def broken(
    group: str, kind: type[Any], what: str, check: Callable[[Any], None] | None = None
) -> dict[str, str]:
    """The entries of ``group`` that cannot be used, by name: one line each naming the plug-in, its
    package and why (see :func:`plugins`)."""
    return {
        i.name: f"plug-in {i.name!r} ({group}, package {i.package}: {i.target}) {p}"
        for i in installed(group)
        if (p := _problem(i, kind, what, check))
    }


def plugins(group: str, kind: type[T], what: str, check: Callable[[T], None] | None = None) -> dict[str, T]:
    """The usable objects registered under ``group``, by name: each loaded, named as its entry, a
    ``kind``, and passing ``check`` (which raises on a field it refuses). The others are left out —
    a broken plug-in costs only itself — and :func:`broken` names them.

    Args:
        group: The entry-point group (:data:`INSTRUMENTS`, or an instrument's own).
        kind: The class every entry must be an instance of.
        what: How the message names ``kind`` (``knowsum.Instrument``).
        check: Validates an entry's fields (raises with one line saying what is wrong).
    """
    return {i.name: i.obj for i in installed(group) if not _problem(i, kind, what, check)}


def check_instrument(inst: Instrument[Any, Any]) -> None:
    """Refuse an instrument missing a required attribute, or with one of the wrong type: one line
    naming the attribute and what to set (:func:`broken` adds the plug-in and its package).

    Required: ``title`` (a non-empty text), ``paper``, ``summary`` and ``task_summary`` (texts),
    ``Config``, ``Record`` and ``Budget`` (pydantic model classes), ``Record.KIND`` equal to ``name``
    (a run record is read back by its kind), ``entry`` (the run function; not needed when the class
    overrides ``run``), ``published`` (a sequence of ``PublishedRow``), ``caveat_codes`` (a tuple of
    texts), ``order`` (a whole number) and ``draws`` (``None`` or a field of ``Config``).

    Raises:
        ConfigError: the first attribute missing or of the wrong type.
    """
    for attr in ("title", "paper", "summary", "task_summary"):
        value = getattr(inst, attr, None)
        if not isinstance(value, str) or (attr == "title" and not value.strip()):
            raise ConfigError(f"has no {attr} (a text): set the class attribute {attr}")
    for attr in ("Config", "Record", "Budget"):
        value = getattr(inst, attr, None)
        if not (isinstance(value, type) and issubclass(value, BaseModel)):
            raise ConfigError(f"has no {attr} (a pydantic model class): set the class attribute {attr}")
    if type(inst).run is Instrument.run and not callable(getattr(inst, "entry", None)):
        raise ConfigError("has no entry (the run function): set entry = staticmethod(run_…), or override run")
    published = getattr(inst, "published", None)
    if (
        not isinstance(published, Sequence)
        or isinstance(published, str)
        or not all(isinstance(p, PublishedRow) for p in published)
    ):
        raise ConfigError("has no published (a sequence of knowsum.records.PublishedRow, () for none)")
    codes = getattr(inst, "caveat_codes", None)
    if not isinstance(codes, tuple) or not all(isinstance(c, str) and c for c in codes):
        raise ConfigError("has no caveat_codes (a tuple of texts, () for none): set the class attribute")
    order = getattr(inst, "order", None)
    if not isinstance(order, int) or isinstance(order, bool):
        raise ConfigError(f"has order = {order!r}, not a whole number: set it (or leave the default)")
    draws = getattr(inst, "draws", None)
    if draws is not None and draws not in inst.Config.model_fields:
        raise ConfigError(f"has draws = {draws!r}, not a field of its Config: name one, or leave it None")
    if not issubclass(inst.Record, Record) or inst.name != inst.Record.KIND:
        raise ConfigError(
            f"has no Record (a knowsum.records.Record whose class attribute KIND is its name {inst.name!r}, "
            f"so that its runs are read back as its own; found KIND {getattr(inst.Record, 'KIND', None)!r})"
        )


def instruments() -> dict[str, Instrument[Any, Any]]:
    """The usable installed instruments by name, knowsum's own first (each by its ``order``); a
    broken plug-in is left out (:func:`broken_instruments` names it)."""
    return plugins(INSTRUMENTS, Instrument, "knowsum.Instrument", check_instrument)  # type: ignore[type-abstract]  # mypy: an ABC as type[T]


def broken_instruments() -> dict[str, str]:
    """The instrument plug-ins that cannot be used, by name: one line each saying why."""
    return broken(INSTRUMENTS, Instrument, "knowsum.Instrument", check_instrument)


def get_instrument(name: str) -> Instrument[Any, Any]:
    """The installed instrument ``name``.

    Raises:
        ConfigError: a plug-in of that name is broken (one line: its package and why).
        UnknownNameError: none of that name (lists the installed ones).
    """
    every = instruments()
    if name not in every:
        bad = broken_instruments()
        if name in bad:
            raise ConfigError(bad[name])
        raise UnknownNameError("instrument", name, list(every))
    return every[name]
