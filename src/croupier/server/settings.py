"""How a server runs: its database, its tables, play money, its clock."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from croupier.server.runtime import ServerShoe, TableConfig
from croupier.server.tables import default_tables
from croupier.server.web import default_cache_dir

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    """How a server runs: its database, its tables, and play money.

    ``play_money`` is the chips a new account gets (``None``: no chips, a real-money
    wallet funded elsewhere).  ``clock`` gives the time in seconds (tests pass their own).
    """

    url: str | None = None
    tables: tuple[TableConfig, ...] = field(default_factory=default_tables)
    play_money: Decimal | None = Decimal("1000.00")
    #: The longest a table sleeps before it reads the clock again.  ``None`` (a real
    #: clock): exactly until its next deadline.  A test that moves its clock by hand
    #: gives a small figure, since nothing else tells the table that time has passed.
    tick_seconds: float | None = None
    clock: Callable[[], float] = time.time
    #: A table's first shoe in a known order, by table id (tests and audits).
    shoes: Mapping[str, ServerShoe] = field(default_factory=dict)
    #: Wait while another process runs the tables, and take them over when it stops
    #: (``None``: refuse at once with :class:`~croupier.server.ownership.TableOwned`).
    #: Called once with the refusal when the waiting begins.
    standby: Callable[[Exception], None] | None = None
    #: Where computed figures (the tables' exact RTPs) are kept across restarts
    #: (``None``: in memory only).
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    #: Compute the tables' RTPs in the background as the server starts (``croupier
    #: serve`` does), so that the lobby has them at once.
    rtp_at_start: bool = False
