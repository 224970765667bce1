"""llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``) on 127.0.0.1.

A real server for the tests of the OpenAI-compatible backend: the embedded test model (SmolLM2-135M,
installed by ``make data``) served on a free loopback port, started and stopped (or SIGKILLed and
restarted on the same port) by the tests themselves. ``make test`` installs the server's
dependencies (``pip install -e '.[server]'``: llama-cpp-python's ``server`` extra of the pinned
version).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from knowsum.models import default_threads, installed_path, is_installed, model_spec

ALIAS = "smollm2"
"""The model name the server answers to (``openai:smollm2``)."""
TEST_MODEL = "smollm2-135m-instruct"
"""The embedded test model the server serves."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` serving one GGUF file (:meth:`start`, :meth:`stop`, :meth:`kill`).

    Args:
        model: the GGUF file.
        log: file receiving the server's stdout and stderr.
        n_ctx: context length (the registry's for the model).
        n_threads: CPU threads (the embedded backend's default, so both compute alike).
        port: TCP port (default: a free one, kept across :meth:`restart`).
    """

    def __init__(self, model: Path, log: Path, *, n_ctx: int, n_threads: int, port: int = 0) -> None:
        self.model = model
        self.log = log
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """API root, ``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, wait: float = 600.0) -> None:
        """Start the server; return once ``GET /v1/models`` answers (or fail with the log's tail)."""
        cmd = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--model_alias",
            ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
            "--n_threads_batch",
            str(self.n_threads),
        ]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}:\n{self.tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer within {wait:.0f} s:\n{self.tail()}")

    def kill(self) -> None:
        """SIGKILL the server (no clean shutdown) and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
        self.proc = None

    def stop(self) -> None:
        """Terminate the server (SIGKILL after 10 s)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None

    def tail(self, lines: int = 30) -> str:
        """The last lines of the server's log."""
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def serve_test_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """The body of a module's ``server`` fixture: the test model served on 127.0.0.1 while the module
    runs (skipped with the command that installs what is missing: the server extra, the model)."""
    pytest.importorskip("llama_cpp.server.app", reason="needs pip install -e '.[server]' (make test does)")
    spec = model_spec(TEST_MODEL)
    if not is_installed(spec):
        pytest.skip(f"run `knowsum models install {TEST_MODEL}`")
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    srv = LlamaServer(installed_path(TEST_MODEL), log, n_ctx=spec.n_ctx, n_threads=default_threads())
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
