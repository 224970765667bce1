"""The genebench report: plots of Figs. 4–9, the numbers of the result in report.html, escaping of
model replies, and the page in real headless Chromium.

The run is made by hand: scored instance records for every task (4 cyclic rotations of the choice
questions, a ``<script>`` reply among them), aggregated by the instrument's own ``summarize``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from knowsum.genebench import (
    KNOWLEDGE_TITLES,
    TASKS,
    GenebenchRecord,
    InstanceRecord,
    compare_tables,
    perspective_scores,
    summarize,
)
from knowsum.genebench import _page_plots as gp
from knowsum.genebench import page as report
from knowsum.report import _plots as p
from tests.report._cdp import ARTIFACTS, inspect_report

EVIL = "<script>window.__pwned = 1; console.error('pwned')</script><img src=x onerror=\"window.__pwned = 2\">"
METHODS = {
    "single choice": "accuracy (eq. 1), mean ± population std over cyclic rotations",
    "overall": "equal mean of the knowledge types asked (Table 2)",
    "go_annotation": "CAFA-style closure over is_a + part_of",
    "rouge_l": "rouge-score ROUGE-L F (stemmed)",
    "bertscore": "BERTScore F1, roberta-large layer 17",
}


def _rec(task: str, qi: str, **kw: Any) -> InstanceRecord:
    qtype, know, persp = TASKS[task]
    fields: dict[str, Any] = {
        "task": task,
        "question_type": qtype,
        "knowledge": know,
        "perspective": persp,
        "flag": "non-loc",
        "response": "A",
        "score": 0.0,
        "question_index": qi,
    }
    fields.update(kw)
    return InstanceRecord(**fields)


def _records() -> list[InstanceRecord]:
    recs: list[InstanceRecord] = []
    # research attention: 8 genes per task, the LOC genes (few articles) right in 1 of 4 rotations
    for task in ("Q1", "Q3-A", "Q4"):
        for g in range(8):
            loc = g < 4
            gene = f"LOC{100 + g}" if loc else f"GENE{g}"
            for rot in range(4):
                right = rot < (1 if loc else 3 - (g % 2))
                response = EVIL if (task, g, rot) == ("Q1", 0, 1) else ("B" if right else "C")
                recs.append(
                    _rec(
                        task,
                        f"{task}-{g}",
                        flag="loc" if loc else "non-loc",
                        gene=gene,
                        pubmed_count=g * 40 + 1,
                        permutation=rot,
                        gold=["B"],
                        response=response,
                        parsed=None if response == EVIL else response,
                        format_error="no option letter" if response == EVIL else None,
                        score=float(right),
                    )
                )
    for task, n_right in (("Q2-A", 3), ("Q3-B", 1)):  # "No right answer" questions and one control
        for g in range(2):
            for rot in range(4):
                ok = rot < n_right
                recs.append(
                    _rec(
                        task,
                        f"{task}-{g}",
                        gene=f"NA{g}",
                        no_answer=True,
                        permutation=rot,
                        gold=["D"],
                        response="D" if ok else "A",
                        parsed="D" if ok else "A",
                        chose_no_answer=ok,
                        score=float(ok),
                    )
                )
        recs.append(
            _rec(
                task,
                f"{task}-c",
                gene="CTRL",
                permutation=0,
                gold=["A"],
                chose_no_answer=False,
                parsed="A",
                score=1.0,
            )
        )
    for task, prf in (("Q2-B", [(1.0, 0.5), (1.0, 1.0), (0.5, 0.5)]), ("Q5", [(1.0, 1 / 3), (0.5, 0.25)])):
        for i, (pr, rc) in enumerate(prf):
            f1 = 2 * pr * rc / (pr + rc)
            recs.append(
                _rec(
                    task,
                    f"{task}-{i}",
                    gene=f"M{i}",
                    permutation=0,
                    gold=["A", "B"],
                    response="A",
                    parsed=["A"],
                    precision=pr,
                    recall=rc,
                    f1=f1,
                    score=f1,
                )
            )
    for i, (cm, pr, rc) in enumerate([(1.0, 0.5, 1 / 3), (0.0, 1.0, 0.5)]):
        tf1 = 2 * pr * rc / (pr + rc)
        recs.append(
            _rec(
                "Q6",
                f"Q6-{i}",
                flag="non-loc",
                gene=f"E{i}",
                response='{"category": "x"}',
                category_match=cm,
                tissue_f1=tf1,
                precision=pr,
                recall=rc,
                score=0.5 * cm + 0.5 * tf1,
            )
        )
    for flag, base in (("no_ref", 0.6), ("with_ref", 0.4)):
        for i in range(5):
            pr, rc = base + 0.05 * i, base - 0.05 * i
            recs.append(
                _rec(
                    "Q7",
                    f"Q7-{flag}-{i}",
                    flag=flag,
                    gene=f"G{i}",
                    response="[]",
                    precision=pr,
                    recall=rc,
                    f1=2 * pr * rc / (pr + rc),
                    score=2 * pr * rc / (pr + rc),
                    go_mapped=3,
                    go_unmapped=i % 3 if flag == "with_ref" else i % 2,
                )
            )
        for i in range(5):
            rl, bs, ppl = 0.2 + 0.02 * i, 0.8 + 0.01 * i, (30.0 if flag == "no_ref" else 12.0) + 4 * i
            fl = 1 / (1 + math.log10(ppl))
            recs.append(
                _rec(
                    "Q8",
                    f"Q8-{flag}-{i}",
                    flag=flag,
                    gene=f"S{i}",
                    response="This gene " * (10 + i),
                    rouge_l=rl,
                    bertscore=bs,
                    perplexity=ppl,
                    fluency=fl,
                    length=20 + 10 * i + (15 if flag == "with_ref" else 0),
                    score=(rl + bs + fl) / 3,
                )
            )
    return recs


def _result(records: list[InstanceRecord], model: str = "mock-<b>bold</b>", **kw: Any) -> GenebenchRecord:
    scores = summarize(records, methods=METHODS, n_buckets=4, n_perm=999, **kw)
    return GenebenchRecord(
        model=model,
        created="2026-11-22T19:00:00Z",
        questions_file="built",
        questions_sha256="ab" * 32,
        n_questions=len({r.question_index for r in records}),
        n_instances=len(records),
        config={"per_type": 8, "permutations": "cyclic"},
        scores=scores,
        timings={"ask": 1.5},
        knowledge_titles=KNOWLEDGE_TITLES,
    )


def _write(tmp_path: Path) -> tuple[dict[str, Any], list[InstanceRecord], list[Path]]:
    records = _records()
    result = _result(records)
    return (
        result.model_dump(mode="json"),
        records,
        report.write_genebench_report(tmp_path / "run", result, records),
    )


def test_the_page_shows_the_titles_the_record_carries(tmp_path: Path) -> None:
    """The Table 2 titles and perspectives come from the run record (the report does not import genebench)."""
    records = _records()
    result = _result(records)
    report.write_genebench_report(tmp_path / "a", result, records)
    html = (tmp_path / "a" / "report.html").read_text(encoding="utf-8")
    assert all(f">{title}<" in html for title in KNOWLEDGE_TITLES.values())
    renamed = result.model_copy(
        update={
            "knowledge_titles": {**result.knowledge_titles, "synonyms": "Aliases <i>x</i>"},
            "perspectives": {"aliases only": ("Q2-B",)},
        }
    )
    report.write_genebench_report(tmp_path / "b", renamed, records)
    html = (tmp_path / "b" / "report.html").read_text(encoding="utf-8")
    assert "Aliases &lt;i&gt;x&lt;/i&gt;" in html and ">Synonyms<" not in html
    q2b = next(c.mean for c in result.scores.cells if c.key == "Q2-B")
    assert gp.perspective_means(renamed) == {"aliases only": q2b}


def test_files_and_numbers(tmp_path: Path) -> None:
    result, _, written = _write(tmp_path)
    names = {path.name for path in written}
    assert names == {*report.PLOT_FILES.values(), "report.html"}
    assert {p.parent.name for p in written if p.suffix == ".png"} == {"plots"}  # figures under plots/
    assert all(path.is_file() and path.stat().st_size > 0 for path in written)
    assert all(path.read_bytes().startswith(b"\x89PNG") for path in written if path.suffix == ".png")

    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    s = result["scores"]
    assert s["types_asked"] == list(KNOWLEDGE_TITLES)  # all eight types asked
    assert 'data-key="overall (%)"' in html and f"{100 * s['overall']:.2f}" in html
    cells = {c["key"]: c for c in s["cells"]}
    # Q1: LOC genes right in 1 of 4 rotations → 25.00 ± 43.30; the <script> reply is a format error
    q1 = cells["Q1/loc"]
    assert (q1["mean"], q1["n_questions"], q1["n_instances"]) == (0.25, 4, 16)
    assert "25.00\u00a0±\u00a043.30" in html and "Gene Full Name — low attention" in html
    assert f"{100 * cells['Q2-A/no-answer']['mean']:.2f}\u00a0±\u00a0" in html  # 75.00 ± 43.30
    assert f"{100 * s['knowledge']['summary']:.2f}" in html
    for pr in s["pearson"]:
        assert pr["key"] in html
    att = s["attention"]
    assert att is not None and att["spearman"] is not None
    assert f"Spearman ρ = {att['spearman']:.3f}" in html and "999 permutations" in html
    assert "rouge-score ROUGE-L F (stemmed)" in html and "CAFA-style closure over is_a + part_of" in html
    assert "hallucinated rate" in html and "without abstracts" in html and "with abstracts" in html
    assert html.count('data-plot="') == len(report.PLOT_FILES)
    # escaping: the reply, the model id and the first characters of a question ID are text
    assert "<script" not in html and "&lt;script&gt;window.__pwned" in html
    assert re.search(r"<img [^>]*src=x", html) is None
    assert "mock-&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold" not in html
    assert "no option letter" in html  # the format error's reason


def test_only_the_plots_whose_data_exist(tmp_path: Path) -> None:
    records = [r for r in _records() if r.task in ("Q1", "Q2-A")]
    result = _result(records, model="small")
    written = report.write_genebench_report(tmp_path, result, records)
    assert {path.name for path in written} == {"attention_loc.png", "attention_curve.png", "report.html"}
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "no question of this type in the question set" in html  # why the other types are missing
    assert "not asked" in html and 'data-key="knowledge types"' in html
    assert "2 of 8" in html


def test_compare_page(tmp_path: Path, browser_bin: str) -> None:
    records = _records()
    a = _result(records, model="model-a")
    b = _result([r for r in records if r.task != "Q1"], model="model-<i>b</i>")
    for m in (a, b):
        assert gp.perspective_means(m) == perspective_scores(m)
    path = report.write_genebench_compare(tmp_path / "cmp.html", [a, b], compare_tables([a, b]))
    html = path.read_text(encoding="utf-8")
    assert 'data-plot="radar"' in html and "model-&lt;i&gt;b&lt;/i&gt;" in html and "<i>b" not in html
    assert "Overall results (Table 2" in html and "Perspectives (Fig. 9" in html
    assert f"{100 * a.scores.overall:.2f}" in html  # type: ignore[operator]
    page, errors = inspect_report(browser_bin, path, "genebench-compare.png")
    assert errors == [] and page["scripts"] == 0 and page["title"] == "genebench comparison"
    assert [(name, done) for name, done, width in page["plots"] if width > 100] == [("radar", True)]


def test_new_plot_primitives() -> None:
    """Box panels (empty groups and log axes), a radar with a gap, bars with error bars."""
    fig = p.boxes(
        {"x": {"a": [1.0, 2.0, float("nan")], "b": []}, "ppl": {"b": [10.0, 100.0]}},
        log_panels=("ppl",),
        title="t",
    )
    assert len(fig.axes) == 2 and fig.axes[1].get_yscale() == "log"
    assert p.to_png(fig).startswith(b"\x89PNG")
    fig = p.radar(["a", "b", "c"], {"m": [1.0, float("nan"), 3.0]}, r_max=5)
    assert fig.axes[0].get_ylim() == (0.0, 5.0)
    assert p.to_png(fig).startswith(b"\x89PNG")
    fig = p.grouped_bars(["x", "y"], {"s": [1.0, 2.0]}, errors={"s": [0.5, 0.0]})
    assert p.to_png(fig).startswith(b"\x89PNG")


def test_report_in_headless_chromium(tmp_path: Path, browser_bin: str) -> None:
    result, _, _ = _write(tmp_path)
    page, errors = inspect_report(browser_bin, tmp_path / "run" / "report.html", "genebench-report.png")
    assert errors == []
    assert page["pwned"] is None and page["scripts"] == 0
    assert "<script>window.__pwned = 1;" in page["text"]  # shown as text
    assert page["title"] == "knowsum genebench — mock-<b>bold</b>"
    assert page["tiles"]["overall (%)"] == f"{100 * result['scores']['overall']:.2f}"
    assert page["tiles"]["questions"] == f"{result['n_questions']:,}"
    loaded = {name for name, done, width in page["plots"] if done and width > 100}
    assert loaded == set(report.PLOT_FILES)
    assert (ARTIFACTS / "genebench-report.png").read_bytes().startswith(b"\x89PNG")
    assert json.dumps(result)  # the record stays plain JSON


def test_error_bars_never_leave_the_percentage_range() -> None:
    """A 62.5 ± 41.5 % bar must not claim 104 %: error bars are cut at the bounds."""
    from knowsum.report import _plots

    fig = _plots.grouped_bars(
        ["Q1", "Q3-A"],
        {"low": [62.5, 25.0], "high": [87.5, 0.0]},
        errors={"low": [41.46, 25.0], "high": [21.65, 30.0]},
        bounds=(0.0, 100.0),
    )
    ends = []
    for container in fig.axes[0].containers:
        if getattr(container, "errorbar", None) is not None:
            for seg in container.errorbar.lines[2][0].get_segments():
                ends += [float(seg[0][1]), float(seg[1][1])]
    assert ends and min(ends) >= 0.0 and max(ends) <= 100.0
    assert 100.0 in ends and 0.0 in ends  # the cut ones touch the bounds
