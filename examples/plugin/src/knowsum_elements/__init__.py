"""knowsum-elements: a census task over the chemical elements, as a knowsum plug-in.

How many chemical elements does a model name when asked again and again, and how many would it name
if asked forever? The census (KnowSum, Li et al. 2025) samples lists, verifies each item against the
periodic table, clusters by atomic number and extrapolates the unseen. The vocabulary is the
``periodictable`` package's table (118 elements, IUPAC names as that package spells them), with the
symbol and the IUPAC spellings that differ from it (aluminium, caesium; IUPAC Red Book 2005, IR-3.1)
as synonyms.

It uses knowsum's public API only (``knowsum.census.CensusTask``, ``knowsum.kb``) and registers
itself in its ``pyproject.toml``::

    [project.entry-points."knowsum.census_tasks"]
    elements = "knowsum_elements:ELEMENTS"

After ``pip install -e examples/plugin``: ``knowsum census tasks`` lists it, ``knowsum census run
elements`` counts, and a budget's ``[census] tasks = ["elements"]`` puts it in a profile.
"""

from __future__ import annotations

from importlib.metadata import version

from knowsum.census import CensusTask
from knowsum.kb import Ontology, Synonym, Term

__all__ = ["ELEMENTS", "periodic_table"]

IUPAC_SPELLINGS = {"aluminum": "aluminium", "cesium": "caesium"}
"""Where IUPAC's recommended name differs from the one ``periodictable`` uses (IUPAC 2005, IR-3.1)."""


def periodic_table() -> Ontology:
    """The elements 1–118 as an ontology: ID ``Z:<atomic number>``, the element's name, its symbol
    (and IUPAC's spelling where it differs) as synonyms — the census verifier matches names and
    synonyms (exact → normalized → fuzzy) and clusters by ID."""
    import periodictable

    terms = {}
    for el in periodictable.elements:
        if el.number < 1:  # element 0 is the neutron
            continue
        synonyms = [Synonym(el.symbol, "EXACT")]
        if el.name in IUPAC_SPELLINGS:
            synonyms.append(Synonym(IUPAC_SPELLINGS[el.name], "EXACT"))
        tid = f"Z:{el.number}"
        terms[tid] = Term(id=tid, name=el.name.capitalize(), synonyms=tuple(synonyms))
    return Ontology("elements", terms, meta={"release": f"periodictable {version('periodictable')}"})


ELEMENTS = CensusTask(
    name="elements",
    description="chemical elements, verified against the periodic table (periodictable package)",
    prompt="List {n} chemical elements. Write one element name per line, no numbering, no symbols, "
    "no explanation.",
    vocabulary=periodic_table,
    answers=20,
    decoder="lines",
    tokens_per_answer=6,
)
"""The task (registered as ``elements`` under ``knowsum.census_tasks``)."""
