"""knowsum.models — one model layer for every instrument.

Backends share one abstract interface (:class:`Backend`, one required async method
``generate(batch) -> responses``): the embedded local model (default, llama-cpp-python), any
OpenAI-compatible endpoint, and a scripted mock. :func:`sample` runs requests through a backend and a
:class:`ResponseStore` (SQLite) so every run is resumable; :mod:`._batch` exports pending requests as
OpenAI Batch JSONL and imports results back.

Example::

    from knowsum.models import PAPER_PARAMS, ResponseStore, make_requests, open_backend, sample_sync

    backend = open_backend("smollm2-135m-instruct")
    with ResponseStore() as store:
        requests = make_requests(["List 5 diseases."], PAPER_PARAMS, n=100)
        responses = sample_sync(backend, requests, store=store)
"""

from knowsum.models._base import Backend
from knowsum.models._batch import BatchImport, export_batch, import_batch
from knowsum.models._install import install_model
from knowsum.models._local import default_threads
from knowsum.models._mock import MockBackend, echo
from knowsum.models._open import ModelRef, open_backend, resolve_model
from knowsum.models._options import ModelOptions
from knowsum.models._params import (
    PAPER_PARAMS,
    GenerationParams,
    Message,
    Request,
    Response,
    derive_seed,
    make_requests,
)
from knowsum.models._registry import (
    DEFAULT_MODEL,
    REGISTRY,
    ModelSpec,
    installed_path,
    is_installed,
    model_spec,
    registry_name,
)
from knowsum.models._sample import Plan, plan, sample, sample_sync
from knowsum.models._servers import SERVER_KINDS, ServerKind
from knowsum.models._store import ResponseStore, StoreInfo, stored_this_session
from knowsum.models._texts import failed_requests, sample_texts
from knowsum.models._tokens import TokenCounter, estimate_tokens
from knowsum.models._usage import MeteredBackend, UsageMeter, union_seconds, usage_of

__all__ = [
    "DEFAULT_MODEL",
    "PAPER_PARAMS",
    "REGISTRY",
    "SERVER_KINDS",
    "Backend",
    "BatchImport",
    "GenerationParams",
    "Message",
    "MeteredBackend",
    "MockBackend",
    "ModelOptions",
    "ModelRef",
    "ModelSpec",
    "Plan",
    "Request",
    "Response",
    "ResponseStore",
    "ServerKind",
    "StoreInfo",
    "TokenCounter",
    "UsageMeter",
    "default_threads",
    "derive_seed",
    "echo",
    "estimate_tokens",
    "export_batch",
    "failed_requests",
    "import_batch",
    "install_model",
    "installed_path",
    "is_installed",
    "make_requests",
    "model_spec",
    "open_backend",
    "plan",
    "registry_name",
    "resolve_model",
    "sample",
    "sample_sync",
    "sample_texts",
    "stored_this_session",
    "union_seconds",
    "usage_of",
]
