"""Reliability soak: what knowsum survives against a faulty loopback server, in one table (issue 11).

Everything runs on 127.0.0.1 (:class:`knowsum.models.testing.LoopbackServer`, an OpenAI-compatible
server in a thread of this process) and in a temporary folder that is removed at the end.

1. ``sample()``: ``--requests`` draws through :class:`~knowsum.models.OpenAIBackend` into a response
   store while the server fails ``--fault-rate`` of all attempts (429 + Retry-After, 500, answers past
   the client timeout, malformed bodies, dropped connections), and the same draws fault-free into a
   second store. Checked by counting rows per key in SQLite: every key stored exactly once, none lost,
   none duplicated, no error rows, texts identical to the fault-free run.
2. census: a fault-free reference ``knowsum census run`` (custom task; the server answers with lines
   drawn from a fixed list of 5,000 items, so items repeat as in a real census); then, against the
   faulty server and on one store, a ``census run`` process killed with SIGKILL ``--kills`` times at
   seeded random points of its sampling (restarted after each kill), then restarted once more together
   with two further ``census run`` processes sharing one run directory, all three at once until done.
   Checked: every sample stored exactly once with the reference text, every process exits 0, and both
   ``result.json`` files equal the reference's, ignoring the fields of :data:`IGNORED` (``created``,
   ``run_id``, ``timings``, the ``store``/``out`` paths in ``config`` and the ``usage`` figures of
   what this process asked and how long it took).

Exits 1 if any check fails.

    .venv/bin/python bench/soak.py [--requests 10000] [--fault-rate 0.3] [--kills 5] [--seed 0]
                                   [--queries 600]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowsum.models import GenerationParams, ResponseStore, make_requests, sample
from knowsum.models._openai import OpenAIBackend
from knowsum.models.testing import FAULT_KINDS, LoopbackServer

ITEMS = tuple(f"species {i:04d}" for i in range(5000))
"""What the census server answers with (10 Zipf-drawn lines per answer)."""
IGNORED = (
    "created",
    "run_id",
    "timings",
    "config.store",
    "config.out",
    "usage.asked",
    "usage.response_seconds",
    "usage.generation_seconds",
    "usage.wall_seconds",
)
"""``result.json`` fields that legitimately differ between runs (which record, what this process asked,
and when)."""
CLI = "import sys; from knowsum.cli import main; sys.exit(main())"


@dataclass
class Report:
    """Rows of the final table and the checks behind them."""

    rows: list[tuple[str, str]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def row(self, label: str, value: object) -> None:
        """A row of figures."""
        self.rows.append((label, str(value)))

    def check(self, label: str, ok: bool, value: object) -> None:
        """A row that is also a check (marked PASS/FAIL)."""
        self.rows.append((label, f"{value}  {'PASS' if ok else 'FAIL'}"))
        if not ok:
            self.failed.append(label)

    def table(self) -> str:
        """The rows as an aligned two-column text table."""
        width = max(len(label) for label, _ in self.rows)
        lines = [f"{'what':<{width}}  result", f"{'-' * width}  {'-' * 40}"]
        lines += [f"{label:<{width}}  {value}" for label, value in self.rows]
        return "\n".join(lines)


def say(msg: str) -> None:
    """A progress line (stderr, flushed)."""
    print(f"soak: {msg}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Audit:
    """Rows per key of a store, against the keys expected."""

    stored: int
    ok: int
    lost: int
    duplicated: int
    extra: int
    errors: int
    texts: dict[str, str]


def texts_of(db: Path) -> dict[str, str]:
    """Key → text of the successful rows of a store."""
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT key, text FROM responses WHERE error IS NULL").fetchall())
    finally:
        conn.close()


def audit(db: Path, expected: set[str]) -> Audit:
    """Count rows per key directly in SQLite (not through the store API)."""
    conn = sqlite3.connect(db)
    try:
        per_key = dict(conn.execute("SELECT key, count(*) FROM responses GROUP BY key").fetchall())
        errors = conn.execute("SELECT count(*) FROM responses WHERE error IS NOT NULL").fetchone()[0]
    finally:
        conn.close()
    texts = texts_of(db)
    return Audit(
        stored=sum(per_key.values()),
        ok=len(texts.keys() & expected),
        lost=len(expected - texts.keys()),
        duplicated=sum(n - 1 for n in per_key.values() if n > 1),
        extra=len(per_key.keys() - expected),
        errors=int(errors),
        texts=texts,
    )


def report_audit(rep: Report, what: str, got: Audit, want: dict[str, str], n: int) -> None:
    """Add the exactly-once and identical-text checks of ``got`` against the ``n`` reference texts."""
    rep.check(f"{what}: fault-free run stored", len(want) == n, f"{len(want):,}/{n:,}")
    once = got.ok == n == got.stored and not (got.lost or got.duplicated)
    rep.check(
        f"{what}: stored once / lost / duplicated", once, f"{got.ok:,}/{n:,} / {got.lost} / {got.duplicated}"
    )
    rep.check(
        f"{what}: error rows / unexpected keys", not (got.errors or got.extra), f"{got.errors} / {got.extra}"
    )
    same = sum(got.texts.get(k) == t for k, t in want.items())
    rep.check(f"{what}: texts identical to fault-free", same == n, f"{same:,}/{n:,}")


def faults_row(counts: dict[str, int]) -> str:
    """``429 a, 500 b, …`` in the order of :data:`FAULT_KINDS`."""
    return ", ".join(f"{k} {counts.get(k, 0):,}" for k in FAULT_KINDS)


async def _draw(server: LoopbackServer, n: int, db: Path, seed: int) -> float:
    backend = OpenAIBackend(
        "soak", server.base_url, concurrency=32, timeout=0.5, max_retries=10, backoff=0.05, backoff_max=1.0
    )
    prompts = [f"Name one bird species (list {i})." for i in range(-(-n // 10))]
    requests = make_requests(prompts, GenerationParams(seed=seed, max_tokens=32), n=10)[:n]
    start = time.perf_counter()
    with ResponseStore(db) as store:
        async for _ in sample(backend, requests, store=store, description="soak sample()"):
            pass
    await backend.aclose()
    return time.perf_counter() - start


def phase_sample(args: argparse.Namespace, tmp: Path, rep: Report) -> None:
    """``sample()`` through faults vs fault-free: exactly once, identical texts."""
    with LoopbackServer(
        fault_rate=0.0, retry_after="0.2", slow_seconds=1.0, max_faults_per_body=3, seed=args.seed
    ) as server:
        say(f"sample(): {args.requests:,} requests fault-free …")
        clean_s = asyncio.run(_draw(server, args.requests, tmp / "clean.sqlite", args.seed))
        mark = len(server.log)
        server.fault_rate = args.fault_rate
        say(f"sample(): {args.requests:,} requests with {args.fault_rate:.0%} injected faults …")
        faulty_s = asyncio.run(_draw(server, args.requests, tmp / "faulty.sqlite", args.seed))
        counts = server.counts(since=mark)
    want = texts_of(tmp / "clean.sqlite")
    attempts = sum(counts.values())
    injected = attempts - counts.get("ok", 0)
    rep.row("sample(): requests", f"{args.requests:,}")
    rep.row("sample(): attempts / retries", f"{attempts:,} / {attempts - args.requests:,}")
    rep.check(
        "sample(): faults injected (share of attempts)",
        injected > 0 or args.fault_rate == 0,
        f"{injected:,} ({injected / max(1, attempts):.1%}): {faults_row(counts)}",
    )
    report_audit(rep, "sample()", audit(tmp / "faulty.sqlite", set(want)), want, args.requests)
    rep.row("sample(): wall time faulty / fault-free", f"{faulty_s:.1f} s / {clean_s:.1f} s")


def census_cmd(server: LoopbackServer, args: argparse.Namespace, store: Path, out: Path) -> list[str]:
    """``knowsum census run`` of the custom item task against ``server``."""
    return [
        sys.executable,
        "-c",
        CLI,
        "census",
        "run",
        "custom",
        "--prompt",
        "List {n} bird species, one per line.",
        "--answers",
        "10",
        "--model",
        "openai:loopback",
        "--base-url",
        server.base_url,
        "--concurrency",
        "8",
        "--timeout",
        "1",
        "--retries",
        "10",
        "--queries",
        str(args.queries),
        "--n-bootstrap",
        "200",
        "--seed",
        str(args.seed),
        "--store",
        str(store),
        "--out",
        str(out),
    ]


STARTED: list[subprocess.Popen[bytes]] = []
"""Every process :func:`start` started (:func:`run` kills those still running when it ends early)."""


def start(cmd: list[str], tmp: Path, log: Path) -> subprocess.Popen[bytes]:
    """Start one CLI process (its output goes to ``log``; cwd and KNOWSUM_HOME inside ``tmp``)."""
    env = {**os.environ, "KNOWSUM_HOME": str(tmp / "home"), "PYTHONPATH": os.pathsep.join(sys.path)}
    env["KNOWSUM_STORE_WAIT"] = "600"  # runs on one store take turns (one samples at a time), none refused
    with log.open("ab") as fh:
        STARTED.append(subprocess.Popen(cmd, cwd=tmp, env=env, stdout=fh, stderr=subprocess.STDOUT))
    return STARTED[-1]


def rows_in(db: Path) -> int:
    """Rows in the store now (0 before it exists)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT count(*) FROM responses").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def comparable(run: Path) -> dict[str, Any]:
    """``result.json`` of ``run`` without the :data:`IGNORED` fields."""
    data: dict[str, Any] = json.loads((run / "result.json").read_text(encoding="utf-8"))
    for name in IGNORED:
        head, _, tail = name.partition(".")
        (data.get(head) or {} if tail else data).pop(tail or head, None)
    return data


def kill_at_random_points(
    cmd: list[str], tmp: Path, store: Path, total: int, args: argparse.Namespace
) -> list[int]:
    """Start ``cmd`` and SIGKILL it ``--kills`` times, each once the store holds a seeded random number
    of rows (5-60 % of ``total``, increasing, at least 2 % more per restart), so every kill lands
    mid-sampling. Returns the store rows after each kill."""
    rng = random.Random(args.seed)
    points = sorted(rng.uniform(0.05, 0.6) * total for _ in range(args.kills))
    rows: list[int] = []
    for i, point in enumerate(points, 1):
        target = max(point, (rows[-1] if rows else 0) + max(1, total // 50))
        proc = start(cmd, tmp, tmp / "killed.log")
        while rows_in(store) < target and proc.poll() is None:
            time.sleep(0.01)
        if proc.poll() is not None:
            say(f"census: the killed process finished before kill {i} (exit {proc.returncode})")
            break
        proc.kill()
        proc.wait()
        rows.append(rows_in(store))
        say(f"census: SIGKILL {i}/{args.kills} at {rows[-1]}/{total} rows in the store")
    return rows


def phase_census(args: argparse.Namespace, tmp: Path, rep: Report) -> None:
    """A killed-and-restarted census process, then three at once on its store; vs a fault-free run."""
    with LoopbackServer(
        fault_rate=0.0, retry_after="0.2", slow_seconds=1.5, seed=args.seed, items=ITEMS, items_per_answer=10
    ) as server:
        say(f"census: fault-free reference run ({args.queries} queries) …")
        t0 = time.perf_counter()
        ref_code = start(
            census_cmd(server, args, tmp / "ref.sqlite", tmp / "ref"), tmp, tmp / "ref.log"
        ).wait(600)
        ref_s = time.perf_counter() - t0
        mark = len(server.log)
        server.fault_rate = args.fault_rate
        store = tmp / "census.sqlite"
        say(f"census: 1 process killed {args.kills} times, then 3 at once, {args.fault_rate:.0%} faults …")
        t0 = time.perf_counter()
        killed = census_cmd(server, args, store, tmp / "killed")
        rows = kill_at_random_points(killed, tmp, store, args.queries, args)
        procs = [start(killed, tmp, tmp / "killed.log")]
        procs += [
            start(census_cmd(server, args, store, tmp / "shared"), tmp, tmp / f"p{i}.log") for i in (1, 2)
        ]
        codes = [ref_code] + [p.wait(600) for p in procs]
        wall = time.perf_counter() - t0
        counts = server.counts(since=mark)
    for name, code in zip(("ref", "killed", "p1", "p2"), codes, strict=True):
        if code != 0:
            say(f"--- {name}.log (tail) ---\n" + (tmp / f"{name}.log").read_text(errors="replace")[-2000:])
    rep.check("census: exit codes ref / killed / p1 / p2", codes == [0] * 4, " / ".join(map(str, codes)))
    want = texts_of(tmp / "ref.sqlite")
    rep.row("census: queries (samples)", f"{args.queries:,}")
    rep.row("census: processes on one store", "1 killed + restarted, then it and 2 more at once")
    mid = sum(0 < r < len(want) for r in rows)
    rep.check(
        "census: SIGKILLs (mid-sampling) / restarts",
        len(rows) == mid == args.kills,
        f"{len(rows)} ({mid}) / {len(rows)}; rows at each kill: {', '.join(map(str, rows)) or '-'}",
    )
    rep.row("census: attempts / faults", f"{sum(counts.values()):,} / {faults_row(counts)}")
    report_audit(rep, "census", audit(store, set(want)), want, args.queries)
    if codes == [0] * 4:
        base = comparable(tmp / "ref")
        for run in ("shared", "killed"):
            rep.check(
                f"census: result.json of {run} run = fault-free",
                comparable(tmp / run) == base,
                f"n_seen {base['n_seen']}, N_tot {base['n_total']:.1f}",
            )
    rep.row("census: result.json fields ignored", ", ".join(IGNORED))
    rep.row("census: wall time faulty (all runs) / fault-free", f"{wall:.1f} s / {ref_s:.1f} s")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command-line options (``--help`` prints the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=10_000, help="sample() requests [10000]")
    ap.add_argument("--fault-rate", type=float, default=0.3, help="share of attempts that fail [0.3]")
    ap.add_argument("--kills", type=int, default=5, help="SIGKILLs of the killed census process [5]")
    ap.add_argument("--queries", type=int, default=600, help="census queries (10 answers each) [600]")
    ap.add_argument("--seed", type=int, default=0, help="seed of faults, samples and kill points [0]")
    return ap.parse_args(argv)


def run(args: argparse.Namespace) -> Report:
    """Both phases in a temporary folder (removed at the end); the table's rows and failed checks."""
    rep = Report()
    t0 = time.perf_counter()
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="knowsum-soak-") as name:
        tmp = Path(name)
        try:
            phase_sample(args, tmp, rep)
            loads.append(os.getloadavg()[0])
            phase_census(args, tmp, rep)
            loads.append(os.getloadavg()[0])
        finally:
            for proc in STARTED:  # only after an error are some still running
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            STARTED.clear()
    rep.row("total wall time", f"{time.perf_counter() - t0:.1f} s")
    rep.row("load average (1 min): start / after sample() / end", " / ".join(f"{x:.2f}" for x in loads))
    return rep


def main(argv: list[str] | None = None) -> int:
    """Run the soak and print the table; 0 if every check passed, else 1."""
    args = parse(argv)
    rep = run(args)
    print(f"knowsum soak: seed {args.seed}, fault rate {args.fault_rate:.0%}, loopback only")
    print(rep.table())
    print("ALL CHECKS PASSED" if not rep.failed else f"FAILED: {', '.join(rep.failed)}")
    return 0 if not rep.failed else 1


if __name__ == "__main__":
    sys.exit(main())
