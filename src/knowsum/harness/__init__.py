"""knowsum.harness — knowsum's instruments inside evaluation harnesses (inspect_ai).

- :mod:`knowsum.harness.tasks`: the inspect_ai task ``knowsum/<name>`` of every installed instrument
  (``pip install 'knowsum[inspect]'``; registered by entry point);
- :func:`run_from_log`: an inspect log read back into an ordinary knowsum run directory
  (``knowsum score INSTRUMENT --inspect-log LOG.eval``);
- :class:`ReplayBackend`: replies obtained elsewhere served as a knowsum backend, keyed by
  :func:`request_id`, so an instrument's own run scores them.
- :mod:`knowsum.harness.tokenizer`: tiktoken's ``o200k_base`` (inspect's token counts) installed
  from the package index and hash-checked, so ``inspect eval`` runs without tiktoken's download.

Importing this package does not import inspect_ai (only :mod:`knowsum.harness.tasks` and reading
a log do). See ``docs/inspect.md``.
"""

from knowsum.harness._figures import (
    CAVEAT_CODES,
    Figures,
    caveat_codes,
    caveat_metrics,
    figures,
    metric_values,
)
from knowsum.harness._logs import LogRun, read_log, replay, run_from_log
from knowsum.harness._replay import Answer, ReplayBackend, request_id
from knowsum.harness._spec import make_config, requests_of, run_instrument

__all__ = [
    "CAVEAT_CODES",
    "Answer",
    "Figures",
    "LogRun",
    "ReplayBackend",
    "caveat_codes",
    "caveat_metrics",
    "figures",
    "make_config",
    "metric_values",
    "read_log",
    "replay",
    "request_id",
    "requests_of",
    "run_from_log",
    "run_instrument",
]
