"""A context manager whose exit is :meth:`close` (the store, the loopback server)."""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["Closing"]


class Closing:
    """``with obj:`` returns ``obj`` and calls ``obj.close()`` on the way out, even on an error."""

    def close(self) -> None:
        """Release what the object holds (idempotent)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
