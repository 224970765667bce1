"""`knowsum ask`."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.models import is_installed, model_spec
from knowsum.models.testing import LoopbackServer


def test_ask_mock_prints_samples_and_stores_them(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "-m", "mock", "-n", "2", "Name a disease."]) == 0
    out = capsys.readouterr().out
    assert out == "--- sample 0 ---\nName a disease. #0\n--- sample 1 ---\nName a disease. #1\n"
    rows = (
        sqlite3.connect(tmp_home / "store.sqlite")
        .execute("SELECT sample_index, text FROM responses")
        .fetchall()
    )
    assert sorted(rows) == [(0, "Name a disease. #0"), (1, "Name a disease. #1")]


def test_ask_no_store_writes_nothing(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "-m", "mock", "--no-store", "hi"]) == 0
    assert capsys.readouterr().out == "hi #0\n"
    assert not (tmp_home / "store.sqlite").exists()


def test_ask_openai_loopback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with LoopbackServer() as srv:
        code = main(
            [
                "ask",
                "-m",
                "openai:m",
                "--base-url",
                srv.base_url,
                "--seed",
                "4",
                "--store",
                str(tmp_path / "s.sqlite"),
                "ping",
            ]
        )
    assert code == 0
    assert capsys.readouterr().out.startswith("ping | seed=")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["-m", "gpt-17"], 2, "unknown model 'gpt-17'; known: "),
        (["-m", "smollm2-135m-instruct"], 3, "run `knowsum models install smollm2-135m-instruct`"),
        ([], 3, "run `knowsum models install qwen2.5-coder-1.5b-instruct`"),
        (["-m", "mock", "--temperature", "3"], 2, "invalid temperature=3.0: must be in [0, 2]"),
        (["-m", "mock", "--top-p", "0"], 2, "invalid top_p=0.0"),
        (["-m", "openai:x"], 2, "needs --base-url"),
        (["-m", "mock", "--base-url", "http://127.0.0.1:9/v1"], 2, "--base-url only applies to openai:MODEL"),
    ],
)
def test_bad_input_is_one_line_and_an_exit_code(
    tmp_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    code: int,
    message: str,
) -> None:
    monkeypatch.delenv("KNOWSUM_MODEL", raising=False)
    assert main(["ask", *args, "hello"]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_unreachable_base_url(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with LoopbackServer() as srv:
        url = srv.base_url
    assert main(["ask", "-m", "openai:x", "--base-url", url, "--retries", "1", "hi"]) == 5
    err = capsys.readouterr().err
    assert err.startswith(f"knowsum: error: cannot reach {url}: connection refused") and err.count("\n") == 1


def test_nothing_listening_fails_at_once_with_the_default_retries(
    tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A closed loopback port: one attempt and the clear message (was: silent for ~54 s through 9
    attempts of "connection refused")."""
    with socket.socket() as closed:  # bound, not listening: every connection is refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        url = f"http://127.0.0.1:{port}/v1"
        assert main(["ask", "-m", "openai:x", "--base-url", url, "hi"]) == 5
    err = capsys.readouterr().err
    assert err == (
        f"knowsum: error: cannot reach {url}: connection refused by 127.0.0.1:{port} (nothing is listening "
        "there; not retried); is the server running? check --base-url\n"
    )


@pytest.mark.realmodel
def test_same_seed_prints_the_same_text_on_the_local_model(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_cpp")
    if not is_installed(model_spec("smollm2-135m-instruct")):
        pytest.skip("run `knowsum models install smollm2-135m-instruct`")
    args = ["ask", "-m", "smollm2", "--seed", "42", "--max-tokens", "16", "--no-store", "Name a fruit."]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first and first.strip()
