"""The write guard replaces a JSON-lines file only when knowsum wrote it, in one of its formats.

(was: any file whose first character is ``{`` was "a JSON-lines file knowsum writes": ``store export
-o results.jsonl`` replaced an unimported OpenAI batch results file, results already paid for.)
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from knowsum._util import check_output
from knowsum.cli import main
from knowsum.errors import OutputError
from knowsum.genebench._schema import _EXTENSION_KEYS, _RELEASE_KEYS
from knowsum.models import GenerationParams, MockBackend, Request, ResponseStore

FOREIGN = {
    "batch results": '{"id": "r1", "custom_id": "abc", "response": {"status_code": 200, "body": {}}, '
    '"error": null}\n',
    "batch result, short": '{"custom_id":"abc","response":{"status_code":200,"body":{}}}\n',
    "user data": '{"query": "q", "items": ["a"]}\n',
    "released questions": json.dumps(dict.fromkeys(_RELEASE_KEYS, "x")) + "\n",
    "a JSON array": "[1, 2]\n",
    "not JSON": "{not json\n",
}


@pytest.mark.parametrize("text", FOREIGN.values(), ids=FOREIGN.keys())
def test_json_lines_knowsum_did_not_write_are_not_replaced(tmp_path: Path, text: str) -> None:
    target = tmp_path / "res.jsonl"
    target.write_text(text)
    with pytest.raises(OutputError, match="exists and is not a JSON-lines file knowsum writes"):
        check_output(target, "jsonl", option="-o/--output")
    assert target.read_text() == text


def _store_export(tmp_path: Path) -> str:
    backend = MockBackend(model_id="m")
    with ResponseStore(tmp_path / "s.sqlite") as store:
        req = Request(prompt="p", params=GenerationParams(seed=1))
        store.put(backend.response(req, "t" * 5000, "stop"))  # a first line longer than any head read
        store.put(
            backend.response(Request(messages=(("user", "hi"),), params=GenerationParams()), "x", "stop")
        )
        out = io.StringIO()
        store.export_jsonl(out)
    return out.getvalue()


def _ours(tmp_path: Path) -> dict[str, str]:
    question = {**dict.fromkeys(_RELEASE_KEYS, "x"), **dict.fromkeys(_EXTENSION_KEYS[:2], "y")}
    store = _store_export(tmp_path)
    return {
        "store export (prompt)": store,
        "store export (messages)": store.splitlines(keepends=True)[1],
        "batch requests": json.dumps({"custom_id": "k", "method": "POST", "url": "/v1/x", "body": {}}) + "\n",
        "question file": json.dumps(question) + "\n",
    }


def test_json_lines_knowsum_wrote_are_replaced(tmp_path: Path) -> None:
    for name, text in _ours(tmp_path).items():
        target = tmp_path / "out.jsonl"
        target.write_text(text)
        assert check_output(target, "jsonl", option="-o/--output") == target, name


def test_store_export_does_not_replace_a_batch_results_file(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s1.sqlite"
    assert main(["ask", "-m", "mock", "hi", "--store", str(store)]) == 0
    results = tmp_path / "res.jsonl"
    results.write_text(FOREIGN["batch result, short"])
    capsys.readouterr()
    assert main(["store", "export", "--store", str(store), "-o", str(results)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"-o/--output {results} exists and is not a JSON-lines file" in err
    assert results.read_text() == FOREIGN["batch result, short"]
    # what knowsum wrote is replaced: a store export, then a batch export over it
    assert main(["store", "export", "--store", str(store), "-o", str(tmp_path / "e.jsonl")]) == 0
    assert main(["store", "export", "--store", str(store), "-o", str(tmp_path / "e.jsonl")]) == 0
    prompts = tmp_path / "p.txt"
    prompts.write_text("hello\n")
    batch = ["batch", "export", "-m", "openai:x", "--prompts", str(prompts), "-o", str(tmp_path / "e.jsonl")]
    assert main([*batch, "--store", str(store)]) == 0
    assert main([*batch, "--store", str(tmp_path / "s2.sqlite")]) == 0
