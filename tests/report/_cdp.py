"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (no extra packages).

Chromium reads NUL-terminated JSON commands from fd 3 and writes responses/events to fd 4. Enough
for tests: open a page, wait for ``load``, evaluate JavaScript, collect console errors and
uncaught exceptions, take a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


def chromium() -> str | None:
    """Path of a Chromium binary, or ``None``."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _pipe_fds(read_end: int, write_end: int) -> None:
    """In the child: put the pipe ends on fds 3 (commands in) and 4 (answers out)."""
    a = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10)
    b = fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
    os.dup2(a, 3)
    os.dup2(b, 4)


#: What Chromium answers to an evaluation in a page that is being replaced by another.
_NAVIGATING = ("navigated or closed", "Cannot find context", "Execution context was destroyed")


class Browser:
    """One headless Chromium with one page (use as a context manager)."""

    def __init__(self, binary: str, timeout: float = 300.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="knowsum-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        args = [
            binary,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-dev-shm-usage",
            "--remote-debugging-pipe",
            f"--user-data-dir={self.profile}",
            "--window-size=1200,900",
        ]
        # the child gets our read end as fd 3 and our write end as fd 4
        self.proc = subprocess.Popen(
            args,
            pass_fds=(3, 4),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _pipe_fds(to_child_r, from_child_w),
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""

    def __enter__(self) -> Browser:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._to_child)
        os.close(self._from_child)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        msg: dict[str, Any] = json.loads(raw)
        return msg

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: bool = False
    ) -> dict[str, Any]:
        """Send a command and return its result (events seen meanwhile go to :attr:`events`)."""
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def open(self, path: Path) -> None:
        """Navigate to a local file and wait for its ``load`` event."""
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=True)
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read(deadline))

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page.

        A page that is navigating (a clicked link, a reload) has no context to evaluate in for a
        moment: Chromium answers "Inspected target navigated or closed" or "Cannot find context".
        Every caller means the page that is loading, so the expression is tried again in the new
        page until :attr:`timeout` passes; any other error is raised at once."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                res = self.call(
                    "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True
                )
            except RuntimeError as exc:
                if not any(m in str(exc) for m in _NAVIGATING) or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
                continue
            details = res.get("exceptionDetails", {})
            gone = str(details.get("exception", {}).get("description") or details.get("text", ""))
            if details and any(m in gone for m in _NAVIGATING) and time.monotonic() < deadline:
                time.sleep(0.1)
                continue
            return res["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                out.append(
                    str(details.get("exception", {}).get("description") or details.get("text", ""))[:300]
                )
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(json.dumps(params.get("args", []))[:300])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(params["entry"].get("text", "")[:300])
        return out

    def screenshot(self, path: Path) -> None:
        """Save a full-page PNG screenshot."""
        res = self.call(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=True
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(res["data"]))


ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

_INSPECT = """({
  pwned: window.__pwned === undefined ? null : window.__pwned,
  scripts: document.querySelectorAll('script').length,
  text: document.body.innerText,
  title: document.title,
  tiles: Object.fromEntries([...document.querySelectorAll('.tile')].map(
      t => [t.dataset.key, t.querySelector('.value').textContent])),
  plots: [...document.querySelectorAll('figure[data-plot] img')].map(
      i => [i.closest('figure').dataset.plot, i.complete, i.naturalWidth]),
})"""


def inspect_report(browser_bin: str, report: Path, screenshot: str) -> tuple[dict[str, Any], list[Any]]:
    """Open a knowsum report in headless Chromium; return what the page shows and its console errors.

    The page facts: ``pwned`` (set only if an injected script ran), the number of ``<script>``
    elements, the visible text, the title, the key-number tiles and, per plot, whether its image
    loaded and its width. A screenshot is kept as ``test-artifacts/<screenshot>``.
    """
    with Browser(browser_bin) as b:
        b.open(report)
        page = b.evaluate(_INSPECT)
        ARTIFACTS.mkdir(exist_ok=True)
        b.screenshot(ARTIFACTS / screenshot)
        return page, b.errors()
