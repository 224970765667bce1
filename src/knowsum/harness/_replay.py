"""Answers that came from elsewhere, served as a backend: an inspect run replayed through knowsum.

Every knowsum request (prompt or messages, generation parameters, sample index) has a
:func:`request_id`; an inspect task carries it in each sample's metadata, and
:class:`ReplayBackend` answers a request with the text the harness got for that id. An instrument's
own ``run`` on a replay backend therefore scores exactly the texts of the inspect log, with the
instrument's own code (decode, verify, cluster, extrapolate, judge, write the run directory).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from knowsum.models import Backend, Request, Response

__all__ = ["Answer", "ReplayBackend", "request_id"]

_SEP = b"\x1f"


def request_id(request: Request) -> str:
    """The id of ``request``: ``sha256(payload ␟ params ␟ sample index)``, 16 hex digits.

    Two requests that a knowsum store would keep apart (another prompt, parameters or sample index)
    get different ids; the backend does not enter it, so a log made on any model replays.
    """
    digest = hashlib.sha256(
        request.payload + _SEP + request.params.to_json().encode() + _SEP + str(request.sample_index).encode()
    )
    return digest.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Answer:
    """What the harness got for one request.

    Attributes:
        text: The model's reply (``""`` when it failed).
        finish_reason: ``stop``, ``length`` (stopped at the token limit) or ``error``.
        error: Why it failed, or ``None``.
    """

    text: str
    finish_reason: str = "stop"
    error: str | None = None


class ReplayBackend(Backend):
    """A backend answering each request with the harness's reply to the same :func:`request_id`.

    Args:
        answers: request id → :class:`Answer`.
        model_id: The model as the harness named it (``openai-api/llama/smollm2``).
        source: Where the answers come from (recorded as the endpoint: the log's path).

    A request the answers do not hold fails (an error response naming its sample index), so a run
    on a log made with other task arguments cannot pass for a complete one.
    """

    kind = "inspect"
    final = True  # a request the log does not answer stays unanswered, however often it is asked

    def __init__(self, answers: Mapping[str, Answer], *, model_id: str, source: str) -> None:
        super().__init__()
        self.answers = dict(answers)
        self.model_id = model_id
        self.endpoint = source
        self.batch_size = 256

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        """The stored answer of every request (an error response where the log has none)."""
        out: list[Response] = []
        for req in requests:
            got = self.answers.get(request_id(req))
            if got is None:
                out.append(
                    self.failure(
                        req, f"the inspect log has no answer to this request (sample {req.sample_index})"
                    )
                )
            elif got.error is not None:
                out.append(self.failure(req, got.error))
            else:
                out.append(self.response(req, got.text, got.finish_reason))
        return out
