"""Which model answers and how it is reached: the one model-options type of every command.

:class:`ModelOptions` holds the values of the command line's model options (``--model --base-url
--server-kind --api --concurrency --timeout --retries``) and opens the backend they name; a census
TOML file carries the same keys (but ``api``) in :class:`knowsum.census.RunSettings`, which extends it.
"""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowsum._util import config_error
from knowsum.errors import KnowsumNote
from knowsum.models._base import Backend
from knowsum.models._open import open_backend
from knowsum.models._servers import ServerKind

__all__ = ["ModelOptions"]

HTTP_ONLY = ("server_kind", "concurrency", "timeout", "retries")
"""The model options that reach only an OpenAI-compatible endpoint."""


class ModelOptions(BaseModel):
    """Which model answers, and how it is reached (``None``: the default model)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = Field(None, description="model spec (knowsum.models.open_backend); None = default")
    base_url: str | None = Field(None, description="API root for openai:MODEL")
    server_kind: ServerKind = Field(
        "auto", description="openai: server family (how top-k/min-p off is sent); auto = detected"
    )
    api: str = Field("chat", description="chat or completions")
    concurrency: int = Field(8, ge=1, le=1024, description="openai: requests in flight at once")
    timeout: float = Field(120.0, gt=0.0, description="openai: seconds for a whole answer before a retry")
    retries: int = Field(8, ge=0, le=100, description="openai: retries per request (backoff + jitter)")

    @classmethod
    def of(cls, kw: dict[str, Any]) -> ModelOptions:
        """The model options among the values ``kw`` (other keys are ignored).

        Raises:
            ConfigError: a value out of range, naming the option.
        """
        try:
            return cls(**{k: kw[k] for k in ModelOptions.model_fields if k in kw})
        except ValidationError as exc:
            raise config_error(exc, "the command line") from None

    @classmethod
    def take(cls, kw: dict[str, Any]) -> ModelOptions:
        """Remove the model options from ``kw`` and return them."""
        options = cls.of(kw)
        for k in ModelOptions.model_fields:
            kw.pop(k, None)
        return options

    @property
    def remote(self) -> bool:
        """Whether the model is reached over HTTP (an OpenAI-compatible endpoint)."""
        return bool(self.base_url) or (self.model or "").startswith("openai:")

    def open(self) -> Backend:
        """Open the backend; HTTP settings go only to an OpenAI-compatible endpoint."""
        model = self.model
        if self.remote:
            return open_backend(
                model,
                base_url=self.base_url,
                api=self.api,
                concurrency=self.concurrency,
                timeout=self.timeout,
                max_retries=self.retries,
                server_kind=self.server_kind,
            )
        self._unused_http_options()
        if model and (model == "mock" or model.startswith("mock:")):
            return open_backend(model)
        return open_backend(model, api=self.api)

    def _unused_http_options(self) -> None:
        """A :class:`~knowsum.errors.KnowsumNote` naming the HTTP options set away from their defaults
        for a model not reached over HTTP (they would otherwise be dropped without a word)."""
        unused = [
            f"--{name.replace('_', '-')}"
            for name in HTTP_ONLY
            if getattr(self, name) != ModelOptions.model_fields[name].default
        ]
        if unused:
            warnings.warn(
                KnowsumNote(
                    f"{', '.join(unused)} {'applies' if len(unused) == 1 else 'apply'} only to openai:MODEL "
                    "(an OpenAI-compatible endpoint); "
                    f"not used by {self.model or 'the default model'!r}"
                ),
                stacklevel=3,
            )
