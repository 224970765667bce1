"""What an instrument's code uses beside the interface: the Wilson interval of a share, the caveat of
a comparison with a paper, and the checks of a budget table (its keys, its numbers' bounds)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, Field, Strict, TypeAdapter, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

__all__ = ["budget_keys", "check_per_key", "limits", "release_caveat", "wilson"]

_Z = 1.959963984540054


def wilson(successes: float, n: int) -> tuple[float | None, float | None]:
    """The 95 % Wilson score interval of ``p̂ = successes / n`` (``(None, None)`` when ``n = 0``).

    ``(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)``, z = Φ⁻¹(0.975) (Wilson 1927). Its ends
    are exact where the formula's are in theory: 0 when ``successes = 0`` and 1 when
    ``successes = n`` (rounding would otherwise leave ``5.6e-17`` and ``0.9999999999999999``), and
    ``lower ≤ p̂ ≤ upper`` always holds.
    """
    if n <= 0:
        return None, None
    p = min(1.0, max(0.0, successes / n))
    z2 = _Z * _Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lower = 0.0 if successes <= 0 else min(p, max(0.0, centre - half))
    upper = 1.0 if successes >= n else max(p, min(1.0, centre + half))
    return lower, upper


def release_caveat(kb_releases: dict[str, str]) -> str:
    """The caveat every comparison with a paper carries: the KB release may differ from the paper's."""
    shown = ", ".join(f"{kb} {rel or '(release unknown)'}" for kb, rel in kb_releases.items())
    return f"judged against {shown}; the paper used the release of its time, which may differ"


def _names(model: type[BaseModel]) -> set[str]:
    """The keys ``model`` reads: its fields' names and their aliases."""
    names: set[str] = set()
    for name, field in model.model_fields.items():
        names.add(name)
        names.update(a for a in (field.alias, field.validation_alias) if isinstance(a, str))
        if isinstance(field.validation_alias, AliasChoices):
            names.update(a for a in field.validation_alias.choices if isinstance(a, str))
    return names


def budget_keys(model: type[BaseModel], data: Mapping[str, Any], table: str) -> None:
    """Refuse a key of the budget table ``[table]`` that is not a field of ``model`` (its ``Budget``),
    whatever the model's ``extra`` setting: a misspelt key would otherwise be dropped, and its run made
    at the default.

    Raises:
        pydantic.ValidationError: one error per unknown key (``not a key of [table]; its keys: …``),
            which the budget readers turn into one line naming the file, the table and the key.
    """
    known = _names(model)
    unknown = [key for key in data if key not in known]
    if not unknown:
        return
    keys = ", ".join(model.model_fields) or "none"
    errors = [
        InitErrorDetails(
            type=PydanticCustomError(
                "unknown_key", "not a key of [{table}]; its keys: {keys}", {"table": table, "keys": keys}
            ),
            loc=(key,),
            input=data[key],
        )
        for key in unknown
    ]
    raise ValidationError.from_exception_data(model.__name__, errors)


def limits(config: type[BaseModel], name: str) -> Any:
    """The bounds (``ge``, ``gt``, ``le``, ``lt``) ``config`` sets on its field ``name``, as a
    ``Field``: a budget table's number, ``Annotated[int, Strict(), limits(Config, name)]`` (whole
    numbers only: ``"3"`` and ``true`` are refused), takes its limits from the instrument config it
    becomes, one source for both."""
    bounds = {
        key: getattr(m, key)
        for m in config.model_fields[name].metadata
        for key in ("ge", "gt", "le", "lt")
        if getattr(m, key, None) is not None
    }
    return Field(**bounds)


def check_per_key(value: Any, config: type[BaseModel], name: str) -> Any:
    """Check ``value`` — one whole number or a table ``{key: number}`` — within the bounds of
    ``config``'s field ``name`` (:func:`limits`); the message names the key of a bad entry.

    Raises:
        ValueError: a value out of bounds or not a whole number (pydantic reports it).
    """
    adapter: TypeAdapter[int] = TypeAdapter(Annotated[int, Strict(), limits(config, name)])
    items = value.items() if isinstance(value, dict) else [(None, value)]
    for key, each in items:
        try:
            adapter.validate_python(each)
        except ValidationError as exc:
            where = "" if key is None else f"{key}: "
            raise ValueError(f"{where}{exc.errors()[0]['msg']}") from None
    return value
