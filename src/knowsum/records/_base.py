"""The one run record: the fields every instrument's ``result.json`` starts with, and how it is read.

Every instrument writes one pydantic record per run. They share:

- ``version``: the schema version of *that instrument's* record (each migrates its own);
- ``kind``: the instrument's registry name;
- ``created``: UTC time the record was written (ISO 8601);
- ``run_id``: a random id drawn when the record is made, so two runs are told apart even when they
  were written in the same second with the same settings, while a copy of a run folder keeps it
  (``""`` in files older than this field);
- ``knowsum_version``: the knowsum that wrote it (``""`` in files older than this field);
- ``model``, ``backend``: what answered (model id; ``local``, ``openai``, ``mock``, or ``file``
  when the answers were scored from a file made elsewhere);
- ``kb_releases``: knowledge base → the release the run was judged against;
- ``caveats``: the typed caveats of its figures (:class:`~knowsum.records.Caveat`), which every
  surface prints from the record;
- ``identity``: what the run probed (``what``), the model and the settings that distinguish it from
  another run of the same instrument (each record class names them in :attr:`Record.IDENTITY`); a
  run directory is only rewritten by a run with the same identity
  (:func:`knowsum.records.claim_run_dir`). ``None`` in files older than this field.

:func:`load_record` reads any ``result.json`` an earlier knowsum wrote: it checks the instrument,
brings the fields up to date with the record class's :meth:`Record.migrate` and validates, and every
problem becomes one :class:`~knowsum.errors.InputFileError` naming the file.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticUndefined

from knowsum import __version__
from knowsum.caveats import Caveat
from knowsum.errors import InputFileError
from knowsum.records._usage import Usage

__all__ = ["Record", "load_record", "now_iso", "record_kinds"]

R = TypeVar("R", bound="Record")


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second (``2026-11-24T07:00:00+00:00``)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_run_id() -> str:
    """A fresh random run id (32 hex digits, UUID4): what tells two runs apart."""
    return uuid.uuid4().hex


class Record(BaseModel):
    """Base of every instrument's run record (``result.json``).

    Subclasses narrow ``kind`` to a ``Literal`` with its default (``kind: Literal["x"] = "x"``), give
    ``version`` the schema version they write as its default, and override :meth:`migrate` to read
    their older schema versions. ``KIND`` and ``VERSION`` are read from those two defaults, so each
    fact is stated once; a class that also sets them must agree with its defaults.
    """

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")

    KIND: ClassVar[str] = ""
    """The instrument: the default of ``kind``."""
    VERSION: ClassVar[int] = 1
    """The schema version this knowsum writes: the default of ``version``."""
    RUN_COMMAND: ClassVar[str] = ""
    """The command that writes such a record, named when one is missing; ``""``: ``knowsum run
    <kind>``, which runs every registered instrument (a plug-in has no command of its own)."""
    IDENTITY: ClassVar[tuple[str, ...]] = ()
    """The settings, besides ``what`` and ``model``, that make two runs of this instrument different
    runs (the keys of ``identity`` after those two, in this order)."""

    version: int = Field(description="schema version of this instrument's record")
    kind: str = Field(description="the instrument's registry name (profile: the instruments composed)")
    created: str = Field(default_factory=now_iso, description="UTC time the record was written (ISO 8601)")
    run_id: str = Field(
        default_factory=new_run_id,
        description="random id drawn when the record is made; a copy of the run keeps it ('' if older)",
    )
    knowsum_version: str = Field(__version__, description="knowsum version that wrote it ('' if older)")
    model: str = Field(description="model id (or what made the answers, when scored from a file)")
    backend: str = Field("", description="backend kind: local, openai, mock, or file ('' if unknown)")
    kb_releases: dict[str, str] = Field(
        default_factory=dict, description="knowledge base → release the answers were judged against"
    )
    identity: dict[str, str] | None = Field(
        None,
        description="what was probed, the model and the settings that distinguish this run "
        "(see IDENTITY); None in files written before this field",
    )
    usage: Usage | None = Field(None, description="requests, tokens and time of the run (None: not measured)")
    caveats: list[Caveat] = Field(
        default_factory=list,
        description="what makes the record's figures say less than they seem (tiny sample, clamped, "
        "interval n/a…), printed by every page and table; empty in files written before this field",
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Read ``KIND`` and ``VERSION`` from the defaults of ``kind`` and ``version``.

        Raises:
            TypeError: The class sets ``KIND`` or ``VERSION`` to another value than its field's
                default (a programming error: the record would be written under one name and read
                under another).
        """
        super().__pydantic_init_subclass__(**kwargs)
        for attr, name in (("KIND", "kind"), ("VERSION", "version")):
            default = cls.model_fields[name].default
            if default is PydanticUndefined:
                continue
            own = cls.__dict__.get(attr, default)
            if own != default:
                raise TypeError(
                    f"{cls.__name__}.{attr} is {own!r}, but its {name} field defaults to {default!r}"
                )
            setattr(cls, attr, default)

    @classmethod
    def identity_of(cls, what: str, model: str, **settings: object) -> dict[str, str]:
        """The identity of a run of this instrument: ``what`` (task, KB or scored file), the model and
        exactly the settings named in :attr:`IDENTITY`, each as text (``None`` → ``""``, sequences
        comma-joined).

        Raises:
            TypeError: ``settings`` are not exactly :attr:`IDENTITY` (a programming error).
        """
        if set(settings) != set(cls.IDENTITY):
            raise TypeError(f"{cls.__name__} identity takes {cls.IDENTITY}, got {tuple(settings)}")
        return {"what": what, "model": model, **{k: _identity_text(settings[k]) for k in cls.IDENTITY}}

    @classmethod
    def identity_from(cls, what: str, model: str, config: object, **settings: object) -> dict[str, str]:
        """:meth:`identity_of` with each setting of :attr:`IDENTITY` not given in ``settings`` read from
        ``config``'s attribute of that name (the run configuration)."""
        own = {k: getattr(config, k) for k in cls.IDENTITY if k not in settings}
        return cls.identity_of(what, model, **own, **settings)

    def comparable_on(self) -> dict[str, str]:
        """What must agree for this run to stand beside another in one table (label → value as text);
        each record class adds what its instrument measured (:func:`knowsum.records.check_comparable`)."""
        return {"knowledge base": ", ".join(f"{k} {v}" for k, v in sorted(self.kb_releases.items()))}

    @classmethod
    def foreign(cls, kind: str, version: object) -> bool:
        """Whether a file of ``kind`` (not :attr:`KIND`) at ``version`` is another instrument's record,
        refused as such, rather than an older file of this one whose ``kind`` meant something else
        (a subclass says which); by default any other kind is another instrument's."""
        return True

    @classmethod
    def migrate(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """Bring ``data``, written with schema ``version`` (< :attr:`VERSION`), to the current schema.

        The default only fills the shared fields that older files lack; subclasses add their own
        steps and call it.
        """
        data.setdefault("knowsum_version", "")
        data.setdefault("kind", cls.KIND)
        data["version"] = cls.VERSION
        return data


def _identity_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return ",".join(_identity_text(v) for v in items)
    if isinstance(value, dict):
        return ",".join(f"{k}={_identity_text(v)}" for k, v in value.items())
    return str(value)


def record_kinds() -> set[str]:
    """The ``kind`` of every record class defined so far: knowsum's and each loaded plug-in's (a
    plug-in's record class is defined once its instrument is loaded; the registry sits above this
    layer, so the classes themselves are the list)."""
    kinds: set[str] = set()
    todo: list[type[Record]] = [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.KIND:
                kinds.add(sub.KIND)
    return kinds


def _read_json(file: Path, kind: str, command: str) -> Any:
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        hint = f"run `{command or f'knowsum run {kind}'}` first, or pass a {kind} run directory"
        raise InputFileError(file, f"no {kind} result here ({hint})") from None
    except IsADirectoryError:
        raise InputFileError(file, f"is a folder, not a {kind} result.json") from None
    except UnicodeDecodeError:
        raise InputFileError(
            file, f"cannot read a {kind} result (not UTF-8 text); pass a {kind} run directory"
        ) from None
    except json.JSONDecodeError as exc:
        raise InputFileError(
            file,
            f"cannot read a {kind} result (not JSON: {exc.msg} at line {exc.lineno}); "
            f"pass a {kind} run directory or its result.json",
        ) from None
    except OSError as exc:
        raise InputFileError(
            file, f"cannot read a {kind} result ({exc.strerror}); pass a {kind} run directory"
        ) from None


def load_record(path: Path, cls: type[R]) -> R:
    """Read the ``result.json`` of a run of ``cls.KIND`` (``path``: the run directory or the file).

    Older schema versions are migrated (:meth:`Record.migrate`); a newer one is refused.

    Raises:
        InputFileError: missing, unreadable, another instrument's record, an unsupported schema
            version, or an invalid field; the message names the file.
    """
    kind = cls.KIND
    file = path / "result.json" if path.is_dir() else path
    data = _read_json(file, kind, cls.RUN_COMMAND)
    if not isinstance(data, dict):
        raise InputFileError(file, f"not a {kind} result.json (not a JSON object)")
    other = data.get("kind")
    if isinstance(other, str) and other and other != kind and cls.foreign(other, data.get("version")):
        raise InputFileError(file, f"not a {kind} result.json (kind {other!r}); pass a {kind} run directory")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= cls.VERSION:
        raise InputFileError(
            file,
            f"unsupported {kind} result version {version!r} (this knowsum reads 1 to {cls.VERSION}; "
            "a newer file needs a newer knowsum)",
        )
    if version < cls.VERSION:
        data = cls.migrate(dict(data), version)
    if data.get("kind") != kind:
        raise InputFileError(file, f"not a {kind} result.json (kind {data.get('kind')!r})")
    data = {"run_id": "", **data}  # a file older than run_id has none (not a fresh one per read)
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "record"
        raise InputFileError(file, f"invalid {kind} result field {where}: {err['msg']}") from None
