"""End to end with the mock backend answering from a known mixture; every metric checked by hand.

The mixture (gold label → answer), on ``mini_go.obo`` with popularity ``mini_go_popularity.csv``:

=====================================================  =========================  ==========================
label (gold ID, popularity)                            answer                     judged
=====================================================  =========================  ==========================
kidney development (GO:0001822, 1000)                  ``GO:0001822``             correct
kidney morphogenesis (GO:0060993, 500)                 ``The ID is go_60993.``    correct (chatty, unpadded)
biological_process (GO:0008150, 5000)                  ``GO:0008150``             correct
heart valve morphogenesis (GO:0003179, 10)             ``GO:0061384``             wrong, Jaccard 2/4
heart trabecula morphogenesis (GO:0061384, 10)         ``GO:0061385``             invented near miss, Lev 1
regulation of cell division (GO:0051302, 50)           ``GO:2000145``             wrong, Jaccard 3/5
regulation of cell motility (GO:2000145, 0)            ``I am not sure.``         no ID
camera-type eye photoreceptor cell differentiation     ``GO:0060519``             wrong, Lev 1, Jaccard 1/12
(GO:0060219, 5)
cell adhesion involved in prostatic bud elongation     ``GO:9999999``             invented
(GO:0060519, 0)
reproduction (GO:0000003, 200)                         ``GO:0000005``             wrong (obsolete ID exists),
                                                                                  Lev 1, Jaccard 0
=====================================================  =========================  ==========================

Buckets (n = 3, the paper's rule) over the D = 8 distinct popularity values
{0, 5, 10, 50, 200, 500, 1000, 5000}: floor(8 / 3) = 2 consecutive values per bucket, the last
bucket also the remainder, so bucket 1 holds popularity 0/5 (3 concepts), bucket 2 holds 10/50 (3),
bucket 3 holds 200/500/1000/5000 (4).

Paper rules (study = the 10 live terms of the universe; the obsolete GO:0000005 is not one of
them): the 10 answers are 10 distinct answers ("I am not sure." counts), 4 of them do not exist
(GO:0061385, "I am not sure.", GO:9999999, GO:0000005) → 40 %; 4 of the 7 wrong predictions have
such an answer → 400/7 %. Error measures: an answer that does not exist gets Levenshtein 10
(len("GO:0061384")) and Jaccard 0; the others as in knowsum, except that the paper's tokens keep
"camera-type" whole: Jaccard {cell} / (5 + 7 − 1) = 1/11.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from knowsum.models import MockBackend, Request, ResponseStore
from knowsum.recall import RecallConfig, RecallRun, load_predictions, load_result, run_recall

ANSWERS = {
    "kidney development": "GO:0001822",
    "kidney morphogenesis": "The ID is go_60993.",
    "biological_process": "GO:0008150",
    "heart valve morphogenesis": "GO:0061384",
    "heart trabecula morphogenesis": "GO:0061385",
    "regulation of cell division": "GO:2000145",
    "regulation of cell motility": "I am not sure.",
    "camera-type eye photoreceptor cell differentiation": "GO:0060519",
    "cell adhesion involved in prostatic bud elongation": "GO:9999999",
    "reproduction": "GO:0000005",
}


def responder(request: Request) -> str:
    """The known mixture, plus two controlled perturbations for PI-2 and PI-3.

    PI-2: "heart valve morphogenesis" answers GO:0000001 at temperatures >= 0.5 (6 of 11), so
    U = 2 and PI = 1 - 1/10 = 0.9. PI-3: "regulation of cell division" gives no ID in the four
    non-English prompts, so U = 2 over M = 5 and PI = 1 - 1/4 = 0.75.
    """
    prompt = str(request.prompt)
    label = re.search(r'"(.*)"', prompt)
    assert label is not None
    name = label.group(1)
    if name == "heart valve morphogenesis" and request.params.temperature >= 0.5:
        return "GO:0000001"
    if name == "regulation of cell division" and not prompt.startswith("Provide"):
        return "no lo sé"
    return ANSWERS[name]


@pytest.fixture
def config(mini_go: Path) -> RecallConfig:
    return RecallConfig(
        kb="go",
        popularity=str(mini_go / "mini_go_popularity.csv"),
        n_buckets=3,
        n_perm=2000,
        invariance=("pi1", "pi2", "pi3"),
    )


def test_every_metric_equals_its_hand_computed_value(config: RecallConfig, tmp_path: Path) -> None:
    backend = MockBackend(responder)
    with ResponseStore(tmp_path / "store.sqlite") as store:
        run = run_recall(config, backend, store=store, out=tmp_path / "run", progress=False)
    result, records = run.record, load_predictions(run.out_dir)
    s = result.scores
    assert (s.n, s.n_correct, s.n_no_id, s.n_wrong, s.n_invented) == (10, 3, 1, 7, 2)
    assert s.accuracy == pytest.approx(0.3)
    # unique IDs: 0001822 0060993 0008150 0061384 0061385 2000145 0060519 9999999 0000005
    assert s.n_unique_predicted == 9
    assert s.n_invented_unique == 2
    assert s.invented_unique_pct == pytest.approx(200 / 9)
    assert s.wrong_due_to_invented_pct == pytest.approx(200 / 7)
    by_id = {r.id: r for r in records}
    assert by_id["GO:0060993"].predicted == "GO:0060993" and by_id["GO:0060993"].status == "correct"
    assert by_id["GO:2000145"].status == "no_id" and by_id["GO:2000145"].predicted is None
    assert by_id["GO:0000003"].status == "wrong"  # GO:0000005 is obsolete, so it exists
    assert by_id["GO:0060519"].status == "invented"
    # Levenshtein over the 6 errors with an ID: three one-digit misses (1 each);
    # GO:0003179→GO:0061384 = 5 (the last 5 digits differ; no 4-edit script exists),
    # GO:0051302→GO:2000145 = 5 (insert 2 in front → 20051302, then 5→0, 3→4, 0→5, drop the last 2;
    # Hamming would be 6), GO:0060519→GO:9999999 = 6 (only the 6th digit is shared).
    # Each value is also checked against a textbook Wagner–Fischer DP in test_metrics.py.
    assert [by_id[i].levenshtein for i in ("GO:0061384", "GO:0060219", "GO:0000003")] == [1, 1, 1]
    assert by_id["GO:0003179"].levenshtein == 5
    assert by_id["GO:0051302"].levenshtein == 5
    assert by_id["GO:0060519"].levenshtein == 6
    assert s.n_levenshtein == 6
    assert s.mean_levenshtein == pytest.approx(19 / 6)
    assert by_id["GO:0003179"].jaccard == pytest.approx(2 / 4)  # {heart, morphogenesis} / 4 tokens
    assert by_id["GO:0051302"].jaccard == pytest.approx(3 / 5)  # {regulation, of, cell} / 5
    assert by_id["GO:0060219"].jaccard == pytest.approx(1 / 12)  # {cell} / 6 + 7 − 1 tokens
    assert by_id["GO:0000003"].jaccard == 0.0
    assert s.n_jaccard == 4
    assert s.mean_jaccard == pytest.approx((0.5 + 0.6 + 1 / 12 + 0) / 4)

    pop = s.popularity
    assert pop is not None and pop.n_buckets == 3 and pop.n_with_popularity == 10
    assert [b.n_universe for b in pop.buckets] == [3, 3, 4]
    assert [b.n for b in pop.buckets] == [3, 3, 4]
    assert [b.accuracy for b in pop.buckets] == [0.0, 0.0, 0.75]
    assert [(b.lo, b.hi) for b in pop.buckets] == [(0.0, 10.0), (10.0, 200.0), (200.0, 5000.0)]
    assert [b.mean_popularity for b in pop.buckets] == [pytest.approx(5 / 3), pytest.approx(70 / 3), 1675.0]
    # mean popularity ranks (1, 2, 3) vs accuracy ranks (1.5, 1.5, 3): ρ = 1.5 / (√2 · √1.5) = √3 / 2
    assert pop.bucket_spearman == pytest.approx(math.sqrt(3) / 2)
    assert pop.bucket_spearman_p is not None and 0.6 < pop.bucket_spearman_p < 0.75  # exact: 4/6
    assert pop.granger_f is None and pop.granger_perm_p is None  # 3 buckets are too few for lag 3
    # top-k repeated wrong IDs with a bucket: 0061384 (10 → B2), 2000145 (0 → B1), 0060519 (0 → B1);
    # the obsolete GO:0000005 has no popularity. R_B = n_B / (N_B / N · k) with N_B / N · k = 0.9, 0.9, 1.2.
    assert pop.top_k_used == 3
    assert [b.n_top_k for b in pop.buckets] == [2, 1, 0]
    assert [b.r_b for b in pop.buckets] == [pytest.approx(2 / 0.9), pytest.approx(1 / 0.9), 0.0]
    # knowsum rules per bucket: B1 Levenshtein (6 + 1) / 2, Jaccard 1/12; B2 (5 + 1 + 5) / 3, (0.5 + 0.6) / 2
    assert pop.buckets[0].mean_levenshtein == pytest.approx(3.5)
    assert pop.buckets[1].mean_jaccard == pytest.approx(0.55)
    assert pop.buckets[2].mean_levenshtein == 1.0  # GO:0000003 → GO:0000005
    # paper rules per bucket: B1 (10 + 10 + 1) / 3 and 1/33; B2 (5 + 10 + 5) / 3 and 1.1 / 3; B3 10 and 0
    paper_lev = [7.0, 20 / 3, 10.0]
    paper_jac = [1 / 33, 1.1 / 3, 0.0]
    assert [b.paper_mean_levenshtein for b in pop.buckets] == pytest.approx(paper_lev)
    assert [b.paper_mean_jaccard for b in pop.buckets] == pytest.approx(paper_jac)
    # Table 6: x ranks (1, 2, 3); Levenshtein ranks (2, 1, 3): ρ = 1 − 6·2 / 24 = 0.5;
    # Jaccard ranks (2, 3, 1): ρ = 1 − 6·6 / 24 = −0.5
    assert pop.levenshtein_spearman == pytest.approx(0.5)
    assert pop.jaccard_spearman == pytest.approx(-0.5)

    paper = s.paper
    assert paper is not None and (paper.existence, paper.n_study) == ("study", 10)
    assert (paper.unique_answers, paper.invented_unique) == (10, 4)
    assert paper.invented_pct == pytest.approx(40.0)
    assert (paper.n_wrong, paper.n_wrong_invented) == (7, 4)
    assert paper.wrong_due_to_invented_pct == pytest.approx(400 / 7)
    assert paper.averaging == "buckets"
    assert paper.mean_levenshtein == pytest.approx(sum(paper_lev) / 3)  # 71/9
    assert paper.mean_jaccard == pytest.approx(sum(paper_jac) / 3)  # 131/990

    assert result.config["polysemy"] is False  # the effective rule: off for GO (Wikidata only)

    inv = {i.method: i for i in result.invariance}
    assert inv["pi1"].m == 10 and inv["pi1"].mean_pi == 1.0
    assert inv["pi2"].m == 11 and inv["pi2"].mean_pi == pytest.approx((9 + 0.9) / 10)
    assert inv["pi3"].m == 5 and inv["pi3"].mean_pi == pytest.approx((9 + 0.75) / 10)
    assert inv["pi3"].variants == ["en", "it", "de", "fr", "es"]
    # PI-2 perturbs "heart valve morphogenesis" (B2): AvPI (1 + 0.9 + 1) / 3
    assert [b.avpi for b in inv["pi2"].buckets] == [1.0, pytest.approx(2.9 / 3), 1.0]
    assert [b.accuracy for b in inv["pi1"].buckets] == [0.0, 0.0, 0.75]
    assert inv["pi1"].spearman is None  # AvPI constant
    assert by_id["GO:0051302"].answers["pi3"] == ["GO:2000145", None, None, None, None]


def test_rerun_is_served_from_the_store(config: RecallConfig, tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "store.sqlite") as store:
        first = MockBackend(responder)
        r1 = run_recall(config, first, store=store, out=tmp_path / "r1", progress=False).record
        # main run and PI-1 index 0, PI-2 T=0 and PI-3 "en" share one key: 10 + 10·9 + 10·10 + 10·4
        assert len(first.calls) == 10 + 90 + 100 + 40
        second = MockBackend(responder)
        r2 = run_recall(config, second, store=store, out=tmp_path / "r2", progress=False).record
    assert second.calls == []
    assert r2.scores == r1.scores


def test_outputs_are_written_and_model_text_is_escaped(mini_go: Path, tmp_path: Path) -> None:
    cfg = RecallConfig(
        kb="go",
        popularity=str(mini_go / "mini_go_popularity.csv"),
        n_buckets=3,
        n_perm=200,
        invariance=("pi2",),
    )
    backend = MockBackend(lambda r: "<script>alert(1)</script> GO:0001822")
    out = tmp_path / "run"
    run = run_recall(cfg, backend, store=None, out=out, progress=False)
    assert isinstance(run, RecallRun) and run.out_dir == out and run.report == out / "report.html"
    result = run.record
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert names == {
        "predictions.jsonl",
        "result.json",
        "report.html",
        "plots/accuracy_per_bucket.png",
        "plots/rb_per_bucket.png",
        "plots/invariance_per_bucket.png",
    }
    lines = (out / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 10 and json.loads(lines[0])["text"].startswith("<script>")
    html = (out / "report.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'data-plot="accuracy"' in html and 'data-plot="invariance"' in html
    again = load_result(out)
    assert again == result and again.version == 4
    assert (again.kind, again.backend, again.model) == ("recall", "mock", "mock")
    assert again.kb_releases == {"go": again.kb_release} and again.kb_release
    assert (
        load_predictions(out) == load_predictions(out / "predictions.jsonl")
        and len(load_predictions(out)) == 10
    )
    assert not list(out.glob(".*.tmp"))


def test_the_default_run_folder_is_recall_runs_kb_model(mini_go: Path, tmp_path: Path) -> None:
    """Without ``out`` a run goes to ``recall-runs/<kb>-<model>`` under the current directory (the
    ``mini_go`` fixture runs the test in ``tmp_path``); the result is written last."""
    cfg = RecallConfig(kb="go", popularity="none", n_perm=50)
    run = run_recall(cfg, MockBackend(responder, model_id="org/My Model.gguf"), store=None, progress=False)
    assert run.out_dir == Path("recall-runs/go-My-Model")
    assert (tmp_path / run.out_dir / "result.json").is_file() and (tmp_path / run.report).is_file()
    assert not (tmp_path / run.out_dir / "plots").exists()  # no popularity, no invariance: no figure
    result = tmp_path / run.out_dir / "result.json"
    assert all(result.stat().st_mtime_ns >= p.stat().st_mtime_ns for p in (tmp_path / run.out_dir).iterdir())
