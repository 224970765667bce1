"""``plan_profile``: what a profile will ask, and what it will cost, before anything is asked.

Per instrument, over its *distinct* requests (two runs sharing a request count it once):

- ``requests``, and ``stored``: those the response store already answers (not asked again);
- ``prompt_tokens``: stored responses as the backend counted them; the others by the backend's
  :meth:`~knowsum.models.Backend.token_counter` (:mod:`knowsum.models._tokens`): a local model's own
  tokenizer on the prompt as sent (through the GGUF's chat template: what llama.cpp reports), or
  estimated as ⌈characters / 4⌉ for a remote or mock backend (marked ``prompt_tokens_estimated``);
- ``completion_tokens``: upper bound Σ max_tokens (stored: as generated);
  ``completion_tokens_expected``: stored as generated, pending ones at this model's measured
  fraction of max_tokens (from this plan's stored responses, else from every response of the model
  in the store; ``None`` without any);
- ``seconds_expected``: pending expected completion tokens × measured wall seconds per generated
  token of the same responses (their busy time from the arrival times, idle gaps over two minutes
  left out, over their completion tokens — so batching and concurrency are in it); ``--probe``
  first answers a few pending requests of each instrument (stored, so not asked again by the run);
- cost at the given :class:`~knowsum.records.profile.Prices` (USD per million tokens): ``cost_usd``
  with the upper bound, ``cost_expected_usd`` with the expected completion tokens.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from knowsum.instrument import KBs, Step
from knowsum.models import Backend, Request, Response, ResponseStore, TokenCounter, sample_sync
from knowsum.profile._budget import ProfileBudget
from knowsum.profile._steps import plan_steps, step_requests
from knowsum.records.profile import InstrumentPlan, PlanSummary, Prices

__all__ = ["ProfilePlan", "plan_profile"]

PROBE_TOKENS = 512
"""``--probe`` answers, per instrument, pending requests worth about this many tokens of max_tokens
(at least 2, at most 8): two long enumerations, eight short answers — so the
fixed cost of a decoder run is shared as in the real run."""
IDLE_GAP = 120.0
"""Seconds between two stored responses beyond which the model was idle (another session)."""


@dataclass(frozen=True)
class ProfilePlan:
    """A profile ready to run: the budget, the steps, each instrument's distinct requests and the summary."""

    budget: ProfileBudget
    steps: list[Step]
    requests: dict[str, list[Request]]
    summary: PlanSummary
    keys: dict[str, list[str]] = field(default_factory=dict)
    """Instrument → the store keys of its distinct requests."""
    step_keys: dict[str, list[str]] = field(default_factory=dict)
    """Step name → the store keys of that step's requests (two steps of one instrument may share
    them: one scoring of the same answers under two criteria)."""


@dataclass
class _Rates:
    """This model's measured completion fraction and seconds per token (``None``: no evidence)."""

    fraction: float | None
    seconds_per_token: float | None
    n: int


def _rates(responses: Sequence[Response]) -> _Rates:
    """The completion fraction Σ completion / Σ max_tokens, and the wall time per generated token:
    the busy time — gaps between consecutive arrivals, idle gaps over :data:`IDLE_GAP` left out, plus
    the first response's latency — over Σ completion tokens. Arrival times, not latencies, because
    a batched or concurrent backend overlaps its requests' latencies."""
    ok = [r for r in responses if r.ok and r.completion_tokens > 0]
    if not ok:
        return _Rates(None, None, 0)
    c_tok = sum(r.completion_tokens for r in ok)
    budget = sum(r.request.params.max_tokens for r in ok)
    times = sorted(r.created for r in ok)
    first = min(ok, key=lambda r: r.created)
    busy = sum(b - a for a, b in itertools.pairwise(times) if b - a <= IDLE_GAP)
    busy += min(max(0.0, first.latency), IDLE_GAP)
    return _Rates(min(1.0, c_tok / budget) if budget else None, busy / c_tok, len(ok))


def _model_rates(backend: Backend, store: ResponseStore | None) -> _Rates:
    if store is None:
        return _Rates(None, None, 0)
    mine = [
        r
        for r in store.responses(errors=False)
        if (r.backend, r.model, r.endpoint) == (backend.kind, backend.model_id, backend.endpoint)
    ]
    return _rates(mine)


def _cost(prompt: int, completion: int | None, prices: Prices | None) -> float | None:
    return None if prices is None or completion is None else prices.cost(prompt, completion)


def _instrument(
    requests: list[Request],
    keys: list[str],
    stored: dict[str, Response],
    count: TokenCounter,
    model: _Rates,
    prices: Prices | None,
) -> InstrumentPlan:
    done = [stored[k] for k in keys if k in stored]
    pending = [r for r, k in zip(requests, keys, strict=True) if k not in stored]
    cache: dict[bytes, int] = {}
    p_tok = sum(r.prompt_tokens for r in done if r.prompt_tokens > 0)
    p_tok += sum(cache.setdefault(r.request.payload, count(r.request)) for r in done if r.prompt_tokens <= 0)
    p_tok += sum(cache.setdefault(r.payload, count(r)) for r in pending)
    upper_pending = sum(r.params.max_tokens for r in pending)
    done_tokens = sum(r.completion_tokens for r in done)
    own = _rates(done)
    rates = own if own.n else model
    expected_pending = None if rates.fraction is None else round(upper_pending * rates.fraction)
    expected = None if expected_pending is None and pending else done_tokens + (expected_pending or 0)
    seconds = None
    if not pending:
        seconds = 0.0
    elif expected_pending is not None and rates.seconds_per_token is not None:
        seconds = round(expected_pending * rates.seconds_per_token, 1)
    completion = done_tokens + upper_pending
    return InstrumentPlan(
        requests=len(keys),
        stored=len(done),
        prompt_tokens=p_tok,
        prompt_tokens_estimated=count.estimated,
        completion_tokens=completion,
        completion_tokens_expected=expected,
        seconds_expected=seconds,
        cost_usd=_cost(p_tok, completion, prices),
        cost_expected_usd=_cost(p_tok, expected, prices),
    )


def _distinct(
    backend: Backend, steps: list[Step]
) -> tuple[dict[str, list[Request]], dict[str, list[str]], dict[str, list[str]]]:
    """Each instrument's distinct requests and their keys, and each step's keys."""
    kbs = KBs()
    reqs: dict[str, list[Request]] = {}
    keys: dict[str, list[str]] = {}
    step_keys: dict[str, list[str]] = {}
    seen: dict[str, set[str]] = {}
    for step in steps:
        own = step_keys.setdefault(step.name, [])
        for r in step_requests(step, kbs):
            k = backend.key(r)
            own.append(k)
            if k not in seen.setdefault(step.instrument, set()):
                seen[step.instrument].add(k)
                reqs.setdefault(step.instrument, []).append(r)
                keys.setdefault(step.instrument, []).append(k)
    return reqs, keys, step_keys


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def _sum(values: Sequence[float | int | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def plan_profile(
    budget: ProfileBudget,
    backend: Backend,
    *,
    store: ResponseStore | None,
    probe: bool = False,
    prices: Prices | None = None,
) -> ProfilePlan:
    """Count the requests, tokens, time and cost of ``budget`` on ``backend`` (see the module docstring).

    Args:
        budget: The budget (:func:`knowsum.profile.load_budget`).
        backend: The model (its identity makes the store keys; a local model's tokenizer counts).
        store: The response store the run will use (``None``: nothing stored yet).
        probe: First answer a few pending requests of each instrument (stored) to measure the speed.
        prices: USD per million prompt and completion tokens (``None``: no cost is given).

    Raises:
        ConfigError: an instrument refuses a budget setting. KBNotInstalledError: a KB the plan needs.
    """
    steps = plan_steps(budget)
    reqs, keys, step_keys = _distinct(backend, steps)
    if probe and store is not None:
        for name, rs in reqs.items():
            done = store.done_keys(set(keys[name]))
            pending = [r for r, k in zip(rs, keys[name], strict=True) if k not in done]
            size = max(1, max((r.params.max_tokens for r in pending), default=1))
            few = pending[: max(2, min(8, PROBE_TOKENS // size))]
            sample_sync(backend, few, store=store, progress=False)
    count = backend.token_counter()
    model = _model_rates(backend, store)
    parts: dict[str, InstrumentPlan] = {}
    for name, rs in reqs.items():
        stored = {r.key: r for r in store.responses(keys[name], errors=False)} if store is not None else {}
        parts[name] = _instrument(rs, keys[name], stored, count, model, prices)
    values = list(parts.values())
    time_source = (
        f"arrival times of {model.n} stored responses of this model (wall time per token)"
        if model.n
        else "no stored response of this model yet: run with --probe, or after a first run"
    )
    summary = PlanSummary(
        budget=budget.name,
        description=budget.description,
        requests=sum(p.requests for p in values),
        stored=sum(p.stored for p in values),
        prompt_tokens=sum(p.prompt_tokens for p in values),
        completion_tokens=sum(p.completion_tokens for p in values),
        completion_tokens_expected=_int(_sum([p.completion_tokens_expected for p in values])),
        seconds_expected=_sum([p.seconds_expected for p in values]),
        cost_usd=_sum([p.cost_usd for p in values]),
        cost_expected_usd=_sum([p.cost_expected_usd for p in values]),
        price_in=None if prices is None else prices.prompt,
        price_out=None if prices is None else prices.completion,
        tokens_source=count.how,
        time_source=time_source,
        instruments=parts,
    )
    return ProfilePlan(budget, steps, reqs, summary, keys, step_keys)
