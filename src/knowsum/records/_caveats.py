"""A caveat as a record carries it: the kind, the mark every surface prints, the sentence, the figure.

The statistics layer returns typed caveats (``knowsum.stats.Caveat``); an instrument copies each
into its record with :meth:`CaveatNote.of` (this package does not import the statistics layer: the
one protocol of what a caveat carries is ``knowsum.stats.caveats.CaveatFields``, and a note reads
those fields by name) and every page, table, card and ``--json`` prints them from the record, never
re-deriving them.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CaveatNote", "caveat_notes"]


class CaveatNote(BaseModel):
    """One reason a figure of the record says less than it seems."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = Field(description="stable name of the kind (knowsum.stats.CaveatKind): tiny-sample, clamped…")
    mark: str = Field(description="the short mark printed beside the figure: 'tiny sample', 'beyond 2n'…")
    message: str = Field(description="why, and what to do")
    figure: str = Field("", description="the figure it qualifies ('' = the whole result)")

    @classmethod
    def of(cls, caveat: object, figure: str | None = None) -> CaveatNote:
        """The note of ``caveat`` (``knowsum.stats.Caveat`` or a note: anything with the fields
        ``kind``, ``mark``, ``message`` and ``figure``; ``figure`` overrides the figure it names).

        Raises:
            pydantic.ValidationError: ``caveat`` lacks one of those fields (a programming error).
        """
        note = cls.model_validate(caveat, from_attributes=True)
        return note if figure is None else note.model_copy(update={"figure": figure})


def caveat_notes(*groups: Iterable[object] | None) -> list[CaveatNote]:
    """The notes of every caveat in ``groups`` (iterables of caveats or notes), each message once."""
    out: dict[tuple[str, str], CaveatNote] = {}
    for group in groups:
        for caveat in group or ():
            note = CaveatNote.of(caveat)
            out.setdefault((note.kind, note.message), note)
    return list(out.values())
