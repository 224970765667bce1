"""Human gene records: :class:`GeneStore` over a normalized SQLite file, and its writers.

Schema (``genes.sqlite``)::

    meta(key, value)
    genes(gene_id INTEGER PRIMARY KEY, symbol, name, gene_type, chromosome, band)   '|' joins multi-values
    aliases(gene_id, alias)            go(gene_id, go_id, evidence, aspect)        pubmed(gene_id, pmid)
    designations(gene_id, designation)     NCBI "other designations" (related protein names), in source order

Records are read lazily with indexed queries, so opening the store is instant. Meta keys
``designations_source`` / ``designations_release`` say where the designations come from. A store
written before the ``designations`` table existed still opens; its genes have no designations.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from knowsum.errors import SourceError

__all__ = ["GENES_SCHEMA", "GeneRecord", "GeneStore", "GoAnnotation"]

GENES_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE genes(gene_id INTEGER PRIMARY KEY, symbol TEXT NOT NULL, name TEXT NOT NULL,
                   gene_type TEXT NOT NULL, chromosome TEXT NOT NULL, band TEXT NOT NULL);
CREATE TABLE aliases(gene_id INTEGER NOT NULL, alias TEXT NOT NULL);
CREATE TABLE go(gene_id INTEGER NOT NULL, go_id TEXT NOT NULL, evidence TEXT NOT NULL, aspect TEXT NOT NULL);
CREATE TABLE pubmed(gene_id INTEGER NOT NULL, pmid INTEGER NOT NULL);
CREATE TABLE designations(gene_id INTEGER NOT NULL, designation TEXT NOT NULL);
"""
GENES_INDEXES = """
CREATE INDEX genes_symbol ON genes(symbol COLLATE NOCASE);
CREATE INDEX genes_type ON genes(gene_type);
CREATE INDEX aliases_alias ON aliases(alias COLLATE NOCASE);
CREATE INDEX aliases_gene ON aliases(gene_id);
CREATE INDEX go_gene ON go(gene_id);
CREATE INDEX go_term ON go(go_id);
CREATE INDEX pubmed_gene ON pubmed(gene_id);
CREATE INDEX designations_gene ON designations(gene_id);
"""


@dataclass(frozen=True, slots=True)
class GoAnnotation:
    """One GO annotation of a gene: GO ID, evidence code (IDA, IEA…) and aspect (BP, MF, CC)."""

    go_id: str
    evidence: str
    aspect: str


@dataclass(frozen=True, slots=True)
class GeneRecord:
    """One Entrez gene.

    Attributes:
        gene_id: Entrez Gene ID.
        symbol: Official symbol (``TP53``; ``LOC…`` for uncharacterized loci).
        name: Full name (``tumor protein p53``).
        gene_type: NCBI gene type (``protein-coding``, ``ncRNA``, ``pseudo``…).
        chromosomes: Chromosome(s) (``("17",)``; PAR genes have ``("X", "Y")``).
        bands: Cytogenetic location(s) (``("17p13.1",)``).
        aliases: Alias symbols.
        go: GO annotations with evidence codes.
        pubmed_count: Number of linked PubMed articles.
        designations: NCBI Gene "other designations": related protein and gene names
            (``"phosphoprotein p53"``…), in source order; ``()`` if none are recorded.
    """

    gene_id: int
    symbol: str
    name: str
    gene_type: str
    chromosomes: tuple[str, ...]
    bands: tuple[str, ...]
    aliases: tuple[str, ...]
    go: tuple[GoAnnotation, ...]
    pubmed_count: int
    designations: tuple[str, ...] = ()

    @property
    def chromosome(self) -> str:
        """The first chromosome, ``""`` if unknown."""
        return self.chromosomes[0] if self.chromosomes else ""

    @property
    def band(self) -> str:
        """The first cytogenetic band, ``""`` if unknown."""
        return self.bands[0] if self.bands else ""

    @property
    def is_loc(self) -> bool:
        """Whether this is an uncharacterized ``LOC<gene_id>`` locus."""
        return self.symbol.startswith("LOC") and self.symbol[3:].isdigit()


def _split(value: str) -> tuple[str, ...]:
    return tuple(v for v in value.split("|") if v)


class GeneStore:
    """Read-only access to the installed gene records (``knowsum kb install genes``).

    Args:
        path: The ``genes.sqlite`` store.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            self._con.execute("PRAGMA temp_store = MEMORY")
            self.meta = dict(self._con.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise SourceError(f"{path}: not a readable gene store ({exc}); reinstall with --force") from exc
        tables = {r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        #: Whether the store has the designations table (stores written before it have none).
        self.has_designations = "designations" in tables

    def close(self) -> None:
        """Close the database connection."""
        self._con.close()

    def __len__(self) -> int:
        return int(self._con.execute("SELECT count(*) FROM genes").fetchone()[0])

    def __iter__(self) -> Iterator[int]:
        return (r[0] for r in self._con.execute("SELECT gene_id FROM genes ORDER BY gene_id"))

    def __contains__(self, gene_id: object) -> bool:
        return isinstance(gene_id, int) and self._row(gene_id) is not None

    def __repr__(self) -> str:
        return f"GeneStore({len(self)} genes, release={self.meta.get('release', '?')!r})"

    def _row(self, gene_id: int) -> tuple[int, str, str, str, str, str] | None:
        row = self._con.execute("SELECT * FROM genes WHERE gene_id = ?", (gene_id,)).fetchone()
        return row  # type: ignore[no-any-return]

    def get(self, gene_id: int) -> GeneRecord | None:
        """The record of an Entrez Gene ID, or ``None``."""
        row = self._row(gene_id)
        if row is None:
            return None
        gid, symbol, name, gtype, chrom, band = row
        aliases = tuple(
            r[0] for r in self._con.execute("SELECT alias FROM aliases WHERE gene_id = ?", (gid,))
        )
        return GeneRecord(
            gid,
            symbol,
            name,
            gtype,
            _split(chrom),
            _split(band),
            aliases,
            self.go_annotations(gid),
            self.pubmed_count(gid),
            self.designations(gid),
        )

    def records(self, gene_ids: Iterable[int] | None = None) -> list[GeneRecord]:
        """Many records at once (all genes by default), with five bulk queries instead of five per gene.

        Args:
            gene_ids: Entrez IDs to fetch (unknown ones are skipped); ``None`` for every gene.

        Returns:
            Records in Entrez ID order.
        """
        con = self._con
        con.execute("DROP TABLE IF EXISTS temp.wanted")
        con.execute("CREATE TEMP TABLE wanted(gene_id INTEGER PRIMARY KEY)")
        if gene_ids is None:
            con.execute("INSERT INTO temp.wanted SELECT gene_id FROM genes")
        else:
            con.executemany("INSERT OR IGNORE INTO temp.wanted VALUES (?)", ((int(g),) for g in gene_ids))
        join = "JOIN temp.wanted w USING (gene_id)"
        aliases: dict[int, list[str]] = {}
        for gid, alias in con.execute(f"SELECT gene_id, alias FROM aliases {join}"):
            aliases.setdefault(gid, []).append(alias)
        go: dict[int, list[GoAnnotation]] = {}
        order = "ORDER BY gene_id, aspect, go_id, evidence"
        for gid, go_id, ev, aspect in con.execute(
            f"SELECT gene_id, go_id, evidence, aspect FROM go {join} {order}"
        ):
            go.setdefault(gid, []).append(GoAnnotation(go_id, ev, aspect))
        pubmed = dict(con.execute(f"SELECT gene_id, count(*) FROM pubmed {join} GROUP BY gene_id").fetchall())
        designations: dict[int, list[str]] = {}
        if self.has_designations:
            for gid, text in con.execute(
                f"SELECT d.gene_id, d.designation FROM designations d {join} ORDER BY d.rowid"
            ):
                designations.setdefault(gid, []).append(text)
        rows = con.execute(f"SELECT g.* FROM genes g {join} ORDER BY g.gene_id").fetchall()
        con.execute("DROP TABLE temp.wanted")
        return [
            GeneRecord(
                gid,
                sym,
                name,
                gtype,
                _split(chrom),
                _split(band),
                tuple(aliases.get(gid, ())),
                tuple(go.get(gid, ())),
                int(pubmed.get(gid, 0)),
                tuple(designations.get(gid, ())),
            )
            for gid, sym, name, gtype, chrom, band in rows
        ]

    def __getitem__(self, key: int | str) -> GeneRecord:
        rec = self.get(key) if isinstance(key, int) else self.by_symbol(key)
        if rec is None:
            raise KeyError(key)
        return rec

    def by_symbol(self, symbol: str) -> GeneRecord | None:
        """The gene with this official symbol (case-insensitive), or ``None``."""
        row = self._con.execute(
            "SELECT gene_id FROM genes WHERE symbol = ? COLLATE NOCASE ORDER BY symbol = ? DESC LIMIT 1",
            (symbol.strip(), symbol.strip()),
        ).fetchone()
        return self.get(row[0]) if row else None

    def by_alias(self, alias: str) -> list[GeneRecord]:
        """Genes having ``alias`` as an alias symbol (case-insensitive); aliases are often ambiguous."""
        ids = self._con.execute(
            "SELECT DISTINCT gene_id FROM aliases WHERE alias = ? COLLATE NOCASE ORDER BY gene_id",
            (alias.strip(),),
        ).fetchall()
        return [r for (i,) in ids if (r := self.get(i)) is not None]

    def lookup(self, text: str) -> list[GeneRecord]:
        """Resolve free text: Entrez ID, then official symbol, then alias."""
        t = text.strip()
        if t.isdigit() and (rec := self.get(int(t))) is not None:
            return [rec]
        if (rec := self.by_symbol(t)) is not None:
            return [rec]
        return self.by_alias(t)

    def query(
        self,
        gene_type: str | None = None,
        chromosome: str | None = None,
        loc: bool | None = None,
        limit: int | None = None,
    ) -> list[int]:
        """Entrez IDs of genes matching all given filters, in ID order.

        Args:
            gene_type: NCBI gene type, e.g. ``"protein-coding"``.
            chromosome: Chromosome name (``"17"``, ``"X"``, ``"MT"``).
            loc: ``True`` only ``LOC…`` loci, ``False`` none of them, ``None`` either.
            limit: At most this many IDs.
        """
        where, args = [], []
        if gene_type is not None:
            where.append("gene_type = ?")
            args.append(gene_type)
        if chromosome is not None:
            where.append("('|' || chromosome || '|') LIKE ?")
            args.append(f"%|{chromosome}|%")
        if loc is not None:
            where.append(("" if loc else "NOT ") + "(symbol GLOB 'LOC[0-9]*')")
        sql = (
            "SELECT gene_id FROM genes"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY gene_id"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [r[0] for r in self._con.execute(sql, args)]

    def type_counts(self) -> dict[str, int]:
        """Number of genes per gene type."""
        return dict(
            self._con.execute("SELECT gene_type, count(*) FROM genes GROUP BY gene_type ORDER BY 2 DESC")
        )

    def go_annotations(self, gene_id: int, aspect: str | None = None) -> tuple[GoAnnotation, ...]:
        """GO annotations of a gene (optionally one aspect: ``BP``, ``MF`` or ``CC``)."""
        rows = self._con.execute(
            "SELECT go_id, evidence, aspect FROM go WHERE gene_id = ? ORDER BY aspect, go_id, evidence",
            (gene_id,),
        )
        return tuple(GoAnnotation(*r) for r in rows if aspect is None or r[2] == aspect)

    def genes_for_go(self, go_id: str) -> list[int]:
        """Entrez IDs directly annotated with ``go_id``."""
        return [
            r[0]
            for r in self._con.execute("SELECT DISTINCT gene_id FROM go WHERE go_id = ? ORDER BY 1", (go_id,))
        ]

    def pubmed_count(self, gene_id: int) -> int:
        """Number of PubMed articles linked to the gene."""
        return int(
            self._con.execute("SELECT count(*) FROM pubmed WHERE gene_id = ?", (gene_id,)).fetchone()[0]
        )

    def designations(self, gene_id: int) -> tuple[str, ...]:
        """NCBI "other designations" of the gene (related protein names), in source order."""
        if not self.has_designations:
            return ()
        rows = self._con.execute(
            "SELECT designation FROM designations WHERE gene_id = ? ORDER BY rowid", (gene_id,)
        )
        return tuple(r[0] for r in rows)

    def pubmed_ids(self, gene_id: int) -> list[int]:
        """PubMed IDs linked to the gene."""
        return [
            r[0]
            for r in self._con.execute("SELECT pmid FROM pubmed WHERE gene_id = ? ORDER BY 1", (gene_id,))
        ]
