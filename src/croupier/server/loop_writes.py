"""A table's lone row written from the event loop: PostgreSQL's asynchronous connection.

Most of a table's inputs are decisions that move no money and do not end the round:
their whole write is the input's row, one statement that is its own transaction
(:func:`~croupier.server.driver.alone`).  Handed to a worker thread, such a write
costs more in the hand-over than in the statement: the thread is woken, takes the
interpreter's lock from the loop, waits for the database, and wakes the loop again
with its answer; measured beside the same statement sent from the loop by psycopg's
asynchronous connection (``python benchmarks/wakeups.py --db postgresql://...``, a
statement every 4 ms), the thread cost half as much again to twice the CPU.
:class:`LoopWrites` keeps one connection of the loop's own for these rows; every other
write still goes to the committer's threads (:class:`~croupier.server.commits.OneByOne`).

What a row's writer is promised is what the thread gave it: the row is written and
committed when :meth:`LoopWrites.append` returns ``True`` (an acknowledged input
survives a crash), ``False`` when the statement wrote nothing (the round is closed,
the input is not the next, the table's lease was lost: the caller asks why), and a
database's error is raised as SQLAlchemy types it (:class:`sqlalchemy.exc.DBAPIError`
and its kinds), as the threads' writes raise it.  A connection an error leaves broken
is dropped; the next row opens another.  The connection has the server's session
settings (:data:`~croupier.server.db.SESSION_OPTIONS`): a statement waits at most
:data:`~croupier.server.db.LOCK_SECONDS` for a lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psycopg
import sqlalchemy as sa

from croupier.server import rounds_store
from croupier.server.db import SESSION_OPTIONS
from croupier.server.records import RecordedInput

__all__ = ["LoopWrites"]


class LoopWrites:
    """One PostgreSQL connection of the event loop's own, for inputs written alone.

    Args:
        engine: the server's database (PostgreSQL, through psycopg).
        counted: told of each row written (the committer's counts).
    """

    def __init__(self, engine: sa.Engine, counted: Callable[[], None] | None = None) -> None:
        if engine.dialect.name != "postgresql" or engine.dialect.driver != "psycopg":
            raise ValueError(f"rows are written from the loop on psycopg, not {engine.url}")
        self.engine = engine
        self.counted = counted
        self._connection: psycopg.AsyncConnection[Any] | None = None
        self._opening: asyncio.Lock | None = None
        #: Rows written, and connections opened.
        self.rows = 0
        self.opened = 0

    def now(self) -> bool:
        """Whether an input is to be taken on the loop now: always, on PostgreSQL."""
        return True

    async def append(
        self,
        round_id: str,
        seq: int,
        entry: RecordedInput,
        *,
        lease: tuple[str, int] | None = None,
    ) -> bool:
        """Write and commit the round's input number ``seq`` (see
        :func:`~croupier.server.rounds_store.append_input`, whose statement this is);
        ``False``: nothing was written (:func:`~croupier.server.rounds_store.appended`
        says why, in a transaction of its own)."""
        sql, parameters = rounds_store.input_row(
            self.engine.dialect, round_id, seq, entry, lease=lease
        )
        try:
            connection = await self._open()
            cursor = await connection.execute(sql, parameters)
            written = cursor.rowcount == 1
        except psycopg.Error as error:
            dead = self._drop_if_broken()
            raise sa.exc.DBAPIError.instance(
                sql,
                parameters,
                error,
                psycopg.Error,
                connection_invalidated=dead,
                dialect=self.engine.dialect,
            ) from error
        if written:
            self.rows += 1
            if self.counted is not None:
                self.counted()
        return written

    async def _open(self) -> psycopg.AsyncConnection[Any]:
        connection = self._connection
        if connection is not None and not connection.closed:
            return connection
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._connection is None or self._connection.closed:
                url = self.engine.url.set(drivername="postgresql")
                self._connection = await psycopg.AsyncConnection.connect(
                    url.render_as_string(hide_password=False),
                    autocommit=True,
                    options=SESSION_OPTIONS,
                )
                self.opened += 1
            return self._connection

    def _drop_if_broken(self) -> bool:
        """Forget the connection if an error left it unusable; whether it did."""
        connection = self._connection
        if connection is None or not (connection.broken or connection.closed):
            return False
        self._connection = None
        return True

    async def close(self) -> None:
        """Close the connection (a later row opens another)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()
