"""The census run record (``result.json``) and the per-item record (``items.jsonl``).

:class:`CensusRecord` is a :class:`~knowsum.records.Record` (``kind`` ``"census"``); undefined
numbers (e.g. no verified item, so no estimate) are ``null`` in JSON. Every earlier schema version
still loads (:meth:`CensusRecord.migrate`):

- version 1 was written with re-centred percentile intervals and, unless ``count_duplicates``,
  incidence counting, which is what it is read as;
- version 2 stored ``Û(t)`` as computed, possibly negative; it is read with version 3's rule
  (reported ``max(Û, 0)``, the computed value kept in ``n_unseen_raw`` / ``unseen_raw``);
- version 3 held the task kind in ``kind``; version 4 moves it to ``task_kind`` and ``kind`` names
  the instrument, as in every run record;
- version 4 had no ``richness`` (coverage, Chao estimate, Hill numbers: :class:`RichnessInfo`); it
  is read with ``richness = None`` ("not computed by the knowsum that wrote it"), and its stop rule
  (``stop.rule``) as ``new-rate``, the only one it had;
- version 5 stored the method's settings as ``parameters``; version 6 names them ``config``, as
  every run record does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from knowsum._util import old_names
from knowsum.census._record_domains import Count, Factor, Level, Ratio, Share, Size
from knowsum.census._record_info import DiversityInfo, KBCategories, StopInfo
from knowsum.census._record_migrate import clamp_v2, old_task_kind
from knowsum.census._record_own_t import OwnTCheck
from knowsum.census._record_richness import (
    ChaoEstimate,
    CoverageRank,
    EqualCoverage,
    HillEstimate,
    Overlap,
    RichnessInfo,
    SharedValue,
)
from knowsum.census.backtest_record import TrustHorizon
from knowsum.records import Record, load_record, text_hash

__all__ = [
    "ESTIMATION_SETTINGS",
    "RESULT_VERSION",
    "CensusRecord",
    "ChaoEstimate",
    "Counts",
    "CoverageRank",
    "CurvePoint",
    "DiversityInfo",
    "EqualCoverage",
    "HeldoutPoint",
    "HillEstimate",
    "ItemRecord",
    "KBCategories",
    "KPoint",
    "Overlap",
    "OwnTCheck",
    "RichnessInfo",
    "Sensitivity",
    "SharedValue",
    "StopInfo",
    "TopItem",
    "load_result",
]

ESTIMATION_SETTINGS = ("t", "k", "estimator", "interval method")
"""What a census's figure (``Û(t)``, ``N̂_tot``, its interval) depends on beyond what was measured: runs
that differ only in these share their items (``census overlap`` marks them, it does not refuse)."""

RESULT_VERSION = 6
"""Schema version of :class:`CensusRecord` (the module docstring lists what each version changed)."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


KLevel = Annotated[int, Field(ge=1)]


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

    responses: Count = Field(description="responses used (successful generations)")
    failed_responses: Count = Field(0, description="requests that ended in an error (not used)")
    items: Count = Field(description="decoded items")
    valid: Count = Field(description="items that passed verification")
    excluded: Count = Field(description="matched items that fail the criterion")
    unverified: Count = Field(description="items passing the name rule but not in the KB (theorems)")
    invalid: Count = Field(description="items that matched nothing")
    counted: Count = Field(
        description="valid items counted (n): every mention (counting = mention) or the first of each "
        "cluster in its response (counting = incidence)"
    )
    claimed_ids: Count = Field(0, description="matched items that came with a claimed ID")
    claimed_agree: Count = Field(0, description="of those, how many claimed the matched ID")


class CurvePoint(_Record):
    """``Û(t)``, ``N̂_tot(t)`` and ``SKR(t)`` at one ``t``, with bootstrap (confidence) bands and the
    prediction band of ``U(t)`` (what ``t·n`` further observations will show)."""

    t: Factor
    unseen: Size = Field(description="Û(t) as reported, max(Û, 0)")
    unseen_raw: float | None = Field(None, description="Û(t) as computed (may be negative)")
    unseen_lower: float | None = Field(None, description="confidence interval of Û(t), lower end")
    unseen_upper: float | None = Field(None, description="confidence interval of Û(t), upper end")
    unseen_pred_lower: float | None = Field(None, description="prediction interval of U(t), lower end")
    unseen_pred_upper: float | None = Field(None, description="prediction interval of U(t), upper end")
    n_total: Size
    skr: Ratio | None
    skr_lower: Share | None = None
    skr_upper: Share | None = None


class HeldoutPoint(_Record):
    """Held-out check (paper §5.1, Fig. 7): mean estimated vs actual unseen over random splits."""

    r_obs: Ratio = Field(description="observed fraction of the queries")
    t: Factor = Field(description="extrapolation factor of this point (held-out / observed queries)")
    estimated: float = Field(description="mean estimated unseen")
    actual: Size = Field(description="mean actual number of new items in the held-out queries")
    estimated_sd: Size
    actual_sd: Size


class KPoint(_Record):
    """The estimate at one truncation level ``k`` and its held-out error (paper Fig. 9 left)."""

    k: KLevel
    n_unseen: Size = Field(description="Û(t) with this k (smoothed Good–Turing, eq. 1), max(Û, 0)")
    n_unseen_raw: float | None = Field(None, description="Û(t) with this k as computed (may be negative)")
    n_total: Size = Field(description="N_seen + Û(t)")
    skr: Ratio | None
    nmse: Size = Field(description="held-out normalized MSE of this k (§5.1)")


class Sensitivity(_Record):
    """``knowsum census sensitivity``: the estimate over ``t`` and over ``k`` (paper §5.2, Figs. 8-9 left)."""

    FROM_CENSUS: ClassVar[tuple[str, ...]] = ("t", "estimator", "k", "interval_method")
    """The fields a study repeats from its census, by name (:meth:`CensusRecord.carried`)."""

    t: Factor = Field(description="the run's t (the k study's extrapolation factor)")
    estimator: str = Field(description="estimator of the t study (the k study uses et)")
    k: KLevel | None = Field(description="the run's k (used by the t study)")
    interval_method: str = Field(description="band of the t study: lognormal or percentile")
    n_resamples: Count = Field(description="bootstrap resamples of the t band")
    t_points: list[CurvePoint]
    k_points: list[KPoint]
    k_best: KLevel = Field(description="k with the smallest held-out NMSE")
    split: str = Field(description="held-out splits: queries or thinning")
    n_shuffles: Count


class TopItem(_Record):
    """One of the most frequent clusters (paper Tables 6-8)."""

    key: str
    name: str
    count: PositiveInt = Field(description="times counted")
    fraction: Share = Field(description="count / n (all counted observations)")


class CensusRecord(Record):
    """Everything a census run found (``result.json``)."""

    RUN_COMMAND: ClassVar[str] = "knowsum census run"
    IDENTITY: ClassVar[tuple[str, ...]] = (
        "criterion",
        "count",
        "prompt",
        "answers",
        "temperature",
        "top_p",
        "max_tokens",
        "seed",
        "kb",
        "cutoff",
    )
    """What makes two censuses of one task and model different runs: the verification and counting,
    and what was asked and how it was sampled (the estimation settings only re-estimate the same items)."""

    version: int = Field(RESULT_VERSION, description="schema version of the census record")
    kind: Literal["census"] = "census"
    task: str = Field(description="the task as given (diseases, theorems, ontology:go, score:FILE…)")
    task_kind: str = Field(
        description="which verifier and clustering applied: diseases, theorems, ontology, diversity or text"
    )
    prompt: str
    criterion: str
    config: dict[str, Any] = Field(description="the validated method settings (CensusConfig)")
    counts: Counts
    prevalence: list[tuple[PositiveInt, PositiveInt]] = Field(description="(s, n_s) pairs, n_s > 0")
    n_queries: Count
    n_observations: Count = Field(description="n = Σ s·n_s")
    n_seen: Count
    n_unseen: Size | None = Field(
        description="Û(t) as reported: max(Û, 0), as SpadeR and iNEXT report it (so N̂_tot ≥ N_seen)"
    )
    n_unseen_raw: float | None = Field(
        None, description="Û(t) as the estimator computed it (negative on some small samples)"
    )
    n_total: Size | None = Field(description="N̂_tot = N_seen + Û(t) (≥ N_seen)")
    skr: Ratio | None = Field(description="SKR(t) = N_seen / N̂_tot, in (0, 1]")
    interval: tuple[float, float] | None = Field(
        description="confidence interval of Û(t) (bootstrap): the uncertainty of the estimate"
    )
    interval_total: tuple[float, float] | None = Field(None, description="confidence interval of N̂_tot")
    interval_skr: tuple[Share, Share] | None = Field(None, description="from the N̂_tot interval (lognormal)")
    interval_reason: str | None = Field(
        None,
        description="why the intervals are not shown (a bootstrap that cannot vary: too few observations)",
    )
    prediction_interval: tuple[float, float] | None = Field(
        None,
        description="prediction interval of U(t): the new items t·n further observations will show "
        "(the estimate's variance plus the future sample's; None: n/a, see prediction_reason, or written "
        "before it)",
    )
    prediction_interval_total: tuple[float, float] | None = Field(
        None, description="prediction interval of N_tot(t) = N_seen + U(t)"
    )
    prediction_reason: str | None = Field(None, description="why the prediction interval is not shown")
    prediction_method: str | None = Field(None, description="how the prediction interval was formed")
    level: Level
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
    t: Factor
    k: KLevel | None
    k_source: str
    estimator: str
    k_errors: dict[str, Size] = Field(description="held-out NMSE of each candidate k")
    curve: list[CurvePoint]
    heldout: list[HeldoutPoint]
    top_items: list[TopItem]
    concept_words: dict[str, Count] = Field(
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
    richness: RichnessInfo | None = Field(
        None,
        description="sample coverage, the Chao estimate of the counting mode and Hill numbers q = 0, 1, 2 "
        "(None: N_seen = 0, or written before schema version 5)",
    )
    horizon: TrustHorizon | None = Field(
        None,
        description="how far the run's own queries back-test its estimator (None: written before it)",
    )
    own_t_check: OwnTCheck | None = Field(
        None,
        description="the estimator's error and prediction-interval coverage at the census's own t, on "
        "censuses simulated from a community fitted to it (None: not possible, see own_t_reason, or "
        "written before it)",
    )
    own_t_reason: str | None = Field(None, description="why there is no own_t_check")
    timings: dict[str, Size] = Field(description="seconds per stage")
    notes: list[str] = Field(default_factory=list)

    def carried(self, fields: Iterable[str]) -> dict[str, Any]:
        """The values of ``fields`` that a record derived from this census repeats, by name: its
        back-test (:attr:`Backtest.FROM_CENSUS <knowsum.census.backtest_record.Backtest.FROM_CENSUS>`) and
        its sensitivity study (:attr:`Sensitivity.FROM_CENSUS`)."""
        return {name: getattr(self, name) for name in fields}

    def comparable_on(self) -> dict[str, str]:
        """Task, prompt (by hash: two custom tasks may share a name; items scored from a file were
        asked elsewhere, by a prompt the record does not hold), KB and release, criterion and
        counting — what was measured — and t, k, estimator and interval method — what changes the
        figure (:data:`ESTIMATION_SETTINGS`): what two censuses must share to be ranked side by side.
        A k chosen from the data (held out, or by formula) is compared by how it was chosen, a k
        given (or the default) by its value."""
        chosen = self.k is None or self.k_source in ("held-out", "formula", "none")
        return {
            "task": self.task,
            "prompt": "(scored items)" if self.backend == "items" else text_hash(self.prompt),
            **super().comparable_on(),
            "criterion": self.criterion,
            "counting": self.counting,
            "t": f"{self.t:g}",
            "k": self.k_source if chosen else f"{self.k}",
            "estimator": self.estimator,
            "interval method": self.interval_method,
        }

    @classmethod
    def foreign(cls, kind: str, version: object) -> bool:
        """Version 1 to 3 held the task kind in ``kind``: such a file is an older census record."""
        return not old_task_kind(kind, version)

    @classmethod
    def migrate(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """Versions 1-5 → 6 (the module docstring says what each step restores)."""
        if version <= 5 and "parameters" in data:
            data["config"] = data.pop("parameters")
        if version == 1:
            raw = data.get("config")
            params: dict[str, Any] = raw if isinstance(raw, dict) else {}
            data.update(
                interval_method="percentile",
                counting="mention" if params.get("count_duplicates") else "incidence",
            )
        if version <= 2:
            clamp_v2(data)
        if "task_kind" not in data and "kind" in data:  # version 3's kind was the task kind
            data["task_kind"] = data.pop("kind")
        return super().migrate(data, version)


def load_result(path: Path) -> CensusRecord:
    """Read a census ``result.json`` (a run directory or the file), any schema version.

    Raises:
        InputFileError: missing file, bad JSON, another instrument's record, an unsupported schema
            version or an invalid field.
    """
    return load_record(path, CensusRecord)


__getattr__ = old_names(__name__, {"CensusResult": ("knowsum.census.record", "CensusRecord")})  # old name
