"""One wording for invalid configuration values, wherever they come from (CLI option, TOML file,
library call): ``WHERE: invalid FIELD=VALUE: PROBLEM``."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypeVar

from pydantic import ValidationError

from knowsum.errors import ConfigError

__all__ = ["config_error", "known_values"]

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
