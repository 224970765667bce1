"""The profile page (``index.html``) and the comparison of several profiles.

Reads :class:`knowsum.records.profile.ProfileRecord` records only; the published values and the
caveats travel in the record. One self-contained page (inline CSS, embedded PNGs, no script; model
text escaped):

1. the card — model, backend, budget, date, knowsum version, KB releases, and one row per measure
   with its value, interval and method;
2. per instrument, a strip plot placing the model among the papers' models, the caveats of that
   comparison, and links to the instrument's full reports;
3. the plan and what the run used: requests, tokens, time and cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from knowsum.records import DIFFERS
from knowsum.records.profile import Measure, ProfileRecord
from knowsum.report import _html as h
from knowsum.report._caveats import NA, interval_text, marks
from knowsum.report._profile_plots import NAMED, fmt, small_multiples, strip_plot
from knowsum.report._tables import markdown_table, text_table

__all__ = [
    "card_rows",
    "column_names",
    "compare_table",
    "compare_text",
    "write_profile_compare",
    "write_profile_page",
]


def _interval(m: Measure) -> str:
    """``[lo, hi]``, ``n/a: REASON`` (an interval that cannot be a 95 % interval), or ``–`` (none)."""
    return interval_text((m.lower, m.upper), m.interval_reason, lambda x: fmt(m, x))


def _number(m: Measure) -> str:
    """The value as the card prints it, or ``n/a: REASON`` when it has none and says why (``–`` in a
    file written before the reason was kept)."""
    return f"{NA}: {m.value_reason}" if m.value is None and m.value_reason else fmt(m, m.value)


def _value(m: Measure) -> str:
    """The value with its figure's caveat marks: ``14 (tiny sample; interval n/a)``."""
    shown = marks(m.marks)
    return f"{_number(m)} ({shown})" if shown else _number(m)


def _published_range(m: Measure) -> str:
    if not m.published:
        return "–"
    vals = [p.value for p in m.published]
    return f"{fmt(m, min(vals))} – {fmt(m, max(vals))} ({len(vals)} models)"


def _mark_html(m: Measure) -> str:
    shown = marks(m.marks)
    return f' <span class="caveat-mark" title="{h.escape(shown)}">⚠ {h.escape(shown)}</span>' if shown else ""


def card_rows(r: ProfileRecord | Sequence[Measure]) -> list[list[str]]:
    """The card as text rows: measure, value, interval, the papers' range (for terminals); of a
    profile, or of the card rows of one instrument's runs (``knowsum run``)."""
    measures = r.measures() if isinstance(r, ProfileRecord) else r
    return [[f"{m.instrument}: {m.label}", _value(m), _interval(m), _published_range(m)] for m in measures]


def _card(r: ProfileRecord) -> h.Markup:
    releases = "; ".join(f"{kb} {rel}" for kb, rel in sorted(r.kb_releases.items())) or "–"
    facts = h.table(
        ["model", "backend", "budget", "date", "knowsum", "KB releases"],
        [[r.model, r.backend, r.budget, r.created, r.knowsum_version, releases]],
        numeric=[False] * 6,
    )
    rows = [
        [
            m.instrument,
            m.label,
            h.Markup(f'<b data-key="{h.escape(m.key)}">{h.escape(_number(m))}</b>{_mark_html(m)}'),
            _interval(m),
            _published_range(m),
        ]
        for m in r.measures()
    ]
    measures = h.table(
        ["instrument", "measure", "value", "95 % interval", "papers' models"],
        rows,
        numeric=[False, False, True, True, True],
        caption="Every measure of this profile; the papers' range is over the models each paper published.",
    )
    methods = dict.fromkeys(m.method for m in r.measures())
    items = "".join(f"<li>{h.escape(x)}</li>" for x in methods)
    how = h.Markup(f"<details open><summary>How each value was computed</summary><ul>{items}</ul></details>")
    return h.section("The card", facts, measures, how, anchor="card")


def _references(measures: Sequence[Measure], model: str) -> h.Markup | None:
    """This model beside the papers' reference models (the named ones) on every measure they share."""
    labels = list(dict.fromkeys(p.label for m in measures for p in m.published if p.model in NAMED))
    if not labels:
        return None
    rows = []
    for m in measures:
        vals = {p.label: p.value for p in m.published}
        if any(label in vals for label in labels):
            rows.append([m.label, _number(m), *(fmt(m, vals.get(label)) for label in labels)])
    return h.table(["measure", model, *labels], rows, numeric=[False] + [True] * (1 + len(labels)))


def _instrument(r: ProfileRecord, name: str) -> h.Markup:
    part = r.instruments[name]
    parts: list[str | h.Markup] = []
    fig = strip_plot([m for m in part.measures if m.published], r.model)
    if fig is not None:
        shown = [m for m in part.measures if m.published]
        named = [n for n in NAMED if any(p.model == n for m in shown for p in m.published)]
        which = f" ({', '.join(named)} named)" if named else ""
        cap = f"Grey: the models the paper published{which}; red: this model with its interval."
        parts.append(
            h.figure(fig, f"{name}: this model among the published models", cap, name=f"strip-{name}")
        )
    refs = _references(part.measures, r.model)
    if refs is not None:
        parts.append(refs)
    caveats = list(dict.fromkeys(c for m in part.measures for c in m.notes))
    if caveats:
        items = "".join(f"<li>{h.escape(c)}</li>" for c in caveats)
        parts.append(h.Markup(f'<p><b>Is the comparison fair?</b></p><ul class="caveats">{items}</ul>'))
    links = h.join([h.link(f"{folder}/report.html", run) for run, folder in part.runs.items()], " · ")
    parts.append(h.Markup(f"<p>Full reports: {links}</p>"))
    if part.examples:
        parts.append(h.paragraph("A few of the model's replies (as written):"))
        parts.extend(h.code_block(text) for text in part.examples)
    return h.section(part.title or name, *parts, anchor=name)


def _seconds(s: float | None) -> str:
    if s is None:
        return "unknown"
    return f"{s / 3600:.1f} h" if s >= 5400 else f"{s / 60:.1f} min" if s >= 90 else f"{s:.1f} s"


def _money(v: float | None) -> str:
    return "–" if v is None else f"${v:,.2f}"


def _plan(r: ProfileRecord) -> h.Markup:
    p = r.plan
    rows = []
    for name, ip in p.instruments.items():
        part = r.instruments.get(name)
        u = part.usage if part is not None else None
        est = " (est.)" if ip.prompt_tokens_estimated else ""
        expected = ip.completion_tokens_expected
        used = (
            "–"
            if u is None
            else f"{u.asked} asked, {u.completion_tokens:,} tokens, generated in "
            f"{_seconds(u.generation_seconds)}, this run {_seconds(u.wall_seconds)}"
        )
        rows.append(
            [
                name,
                ip.requests,
                ip.stored,
                f"{ip.prompt_tokens:,}{est}",
                f"{ip.completion_tokens:,}",
                "–" if expected is None else f"{expected:,}",
                _seconds(ip.seconds_expected),
                _money(ip.cost_usd),
                used,
            ]
        )
    table = h.table(
        [
            "instrument",
            "requests",
            "stored before",
            "prompt tokens",
            "completion ≤",
            "expected",
            "expected time",
            "cost ≤",
            "this run",
        ],
        rows,
        numeric=[False, True, True, True, True, True, True, True, False],
        caption=f"Budget {p.budget}: {p.description}. Prompt tokens: {p.tokens_source}; "
        f"time: {p.time_source}.",
    )
    u = r.usage
    used = (
        f"This run used {u.requests:,} distinct requests ({u.asked:,} asked now, the rest answered earlier), "
        f"{u.prompt_tokens:,} prompt and {u.completion_tokens:,} completion tokens, "
        f"generated in {_seconds(u.generation_seconds)} of wall-clock time (the union of each "
        f"response's send-to-receive span, when it was generated); this run took {_seconds(u.wall_seconds)}."
        if u is not None
        else ""
    )
    prices = (
        f" At ${p.price_in}/M prompt and ${p.price_out}/M completion tokens: {_money(r.cost_usd)}."
        if p.price_in is not None and p.price_out is not None
        else " No prices given (--price-in/--price-out) — no cost."
    )
    notes = [h.paragraph(f"Note: {n}.") for n in r.notes]  # e.g. how a page built from runs counts
    return h.section(
        "The plan: requests, tokens, time and cost", table, h.paragraph(used + prices), *notes, anchor="plan"
    )


def write_profile_page(path: Path, result: ProfileRecord) -> Path:
    """Write the profile page of ``result`` to ``path`` (atomically); return the path."""
    sections = [_card(result)]
    sections += [_instrument(result, name) for name in result.instruments]
    sections.append(_plan(result))
    doc = h.page(
        f"How much does {result.model} know?",
        *sections,
        subtitle=f"knowsum profile · budget {result.budget} · {result.created}",
        footer=f"knowsum {result.knowsum_version} · profile.json holds every number of this page",
    )
    return h.write_page(path, doc)


def _ranks(values: dict[str, float | None]) -> dict[str, int]:
    known = sorted((v, n) for n, v in values.items() if v is not None)
    return {n: i for i, (_, n) in enumerate(reversed(known), 1)}


def _tag(folder: str | Path) -> str:
    """How a profile's folder is named in a column: its name (its folder's, for a ``profile.json``)."""
    path = Path(folder)
    return path.parent.name if path.suffix == ".json" else path.name


def column_names(results: Sequence[ProfileRecord], folders: Sequence[str | Path] | None = None) -> list[str]:
    """A comparison's column name per profile, ``model (budget)``; where two would read alike (two
    profiles of one model at one budget) each of them adds its folder's name (``model (budget, prof1)``;
    the folder as given where the names are alike too), or its place (``#2``) without ``folders``."""
    names = [f"{r.model} ({r.budget})" for r in results]
    tags = (
        [_tag(f) for f in folders] if folders is not None else [f"#{i}" for i in range(1, len(results) + 1)]
    )
    out = []
    for i, (r, name) in enumerate(zip(results, names, strict=True)):
        alike = [j for j, other in enumerate(names) if other == name]
        if len(alike) == 1:
            out.append(name)
            continue
        tag = tags[i]
        if folders is not None and sum(tags[j] == tag for j in alike) > 1:
            tag = str(folders[i])
        out.append(f"{r.model} ({r.budget}, {tag})")
    return out


def compare_table(
    results: Sequence[ProfileRecord],
    published: bool = False,
    folders: Sequence[str | Path] | None = None,
) -> tuple[list[str], list[list[str]]]:
    """One row per measure, one column per profile (+ the papers' range), and for a ranked measure
    (``Measure.ranked_by``: e.g. N̂_tot, ranked by N_seen) the rank change: a model's rank by the
    other measure → its rank by this one among the profiles (and, with ``published``, the paper's
    models); the column is named by the ranked measure's ``rank_label`` (``rank N_seen → N̂_tot``;
    plain ``rank`` without one). With measures of several instruments, a row naming the
    instrument (``<name>:``) opens each one's rows; instruments in the order the profiles list them.
    Profiles carrying a ``differs`` caveat (``--allow-mixed``: :func:`knowsum.records.comparable_records`)
    get a first row ``differs`` naming what differs from the first profile, in their column. A column
    is named ``model (budget)``, with the profile's folder (``folders``, as given) where two would read
    alike (:func:`column_names`)."""
    names = column_names(results, folders)
    fullest = sorted(results, key=lambda r: -len(r.measures()))  # its order first, then the others' extras
    of = {m.key: m.instrument for r in fullest for m in r.measures()}
    order = list(dict.fromkeys(name for r in fullest for name in r.instruments))
    keys = sorted(of, key=lambda k: order.index(of[k]))  # stable: each instrument's rows in order
    ranked = {m.instrument for r in results for m in r.measures() if m.ranked_by}  # with a rank change
    by = [{m.key: m for m in r.measures()} for r in results]
    label = next((m.rank_label for r in fullest for m in r.measures() if m.ranked_by and m.rank_label), "")
    headers = ["measure", *names, *(["papers' models"] if published else []), f"rank {label}".strip()]
    several = len(set(of.values())) > 1
    rows: list[list[str]] = []
    differs = [marks(c for c in r.caveats if c.kind == DIFFERS) for r in results]
    if any(differs):  # profiles shown side by side with --allow-mixed: each column says what differs
        rows.append(["differs", *differs, *([""] if published else []), ""])
    for i, key in enumerate(keys):
        ref = next(b[key] for b in by if key in b)
        if several and (i == 0 or of[keys[i - 1]] != ref.instrument):
            rows.append([f"{ref.instrument}:", *[""] * (len(headers) - 1)])
        cells = [_cell(b[key]) if key in b else "" for b in by]
        change = ""
        if ref.ranked_by:
            seen_key = ref.ranked_by
            seen = {n: b[seen_key].value if seen_key in b else None for n, b in zip(names, by, strict=True)}
            tot = {n: b[key].value if key in b else None for n, b in zip(names, by, strict=True)}
            if published:
                seen |= (
                    {p.label: p.value for p in by[0].get(seen_key, ref).published}
                    if seen_key in by[0]
                    else {}
                )
                tot |= {p.label: p.value for p in ref.published}
            rs, rt = _ranks(seen), _ranks(tot)
            change = "; ".join(  # the profiles, then (published) the papers' models that move
                f"{n}: {rs[n]} → {rt[n]}"
                for n in dict.fromkeys([*names, *rt])
                if n in rs and n in rt and rs[n] != rt[n]
            )
        rank = change or ("=" if ref.instrument in ranked else "")  # only ranked instruments' rows
        rows.append([ref.label, *cells, *([_published_range(ref)] if published else []), rank])
    return headers, rows


def _cell(m: Measure) -> str:
    """A comparison's cell: the value with its marks, then its interval unless it has none."""
    interval = _interval(m)
    return _value(m) if interval == "–" else f"{_value(m)} {interval}"


def write_profile_compare(
    path: Path,
    results: Sequence[ProfileRecord],
    *,
    published: bool = False,
    folders: Sequence[str | Path] | None = None,
) -> Path:
    """A page with the comparison table and one small-multiples figure (one panel per measure); columns
    and panels name each profile as :func:`column_names` does."""
    headers, rows = compare_table(results, published, folders)
    keys = list(dict.fromkeys(m.key for r in results for m in r.measures() if m.value is not None))
    series = list(zip(column_names(results, folders), (r.measures() for r in results), strict=True))
    parts: list[str | h.Markup] = [h.table(headers, rows, numeric=[False] * len(headers))]
    fig = small_multiples(series, keys, published)
    if fig is not None:
        parts.append(
            h.figure(
                fig, "every measure, one panel each", "Points: value; bars: 95 % interval.", name="compare"
            )
        )
    doc = h.page("Profiles side by side", *parts, subtitle=", ".join(name for name, _ in series))
    return h.write_page(path, doc)


def compare_text(
    results: Sequence[ProfileRecord],
    *,
    published: bool = False,
    markdown: bool = False,
    folders: Sequence[str | Path] | None = None,
) -> str:
    """The comparison table as terminal text or Markdown."""
    headers, rows = compare_table(results, published, folders)
    return markdown_table(headers, rows) if markdown else text_table(headers, rows)
