"""Opening the real embedded test model (SmolLM2-135M, installed by ``make test``) in tests."""

from __future__ import annotations

import pytest

from knowsum.models import is_installed, model_spec, open_backend
from knowsum.models._local import LocalBackend

NAME = "smollm2-135m-instruct"


def open_smollm2(n_parallel: int, n_ctx: int = 512) -> LocalBackend:
    """The test model on one thread with ``n_parallel`` sequences; skips if it is not installed."""
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    if not is_installed(model_spec(NAME)):
        pytest.skip(f"run `knowsum models install {NAME}`")
    b = open_backend(NAME, n_threads=1, n_parallel=n_parallel, n_ctx=n_ctx)
    assert isinstance(b, LocalBackend)
    return b
