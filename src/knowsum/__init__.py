"""knowsum — how much does a language model know?

Three instruments on shared layers (see ``DESIGN.md`` in the shared folder):

- ``census``: sample, verify, cluster, and extrapolate the unseen (KnowSum).
- ``recall``: has the model memorized an ontology's identifiers?
- ``genebench``: a gene-knowledge benchmark from curated gene records.

The layers are ``stats`` (pure NumPy/SciPy), ``models``, ``kb`` and ``report``.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
