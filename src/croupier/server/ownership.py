"""Which process runs a table: one at a time, held by the database itself.

A table's open round lives in the memory of the process that runs it.  A second
process on the same database that picked the table up too would record a technical
interruption of a round that is alive elsewhere and void it, and the two would then
write over each other.  So a process claims its tables before it reads them:

* on PostgreSQL, a session-level advisory lock per table (``pg_try_advisory_lock``)
  on a connection the process holds for as long as it runs.  PostgreSQL lets go of
  the locks when that connection ends, a killed process included, so a restarted
  server (or another one) can claim the table at once;
* on a SQLite file, an exclusive ``flock`` on ``<database>.lock`` beside it (SQLite
  takes one writer at a time: one server per file).  The kernel lets go of it when
  the process dies.

A claim that fails raises :class:`TableOwned`, before anything is read or written.
A standby process waits instead (:meth:`Ownership.wait`): it claims the tables the
moment their owner lets go of them (stops, or is killed), then recovers their rounds.

>>> table_key("rws") == table_key("rws") != table_key("online")
True
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable

import sqlalchemy
from sqlalchemy.engine import make_url

from croupier.server.errors import ServerError

__all__ = ["Ownership", "TableOwned", "table_key"]


class TableOwned(ServerError):
    """Another process on the same database runs the table."""


def table_key(table: str) -> int:
    """The advisory lock key of a table: 64 bits of a hash of its id."""
    digest = hashlib.sha256(f"croupier-table:{table}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class Ownership:
    """This process's claim on its tables; :meth:`release` lets them go.

    Raises:
        TableOwned: a table is run by another process on the same database (the
            tables already claimed are let go first).
    """

    def __init__(self, engine: sqlalchemy.Engine, tables: Iterable[str]) -> None:
        self._connection: sqlalchemy.Connection | None = None
        self._file: int | None = None
        # The claims' connection is used from worker threads: one at a time.
        self._lock = threading.Lock()
        self._engine = engine
        names = list(tables)
        if engine.dialect.name == "postgresql":
            self._claim_postgresql(engine, names)
        elif engine.dialect.name == "sqlite":
            self._claim_sqlite(engine)

    @classmethod
    def wait(
        cls,
        engine: sqlalchemy.Engine,
        tables: Iterable[str],
        *,
        poll_seconds: float = 0.5,
        waiting: Callable[[TableOwned], None] | None = None,
    ) -> Ownership:
        """Claim the tables, waiting as long as another process holds any of them.

        ``waiting`` is told once, when the first try finds them held.  The claim is
        tried again every ``poll_seconds``: a standby takes over within about that
        time of its predecessor's end.
        """
        names = list(tables)
        told = False
        while True:
            try:
                return cls(engine, names)
            except TableOwned as owned:
                if not told and waiting is not None:
                    waiting(owned)
                told = True
                time.sleep(poll_seconds)

    @classmethod
    def shared(cls, engine: sqlalchemy.Engine) -> Ownership:
        """A claim on no table yet, for a process that shares the tables with others
        (:meth:`try_claim` takes them one by one).  PostgreSQL only.

        Raises:
            TableOwned: the database is not PostgreSQL (a SQLite file has one server).
        """
        if engine.dialect.name != "postgresql":
            raise TableOwned(
                "several servers share tables only on PostgreSQL; "
                f"this database is {engine.dialect.name}"
            )
        return cls(engine, [])

    def reconnect(self) -> None:
        """Drop the claims' connection (its claims are gone) and hold a new one."""
        self.release()
        self._claim_postgresql(self._engine, [])

    def try_claim(self, table: str) -> bool:
        """Claim ``table`` if no other process holds it; whether this process now does."""
        connection = self._connection
        if connection is None:
            return False
        with self._lock:
            held = connection.execute(
                sqlalchemy.text("SELECT pg_try_advisory_lock(:key)"), {"key": table_key(table)}
            ).scalar_one()
            connection.commit()
        return bool(held)

    def let_go(self, table: str) -> None:
        """Let ``table`` go (another process may claim it at once)."""
        connection = self._connection
        if connection is None:
            return
        with self._lock:
            connection.execute(
                sqlalchemy.text("SELECT pg_advisory_unlock(:key)"), {"key": table_key(table)}
            )
            connection.commit()

    def alive(self) -> bool:
        """Whether the claims still hold: the connection that holds them answers.

        A connection lost (the database restarted, the network cut) has lost its locks,
        and another process may be running the tables already.
        """
        connection = self._connection
        if connection is None:
            return False
        try:
            with self._lock:
                connection.execute(sqlalchemy.text("SELECT 1"))
                connection.commit()
        except sqlalchemy.exc.SQLAlchemyError:
            return False
        return True

    def _claim_postgresql(self, engine: sqlalchemy.Engine, tables: list[str]) -> None:
        connection = engine.connect()
        self._connection = connection
        for table in tables:
            held = connection.execute(
                sqlalchemy.text("SELECT pg_try_advisory_lock(:key)"), {"key": table_key(table)}
            ).scalar_one()
            if not held:
                self.release()
                raise TableOwned(
                    f"table {table!r} is run by another croupier process on this database"
                )
        connection.commit()  # session-level locks outlive the transaction

    def _claim_sqlite(self, engine: sqlalchemy.Engine) -> None:
        database = make_url(str(engine.url)).database or ""
        if not database or database == ":memory:" or database.startswith("file::memory:"):
            return
        path = f"{database}.lock"
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise TableOwned(
                f"the database {database} is served by another croupier process"
            ) from None
        self._file = descriptor

    def release(self) -> None:
        """Let the tables go (the process is stopping)."""
        if self._connection is not None:
            # Close the session itself (not back to the pool): its advisory locks go.
            self._connection.invalidate()
            self._connection.close()
            self._connection = None
        if self._file is not None:
            os.close(self._file)  # closing the descriptor drops its flock
            self._file = None
