"""Batched decoding for the local backend: many sequences per ``llama_decode`` (llama.cpp's ``parallel``).

One llama.cpp context holds ``n_parallel`` slots (sequences) plus one *template* sequence. A prompt
shared by several requests (a census asks one prompt hundreds of times) is evaluated once into the
template, and each slot that starts that prompt gets a copy of its KV cache (``llama_memory_seq_cp``);
a prompt asked once is evaluated straight into its slot. Then every step feeds one token per slot to
one ``llama_decode`` and samples each slot with its own sampler chain seeded with the request's seed.
A finished slot takes the next request at once (continuous batching).

Independence from batch companions: the KV cache is *not* unified (``kv_unified=False``): every
sequence has its own cache stream, so its attention never sums over cells of other sequences, and
each step decodes exactly ``n_parallel`` rows, in slot order, all of them output rows (an idle slot
decodes a padding token whose logits no one reads: llama.cpp computes the last layer only for output
rows, with kernels that depend on their number, see :meth:`BatchDecoder._step`). A sample's text
therefore depends on its prompt, its seed and ``n_parallel`` only, never on which requests shared its
batch or how many were still running (``tests/models/test_batched.py`` checks this on SmolLM2,
``tests/models/test_batched_resume.py`` on Qwen2.5-Coder 1.5B at the census's token budget, through a
killed and resumed census; ``tests/models/test_batched_faults_qwen.py`` through a mid-batch failure).
Its text may differ from the sequential path's (one sequence per decode): matrix kernels for several
rows round differently from those for one row.

Sampling mirrors llama-cpp-python's ``create_completion`` (top-k → typical(1.0) → top-p → min-p →
temperature → seeded draw; greedy at temperature 0), as do stop strings (the first stop string in
list order found in the detokenized text cuts it), end-of-generation tokens and ``max_tokens`` (capped
so that prompt + completion fit the context).
"""

from __future__ import annotations

import ctypes
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from knowsum.errors import BackendError
from knowsum.models._llama_api import check_api
from knowsum.models._threads import ThreadTuner
from knowsum.models._tokens import llama_prompt_tokens

__all__ = ["BatchDecoder", "Generated", "Prepared"]


@dataclass(slots=True)
class Prepared:
    """A request turned into tokens and limits (see :meth:`BatchDecoder.prepare`).

    Attributes:
        tokens: prompt tokens, exactly as llama-cpp-python would feed them.
        stop: stop strings as UTF-8 bytes (the request's plus the chat template's).
        max_new: completion token budget (``max_tokens`` capped by the context).
        temperature, top_k, top_p, min_p: sampling values.
        seed: the request's own seed (a random one when the run is unseeded).
    """

    tokens: list[int]
    stop: list[bytes]
    max_new: int
    temperature: float
    top_k: int
    top_p: float
    min_p: float
    seed: int


@dataclass(slots=True)
class Generated:
    """What one request produced: ``text``, ``finish_reason``, token counts, or the ``error`` that
    stopped it (then ``finish_reason`` is ``"error"`` and ``text`` is empty)."""

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    error: str | None = None


@dataclass(slots=True)
class _Slot:
    index: int  # position of the request in the generate() call
    job: Prepared
    sampler: Any
    next_token: int
    pos: int
    out: list[int] = field(default_factory=list)
    buf: bytearray = field(default_factory=bytearray)


def make_sampler(job: Prepared) -> Any:
    """A llama.cpp sampler chain equal to llama-cpp-python's for the same values."""
    import llama_cpp as lc

    chain = lc.llama_sampler_chain_init(lc.llama_sampler_chain_default_params())
    if job.temperature == 0.0:
        lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_greedy())
        return chain
    for smpl in (
        lc.llama_sampler_init_top_k(job.top_k),
        lc.llama_sampler_init_typical(1.0, 1),
        lc.llama_sampler_init_top_p(job.top_p, 1),
        lc.llama_sampler_init_min_p(job.min_p, 1),
        lc.llama_sampler_init_temp(job.temperature),
        lc.llama_sampler_init_dist(job.seed),
    ):
        lc.llama_sampler_chain_add(chain, smpl)
    return chain


class BatchDecoder:
    """``n_parallel`` sequences decoded together on the model of a loaded ``llama_cpp.Llama``.

    Args:
        llm: the loaded ``llama_cpp.Llama`` (model, tokenizer, chat template and its context
            parameters are reused; its own context is left alone).
        n_parallel: slots decoded per step (>= 1).
        n_ctx: context length of each sequence.
        tuner: chooses the thread count of every step (``None``: the ``llm``'s own counts).
    """

    def __init__(self, llm: Any, n_parallel: int, n_ctx: int, tuner: ThreadTuner | None = None) -> None:
        import llama_cpp as lc

        check_api(llm)
        self.llm = llm
        self.n_parallel = n_parallel
        self.n_ctx = n_ctx
        self.tuner = tuner
        self.template = n_parallel  # the sequence id holding a shared prompt
        params = lc.llama_context_params.from_buffer_copy(llm.context_params)
        params.n_seq_max = n_parallel + 1
        if tuner is not None:  # the first prefill too runs on the tuner's count
            params.n_threads = params.n_threads_batch = tuner.threads()
        params.n_ctx = n_ctx * (n_parallel + 1)
        params.kv_unified = False
        self.n_batch = max(n_parallel, int(params.n_batch))
        params.n_batch = self.n_batch
        params.n_ubatch = self.n_batch
        ctx = lc.llama_init_from_model(llm._model.model, params)
        if not ctx:
            raise BackendError(f"llama.cpp cannot create a context for {n_parallel} parallel sequences")
        self.ctx = ctx
        self.mem = lc.llama_get_memory(ctx)
        self.vocab = llm._model.vocab
        self.batch = lc.llama_batch_init(self.n_batch, 0, 1)
        self._template_tokens: list[int] | None = None
        self._piece = (ctypes.c_char * 256)()

    def close(self) -> None:
        """Free the context and the batch."""
        import llama_cpp as lc

        if self.ctx is not None:
            lc.llama_batch_free(self.batch)
            lc.llama_free(self.ctx)
            self.ctx = None

    # -- requests ------------------------------------------------------------------------------

    def prepare(
        self, messages: list[dict[str, str]] | None, prompt: str | None, params: Any, seed: int | None
    ) -> Prepared:
        """Tokens, stop strings and limits of one request, exactly as llama-cpp-python derives them.

        Raises:
            ValueError: the prompt does not fit the context (the caller records it as a failure).
        """
        assert messages is not None or prompt is not None
        tokens, stop = llama_prompt_tokens(self.llm, messages, prompt, list(params.stop))
        if not tokens:
            raise ValueError("empty prompt")
        if len(tokens) >= self.n_ctx:
            raise ValueError(f"Requested tokens ({len(tokens)}) exceed context window of {self.n_ctx}")
        max_new = min(params.max_tokens, self.n_ctx - len(tokens))
        return Prepared(
            tokens=tokens,
            stop=[s.encode() for s in stop],
            max_new=max_new,
            temperature=params.temperature,
            top_k=params.top_k,
            top_p=params.top_p,
            min_p=params.min_p,
            seed=seed if seed is not None else random.randint(0, 2**32 - 1),
        )

    # -- decoding ------------------------------------------------------------------------------

    def run(
        self,
        jobs: Sequence[Prepared],
        on_done: Callable[[int, Generated], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> list[Generated]:
        """Generate every job; results in input order, each also handed to ``on_done`` as it finishes.

        A llama.cpp failure (``llama_decode`` error, …) does not lose what already finished: the jobs
        that had finished keep their results, every other job gets a :class:`Generated` whose
        ``error`` names the failure, and the decoder is reset (every sequence cleared, the shared
        prompt forgotten) so the next call starts clean.

        Args:
            jobs: prepared requests.
            on_done: called with ``(index in jobs, result)`` the moment a job finishes or fails,
                in the calling thread (the local backend stores each sample from there).
            cancel: when set, decoding stops after the current step; unfinished jobs are left out
                of the result (nothing is reported for them).
        """
        import llama_cpp as lc

        results: list[Generated | None] = [None] * len(jobs)

        def report(index: int, result: Generated) -> None:
            results[index] = result
            if on_done is not None:
                on_done(index, result)

        todo = list(range(len(jobs)))[::-1]  # pop() takes them in input order
        wanted = Counter(tuple(j.tokens) for j in jobs)
        slots: list[_Slot | None] = [None] * self.n_parallel
        try:
            while (todo or any(slots)) and not (cancel is not None and cancel.is_set()):
                for i in range(self.n_parallel):
                    if slots[i] is None and todo:
                        k = todo.pop()
                        slots[i] = self._start(i, k, jobs[k], wanted)
                self._step(slots)
                for i, slot in enumerate(slots):
                    if slot is None:
                        continue
                    done = self._advance(i, slot)
                    if done is not None:
                        lc.llama_sampler_free(slot.sampler)
                        slots[i] = None
                        report(slot.index, done)
        except (BackendError, ValueError, RuntimeError, OSError) as exc:
            self.reset()
            why = f"{type(exc).__name__}: {exc}"
            for k, job in enumerate(jobs):
                if results[k] is None:
                    report(k, Generated("", "error", len(job.tokens), 0, error=why))
        finally:
            for slot in slots:
                if slot is not None:
                    lc.llama_sampler_free(slot.sampler)
        return [r for r in results if r is not None]

    def reset(self) -> None:
        """Clear every sequence and forget the shared prompt (after a failure, the cache is unknown)."""
        import llama_cpp as lc

        self._template_tokens = None
        if self.ctx is not None:
            lc.llama_memory_clear(self.mem, True)

    def _decode(self, rows: list[tuple[int, int, int, bool]]) -> None:
        """One ``llama_decode`` of ``(token, pos, seq, logits)`` rows."""
        import llama_cpp as lc

        b = self.batch
        for n, (tok, pos, seq, logits) in enumerate(rows):
            b.token[n] = tok
            b.pos[n] = pos
            b.n_seq_id[n] = 1
            b.seq_id[n][0] = seq
            b.logits[n] = logits
        b.n_tokens = len(rows)
        rc = lc.llama_decode(self.ctx, b)
        if rc != 0:
            raise BackendError(f"llama_decode failed with code {rc} ({len(rows)} tokens)")

    def _prefill(self, seq: int, tokens: list[int]) -> None:
        """Evaluate ``tokens`` (positions 0…) into sequence ``seq``, in chunks of the batch size."""
        import llama_cpp as lc

        lc.llama_memory_seq_rm(self.mem, seq, -1, -1)
        for start in range(0, len(tokens), self.n_batch):
            chunk = tokens[start : start + self.n_batch]
            self._decode([(t, start + j, seq, False) for j, t in enumerate(chunk)])

    def _start(self, slot: int, index: int, job: Prepared, wanted: Counter[tuple[int, ...]]) -> _Slot:
        """Put job ``index`` into ``slot``: its prompt but the last token in the slot's cache."""
        import llama_cpp as lc

        head = job.tokens[:-1]
        key = tuple(job.tokens)
        wanted[key] -= 1
        if head and (head == self._template_tokens or wanted[key] > 0):
            if head != self._template_tokens:
                self._template_tokens = None  # invalid until its prefill has succeeded
                self._prefill(self.template, head)
                self._template_tokens = head
            lc.llama_memory_seq_rm(self.mem, slot, -1, -1)
            lc.llama_memory_seq_cp(self.mem, self.template, slot, -1, -1)  # whole stream
        else:
            self._prefill(slot, head)
        return _Slot(index, job, make_sampler(job), job.tokens[-1], len(head))

    def _step(self, slots: list[_Slot | None]) -> None:
        """One decode of exactly ``n_parallel`` rows, every row an output row.

        An idle slot decodes a padding token at position 0 *with* logits requested: llama.cpp runs
        the last layer and the output head only on output rows, and its CPU kernels for those
        matrices differ with the number of rows (repacked Q4_K weights take a 4-row GEMM for groups
        of four rows and a GEMV for the rest), so a step with 3 output rows rounds a slot's logits
        differently from one with 4 (measured on Qwen2.5-Coder 1.5B: logits differ from the first
        step). With ``n_parallel`` output rows every step, a slot's numbers never depend on how many
        companions are busy. Every step decodes on the tuner's thread count and reports its time.
        """
        import llama_cpp as lc

        threads = self.tuner.threads() if self.tuner is not None else 0
        if threads:  # a plain setting of the context (also for the prefills that follow)
            lc.llama_set_n_threads(self.ctx, threads, threads)

        rows = []
        for i, slot in enumerate(slots):
            if slot is None:
                lc.llama_memory_seq_rm(self.mem, i, -1, -1)
                rows.append((0, 0, i, True))
            else:
                rows.append((slot.next_token, slot.pos, i, True))
        start = time.perf_counter()
        self._decode(rows)
        if self.tuner is not None:
            self.tuner.record(threads, time.perf_counter() - start)

    def _advance(self, row: int, slot: _Slot) -> Generated | None:
        """Sample slot ``row``'s next token; the result when it finished, else ``None``."""
        import llama_cpp as lc

        tok = int(lc.llama_sampler_sample(slot.sampler, self.ctx, row))
        job = slot.job
        if lc.llama_vocab_is_eog(self.vocab, tok):
            return self._finish(slot, "stop")
        slot.out.append(tok)
        n = lc.llama_token_to_piece(self.vocab, tok, self._piece, len(self._piece), 0, False)
        before = len(slot.buf)
        slot.buf += ctypes.string_at(self._piece, max(n, 0))
        for s in job.stop:
            if slot.buf.find(s, max(0, before - len(s) + 1)) >= 0:
                return self._finish(slot, "stop", cut=True)
        if len(slot.out) >= job.max_new:
            return self._finish(slot, "length")
        slot.next_token = tok
        slot.pos += 1
        return None

    def _finish(self, slot: _Slot, reason: str, cut: bool = False) -> Generated:
        text = bytes(slot.buf)
        if cut:
            first = next(s for s in slot.job.stop if s in text)
            text = text[: text.index(first)]
        return Generated(text.decode("utf-8", errors="ignore"), reason, len(slot.job.tokens), len(slot.out))
