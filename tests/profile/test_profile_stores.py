"""A profile rerun into its folder with another response store: its usage is the answers' own.

The steps finished earlier are read back and not asked again; the new store holds none of their
answers, so their requests and tokens come from the steps' own records (was: 0 requests and 0 tokens
over the real usage, written over the first run's figures), a note says so, and a record that
counted nothing leaves the usage unknown rather than zero.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from knowsum.cli import main
from knowsum.instrument import Step
from knowsum.models import GenerationParams, MockBackend, ResponseStore, make_requests, sample_sync
from knowsum.profile._usage import profile_usage
from knowsum.records import Record, Usage
from tests.profile._tiny import tiny_plan

_USAGE_LINE = re.compile(
    r"^([\d,]+) requests \(([\d,]+) asked now\), ([\d,]+) prompt \+ ([\d,]+) completion tokens"
)


def _profile(
    tmp_path: Path, store: str, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], str, str]:
    """Run the tiny profile into ``tmp_path/out`` with ``store``: profile.json, stdout and stderr."""
    args = [
        "profile",
        "run",
        "-m",
        "mock",
        "--plan",
        str(tiny_plan(tmp_path)),
        "--out",
        str(tmp_path / "out"),
    ]
    assert main([*args, "--store", str(tmp_path / store), "--price-in", "1", "--price-out", "2"]) == 0
    captured = capsys.readouterr()
    return (
        json.loads((tmp_path / "out" / "profile.json").read_text(encoding="utf-8")),
        captured.out,
        captured.err,
    )


def _figures(line: str) -> tuple[int, int, int, int]:
    """requests, asked now, prompt and completion tokens of the usage line ``profile run`` prints."""
    m = _USAGE_LINE.match(line)
    assert m is not None, line
    requests, asked, prompt, completion = (int(g.replace(",", "")) for g in m.groups())
    return requests, asked, prompt, completion


@pytest.mark.realdata
def test_a_rerun_with_another_store_keeps_the_answers_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, out1, _ = _profile(tmp_path, "A.sqlite", capsys)
    u1 = first["usage"]
    assert u1["requests"] > 0 and u1["asked"] == u1["requests"] and u1["completion_tokens"] > 0
    assert first["notes"] == []
    again, out2, err2 = _profile(tmp_path, "B.sqlite", capsys)
    with ResponseStore(tmp_path / "B.sqlite") as store:
        assert store.count() == 0  # every step read back, nothing asked
    u2 = again["usage"]
    for key in ("requests", "failed", "prompt_tokens", "completion_tokens"):
        assert u2[key] == u1[key], key
    assert u2["asked"] == 0  # this invocation asked nothing
    assert u2["generation_seconds"] == pytest.approx(u1["generation_seconds"], abs=1e-5)
    assert again["cost_usd"] == first["cost_usd"] > 0
    for name, part in first["instruments"].items():
        assert again["instruments"][name]["usage"]["requests"] == part["usage"]["requests"], name
        assert again["instruments"][name]["usage"]["completion_tokens"] == part["usage"]["completion_tokens"]
    r1, a1, p1, c1 = _figures(out1.splitlines()[0])
    r2, a2, p2, c2 = _figures(out2.splitlines()[0])
    assert (r2, p2, c2) == (r1, p1, c1) == (u1["requests"], u1["prompt_tokens"], u1["completion_tokens"])
    assert (a1, a2) == (u1["requests"], 0)
    # said on the console and the page: the figures are the step records', not this store's
    assert len(again["notes"]) == 1 and "not in this run's response store" in again["notes"][0]
    assert "census-diseases-strict" in again["notes"][0]
    assert "profile: note: the answers of census-diseases-relaxed" in err2
    assert "Note: the answers of census-diseases-relaxed" in (tmp_path / "out" / "index.html").read_text()
    # the store that holds the answers counts them itself again, with no note
    third, out3, _ = _profile(tmp_path, "A.sqlite", capsys)
    assert third["notes"] == [] and _figures(out3.splitlines()[0]) == (r1, 0, p1, c1)
    assert third["usage"]["generation_seconds"] == u1["generation_seconds"]


class _Config(BaseModel):
    """A step's configuration (none needed here)."""


def _step(name: str) -> Step:
    return Step("x", name, _Config(), name)


def _record(usage: Usage | None) -> Record:
    return Record(version=1, kind="x", model="mock", usage=usage)


def test_steps_answered_elsewhere_count_once_per_request_set(tmp_path: Path) -> None:
    """Two steps with the same requests count once; one sharing only part of its requests is added
    whole, with a note; a step whose answers the store holds is counted from the store."""
    backend = MockBackend(["one two three"])  # 3 completion tokens an answer
    reqs = make_requests(["List things."], GenerationParams(max_tokens=8), n=4)
    keys = [backend.key(r) for r in reqs]
    elsewhere = Usage(requests=2, prompt_tokens=10, completion_tokens=20, generation_seconds=1.0)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        sample_sync(backend, reqs[:2], store=store, progress=False)  # keys 0, 1: in this store
        steps = [
            (_step("here"), _record(Usage(requests=2, completion_tokens=6)), False),  # matches the store
            (_step("there"), _record(elsewhere), False),  # keys 2, 3: not in this store
            (_step("there-strict"), _record(elsewhere), False),  # the same requests
        ]
        own = {"here": keys[:2], "there": keys[2:], "there-strict": keys[2:]}
        used = profile_usage({"x": steps}, lambda s: own[s.name], store, asked={}, walls={}, wall_seconds=1.0)
        assert used.total is not None and used.parts["x"] is not None
        assert (used.total.requests, used.total.completion_tokens, used.total.prompt_tokens) == (4, 26, 10)
        assert used.total.asked == 0
        assert len(used.notes) == 1 and "there, there-strict" in used.notes[0]
        own["there-strict"] = keys[1:3]  # shares one request with each of the others
        used = profile_usage({"x": steps}, lambda s: own[s.name], store, asked={}, walls={}, wall_seconds=1.0)
        assert used.total is not None and used.total.requests == 6
        assert any("counted once for each" in n for n in used.notes)


def test_a_record_without_usage_answered_elsewhere_leaves_the_usage_unknown(tmp_path: Path) -> None:
    """A step record written before records carried usage, whose answers this store lacks: the
    instrument's usage and the total are unknown (``None``, so no cost), never 0, and a note says so."""
    backend = MockBackend(["one two three"])
    reqs = make_requests(["List things."], GenerationParams(max_tokens=8), n=2)
    own = {"old": [backend.key(r) for r in reqs]}
    with ResponseStore(tmp_path / "s.sqlite") as store:
        steps = {"x": [(_step("old"), _record(None), False)]}
        used = profile_usage(steps, lambda s: own[s.name], store, asked={}, walls={}, wall_seconds=1.0)
        assert used.total is None and used.parts == {"x": None}
        assert any("unknown" in n for n in used.notes)
        sample_sync(backend, reqs, store=store, progress=False)  # its answers in the store: counted there
        used = profile_usage(steps, lambda s: own[s.name], store, asked={}, walls={}, wall_seconds=1.0)
        assert used.total is not None and (used.total.requests, used.total.completion_tokens) == (2, 6)
        assert used.notes == []
