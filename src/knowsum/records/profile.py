"""The record of a profile (``profile.json``): one model, every instrument of a budget, one page.

A profile runs the instruments a budget names (knowsum's own and any plug-in) on one model
and one response store (:func:`knowsum.profile.run_profile`). Its record carries everything the page
shows, so the report layer never imports an instrument: per instrument its page title, the measures
with their intervals and methods, the published values of the papers on the same measures, the
caveats of each comparison; the plan with its requests, tokens, time and cost, and the usage of the
whole run. Schema versions::

    1  the first record: one field per instrument (census, recall, genebench)
    2  instruments: name → part, in the registry's order (any installed instrument); each part
       carries its page title
    3  a measure's published points are the papers' rows (:class:`~knowsum.records.PublishedRow`:
       model, paper, table, measure, value) instead of ``{label, model, value}``; the label is
       derived from them (a version-2 point's label is split back into paper and table)
    4  a measure's caveats are one list of :class:`~knowsum.caveats.Caveat`: the notes on how it
       compares (kind ``note``, formerly plain strings) and its run's typed caveats (formerly
       ``marks``); older measures are read into that list
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowsum._util import old_names
from knowsum.caveats import NOTE, Caveat, as_notes
from knowsum.records._base import Record
from knowsum.records._published import PublishedRow, split_label
from knowsum.records._usage import Usage

__all__ = [
    "PROFILE_VERSION",
    "InstrumentPlan",
    "InstrumentProfile",
    "Measure",
    "PlanSummary",
    "Prices",
    "ProfileRecord",
]

PROFILE_VERSION = 4

_SLACK = 1e-9
"""How far (relative to ``max(1, |value|)``) an interval's end may miss its value by rounding alone."""

_V1_TITLES = {
    "census": "Census — how many items would it name? (KnowSum)",
    "recall": "Recall — which ontology IDs has it memorized? (Bombieri et al.)",
    "genebench": "Genebench — how does it reason from gene knowledge? (SciHorizon-GENE)",
}
"""The page titles of version-1 records' three parts (later records carry their own)."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Measure(_Part):
    """One row of the card: a value, its interval, how it was computed, and whom to compare it with."""

    key: str = Field(description="stable key, <instrument>/<measure> (its registry name first)")
    instrument: str = Field(description="the instrument's registry name")
    label: str = Field(description="what the row says, e.g. 'diseases (relaxed) N̂_tot'")
    value: float | None
    lower: float | None = None
    upper: float | None = None
    percent: bool = Field(False, description="a fraction shown as a percentage")
    count: bool = Field(False, description="a whole count, shown with thousands separators (12,345)")
    ranked_by: str | None = Field(
        None,
        description="key of the measure whose ranking of the models this one's is set against in a "
        "comparison (a rank change 'by that → by this'; None: not ranked)",
    )
    rank_label: str = Field(
        "",
        description="how a comparison's rank column names the two rankings of a ranked measure, "
        "'<by ranked_by> → <by this one>' (e.g. 'N_seen → N̂_tot'; '': plain 'rank')",
    )
    method: str = Field(description="how the value and its interval were computed")
    run: str = Field(description="the run directory, relative to the profile folder")
    published: list[PublishedRow] = Field(
        default_factory=list, description="the papers' rows on this measure"
    )
    caveats: list[Caveat] = Field(
        default_factory=list,
        description="the figure's caveats: notes on how it compares with the papers (kind 'note', listed "
        "under 'Is the comparison fair?') and its run's typed caveats, copied from the record (marked "
        "beside the value)",
    )
    interval_reason: str | None = Field(None, description="why the interval is n/a (shown 'n/a: REASON')")
    value_reason: str | None = Field(
        None,
        description="why there is no value (shown 'n/a: REASON'; None: a value, or a file written before "
        "the reason was kept)",
    )

    @property
    def marks(self) -> list[Caveat]:
        """The caveats marked beside the value: every caveat but the notes."""
        return [c for c in self.caveats if c.kind != NOTE]

    @property
    def notes(self) -> list[str]:
        """The notes on how the figure compares (their sentences), in order."""
        return [c.message for c in self.caveats if c.kind == NOTE]

    @model_validator(mode="after")
    def _sound(self) -> Measure:
        """A value and its interval are finite numbers (``-0.0`` read as ``0.0``), the interval holds its
        value, and a reason for no value comes without one: anything else is a bug of the instrument
        that made the row, named with its key. An end that misses the value by rounding alone (within
        :data:`_SLACK`, relative) is moved onto it."""
        where = f"instrument {self.instrument!r}, measure {self.key!r}"
        for name in ("value", "lower", "upper"):
            x = getattr(self, name)
            if x is not None and not math.isfinite(x):
                raise ValueError(
                    f"{where}: {name} {x!r} is not a finite number (a value that cannot be computed "
                    "is None, with value_reason saying why)"
                )
            if x is not None:
                object.__setattr__(self, name, x + 0.0)  # -0.0 + 0.0 is 0.0
        lo, v, hi = self.lower, self.value, self.upper
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"{where}: its interval [{lo!r}, {hi!r}] has its lower end above its upper end")
        if v is not None:
            slack = _SLACK * max(1.0, abs(v))
            if (lo is not None and lo > v + slack) or (hi is not None and hi < v - slack):
                raise ValueError(f"{where}: its interval [{lo!r}, {hi!r}] does not hold its value {v!r}")
            object.__setattr__(self, "lower", None if lo is None else min(lo, v))
            object.__setattr__(self, "upper", None if hi is None else max(hi, v))
            if self.value_reason is not None:
                raise ValueError(
                    f"{where}: has a value ({v!r}) and a reason for having none ({self.value_reason!r})"
                )
        return self

    @model_validator(mode="before")
    @classmethod
    def _older_files(cls, data: Any) -> Any:
        """A profile written before measures said how they format and rank: its counts (``…/n_seen``,
        ``…/n_total``), its one ranked measure (``…/n_total`` against ``…/n_seen``) and that rank
        column's name, as they were shown then (a migration map of old files, by key). A measure of
        version 3 or older (or made with the old keyword ``marks=``): its plain-sentence caveats become
        notes, followed by its ``marks``."""
        if not (isinstance(data, dict) and isinstance(key := data.get("key"), str)):
            return data
        if "marks" in data or any(isinstance(c, str) for c in data.get("caveats") or ()):
            notes, marks = as_notes(data.get("caveats") or ()), data.get("marks") or []
            data = {**{k: v for k, v in data.items() if k != "marks"}, "caveats": [*notes, *marks]}
        if "count" not in data:
            data = {**data, "count": key.endswith(("/n_seen", "/n_total"))}
            if key.endswith("/n_total") and "ranked_by" not in data:
                data["ranked_by"] = key.removesuffix("/n_total") + "/n_seen"
        if "rank_label" not in data and key.endswith("/n_total") and data.get("ranked_by"):
            data = {**data, "rank_label": "N_seen → N̂_tot"}
        return data


class InstrumentProfile(_Part):
    """What one instrument contributed: its page title, runs (name → folder), measures and usage."""

    title: str = Field("", description="the page section's title (the instrument's question and paper)")
    runs: dict[str, str] = Field(default_factory=dict, description="run name → folder (relative)")
    measures: list[Measure] = Field(default_factory=list)
    usage: Usage | None = None
    examples: list[str] = Field(default_factory=list, description="a few raw model replies (model text)")


class InstrumentPlan(_Part):
    """Requests, tokens, time and cost of one instrument's part of a plan (distinct requests)."""

    requests: int
    stored: int = Field(description="already answered in the store (not asked again)")
    prompt_tokens: int
    prompt_tokens_estimated: bool = Field(description="estimated (~4 characters a token), not counted")
    completion_tokens: int = Field(description="upper bound: Σ max_tokens (stored: as generated)")
    completion_tokens_expected: int | None = Field(
        None, description="expected: stored as generated, pending from this model's earlier responses"
    )
    seconds_expected: float | None = Field(None, description="expected wall time of the pending requests")
    cost_usd: float | None = Field(None, description="at the given prices, upper bound (all requests)")
    cost_expected_usd: float | None = None


@dataclass(frozen=True, slots=True)
class Prices:
    """A provider's price list: USD per million prompt and per million completion tokens."""

    prompt: float
    completion: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for the tokens: (prompt tokens · prompt price + completion tokens · completion price) / 10⁶,
        rounded to the micro-dollar."""
        return round((prompt_tokens * self.prompt + completion_tokens * self.completion) / 1e6, 6)


class PlanSummary(_Part):
    """A profile's plan: per instrument, and in all."""

    budget: str
    description: str = ""
    requests: int
    stored: int
    prompt_tokens: int
    completion_tokens: int
    completion_tokens_expected: int | None
    seconds_expected: float | None
    cost_usd: float | None
    cost_expected_usd: float | None
    price_in: float | None = Field(None, description="USD per million prompt tokens")
    price_out: float | None = Field(None, description="USD per million completion tokens")
    tokens_source: str = Field(description="how prompt tokens were counted")
    time_source: str = Field(description="where the expected time comes from")
    instruments: dict[str, InstrumentPlan]

    @property
    def prices(self) -> Prices | None:
        """The plan's prices (``None``: none given, so no cost)."""
        if self.price_in is None or self.price_out is None:
            return None
        return Prices(self.price_in, self.price_out)


class ProfileRecord(Record):
    """``profile.json``: the whole-model profile (:func:`knowsum.profile.run_profile`)."""

    RUN_COMMAND: ClassVar[str] = "knowsum profile run"

    version: int = Field(PROFILE_VERSION, description="schema version of the profile record")
    kind: Literal["profile"] = "profile"
    budget: str = Field(description="smoke, quick, paper, or the plan file's name")
    plan: PlanSummary
    instruments: dict[str, InstrumentProfile] = Field(
        default_factory=dict, description="instrument name → its part, in the registry's order"
    )
    cost_usd: float | None = Field(None, description="cost of the responses used, at the plan's prices")
    notes: list[str] = Field(default_factory=list)

    def measures(self) -> list[Measure]:
        """Every measure, instrument by instrument."""
        return [m for p in self.instruments.values() for m in p.measures]

    def comparable_on(self) -> dict[str, str]:
        """Profiles stand side by side when they ran the same budget (the same requests per
        instrument: a smoke profile's figures beside a quick one's compare sample sizes, not models)."""
        return {"budget": self.budget}

    @classmethod
    def migrate(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """Version 1 → 2: the three instrument fields become ``instruments`` (with their titles);
        2 → 3: each published point ``{label, model, value}`` becomes a :class:`PublishedRow`;
        3 → 4: each measure's caveats become one typed list (:class:`Measure`'s own reading)."""
        if version < 2:
            parts = {name: data.pop(name, None) for name in _V1_TITLES}
            data["instruments"] = {
                name: {"title": _V1_TITLES[name], **part} for name, part in parts.items() if part is not None
            }
        if version < 3:
            for part in data.get("instruments", {}).values():
                for m in part.get("measures", []) if isinstance(part, dict) else []:
                    m["published"] = [_v2_point(m, p) for p in m.get("published", [])]
        return super().migrate(data, version)


def _v2_point(measure: dict[str, Any], point: Any) -> Any:
    """A version-2 point ``{label, model, value}`` of ``measure`` as a :class:`PublishedRow`'s fields:
    paper and table split from its label, the measure its row's key without the instrument."""
    if not (
        isinstance(point, dict)
        and isinstance(point.get("label"), str)
        and isinstance(point.get("model"), str)
    ):
        return point  # validation names what is wrong
    paper, table = split_label(point.pop("label"), point["model"])
    key = str(measure.get("key", ""))
    return {
        **point,
        "paper": paper,
        "table": table,
        "measure": key.removeprefix(f"{measure.get('instrument')}/"),
    }


__getattr__ = old_names(__name__, {"ProfileResult": ("knowsum.records.profile", "ProfileRecord")})
"""The record's old name ``ProfileResult`` still works, with a ``DeprecationWarning``."""
