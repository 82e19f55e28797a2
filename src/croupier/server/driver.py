"""Statements of the hot path, compiled once and run on the database driver's cursor.

Every command at a table writes a few rows: its input, and for a bet the stake's
transaction and legs.  Through SQLAlchemy's ``Connection.execute`` each statement costs
the server 50-100 µs of CPU (its execution context, cache key, parameter and result
processing) where the driver itself needs a few: at hundreds of commands a second that
was the largest part of the server's work.  A :class:`Prepared` statement is written
with SQLAlchemy's expressions as before (checked against the schema, one text for each
database), compiled once per database, then executed on the driver's cursor of the
connection's own transaction: same SQL, same transaction, same savepoints.

What it keeps from SQLAlchemy: each parameter goes through its type's bind processor
(a ``DateTime`` becomes SQLite's text), a driver's error comes back as SQLAlchemy's
typed error (:class:`sqlalchemy.exc.DBAPIError` and its kinds), a connection the
error shows dead is invalidated, so the pool replaces it, and each result column goes
through its type's result processor (SQLite's text becomes a ``DateTime``).  What it
does not: no ``IN`` list is expanded (build one statement per count of values, as
:func:`croupier.server.db.any_of` does), and rows are plain named tuples.

>>> import sqlalchemy
>>> from croupier.server.schema import accounts
>>> engine = sqlalchemy.create_engine("sqlite://")
>>> accounts.create(engine)
>>> add = Prepared(accounts.insert())
>>> named = Prepared(sqlalchemy.select(accounts.c.id, accounts.c.owner)
...                  .where(accounts.c.kind == sqlalchemy.bindparam("kind")))
>>> with engine.begin() as conn:
...     add.run(conn, {"kind": "player", "owner": "7", "balance": 0}).rowcount
...     named.run(conn, {"kind": "player"}).all()
1
[Row(id=1, owner='7')]
>>> with engine.begin() as conn:
...     add.run(conn, {"kind": "player", "owner": "7", "balance": 0})
Traceback (most recent call last):
...
sqlalchemy.exc.IntegrityError: (sqlite3.IntegrityError) UNIQUE constraint failed: ...
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement

__all__ = ["Prepared", "Ran", "Sent", "alone", "pipeline", "savepoint", "trace"]

_TRACE = "croupier.trace"


def trace(conn: sqlalchemy.Connection) -> list[str]:
    """Every statement ``conn`` runs from now on, as a list that grows: those run by
    :class:`Prepared` and those run through SQLAlchemy (what a test counts).

    >>> engine = sqlalchemy.create_engine("sqlite://")
    >>> with engine.connect() as conn:
    ...     seen = trace(conn)
    ...     _ = conn.exec_driver_sql("SELECT 1")
    ...     _ = Prepared(sqlalchemy.select(sqlalchemy.literal(2))).run(conn)
    >>> [statement.split()[0] for statement in seen]
    ['SELECT', 'SELECT']
    """
    statements: list[str] = conn.info.setdefault(_TRACE, [])
    sqlalchemy.event.listen(conn, "before_cursor_execute", lambda *args: statements.append(args[2]))
    return statements


@dataclass(frozen=True)
class _Compiled:
    sql: str
    #: The parameters' names in order (positional drivers), else ``None`` (named).
    order: tuple[str, ...] | None
    #: The values the statement carries itself (``column == 3`` binds 3).
    defaults: Mapping[str, Any]
    #: Each parameter's bind processor, where its type has one.
    processors: Mapping[str, Callable[[Any], Any]]
    #: The named tuple of a result row, when the statement returns rows.
    row: type[tuple[Any, ...]] | None
    #: Each result column's processor (``None`` where the driver's value is kept).
    results: tuple[Callable[[Any], Any] | None, ...]


class Ran:
    """What a :class:`Prepared` statement did: its rows (read at once) and row count."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        #: Rows the statement wrote (the driver's count; -1 where it keeps none).
        self.rowcount = rowcount

    def all(self) -> list[Any]:
        """Every row, as named tuples."""
        return self._rows

    def scalar(self) -> Any:
        """The first column of the first row, ``None`` when there is no row."""
        return self._rows[0][0] if self._rows else None


class Prepared:
    """A statement compiled once for each database, run on the driver's cursor.

    Args:
        statement: the SQLAlchemy statement; its parameters are ``bindparam`` names
            (or the columns' names for an ``INSERT`` or ``UPDATE`` without values).
    """

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: dict[tuple[str, tuple[str, ...]], _Compiled] = {}

    def _compile(self, dialect: Dialect, values: Mapping[str, Any]) -> _Compiled:
        # Per database and per set of names given (an INSERT writes the columns given).
        key = (dialect.name, tuple(values))
        compiled = self._compiled.get(key)
        if compiled is not None:
            return compiled
        # The names given are the columns an INSERT or UPDATE writes; elsewhere they are
        # only parameters (a SELECT whose CTEs write would otherwise SET each column named).
        writes = isinstance(self.statement, sqlalchemy.Insert | sqlalchemy.Update)
        built = self.statement.compile(
            dialect=dialect, column_keys=list(values) if writes else None
        )
        assert isinstance(built, SQLCompiler)
        processors = {}
        defaults = {
            name: parameter.effective_value
            for name, parameter in built.binds.items()
            if not parameter.required
        }
        for name, parameter in built.binds.items():
            processor = parameter.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                processors[name] = processor
        columns = getattr(self.statement, "selected_columns", None)
        if columns is None:
            returning = getattr(self.statement, "_returning", ())
            columns = returning or None
        row: type[tuple[Any, ...]] | None = None
        results: tuple[Callable[[Any], Any] | None, ...] = ()
        if columns:
            results = tuple(
                column.type.dialect_impl(dialect).result_processor(dialect, None)
                for column in columns
            )
            if not any(results):
                results = ()
            names = [column.key for column in columns]
            row = collections.namedtuple("Row", names, rename=True)  # type: ignore[misc, no-redef]
        order = tuple(built.positiontup) if built.positional and built.positiontup else None
        compiled = _Compiled(str(built), order, defaults, processors, row, results)
        self._compiled[key] = compiled
        return compiled

    def _parameters(
        self, compiled: _Compiled, values: Mapping[str, Any]
    ) -> Sequence[Any] | Mapping[str, Any]:
        if compiled.defaults:
            values = {**compiled.defaults, **values}
        if compiled.processors:
            values = {
                name: compiled.processors[name](value) if name in compiled.processors else value
                for name, value in values.items()
            }
        if compiled.order is None:
            return values
        return tuple(values[name] for name in compiled.order)

    def for_driver(
        self, dialect: Dialect, values: Mapping[str, Any]
    ) -> tuple[str, Sequence[Any] | Mapping[str, Any]]:
        """The statement's text for ``dialect``'s driver and its parameters from
        ``values``: what :meth:`run` hands the driver's cursor (for a connection of the
        driver's own, as :class:`~croupier.server.loop_writes.LoopWrites` keeps).

        >>> from sqlalchemy.dialects import sqlite
        >>> select_two = Prepared(sqlalchemy.select(sqlalchemy.bindparam("n") * 2))
        >>> select_two.for_driver(sqlite.dialect(), {"n": 21})
        ('SELECT ? * ? AS anon_1', (21, 2))
        """
        compiled = self._compile(dialect, values)
        return compiled.sql, self._parameters(compiled, values)

    def run(self, conn: sqlalchemy.Connection, values: Mapping[str, Any] | None = None) -> Ran:
        """Execute with ``values`` in ``conn``'s transaction; its rows and row count.

        Raises:
            sqlalchemy.exc.DBAPIError: the driver's error, typed as SQLAlchemy types it
                (the connection is invalidated when the error says it is dead).
        """
        values = values or {}
        compiled = self._compile(conn.dialect, values)
        parameters = self._parameters(compiled, values)
        return self._execute(conn, compiled, [parameters], many=False)

    def run_many(self, conn: sqlalchemy.Connection, rows: Sequence[Mapping[str, Any]]) -> int:
        """Execute once for each of ``rows`` (an ``INSERT`` of several rows); rows written."""
        if not rows:
            return 0
        compiled = self._compile(conn.dialect, rows[0])
        parameters = [self._parameters(compiled, values) for values in rows]
        return self._execute(conn, compiled, parameters, many=True).rowcount

    def send(self, conn: sqlalchemy.Connection, values: Mapping[str, Any] | None = None) -> Sent:
        """Send with ``values`` in ``conn``'s transaction; what it did is read later, from
        the :class:`Sent`.  Inside a :func:`pipeline` the statement goes to the database
        with the others sent in it, and its result is read after the block; elsewhere it
        runs at once, as :meth:`run` does.

        Raises:
            sqlalchemy.exc.DBAPIError: as :meth:`run` (inside a pipeline, at its end).
        """
        values = values or {}
        compiled = self._compile(conn.dialect, values)
        parameters = self._parameters(compiled, values)
        if conn.info.get(_PIPELINE) != _SENT_TOGETHER:
            return Sent(ran=self._execute(conn, compiled, [parameters], many=False, sent=True))
        cursor = self._cursor(conn)
        _traced(conn.info, compiled.sql)
        with _typed(conn, compiled.sql, parameters, cursor):
            cursor.execute(compiled.sql, parameters)

        def read() -> Ran:
            if conn.info.get(_PIPELINE):
                raise RuntimeError("a sent statement read inside its pipeline")
            try:
                return self._read(conn, compiled, cursor, parameters)
            finally:
                cursor.close()

        return Sent(read=read)

    @staticmethod
    def _cursor(conn: sqlalchemy.Connection) -> Any:
        dbapi_connection = conn.connection.dbapi_connection
        if dbapi_connection is None:  # pragma: no cover - an invalidated connection
            raise sqlalchemy.exc.ResourceClosedError("the connection was invalidated")
        return dbapi_connection.cursor()

    def _execute(
        self,
        conn: sqlalchemy.Connection,
        compiled: _Compiled,
        parameters: list[Any],
        *,
        many: bool,
        sent: bool = False,
    ) -> Ran:
        """Run the statement now (``sent``: as :meth:`send` runs it where the driver
        has no pipeline; a statement run inside a pipeline is refused)."""
        info = conn.info
        if not sent and info.get(_PIPELINE):
            raise RuntimeError("a statement run inside a pipeline: send it, or run it after")
        cursor = self._cursor(conn)
        _traced(info, compiled.sql)
        try:
            with _typed(conn, compiled.sql, parameters if many else parameters[0], cursor):
                if many:
                    cursor.executemany(compiled.sql, parameters)
                else:
                    cursor.execute(compiled.sql, parameters[0])
            return self._read(conn, compiled, cursor, parameters[0])
        finally:
            cursor.close()

    @staticmethod
    def _read(
        conn: sqlalchemy.Connection, compiled: _Compiled, cursor: Any, parameters: Any
    ) -> Ran:
        """What the statement on ``cursor`` did: its rows (each column through its type's
        result processor) and its row count."""
        with _typed(conn, compiled.sql, parameters, cursor):
            rows: list[Any] = []
            if compiled.row is not None and cursor.description is not None:
                make, results = compiled.row, compiled.results
                if results:
                    rows = [
                        make(
                            *(
                                value if f is None else f(value)
                                for f, value in zip(results, row, strict=True)
                            )
                        )
                        for row in cursor.fetchall()
                    ]
                else:
                    rows = [make(*row) for row in cursor.fetchall()]
            return Ran(rows, cursor.rowcount)


class Sent:
    """A statement sent by :meth:`Prepared.send`: what it did, read once it is there.

    >>> Sent(ran=Ran([], 1)).ran().rowcount
    1
    """

    __slots__ = ("_ran", "_read")

    def __init__(self, *, ran: Ran | None = None, read: Callable[[], Ran] | None = None) -> None:
        self._ran = ran
        self._read = read

    def ran(self) -> Ran:
        """Its rows and row count (inside its pipeline: a :class:`RuntimeError`, for the
        database has not answered yet)."""
        if self._ran is None:
            assert self._read is not None
            self._ran = self._read()
        return self._ran


def _traced(info: dict[Any, Any], sql: str) -> None:
    """Add ``sql`` to the statements :func:`trace` keeps in a connection's ``info``."""
    traced = info.get(_TRACE)
    if traced is not None:
        traced.append(sql)


@contextlib.contextmanager
def _typed(
    conn: sqlalchemy.Connection, sql: str, parameters: Any, cursor: Any = None
) -> Iterator[None]:
    """The driver's errors in the block raised as SQLAlchemy types them; a connection
    the error shows dead is invalidated, so that the pool replaces it."""
    dialect = conn.dialect
    try:
        yield
    except dialect.loaded_dbapi.Error as error:
        dbapi_connection = conn.connection.dbapi_connection
        dead = dialect.is_disconnect(error, dbapi_connection, cursor)
        typed = sqlalchemy.exc.DBAPIError.instance(
            sql,
            parameters,
            error,
            dialect.loaded_dbapi.Error,
            connection_invalidated=dead,
            dialect=dialect,
        )
        if dead:
            conn.invalidate(error)
        raise typed from error


#: Where a connection keeps whether a :func:`pipeline` is open on it, and how: its
#: statements sent together (psycopg), or each run as it is sent (another driver).
_PIPELINE = "croupier.pipeline"
_SENT_TOGETHER = "together"
_RUN_AS_SENT = "as sent"


@contextlib.contextmanager
def pipeline(conn: sqlalchemy.Connection) -> Iterator[None]:
    """The statements :meth:`Prepared.send` sends in the block go to the database
    together: with psycopg, in its pipeline mode, one round trip at the block's end for
    all of them (and for the ``BEGIN`` before them), where each was a round trip of its
    own.  The database runs them one after the other, in order, as before.  Each one's
    result is read after the block (:meth:`Sent.ran`); nothing else may run a statement
    inside it.  Elsewhere (SQLite) each statement runs as it is sent.

    An error of any of them is raised at the block's end, typed as :meth:`Prepared.run`
    types it; the transaction has then failed, as it would have at that statement.

    >>> from croupier.server.schema import accounts
    >>> engine = sqlalchemy.create_engine("sqlite://")
    >>> accounts.create(engine)
    >>> add = Prepared(accounts.insert())
    >>> count = Prepared(sqlalchemy.select(sqlalchemy.func.count()).select_from(accounts))
    >>> with engine.begin() as conn:
    ...     with pipeline(conn):
    ...         added = add.send(conn, {"kind": "player", "owner": "7", "balance": 0})
    ...         counted = count.send(conn)
    ...     added.ran().rowcount, counted.ran().scalar()
    (1, 1)
    """
    info = conn.info  # kept: a connection the block finds dead cannot be asked again
    if info.get(_PIPELINE):
        raise RuntimeError("a pipeline inside a pipeline: its results could not be read")
    enter = getattr(conn.connection.dbapi_connection, "pipeline", None)
    try:
        if enter is None:
            info[_PIPELINE] = _RUN_AS_SENT
            yield
            return
        with _typed(conn, "(a pipeline's statements)", None), enter():
            info[_PIPELINE] = _SENT_TOGETHER
            yield
    finally:
        info[_PIPELINE] = None


#: Savepoint statements by nesting depth (a name may be used again once released).
_SAVEPOINTS: dict[int, tuple[Prepared, Prepared, Prepared]] = {}
#: Where a connection keeps how deep its savepoints of :func:`savepoint` are.
_DEPTH = "croupier.savepoint-depth"


def _savepoint_statements(depth: int) -> tuple[Prepared, Prepared, Prepared]:
    if depth not in _SAVEPOINTS:
        name = f"croupier_{depth}"
        _SAVEPOINTS[depth] = (
            Prepared(sqlalchemy.text(f"SAVEPOINT {name}")),
            Prepared(sqlalchemy.text(f"RELEASE SAVEPOINT {name}")),
            Prepared(sqlalchemy.text(f"ROLLBACK TO SAVEPOINT {name}")),
        )
    return _SAVEPOINTS[depth]


@contextlib.contextmanager
def savepoint(conn: sqlalchemy.Connection) -> Iterator[None]:
    """A savepoint of ``conn``'s transaction, on the driver's cursor: what the block
    writes is rolled back if it raises, and the rest of the transaction goes on.

    What ``conn.begin_nested()`` does, for a few µs of CPU instead of about fifty: the
    same statements, and the connection's savepoint events (what listens to them, as
    the ledger's money log does, sees each savepoint begin, end or roll back).

    >>> from croupier.server.schema import accounts
    >>> engine = sqlalchemy.create_engine("sqlite://")
    >>> accounts.create(engine)
    >>> add = Prepared(accounts.insert())
    >>> with engine.begin() as conn:
    ...     with savepoint(conn):
    ...         _ = add.run(conn, {"kind": "player", "owner": "7", "balance": 0})
    ...     try:
    ...         with savepoint(conn):
    ...             _ = add.run(conn, {"kind": "player", "owner": "8", "balance": 0})
    ...             raise ValueError("refused")
    ...     except ValueError:
    ...         pass
    >>> with engine.connect() as conn:
    ...     conn.execute(sqlalchemy.select(accounts.c.owner)).scalars().all()
    ['7']
    """
    depth = conn.info.get(_DEPTH, 0) + 1
    begin, release, rollback = _savepoint_statements(depth)
    name = f"croupier_{depth}"
    begin.run(conn)
    conn.info[_DEPTH] = depth
    conn.dispatch.savepoint(conn, name)
    try:
        yield
    except BaseException:
        if not conn.invalidated:
            rollback.run(conn)
            conn.dispatch.rollback_savepoint(conn, name, None)
            release.run(conn)
        raise
    else:
        release.run(conn)
        conn.dispatch.release_savepoint(conn, name, None)
    finally:
        conn.info[_DEPTH] = depth - 1


@contextlib.contextmanager
def alone(conn: sqlalchemy.Connection) -> Iterator[None]:
    """The block is the whole of ``conn``'s transaction and runs one statement: where
    the driver has not begun the transaction yet (psycopg begins it at the first
    statement), that statement is its own transaction, with no ``BEGIN`` and no
    ``COMMIT`` around it (two round trips fewer to PostgreSQL: a table's decision that
    moves no money).  Once the transaction has begun, or on another driver, the block
    runs in the transaction as it is.  The caller answers for the one statement: a
    second would commit apart from the first.

    >>> from croupier.server.schema import accounts
    >>> engine = sqlalchemy.create_engine("sqlite://")
    >>> accounts.create(engine)
    >>> add = Prepared(accounts.insert())
    >>> with engine.begin() as conn, alone(conn):  # SQLite: in the transaction
    ...     add.run(conn, {"kind": "player", "owner": "7", "balance": 0}).rowcount
    1
    """
    dbapi_connection = conn.connection.dbapi_connection
    begun = _begun_by_driver(dbapi_connection)
    if begun is None or begun:
        yield
        return
    dbapi_connection.autocommit = True  # type: ignore[union-attr]
    try:
        yield
    finally:
        try:
            dbapi_connection.autocommit = False  # type: ignore[union-attr]
        except Exception:
            # The connection broke under the statement (its error is on its way up):
            # it cannot be put back as it was, so it never goes back to the pool.
            if not conn.invalidated:
                conn.invalidate()


def _begun_by_driver(dbapi_connection: Any) -> bool | None:
    """Whether psycopg's connection has begun a transaction (``None``: not psycopg's,
    or one in autocommit already)."""
    info = getattr(dbapi_connection, "info", None)
    status = getattr(info, "transaction_status", None)
    if status is None or getattr(dbapi_connection, "autocommit", True):
        return None
    from psycopg.pq import TransactionStatus  # the postgres extra's: only reached with it

    return bool(status != TransactionStatus.IDLE)
