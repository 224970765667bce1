"""The model, sampling and store options, declared once (see :mod:`knowsum.cliutil.options` for the rest)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from knowsum._util import slug
from knowsum.cliutil.options import file_option, seed_option
from knowsum.errors import ConfigError
from knowsum.models import (
    SERVER_KINDS,
    Backend,
    GenerationParams,
    ModelOptions,
    Request,
    ResponseStore,
    make_requests,
)

__all__ = [
    "SERVER_KIND_HELP",
    "ModelOptions",
    "apply_options",
    "backend_from",
    "choice_option",
    "count_option",
    "model_options",
    "params_from",
    "prompt_options",
    "requests_from",
    "sampling_options",
    "slug",
    "store_from",
    "store_option",
]

F = TypeVar("F", bound=Callable[..., Any])


def apply_options(func: F, decorators: Sequence[Callable[[Any], Any]]) -> F:
    """Apply click option decorators in the order they are listed (top one first, as when stacked)."""
    for deco in reversed(decorators):
        func = deco(func)
    return func


def count_option(
    name: str, default: int, help_text: str, *, minimum: int = 1, maximum: int | None = None
) -> Callable[[F], F]:
    """An integer option ``>= minimum`` (and ``<= maximum`` if given) whose default and range show in
    ``--help`` (``[default: …; x>=1]``, ``[default: …; 1<=x<=1000]``)."""
    return click.option(
        name,
        type=click.IntRange(min=minimum, max=maximum),
        default=default,
        show_default=True,
        help=help_text,
    )


def choice_option(
    name: str, choices: Sequence[str], default: str, help_text: str, **extra: Any
) -> Callable[[F], F]:
    """An option taking one of ``choices``, its default shown in ``--help`` (``extra``: e.g. ``envvar``)."""
    return click.option(
        name, type=click.Choice(list(choices)), default=default, show_default=True, help=help_text, **extra
    )


def store_option(func: F) -> F:
    """``--store PATH``: the response store (default ``$KNOWSUM_HOME/store.sqlite``)."""
    option = file_option(
        "--store",
        "store_path",
        default=None,
        help_text="Response store (SQLite). Default: store.sqlite in the knowsum home.",
    )
    return option(func)


SERVER_KIND_HELP = (
    "OpenAI-compatible server family, which decides how top-k/min-p 'off' is sent: vllm (top_k -1), "
    "llama.cpp (llama-server and llama-cpp-python: top_k 0), ollama (checks the model's Modelfile), "
    "openai (no top_k/min_p), generic (top_k -1); auto probes the server. "
    "$KNOWSUM_SERVER_KIND, when set, replaces the default."
)


def model_options(func: F) -> F:
    """``--model --base-url --server-kind --api --concurrency --timeout --retries``."""
    return apply_options(
        func,
        [
            click.option(
                "--model",
                "-m",
                envvar="KNOWSUM_MODEL",
                default=None,
                help="Registry name (e.g. smollm2-135m-instruct), local:/path.gguf, openai:MODEL or mock. "
                "Default: $KNOWSUM_MODEL, else qwen2.5-coder-1.5b-instruct. Local models decode "
                "$KNOWSUM_BATCH sequences together (default 4; 1 = sequential) on $KNOWSUM_THREADS "
                "CPU threads (default auto: the count measured fastest, up to all cores).",
            ),
            click.option(
                "--base-url", default=None, help="API root of an OpenAI-compatible server (openai:MODEL)."
            ),
            choice_option(
                "--server-kind", SERVER_KINDS, "auto", SERVER_KIND_HELP, envvar="KNOWSUM_SERVER_KIND"
            ),
            choice_option(
                "--api",
                ("chat", "completions"),
                "chat",
                "Chat template (prompt = one user message) or raw completion.",
            ),
            count_option("--concurrency", 8, "Requests in flight (openai backend)."),
            click.option(
                "--timeout",
                type=click.FloatRange(min=0, min_open=True),
                default=120.0,
                show_default=True,
                help="Seconds one HTTP request may take (the whole answer) before a retry (openai backend).",
            ),
            count_option(
                "--retries", 8, "Retries per request on 429/5xx/timeouts (openai backend).", minimum=0
            ),
        ],
    )


_SAMPLING: tuple[tuple[tuple[str, ...], float | int, str], ...] = (
    (("--temperature", "-t"), 1.0, "Sampling temperature (0 = greedy)."),
    (("--top-p",), 1.0, "Nucleus mass (1 = off)."),
    (("--top-k",), 0, "Top-k (0 = off)."),
    (("--min-p",), 0.0, "Min-p (0 = off)."),
    (("--max-tokens",), 512, "Max generated tokens."),
)
"""``(flags, default, help)`` of the numeric sampling options; each option's type is its default's."""


def sampling_options(func: F) -> F:
    """``--temperature --top-p --top-k --min-p --max-tokens --seed --stop`` (defaults: KnowSum's setting)."""
    sampling = [
        click.option(*flags, type=type(default), default=default, show_default=True, help=help_text)
        for flags, default, help_text in _SAMPLING
    ]
    stop = click.option("--stop", multiple=True, help="Stop sequence (repeatable).")
    return apply_options(func, [*sampling, seed_option, stop])


def params_from(kw: dict[str, Any]) -> GenerationParams:
    """:class:`GenerationParams` from the values of :func:`sampling_options` (validated).

    Raises:
        ConfigError: an invalid value (``--stop ''``: a stop sequence must be non-empty …).
    """
    if any(not s for s in kw["stop"]):
        raise ConfigError(
            "--stop '': a stop sequence must be non-empty (it would end every answer before its first "
            "token); give the text that ends an answer, or leave --stop out"
        )
    return GenerationParams(
        temperature=kw["temperature"],
        top_p=kw["top_p"],
        top_k=kw["top_k"],
        min_p=kw["min_p"],
        max_tokens=kw["max_tokens"],
        seed=kw["seed"],
        stop=tuple(kw["stop"]),
    )


def prompt_options(func: F) -> F:
    """:func:`model_options`, :func:`sampling_options`, :func:`store_option`: a command sampling prompts."""
    return apply_options(func, [model_options, sampling_options, store_option])


def requests_from(prompts: Sequence[str], n: int, kw: dict[str, Any]) -> list[Request]:
    """``n`` requests per prompt, sampled with the values of :func:`sampling_options`."""
    return make_requests(prompts, params_from(kw), n=n)


def backend_from(kw: dict[str, Any]) -> Backend:
    """Open the backend named by the values of :func:`model_options` (they stay in ``kw``)."""
    return ModelOptions.of(kw).open()


def store_from(kw: dict[str, Any]) -> ResponseStore:
    """Open the response store of :func:`store_option` (default path if not given)."""
    return ResponseStore(kw.get("store_path"))
