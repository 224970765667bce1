"""A small real run: SmolLM2-135M on a built set through the CLI writes every artifact.

The test model is tiny and weak: this asserts the pipeline completes on real data, not answer quality.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.genebench import load_result, read_questions
from knowsum.kb import installed
from knowsum.models import is_installed, model_spec

pytestmark = [pytest.mark.realmodel, pytest.mark.realdata, pytest.mark.slow]


def test_smollm2_run_writes_every_artifact(tmp_path: Path) -> None:
    if not is_installed(model_spec("smollm2-135m-instruct")) or installed("genes") is None:
        pytest.fail("needs `knowsum models install smollm2-135m-instruct` and `knowsum kb install genes go`")
    out = tmp_path / "run"
    store = str(tmp_path / "s.sqlite")
    args = [
        "genebench",
        "run",
        "--build-default",
        "--types",
        "Q1,Q2-A,Q3-B,Q4,Q5",
        "--per-type",
        "1",
        "-m",
        "smollm2-135m-instruct",
        "--store",
        store,
        "--out",
        str(out),
    ]
    assert main(args) == 0
    result = load_result(out)
    questions = read_questions(out / "questions.jsonl")
    assert result.n_questions == len(questions) >= 8
    assert result.n_instances == sum(len(q.options or {}) or 1 for q in questions)
    lines = (out / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == result.n_instances
    assert {json.loads(x)["permutation"] for x in lines} == {0, 1, 2, 3}
    assert result.scores.overall is not None and 0.0 <= result.scores.overall <= 1.0
    assert {"full name", "synonyms", "chromosome", "gene_type"} <= set(result.scores.types_asked)
    s = result.scores  # the reply rule, the format-error rate under both rules and the truncated kind
    assert s.reply_rule == "strict" and set(s.format_errors_by_rule) == {"strict", "lenient"}
    assert s.format_errors_by_rule["strict"]["overall"] == s.format_error_rate
    assert s.format_errors_by_rule["lenient"]["overall"] <= s.format_error_rate  # lenient ⊇ strict
    assert set(s.format_errors_by_kind) == {"truncated", "invalid"} and "overall" in s.truncated_rate
    assert result.max_tokens["single_choice"] == 16 and result.max_tokens["go_annotation"] >= 320
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "rate, lenient (%)" in html and "cut at token limit (%)" in html
    assert (out / "report.html").stat().st_size > 10_000
    assert list(out.glob("plots/*.png"))  # figures under plots/
    # a rerun is served from the store and gives the same numbers
    assert main([*args[:-2], "--out", str(tmp_path / "again")]) == 0
    assert load_result(tmp_path / "again").scores == result.scores


def test_user_files_build_q6_q8_with_abstracts_and_score_summaries(tmp_path: Path) -> None:
    """Expression, summaries and abstracts from user files; summaries scored with the real metrics."""
    if not is_installed(model_spec("smollm2-135m-instruct")) or installed("genes") is None:
        pytest.fail("needs `knowsum models install smollm2-135m-instruct` and `knowsum kb install genes go`")
    expression = tmp_path / "expr.tsv"
    expression.write_text("gene\tcategory\ttissues\nAADAC\tBiased expression\tliver|small intestine\n")
    summaries = tmp_path / "summaries.tsv"
    summaries.write_text(
        "RPL37\tRibosomes, the organelles that catalyze protein synthesis, consist of a small 40S subunit "
        "and a large 60S subunit. This gene encodes a ribosomal protein of the 60S subunit.\n"
        "7157\tThis gene encodes a tumor suppressor protein containing transcriptional activation, DNA "
        "binding, and oligomerization domains.\n"
    )
    abstracts = tmp_path / "abstracts.tsv"
    from knowsum.kb import load_genes

    store = load_genes()
    try:
        pmids = store.pubmed_ids(7157)[:2]
    finally:
        store.close()
    abstracts.write_text(
        "".join(f"{p}\tTP53 is mutated in half of human cancers (abstract {p}).\n" for p in pmids)
    )
    out = tmp_path / "run"
    args = [
        "genebench",
        "run",
        "--build-default",
        "--types",
        "Q6,Q8",
        "-m",
        "mock",
        "--expression",
        str(expression),
        "--summaries",
        str(summaries),
        "--abstracts",
        str(abstracts),
        "--store",
        str(tmp_path / "s.sqlite"),
        "--out",
        str(out),
    ]
    assert main(args) == 0
    questions = read_questions(out / "questions.jsonl")
    q8 = sorted((q.gene, q.flag) for q in questions if q.task == "Q8")
    assert q8 == [("TP53", "no_ref"), ("TP53", "with_ref")]  # only TP53 has an abstract in the file
    ctx = next(q.context for q in questions if q.flag == "with_ref")
    assert ctx is not None and ctx.count("\n---\n") == len(pmids) - 1
    result = load_result(out)
    assert set(result.scores.summary) == {"no_ref", "with_ref"}
    for flag in ("no_ref", "with_ref"):
        s = result.scores.summary[flag]
        assert 0 < s["score"] < 1 and s["perplexity"] > 1  # type: ignore[operator]
        parts = (s["rouge_l"], s["bertscore"], s["fluency"])
        assert s["score"] == pytest.approx(sum(parts) / 3)  # type: ignore[arg-type]
    assert "bertscore" in result.scores.methods and "MiniLM" in result.scores.methods["bertscore"]
    assert result.scores.knowledge["expression"] == 0.0  # the mock's echo is no JSON: a format error
    assert result.scores.format_errors["expression"] == 1.0
