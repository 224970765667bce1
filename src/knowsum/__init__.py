"""knowsum — how much does a language model know?

Three instruments on shared layers (see ``DESIGN.md`` in the shared folder):

- ``census``: sample, verify, cluster, and extrapolate the unseen (KnowSum).
- ``recall``: has the model memorized an ontology's identifiers?
- ``genebench``: a gene-knowledge benchmark from curated gene records.

The layers are ``stats`` (pure NumPy/SciPy), ``models``, ``kb`` and ``report``. Every instrument is a
:class:`knowsum.Instrument`, found through the ``knowsum.instruments`` entry points (plug-ins too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knowsum.instrument import Instrument

__version__ = "0.1.0"

__all__ = ["Instrument", "__version__"]


def __getattr__(name: str) -> Any:
    """``knowsum.Instrument``, imported on first use (``import knowsum`` stays light)."""
    if name == "Instrument":
        from knowsum.instrument import Instrument

        return Instrument
    raise AttributeError(f"module 'knowsum' has no attribute {name!r}")
