"""Which process runs a table: a lease in the database, renewed while its owner lives,
and a fencing epoch that no process which lost the table can write past.

A table's open round lives in the memory of the process that runs it.  A second
process that ran the same table would void rounds alive elsewhere and write over the
first's records, so each table has one row in ``table_leases``:

* **Claim.**  A process claims a table by raising its ``epoch`` and writing itself in as
  the ``owner``, with an expiry ``LEASE_SECONDS`` ahead on the database's own clock.  It
  may do so only when nobody holds the table: no owner, a lease run out, or (on
  PostgreSQL) an owner whose liveness lock is gone and who missed its last renewals.
* **Renew.**  The owner renews its leases every :data:`RENEW_SECONDS` from a thread of
  its own (the event loop's load never delays it).  A process that stops renewing (hung,
  stopped, cut off from the database) loses its tables within ``LEASE_SECONDS``; a
  killed one within :data:`STALE_SECONDS`, because its liveness lock (a PostgreSQL
  advisory lock held by its lease connection) went with it.
* **Fence.**  Every write for a table (inputs, stakes, settlement, the round record)
  begins with :func:`fence` in its own transaction: the lease row is held for the
  transaction and its epoch compared with the writer's.  A claim waits for that
  transaction; a writer whose epoch has moved on gets :class:`TableLost` and writes
  nothing.  So whatever a process believes, once another has claimed its table it can
  never write for it again.
* **Step down.**  A renewal that finds a table gone, or a write refused by the fence,
  tells the process (:meth:`Ownership.start_renewing`'s callback), which stops serving
  the table at once.

On a SQLite file one server runs every table: an exclusive ``flock`` on
``<database>.lock`` beside it proves that no other process lives, and the leases (with
their epochs) are taken over at once.

The same code serves a single server, its ``--standby``, and every process of a cluster.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy
from sqlalchemy.engine import make_url

from croupier.server.driver import Prepared
from croupier.server.errors import ServerError, TableUnavailable
from croupier.server.schema import table_leases

__all__ = [
    "LEASE_SECONDS",
    "RENEW_SECONDS",
    "STALE_SECONDS",
    "Ownership",
    "TableLost",
    "TableOwned",
    "fence",
]

_log = logging.getLogger("croupier.server")

#: Seconds a lease lasts after its last renewal: a hung owner's tables go after this.
LEASE_SECONDS = 5.0
#: Seconds between two renewals of this process's leases.
RENEW_SECONDS = 1.0
#: Seconds without renewal after which a table whose owner's liveness lock is gone (the
#: process died, or its lease connection did) may be claimed before its lease runs out.
STALE_SECONDS = 2.0
#: The first key of the owners' liveness locks (``pg_advisory_lock(LIVENESS, key)``).
LIVENESS = 0x0C40_71E5


#: SQL: the owner of the ``table_leases`` row ``l`` holds its liveness lock (PostgreSQL).
_OWNER_ALIVE = (
    "EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted"
    " AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND k.classid = CAST(:liveness AS oid) AND k.objid = CAST(l.owner_key AS oid)"
    " AND k.objsubid = 2)"
)


class TableOwned(ServerError):
    """Another live process on the same database runs the table."""


class TableLost(TableUnavailable):
    """This process no longer holds the table's lease: another process runs it now."""


def _now_ms(dialect: str) -> str:
    """The database's clock in milliseconds since the epoch, as SQL."""
    if dialect == "postgresql":
        return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
    return "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"


# Every write at a table runs it first (SQLite's BEGIN IMMEDIATE already holds every
# writer off).  On PostgreSQL it takes the lease row's weakest lock, FOR KEY SHARE: a
# claim locks the row FOR UPDATE first, so it waits for every fenced transaction to end
# (and they for it), while the owner's own renewal (an UPDATE of no key) never waits for
# them, however busy the tables are.
_FENCE = Prepared(
    sqlalchemy.select(table_leases.c.epoch)
    .where(table_leases.c.table_id == sqlalchemy.bindparam("table"))
    .with_for_update(read=True, key_share=True)
)


def fence(conn: sqlalchemy.Connection, table: str, epoch: int) -> None:
    """Hold ``table``'s lease for this transaction; :class:`TableLost` if its epoch is
    no longer ``epoch`` (another process claimed the table since).

    Call it first in every transaction that writes for a table: a claim waits until the
    transaction ends, so nothing it writes can follow another process's claim.  (An
    input's row, the first write of most of a table's transactions, takes the same lock
    in its own statement: :func:`~croupier.server.rounds_store.append_input`.)
    """
    found = _FENCE.run(conn, {"table": table}).scalar()
    if found != epoch:
        raise TableLost(
            f"table {table!r} is run by another process now (epoch {found}, not {epoch})"
        )


class Ownership:
    """This process's leases on its tables (see the module's text).

    Args:
        engine: the database.
        lease_seconds: how long a lease lasts after its last renewal.
        renew_seconds: how often the leases are renewed.
        stale_seconds: see :data:`STALE_SECONDS`.

    Raises:
        TableOwned: on SQLite, another live process serves the database file.
    """

    def __init__(
        self,
        engine: sqlalchemy.Engine,
        *,
        lease_seconds: float = LEASE_SECONDS,
        renew_seconds: float = RENEW_SECONDS,
        stale_seconds: float = STALE_SECONDS,
    ) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self.lease_seconds = lease_seconds
        self.renew_seconds = renew_seconds
        self.stale_seconds = stale_seconds
        host = socket.gethostname()[:32]
        #: This process's name in the leases it holds (unique to this run).
        self.owner = f"{host}:{os.getpid()}:{secrets.token_hex(4)}"
        #: The tables held, each with the epoch of its claim.
        self.held: dict[str, int] = {}
        self._key = secrets.randbelow(2**31 - 2) + 1
        self._connection: sqlalchemy.Connection | None = None
        self._file: int | None = None
        # One thread at a time on the lease connection and ``held``.
        self._lock = threading.Lock()
        # When the last renewal that succeeded was sent (monotonic clock).
        self._renewed = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        now = _now_ms(self.dialect)
        self._claim_sql = sqlalchemy.text(self._claim_statement(now))
        self._renew_sql = sqlalchemy.text(
            f"UPDATE table_leases SET renewed_ms = {now}, expires_ms = {now} + :lease "
            "WHERE owner = :owner RETURNING table_id, epoch"
        )
        self._orphans_sql = sqlalchemy.text(
            f"SELECT table_id FROM table_leases WHERE expires_ms < {now} - :lease"
        )
        if self.dialect == "sqlite":
            self._lock_file()

    def _claim_statement(self, now: str) -> str:
        free = f"owner = '' OR expires_ms < {now}"
        if self.dialect == "postgresql":
            # An owner whose liveness lock is gone and who missed its renewals is dead
            # (or cut off, and fenced): its tables need not wait for the lease to end.
            free += f" OR (renewed_ms < {now} - :stale AND NOT {_OWNER_ALIVE})"
        else:
            free = "1 = 1"  # the file's lock proves no other server lives
        if self.dialect == "postgresql":
            # The row locked FOR UPDATE first: the claim waits for the transactions
            # fenced by the lease it replaces (FOR KEY SHARE, which an UPDATE of no key
            # would not wait for).
            return (
                "WITH locked AS (SELECT table_id FROM table_leases "
                "WHERE table_id = :table FOR UPDATE) "
                "UPDATE table_leases AS l SET epoch = epoch + 1, owner = :owner, "
                f"owner_key = :key, renewed_ms = {now}, expires_ms = {now} + :lease "
                f"WHERE table_id IN (SELECT table_id FROM locked) AND ({free}) RETURNING epoch"
            )
        return (
            "UPDATE table_leases SET epoch = epoch + 1, owner = :owner, owner_key = :key, "
            f"renewed_ms = {now}, expires_ms = {now} + :lease "
            f"WHERE table_id = :table AND ({free}) RETURNING epoch"
        )

    # -- the lease connection --------------------------------------------------------------------

    def _lock_file(self) -> None:
        database = make_url(str(self.engine.url)).database or ""
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

    def _connected(self) -> sqlalchemy.Connection:
        """The lease connection (made, with this process's liveness lock, if need be)."""
        if self._connection is not None:
            return self._connection
        connection = self.engine.connect()
        try:
            if self.dialect == "postgresql":
                while not connection.execute(
                    sqlalchemy.text("SELECT pg_try_advisory_lock(:liveness, :key)"),
                    {"liveness": LIVENESS, "key": self._key},
                ).scalar_one():
                    self._key = secrets.randbelow(2**31 - 2) + 1  # taken: another name
            connection.commit()
        except BaseException:
            self._discard(connection)
            raise
        self._connection = connection
        return connection

    @staticmethod
    def _discard(connection: sqlalchemy.Connection) -> None:
        """Close a lease connection for good (its session, and its locks, end)."""
        try:
            connection.invalidate()
            connection.close()
        except Exception:  # already broken: nothing more to let go of
            _log.debug("lease connection: closing it failed", exc_info=True)

    def _run(
        self, statement: sqlalchemy.TextClause, values: dict[str, object]
    ) -> list[sqlalchemy.Row[Any]]:
        """Run one statement in its own transaction on the lease connection; its rows.

        A failure drops the connection and raises; a connection found dead (the
        database restarted, the session was ended) is replaced and the statement sent
        once more on the new one.
        """
        fresh = self._connection is None
        connection = self._connected()
        try:
            result = connection.execute(statement, values)
            rows = list(result.all()) if result.returns_rows else []
            connection.commit()
        except sqlalchemy.exc.DBAPIError as error:
            self._connection = None
            self._discard(connection)
            if fresh or not error.connection_invalidated:
                raise
            return self._run(statement, values)
        except BaseException:
            self._connection = None
            self._discard(connection)
            raise
        return rows

    # -- claims ----------------------------------------------------------------------------------

    def claim(self, table: str) -> int | None:
        """Claim ``table`` if no live process holds it: the claim's epoch, or ``None``.

        Raises:
            sqlalchemy.exc.SQLAlchemyError: the database did not answer (try again).
        """
        if self.dialect == "sqlite" and self._file is None:
            self._lock_file()  # claimed again after a release
        with self._lock:
            insert = "INSERT INTO table_leases (table_id) VALUES (:table) ON CONFLICT DO NOTHING"
            self._run(sqlalchemy.text(insert), {"table": table})
            rows = self._run(
                self._claim_sql,
                {
                    "table": table,
                    "owner": self.owner,
                    "key": self._key,
                    "lease": int(self.lease_seconds * 1000),
                    "stale": int(self.stale_seconds * 1000),
                    "liveness": LIVENESS,
                },
            )
            if not rows:
                return None
            epoch = int(rows[0][0])
            if not self.held:  # the first lease held: it was renewed just now
                self._renewed = time.monotonic()
            self.held[table] = epoch
            return epoch

    def claim_all(self, tables: Iterable[str]) -> None:
        """Claim every one of ``tables``, or none.

        Raises:
            TableOwned: a live process holds one of them (the others are let go).
        """
        for table in tables:
            if table in self.held:
                continue
            # An owner that died a moment ago (a restart after a crash) has missed no
            # renewal yet: its tables are claimed as soon as it has, not refused.
            deadline = time.monotonic() + self.stale_seconds + self.renew_seconds
            while self.claim(table) is None:
                if self._owner_alive(table) or time.monotonic() > deadline:
                    self.release()
                    raise TableOwned(
                        f"table {table!r} is run by another croupier process on this database"
                    )
                time.sleep(0.1)

    def _owner_alive(self, table: str) -> bool:
        """Whether ``table``'s owner holds its liveness lock (PostgreSQL; else True)."""
        if self.dialect != "postgresql":
            return True
        with self._lock:
            rows = self._run(
                sqlalchemy.text(
                    f"SELECT 1 FROM table_leases l WHERE l.table_id = :table AND {_OWNER_ALIVE}"
                ),
                {"table": table, "liveness": LIVENESS},
            )
        return bool(rows)

    def wait_for_all(
        self,
        tables: Iterable[str],
        *,
        poll_seconds: float = 0.5,
        waiting: Callable[[TableOwned], None] | None = None,
    ) -> None:
        """Claim every one of ``tables``, waiting while live processes hold any.

        ``waiting`` is told once, when the first try finds one held.
        """
        names = list(tables)
        told = False
        while True:
            for table in names:
                if table not in self.held:
                    try:
                        self.claim(table)
                    except sqlalchemy.exc.SQLAlchemyError as error:
                        _log.warning("standby: the database did not answer: %s", error)
            missing = [table for table in names if table not in self.held]
            if not missing:
                return
            if not told and waiting is not None:
                waiting(TableOwned(f"table {missing[0]!r} is run by another croupier process"))
            told = True
            time.sleep(poll_seconds)

    @classmethod
    def standing_by(
        cls,
        engine: sqlalchemy.Engine,
        tables: Iterable[str],
        *,
        poll_seconds: float = 0.5,
        waiting: Callable[[TableOwned], None] | None = None,
    ) -> Ownership:
        """A standby's leases: every one of ``tables`` claimed, once nobody runs them
        (on SQLite, once the server holding the file has stopped).

        ``waiting`` is told once, when the first try finds them held.
        """
        told = False
        while True:
            try:
                ownership = cls(engine)
            except TableOwned as owned:
                if not told and waiting is not None:
                    waiting(owned)
                told = True
                time.sleep(poll_seconds)
                continue
            ownership.wait_for_all(
                tables, poll_seconds=poll_seconds, waiting=None if told else waiting
            )
            return ownership

    def let_go(self, table: str) -> None:
        """Let ``table`` go: another process may claim it at once."""
        with self._lock:
            epoch = self.held.pop(table, None)
            if epoch is None:
                return
            try:
                self._run(
                    sqlalchemy.text(
                        "UPDATE table_leases SET owner = '', expires_ms = 0 "
                        "WHERE table_id = :table AND owner = :owner AND epoch = :epoch"
                    ),
                    {"table": table, "owner": self.owner, "epoch": epoch},
                )
            except sqlalchemy.exc.SQLAlchemyError as error:  # it runs out by itself
                _log.warning("table %s: its lease was not given back: %s", table, error)

    def forget(self, table: str) -> None:
        """Stop renewing ``table`` (it was lost to another process)."""
        with self._lock:
            self.held.pop(table, None)

    # -- renewal ---------------------------------------------------------------------------------

    def renew(self) -> set[str]:
        """Renew every lease held; the tables lost since (no longer held: forgotten).

        When the database does not answer, the tables are lost once the leases may
        have run out (:attr:`lease_seconds` after the last renewal that succeeded).
        """
        with self._lock:
            if not self.held:
                self._renewed = time.monotonic()
                return set()
            sent = time.monotonic()
            try:
                rows = self._run(
                    self._renew_sql,
                    {"owner": self.owner, "lease": int(self.lease_seconds * 1000)},
                )
            except sqlalchemy.exc.SQLAlchemyError as error:
                if time.monotonic() - self._renewed < self.lease_seconds:
                    _log.warning("leases: renewal failed (%s); trying again", error)
                    return set()
                _log.error(
                    "leases: not renewed for %.1f s; every table is lost", self.lease_seconds
                )
                lost = set(self.held)
                self.held.clear()
                return lost
            renewed = {str(row.table_id): int(row.epoch) for row in rows}
            lost = {table for table, epoch in self.held.items() if renewed.get(table) != epoch}
            for table in lost:
                del self.held[table]
            # Healthy again only once the lost tables are forgotten: a process woken
            # after its leases ran out (SIGSTOP, then SIGCONT) never says, even for an
            # instant, that it runs a table another process has taken meanwhile.
            self._renewed = sent
            return lost

    @property
    def healthy(self) -> bool:
        """Whether the leases were renewed within their lifetime (or none are held)."""
        return time.monotonic() - self._renewed < self.lease_seconds

    def vacant(self) -> set[str]:
        """Tables no live process holds: no owner, a lease run out, or (PostgreSQL) an
        owner whose liveness lock is gone.  A command for one of them is answered
        ``unavailable`` at once: nobody would answer it before the table is claimed."""
        return self.survey()[0]

    def survey(self) -> tuple[set[str], dict[str, str]]:
        """The tables no live process holds (:meth:`vacant`), and the owner of each
        other table (its name, as :attr:`owner` is this process's) that renewed its
        lease at its last time to (an owner that missed a renewal may be hung: it is
        left out until it renews again or its table is taken over)."""
        if self.dialect != "postgresql":
            return set(), {}
        now = _now_ms(self.dialect)
        with self._lock:
            rows = self._run(
                sqlalchemy.text(
                    f"SELECT l.table_id, l.owner, l.owner = '' OR l.expires_ms < {now}"
                    f" OR NOT {_OWNER_ALIVE}, l.renewed_ms < {now} - :late FROM table_leases l"
                ),
                {"liveness": LIVENESS, "late": int(self.renew_seconds * 2_500)},
            )
        vacant: set[str] = set()
        owners: dict[str, str] = {}
        for table, owner, gone, late in (tuple(row) for row in rows):
            if gone:
                vacant.add(str(table))
            elif not late:
                owners[str(table)] = str(owner)
        return vacant, owners

    def orphans(self) -> list[str]:
        """Tables whose lease ran out a lease's time ago: no process runs them."""
        with self._lock:
            rows = self._run(self._orphans_sql, {"lease": int(self.lease_seconds * 1000)})
        return sorted(str(row[0]) for row in rows)

    def start_renewing(self, on_lost: Callable[[set[str]], None]) -> None:
        """Renew the leases every :attr:`renew_seconds` in a thread of their own;
        ``on_lost`` is told (from that thread) of the tables lost."""
        if self._thread is not None:
            return
        self._stop.clear()

        def renewing() -> None:
            while not self._stop.wait(self.renew_seconds):
                try:
                    lost = self.renew()
                except Exception:
                    _log.exception("leases: renewal failed")
                    continue
                if lost:
                    _log.error("leases: lost to another process: %s", ", ".join(sorted(lost)))
                    on_lost(lost)

        self._thread = threading.Thread(target=renewing, name="croupier-leases", daemon=True)
        self._thread.start()

    def stop_renewing(self) -> None:
        """Stop the renewals (the leases then run out unless let go)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def release(self) -> None:
        """Let every table go and end the lease connection (the process is stopping)."""
        self.stop_renewing()
        for table in list(self.held):
            self.let_go(table)
        with self._lock:
            if self._connection is not None:
                self._discard(self._connection)
                self._connection = None
        if self._file is not None:
            os.close(self._file)  # closing the descriptor drops its flock
            self._file = None
