"""The embedded local backend: a GGUF model run in-process by llama-cpp-python (the default).

llama-cpp-python's ``create_chat_completion`` defaults to temperature 0.2, top_k 40, top_p 0.95 and
min_p 0.05; knowsum always passes its own values. A fixed seed reproduces the same text only if the
context is ``reset()`` before each call (otherwise the KV-cache prefix reuse changes the numerics), so
every request starts from a reset context with its own derived seed. Chat templates come from the
GGUF metadata. Generation runs in one dedicated worker thread.

With ``n_parallel > 1`` (the default, :data:`DEFAULT_PARALLEL`; ``$KNOWSUM_BATCH`` sets it) requests
are decoded together by :mod:`._batched`: a shared prompt is evaluated once per batch and
``n_parallel`` sequences advance per ``llama_decode``. A sample's text then depends on its prompt,
seed and ``n_parallel`` only (not on its batch companions), but may differ from the sequential path's
text (``n_parallel = 1``), so the batch size is part of the store key.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from knowsum.errors import BackendError, ConfigError, InputFileError
from knowsum.models._base import Backend
from knowsum.models._batched import BatchDecoder, Generated
from knowsum.models._llama_api import BUILD_CMAKE_ARGS, check_build
from knowsum.models._params import Request, Response
from knowsum.models._threads import (
    SEQUENTIAL,
    Probing,
    ThreadTuner,
    available_cores,
    first_guess,
    fixed_threads,
)
from knowsum.models._tokens import TokenCounter, llama_counter, llama_text_tokens, message_text

__all__ = ["LocalBackend", "load_llama"]


def load_llama(path: Path, *, n_ctx: int, n_threads: int | None = None) -> Any:
    """Load a GGUF file with llama-cpp-python (imported lazily, with an install hint)."""
    try:
        from llama_cpp import Llama
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendError(
            "the local backend needs llama-cpp-python: pip install 'knowsum[local]' "
            f"(builds from source, ~10 min; CMAKE_ARGS='{BUILD_CMAKE_ARGS}')"
        ) from exc
    check_build(path)  # a build whose kernels crash on this CPU: a clear error instead of a segfault
    try:
        threads = n_threads or default_threads()
        # n_threads_batch too: llama-cpp-python otherwise decodes every multi-token batch (the prompt,
        # and each step of the batched decoder) on every core, whatever $KNOWSUM_THREADS says
        return Llama(
            model_path=str(path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, verbose=False
        )
    except (ValueError, RuntimeError) as exc:
        raise InputFileError(path, f"cannot load as a GGUF model ({exc})") from exc


def default_threads() -> int:
    """The most CPU threads llama.cpp uses: ``$KNOWSUM_THREADS`` if it is a number, else every core.

    With ``$KNOWSUM_THREADS`` unset (or ``auto``) the local backend starts at this count and then
    decodes with the thread count that measures fastest (:class:`~knowsum.models._threads.ThreadTuner`):
    on an idle 2-core machine 2 threads are 1.4-1.5x faster than one (Qwen2.5-Coder 1.5B: 26.2 vs
    18.7 tok/s; SmolLM2-135M: 101 vs 68 tok/s), but beside other work llama.cpp's spin-waiting threads
    make 2 many times slower than 1.
    """
    return fixed_threads() or available_cores()


DEFAULT_PARALLEL = 4
"""Sequences decoded together unless ``$KNOWSUM_BATCH`` says otherwise.

Measured (``bench/bench_models_batched.py --model qwen2.5-coder-1.5b-instruct --samples 12 --rounds 1``:
the census request, each path in its own process, 2 cores): Qwen2.5-Coder 1.5B gave 1.33× the
sequential samples/s with 2 sequences, 1.41× with 4 and 0.89× with 8 (docs/performance.md has the
current tokens/s figures). 4 is the fastest for the default model; ``KNOWSUM_BATCH=1`` restores the
sequential path (texts equal to direct llama-cpp-python calls).
"""


def default_parallel() -> int:
    """Sequences decoded together: ``$KNOWSUM_BATCH`` if set, else :data:`DEFAULT_PARALLEL`."""
    env = os.environ.get("KNOWSUM_BATCH", "").strip()
    if env:
        if not env.isdigit() or not 1 <= int(env) <= 64:
            raise ConfigError(f"KNOWSUM_BATCH must be a whole number in [1, 64], got {env!r}")
        return int(env)
    return DEFAULT_PARALLEL


class LocalBackend(Backend):
    """A GGUF model in-process.

    Args:
        path: the GGUF file.
        model_id: model id used in store keys (registry name, or the file's absolute path).
        n_ctx: context length.
        n_threads: CPU threads, fixed (default: ``$KNOWSUM_THREADS`` if it is a number, else the
            count that measures fastest, up to every core: :class:`~knowsum.models._threads.ThreadTuner`).
        api: ``"chat"`` (prompt → one user message, chat template from the GGUF) or
            ``"completions"`` (raw prompt continuation).
        n_parallel: sequences decoded together (default :func:`default_parallel`); 1 decodes
            one request at a time.
    """

    kind = "local"

    def __init__(
        self,
        path: str | Path,
        *,
        model_id: str | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        api: str = "chat",
        n_parallel: int | None = None,
    ) -> None:
        super().__init__()
        self.path = Path(path).expanduser().resolve()
        if not self.path.is_file():
            raise InputFileError(self.path, "GGUF model file not found")
        if api not in ("chat", "completions"):
            raise ConfigError(f"invalid api={api!r}: use 'chat' or 'completions'")
        self.model_id = model_id or str(self.path)
        self.api = api
        self.n_ctx = n_ctx
        self.n_threads = n_threads or fixed_threads()
        self.n_parallel = n_parallel or default_parallel()
        if self.n_parallel < 1:
            raise ConfigError(f"invalid n_parallel={self.n_parallel}: must be >= 1")
        # no fixed count: each decoding step (each request, sequentially) runs on the thread count that
        # measures fastest right now
        self.tuner: ThreadTuner | None = None
        if not self.n_threads:
            most, how = available_cores(), SEQUENTIAL if self.n_parallel == 1 else Probing()
            self.tuner = ThreadTuner(most, start=first_guess(most), how=how)
        # part of every store key: a batched sample's text depends on n_parallel, so responses decoded
        # with another batch size (or sequentially, plain ``api``) are never served for these requests
        self.endpoint = api if self.n_parallel == 1 else f"{api}+batch{self.n_parallel}"
        # requests per decoder run: many rounds of slots, so a finished slot refills at once and slots
        # rarely idle at a run's tail (every sample is still stored the moment it finishes)
        self.batch_size = 1 if self.n_parallel == 1 else 64 * self.n_parallel
        self._decoder: BatchDecoder | None = None
        self._llm: Any = None
        self._lock = threading.Lock()
        # always the same thread: llama.cpp keeps a CPU thread team per calling thread, and idle teams
        # of other threads spin-wait, which slowed generation several-fold on 2 cores
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knowsum-llama")

    @property
    def llm(self) -> Any:
        """The loaded ``llama_cpp.Llama`` (loaded on first use)."""
        with self._lock:
            if self._llm is None:
                self._llm = load_llama(
                    self.path, n_ctx=self.n_ctx, n_threads=self.n_threads or available_cores()
                )
            return self._llm

    def token_counter(self) -> TokenCounter:
        """The model's own tokenizer on the prompt exactly as it is fed (:func:`llama_counter`; loads
        the model)."""
        return llama_counter(self.llm, self.api)

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        """Generate the requests in the backend's own worker thread; responses in request order."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.generate_blocking, requests)

    async def generate_stream(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """Yield each response the moment its sample finishes (batched decoding finishes them one by one).

        The decoder runs in the backend's worker thread and hands every finished sample to this
        coroutine at once, so :func:`knowsum.models.sample` stores it before the rest of the batch is
        done. Closing the iterator early (an interrupted run) stops the decoder after its current step.
        """
        if self.n_parallel == 1:
            for r in requests:  # one at a time: each is stored as soon as it is generated
                yield (await self.generate([r]))[0]
            return
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Response | BaseException | None] = asyncio.Queue()
        cancel = threading.Event()

        def emit(_: int, resp: Response) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, resp)

        def work() -> None:
            try:
                self._batched(self.llm, requests, emit, cancel)
            except BaseException as exc:  # handed to the consumer, which re-raises it
                loop.call_soon_threadsafe(queue.put_nowait, exc)
            finally:
                loop.call_soon_threadsafe(queue.put_nowait, None)

        future = loop.run_in_executor(self._executor, work)
        try:
            while (item := await queue.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            cancel.set()  # an early close: the decoder stops after its current step
            if future.done():
                future.result()

    def generate_blocking(self, requests: Sequence[Request]) -> list[Response]:
        """Blocking :meth:`generate` (one reset context and one derived seed per request)."""
        llm = self.llm
        if self.n_parallel == 1:
            return [self._one(llm, r) for r in requests]
        got: dict[int, Response] = {}
        self._batched(llm, requests, got.__setitem__)
        return [got[i] for i in sorted(got)]

    def _batched(
        self,
        llm: Any,
        requests: Sequence[Request],
        emit: Callable[[int, Response], None],
        cancel: threading.Event | None = None,
    ) -> None:
        """Decode ``requests`` together (:class:`BatchDecoder`), handing ``(position, response)`` to
        ``emit`` as each finishes; a bad prompt fails alone, a llama.cpp failure fails only what had
        not finished."""
        start = time.perf_counter()
        with self._lock:
            if self._decoder is None:
                self._decoder = BatchDecoder(llm, self.n_parallel, self.n_ctx, self.tuner)
            dec = self._decoder
            jobs, where = [], []
            for i, r in enumerate(requests):
                if r.messages is not None and self.api != "chat":
                    emit(i, self.failure(r, "ValueError: chat messages need api='chat'"))
                    continue
                try:
                    msgs = r.chat_messages() if self.api == "chat" else None
                    jobs.append(dec.prepare(msgs, r.prompt, r.params, r.seed))
                    where.append(i)
                except ValueError as exc:
                    why = f"{exc}: shorten the prompt or raise n_ctx (context n_ctx={self.n_ctx})"
                    emit(i, self.failure(r, why))

            def done(k: int, g: Generated) -> None:
                latency = time.perf_counter() - start
                i = where[k]
                if g.error is not None:
                    emit(i, self.failure(requests[i], f"llama.cpp failed mid-batch ({g.error})", latency))
                    return
                emit(
                    i,
                    self.response(
                        requests[i],
                        g.text,
                        g.finish_reason,
                        prompt_tokens=g.prompt_tokens,
                        completion_tokens=g.completion_tokens,
                        latency=latency,
                    ),
                )

            dec.run(jobs, done, cancel)

    def _one(self, llm: Any, r: Request) -> Response:
        options: dict[str, Any] = {**r.params.as_dict(), "seed": r.seed}  # the sample's own seed
        start = time.perf_counter()
        threads = 0
        try:
            with self._lock:
                n_in = llama_text_tokens(llm, message_text(r))
                if n_in >= self.n_ctx:
                    why = f"prompt has {n_in} tokens >= context n_ctx={self.n_ctx}: shorten it or raise n_ctx"
                    return self.failure(r, why)
                llm.reset()
                if self.tuner is not None:  # this request's thread count (the tuner's choice or probe)
                    import llama_cpp as lc

                    threads = self.tuner.threads()
                    lc.llama_set_n_threads(llm.ctx, threads, threads)
                if self.api == "chat":
                    result = llm.create_chat_completion(messages=r.chat_messages(), **options)
                    text = result["choices"][0]["message"]["content"] or ""
                elif r.messages is not None:
                    raise ValueError("chat messages need api='chat'")
                else:
                    result = llm.create_completion(prompt=r.prompt, **options)
                    text = result["choices"][0]["text"]
        except (ValueError, RuntimeError) as exc:
            return self.failure(r, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
        usage = result.get("usage") or {}
        latency, completion = time.perf_counter() - start, int(usage.get("completion_tokens", 0))
        if self.tuner is not None:
            self.tuner.record(threads, latency / max(1, completion))  # seconds per generated token
        return self.response(
            r,
            text,
            str(result["choices"][0].get("finish_reason") or "stop"),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=completion,
            latency=latency,
        )

    async def aclose(self) -> None:
        """Free the model."""
        with self._lock:
            if self._decoder is not None:
                self._decoder.close()
                self._decoder = None
            if self._llm is not None:
                self._llm.close()
                self._llm = None
        self._executor.shutdown(wait=False)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="knowsum-llama")
