"""What of llama-cpp-python the batched decoder reads beyond its public API, and the check that it is there.

The batched path (:mod:`._batched`) drives llama.cpp through llama-cpp-python's low-level bindings and a
few private attributes of ``llama_cpp.Llama``; they were checked against the pinned llama-cpp-python
0.3.36. :func:`check_api` turns an upgrade that removed one into one clear error.

:func:`check_build` guards against a llama.cpp build that crashes on the machine: llama-cpp-python
compiles llama.cpp with ``-march=native``, so on a CPU with AMX (Intel Advanced Matrix Extensions:
Sapphire Rapids and later Xeons) it includes llama.cpp's AMX matrix kernels, and GCC 12 miscompiles them:
its ``_tile_loadconfig`` (``<amxtileintrin.h>``) tells the compiler that ``ldtilecfg`` reads 8 bytes of
the 64-byte tile configuration, so the stores of the tile shapes are dropped as dead and ``ldtilecfg``
faults on the garbage (SIGSEGV in ``ggml_backend_amx_mul_mat`` on the first decode of 2+ tokens). The
Makefile therefore builds without them (:data:`BUILD_CMAKE_ARGS`); weights then take llama.cpp's
AVX-512/AVX2 repacked kernels, as on any CPU without AMX.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from knowsum.errors import BackendError

__all__ = ["BUILD_CMAKE_ARGS", "LOW_LEVEL_API", "PRIVATE_API", "amx_build", "check_api", "check_build"]

BUILD_CMAKE_ARGS = "-DLLAVA_BUILD=OFF -DCMAKE_C_FLAGS=-mno-amx-int8 -DCMAKE_CXX_FLAGS=-mno-amx-int8"
"""``CMAKE_ARGS`` for building llama-cpp-python (the Makefile's): no llava, no AMX kernels (see above).

``-mno-amx-int8`` before llama.cpp's ``-march=native`` wins over it (GCC and Clang keep explicit ISA
flags), so the kernels' ``__AMX_INT8__`` guard is off; on a CPU without AMX it changes nothing."""

PRIVATE_API: tuple[str, ...] = (
    "_model.model",
    "_model.vocab",
    "_model.add_bos_token",
    "_chat_handlers",
    "chat_handler",
    "chat_format",
    "context_params.n_seq_max",
    "context_params.kv_unified",
    "context_params.n_batch",
    "context_params.n_ubatch",
    "context_params.n_threads",
    "context_params.n_threads_batch",
)
"""Attributes of a ``llama_cpp.Llama`` the batched path reads that are not llama-cpp-python's public API
(checked against the pinned 0.3.36 by :func:`check_api`)."""

LOW_LEVEL_API: tuple[str, ...] = (
    "llama_init_from_model",
    "llama_get_memory",
    "llama_memory_seq_rm",
    "llama_memory_seq_cp",
    "llama_memory_clear",
    "llama_batch_init",
    "llama_batch_free",
    "llama_decode",
    "llama_free",
    "llama_set_n_threads",
    "llama_vocab_is_eog",
    "llama_token_to_piece",
    "llama_sampler_sample",
    "llama_sampler_free",
    "llama_sampler_chain_init",
    "llama_sampler_chain_add",
    "llama_sampler_init_greedy",
    "llama_sampler_init_top_k",
    "llama_sampler_init_typical",
    "llama_sampler_init_top_p",
    "llama_sampler_init_min_p",
    "llama_sampler_init_temp",
    "llama_sampler_init_dist",
)
"""Low-level llama.cpp bindings the batched path calls."""


def check_api(llm: Any) -> None:
    """Fail with one clear message if this llama-cpp-python lacks what the batched path reads.

    Raises:
        BackendError: names the missing attributes, the version found and what to do.
    """
    import llama_cpp as lc

    def has(obj: Any, dotted: str) -> bool:
        for part in dotted.split("."):
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True

    missing = [f"Llama.{a}" for a in PRIVATE_API if not has(llm, a)]
    missing += [f"llama_cpp.{f}" for f in LOW_LEVEL_API if not hasattr(lc, f)]
    if missing:
        version = getattr(lc, "__version__", "?")
        raise BackendError(
            f"llama-cpp-python {version} lacks what knowsum's batched decoding reads ({', '.join(missing)}): "
            "install the pinned llama-cpp-python==0.3.36, or decode sequentially with KNOWSUM_BATCH=1"
        )


def amx_build() -> bool:
    """Whether the loaded llama.cpp has its AMX kernels compiled in (system info ``AMX_INT8 = 1``)."""
    import llama_cpp as lc

    return b"AMX_INT8 = 1" in lc.llama_print_system_info()


_PROBE = """
import sys
from llama_cpp import Llama
llm = Llama(model_path=sys.argv[1], n_ctx=64, n_threads=1, verbose=False)
llm.eval([0] * 8)  # several rows: llama.cpp's AMX kernels handle one row with AVX-512 alone
"""
"""Decodes 8 tokens of a GGUF in a child process (a test hook may replace it)."""

_probed: dict[str, str | None] = {}


def check_build(path: Path) -> None:
    """Fail with one clear error, not a segfault, if this llama.cpp build crashes decoding ``path``.

    Only a build with AMX kernels (:func:`amx_build`, never the Makefile's) is checked: a child process
    decodes a few tokens of the model once per process and file; a child killed by a signal means the
    kernels are miscompiled (see the module doc). Any other failure of the child is left to the real load.

    Raises:
        BackendError: the test decode crashed; says how to rebuild llama-cpp-python.
    """
    if not amx_build():
        return
    key = str(path)
    if key not in _probed:
        _probed[key] = _probe(path)
    if (why := _probed[key]) is not None:
        raise BackendError(
            f"llama.cpp crashed ({why}) decoding {path.name} in a test process: this llama-cpp-python "
            "was built with llama.cpp's AMX kernels, which GCC 12 miscompiles. Rebuild it without them: "
            f"CMAKE_ARGS='{BUILD_CMAKE_ARGS}' pip install --no-cache-dir --force-reinstall --no-deps "
            "llama-cpp-python==0.3.36"
        )


def _probe(path: Path) -> str | None:
    """Run :data:`_PROBE` on ``path``; the signal that killed it, or ``None``."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE, str(path)], capture_output=True, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode >= 0:
        return None
    try:
        return signal.Signals(-proc.returncode).name
    except ValueError:
        return f"signal {-proc.returncode}"
