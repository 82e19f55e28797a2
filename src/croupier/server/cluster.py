"""Which tables this process runs, kept up while it runs: one claims loop for a single
server, its standby, and every process of a cluster.

Which process runs a table is settled by its lease (:mod:`croupier.server.ownership`).
In a cluster (``croupier serve --workers N``, or processes on several machines started
with ``--cluster``), every process serves every table to its players and runs some of
them itself; the others reach it through the bus (:mod:`croupier.server.bus`).

Each process looks every :data:`CLAIM_SECONDS` for tables nobody runs and claims them:

* its own share first, at once: worker ``i`` of ``n`` prefers the tables whose place in
  the tables file is ``i`` modulo ``n``, so the tables spread over the workers (a single
  server's share is every table);
* any other table only after :data:`GRACE_SECONDS` from its own start, so that the
  workers started together each get their share first.  After that, a table whose
  process died, hung or was cut off (its lease not renewed) is claimed by whichever
  process looks first, and its round recovered from the database by RWS v5 5.4, as
  after a restart.

A table stays where it was taken over; a restarted worker runs what is still free.
A table this process lost (its lease renewal found another owner, or a write was
fenced off) stops running here at once; the process claims afresh what is free.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

import sqlalchemy

from croupier.server.actor import stop_task
from croupier.server.ownership import Ownership
from croupier.server.settings import Share

__all__ = ["CLAIM_SECONDS", "GRACE_SECONDS", "Claims"]

_log = logging.getLogger("croupier.server")

#: Seconds between two looks for tables that nobody runs.
CLAIM_SECONDS = 0.5
#: Seconds after its start before a process claims tables outside its share.
GRACE_SECONDS = 5.0


class Claims:
    """The loop that claims tables for this process (see the module's text).

    Args:
        ownership: this process's leases.
        tables: every table's id, in the tables file's order.
        share: which tables this process runs first.
        run: start running a table just claimed, with its lease's epoch (recover its
            round, answer for it).
        stop: stop running a table (its lease was lost).
        held: the tables this process runs already.
    """

    def __init__(
        self,
        ownership: Ownership,
        tables: Sequence[str],
        share: Share,
        *,
        run: Callable[[str, int], Awaitable[None]],
        stop: Callable[[str], Awaitable[None]],
        held: Sequence[str] = (),
        grace_seconds: float = GRACE_SECONDS,
        claim_seconds: float = CLAIM_SECONDS,
    ) -> None:
        self.ownership = ownership
        self.tables = list(tables)
        self.share = share
        self.run = run
        self.stop_table = stop
        self.grace_seconds = grace_seconds
        self.claim_seconds = claim_seconds
        #: The tables this process runs.
        self.held: set[str] = set(held)
        #: Tables lost since the last look (told by the renewals or by a fenced write).
        self.lost: set[str] = set()
        #: Whether tables are claimed (a process that is stopping claims none, but
        #: renews what it still runs).
        self.claiming = True
        #: Tables that no live process runs, as of the last look (being taken over).
        self.vacant: set[str] = set()
        #: The owner of each table a live process runs, at the last look (the names
        #: :attr:`Ownership.owner` gives).
        self.owners: dict[str, str] = {}
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Start claiming, and renewing the leases held (on the running loop)."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = self._loop.create_task(self._run(), name="claims")
        self.ownership.start_renewing(self.lose_soon)

    async def stop(self) -> None:
        """Stop claiming and renewing; the leases themselves go with
        :meth:`Ownership.release`."""
        await stop_task(self._task)
        self._task = None
        await asyncio.to_thread(self.ownership.stop_renewing)

    def lose(self, tables: set[str]) -> None:
        """These tables were lost: they stop running here at the next look, at once
        (call on the loop)."""
        self.lost |= tables & self.held
        if self.lost and self._wake is not None:
            self._wake.set()

    def lose_soon(self, tables: set[str]) -> None:
        """:meth:`lose`, from any thread."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.lose, set(tables))

    def hand_over(self, table: str) -> None:
        """``table`` stopped running here on purpose (it was let go)."""
        self.held.discard(table)

    async def _run(self) -> None:
        started = asyncio.get_running_loop().time()
        preferred = self.share.prefers(self.tables)
        assert self._wake is not None
        while True:
            try:
                await self.look(
                    everything=asyncio.get_running_loop().time() - started >= self.grace_seconds,
                    preferred=preferred,
                )
            except sqlalchemy.exc.SQLAlchemyError as error:
                self.vacant = set(self.tables) - self.held
                _log.warning("claims: the database did not answer (%s); trying again", error)
            except Exception:
                _log.exception("claims: looking for tables failed; trying again")
            self._wake.clear()
            if self.lost:
                continue
            try:
                async with asyncio.timeout(self.claim_seconds):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def look(self, *, everything: bool, preferred: Sequence[str]) -> None:
        """Stop the tables lost; claim this process's free tables: its share, and every
        table if ``everything``."""
        for table in sorted(self.lost):
            self.lost.discard(table)
            if table not in self.held:
                continue
            self.held.discard(table)
            _log.error("claims: table %s is run by another process now; stopping it", table)
            self.ownership.forget(table)
            await self.stop_table(table)
        if self.held.issuperset(self.tables):
            # Every table runs here (a single server): none to claim, none run elsewhere,
            # so the database is not asked (a lease lost is told by the renewals, and
            # looked at at once).  A process with a share, or a standby, looks each time.
            self.vacant = set()
            self.owners = dict.fromkeys(self.held, self.ownership.owner)
            return
        # Who runs what, first: a table whose owner lives is not asked for (its claim
        # would be refused), which spares a round trip a table a look.
        vacant, owners = await asyncio.to_thread(self.ownership.survey)
        wanted = self.tables if everything else preferred
        for table in wanted:
            if table in self.held or not self.claiming:
                continue
            if table in owners and table not in vacant:
                continue
            epoch = await asyncio.to_thread(self.ownership.claim, table)
            if epoch is None:
                continue
            self.held.add(table)
            try:
                await self.run(table, epoch)
            except Exception:
                _log.exception("claims: table %s could not start; letting it go", table)
                self.held.discard(table)
                await self.stop_table(table)
                await asyncio.to_thread(self.ownership.let_go, table)
                continue
            _log.warning("claims: this process now runs table %s (epoch %d)", table, epoch)
        self.vacant = vacant - self.held
        self.owners = {
            **{table: owner for table, owner in owners.items() if table not in self.held},
            **dict.fromkeys(self.held, self.ownership.owner),
        }
