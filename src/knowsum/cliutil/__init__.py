"""knowsum.cliutil — the pieces every command group is built from, knowsum's and a plug-in's.

Below the instruments and above the foundations: an instrument's CLI group (``census/cli.py``…) and
the generic commands (:mod:`knowsum.cli`) use the same options and the same write guard.

- :mod:`knowsum.cliutil.options` — shared click options (``--json``, ``--out``, ``--overwrite``…),
  ``echo_json``, ``note``, ``finish``.
- :mod:`knowsum.cliutil.common` — the model and store options and how they open a backend.
- :mod:`knowsum.cliutil.outputs` — the one write guard every output passes before a command runs.
- :mod:`knowsum.cliutil.inspect_log` — ``--inspect-log LOG`` of every instrument's ``score``.
- :mod:`knowsum.cliutil.listing` — a listing of installed entries (name, package, version, what).
"""
