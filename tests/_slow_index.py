"""A PEP 503 "simple" package index on 127.0.0.1 that can send its wheels slowly (install tests).

``pip download`` pointed at it (:meth:`SlowIndex.pip_env`: ``PIP_INDEX_URL``, no config files, no
find-links, no cache, no retries) fetches the wheels from memory and never reaches the network. With
``delay > 0`` every file is sent ``chunk`` bytes at a time with a pause in between; :attr:`SlowIndex.sent`
counts the bytes sent per file. With ``hold_at`` every transfer stops once that many bytes were sent in
all, until :meth:`SlowIndex.release`: a test kills an install mid-transfer after :meth:`SlowIndex.wait_held`,
however busy the machine is (no race between the transfer and the kill).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

__all__ = ["SlowIndex", "wheel"]


def wheel(name: str, version: str, files: dict[str, bytes]) -> tuple[str, bytes]:
    """A minimal valid wheel (stored, not deflated) holding ``files``: its file name and bytes."""
    dist = f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}"
    meta = {
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    members = {**files, **meta}
    record = "".join(f"{path},,\n" for path in members) + f"{dist}.dist-info/RECORD,,\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for path, data in members.items():
            zf.writestr(path, data)
        zf.writestr(f"{dist}.dist-info/RECORD", record)
    return f"{dist}-py3-none-any.whl", buf.getvalue()


def _project(filename: str) -> str:
    return re.sub(r"[-_.]+", "-", filename.split("-")[0]).lower()


class SlowIndex:
    """The index server, in a background thread (use as a context manager).

    Args:
        wheels: file name → bytes of every wheel served.
        chunk: bytes per write when sending a file.
        delay: seconds between two chunks (0 = full speed; may be changed while serving).
        hold_at: total bytes sent (over all files) after which every transfer waits for
            :meth:`release` (``None``: never).
    """

    def __init__(
        self, wheels: dict[str, bytes], chunk: int = 8192, delay: float = 0.0, hold_at: int | None = None
    ) -> None:
        self.wheels = dict(wheels)
        self.chunk = chunk
        self.delay = delay
        self.hold_at = hold_at
        self.held = threading.Event()
        """Set once a transfer stopped at ``hold_at``."""
        self._go = threading.Event()
        self.sent: dict[str, int] = dict.fromkeys(self.wheels, 0)
        self.requests: list[str] = []
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="slow-index", daemon=True)

    @property
    def url(self) -> str:
        """The index URL (``PIP_INDEX_URL``)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/simple/"

    def __enter__(self) -> SlowIndex:
        self._thread.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()  # slow transfers still running end at their next chunk
        self._go.set()  # held ones too
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def pip_env(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` without any ``PIP_*`` setting, plus what points pip at this index only."""
        out = {k: v for k, v in env.items() if not k.startswith("PIP_") and "proxy" not in k.lower()}
        out.update(
            PIP_INDEX_URL=self.url,
            PIP_CONFIG_FILE=os.devnull,  # no pip.conf: no find-links, extra indexes or constraints
            PIP_NO_CACHE_DIR="1",
            PIP_RETRIES="0",
            PIP_TIMEOUT="20",
            PIP_DISABLE_PIP_VERSION_CHECK="1",
            PIP_NO_INPUT="1",
        )
        return out

    def wait_held(self, timeout: float = 600.0) -> int:
        """Block until a transfer stopped at ``hold_at``; the bytes sent in all (no more follow until
        :meth:`release`). ``timeout`` is a safety net for a client that never came, not a pace."""
        if not self.held.wait(timeout):
            raise TimeoutError(f"no transfer reached {self.hold_at} bytes; requests: {self.requests}")
        return sum(self.sent.values())

    def release(self) -> None:
        """Let held transfers go on and hold none from now on."""
        self.hold_at = None
        self._go.set()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                index.requests.append(self.path)
                parts = [p for p in self.path.split("?")[0].split("/") if p]
                if parts[:1] == ["simple"] and len(parts) == 2:
                    self._page(parts[1])
                elif parts[:1] == ["files"] and len(parts) == 2 and parts[1] in index.wheels:
                    self._file(parts[1])
                else:
                    self.send_error(404)

            def _page(self, project: str) -> None:
                links = "".join(
                    f'<a href="/files/{f}#sha256={hashlib.sha256(data).hexdigest()}">{f}</a>\n'
                    for f, data in index.wheels.items()
                    if _project(f) == project
                )
                if not links:
                    self.send_error(404)
                    return
                body = f"<!DOCTYPE html><html><body>\n{links}</body></html>\n".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _file(self, name: str) -> None:
                data = index.wheels[name]
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    for i in range(0, len(data), index.chunk):
                        if index.hold_at is not None and sum(index.sent.values()) >= index.hold_at:
                            index.held.set()
                            index._go.wait()
                        if index._stop.is_set():
                            return
                        self.wfile.write(data[i : i + index.chunk])
                        self.wfile.flush()
                        index.sent[name] += len(data[i : i + index.chunk])
                        if index.delay:
                            time.sleep(index.delay)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client was killed mid-transfer

        return Handler
