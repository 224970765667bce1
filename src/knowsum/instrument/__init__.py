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

__getattr__ = old_names(__name__, {"CENSUS_TASKS": ("knowsum.census", "CENSUS_TASKS")})
"""Names that moved to an instrument's own package, still found here with a ``DeprecationWarning``."""
