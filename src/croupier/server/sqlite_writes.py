"""A table's lone row written from the event loop on a SQLite file, while the tables'
group commit has nothing in hand (:class:`SqliteLoopWrites`): what
:class:`~croupier.server.loop_writes.LoopWrites` does on PostgreSQL.

What a row's writer is promised is what the group commit gave it: the row is written
and committed when :meth:`SqliteLoopWrites.append` returns ``True`` (an acknowledged
input survives a crash: write-ahead logging keeps every commit once the process dies),
``False`` when the statement wrote nothing (the caller asks why), ``None`` when it was
not tried (the file's write lock was taken: the input goes to the group commit), and
SQLite's error is raised as SQLAlchemy types it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from croupier.server import rounds_store
from croupier.server.db import BUSY_TIMEOUT
from croupier.server.records import RecordedInput

__all__ = ["SqliteLoopWrites"]


class SqliteLoopWrites:
    """A connection of the event loop's own to the server's SQLite file, for inputs
    written alone while the tables' group commit has nothing in hand.

    SQLite is in the process: a row and its ``COMMIT`` are a few writes to the file's
    log (write-ahead logging, ``synchronous=NORMAL``: no flush to the disk), cheaper
    than the hand-over of the write to the committing thread and back.  The row is
    written here only when it can be at once: the process's turn at the file's write
    lock free (:class:`~croupier.server.db.WriteTurns`) and the lock itself not held by
    another process (the connection does not wait: ``busy_timeout`` 0); otherwise
    :meth:`append` answers ``None`` and the input goes to the group commit, with the
    others waiting there.

    Args:
        engine: the server's database (a SQLite file).
        counted: told of each row written (the committer's counts).
        busy: whether the group commit has writes in hand (then the inputs go to it,
            where they are committed together: see :meth:`now`).
    """

    def __init__(
        self,
        engine: sa.Engine,
        counted: Callable[[], None] | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        if engine.dialect.name != "sqlite":
            raise ValueError(f"this writes rows to a SQLite file, not {engine.url}")
        self.engine = engine
        self.counted = counted
        self._busy = busy
        self._pooled: Any = None
        #: Rows written, connections opened, and rows left to the group commit (the
        #: write lock was taken).
        self.rows = 0
        self.opened = 0
        self.deferred = 0

    def now(self) -> bool:
        """Whether an input is to be taken on the loop now: the group commit has
        nothing in hand (flat out, the inputs go to it, one commit for many)."""
        return self._busy is None or not self._busy()

    async def append(
        self,
        round_id: str,
        seq: int,
        entry: RecordedInput,
        *,
        lease: tuple[str, int] | None = None,
    ) -> bool | None:
        """Write and commit the round's input number ``seq`` as
        :meth:`~croupier.server.loop_writes.LoopWrites.append` does; ``None``: not
        tried (the file's write lock is taken), for the caller to hand to the group
        commit."""
        sql, parameters = rounds_store.input_row(
            self.engine.dialect, round_id, seq, entry, lease=lease
        )
        driver = await self._open()
        driver.take_turn(0.0)
        if driver.turns is not None and not driver.holds:
            self.deferred += 1
            return None
        try:
            driver.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            driver.give_turn()
            if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
                self.deferred += 1  # another process writes the file
                return None
            raise self._typed("BEGIN IMMEDIATE", (), error) from error
        try:
            written: bool = driver.execute(sql, parameters).rowcount == 1
            driver.commit()
        except sqlite3.Error as error:
            try:
                driver.rollback()
            except sqlite3.Error:
                self._drop()
            raise self._typed(sql, parameters, error) from error
        if written:
            self.rows += 1
            if self.counted is not None:
                self.counted()
        return written

    def _typed(self, sql: str, parameters: Any, error: sqlite3.Error) -> sa.exc.StatementError:
        return sa.exc.DBAPIError.instance(
            sql, parameters, error, sqlite3.Error, dialect=self.engine.dialect
        )

    async def _open(self) -> Any:
        if self._pooled is None:
            # One of the engine's own connections (its settings made as for any other),
            # kept for the loop; it never waits for the file's lock.  Taken from the
            # pool in a thread: the pool may make the loop wait for one.
            pooled = await asyncio.to_thread(self.engine.raw_connection)
            if self._pooled is not None:  # another row took one meanwhile
                pooled.close()
            else:
                driver: Any = pooled.driver_connection
                driver.execute("PRAGMA busy_timeout=0")
                self._pooled = pooled
                self.opened += 1
        return self._pooled.driver_connection

    def _drop(self) -> None:
        pooled, self._pooled = self._pooled, None
        if pooled is not None:
            pooled.invalidate()

    async def close(self) -> None:
        """Give the connection back (a later row takes another)."""
        pooled, self._pooled = self._pooled, None
        if pooled is not None:
            pooled.driver_connection.execute(BUSY_TIMEOUT)
            pooled.close()
