"""knowsum.instrument — the one instrument interface and its plug-in registry.

::

    from knowsum.instrument import instruments

    for name, inst in instruments().items():   # knowsum's own, then plug-ins
        print(name, inst.title)

An instrument is a :class:`Instrument` (its ``requests``, ``run``, ``measures``, ``identity``…);
knowsum's three register themselves under the ``knowsum.instruments`` entry-point group exactly as
a third-party package does (an instrument's own plug-ins, such as tasks, have their own groups).
What a plug-in needs is public here (``Instrument``, ``KBs``, ``Step``, ``Measure``: the card row
``measures`` returns, ``ReplyItems``, ``wilson``) and in ``knowsum.records`` and ``knowsum.models``.
See ``docs/plugins.md``.

Layers: above ``models``, ``kb``, ``records`` (it imports nothing else of knowsum); the instruments
implement it, and the profile and the command line use it.
"""

import sys

from knowsum._util import old_names
from knowsum.instrument._base import (
    Instrument,
    KBs,
    Measure,
    ReplyItems,
    Step,
    check_per_key,
    limits,
    release_caveat,
    wilson,
)
from knowsum.instrument._registry import (
    INSTRUMENTS,
    Installed,
    broken,
    broken_instruments,
    check_instrument,
    get_instrument,
    installed,
    instruments,
    loaded,
    plugins,
)

__all__ = [
    "INSTRUMENTS",
    "Installed",
    "Instrument",
    "KBs",
    "Measure",
    "ReplyItems",
    "Step",
    "broken",
    "broken_instruments",
    "check_instrument",
    "check_per_key",
    "get_instrument",
    "installed",
    "instruments",
    "limits",
    "loaded",
    "plugins",
    "release_caveat",
    "wilson",
]


def _moved_out() -> dict[str, tuple[str, str]]:
    """The names that moved from here into an instrument's own package: each registered instrument's
    package lists those it took in its ``MOVED_FROM_INSTRUMENT``."""
    table: dict[str, tuple[str, str]] = {}
    for item in installed(INSTRUMENTS):
        home = item.target.partition(":")[0]
        package = sys.modules.get(home) if item.obj is not None else None
        for name in getattr(package, "MOVED_FROM_INSTRUMENT", ()):
            table[name] = (home, name)
    return table


__getattr__ = old_names(__name__, _moved_out)
"""Names that moved to an instrument's own package, still found here with a ``DeprecationWarning``."""
