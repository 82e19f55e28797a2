"""The back office's typed errors."""

from __future__ import annotations

from croupier.errors import CroupierError

__all__ = ["ReportError"]


class ReportError(CroupierError):
    """A report that cannot be made as asked: an unknown table or player, an empty or
    reversed period.  The message names what was wrong.

    >>> issubclass(ReportError, ValueError)
    True
    """
