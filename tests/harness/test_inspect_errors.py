"""Bad task arguments fail in one line before any model call; bad logs are refused with what to do.

Every knowsum task is enumerated: a task argument that its configuration refuses, an unknown census
task and a knowledge base that is not installed each raise inspect's one-line error (printed without
a traceback by ``inspect eval``) and the model is never asked. ``--inspect-log`` refuses files that
are not knowsum logs of the instrument read, and other inputs given beside it.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import generate

from knowsum.cli import main
from knowsum.errors import InputFileError
from knowsum.harness import Answer, ReplayBackend, read_log, request_id
from knowsum.harness.tasks import census, genebench, recall
from knowsum.models import GenerationParams, make_requests, sample_sync
from tests.harness._mock import output

BAD_ARGS = [
    (census, {"task": "diseases", "queries": 0}, "knowsum/census: invalid queries=0"),
    (census, {"task": "no-such-task"}, "no-such-task"),
    (census, {"task": "diseases", "criterion": "loose"}, "knowsum/census: invalid criterion='loose'"),
    (census, {"task": "ontology:hpo"}, "knowsum kb install hpo"),
    (recall, {"kb": "hpo", "per_bucket": 2}, "knowsum kb install hpo"),
    (recall, {"kb": "go", "per_bucket": 0}, "knowsum/recall: invalid per_bucket=0"),
    (genebench, {"per_type": 0}, "knowsum/genebench: invalid per_type=0"),
    (genebench, {"per_type": 1}, "knowsum kb install genes"),
    # a message naming a command-line option names inspect's task argument instead
    (recall, {"kb": "doid", "per_bucket": 2}, "(use -T popularity=web|FILE|annotations)"),
    (recall, {"kb": "doid", "popularity": "web"}, "pass -T popularity=FILE with ID,count rows"),
]


@pytest.mark.parametrize(("factory", "args", "says"), BAD_ARGS)
def test_bad_task_arguments_fail_in_one_line_before_any_model_call(
    kb_home: Path, factory: Any, args: dict[str, Any], says: str
) -> None:
    with pytest.raises(PrerequisiteError) as caught:
        factory(**args)
    message = str(caught.value.message)
    assert says in message
    assert "\n" not in message and " --" not in message


def test_the_model_is_not_asked_when_the_arguments_are_bad(kb_home: Path, tmp_path: Path) -> None:
    calls: list[int] = []

    def answer(*_a: Any) -> ModelOutput:
        calls.append(1)
        return output("x")

    model = get_model("mockllm/model", custom_outputs=answer)
    with pytest.raises(PrerequisiteError):
        inspect_eval(
            census(task="diseases", queries=0), model=model, log_dir=str(tmp_path / "logs"), display="none"
        )
    assert calls == [] and not (tmp_path / "logs").exists()


@pytest.mark.slow
def test_inspect_eval_command_prints_one_line(kb_home: Path, tmp_path: Path) -> None:
    """``inspect eval knowsum/census -T queries=0``: the entry point finds the task, the message is one
    line, the exit code non-zero, no log written."""
    inspect = Path(sys.executable).with_name("inspect")
    args = ["-T", "task=diseases", "-T", "queries=0", "--model", "mockllm/model"]
    cmd = [str(inspect), "eval", "knowsum/census", *args, "--log-dir", str(tmp_path / "logs")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert done.returncode != 0
    lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    assert lines == ["knowsum/census: invalid queries=0: Input should be greater than or equal to 1"]
    assert not (tmp_path / "logs").exists()


def test_replay_backend_fails_a_request_the_log_does_not_answer() -> None:
    reqs = make_requests(["List diseases."], GenerationParams(), n=3)
    answers = {
        request_id(reqs[0]): Answer("asthma"),
        request_id(reqs[2]): Answer("", "error", "inspect: boom"),
    }
    got = sample_sync(ReplayBackend(answers, model_id="m", source="log.eval"), reqs, store=None)
    assert [r.ok for r in got] == [True, False, False]
    assert got[0].text == "asthma" and got[0].backend == "inspect" and got[0].endpoint == "log.eval"
    assert "no answer to this request (sample 1)" in str(got[1].error)
    assert got[2].error == "inspect: boom"


def test_request_ids_separate_what_a_store_separates() -> None:
    a, b = make_requests(["List diseases."], GenerationParams(), n=2)
    hot = make_requests(["List diseases."], GenerationParams(temperature=0.5), n=1)[0]
    other = make_requests(["List theorems."], GenerationParams(), n=1)[0]
    assert len({request_id(r) for r in (a, b, hot, other)}) == 4
    assert request_id(a) == request_id(make_requests(["List diseases."], GenerationParams(), n=1)[0])


def _other_log(tmp_path: Path) -> Path:
    model = get_model("mockllm/model", custom_outputs=[output("hello")])
    task = Task(dataset=[Sample(input="hi")], solver=generate())
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    return Path(logs[0].location)


def test_read_log_refuses_what_is_not_a_knowsum_log_of_the_instrument(tmp_path: Path) -> None:
    junk = tmp_path / "junk.eval"
    with zipfile.ZipFile(junk, "w") as zf:
        zf.writestr("x.txt", "not a log")
    with pytest.raises(InputFileError, match="not an inspect log"):
        read_log(junk, "census")
    with pytest.raises(InputFileError, match="no such file; check the path"):
        read_log(tmp_path / "missing.eval", "census")
    with pytest.raises(InputFileError, match="not of a knowsum task: run `inspect eval knowsum/census`"):
        read_log(_other_log(tmp_path), "census")


@pytest.mark.parametrize(
    "argv",
    [
        ["census", "score", "items.jsonl", "--inspect-log", "LOG"],
        ["census", "score", "--inspect-log", "LOG", "--kb", "doid"],
        ["census", "score", "--inspect-log", "LOG", "--t", "10"],
        ["recall", "score", "--inspect-log", "LOG", "--kb", "go"],
        ["genebench", "score", "--inspect-log", "LOG", "--questions", "q.jsonl"],
    ],
)
def test_inspect_log_takes_no_other_input_or_setting(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("items.jsonl", "q.jsonl", "LOG"):
        (tmp_path / name).write_text("{}\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--inspect-log" in err or "not both" in err


def test_import_knowsum_does_not_import_inspect_ai() -> None:
    code = "import sys, knowsum, knowsum.harness, knowsum.cli; sys.exit('inspect_ai' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=600).returncode == 0
