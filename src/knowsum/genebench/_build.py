"""Generate SciHorizon-GENE questions from the installed gene records (Huang et al. §3.2, App. C).

The answer format follows the cardinality of the attribute (§3.2): one value → single choice, several
→ multiple choice, open text → generative, none → the gold is "No right answer". The question
families and their wording are those of Fig. 10:

====== =============== ============= ======================================================================
task   question_type   perspective   built from
====== =============== ============= ======================================================================
Q1     single_choice   study_bias    full name; 3 lexically close names of other genes (same first/last word)
Q2-A   single_choice   hallucination aliases; gene with none → gold "No right answer"; one alias → control
Q2-B   multiple_choice completeness  genes with ≥ 2 aliases; 2–3 gold + aliases of other genes
Q3-A   single_choice   study_bias    ``CHR;BAND``; 3 locations of other genes
Q3-B   single_choice   hallucination no band recorded (e.g. MT genes) → "No right answer"; located → control
Q4     single_choice   study_bias    odd one out: 3 genes of one type + the gene of another type
Q5     multiple_choice completeness  NCBI other designations (≥ 2); close designations of other genes
Q6     expression      completeness  user file (--expression)
Q7     go_annotation   literature    GO annotations (qualifier from the aspect); with/without abstracts
Q8     summary         literature    user file (--summaries); with/without abstracts
====== =============== ============= ======================================================================

Beyond the paper: the "control" questions of Q2-A/Q3-B (a real answer *and* a "No right answer"
option) make an always-"No right answer" strategy visible; every distractor is checked against all
valid values of the gene (never accidentally correct). GO qualifiers are not in the registry data;
they are derived from the aspect (MF → ``enables``, BP → ``involved_in``, CC → ``located_in``, CC terms
under GO:0032991 protein-containing complex → ``part_of``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from knowsum.errors import ConfigError
from knowsum.genebench._schema import (
    NO_RIGHT_ANSWER,
    ExpressionAnswer,
    GoAnswer,
    Question,
    content_hash,
)
from knowsum.genebench._userdata import Expression
from knowsum.kb import GeneRecord, Ontology, normalize_text

__all__ = ["TASKS", "BuildInputs", "BuildReport", "build_questions", "parse_tasks"]

#: Task → (question_type, knowledge, perspective), Fig. 10.
TASKS: dict[str, tuple[str, str, str]] = {
    "Q1": ("single_choice", "full name", "study_bias"),
    "Q2-A": ("single_choice", "synonyms", "hallucination"),
    "Q2-B": ("multiple_choice", "synonyms", "completeness"),
    "Q3-A": ("single_choice", "chromosome", "study_bias"),
    "Q3-B": ("single_choice", "chromosome", "hallucination"),
    "Q4": ("single_choice", "gene_type", "study_bias"),
    "Q5": ("multiple_choice", "designation", "completeness"),
    "Q6": ("expression", "expression", "completeness"),
    "Q7": ("go_annotation", "go_annotation", "literature_utilize"),
    "Q8": ("summary", "summary", "literature_utilize"),
}
_KNOWLEDGE_TASKS = {k: tuple(t for t, v in TASKS.items() if v[1] == k) for _, k, _ in TASKS.values()}
_EXCLUDED_TYPES = frozenset({"unknown", "other", ""})
#: Evidence codes, most direct first: the one kept when a term is annotated with several.
_EVIDENCE_ORDER = [
    "EXP",
    "IDA",
    "IPI",
    "IMP",
    "IGI",
    "IEP",
    "HTP",
    "HDA",
    "HMP",
    "HGI",
    "HEP",
    "IBA",
    "IBD",
    "IKR",
    "IRD",
    "ISS",
    "ISO",
    "ISA",
    "ISM",
    "IGC",
    "RCA",
    "TAS",
    "NAS",
    "IC",
    "ND",
    "IEA",
]
_COMPLEX = "GO:0032991"
_QUALIFIER = {"MF": "enables", "BP": "involved_in", "CC": "located_in"}
_CANDIDATES = 150


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


@dataclass(frozen=True)
class BuildInputs:
    """Everything questions are built from.

    Attributes:
        genes: Gene records (the pool questions are asked about, and distractors come from).
        go: The Gene Ontology (term names and the ``part_of`` qualifier); ``None`` skips Q7.
        expression: Gene (symbol or Entrez ID) → expression pattern (Q6); ``None`` skips Q6.
        summaries: Gene → functional summary (Q8); ``None`` skips Q8.
        abstracts: PubMed ID → abstract (the "with abstracts" form of Q7/Q8); ``None`` for none.
        max_abstracts: Abstracts joined into one context (the lowest PMIDs first).
    """

    genes: Sequence[GeneRecord]
    go: Ontology | None = None
    expression: Mapping[str, Expression] | None = None
    summaries: Mapping[str, str] | None = None
    abstracts: Mapping[int, str] | None = None
    max_abstracts: int = 3


@dataclass
class BuildReport:
    """What was built: questions per task and stratum, and why some tasks were not generated."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    unknown_genes: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Number of questions built."""
        return sum(sum(c.values()) for c in self.counts.values())


def _locations(rec: GeneRecord) -> tuple[str, ...]:
    """``CHR;BAND`` strings of a gene (``17;17p13.1``); the band's own chromosome when several."""
    out = []
    for band in rec.bands:
        chrom = next((c for c in rec.chromosomes if band.startswith(c)), rec.chromosome)
        out.append(f"{chrom};{band}")
    return tuple(out)


_NORM: dict[str, str] = {}


def _norm(text: str) -> str:
    """:func:`normalize_text`, memoized (the same aliases, names and locations recur)."""
    n = _NORM.get(text)
    if n is None:
        if len(_NORM) > 2_000_000:
            _NORM.clear()
        n = _NORM[text] = normalize_text(text)
    return n


def _letters(texts: Sequence[str]) -> dict[str, str]:
    return {chr(ord("A") + i): t for i, t in enumerate(texts)}


class _Builder:
    """Indexes over the gene pool, built once, and one method per task."""

    def __init__(self, inputs: BuildInputs, seed: int) -> None:
        self.inputs = inputs
        self.seed = seed
        self.genes = list(inputs.genes)
        self.locs = [_locations(g) for g in self.genes]
        self.loc_pool = sorted({loc for locs in self.locs for loc in locs})
        self.alias_pool: list[tuple[str, int]] = [
            (a, i) for i, g in enumerate(self.genes) for a in g.aliases if a != g.symbol
        ]
        self.names = [g.name for g in self.genes]
        self.name_index = self._word_index(self.names)
        self.designations: list[str] = sorted({d for g in self.genes for d in g.designations})
        self.designation_index = self._word_index(self.designations)
        by_type: dict[tuple[str, bool], list[int]] = defaultdict(list)
        for i, g in enumerate(self.genes):
            if g.gene_type not in _EXCLUDED_TYPES:
                by_type[(g.gene_type, g.is_loc)].append(i)
        self.by_type = dict(by_type)
        self._go_cache: dict[str, tuple[str, str, bool] | None] = {}

    @staticmethod
    def _word_index(texts: Sequence[str]) -> dict[str, list[int]]:
        index: dict[str, list[int]] = defaultdict(list)
        for i, t in enumerate(texts):
            words = t.split()
            if words:
                index["^" + words[0].lower()].append(i)
                index["$" + words[-1].lower()].append(i)
        return dict(index)

    def rng(self, task: str) -> random.Random:
        return random.Random(f"{self.seed}:{task}")

    # -- distractors ----------------------------------------------------------------------------
    def _close(
        self,
        rng: random.Random,
        target: str,
        texts: Sequence[str],
        index: Mapping[str, list[int]],
        k: int,
        invalid: set[str],
    ) -> list[str]:
        """``k`` texts lexically closest to ``target`` among those sharing its first or last word."""
        words = target.split()
        cand: set[int] = set()
        for key in ("^" + words[0].lower(), "$" + words[-1].lower()) if words else ():
            pool = index.get(key, [])
            if len(pool) <= _CANDIDATES:
                cand.update(pool)
            else:  # a random window: cheap, and the ranking below picks the closest texts
                start = rng.randrange(len(pool) - _CANDIDATES + 1)
                cand.update(pool[start : start + _CANDIDATES])
        choices = sorted({texts[i] for i in cand})
        ranked = [m[0] for m in process.extract(target, choices, scorer=fuzz.ratio, limit=k + 12)]
        out: list[str] = []
        seen = set(invalid)
        for text in ranked:
            n = _norm(text)
            if n not in seen:
                seen.add(n)
                out.append(text)
            if len(out) == k:
                return out
        return out + self._random_texts(rng, texts, k - len(out), seen)

    @staticmethod
    def _random_texts(rng: random.Random, texts: Sequence[str], k: int, invalid: set[str]) -> list[str]:
        out: list[str] = []
        seen = set(invalid)
        for _ in range(50 * max(k, 1)):
            if len(out) == k or not texts:
                break
            t = texts[rng.randrange(len(texts))]
            n = _norm(t)
            if n not in seen:
                seen.add(n)
                out.append(t)
        return out

    def _other_aliases(self, rng: random.Random, i: int, k: int) -> list[str]:
        g = self.genes[i]
        invalid = {_norm(a) for a in (g.symbol, *g.aliases)}
        out: list[str] = []
        for _ in range(50 * k):
            if len(out) == k or not self.alias_pool:
                break
            alias, owner = self.alias_pool[rng.randrange(len(self.alias_pool))]
            n = _norm(alias)
            if owner != i and n not in invalid:
                invalid.add(n)
                out.append(alias)
        return out

    # -- question assembly ----------------------------------------------------------------------
    def _choice(
        self,
        task: str,
        i: int,
        question: str,
        correct: Sequence[str],
        wrong: Sequence[str],
        rng: random.Random,
    ) -> Question | None:
        qtype, _knowledge, _perspective = TASKS[task]
        texts = [*correct, *wrong]
        if len(texts) != 4 or len({_norm(t) for t in texts}) != 4:
            return None  # not enough distinct distractors for this gene
        order = list(range(4))
        rng.shuffle(order)
        options = _letters([texts[j] for j in order])
        gold = [chr(ord("A") + pos) for pos, j in enumerate(order) if j < len(correct)]
        answer: str | list[str] = gold[0] if qtype == "single_choice" else gold
        return self._question(
            task, i, question, options, answer, None, "loc" if self.genes[i].is_loc else "non-loc"
        )

    def _question(
        self,
        task: str,
        i: int,
        question: str,
        options: dict[str, str] | None,
        answer: object,
        context: str | None,
        flag: str,
    ) -> Question:
        qtype, knowledge, perspective = TASKS[task]
        g = self.genes[i]
        # Built valid by construction (tests validate every built question): no per-question validation.
        return Question.model_construct(
            **{
                "question_index": content_hash(qtype, knowledge, question, options, context),
                "question_type": qtype,
                "knowledge": knowledge,
                "question": question,
                "options": options,
                "answer": answer,
                "context": context,
                "batch_id": None,
                "perspective": perspective,
                "flag": flag,
                "task": task,
                "gene": g.symbol,
                "gene_id": g.gene_id,
                "pubmed_count": g.pubmed_count,
            }
        )

    def q1(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        invalid = {_norm(g.name), *(_norm(d) for d in g.designations)}
        wrong = self._close(rng, g.name, self.names, self.name_index, 3, invalid)
        return self._choice("Q1", i, f"Select the full name of {g.symbol} gene.", [g.name], wrong, rng)

    def q2a(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        correct = [NO_RIGHT_ANSWER] if not g.aliases else [g.aliases[0], NO_RIGHT_ANSWER]
        wrong = self._other_aliases(rng, i, 4 - len(correct))
        q = self._choice("Q2-A", i, f"Select the synonyms of {g.symbol} gene.", correct, wrong, rng)
        return None if q is None else _single_gold(q, correct[0])

    def q2b(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        gold = rng.sample(list(g.aliases), min(len(g.aliases), rng.choice((2, 3))))
        wrong = self._other_aliases(rng, i, 4 - len(gold))
        return self._choice("Q2-B", i, f"Select the synonyms of {g.symbol} gene.", gold, wrong, rng)

    def _other_locations(self, rng: random.Random, i: int, k: int) -> list[str]:
        return self._random_texts(rng, self.loc_pool, k, {_norm(x) for x in self.locs[i]})

    def q3a(self, i: int, rng: random.Random) -> Question | None:
        gold = self.locs[i][0]
        wrong = self._other_locations(rng, i, 3)
        return self._choice(
            "Q3-A", i, f"Select the chromosome location of {self.genes[i].symbol} gene.", [gold], wrong, rng
        )

    def q3b(self, i: int, rng: random.Random) -> Question | None:
        correct = [self.locs[i][0], NO_RIGHT_ANSWER] if self.locs[i] else [NO_RIGHT_ANSWER]
        wrong = self._other_locations(rng, i, 4 - len(correct))
        text = f"Select the chromosome location of {self.genes[i].symbol} gene."
        q = self._choice("Q3-B", i, text, correct, wrong, rng)
        return None if q is None else _single_gold(q, correct[0])

    def q4(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        others = sorted(
            t
            for (t, loc), ids in self.by_type.items()
            if loc == g.is_loc and t != g.gene_type and len(ids) >= 3
        )
        if not others:
            return None
        pool = self.by_type[(rng.choice(others), g.is_loc)]
        same = [self.genes[j].symbol for j in rng.sample(pool, 3)]
        text = "Select the gene symbol that does not belong to the same gene type as the other three."
        return self._choice("Q4", i, text, [g.symbol], same, rng)

    def q5(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        gold = rng.sample(list(g.designations), min(len(g.designations), rng.choice((2, 3))))
        invalid = {_norm(x) for x in (*g.designations, g.name)}
        wrong = self._close(rng, gold[0], self.designations, self.designation_index, 4 - len(gold), invalid)
        return self._choice("Q5", i, f"Select all the related proteins of {g.symbol} gene.", gold, wrong, rng)

    def q6(self, i: int, expr: Expression) -> Question:
        answer = ExpressionAnswer(tissue_list=expr.tissues, category=expr.category)
        g = self.genes[i]
        flag = "loc" if g.is_loc else "non-loc"
        return self._question(
            "Q6", i, f"What is the expression pattern of {g.symbol} gene?", None, answer, None, flag
        )

    def _go_term(self, go_id: str) -> tuple[str, str, bool] | None:
        """``(primary ID, name, is a complex)`` of a live GO term, memoized; ``None`` if unknown/obsolete."""
        if go_id in self._go_cache:
            return self._go_cache[go_id]
        go = self.inputs.go
        assert go is not None
        tid = go.resolve(go_id)
        info = None
        if tid is not None and not go[tid].obsolete:
            info = (tid, go[tid].name, _COMPLEX in go and go.is_a(tid, _COMPLEX))
        self._go_cache[go_id] = info
        return info

    def go_answers(self, rec: GeneRecord) -> list[GoAnswer]:
        best: dict[str, tuple[int, str, str]] = {}
        names: dict[str, tuple[str, bool]] = {}
        for ann in rec.go:
            info = self._go_term(ann.go_id)
            if info is None:
                continue
            tid = info[0]
            names[tid] = info[1:]
            rank = (
                _EVIDENCE_ORDER.index(ann.evidence)
                if ann.evidence in _EVIDENCE_ORDER
                else len(_EVIDENCE_ORDER)
            )
            if tid not in best or rank < best[tid][0]:
                best[tid] = (rank, ann.evidence, ann.aspect)
        out = []
        for tid, (_, evidence, aspect) in sorted(best.items()):
            name, is_complex = names[tid]
            qualifier = "part_of" if aspect == "CC" and is_complex else _QUALIFIER.get(aspect, "involved_in")
            out.append(GoAnswer(go=f"{qualifier} {name}", evidence=evidence))
        return out

    def context(self, rec: GeneRecord, pmids: Sequence[int]) -> str:
        abstracts = self.inputs.abstracts or {}
        texts = [abstracts[p] for p in sorted(pmids) if p in abstracts][: self.inputs.max_abstracts]
        return "\n---\n".join(texts)


def _single_gold(q: Question, gold_text: str) -> Question:
    letter = next(k for k, v in (q.options or {}).items() if v == gold_text)
    return q.model_copy(update={"answer": letter})


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

    Returns:
        The questions (task order, then gene order) and a :class:`BuildReport`.
    """
    chosen = tuple(TASKS) if tasks is None else tuple(tasks)
    b = _Builder(inputs, seed)
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
            "loc": [i for i in chosen if b.genes[i].is_loc],
            "non-loc": [i for i in chosen if not b.genes[i].is_loc],
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
    for task in chosen:
        if task == "Q1":
            strata[task] = loc_split(i for i in pool if b.genes[i].name)
        elif task == "Q2-A":
            strata[task] = {
                "no-answer": [i for i in pool if not b.genes[i].aliases],
                "control": [i for i in pool if len(b.genes[i].aliases) == 1],
            }
        elif task == "Q2-B":
            strata[task] = {"all": [i for i in pool if len(b.genes[i].aliases) >= 2]}
        elif task == "Q3-A":
            strata[task] = loc_split(i for i in pool if b.locs[i])
        elif task == "Q3-B":
            strata[task] = {
                "no-answer": [i for i in pool if not b.locs[i]],
                "control": [i for i in pool if b.locs[i]],
            }
        elif task == "Q4":
            strata[task] = loc_split(i for i in pool if b.genes[i].gene_type not in _EXCLUDED_TYPES)
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
            made = 0
            order = list(ids)
            if per_type is not None and len(order) > per_type:
                rng.shuffle(order)  # draw until per_type questions are made (a gene may allow none)
            for i in order:
                if per_type is not None and made == per_type:
                    break
                q = makers[task](i, rng)
                if q is not None:
                    out.append(q)
                    made += 1
            counts[name] = made
        report.counts[task] = counts
        if progress:
            progress(f"{task}: {sum(counts.values())} questions")
    out += _literature(b, chosen, pool, per_type, pubmed, report, progress)
    return out, report


def _literature(
    b: _Builder,
    chosen: Sequence[str],
    pool: list[int],
    per_type: int | None,
    pubmed: Callable[[int], Sequence[int]] | None,
    report: BuildReport,
    progress: Callable[[str], None] | None,
) -> list[Question]:
    """Q6, Q7, Q8: the templated and open questions (user files; GO from the registry data)."""
    inputs = b.inputs
    out: list[Question] = []
    in_pool = set(pool)
    if "Q6" in chosen:
        if inputs.expression is None:
            report.skipped["Q6"] = "no --expression file (expression patterns are in no registry package)"
        else:
            keys, unknown = _resolve_user_genes(b.genes, inputs.expression)
            report.unknown_genes["expression"] = unknown
            ids = _pick(b.rng("Q6"), sorted(i for i in keys if i in in_pool), per_type)
            out += [b.q6(i, inputs.expression[keys[i]]) for i in ids]
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
        while candidates and (per_type is None or len(answers) < per_type):
            picked = _pick(rng, candidates, None if per_type is None else per_type - len(answers))
            taken = set(picked)
            candidates = [i for i in candidates if i not in taken]
            for i in picked:
                ans: object = b.go_answers(b.genes[i]) if task == "Q7" else summaries[keys[i]]
                if ans:
                    answers[i] = ans
        ids = sorted(answers)
        symbol = (
            "What are the Gene Ontology annotations for {}?"
            if task == "Q7"
            else "What is the functional summary of {}?"
        )
        counts = {"no_ref": 0, "with_ref": 0}
        for i in ids:
            text = symbol.format(b.genes[i].symbol)
            out.append(b._question(task, i, text, None, answers[i], "", "no_ref"))
            counts["no_ref"] += 1
            if i in contexts:
                out.append(b._question(task, i, text, None, answers[i], contexts[i], "with_ref"))
                counts["with_ref"] += 1
        report.counts[task] = counts
        if inputs.abstracts is None:
            report.skipped[f"{task} with abstracts"] = (
                "no --abstracts file (PubMed abstract texts are in no registry package)"
            )
        if progress:
            progress(f"{task}: {sum(counts.values())} questions")
    return out
