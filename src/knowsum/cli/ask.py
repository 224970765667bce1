"""``knowsum ask``: sample a model on one prompt and print the answer(s)."""

from __future__ import annotations

import asyncio
from typing import Any

import click

from knowsum.cliutil.common import backend_from, prompt_options, requests_from, store_from
from knowsum.errors import BackendError, ConfigError
from knowsum.models import Response, sample

__all__ = ["ask"]


@click.command()
@click.argument("prompt")
@click.option("-n", "n", type=click.IntRange(min=1), default=1, show_default=True, help="Number of samples.")
@click.option("--no-store", is_flag=True, help="Do not read or write the response store.")
@prompt_options
def ask(prompt: str, n: int, no_store: bool, **kw: Any) -> None:
    """Sample a model N times on PROMPT and print the answers.

    The same command with the same --seed prints the same text on the local backend. Answers are
    kept in the response store, so asking again returns the stored samples.

    \b
    Examples:
      knowsum ask --model smollm2-135m-instruct "Name a human disease."
      knowsum ask -m smollm2 -n 3 --seed 7 "Name a human disease."
      knowsum ask -m openai:llama --base-url http://127.0.0.1:8080/v1 "Hi"
    """
    if not prompt.strip():
        raise ConfigError(
            f'empty prompt {prompt!r}: give the question to ask, e.g. knowsum ask "Name a human disease."'
        )
    requests = requests_from([prompt], n, kw)
    backend = backend_from(kw)
    store = None if no_store else store_from(kw)

    async def run() -> list[Response]:
        try:
            return [r async for r in sample(backend, requests, store=store, description="ask")]
        finally:
            await backend.aclose()

    try:
        got = {r.request.sample_index: r for r in asyncio.run(run())}
    finally:
        if store is not None:
            store.close()
    failed = 0
    for i in sorted(got):
        r = got[i]
        if n > 1:
            click.echo(f"--- sample {i} ---")
        if r.error is not None:
            failed += 1
            click.echo(f"knowsum: sample {i} failed: {r.error}", err=True)
        else:
            click.echo(r.text)
    if failed:
        raise BackendError(f"{failed} of {len(got)} samples failed (rerun to retry them)")
