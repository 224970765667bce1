"""Server families behind an OpenAI-compatible endpoint: what each reads as "top-k off / min-p off".

KnowSum samples at temperature 1 with every truncation off (:data:`~knowsum.models.PAPER_PARAMS`:
``top_k=0``, ``min_p=0``) and no repetition penalty (knowsum has no such parameter: it is always off).
OpenAI's API has neither truncation field, and the servers that add them disagree on how to spell
"off" and on what they do when the field is missing:

============  ===========================  ==========================  ==================================
family        top-k off is sent as         min-p off is sent as        when the field is missing
============  ===========================  ==========================  ==================================
``vllm``      ``top_k: -1``                ``min_p: 0.0``              off (vLLM default top_k 0/-1)
``llama.cpp`` ``top_k: 0``                 ``min_p: 0.0``              **top_k 40, min_p 0.05**
``ollama``    (not accepted on /v1)        (not accepted on /v1)       the model's Modelfile, else 40/0.0
``openai``    (no such field: none sent)   (no such field: none sent)  no truncation exists
``generic``   ``top_k: -1``                ``min_p: 0.0``              unknown
============  ===========================  ==========================  ==================================

The repetition penalty is sent as off (1.0) too, where the server has one: llama-cpp-python's server
applies ``repeat_penalty`` 1.1 when it is missing (``llama_cpp/server/types.py``,
``repeat_penalty_field = Field(default=1.1, …)``; its embedded ``Llama.create_chat_completion``
defaults to 1.0), and vLLM takes a missing ``repetition_penalty`` from the model's
``generation_config.json`` (vLLM's ``--generation-config auto``, its default: "Default sampling
parameters have been overridden by the model's Hugging Face generation config").

Sources (each read in the server's own code or reference documentation):

- **vLLM** ``vllm/sampling_params.py`` (``SamplingParams``): "top_k: Controls the number of top tokens
  to consider. Set to 0 (or -1) to consider all tokens"; "min_p: … Must be in [0, 1]. Set to 0 to
  disable this". Releases up to 0.8 reject 0 ("top_k must be -1 (disable), or at least 1, got 0",
  vllm-project/vllm#17553), so knowsum sends -1, which every release reads as off.
- **llama.cpp** ``llama-server`` (``tools/server/README.md``, sampling params): "--top-k N top-k
  sampling (default: 40, 0 = disabled)", "--min-p N min-p sampling (default: 0.05, 0.0 =
  disabled)"; the sampler (``src/llama-sampler.cpp``, ``llama_sampler_top_k_impl``) returns at once
  for ``k <= 0``. **llama-cpp-python**'s server (``python -m llama_cpp.server``,
  ``llama_cpp/server/types.py``) declares ``top_k = Field(default=40, ge=0)`` and ``min_p =
  Field(default=0.05, ge=0.0, le=1.0)``: it rejects -1 ("Input should be greater than or equal to
  0", answered as HTTP 500) and applies 40 / 0.05 when the fields are missing. Both therefore get 0.
- **Ollama** ``openai/openai.go``: ``ChatCompletionRequest`` has no ``top_k``/``min_p`` (unknown JSON
  fields are dropped), so requests run with the model's options: its Modelfile parameters,
  else ``api.DefaultOptions()`` (``api/types.go``: ``TopK: 40``; ``MinP`` unset = 0.0; the Modelfile
  docs: "top_k … (Default: 40)", "min_p … (Default: 0.0)"). knowsum reads the model's parameters
  from ``POST /api/show`` and refuses to sample when they differ from the request
  (:func:`check_ollama`), naming the Modelfile that fixes it.
- **OpenAI** (API reference, chat completions): sampling is controlled by ``temperature`` and
  ``top_p`` only; there is no top-k or min-p truncation to turn off, and unknown fields are rejected.

Which family a ``--base-url`` is (:func:`detect_kind`, used when the kind is ``auto``): the host
``api.openai.com`` is ``openai``; otherwise ``GET <base>/models`` is read: ``owned_by`` ``vllm``
(vLLM's ``ModelCard``), ``llamacpp`` (llama-server) or ``me`` with a ``permissions`` list
(llama-cpp-python's ``/v1/models``) decide; else ``GET <root>/api/version`` answering a version is
Ollama and ``GET <root>/props`` with ``default_generation_settings`` is llama-server. Nothing
recognised: ``generic``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import httpx

from knowsum.errors import ConfigError
from knowsum.models._params import GenerationParams

__all__ = [
    "SERVER_KINDS",
    "ServerKind",
    "check_ollama",
    "detect_kind",
    "is_validation_error",
    "kind_from_models",
    "refusal_of",
    "sampling_fields",
    "server_reason",
]

ServerKind = Literal["auto", "vllm", "llama.cpp", "ollama", "openai", "generic"]
SERVER_KINDS: tuple[str, ...] = ("auto", "vllm", "llama.cpp", "ollama", "openai", "generic")

_OWNED_BY = {"vllm": "vllm", "llamacpp": "llama.cpp", "openai": "openai", "system": "openai"}
_OLLAMA_DEFAULTS = {"top_k": 40.0, "min_p": 0.0, "repeat_penalty": 1.0}  # api.DefaultOptions()
_VALIDATION = re.compile(
    r"\bvalidation errors?\b|input should be|invalid_request_error|badrequesterror|must be (?:-1|at least)",
    re.IGNORECASE,
)
_TRACEBACK = re.compile(r'\n\s*File "')  # a Python traceback a server appended to its message


def sampling_fields(kind: str, params: GenerationParams) -> dict[str, Any]:
    """The body fields that make server family ``kind`` sample as ``params`` says (top-k, min-p, and
    the repetition penalty off).

    Raises:
        ConfigError: ``openai`` asked for a truncation its API does not have.
    """
    if kind in ("vllm", "generic"):
        top_k = params.top_k if params.top_k > 0 else -1
        return {"top_k": top_k, "min_p": params.min_p, "repetition_penalty": 1.0}
    if kind == "llama.cpp":
        return {"top_k": params.top_k, "min_p": params.min_p, "repeat_penalty": 1.0}
    if kind == "openai":
        if params.top_k > 0 or params.min_p > 0:
            raise ConfigError(
                f"OpenAI's API has no top-k or min-p sampling (asked: top_k={params.top_k}, "
                f"min_p={params.min_p}): use --top-k 0 --min-p 0, or a server that has them"
            )
        return {}
    if kind == "ollama":
        return {}  # dropped by Ollama's /v1 layer; check_ollama verifies the model's own options
    raise ConfigError(f"invalid server kind {kind!r}: use one of {', '.join(SERVER_KINDS)}")


def api_root(base_url: str) -> str:
    """The server root of an API base URL (``http://h:p/v1`` → ``http://h:p``)."""
    return re.sub(r"/v1/?$", "", base_url.rstrip("/"))


def kind_from_models(payload: Any) -> str | None:
    """The family named by a ``GET /v1/models`` answer (``owned_by``), or ``None``."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return None
    for entry in data:
        if not isinstance(entry, dict):
            continue
        owner = str(entry.get("owned_by", "")).lower()
        if owner in _OWNED_BY:
            return _OWNED_BY[owner]
        if owner == "me" and isinstance(entry.get("permissions"), list):  # llama-cpp-python's server
            return "llama.cpp"
    return None


async def _get_json(client: httpx.AsyncClient, url: str, timeout: float) -> Any:
    """The JSON of ``GET url``, or ``None`` for a non-200 answer or a body that is not JSON."""
    resp = await client.get(url, timeout=timeout)
    if resp.status_code != 200:
        return None
    try:
        return resp.json()
    except ValueError:
        return None


async def detect_kind(client: httpx.AsyncClient, base_url: str, timeout: float = 10.0) -> str:
    """Probe ``base_url`` for its server family (module docstring).

    Raises:
        httpx.TransportError: the server could not be reached (the caller retries).
    """
    if "api.openai.com" in httpx.URL(base_url).host:
        return "openai"
    found = kind_from_models(await _get_json(client, f"{base_url.rstrip('/')}/models", timeout))
    if found is not None:
        return found
    root = api_root(base_url)
    version = await _get_json(client, f"{root}/api/version", timeout)
    if isinstance(version, dict) and "version" in version:
        return "ollama"
    props = await _get_json(client, f"{root}/props", timeout)
    if isinstance(props, dict) and "default_generation_settings" in props:
        return "llama.cpp"
    return "generic"


def _modelfile_parameters(text: str) -> dict[str, float]:
    """``top_k``, ``min_p``, ``repeat_penalty`` from the ``parameters`` text of ``/api/show``."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.strip().partition(" ")
        if name in _OLLAMA_DEFAULTS and name not in out:
            try:
                out[name] = float(value.strip().strip('"'))
            except ValueError:
                continue
    return out


def _version_tuple(version: Any) -> tuple[int, ...]:
    """``"0.32.10-rc1"`` → ``(0, 32, 10)``; unknown → ``(0,)`` (the oldest, most conservative)."""
    found = re.match(r"(\d+)\.(\d+)\.(\d+)", str(version or ""))
    return tuple(int(x) for x in found.groups()) if found else (0,)


async def check_ollama(
    client: httpx.AsyncClient, base_url: str, model: str, params: GenerationParams, timeout: float = 10.0
) -> None:
    """Refuse to sample when an Ollama model's own top_k/min_p differ from ``params`` (or it penalizes
    repetitions).

    Ollama's OpenAI-compatible endpoint drops ``top_k``, ``min_p`` and ``repeat_penalty``; the model
    samples with its Modelfile parameters, else Ollama's defaults (top_k 40, min_p 0.0, repeat_penalty
    1.0 in ``api.DefaultOptions()`` since 0.32.10, "api: stop applying repeat_penalty 1.1 to models
    that don't set one"; 1.1 before, so the version from ``/api/version`` decides that default).

    Raises:
        ConfigError: the model would sample otherwise than asked, or ``/api/show`` did not answer.
    """
    resp = await client.post(f"{api_root(base_url)}/api/show", json={"model": model}, timeout=timeout)
    if resp.status_code != 200:
        raise ConfigError(
            f"cannot read the sampling options of Ollama model {model!r} (POST /api/show answered HTTP "
            f"{resp.status_code}: {server_reason(resp.text)}); check the model name"
        )
    try:
        text = str(resp.json().get("parameters") or "")
    except (ValueError, AttributeError):
        text = ""
    defaults = dict(_OLLAMA_DEFAULTS)
    version = await _get_json(client, f"{api_root(base_url)}/api/version", timeout)
    if _version_tuple(version.get("version") if isinstance(version, dict) else None) < (0, 32, 10):
        defaults["repeat_penalty"] = 1.1
    effective = {**defaults, **_modelfile_parameters(text)}
    top_k_ok = effective["top_k"] <= 0 if params.top_k == 0 else effective["top_k"] == params.top_k
    if top_k_ok and effective["min_p"] == params.min_p and effective["repeat_penalty"] == 1.0:
        return
    want_k = "0 (off)" if params.top_k == 0 else str(params.top_k)
    lines = f"PARAMETER top_k {params.top_k}\\nPARAMETER min_p {params.min_p:g}\\nPARAMETER repeat_penalty 1"
    raise ConfigError(
        f"Ollama's OpenAI-compatible API ignores top_k, min_p and repeat_penalty, so {model!r} would sample "
        f"with top_k={effective['top_k']:g}, min_p={effective['min_p']:g}, repeat_penalty="
        f"{effective['repeat_penalty']:g} (its Modelfile, else Ollama's defaults) instead of top_k={want_k}, "
        f"min_p={params.min_p:g}, repeat_penalty=1 (off). Make a copy that samples as asked: printf "
        f"'FROM {model}\\n{lines}\\n' > Modelfile && ollama create {model}-knowsum -f Modelfile, then use "
        f"openai:{model}-knowsum"
    )


def server_reason(text: str, limit: int = 300) -> str:
    """The server's own words from an error body, on one line (OpenAI, FastAPI and vLLM shapes)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    reason: Any = text
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            reason = err.get("message") or err.get("detail") or data.get("detail") or text
        elif isinstance(err, str):
            reason = err
        if isinstance(reason, list):  # FastAPI 422: [{"loc": [...], "msg": ...}, ...]
            reason = "; ".join(
                f"{'.'.join(str(x) for x in d.get('loc', [])[1:])}: {d.get('msg')}"
                if isinstance(d, dict)
                else str(d)
                for d in reason
            )
    one_line = " ".join(_TRACEBACK.split(str(reason), maxsplit=1)[0].split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def is_validation_error(status: int, reason: str) -> bool:
    """True if an answer rejects the request itself, so sending it again cannot succeed.

    Every 4xx except 408 (timeout), 409 (conflict), 425 (too early) and 429 (rate limit); and a 5xx
    whose body names a validation error (llama-cpp-python 0.3.36 answers pydantic's "1 validation
    error: {… 'loc': ('body', 'top_k'), 'msg': 'Input should be greater than or equal to 0' …}" as
    HTTP 500).
    """
    if 400 <= status < 500:
        return status not in (408, 409, 425, 429)
    return status >= 500 and _VALIDATION.search(reason) is not None


def refusal_of(choice: Any) -> str | None:
    """The model's refusal in a chat choice (``message.refusal`` where ``content`` is null), read the
    same way from an online answer and from a Batch result; ``None``: the choice is no refusal."""
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict) or message.get("content") is not None:
        return None
    refusal = message.get("refusal")
    return refusal if isinstance(refusal, str) and refusal.strip() else None
