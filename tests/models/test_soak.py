"""The reliability soak (bench/soak.py) at a small size, and the loopback server's item answers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from knowsum.models.testing import FAULT_KINDS, LoopbackServer

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def _soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("knowsum_bench_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_small_soak_survives_faults_concurrency_and_sigkill() -> None:
    soak = _soak()
    report = soak.run(soak.parse(["--requests", "300", "--kills", "2", "--queries", "120", "--seed", "1"]))
    rows = dict(report.rows)
    assert report.failed == [], report.table()
    assert rows["sample(): stored once / lost / duplicated"].startswith("300/300 / 0 / 0 ")
    assert rows["sample(): texts identical to fault-free"].startswith("300/300 ")
    faults = rows["sample(): faults injected (share of attempts)"]
    assert all(f"{kind} 0," not in faults + "," for kind in FAULT_KINDS)  # every fault kind was injected
    assert rows["census: SIGKILLs (mid-sampling) / restarts"].startswith("2 (2) / 2;")
    assert rows["census: stored once / lost / duplicated"].startswith("120/120 / 0 / 0 ")
    assert rows["census: result.json of shared run = fault-free"].endswith("PASS")
    assert rows["census: result.json of killed run = fault-free"].endswith("PASS")


def test_loopback_item_answers_are_drawn_from_the_list_and_repeatable() -> None:
    items = tuple(f"item {i}" for i in range(50))
    body = {"model": "m", "messages": [{"role": "user", "content": "List 5."}], "seed": 7, "n": 2}
    with LoopbackServer(items=items, items_per_answer=5) as srv:
        url = f"{srv.base_url}/chat/completions"
        first = httpx.post(url, json=body).json()["choices"]
        again = httpx.post(url, json=body).json()["choices"]
        other = httpx.post(url, json={**body, "seed": 8}).json()["choices"]
    texts = [c["message"]["content"] for c in first]
    assert texts == [c["message"]["content"] for c in again]  # a pure function of prompt, seed, choice
    assert texts != [c["message"]["content"] for c in other]
    assert texts[0] != texts[1]  # choices differ
    lines = [line for t in texts for line in t.split("\n")]
    assert len(lines) == 10 and set(lines) <= set(items)
    with LoopbackServer() as srv:  # without items: the echo answers as before
        echo = httpx.post(f"{srv.base_url}/chat/completions", json=body).json()["choices"][0]
    assert echo["message"]["content"] == "List 5. | seed=7 | choice=0"
