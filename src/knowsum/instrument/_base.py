"""The instrument interface: what an instrument is to the code that composes instruments.

An instrument is one object (inspect_ai's ``Task``, at knowsum's size)::

    knowsum.Instrument
      name · title · paper · Config · Record · Budget · published
      requests(config, kbs)   the requests its run sends — the only place it builds them
      run(config, backend, *, store, out, progress, overwrite)   → Run[Record]
      measures(record, run)   the card rows: value, interval, method, caveats, published points
      identity(config)        what makes two runs of it the same run (its stored configuration)
      steps(table)            a budget TOML's table → the runs of a profile
      figures(record)         the figures an evaluation harness's log shows (default: the card rows)
      task_defaults() · task_args(given) · task_summary · reply_items(config) · draws
                              its harness task (``inspect eval knowsum/<name>``): defaults, arguments,
                              one line, the items of one reply, which field epochs multiply

The profile, its plan, the card, the page and ``profile compare`` only call these: they name no
instrument. Instruments register under the ``knowsum.instruments`` entry-point group
(:mod:`knowsum.instrument._registry`), so a third-party package adds one without touching knowsum.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError

from knowsum.caveats import as_notes
from knowsum.errors import ConfigError
from knowsum.instrument._helpers import budget_keys, check_per_key, limits, release_caveat, wilson
from knowsum.records import Caveat, PublishedRow, Record, Run
from knowsum.records.profile import Measure

if TYPE_CHECKING:
    import click

    from knowsum.kb import Ontology
    from knowsum.models import Backend, Request, ResponseStore

RunRecord = Record
"""Any run record (the ``Record`` class attribute of an instrument shadows the name in its body)."""


__all__ = [
    "Instrument",
    "KBs",
    "Measure",
    "ReplyItems",
    "RunRecord",
    "Step",
    "check_per_key",
    "limits",
    "release_caveat",
    "wilson",
]

ORDER_DEFAULT = 100
"""An instrument's :attr:`Instrument.order` unless it sets one (after knowsum's own)."""

ReplyItems = Callable[[str, int], list[dict[str, Any]]]
"""The items of one reply (its text and sample index), each ``{"text", "status", "key", "name"}``:
the item as the model wrote it, ``"valid"`` or why not, the key it counts under, its matched name."""

C = TypeVar("C", bound=BaseModel)
R = TypeVar("R", bound=Record)


@dataclass(frozen=True, slots=True)
class Step:
    """One instrument run of a profile: which instrument, its folder name, its configuration, a label."""

    instrument: str
    name: str
    config: BaseModel
    label: str


class KBs:
    """Knowledge bases loaded once and shared by the steps of one plan (``requests(config, kbs)``)."""

    def __init__(self) -> None:
        self._ontologies: dict[str, Ontology] = {}

    def ontology(self, name: str) -> Ontology:
        """The installed ontology ``name``, loaded on first use.

        Raises:
            KBNotInstalledError: not installed (the message gives the install command).
        """
        if name not in self._ontologies:
            from knowsum.kb import load_ontology

            self._ontologies[name] = load_ontology(name)
        return self._ontologies[name]


class Instrument(ABC, Generic[C, R]):
    """One instrument as the profile and the command line see it (module docstring).

    Subclasses set the class attributes (``entry`` among them: the run function) and implement
    :meth:`requests`, :meth:`measures` and :meth:`steps`; the rest has defaults. ``Config`` and
    ``Record`` come from the type parameters (``Instrument[CapitalsConfig, CapitalsRecord]``), so a
    subclass names them once.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Set ``Config`` and ``Record`` from ``Instrument[C, R]`` where the subclass does not."""
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            args = get_args(base)
            if get_origin(base) is Instrument and all(isinstance(a, type) for a in args):
                for attr, value in zip(("Config", "Record"), args, strict=True):
                    if attr not in cls.__dict__:
                        setattr(cls, attr, value)

    name: ClassVar[str]
    """Registry name, the budget table's name and the profile folder prefix (``capitals``)."""
    title: ClassVar[str]
    """The page section's title: the question it answers and its paper."""
    paper: ClassVar[str] = ""
    """The paper its method and published values come from, short (``KnowSum``)."""
    Config: type[C]
    """The pydantic configuration of one run (the first type parameter)."""
    Record: type[R]
    """The pydantic record its run writes (``result.json``; the second type parameter)."""
    Budget: type[BaseModel]
    """Its table in a budget TOML (``[capitals]``): how big its part of a profile is."""
    published: Sequence[PublishedRow] = ()
    """Every value its papers published (the card places the model among them on ``measure``)."""
    summary: ClassVar[str] = ""
    """One line beside its command group in ``knowsum --help`` (see :meth:`command`)."""
    task_summary: ClassVar[str] = ""
    """One line describing its harness task ``knowsum/<name>`` (inspect shows it; default: the title)."""
    order: ClassVar[int] = ORDER_DEFAULT
    """Its place among the instruments (listings, a profile's parts and page): knowsum's own first
    whatever a plug-in sets, then by ``order``, then by name (knowsum's own: 10, 20, 30)."""
    caveat_codes: ClassVar[tuple[str, ...]] = ()
    """The kinds of the caveats its :meth:`figures` mark that no other instrument has
    (``popularity-na``): a harness log shows ``caveat_<code>`` = 1 or 0 for each, in every task."""
    draws: ClassVar[str | None] = None
    """The field of ``Config`` that counts draws of one prompt (``queries``) when its run scores the
    draws it got, however many: a harness's epoch ``e`` of sample index ``i`` is then the request of
    index ``i + (e−1)·Q`` (``Q`` that field), and a log answering part of the requests is the run of
    the replies it holds. ``None`` (the default): its run scores one reply per request and whole runs
    only."""

    @abstractmethod
    def requests(self, config: C, kbs: KBs) -> list[Request]:
        """Exactly the requests a run of ``config`` sends (same prompts, parameters, sample indices).

        Raises:
            KBNotInstalledError: a knowledge base it needs.
            ConfigError: a setting it refuses.
        """

    entry: Callable[..., Run[R]]
    """The instrument's run function, ``entry(config, backend, *, store, out, progress, overwrite)``
    (``run_capitals``…); :meth:`run` calls it. Set it with ``staticmethod(run_x)``, or override
    :meth:`run`."""

    def run(
        self,
        config: C,
        backend: Backend,
        *,
        store: ResponseStore,
        out: Path | None = None,
        progress: bool | None = None,
        overwrite: bool = False,
    ) -> Run[R]:
        """Run ``config`` on ``backend`` through ``store`` and write the run directory ``out`` (default:
        ``<name>-runs/…``); ``overwrite`` empties an ``out`` that holds another run first."""
        return self.entry(config, backend, store=store, out=out, progress=progress, overwrite=overwrite)

    @abstractmethod
    def measures(self, record: R, run: str) -> list[Measure]:
        """The card rows of one finished run (``run``: its folder, relative to the profile)."""

    @abstractmethod
    def steps(self, table: BaseModel) -> list[Step]:
        """The runs a profile makes of this instrument's budget ``table`` (an instance of ``Budget``)."""

    def identity(self, config: C) -> dict[str, Any]:
        """What makes two runs the same run, as its record stores it (default: the whole config)."""
        return config.model_dump(mode="json")

    def recorded(self, record: R) -> dict[str, Any]:
        """The configuration ``record`` stores (compared with :meth:`identity`)."""
        value = getattr(record, "config", None)
        return value if isinstance(value, dict) else {}

    def same_run(self, record: R, config: C, backend: Backend) -> bool:
        """Whether ``record`` is a finished run of ``config`` by ``backend``'s model: the one test the
        profile asks before reading a run back instead of running it again."""
        stored = self.recorded(record)
        same = all(stored.get(k) == v for k, v in self.identity(config).items())
        return same and record.model == backend.model_id and record.backend == backend.kind

    def command(self) -> click.Group | None:
        """Its command group, ``knowsum <name> …`` (imported only when asked for); ``None``: it has no
        commands of its own (the default). The top-level command line adds it from the registry."""
        return None

    def figures(self, record: R) -> list[Measure]:
        """The figures of ``record`` an evaluation harness's log shows (inspect's metric group
        ``knowsum``), the same names for every run of it: a row's key after ``<name>/`` is the figure's
        name, its interval (both bounds, or ``interval_reason`` saying why there is none) adds
        ``<figure>_lower`` and ``<figure>_upper``, and its caveats (a note under ``note``, a typed
        caveat under its kind) are the figures' caveats. Default: the card rows (:meth:`measures`)."""
        return self.measures(record, "")

    def figure(
        self,
        name: str,
        value: float | None,
        method: str,
        *,
        interval: tuple[float | None, float | None] | None = None,
        interval_reason: str | None = None,
        caveats: Sequence[str | Caveat] = (),
        marks: Sequence[Caveat] = (),
    ) -> Measure:
        """One row of :meth:`figures`: the figure ``name`` (its key ``<name>/<figure>`` and its label),
        ``value`` as a float; ``interval_reason`` (why there is no ``interval``) keeps its interval's
        names in the log when it has none."""
        return self.measure(
            name,
            name,
            None if value is None else float(value),
            method,
            run="",
            caveats=caveats,
            interval=interval,
            interval_reason=None if interval is not None else interval_reason,
            marks=marks,
        )

    def task_defaults(self) -> dict[str, Any]:
        """The task arguments its harness task fills when they are not given (default: none, the
        configuration's own defaults)."""
        return {}

    def task_args(self, given: dict[str, Any]) -> dict[str, Any]:
        """The task arguments ``given`` as its configuration takes them (default: unchanged); e.g. an
        argument that implies another, as its command-line option does."""
        return given

    def reply_items(self, config: C) -> ReplyItems | None:
        """How a harness's scorer reads one reply into items, each checked (:data:`ReplyItems`);
        ``None`` (the default): a reply is scored only with every other, by its run."""
        return None

    def examples(self, record: R) -> list[str]:
        """A few raw model replies the page shows (model text; default none)."""
        return []

    def budget_table(self, budget: str) -> dict[str, Any] | None:
        """Its table of the shipped budget ``budget`` (``smoke``, ``quick``, ``paper``): the file
        ``budgets/<budget>.toml`` of the package its class is defined in (``mypackage/capitals/``);
        ``None`` when it ships none (then that budget leaves it out). Override to supply them otherwise.

        Raises:
            ConfigError: the shipped file is not valid TOML.
        """
        import sys
        import tomllib
        from importlib import resources

        module = type(self).__module__  # its package: the module itself when it is one
        package = module if hasattr(sys.modules.get(module), "__path__") else module.rpartition(".")[0]
        try:
            file = resources.files(package).joinpath("budgets", f"{budget}.toml")
            if not file.is_file():
                return None
            return tomllib.loads(file.read_text(encoding="utf-8"))
        except (ModuleNotFoundError, TypeError, ValueError):  # no package (a class in __main__)
            return None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{self.name}: budgets/{budget}.toml is not valid TOML: {exc}") from None

    def read_budget(self, data: dict[str, Any], plan: Path | None) -> BaseModel:
        """The budget table ``data`` as a ``Budget`` (``plan``: the plan file, to resolve paths); a key
        that is not a field of ``Budget`` is refused, whatever its ``extra`` setting.

        Raises:
            pydantic.ValidationError, ConfigError: a bad key or value.
        """
        budget_keys(self.Budget, data, self.name)
        return self.Budget.model_validate(data)

    def points(self, measure: str) -> list[PublishedRow]:
        """The published rows on ``measure`` (a key of :attr:`published`)."""
        return [p for p in self.published if p.measure == measure]

    def measure(
        self,
        key: str,
        label: str,
        value: float | None,
        method: str,
        *,
        run: str,
        caveats: Sequence[str | Caveat] = (),
        interval: tuple[float | None, float | None] | None = None,
        published: Sequence[PublishedRow] | None = None,
        percent: bool = False,
        count: bool = False,
        ranked_by: str | None = None,
        rank_label: str = "",
        record: RunRecord | None = None,
        marks: Sequence[Caveat] = (),
        interval_reason: str | None = None,
        value_reason: str | None = None,
    ) -> Measure:
        """One card row ``<name>/<key>``; ``published`` defaults to :meth:`points` of ``key``.

        ``record``: the run whose typed caveats the row carries (its marks, and the reason its
        interval is n/a), rendered from the record on every surface, never re-derived. ``count``: a
        whole count (printed ``12,345``); ``ranked_by``: the key (without ``<name>/``) of the measure
        whose ranking of models a comparison sets this one's against, and ``rank_label`` how the
        comparison's rank column names the two (``"N_seen → N̂_tot"``). ``percent``: a fraction
        printed as a percentage (``42.0%``); neither: three decimals. ``caveats``: sentences on how
        the row compares with the papers (each becomes a caveat of kind ``note``, listed under "Is
        the comparison fair?"; a ``Caveat`` there is kept, marked on the value); ``marks``: the row's
        own typed caveats (beside the record's); all are the measure's one list ``caveats``.
        ``interval_reason``: why it has no interval (overrides the record's); ``value_reason``: why
        ``value`` is ``None`` (printed ``n/a: REASON`` instead of a bare dash).

        Raises:
            ValueError: a value or interval end that is not a finite number, an interval that does not
                hold its value, or a ``value_reason`` beside a value: a bug of the instrument, named
                with the row's key (``-0.0`` is read as ``0.0``).
        """
        lo, hi = interval if interval is not None else (None, None)
        fields: dict[str, Any] = {
            "key": f"{self.name}/{key}",
            "instrument": self.name,
            "label": label,
            "value": value,
            "lower": lo,
            "upper": hi,
            "percent": percent,
            "count": count,
            "ranked_by": None if ranked_by is None else f"{self.name}/{ranked_by}",
            "rank_label": rank_label,
            "method": method,
            "run": run,
            "published": list(self.points(key) if published is None else published),
            "caveats": [*as_notes(caveats), *([] if record is None else record.caveats), *marks],
            "interval_reason": interval_reason
            or (getattr(record, "interval_reason", None) if interval is not None else None),
            "value_reason": value_reason,
        }
        try:
            return Measure(**fields)
        except ValidationError as exc:  # the row's own check (Measure._sound) names the key
            raise ValueError(
                "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
            ) from None
