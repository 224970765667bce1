"""``knowsum kb install|list|show|match|search|categories``: the knowledge bases."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from knowsum.cli._kb_categories import categories
from knowsum.cliutil.options import json_option
from knowsum.cliutil.params import FiniteRange
from knowsum.errors import InputError
from knowsum.kb import (
    KBS,
    GeneRecord,
    Match,
    Matcher,
    Term,
    install,
    installed,
    load_genes,
    load_ontology,
    spec,
)

__all__ = ["kb"]


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _dump(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False))


def _term_dict(term: Term) -> dict[str, Any]:
    d = dataclasses.asdict(term)
    d["synonyms"] = [{"text": s.text, "scope": s.scope} for s in term.synonyms]
    d["relations"] = [{"relation": r, "parent": p} for r, p in term.relations]
    d["properties"] = [{"key": k, "value": v} for k, v in term.properties]
    return d


def _text(value: str, what: str) -> str:
    if not value.strip():
        raise InputError(f"empty {what}: give a non-blank {what}")
    return value


@click.group()
def kb() -> None:
    """Install, inspect and match against knowledge bases (ontologies, genes, theorems).

    \b
    Examples:
      knowsum kb install all
      knowsum kb install hpo --from hp.obo
      knowsum kb show go GO:0001822
      knowsum kb match doid "alzheimers disease"
    """


_FROM_HELP = "\b\nKnowledge bases (--from formats):\n" + "\n".join(
    f"  {name:<9} {s.from_formats}" for name, s in KBS.items()
)


kb.add_command(categories)


@kb.command("install", epilog=_FROM_HELP)
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--from",
    "from_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Install from a file in a standard format (OBO, NCBI gene_info [+ GAF], TSV) instead.",
)
@click.option("--force", is_flag=True, help="Rebuild even if the manifest says it is installed.")
def install_cmd(names: tuple[str, ...], from_files: tuple[Path, ...], force: bool) -> None:
    """Install knowledge bases NAMES (or 'all'): idempotent, instant when already installed."""
    results = install(names, from_files, force, progress=lambda msg: click.echo(msg, err=True))
    for r in results:
        state = "already installed" if r.skipped else f"installed in {r.seconds:.1f} s"
        click.echo(f"{r.name}: {state}, {r.n_terms} entries, store {_size(r.store_bytes)}")
    built = [r for r in results if not r.skipped]
    if built:
        total = sum(r.seconds for r in built)
        click.echo(f"{len(built)} built in {total:.1f} s; {len(results) - len(built)} already installed")


@kb.command("list")
@json_option(help_text="Print JSON.")
def list_cmd(as_json: bool) -> None:
    """Name, source, release, number of entries and whether each KB is installed."""
    rows: list[dict[str, Any]] = []
    for name, s in KBS.items():
        entry = installed(name)
        rows.append(
            {
                "name": name,
                "installed": entry is not None,
                "release": entry["release"] if entry else s.release,
                "entries": entry["n_terms"] if entry else None,
                "source": entry["source"] if entry else s.source,
                "description": s.description,
            }
        )
    if as_json:
        _dump(rows)
        return
    w = max(len(r["release"]) for r in rows)
    click.echo(f"{'NAME':<9} {'INST':<4} {'ENTRIES':>8}  {'RELEASE':<{w}}  SOURCE")
    for r in rows:
        entries = str(r["entries"]) if r["entries"] is not None else "-"
        inst = "yes" if r["installed"] else "no"
        click.echo(f"{r['name']:<9} {inst:<4} {entries:>8}  {r['release']:<{w}}  {r['source']}")


def _gene_dict(g: GeneRecord) -> dict[str, Any]:
    d = dataclasses.asdict(g)
    d["go"] = [dataclasses.asdict(a) for a in g.go]
    return d


def _show_gene(key: str, as_json: bool) -> None:
    hits = load_genes().lookup(_text(key, "gene ID or symbol"))
    if not hits:
        raise InputError(f"no gene {key!r} in genes (try an Entrez ID, symbol or alias)")
    if as_json:
        _dump([_gene_dict(g) for g in hits])
        return
    for g in hits:
        click.echo(f"{g.gene_id}\t{g.symbol}\t{g.name}")
        click.echo(f"  type: {g.gene_type}  chromosome: {'|'.join(g.chromosomes)}  band: {'|'.join(g.bands)}")
        click.echo(f"  aliases: {', '.join(g.aliases)}")
        aspects = {a: sum(1 for x in g.go if x.aspect == a) for a in ("BP", "MF", "CC")}
        click.echo(f"  GO annotations: {len(g.go)} ({', '.join(f'{k} {v}' for k, v in aspects.items())})")
        click.echo(f"  PubMed articles: {g.pubmed_count}")


@kb.command("show")
@click.argument("name")
@click.argument("term_id")
@json_option(help_text="Print JSON.")
def show_cmd(name: str, term_id: str, as_json: bool) -> None:
    """Show entry TERM_ID of knowledge base NAME (alt IDs and loose spellings resolve)."""
    if spec(name).is_genes:
        _show_gene(term_id, as_json)
        return
    onto = load_ontology(name)
    _text(term_id, "ID")
    if onto.resolve(term_id) is None:
        status = onto.id_status(term_id)
        why = "well-formed but not in" if status == "nonexistent" else "not a valid ID of"
        raise InputError(f"{term_id!r} is {why} {name} (release {onto.meta.get('release', '?')})")
    term = onto[term_id]
    if as_json:
        _dump(_term_dict(term) | {"category": list(onto.category(term.id))})
        return
    click.echo(f"{term.id}\t{term.name}" + ("\t(obsolete)" if term.obsolete else ""))
    if term.id != term_id:
        click.echo(f"  resolved from: {term_id}")
    for label, value in (("namespace", term.namespace), ("definition", term.definition)):
        if value:
            click.echo(f"  {label}: {value}")
    for s in term.synonyms:
        click.echo(f"  synonym: {s.text}" + (f" [{s.scope}]" if s.scope else ""))
    for rel, parent in term.relations:
        pname = onto[parent].name if parent in onto else "?"
        click.echo(f"  {rel}: {parent} {pname}")
    if term.alt_ids:
        click.echo(f"  alt_ids: {', '.join(term.alt_ids)}")
    if term.xrefs:
        click.echo(f"  xrefs: {', '.join(term.xrefs[:12])}" + (" …" if len(term.xrefs) > 12 else ""))
    cats = onto.category(term.id)
    if cats:
        click.echo(f"  category: {', '.join(f'{c} {onto[c].name}' for c in cats)}")


def _given(ctx: click.Context, param: str) -> bool:
    """Whether option ``param`` was given on the command line (not left at its default)."""
    return ctx.get_parameter_source(param) not in (None, click.core.ParameterSource.DEFAULT)


def _match_line(m: Match) -> str:
    return f"{m.id}\t{m.name}\t{m.score:.3f}\t{m.stage}\t(matched: {m.matched})"


def _match_dict(m: Match) -> dict[str, Any]:
    return dataclasses.asdict(m)


@kb.command("match")
@click.argument("name")
@click.argument("text")
@click.option(
    "--cutoff",
    type=FiniteRange(0, 1, min_open=True),
    default=0.9,
    show_default=True,
    help="Minimum fuzzy similarity (rapidfuzz ratio / 100); ontologies only.",
)
@click.option("--obsolete", is_flag=True, help="Also match labels of obsolete terms; ontologies only.")
@json_option(help_text="Print JSON (null when nothing matches; a list for genes).")
@click.pass_context
def match_cmd(ctx: click.Context, name: str, text: str, cutoff: float, obsolete: bool, as_json: bool) -> int:
    """Map free TEXT to one ID of NAME (exact → normalized → fuzzy); exit 1 when nothing matches.

    For genes TEXT matches an Entrez ID, symbol or alias exactly (every gene it names is printed).
    """
    _text(text, "text to match")
    if spec(name).is_genes:
        given = [f"--{p}" for p in ("cutoff", "obsolete") if _given(ctx, p)]
        if given:
            raise InputError(
                f"{' and '.join(given)} does not apply to genes, which match an Entrez ID, symbol or "
                "alias exactly: leave it out"
            )
        hits = load_genes().lookup(text)
        if as_json:
            _dump([_gene_dict(g) for g in hits])
        for g in [] if as_json else hits:
            click.echo(f"{g.gene_id}\t{g.symbol}\t{g.name}")
        if not hits and not as_json:
            click.echo(f"no gene {text!r} in genes (try an Entrez ID, symbol or alias)", err=True)
        return 0 if hits else 1
    found = Matcher(load_ontology(name), cutoff, obsolete).match(text)
    if as_json:
        _dump(_match_dict(found) if found else None)
    elif found:
        click.echo(_match_line(found))
    else:
        click.echo(f"no match for {text!r} in {name} at cut-off {cutoff}", err=True)
    return 0 if found else 1


@kb.command("search")
@click.argument("name")
@click.argument("text")
@click.option(
    "--limit",
    type=click.IntRange(1, 100),
    default=5,
    show_default=True,
    help="How many candidates to show, best first, one per ID.",
)
@json_option(help_text="Print JSON.")
def search_cmd(name: str, text: str, limit: int, as_json: bool) -> None:
    """The best few candidate entries of NAME for TEXT (fuzzy, no cut-off)."""
    _text(text, "text to search")
    if spec(name).is_genes:
        raise InputError("search is for ontologies; for genes use `knowsum kb show genes SYMBOL`")
    hits = Matcher(load_ontology(name)).search(text, limit)
    if as_json:
        _dump([_match_dict(m) for m in hits])
        return
    for m in hits:
        click.echo(_match_line(m))
