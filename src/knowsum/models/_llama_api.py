"""What of llama-cpp-python the batched decoder reads beyond its public API, and the check that it is there.

The batched path (:mod:`._batched`) drives llama.cpp through llama-cpp-python's low-level bindings and a
few private attributes of ``llama_cpp.Llama``; they were checked against the pinned llama-cpp-python
0.3.36. :func:`check_api` turns an upgrade that removed one into one clear error.
"""

from __future__ import annotations

from typing import Any

from knowsum.errors import BackendError

__all__ = ["LOW_LEVEL_API", "PRIVATE_API", "check_api"]

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
