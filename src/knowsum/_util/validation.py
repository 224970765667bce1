"""One wording for invalid configuration values, wherever they come from (CLI option, TOML file,
library call): ``WHERE: invalid FIELD=VALUE: PROBLEM``."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from knowsum.errors import ConfigError

__all__ = ["config_error", "known_values", "no_quoted_values"]

_V = TypeVar("_V", bound=Sequence[str])

_PREFIXES = ("Value error, ", "Assertion failed, ")


def config_error(exc: ValidationError, where: str, table: str = "") -> ConfigError:
    """One readable line from a pydantic error: ``where: invalid field=value: problem``.

    ``table``: the TOML table the validated model is (``census``), named before the field.

    The first error is shown (``(and N more)`` counts the others); pydantic's ``Value error,``
    prefix is dropped, so a validator's own sentence reads as written.
    """
    errors = exc.errors()
    err = errors[0]
    field = ".".join(str(p) for p in ([table] if table else []) + list(err["loc"])) or "config"
    value = err.get("input")
    shown = "" if isinstance(value, dict) else f"={value!r}"
    msg = str(err["msg"])
    for prefix in _PREFIXES:
        msg = msg.removeprefix(prefix)
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return ConfigError(f"{where}: invalid {field}{shown}: {msg}{more}")


def known_values(values: _V, known: Collection[str], what: str, listed: str = "known") -> _V:
    """``values`` if each is one of ``known``, for a pydantic validator to return.

    Raises:
        ValueError: ``unknown WHAT [bad, …]; LISTED: a, b, …`` (``unknown task(s) ['Q9']; known: Q1, …``).
    """
    bad = [v for v in values if v not in known]
    if bad:
        raise ValueError(f"unknown {what} {bad}; {listed}: {', '.join(known)}")
    return values


def _quoted(annotation: Any, value: Any) -> bool:
    """Whether ``value`` holds text that pydantic's lax mode would turn into a number or a flag."""
    if not isinstance(value, (str, list)):
        return False
    try:
        read = TypeAdapter(annotation).validate_python(value)
    except ValidationError:
        return False  # refused anyway, with pydantic's own reason
    if isinstance(value, str):
        return isinstance(read, (bool, int, float))
    if not isinstance(read, (list, tuple)):
        return False
    numbers = (bool, int, float)
    return any(isinstance(v, str) and isinstance(r, numbers) for v, r in zip(value, read, strict=False))


def no_quoted_values(model: type[BaseModel], data: Mapping[str, Any], where: str, table: str = "") -> None:
    """Refuse a TOML value written as text where ``model``'s field takes a number or a flag.

    TOML types its values, so ``queries = "3"`` is the text "3", not the number 3; pydantic's lax
    mode would read it as 3 (and ``"true"`` as a flag), and the file would run as if written
    otherwise. Every TOML file knowsum reads into a model (census config, budget and plan tables)
    is checked here before validation, each top-level key and each element of an array.

    Raises:
        ConfigError: ``WHERE: invalid TABLE.KEY='3': a number or true/false is written without
            quotes in TOML (KEY = 3)``.
    """
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is not None and _quoted(field.annotation, value):
            shown = f"{table}.{key}" if table else key
            bare = ", ".join(map(str, value)) if isinstance(value, list) else value
            written = f"[{bare}]" if isinstance(value, list) else bare
            raise ConfigError(
                f"{where}: invalid {shown}={value!r}: a number or true/false is written without quotes "
                f"in TOML ({key} = {written})"
            )
