"""Sampling beside other work: the same census generated quiet and beside 1 and 2 busy processes.

Each configuration generates the census's requests (diseases prompt, ``--answers`` answers each, the
census's own token budget and seeds, batched decoding as by default) through ``sample()`` with no
store, in a fresh process of its own that loads the model and warms it up before the clock starts.
The busy processes are pure-Python loops (``while True: pass``), one core each, started before and
stopped after each load level. Reported per configuration and load: wall seconds, tokens/s, the ratio
to the same configuration's quiet speed, and the ratio to the old default's quiet speed (every core,
fixed: the figure the quiet-speed bar refers to).

Configurations (``--configs``): a thread count (``1``, ``2``), ``all`` (every core, fixed: the old
default), ``auto`` (the measured choice of :class:`knowsum.models._threads.ThreadTuner`: the default),
each optionally with ``/spin=N`` (``GOMP_SPINCOUNT=N``: how long llama.cpp's OpenMP threads spin at a
barrier before they sleep; 0 = at once; this build runs its threads as an OpenMP team, so llama.cpp's
own thread-pool ``poll`` setting does not apply). Rounds alternate the order of the configurations.

    .venv/bin/python bench/bench_contention.py [--model smollm2-135m-instruct] [--queries 6]
        [--answers 10] [--configs 1,all,auto] [--busy 0,1,2] [--rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from knowsum.census._config import CensusConfig
from knowsum.census._tasks import census_requests, resolve_task
from knowsum.models import open_backend, sample_sync
from knowsum.models._local import LocalBackend
from knowsum.models._threads import available_cores

BUSY = "while True: pass"


def _env(config: str) -> dict[str, str]:
    """The child's environment for ``config`` (``threads[/spin=N]``)."""
    threads, _, spin = config.partition("/spin=")
    env = {**os.environ, "KNOWSUM_THREADS": str(available_cores()) if threads == "all" else threads}
    if spin:
        env["GOMP_SPINCOUNT"] = spin
    return env


def _one(args: argparse.Namespace) -> None:
    """Child: load and warm the model, time the census requests, print JSON."""
    cfg = CensusConfig(task="diseases", answers=args.answers, queries=args.queries, seed=args.seed)
    task = resolve_task(cfg)
    b = open_backend(args.model)
    assert isinstance(b, LocalBackend)
    short = cfg.model_copy(update={"max_tokens": 16})  # warm-up: load the model, one short batch
    sample_sync(b, census_requests(short, resolve_task(short), n=4, start=10**6), progress=False)
    start = time.perf_counter()
    got = sample_sync(b, census_requests(cfg, task), progress=False)
    secs = time.perf_counter() - start
    tuner = b.tuner
    asyncio.run(b.aclose())
    out: dict[str, Any] = {"tokens": sum(r.completion_tokens for r in got), "seconds": secs}
    if tuner is not None:
        out.update(final=tuner.current, switches=tuner.switches, used=tuner.used)
    print(json.dumps(out))


def _table(secs: dict[tuple[str, int], list[float]], tokens: int, capped: set[tuple[str, int]]) -> None:
    """Median seconds and tokens/s per configuration and load, and the speed ratios ('<': a stopped run)."""

    def speed(key: tuple[str, int]) -> float | None:
        return tokens / statistics.median(secs[key]) if key in secs and tokens else None

    old = speed(("all", 0))
    print(f"{'config':<14} {'busy':>4} {'seconds':>8} {'tok/s':>8} {'vs own quiet':>12} {'vs old quiet':>12}")
    for (config, k), ss in secs.items():
        mark = "<" if (config, k) in capped else ""
        quiet_capped = bool(mark) and (config, 0) in capped  # two bounds: no ratio
        rate, quiet = speed((config, k)), speed((config, 0))
        own = f"{mark}{rate / quiet:.2f}" if rate and quiet and not quiet_capped else "-"
        vs_old = f"{mark}{rate / old:.2f}" if rate and old else "-"
        shown = f"{mark}{rate or 0:.1f}"
        print(f"{config:<14} {k:>4} {statistics.median(ss):8.1f} {shown:>8} {own:>12} {vs_old:>12}")


def _busy(k: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(k)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--queries", type=int, default=6)
    ap.add_argument("--answers", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--configs", default="1,all,auto")
    ap.add_argument("--busy", default="0,1,2", help="busy processes per load level")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=None, help="stop a run after this many seconds")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        _one(args)
        return
    configs, levels = args.configs.split(","), [int(k) for k in args.busy.split(",")]
    print(
        f"model {args.model}, census diseases {args.queries} queries x {args.answers} answers, "
        f"{available_cores()} cores, configs {configs}, busy processes {levels}, {args.rounds} round(s)"
    )
    print(f"load average before: {os.getloadavg()}")
    secs: dict[tuple[str, int], list[float]] = {}
    tokens: list[int] = []  # the same for every run: texts do not depend on the thread count
    capped: set[tuple[str, int]] = set()
    for k in levels:
        busy = _busy(k)
        try:
            time.sleep(1.0)  # let the busy loops take their cores
            for i in range(args.rounds):
                for config in configs if i % 2 == 0 else configs[::-1]:
                    cmd = [
                        sys.executable,
                        __file__,
                        "--one",
                        config,
                        "--model",
                        args.model,
                        "--queries",
                        str(args.queries),
                        "--answers",
                        str(args.answers),
                        "--seed",
                        str(args.seed),
                    ]
                    try:
                        done = subprocess.run(
                            cmd,
                            env=_env(config),
                            check=True,
                            capture_output=True,
                            text=True,
                            timeout=args.timeout,
                        )
                        out = json.loads(done.stdout.splitlines()[-1])
                    except subprocess.TimeoutExpired:  # counted as the limit: a bound, marked '>'
                        out = {"tokens": 0, "seconds": args.timeout, "capped": True}
                        print(f"  busy {k} round {i + 1} {config:<14} > {args.timeout:.0f} s (stopped)")
                        capped.add((config, k))
                    secs.setdefault((config, k), []).append(out["seconds"])
                    if "capped" in out:
                        continue
                    tokens.append(out["tokens"])
                    extra = ""
                    if "final" in out:
                        extra = f", steps per thread count {out['used']}, {out['switches']} switches"
                    print(
                        f"  busy {k} round {i + 1} {config:<14} {out['seconds']:7.1f} s "
                        f"{out['tokens'] / out['seconds']:7.1f} tok/s, load {os.getloadavg()[0]:.2f}{extra}",
                        flush=True,
                    )
        finally:
            for p in busy:
                p.kill()
                p.wait()
    _table(secs, max(tokens, default=0), capped)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
