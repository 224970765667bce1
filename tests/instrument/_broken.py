"""Broken plug-in shapes, each an entry-point target of its own (``tests.instrument._broken:NAME``):
built on first access (the module's ``__getattr__``), so that one shape failing does not take the
others with it, as separate packages would not."""

from __future__ import annotations

from typing import Any

from knowsum.census import CensusTask
from knowsum.kb import Ontology
from tests.instrument._yes import YesInstrument


class _NameRaises:
    @property
    def name(self) -> str:
        raise KeyError("name")


class _NoTitle(YesInstrument):
    name = "notitle"
    title = None  # type: ignore[assignment]  # what a plug-in author forgot


def _missing(attr: str, value: Any) -> YesInstrument:
    """The yes instrument named ``no<attr>`` (lower case) with its attribute ``attr`` set to ``value``
    (``None``: what a plug-in author forgot), as a class of its own."""
    cls = type(f"_No{attr}", (YesInstrument,), {"name": f"no{attr.lower()}", attr: value})
    return cls()  # type: ignore[no-any-return]


MISSING = {
    "Budget": None,
    "Config": None,
    "entry": None,
    "Record": YesInstrument.Config,  # a model, but no run record (no KIND)
    "summary": None,
    "task_summary": 3,
    "published": None,
    "caveat_codes": "popularity-na",  # a text, not a tuple of them
    "draws": "answers",  # not a field of its Config
    "order": "first",  # a text, not a whole number
}
"""A required attribute each shape lacks (or holds of the wrong type), with the value it holds."""


def _vocabulary_raises() -> Ontology:
    raise RuntimeError("the vocabulary server is down")


def _task(name: str, **fields: Any) -> CensusTask:
    base: dict[str, Any] = {
        "name": name,
        "description": "a broken task",
        "prompt": "List {n} things.",
        "vocabulary": _vocabulary_raises,
    }
    return CensusTask(**{**base, **fields})


def __getattr__(name: str) -> Any:
    if name == "NAME_RAISES":
        return _NameRaises()
    if name == "NO_TITLE":
        return _NoTitle()
    if name == "EARLY":  # a plug-in that asks to stand first (its record's kind is not its name)
        return type("_Early", (YesInstrument,), {"name": "zearly", "order": 0})()
    if name == "EXITS":
        raise SystemExit(0)
    if name == "VOCABULARY_RAISES":
        return _task("boom")
    if name == "BOGUS_DECODER":
        return _task("bogus", decoder="bogus")
    if name == "NO_ANSWERS":
        return _task("noanswers", answers=0)
    if name == "NO_N":
        return _task("non", prompt="List some things.")
    if name == "SHADOWS":
        return _task("diseases")
    if name.startswith("NO_") and name.removeprefix("NO_") in MISSING:
        attr = name.removeprefix("NO_")
        return _missing(attr, MISSING[attr])
    raise AttributeError(name)
