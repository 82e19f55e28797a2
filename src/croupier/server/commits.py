"""Group commit: the writes of every table of a process, committed together.

Every input at a table is written in a transaction, and acknowledged once it has
committed.  A transaction costs the same whatever it holds: a connection from the pool,
``BEGIN`` (on SQLite, the database's write lock), ``COMMIT`` (a write of the log, a
round trip to PostgreSQL).  Written one at a time, that is most of what an input costs.

A :class:`GroupCommit` has one thread that writes: SQLite has one write lock, so a
second writer would only wait for it; on PostgreSQL, two commits side by side could lock
two players' accounts in opposite orders and deadlock.  A table's worker hands it a
write (a function of a connection) and waits.  The thread takes every write waiting at
that moment, runs them in one transaction, each in a savepoint of its own, and commits
once; then each waiting worker has its write's result, or the error that refused it.
The busier the process, the more writes each commit carries; alone, a write is
committed as soon as it arrives (in a transaction of its own, without a savepoint).

What a write's caller is promised is what a transaction of its own gave it:

- it returns once the write has committed (an acknowledged input survives a crash);
- a write that raises is rolled back to its savepoint and its error raised to its
  caller, alone: the other writes of the commit go on;
- if the commit fails (the connection is lost, the database refuses to commit), every
  write in it raises that error: none of them happened, and each caller undoes what it
  did in memory, as it would for a transaction of its own.

Writes of one table come one at a time (its actor waits for each), so a table's writes
commit in order; writes of different tables touch different rows but a player's, which
they share in order within the one transaction.

>>> import sqlalchemy as sa
>>> engine = sa.create_engine("sqlite://")
>>> commits = GroupCommit(engine)
>>> commits.run(lambda conn: conn.exec_driver_sql("select 6 * 7").scalar())
42
>>> commits.close()
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import sqlalchemy as sa

from croupier.server.driver import savepoint
from croupier.server.threads import WRITE_THREADS, WarmPool

if TYPE_CHECKING:
    from croupier.server.loop_writes import LoopWrites
    from croupier.server.sqlite_writes import SqliteLoopWrites

__all__ = ["Committer", "GroupCommit", "OneByOne", "for_engine"]

_log = logging.getLogger("croupier.server")

T = TypeVar("T")

#: The most writes one commit carries.
MOST_WRITES = 64


class Committer(Protocol):
    """Runs a write (a function of a connection in a transaction) and commits it."""

    def run(self, write: Callable[[sa.Connection], T], *, inputs: int = 1) -> T: ...

    def submit(self, write: Callable[[sa.Connection], T], *, inputs: int = 1) -> Future[T]:
        """As :meth:`run`, without waiting: the future has its result once committed."""
        ...


class OneByOne:
    """Each write in a transaction of its own, in the caller's thread.

    What the server uses on PostgreSQL: there a savepoint is a round trip of its own,
    and the commits of many threads go on side by side, so writes waiting together gain
    nothing by one commit (a table's inputs run together are still one write).

    >>> import sqlalchemy as sa
    >>> OneByOne(sa.create_engine("sqlite://")).run(lambda conn: 1 + 1)
    2
    """

    def __init__(
        self, engine: sa.Engine, *, threads: int = WRITE_THREADS, on_loop: bool = False
    ) -> None:
        self.engine = engine
        self.threads = threads
        self._lock = threading.Lock()
        self._pool: WarmPool | None = None
        #: Commits made, and the writes and the inputs they carried.
        self.commits = 0
        self.writes = 0
        self.inputs = 0
        #: With ``on_loop``: an input whose write is its row alone is written from the
        #: event loop (:meth:`~croupier.server.runtime.TableRuntime.apply_on_loop`).
        self.on_loop: LoopWrites | None = None
        if on_loop:
            # Only where PostgreSQL's driver is installed (the server's extra for it).
            from croupier.server.loop_writes import LoopWrites

            self.on_loop = LoopWrites(engine, self._counted)

    def _counted(self) -> None:
        with self._lock:
            self.commits += 1
            self.writes += 1
            self.inputs += 1

    def run(self, write: Callable[[sa.Connection], T], *, inputs: int = 1) -> T:
        with self.engine.begin() as conn:
            result = write(conn)
        with self._lock:
            self.commits += 1
            self.writes += 1
            self.inputs += inputs
        return result

    def submit(self, write: Callable[[sa.Connection], T], *, inputs: int = 1) -> Future[T]:
        """:meth:`run` in a thread of the process's pool; its future."""
        with self._lock:
            if self._pool is None:
                self._pool = WarmPool(most=self.threads, name="croupier-writes")
            pool = self._pool
        return pool.submit(self.run, write, inputs=inputs)

    def close(self) -> None:
        """Let the writes in hand finish (a later :meth:`submit` starts a pool again)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown()


def for_engine(engine: sa.Engine, *, threads: int = WRITE_THREADS) -> GroupCommit | OneByOne:
    """How the server commits its tables' writes on ``engine``'s database: together on
    SQLite, whose ``BEGIN IMMEDIATE`` and ``COMMIT`` cost more than the rest of a write
    and whose savepoints cost nothing; one by one on PostgreSQL, in at most ``threads``
    threads at once (see :class:`OneByOne`).

    >>> import sqlalchemy as sa
    >>> type(for_engine(sa.create_engine("sqlite://"))).__name__
    'GroupCommit'
    """
    if engine.dialect.name == "sqlite":
        # A file: its lone rows may be written from the loop (not an in-memory database,
        # which is each connection's own).
        database = engine.url.database or ""
        in_file = database not in ("", ":memory:") and not database.startswith("file::memory:")
        return GroupCommit(engine, on_loop=in_file)
    return OneByOne(engine, threads=threads, on_loop=engine.dialect.driver == "psycopg")


class _Write:
    __slots__ = ("future", "inputs", "write")

    def __init__(self, write: Callable[[sa.Connection], Any], inputs: int) -> None:
        self.write = write
        self.inputs = inputs
        self.future: Future[Any] = Future()


class GroupCommit:
    """Writes from many threads, committed together by one (see the module's text).

    Args:
        engine: the database.
        most: the most writes one commit carries.
        threads: the threads that commit, each taking what waits when it is free.
    """

    def __init__(
        self,
        engine: sa.Engine,
        *,
        most: int = MOST_WRITES,
        threads: int = 1,
        on_loop: bool = False,
    ) -> None:
        self.engine = engine
        self.most = most
        self.threads = threads
        self._waiting: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._running: list[threading.Thread] = []
        self._lock = threading.Lock()
        #: Commits made, and the writes and the inputs they carried (for the metrics and
        #: the tests).
        self.commits = 0
        self.writes = 0
        self.inputs = 0
        #: Writes submitted and not yet answered.
        self._in_hand = 0
        #: With ``on_loop`` (a SQLite file): an input whose write is its row alone is
        #: written from the event loop while nothing is in hand here
        #: (:meth:`~croupier.server.runtime.TableRuntime.apply_on_loop`).
        self.on_loop: SqliteLoopWrites | None = None
        if on_loop:
            from croupier.server.sqlite_writes import SqliteLoopWrites

            self.on_loop = SqliteLoopWrites(engine, self._counted, busy=self.busy)

    def busy(self) -> bool:
        """Whether writes are in hand (queued or being committed)."""
        return self._in_hand > 0

    def _counted(self) -> None:
        with self._lock:
            self.commits += 1
            self.writes += 1
            self.inputs += 1

    def run(self, write: Callable[[sa.Connection], T], *, inputs: int = 1) -> T:
        """Run ``write`` in the next commit; its result once that has committed.

        ``inputs``: the tables' inputs the write carries (a table's inputs run together
        are one write), for the count of inputs a commit carries.

        Raises:
            what ``write`` raised (its savepoint rolled back), or what the commit
            raised (nothing of the commit happened).
        """
        if threading.current_thread() in self._running:
            raise RuntimeError("a write cannot wait for the commit that runs it")
        result: T = self.submit(write, inputs=inputs).result()
        return result

    def submit(self, write: Callable[[sa.Connection], T], *, inputs: int = 1) -> Future[T]:
        """Queue ``write`` for the next commit without waiting: its future has the
        write's result once that has committed (or what :meth:`run` would raise).

        A table's inputs are run this way on the committing thread itself, so that they
        cost no hand-over to a worker thread and back on their way to the commit.

        >>> import sqlalchemy as sa
        >>> commits = GroupCommit(sa.create_engine("sqlite://"))
        >>> commits.submit(lambda conn: conn.exec_driver_sql("select 1 + 1").scalar()).result()
        2
        >>> commits.close()
        """
        item = _Write(write, inputs)
        with self._lock:
            if not self._running:
                self._running = [
                    threading.Thread(target=self._loop, name=f"croupier-commits-{n}", daemon=True)
                    for n in range(self.threads)
                ]
                for thread in self._running:
                    thread.start()
            self._waiting.put(item)
            self._in_hand += 1
        return item.future

    def close(self) -> None:
        """Commit what waits, then stop the threads (a later :meth:`run` starts others)."""
        with self._lock:
            running, self._running = self._running, []
            for _ in running:
                self._waiting.put(None)
        for thread in running:
            thread.join()

    def _loop(self) -> None:
        while True:
            first = self._waiting.get()
            if first is None:
                return
            batch = [first]
            stop = False
            while len(batch) < self.most:
                try:
                    more = self._waiting.get_nowait()
                except queue.Empty:
                    break
                if more is None:  # the end of a thread: this one's
                    stop = True
                    break
                batch.append(more)
            self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[_Write]) -> None:
        done: list[tuple[_Write, Any, BaseException | None]] = []
        try:
            with self.engine.begin() as conn:
                if len(batch) == 1:
                    # Alone: the transaction is its own; no savepoint to pay for.
                    done.append((batch[0], batch[0].write(conn), None))
                else:
                    for item in batch:
                        done.append(self._one(conn, item))
        except BaseException as failed:  # the commit failed: none of it happened
            with self._lock:
                self._in_hand -= len(batch)
            for item in batch:
                item.future.set_exception(failed)
            if not isinstance(failed, Exception):
                raise
            return
        with self._lock:
            self.commits += 1
            self.writes += len(batch)
            self.inputs += sum(item.inputs for item in batch)
            self._in_hand -= len(batch)
        for item, result, error in done:
            if error is None:
                item.future.set_result(result)
            else:
                item.future.set_exception(error)

    @staticmethod
    def _one(conn: sa.Connection, item: _Write) -> tuple[_Write, Any, BaseException | None]:
        """One write in its savepoint: rolled back alone where it raises, unless the
        transaction itself is gone (then the whole commit fails)."""
        try:
            with savepoint(conn):
                return item, item.write(conn), None
        except Exception as error:
            if conn.invalidated or not conn.in_transaction():
                raise
            return item, None, error
