"""Several server processes sharing one studio's tables, and taking them over.

In a cluster (``croupier serve --workers N``, or processes on several machines started
with ``--cluster``), every process serves every table to its players, and runs some of
them itself.  Which process runs a table is settled by the database
(:meth:`Ownership.try_claim`, a PostgreSQL advisory lock); the others reach it through
the bus (:mod:`croupier.server.bus`).

Each process looks every :data:`CLAIM_SECONDS` for tables nobody runs and claims them:

* its own share first, at once: worker ``i`` of ``n`` prefers the tables whose place in
  the tables file is ``i`` modulo ``n``, so the tables spread over the workers;
* any other table only after :data:`GRACE_SECONDS` from its own start, so that the
  workers started together each get their share first.  After that, a table whose
  process died (its lock goes with its connection) is claimed by whichever process
  looks first, within about :data:`CLAIM_SECONDS`, and its round recovered from the
  database by RWS v5 5.4, as after a restart.

A table stays where it was taken over; a restarted worker runs what is still free.
If the connection that holds this process's claims is lost, the claims are lost with
it, and another process may already be running those tables: this process stops
running every table at once (its players are told to send again) and claims afresh.

"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

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
        ownership: this process's claims (:meth:`Ownership.shared`).
        tables: every table's id, in the tables file's order.
        share: which tables this process runs first.
        run: start running a table just claimed (recover its round, answer for it).
        stop_all: stop running every table (the claims were lost).
        clock: the loop's monotonic time.
    """

    def __init__(
        self,
        ownership: Ownership,
        tables: Sequence[str],
        share: Share,
        *,
        run: Callable[[str], Awaitable[None]],
        stop_all: Callable[[], Awaitable[None]],
        grace_seconds: float = GRACE_SECONDS,
        claim_seconds: float = CLAIM_SECONDS,
    ) -> None:
        self.ownership = ownership
        self.tables = list(tables)
        self.share = share
        self.run = run
        self.stop_all = stop_all
        self.grace_seconds = grace_seconds
        self.claim_seconds = claim_seconds
        #: The tables this process runs.
        self.held: set[str] = set()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start claiming (on the running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="claims")

    async def stop(self) -> None:
        """Stop claiming; the claims themselves go with :meth:`Ownership.release`."""
        await stop_task(self._task)
        self._task = None

    async def _loop(self) -> None:
        started = asyncio.get_running_loop().time()
        preferred = self.share.prefers(self.tables)
        while True:
            try:
                await self.look(
                    everything=asyncio.get_running_loop().time() - started >= self.grace_seconds,
                    preferred=preferred,
                )
            except Exception:
                _log.exception("claims: looking for tables failed; trying again")
            await asyncio.sleep(self.claim_seconds)

    async def look(self, *, everything: bool, preferred: Sequence[str]) -> None:
        """Claim this process's free tables: its share, and every table if ``everything``."""
        if not await asyncio.to_thread(self.ownership.alive):
            if self.held:
                _log.error("claims: the connection holding the tables was lost; letting them go")
                self.held.clear()
                await self.stop_all()
            # A database still down raises here: the next look tries again.
            await asyncio.to_thread(self.ownership.reconnect)
            return
        wanted = self.tables if everything else preferred
        for table in wanted:
            if table in self.held:
                continue
            if not await asyncio.to_thread(self.ownership.try_claim, table):
                continue
            self.held.add(table)
            try:
                await self.run(table)
            except Exception:
                _log.exception("claims: table %s could not start; letting it go", table)
                self.held.discard(table)
                await asyncio.to_thread(self.ownership.let_go, table)
                continue
            _log.warning("claims: this process now runs table %s", table)
