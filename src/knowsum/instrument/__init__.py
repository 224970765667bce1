"""knowsum.instrument — the one instrument interface and its plug-in registry.

::

    from knowsum.instrument import instruments

    for name, inst in instruments().items():   # census, recall, genebench, then plug-ins
        print(name, inst.title)

An instrument is a :class:`Instrument` (its ``requests``, ``run``, ``measures``, ``identity``…);
knowsum's three register themselves under the ``knowsum.instruments`` entry-point group exactly as
a third-party package does, and census tasks under ``knowsum.census_tasks``. What a plug-in needs is
public here (``Instrument``, ``KBs``, ``Step``, ``Measure``: the card row ``measures`` returns,
``wilson``) and in ``knowsum.records`` and ``knowsum.models``. See ``docs/plugins.md``.

Layers: above ``models``, ``kb``, ``records`` (it imports nothing else of knowsum); the instruments
implement it, and the profile and the command line use it.
"""

from knowsum.instrument._base import (
    Instrument,
    KBs,
    Measure,
    Step,
    check_per_key,
    limits,
    release_caveat,
    wilson,
)
from knowsum.instrument._registry import (
    CENSUS_TASKS,
    INSTRUMENTS,
    Installed,
    broken,
    broken_instruments,
    check_instrument,
    get_instrument,
    installed,
    instruments,
    plugins,
)

__all__ = [
    "CENSUS_TASKS",
    "INSTRUMENTS",
    "Installed",
    "Instrument",
    "KBs",
    "Measure",
    "Step",
    "broken",
    "broken_instruments",
    "check_instrument",
    "check_per_key",
    "get_instrument",
    "installed",
    "instruments",
    "limits",
    "plugins",
    "release_caveat",
    "wilson",
]
