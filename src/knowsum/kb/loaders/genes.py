"""Builders of the gene store (see :mod:`knowsum.kb._genes`).

- :func:`build_from_orgdb`: Bioconductor ``org.Hs.eg.sqlite`` (Debian ``r-bioc-org.hs.eg.db``),
  copied table by table with SQL (``ATTACH``), so 1.8M PubMed links take seconds; optionally with
  NCBI "other designations" from another source (:class:`Designations`), kept for the genes
  of the store (joined by Entrez Gene ID).
- :func:`build_from_gene_info`: an NCBI ``gene_info`` file (tab-separated, header ``#tax_id GeneID
  Symbol …``, optionally gzip; its ``Other_designations`` column, ``|``-separated, ``-`` for none,
  gives the designations) plus, optionally, a GAF 2.x file of GO annotations (symbols are
  mapped to Entrez IDs through the gene_info symbols; ``NOT`` annotations are skipped).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from knowsum.errors import InputFileError, SourceError
from knowsum.kb._genes import GENES_INDEXES, GENES_SCHEMA
from knowsum.kb._store import FORMAT_VERSION
from knowsum.kb.loaders.bioc import open_bioc
from knowsum.kb.loaders.goatools import split_designations

__all__ = ["Designations", "build_from_gene_info", "build_from_orgdb"]

_ASPECTS = {"P": "BP", "F": "MF", "C": "CC"}


@dataclass(frozen=True, slots=True)
class Designations:
    """NCBI "other designations" per Entrez Gene ID, and where they come from.

    Attributes:
        by_gene: Designations per gene, in source order (genes without any may be listed with ``()``).
        source: The source, stored as meta ``designations_source``.
        release: Its release, stored as meta ``designations_release``.
    """

    by_gene: Mapping[int, tuple[str, ...]]
    source: str
    release: str


def _write_designations(con: sqlite3.Connection, designations: Designations) -> int:
    """Insert the designations of the genes already in ``con`` and their meta keys.

    Returns:
        How many genes got at least one designation (also stored as meta ``designations_genes``).
    """
    known = {r[0] for r in con.execute("SELECT gene_id FROM genes")}
    rows = [(g, d) for g, ds in designations.by_gene.items() if g in known for d in ds]
    con.executemany("INSERT INTO designations VALUES (?, ?)", rows)
    matched = len({g for g, _ in rows})
    meta = {
        "designations_source": designations.source,
        "designations_release": designations.release,
        "designations_genes": str(matched),
    }
    con.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    return matched


@contextlib.contextmanager
def _atomic_db(out: Path, meta: dict[str, str]) -> Iterator[sqlite3.Connection]:
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    try:
        con.executescript(GENES_SCHEMA)
        con.executemany("INSERT INTO meta VALUES (?, ?)", {**meta, "format": FORMAT_VERSION}.items())
        yield con
        con.executescript(GENES_INDEXES)
        con.commit()
        con.close()
        os.replace(tmp, out)
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise


def build_from_orgdb(src: Path, out: Path, release: str, designations: Designations | None = None) -> int:
    """Write the gene store ``out`` from ``org.Hs.eg.sqlite``; returns the number of genes.

    Args:
        src: The ``org.Hs.eg.sqlite`` file.
        out: The store to write (atomically).
        release: Stored as meta ``release``.
        designations: Other designations to store for the genes of ``src`` (others are dropped);
            the number of genes that got some is stored as meta ``designations_genes``.
    """
    open_bioc(src, "gene_info").close()
    meta = {"name": "genes", "release": release, "source": src.name}
    with _atomic_db(out, meta) as con:
        con.execute("ATTACH DATABASE ? AS src", (f"file:{src}?mode=ro",))
        con.executescript("""
            INSERT INTO genes
            SELECT CAST(g.gene_id AS INTEGER), i.symbol, i.gene_name, coalesce(t.gene_type, ''),
                   coalesce((SELECT group_concat(chromosome, '|') FROM
                             (SELECT DISTINCT chromosome FROM src.chromosomes c
                              WHERE c._id = g._id ORDER BY 1)), ''),
                   coalesce((SELECT group_concat(cytogenetic_location, '|') FROM
                             (SELECT DISTINCT cytogenetic_location FROM src.cytogenetic_locations l
                              WHERE l._id = g._id ORDER BY 1)), '')
            FROM src.genes g JOIN src.gene_info i ON i._id = g._id LEFT JOIN src.genetype t ON t._id = g._id;
            INSERT INTO aliases SELECT CAST(g.gene_id AS INTEGER), a.alias_symbol
                FROM src.alias a JOIN src.genes g ON g._id = a._id JOIN src.gene_info i ON i._id = a._id
                WHERE a.alias_symbol != i.symbol;
            INSERT INTO go SELECT CAST(g.gene_id AS INTEGER), x.go_id, x.evidence, 'BP'
                FROM src.go_bp x JOIN src.genes g ON g._id = x._id;
            INSERT INTO go SELECT CAST(g.gene_id AS INTEGER), x.go_id, x.evidence, 'MF'
                FROM src.go_mf x JOIN src.genes g ON g._id = x._id;
            INSERT INTO go SELECT CAST(g.gene_id AS INTEGER), x.go_id, x.evidence, 'CC'
                FROM src.go_cc x JOIN src.genes g ON g._id = x._id;
            INSERT INTO pubmed SELECT CAST(g.gene_id AS INTEGER), CAST(p.pubmed_id AS INTEGER)
                FROM src.pubmed p JOIN src.genes g ON g._id = p._id;
        """)
        src_meta = dict(con.execute("SELECT map_name, source_date FROM src.map_metadata").fetchall())
        con.execute("INSERT INTO meta VALUES ('entrez_date', ?)", (src_meta.get("ENTREZID", ""),))
        if designations is not None:
            _write_designations(con, designations)
        con.commit()
        con.execute("DETACH DATABASE src")
        return int(con.execute("SELECT count(*) FROM genes").fetchone()[0])


def _lines(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            yield from fh
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise InputFileError(path, f"cannot read file: {exc}") from exc


def build_from_gene_info(gene_info: Path, gaf: Path | None, out: Path) -> int:
    """Write the gene store ``out`` from an NCBI ``gene_info`` file and an optional GAF file."""
    genes: dict[int, tuple[int, str, str, str, str, str]] = {}
    aliases: list[tuple[int, str]] = []
    designations: dict[int, tuple[str, ...]] = {}
    header: list[str] | None = None
    for no, line in enumerate(_lines(gene_info), 1):
        cols = line.rstrip("\n").split("\t")
        if header is None:
            if not line.startswith("#tax_id\tGeneID\tSymbol"):
                raise InputFileError(
                    gene_info, "not an NCBI gene_info file (header '#tax_id GeneID Symbol …')", 1, line
                )
            header = cols
            continue
        if len(cols) != len(header):
            raise InputFileError(gene_info, f"expected {len(header)} columns, got {len(cols)}", no, line)
        row = dict(zip(header, cols, strict=True))
        gid = int(row["GeneID"])
        full = row.get("Full_name_from_nomenclature_authority", "-")
        name = full if full != "-" else row.get("description", "")
        chrom, band = row.get("chromosome", "-"), row.get("map_location", "-")
        genes[gid] = (
            gid,
            row["Symbol"],
            name,
            row.get("type_of_gene", ""),
            "" if chrom == "-" else chrom,
            "" if band == "-" else band,
        )
        aliases += [(gid, a) for a in row.get("Synonyms", "-").split("|") if a and a != "-"]
        designations[gid] = split_designations(row.get("Other_designations", "-"))
    if not genes:
        raise InputFileError(gene_info, "no gene rows")
    go_rows = list(_gaf_rows(gaf, {g[1]: g[0] for g in genes.values()})) if gaf else []
    meta = {
        "name": "genes",
        "release": "from file",
        "source": gene_info.name + (f" + {gaf.name}" if gaf else ""),
    }
    with _atomic_db(out, meta) as con:
        con.executemany("INSERT INTO genes VALUES (?, ?, ?, ?, ?, ?)", genes.values())
        con.executemany("INSERT INTO aliases VALUES (?, ?)", aliases)
        con.executemany("INSERT INTO go VALUES (?, ?, ?, ?)", go_rows)
        if "Other_designations" in (header or ()):
            _write_designations(con, Designations(designations, gene_info.name, "from file"))
    return len(genes)


def _gaf_rows(gaf: Path, by_symbol: dict[str, int]) -> Iterator[tuple[int, str, str, str]]:
    seen = False
    for no, line in enumerate(_lines(gaf), 1):
        if line.startswith("!") or not line.strip():
            continue
        cols = line.rstrip("\n").split("\t")
        if len(cols) < 15 or not cols[4].startswith("GO:") or cols[8] not in _ASPECTS:
            raise InputFileError(
                gaf, "not a GAF 2.x line (15+ columns, GO ID in column 5, aspect P/F/C)", no, line
            )
        seen = True
        if "NOT" in cols[3].split("|"):
            continue
        gid = by_symbol.get(cols[2])
        if gid is not None:
            yield gid, cols[4], cols[6], _ASPECTS[cols[8]]
    if not seen:
        raise SourceError(f"{gaf}: no GAF annotation lines")
