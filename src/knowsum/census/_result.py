"""The census result record (``result.json``) and the per-item record (``items.jsonl``).

Both are pydantic models with a schema ``version``; undefined numbers (e.g. no verified item, so
no estimate) are ``null`` in JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowsum.errors import InputFileError

__all__ = [
    "RESULT_VERSION",
    "CensusResult",
    "Counts",
    "CurvePoint",
    "DiversityInfo",
    "HeldoutPoint",
    "ItemRecord",
    "KBCategories",
    "KPoint",
    "Sensitivity",
    "StopInfo",
    "TopItem",
    "load_result",
]

RESULT_VERSION = 3
"""Schema version. 2 (issue 10) added ``interval_method`` and ``counting``; version-1 files still load
(they were written with re-centred percentile intervals and, unless ``count_duplicates``, incidence
counting, which is what they are read as). 3 (issue 20) reports ``Û(t)`` as ``max(Û, 0)`` and keeps
the computed value in ``n_unseen_raw`` (``unseen_raw``, ``n_unseen_raw`` in curves and studies);
older files are read with that rule applied to their stored numbers."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


@dataclass(frozen=True, slots=True)
class ItemRecord:
    """One decoded item (one line of ``items.jsonl``; a slotted dataclass, as there are millions).

    Attributes:
        query: Index of the response (sample index).
        position: Position of the item in the response.
        text: Decoded item text.
        claimed_id: Identifier the model attached, if any.
        status: Verifier verdict: ``valid``, ``excluded``, ``unverified`` or ``invalid``.
        key: Cluster key (matched ID, or embedding cluster ``C<n>``).
        name: Canonical name of the matched term / cluster.
        score: Match similarity in [0, 1].
        stage: Match stage: ``exact``, ``normalized``, ``fuzzy``.
        claimed_ok: Whether the claimed ID resolves to the matched term.
        counted: Counted in the prevalence (valid, first of its cluster in its response).
    """

    query: int
    position: int
    text: str
    claimed_id: str | None
    status: str
    key: str | None
    name: str | None
    score: float | None
    stage: str | None
    claimed_ok: bool | None
    counted: bool

    def to_json(self) -> str:
        """The JSON line of ``items.jsonl``."""
        return json.dumps(
            {
                "query": self.query,
                "position": self.position,
                "text": self.text,
                "claimed_id": self.claimed_id,
                "status": self.status,
                "key": self.key,
                "name": self.name,
                "score": self.score,
                "stage": self.stage,
                "claimed_ok": self.claimed_ok,
                "counted": self.counted,
            },
            ensure_ascii=False,
        )


class Counts(_Record):
    """How many responses and items went through each stage."""

    responses: int = Field(description="responses used (successful generations)")
    failed_responses: int = Field(0, description="requests that ended in an error (not used)")
    items: int = Field(description="decoded items")
    valid: int = Field(description="items that passed verification")
    excluded: int = Field(description="matched items that fail the criterion")
    unverified: int = Field(description="items passing the name rule but not in the KB (theorems)")
    invalid: int = Field(description="items that matched nothing")
    counted: int = Field(
        description="valid items counted (n): every mention (counting = mention) or the first of each "
        "cluster in its response (counting = incidence)"
    )
    claimed_ids: int = Field(0, description="matched items that came with a claimed ID")
    claimed_agree: int = Field(0, description="of those, how many claimed the matched ID")


class CurvePoint(_Record):
    """``Û(t)``, ``N̂_tot(t)`` and ``SKR(t)`` at one ``t``, with bootstrap bands."""

    t: float
    unseen: float = Field(description="Û(t) as reported, max(Û, 0)")
    unseen_raw: float | None = Field(None, description="Û(t) as computed (may be negative)")
    unseen_lower: float | None = None
    unseen_upper: float | None = None
    n_total: float
    skr: float | None
    skr_lower: float | None = None
    skr_upper: float | None = None


class HeldoutPoint(_Record):
    """Held-out check (paper §5.1, Fig. 7): mean estimated vs actual unseen over random splits."""

    r_obs: float = Field(description="observed fraction of the queries")
    t: float = Field(description="extrapolation factor of this point (held-out / observed queries)")
    estimated: float = Field(description="mean estimated unseen")
    actual: float = Field(description="mean actual number of new items in the held-out queries")
    estimated_sd: float
    actual_sd: float


class KPoint(_Record):
    """The estimate at one truncation level ``k`` and its held-out error (paper Fig. 9 left)."""

    k: int
    n_unseen: float = Field(description="Û(t) with this k (smoothed Good–Turing, eq. 1), max(Û, 0)")
    n_unseen_raw: float | None = Field(None, description="Û(t) with this k as computed (may be negative)")
    n_total: float = Field(description="N_seen + Û(t)")
    skr: float | None
    nmse: float = Field(description="held-out normalized MSE of this k (§5.1)")


class Sensitivity(_Record):
    """``knowsum census sensitivity``: the estimate over ``t`` and over ``k`` (paper §5.2, Figs. 8-9 left)."""

    t: float = Field(description="the run's t (the k study's extrapolation factor)")
    estimator: str = Field(description="estimator of the t study (the k study uses et)")
    k: int | None = Field(description="the run's k (used by the t study)")
    interval_method: str = Field(description="band of the t study: lognormal or percentile")
    n_resamples: int = Field(description="bootstrap resamples of the t band")
    t_points: list[CurvePoint]
    k_points: list[KPoint]
    k_best: int = Field(description="k with the smallest held-out NMSE")
    split: str = Field(description="held-out splits: queries or thinning")
    n_shuffles: int


class TopItem(_Record):
    """One of the most frequent clusters (paper Tables 6-8)."""

    key: str
    name: str
    count: int = Field(description="times counted")
    fraction: float = Field(description="count / n (all counted observations)")


class StopInfo(_Record):
    """Where and why an adaptive (``until_new_rate``) run stopped."""

    reason: Literal["rate", "max-queries"]
    queries: int = Field(description="queries used when it stopped")
    threshold: float = Field(description="the EPS asked for (new verified items per query)")
    history: list[tuple[int, float]] = Field(description="(queries so far, predicted new items per query)")
    message: str


class DiversityInfo(_Record):
    """Embedding clustering of an open-ended task (paper §4.3, App. B.3.3)."""

    embedding_model: str
    quantile: float
    neighbours: int
    threshold: float = Field(description="cosine distance below which two responses are equivalent")
    pooled_runs: list[str] = Field(description="other runs whose k-NN distances were pooled")
    n_distances: int


class KBCategories(_Record):
    """The disease KB's top-level categories, one per term (paper Fig. 10 right; issue 18)."""

    kb: str = Field(description="knowledge base (doid)")
    rule: str = Field(description="how a term with several is_a paths gets one category")
    counts: dict[str, int] = Field(description="category name → number of terms, largest first")
    total: int = Field(description="terms classified (non-obsolete, below the root)")
    strict: str = Field(description="the category the strict criterion keeps")
    paper: dict[str, int] = Field(
        description="what the paper's text gives of its Fig. 10 right: category name → count, and 'total'"
    )


class CensusResult(_Record):
    """Everything a census run found (``result.json``)."""

    version: int = Field(RESULT_VERSION, description="schema version")
    created: str = Field(description="UTC time the result was written (ISO 8601)")
    task: str
    kind: str
    prompt: str
    model: str = Field(description="model id")
    backend: str = Field(description="backend kind: local, openai, mock")
    criterion: str
    parameters: dict[str, Any] = Field(description="the full validated configuration")
    counts: Counts
    prevalence: list[tuple[int, int]] = Field(description="(s, n_s) pairs, n_s > 0")
    n_queries: int
    n_observations: int = Field(description="n = Σ s·n_s")
    n_seen: int
    n_unseen: float | None = Field(
        description="Û(t) as reported: max(Û, 0), as SpadeR and iNEXT report it (so N̂_tot ≥ N_seen)"
    )
    n_unseen_raw: float | None = Field(
        None, description="Û(t) as the estimator computed it (negative on some small samples)"
    )
    n_total: float | None = Field(description="N̂_tot = N_seen + Û(t) (≥ N_seen)")
    skr: float | None = Field(description="SKR(t) = N_seen / N̂_tot, in (0, 1]")
    interval: tuple[float, float] | None = Field(description="bootstrap interval of Û(t)")
    interval_total: tuple[float, float] | None = None
    interval_skr: tuple[float, float] | None = Field(None, description="from the N̂_tot interval (lognormal)")
    level: float
    interval_method: Literal["lognormal", "percentile"] = Field(
        "lognormal",
        description="lognormal: Chao (1987) log-transformed interval from the bootstrap variance of Û "
        "(lower end ≥ N_seen); percentile: bootstrap percentiles re-centred on the estimate",
    )
    counting: Literal["mention", "incidence"] = Field(
        "mention",
        description="mention: each valid mention is one observation (paper App. B.3); incidence: a "
        "cluster counts at most once per response",
    )
    t: float
    k: int | None
    k_source: str
    estimator: str
    k_errors: dict[str, float] = Field(description="held-out NMSE of each candidate k")
    curve: list[CurvePoint]
    heldout: list[HeldoutPoint]
    top_items: list[TopItem]
    concept_words: dict[str, int] = Field(
        default_factory=dict,
        description="theorem tasks: distinct counted items (N_seen) whose name contains each word of the "
        "criterion (strict: theorem; relaxed: the twelve of §4.1), in any word form; an item with two "
        "words counts under both",
    )
    unverified_top: list[TopItem] = Field(description="theorems passing the name rule but not in the list")
    examples: list[str] = Field(default_factory=list, description="a few raw responses (model text)")
    stop: StopInfo | None = None
    diversity: DiversityInfo | None = None
    sensitivity: Sensitivity | None = Field(None, description="added by `knowsum census sensitivity`")
    kb_categories: KBCategories | None = Field(None, description="disease censuses: the KB's categories")
    timings: dict[str, float] = Field(description="seconds per stage")
    notes: list[str] = Field(default_factory=list)


def _clamp_point(point: dict[str, Any], n_seen: float, unseen: str, raw: str) -> None:
    """Version 2 → 3 for one estimate: keep ``unseen`` as ``raw``, report ``max(Û, 0)``."""
    value = point.get(unseen)
    if not isinstance(value, (int, float)):
        return
    point[raw] = value
    if value < 0:
        point[unseen] = 0.0
        point["n_total"] = n_seen
        if n_seen > 0 and "skr" in point:
            point["skr"] = 1.0


def _clamp_v2(data: dict[str, Any]) -> None:
    """Read a version-2 result with the version-3 rule (Û reported as ``max(Û, 0)``)."""
    seen = data.get("n_seen")
    n_seen = float(seen) if isinstance(seen, (int, float)) else 0.0
    _clamp_point(data, n_seen, "n_unseen", "n_unseen_raw")
    for point in data.get("curve") or []:
        if isinstance(point, dict):
            _clamp_point(point, n_seen, "unseen", "unseen_raw")
    study = data.get("sensitivity")
    if isinstance(study, dict):
        for key, unseen, raw in (
            ("t_points", "unseen", "unseen_raw"),
            ("k_points", "n_unseen", "n_unseen_raw"),
        ):
            for point in study.get(key) or []:
                if isinstance(point, dict):
                    _clamp_point(point, n_seen, unseen, raw)
    data["version"] = RESULT_VERSION


def load_result(path: Path) -> CensusResult:
    """Read ``result.json`` (a run directory or the file itself).

    Raises:
        InputFileError: missing file, bad JSON, another schema version or invalid fields.
    """
    file = path / "result.json" if path.is_dir() else path
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputFileError(file, "no census result here (run `knowsum census run` first)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(file, f"cannot read census result: {exc}") from None
    if not isinstance(data, dict) or data.get("version") not in (1, 2, RESULT_VERSION):
        version = data.get("version") if isinstance(data, dict) else None
        raise InputFileError(
            file, f"unsupported census result version {version!r} (expected {RESULT_VERSION})"
        )
    if data["version"] == 1:  # what version 1 always did
        raw = data.get("parameters")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        data.update(
            version=2,
            interval_method="percentile",
            counting="mention" if params.get("count_duplicates") else "incidence",
        )
    if data["version"] == 2:
        _clamp_v2(data)
    try:
        return CensusResult.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InputFileError(file, f"invalid census result field {where}: {err['msg']}") from None
