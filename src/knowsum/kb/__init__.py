"""Knowledge bases: ontologies and gene records installed offline from package registries, and a matcher.

Quick tour::

    from knowsum.kb import load_ontology, load_genes, Matcher
    go = load_ontology("go")                  # Mapping[str, Term]; GO loads in well under 1 s
    go["GO:0001822"].name                     # 'kidney development'
    go.closure(["GO:0001822"])                # CAFA-style propagation over is_a + part_of
    doid = load_ontology("doid")
    Matcher(doid).match("alzheimers disease") # Match(id='DOID:10652', stage='fuzzy', score=0.97…)
    load_genes().by_symbol("TP53").band       # '17p13.1'

Install with ``knowsum kb install NAME…|all`` (see :mod:`knowsum.kb._registry` for the pinned sources).
"""

from knowsum.kb._categories import (
    CATEGORY_RULES,
    DO_PRECEDENCE,
    PAPER_FIG10,
    STRICT_RULE,
    CategoryRule,
    assign_categories,
    category_counts,
)
from knowsum.kb._genes import GeneRecord, GeneStore, GoAnnotation
from knowsum.kb._install import (
    InstallResult,
    install,
    installed,
    load_genes,
    load_ontology,
    manifest,
    spec,
    store_path,
)
from knowsum.kb._matcher import Match, Matcher, Stage
from knowsum.kb._normalize import normalize_text
from knowsum.kb._ontology import IdStatus, Ontology
from knowsum.kb._popularity import POPULARITY_FILES, PopularityRow, load_popularity
from knowsum.kb._registry import KB_NAMES, KBS, KBSpec
from knowsum.kb._syntax import SYNTAX, IdSyntax
from knowsum.kb._term import IS_A, PARENT, PART_OF, Synonym, Term

__all__ = [
    "CATEGORY_RULES",
    "DO_PRECEDENCE",
    "IS_A",
    "KBS",
    "KB_NAMES",
    "PAPER_FIG10",
    "PARENT",
    "PART_OF",
    "POPULARITY_FILES",
    "STRICT_RULE",
    "SYNTAX",
    "CategoryRule",
    "GeneRecord",
    "GeneStore",
    "GoAnnotation",
    "IdStatus",
    "IdSyntax",
    "InstallResult",
    "KBSpec",
    "Match",
    "Matcher",
    "Ontology",
    "PopularityRow",
    "Stage",
    "Synonym",
    "Term",
    "assign_categories",
    "category_counts",
    "install",
    "installed",
    "load_genes",
    "load_ontology",
    "load_popularity",
    "manifest",
    "normalize_text",
    "spec",
    "store_path",
]
