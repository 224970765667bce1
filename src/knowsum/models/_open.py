"""Resolve a model spec string to a backend: ``open_backend("local:NAME" | "openai:MODEL" | "mock" …)``.

Forms (``--model``):

- *(none)* → the default registry model (:data:`~knowsum.models.DEFAULT_MODEL`) on the local backend;
- ``NAME`` or ``local:NAME`` → registry model ``NAME`` on the local backend (must be installed; a
  unique prefix such as ``smollm2`` also works without ``local:``);
- ``local:/path/to/any.gguf`` → any GGUF file;
- ``openai:MODEL`` → an OpenAI-compatible endpoint (``base_url`` required);
- ``mock`` or ``mock:ID`` → the scripted mock backend (echo answers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowsum.errors import ConfigError, UnknownNameError
from knowsum.models._base import Backend
from knowsum.models._registry import DEFAULT_MODEL, REGISTRY, installed_path, model_spec, registry_name

__all__ = ["ModelRef", "open_backend", "resolve_model"]

_FORMS = ("local:/path/to/file.gguf", "openai:MODEL", "mock")


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A parsed model spec: backend ``kind`` (local, openai, mock) and ``name`` (registry name/path/model)."""

    kind: str
    name: str
    is_path: bool = False


def resolve_model(spec: str | None) -> ModelRef:
    """Parse a ``--model`` value (see module docstring); unknown names list the known ones.

    Only ``None`` (no model given) means the default: an empty name is refused like a blank one,
    since ``-m ""`` (an unset shell variable, say) silently running the default model would ignore
    both what was meant and ``$KNOWSUM_MODEL``.
    """
    if spec is None:
        return ModelRef("local", DEFAULT_MODEL)
    if not spec.strip():
        raise ConfigError(
            f"invalid model {spec!r}: a model name is empty; give one (e.g. -m mock), or leave -m out "
            "for the default ($KNOWSUM_MODEL, else the default registry model)"
        )
    kind, sep, rest = spec.partition(":")
    if not sep:
        if spec == "mock":
            return ModelRef("mock", "mock")
        try:
            return ModelRef("local", registry_name(spec))  # a unique prefix too, e.g. "smollm2"
        except UnknownNameError:
            raise UnknownNameError("model", spec, [*REGISTRY, *_FORMS]) from None
    if not rest:
        raise ConfigError(f"invalid model {spec!r}: nothing after {kind + ':'!r}")
    if kind == "local":
        is_path = rest not in REGISTRY and ("/" in rest or rest.endswith(".gguf"))
        return ModelRef("local", rest if is_path else registry_name(rest), is_path)
    if kind in ("openai", "mock"):
        return ModelRef(kind, rest)
    raise UnknownNameError("model backend", kind, ["local", "openai", "mock"])


def open_backend(spec: str | None = None, *, base_url: str | None = None, **options: Any) -> Backend:
    """Open the backend named by ``spec``.

    Args:
        spec: model spec (module docstring); ``None`` → the default local model.
        base_url: API root for ``openai:MODEL`` (e.g. ``http://127.0.0.1:8000/v1``).
        **options: passed to the backend it opens: the local one (``n_parallel``, ``n_threads``…),
            the OpenAI-compatible one (``server_kind``, ``api_key``…) or the mock (docs/models.md
            lists them; these classes are not public, this function and
            :meth:`~knowsum.models.ModelOptions.open` are the way to open one).

    Raises:
        UnknownNameError: unknown registry name or backend kind.
        ModelNotInstalledError: a registry model that is not installed (says the command).
        ConfigError: ``openai:`` without ``base_url``, or invalid options.
    """
    ref = resolve_model(spec)
    if ref.kind == "openai":
        if not base_url:
            raise ConfigError(f"model {spec!r} needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        from knowsum.models._openai import OpenAIBackend

        return OpenAIBackend(ref.name, base_url, **options)
    if base_url:
        raise ConfigError(f"--base-url only applies to openai:MODEL, not to {spec or DEFAULT_MODEL!r}")
    if ref.kind == "mock":
        from knowsum.models._mock import MockBackend

        return MockBackend(model_id=ref.name, **options)
    from knowsum.models._local import LocalBackend

    if ref.is_path:
        return LocalBackend(ref.name, **options)
    options.setdefault("n_ctx", model_spec(ref.name).n_ctx)
    return LocalBackend(installed_path(ref.name), model_id=ref.name, **options)
