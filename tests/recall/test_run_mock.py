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

Buckets (n = 3) over the distinct popularity values {0, 5, 10, 50, 200, 500, 1000, 5000}:
percentiles 0, 33.3, 66.7, 100 of those 8 values are 0, 23.33…, 400, 5000, so bucket 1 holds
popularity 0/5/10 (5 concepts), bucket 2 holds 50/200 (2), bucket 3 holds 500/1000/5000 (3).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from knowsum.models import MockBackend, Request, ResponseStore
from knowsum.recall import RecallConfig, load_result, run_recall, write_outputs

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
        result, records = run_recall(config, backend, store=store, progress=False)
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
    assert [b.n_universe for b in pop.buckets] == [5, 2, 3]
    assert [b.n for b in pop.buckets] == [5, 2, 3]
    assert [b.accuracy for b in pop.buckets] == [0.0, 0.0, 1.0]
    assert pop.buckets[0].hi == pytest.approx(10 + 40 / 3)  # 7·(1/3) = 2.33 → 10 + 0.33·(50 − 10)
    assert pop.buckets[1].hi == pytest.approx(400.0)  # 7·(2/3) = 4.67 → 200 + 0.67·(500 − 200)
    # ranks (1, 2, 3) vs (1.5, 1.5, 3): ρ = 1.5 / (√2 · √1.5) = √3 / 2
    assert pop.bucket_spearman == pytest.approx(math.sqrt(3) / 2)
    assert pop.bucket_spearman_p is not None and 0.6 < pop.bucket_spearman_p < 0.75  # exact: 4/6
    assert pop.granger_f is None  # 3 buckets are too few for lag 3
    # top-k repeated wrong IDs with a bucket: 0061384 (10), 2000145 (0), 0060519 (0) → all bucket 1;
    # the obsolete GO:0000005 has no popularity. R_B1 = 3 / (5/10 · 3) = 2.
    assert pop.top_k_used == 3
    assert [b.n_top_k for b in pop.buckets] == [3, 0, 0]
    assert [b.r_b for b in pop.buckets] == [pytest.approx(2.0), 0.0, 0.0]
    assert pop.buckets[1].mean_jaccard == pytest.approx(0.3)  # (0.6 + 0) / 2
    assert pop.buckets[2].mean_levenshtein is None  # no errors in bucket 3

    inv = {i.method: i for i in result.invariance}
    assert inv["pi1"].m == 10 and inv["pi1"].mean_pi == 1.0
    assert inv["pi2"].m == 11 and inv["pi2"].mean_pi == pytest.approx((9 + 0.9) / 10)
    assert inv["pi3"].m == 5 and inv["pi3"].mean_pi == pytest.approx((9 + 0.75) / 10)
    assert inv["pi3"].variants == ["en", "it", "de", "fr", "es"]
    assert [b.avpi for b in inv["pi2"].buckets] == [pytest.approx(0.98), 1.0, 1.0]
    assert [b.accuracy for b in inv["pi1"].buckets] == [0.0, 0.0, 1.0]
    assert inv["pi1"].spearman is None  # AvPI constant
    assert by_id["GO:0051302"].answers["pi3"] == ["GO:2000145", None, None, None, None]


def test_rerun_is_served_from_the_store(config: RecallConfig, tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "store.sqlite") as store:
        first = MockBackend(responder)
        r1, _ = run_recall(config, first, store=store, progress=False)
        # main run and PI-1 index 0, PI-2 T=0 and PI-3 "en" share one key: 10 + 10·9 + 10·10 + 10·4
        assert len(first.calls) == 10 + 90 + 100 + 40
        second = MockBackend(responder)
        r2, _ = run_recall(config, second, store=store, progress=False)
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
    result, records = run_recall(cfg, backend, progress=False)
    out = tmp_path / "run"
    written = write_outputs(out, result, records)
    names = {p.name for p in written}
    assert names == {
        "predictions.jsonl",
        "result.json",
        "report.html",
        "accuracy_per_bucket.png",
        "rb_per_bucket.png",
        "invariance_per_bucket.png",
    }
    lines = (out / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 10 and json.loads(lines[0])["text"].startswith("<script>")
    html = (out / "report.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'data-plot="accuracy"' in html and 'data-plot="invariance"' in html
    again = load_result(out)
    assert again == result and again.version == 1
    assert not list(out.glob(".*.tmp"))
