"""Generate SciHorizon-GENE questions from the installed gene records (Huang et al. §3.2, App. C).

The answer format follows the cardinality of the attribute (§3.2): one value → single choice, several
→ multiple choice, open text → generative, none → the gold is "No right answer". The question
families and their wording are those of Fig. 10:

====== =============== ============= ======================================================================
task   question_type   perspective   built from
====== =============== ============= ======================================================================
Q1     single_choice   study_bias    full name; 3 lexically close names of other genes (same first or
                                     last word); no placeholder "uncharacterized LOC<id>" (the symbol tells)
Q2-A   single_choice   hallucination aliases; non-LOC gene with none → gold "No right answer"; one → control
Q2-B   multiple_choice completeness  genes with ≥ 2 aliases; exactly 2 gold + aliases of other genes
Q3-A   single_choice   study_bias    ``CHR;BAND``; 3 locations of other genes
Q3-B   single_choice   hallucination non-LOC gene without band (MT genes…) → "No right answer"; else control
Q4     single_choice   study_bias    odd one out: 3 genes of one type + the gene of another type (any type)
Q5     multiple_choice completeness  NCBI other designations (≥ 2): all, up to 4, gold + close designations
Q6     expression      completeness  user file (--expression)
Q7     go_annotation   literature    GO annotations (qualifier from the aspect); with/without abstracts
Q8     summary         literature    user file (--summaries); with/without abstracts
====== =============== ============= ======================================================================

The "No right answer" pools leave LOC genes out: the paper's gold is "no recorded value in curated
sources", and a LOC locus without a band or alias is mostly one not mapped *yet* (11,382 LOC124…
loci had no band in the 2022-09 snapshot; the release asks one of them, LOC124905048, as a location
question with gold ``21;21q21.1``). The release's sample has no LOC gene among its "No right answer"
questions. The build report counts what each rule leaves out (``excluded``).

``paper_size`` builds the paper's sample (§4.2: 2,710 questions, 9,010 instances): 210 questions in
each of the ten choice cells (Q1, Q3-A, Q4 × low/high attention; Q2-A, Q3-B "No right answer";
Q2-B; Q5) — 2,100 questions × 4 rotations = 8,400 instances — and 610 open questions: Q6 210,
Q7 and Q8 100 genes each asked without and with abstracts. The split of the 610 is ours (the paper
gives only the totals; 210 per choice cell is what the totals imply); the controls are not built.

Beyond the paper: the "control" questions of Q2-A/Q3-B (a real answer *and* a "No right answer"
option) make an always-"No right answer" strategy visible; every distractor is checked against all
valid values of the gene (never accidentally correct). GO qualifiers are not in the registry data;
they are derived from the aspect (MF → ``enables``, BP → ``involved_in``, CC → ``located_in``, CC terms
under GO:0032991 protein-containing complex → ``part_of``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from knowsum.errors import ConfigError
from knowsum.genebench._makers import (
    EXCLUDED_TYPES,
    TASKS,
    WORDING,
    Builder,
    BuildInputs,
    is_placeholder_name,
)
from knowsum.genebench._schema import Question
from knowsum.kb import GeneRecord

__all__ = ["TASKS", "BuildInputs", "BuildReport", "build_questions", "parse_tasks"]

_KNOWLEDGE_TASKS = {k: tuple(t for t, v in TASKS.items() if v[1] == k) for _, k, _ in TASKS.values()}


def parse_tasks(spec: str | Iterable[str] | None) -> tuple[str, ...]:
    """Tasks from a comma list of task IDs (``Q1,Q2-A``) or knowledge names (``synonyms``); all by default.

    Raises:
        ConfigError: an unknown name.
    """
    if spec is None:
        return tuple(TASKS)
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    out: list[str] = []
    for item in items:
        key = item.upper()
        if key in TASKS:
            out.append(key)
        elif item.lower() in _KNOWLEDGE_TASKS:
            out.extend(_KNOWLEDGE_TASKS[item.lower()])
        elif key in ("Q2", "Q3"):
            out.extend((f"{key}-A", f"{key}-B"))
        else:
            raise ConfigError(
                f"unknown question type {item!r}; use task IDs ({', '.join(TASKS)}) or knowledge names "
                f"({', '.join(_KNOWLEDGE_TASKS)})"
            )
    return tuple(dict.fromkeys(out))


@dataclass
class BuildReport:
    """What was built: questions per task and stratum, and why some tasks were not generated."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    unknown_genes: dict[str, int] = field(default_factory=dict)
    excluded: dict[str, dict[str, int]] = field(default_factory=dict)
    """Task → {rule: genes of the pool the rule left out} (placeholder names, LOC "no answer" genes)."""
    kb_releases: dict[str, str] = field(default_factory=dict)
    """Knowledge base → release the questions were built from (filled by ``build_from_kb``)."""

    @property
    def total(self) -> int:
        """Number of questions built."""
        return sum(sum(c.values()) for c in self.counts.values())


def _resolve_user_genes(
    genes: Sequence[GeneRecord], table: Mapping[str, object]
) -> tuple[dict[int, str], int]:
    """Pool index → user key (an Entrez ID or a symbol in the pool), and how many keys are unknown."""
    by_id = {g.gene_id: i for i, g in enumerate(genes)}
    by_sym = {g.symbol: i for i, g in enumerate(genes)}
    by_upper = {g.symbol.upper(): i for i, g in enumerate(genes)}
    out: dict[int, str] = {}
    unknown = 0
    for key in table:
        i = by_id.get(int(key)) if key.isdigit() else by_sym.get(key, by_upper.get(key.upper()))
        if i is None:
            unknown += 1
        else:
            out[i] = key
    return out, unknown


#: Questions per stratum of the paper-sized set (``paper_size``); a stratum not listed is not built.
PAPER_SIZE: dict[str, dict[str, int]] = {
    "Q1": {"loc": 210, "non-loc": 210},
    "Q2-A": {"no-answer": 210},
    "Q2-B": {"all": 210},
    "Q3-A": {"loc": 210, "non-loc": 210},
    "Q3-B": {"no-answer": 210},
    "Q4": {"loc": 210, "non-loc": 210},
    "Q5": {"all": 210},
    "Q6": {"all": 210},
    "Q7": {"genes": 100},
    "Q8": {"genes": 100},
}


def _pick(rng: random.Random, ids: list[int], n: int | None) -> list[int]:
    return ids if n is None or len(ids) <= n else sorted(rng.sample(ids, n))


def build_questions(
    inputs: BuildInputs,
    tasks: Sequence[str] | None = None,
    *,
    per_type: int | None = None,
    genes: int | None = None,
    seed: int = 0,
    only: Iterable[int] | None = None,
    pubmed: Callable[[int], Sequence[int]] | None = None,
    progress: Callable[[str], None] | None = None,
    paper_size: bool = False,
) -> tuple[list[Question], BuildReport]:
    """Build the questions of ``tasks`` (all by default) from ``inputs``.

    Args:
        inputs: Gene records, GO, and the user files.
        tasks: Task IDs (see :data:`TASKS`).
        per_type: At most this many questions per task and stratum (loc / non-loc, "No right
            answer" / control, …), drawn at random (seeded); ``None`` for every gene that allows one.
        genes: Draw the questions' genes from this many random genes only (distractors still come
            from all genes).
        seed: Seed of every random choice; the same inputs and seed give the same file.
        only: Ask only about these Entrez gene IDs (distractors still come from all genes).
        pubmed: Gene ID → linked PubMed IDs (needed for the "with abstracts" forms).
        progress: Called with a line per task.
        paper_size: Build the paper's sample (:data:`PAPER_SIZE`; overrides ``per_type``).

    Returns:
        The questions (task order, then gene order) and a :class:`BuildReport`.
    """
    chosen = tuple(TASKS) if tasks is None else tuple(tasks)
    b = Builder(inputs, seed)
    report = BuildReport()
    pool = list(range(len(b.genes)))
    if only is not None:
        wanted = set(only)
        pool = [i for i in pool if b.genes[i].gene_id in wanted]
    if genes is not None and genes < len(pool):
        pool = sorted(random.Random(f"{seed}:genes").sample(pool, genes))

    def loc_split(ids: Iterable[int]) -> dict[str, list[int]]:
        chosen = list(ids)
        return {
            "loc": [i for i in chosen if b.loc[i]],
            "non-loc": [i for i in chosen if not b.loc[i]],
        }

    strata: dict[str, dict[str, list[int]]] = {}
    makers: dict[str, Callable[[int, random.Random], Question | None]] = {
        "Q1": b.q1,
        "Q2-A": b.q2a,
        "Q2-B": b.q2b,
        "Q3-A": b.q3a,
        "Q3-B": b.q3b,
        "Q4": b.q4,
        "Q5": b.q5,
    }

    def no_answer(task: str, ids: list[int]) -> list[int]:
        """The non-LOC genes of ``ids`` (LOC genes leave the "No right answer" pools; counted)."""
        kept = [i for i in ids if not b.loc[i]]
        report.excluded.setdefault(task, {})["LOC gene without a value"] = len(ids) - len(kept)
        return kept

    for task in chosen:
        if task == "Q1":
            named = [i for i in pool if b.genes[i].name]
            real = [i for i in named if not is_placeholder_name(b.genes[i].name)]
            report.excluded[task] = {"uncharacterized LOC full name": len(named) - len(real)}
            strata[task] = loc_split(real)
        elif task == "Q2-A":
            strata[task] = {
                "no-answer": no_answer(task, [i for i in pool if not b.genes[i].aliases]),
                "control": [i for i in pool if len(b.genes[i].aliases) == 1],
            }
        elif task == "Q2-B":
            strata[task] = {"all": [i for i in pool if len(b.genes[i].aliases) >= 2]}
        elif task == "Q3-A":
            strata[task] = loc_split(i for i in pool if b.locs[i])
        elif task == "Q3-B":
            strata[task] = {
                "no-answer": no_answer(task, [i for i in pool if not b.locs[i]]),
                "control": [i for i in pool if b.locs[i]],
            }
        elif task == "Q4":
            strata[task] = loc_split(i for i in pool if b.genes[i].gene_type not in EXCLUDED_TYPES)
        elif task == "Q5":
            eligible = [i for i in pool if len(b.genes[i].designations) >= 2]
            if not b.designations:
                report.skipped[task] = (
                    "the genes KB has no NCBI other designations; "
                    "reinstall it: knowsum kb install genes --force"
                )
                continue
            strata[task] = {"all": eligible}
    out: list[Question] = []
    for task, groups in strata.items():
        rng = b.rng(task)
        counts: dict[str, int] = {}
        for name, ids in groups.items():
            want = PAPER_SIZE[task].get(name, 0) if paper_size else per_type
            if want == 0:
                continue
            made = 0
            order = list(ids)
            if want is not None and len(order) > want:
                rng.shuffle(order)  # draw until `want` questions are made (a gene may allow none)
            for i in order:
                if want is not None and made == want:
                    break
                q = makers[task](i, rng)
                if q is not None:
                    out.append(q)
                    made += 1
            counts[name] = made
        report.counts[task] = counts
        if progress:
            progress(f"{task}: {sum(counts.values())} questions")
    sizes = {t: PAPER_SIZE[t][n] for t, n in (("Q6", "all"), ("Q7", "genes"), ("Q8", "genes"))}
    out += _literature(b, chosen, pool, sizes if paper_size else per_type, pubmed, report, progress)
    return out, report


def _size(sizes: int | dict[str, int] | None, task: str) -> int | None:
    return sizes.get(task) if isinstance(sizes, dict) else sizes


def _literature(
    b: Builder,
    chosen: Sequence[str],
    pool: list[int],
    sizes: int | dict[str, int] | None,
    pubmed: Callable[[int], Sequence[int]] | None,
    report: BuildReport,
    progress: Callable[[str], None] | None,
) -> list[Question]:
    """Q6, Q7, Q8: the templated and open questions (user files; GO from the registry data).

    ``sizes``: questions (Q6) or genes (Q7/Q8) per task — one number for all, per task, or ``None``.
    """
    inputs = b.inputs
    out: list[Question] = []
    in_pool = set(pool)
    if "Q6" in chosen:
        if inputs.expression is None:
            report.skipped["Q6"] = "no --expression file (expression patterns are in no registry package)"
        else:
            expr_keys, unknown = _resolve_user_genes(b.genes, inputs.expression)
            report.unknown_genes["expression"] = unknown
            ids = _pick(b.rng("Q6"), sorted(i for i in expr_keys if i in in_pool), _size(sizes, "Q6"))
            out += [b.q6(i, inputs.expression[expr_keys[i]]) for i in ids]
            report.counts["Q6"] = {"all": len(ids)}
    for task in ("Q7", "Q8"):
        if task not in chosen:
            continue
        if task == "Q7" and inputs.go is None:
            report.skipped[task] = "the GO knowledge base is not installed (knowsum kb install go)"
            continue
        if task == "Q8" and inputs.summaries is None:
            report.skipped[task] = (
                "no --summaries file (NCBI functional summaries are in no registry package)"
            )
            continue
        summaries = inputs.summaries or {}
        keys: dict[int, str] = {}
        if task == "Q7":
            candidates = [i for i in pool if b.genes[i].go]
        else:
            keys, unknown = _resolve_user_genes(b.genes, summaries)
            report.unknown_genes["summaries"] = unknown
            candidates = sorted(i for i in keys if i in in_pool)
        contexts: dict[int, str] = {}
        if inputs.abstracts is not None and pubmed is not None:
            for i in candidates:
                ctx = b.context(b.genes[i], pubmed(b.genes[i].gene_id))
                if ctx:
                    contexts[i] = ctx
            candidates = sorted(contexts)
        answers: dict[int, object] = {}
        rng = b.rng(task)
        per_type = _size(sizes, task)
        while candidates and (per_type is None or len(answers) < per_type):
            picked = _pick(rng, candidates, None if per_type is None else per_type - len(answers))
            taken = set(picked)
            candidates = [i for i in candidates if i not in taken]
            for i in picked:
                ans: object = b.go_answers(b.genes[i]) if task == "Q7" else summaries[keys[i]]
                if ans:
                    answers[i] = ans
        ids = sorted(answers)
        symbol = WORDING[task]
        counts = {"no_ref": 0, "with_ref": 0}
        for i in ids:
            text = symbol.format(b.genes[i].symbol)
            out.append(b.question(task, i, text, None, answers[i], "", "no_ref"))
            counts["no_ref"] += 1
            if i in contexts:
                out.append(b.question(task, i, text, None, answers[i], contexts[i], "with_ref"))
                counts["with_ref"] += 1
        report.counts[task] = counts
        if inputs.abstracts is None:
            report.skipped[f"{task} with abstracts"] = (
                "no --abstracts file (PubMed abstract texts are in no registry package)"
            )
        if progress:
            progress(f"{task}: {sum(counts.values())} questions")
    return out
