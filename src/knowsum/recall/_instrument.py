"""Recall as a :class:`knowsum.instrument.Instrument`: its budget table, requests and card rows.

Card rows: accuracy and % invented IDs with the 95 % Wilson score interval on their counts, the
popularity ρ (Bombieri et al. §5, Table 4(a)), and for an invariance run the
Spearman ρ of average prediction invariance vs accuracy (§6.3), each beside the paper's values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, field_validator, model_validator

from knowsum.instrument import Instrument, KBs, Step, limits, release_caveat, wilson
from knowsum.kb import KBS, POPULARITY_FILES
from knowsum.models import Request
from knowsum.recall._config import RecallConfig
from knowsum.recall._invariance import invariance_requests
from knowsum.recall._published import PAPER, PUBLISHED, TABLE4A_KBS, unlike_table4a
from knowsum.recall._run import prepare, recall_requests, run_recall
from knowsum.recall.record import RecallRecord
from knowsum.records import Caveat, PublishedRow
from knowsum.records.profile import Measure

if TYPE_CHECKING:
    import click

__all__ = ["INSTRUMENT", "RecallBudget", "RecallInstrument"]


class RecallBudget(BaseModel):
    """The ``[recall]`` table: which KBs, which concepts, which invariance methods (§4, §6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kbs: tuple[str, ...] = Field(("go",), min_length=1)
    select: Literal["stratified", "all"] = "stratified"
    per_bucket: Annotated[int, Strict(), limits(RecallConfig, "per_bucket")] = Field(
        2, description="K concepts per popularity bucket (select=stratified)"
    )
    n_buckets: Annotated[int, Strict(), limits(RecallConfig, "n_buckets")] = 50
    n_perm: Annotated[int, Strict(), limits(RecallConfig, "n_perm")] = 10_000
    seed: Annotated[int, Strict(), limits(RecallConfig, "seed")] = 0
    invariance: tuple[Literal["pi1", "pi2", "pi3"], ...] = ()
    invariance_kbs: tuple[str, ...] = ()
    invariance_per_bucket: Annotated[int, Strict(), limits(RecallConfig, "per_bucket")] = 20

    @field_validator("kbs", "invariance_kbs")
    @classmethod
    def _known_kbs(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        """Each a knowledge base knowsum knows (refused here, so the plan's file and key are named)."""
        unknown = [name for name in names if name not in KBS]
        if unknown:
            raise ValueError(f"unknown knowledge base {unknown[0]!r}; known: {', '.join(sorted(KBS))}")
        return names

    @model_validator(mode="after")
    def _invariance_kbs(self) -> RecallBudget:
        if self.select == "all" and "per_bucket" in self.model_fields_set:
            raise ValueError(
                'per_bucket is for select = "stratified", and select = "all" here: give one of them'
            )
        extra = sorted(set(self.invariance_kbs) - set(self.kbs))
        if extra:
            raise ValueError(f"invariance_kbs {extra} are not among kbs {list(self.kbs)}")
        return self


def _selection(kb: str, per_bucket: int, n_buckets: int) -> dict[str, Any]:
    """K concepts per popularity bucket where the KB has a popularity table; elsewhere (ICD-10) a
    random sample of the same size, K × buckets (no buckets, so no popularity ρ)."""
    if kb in POPULARITY_FILES:
        return {"select": "stratified", "per_bucket": per_bucket}
    return {"select": "sample", "sample": per_bucket * n_buckets}


_OWN = " (knowsum's rules, recall.md)"
"""Said of the log's error figures: knowsum's rules (the card's % invented is the paper's Table 3a)."""

_CARD = ("accuracy", "invented", "popularity_rho", "pi2_rho", "pi3_rho")
"""The published measures with a card row (Table 1 accuracy, Table 3(a) %Inv, Table 4(a) popularity
ρ, §6.3 ρ)."""


def _published() -> tuple[PublishedRow, ...]:
    return tuple(r for r in PUBLISHED if r.measure.split("/")[-1] in _CARD)


def _why_no_rho(accuracies: list[float], popularity: list[float]) -> str:
    """Why a bucket ρ is undefined (:func:`~knowsum.recall.spearman_or_none`'s rule): it needs 3
    buckets with concepts, and both the accuracy and the popularity to vary over them."""
    n = len(accuracies)
    if n < 3:
        return f"; undefined: {n} bucket{'' if n == 1 else 's'} with concepts, ρ needs at least 3"
    if len(set(accuracies)) == 1:
        return f"; undefined: accuracy is {accuracies[0]:.1%} in every bucket (ρ needs it to vary)"
    if len(set(popularity)) == 1:
        return "; undefined: every bucket has the same mean popularity (ρ needs it to vary)"
    return "; undefined: the rank correlation is not defined on these buckets"


def _caveats(result: RecallRecord) -> list[str]:
    s, cfg = result.scores, result.config
    out = []
    if cfg.get("select") == "stratified":
        out.append(
            f"{cfg.get('per_bucket')} concepts per popularity bucket ({s.n} in all) weigh every bucket "
            "equally; the paper scores every label, where unpopular concepts dominate — not the same estimand"
        )
    elif cfg.get("select") == "sample":
        why = "" if s.popularity is not None else " (no popularity, so no buckets and no ρ)"
        out.append(f"a random sample of {s.n} labels{why}; the paper scores every label")
    return [*out, release_caveat(result.kb_releases)]


class RecallInstrument(Instrument[RecallConfig, RecallRecord]):
    """Bombieri et al., "Do LLMs Dream of Ontologies?": which ontology IDs has the model memorized?"""

    name = "recall"
    order = 20
    title = "Recall — which ontology IDs has it memorized? (Bombieri et al.)"
    paper = PAPER
    Budget = RecallBudget
    entry = staticmethod(run_recall)
    summary = "Has the model memorized ontology IDs? (run/score/compare)"
    caveat_codes = ("popularity-na",)
    task_summary = "Ontology-ID recall (Bombieri et al.): the model gets a concept's label and names its ID."

    def command(self) -> click.Group:
        """``knowsum recall …``."""
        from knowsum.recall.cli import recall

        return recall

    published = _published()

    def requests(self, config: RecallConfig, kbs: KBs) -> list[Request]:
        """One request per selected concept, then each invariance method's variants of it."""
        concepts = prepare(config, kbs.ontology(config.kb))[0]
        out = recall_requests(config, concepts)
        for method in config.invariance:
            out += [r for reqs in invariance_requests(config, method, concepts)[1] for r in reqs]
        return out

    def task_defaults(self) -> dict[str, Any]:
        """The harness task recalls GO IDs unless told otherwise."""
        return {"kb": "go"}

    def task_args(self, given: dict[str, Any]) -> dict[str, Any]:
        """``per_bucket`` without ``select`` means ``select="stratified"``, as ``--per-bucket`` does."""
        return {"select": "stratified", **given} if "per_bucket" in given else given

    def figures(self, record: RecallRecord) -> list[Measure]:
        """Accuracy, n, % invented IDs (Table 3a), % wrong answers that are invented (Table 3b), mean
        Levenshtein distance, popularity ρ with its permutation p (§5), mean PI per method (§6)."""
        s, pop = record.scores, record.scores.popularity
        why = None
        if pop is None:
            why = "no popularity buckets (give per_bucket, or a KB with a popularity table)"
        elif pop.bucket_spearman is None:
            why = f"undefined over {pop.n_buckets} buckets (constant accuracy)"
        na = [] if why is None else [Caveat(kind="popularity-na", mark="popularity ρ n/a", message=why)]
        rows: list[tuple[str, float | None, str]] = [
            ("accuracy", s.accuracy, "exact ID from label"),
            ("n", s.n, "concepts asked"),
            (
                "invented_pct",
                s.invented_unique_pct,
                "invented among the distinct answered IDs (knowsum's rules)",
            ),
            (
                "wrong_due_to_invented_pct",
                s.wrong_due_to_invented_pct,
                "wrong answers that are invented (knowsum's)",
            ),
            (
                "mean_levenshtein",
                s.mean_levenshtein,
                "mean Levenshtein distance of wrong IDs (knowsum's rules)",
            ),
            (
                "popularity_rho",
                None if pop is None else pop.bucket_spearman,
                "Spearman ρ, bucket vs accuracy",
            ),
            ("popularity_rho_p", None if pop is None else pop.bucket_spearman_p, "its permutation p-value"),
            *(
                (f"{inv.method}_mean_pi", inv.mean_pi, "mean prediction invariance")
                for inv in record.invariance
            ),
        ]
        notes, marks = {"accuracy": record.notes}, {"popularity_rho": na}
        return [
            self.figure(k, v, how, caveats=notes.get(k, ()), marks=marks.get(k, ())) for k, v, how in rows
        ]

    def identity(self, config: RecallConfig) -> dict[str, Any]:
        """The configuration with the effective polysemy rule, as the record keeps it."""
        return {**config.model_dump(mode="json"), "polysemy": config.use_polysemy}

    def steps(self, table: BaseModel) -> list[Step]:
        """``recall-<kb>`` per KB, and ``recall-<kb>-invariance`` where the budget asks for PI-1/2/3
        (its temperature-0 answers are the main run's where the concepts overlap)."""
        assert isinstance(table, RecallBudget)
        common = {"n_buckets": table.n_buckets, "n_perm": table.n_perm, "seed": table.seed}
        out = []
        for kb in table.kbs:
            if table.select == "all":
                cfg = RecallConfig(kb=kb, select="all", **common)
            else:
                cfg = RecallConfig(kb=kb, **_selection(kb, table.per_bucket, table.n_buckets), **common)
            out.append(Step(self.name, f"recall-{kb}", cfg, f"recall {kb}"))
            if table.invariance and kb in table.invariance_kbs:
                sel = _selection(kb, table.invariance_per_bucket, table.n_buckets)
                inv = RecallConfig(kb=kb, invariance=table.invariance, **sel, **common)
                out.append(Step(self.name, f"recall-{kb}-invariance", inv, f"recall {kb} invariance"))
        return out

    def measures(self, record: RecallRecord, run: str) -> list[Measure]:
        """Accuracy, % invented IDs and popularity ρ of a run (+ PI ρ when it ran invariance)."""
        s, kb, caveats = record.scores, record.kb, _caveats(record)
        out: list[Measure] = []
        if not record.invariance:  # an invariance run adds its ρ; its sample's accuracy is the main run's
            accuracy = f"exact ID from label over {s.n} concepts (Bombieri et al. §4.2); Wilson 95 %"
            out.append(
                self.measure(
                    f"{kb}/accuracy",
                    f"{kb} accuracy",
                    s.accuracy,
                    accuracy,
                    run=run,
                    interval=wilson(s.n_correct, s.n),
                    percent=True,
                    caveats=caveats,
                )
            )
            paper = s.paper
            unique, invented = (
                (paper.unique_answers, paper.invented_unique)
                if paper
                else (s.n_unique_predicted, s.n_invented_unique)
            )
            if paper:
                own = s.invented_unique_pct
                how = (
                    f"distinct answers that are no concept ID of the study / distinct answers ({unique}, a "
                    "text without an ID is an answer too), the paper's rules (Table 3a %Inv); Wilson 95 %; "
                    f"knowsum's rules (answered IDs only, whole ontology): "
                    f"{'n/a, no ID answered' if own is None else f'{own:.1f}%'}"
                )
            else:
                how = (
                    f"distinct answered IDs absent from the ontology / distinct answered IDs ({unique}), "
                    "knowsum's rules (a record without the paper's); Wilson 95 %"
                )
            out.append(
                self.measure(
                    f"{kb}/invented",
                    f"{kb} % invented IDs",
                    invented / unique if unique else None,
                    how,
                    run=run,
                    interval=wilson(invented, unique),
                    percent=True,
                    caveats=caveats,
                )
            )
            out.append(self._popularity(record, run, caveats))
        for inv in record.invariance:
            how = (
                f"Spearman ρ of average prediction invariance vs accuracy over buckets, "
                f"{inv.m} prompts per concept, {inv.n_concepts} concepts (Bombieri et al. §6)"
            )
            out.append(
                self.measure(
                    f"{kb}/{inv.method}_rho",
                    f"{kb} {inv.method.upper()} ρ(AvPI, acc)",
                    inv.spearman,
                    how,
                    run=run,
                    caveats=caveats,
                )
            )
        return out

    def _popularity(self, record: RecallRecord, run: str, caveats: list[str]) -> Measure:
        pop, kb = record.scores.popularity, record.kb
        p = (
            f", permutation p = {pop.bucket_spearman_p:.3g}"
            if pop and pop.bucket_spearman_p is not None
            else ""
        )
        why = None if pop is None else ""
        if pop is not None and pop.bucket_spearman is None:
            filled = [b for b in pop.buckets if b.accuracy is not None and b.mean_popularity is not None]
            why = _why_no_rho([b.accuracy or 0.0 for b in filled], [b.mean_popularity or 0.0 for b in filled])
            p += why
        how = (
            f"Spearman ρ of popularity bucket vs accuracy over {pop.n_buckets if pop else 0} buckets "
            f"(source {pop.source if pop else 'none'}){p}"
        )
        unlike = unlike_table4a(pop) if pop is not None and kb in TABLE4A_KBS else ""
        if unlike:  # set beside Table 4(a)'s values on the card: say it is another measure
            caveats = [*caveats, f"not Table 4(a)'s measure ({unlike}): not comparable with the paper's ρ"]
        rho = pop.bucket_spearman if pop is not None else None
        reason = None
        if rho is None:
            reason = "no popularity buckets" if why is None else why.removeprefix("; undefined: ")
        return self.measure(
            f"{kb}/popularity_rho",
            f"{kb} popularity ρ",
            rho,
            how,
            run=run,
            caveats=caveats,
            value_reason=reason,
        )


INSTRUMENT = RecallInstrument()
"""The recall instrument (registered as ``recall`` under ``knowsum.instruments``)."""
