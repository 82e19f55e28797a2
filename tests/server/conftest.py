"""Database fixtures of the server tests: every test runs on SQLite and on PostgreSQL.

``db_url`` is the URL of an empty, migrated database; ``engine`` an engine on it;
``fresh_db_url`` the URL of a database that was never migrated.  PostgreSQL comes from
``CROUPIER_TEST_POSTGRES_URL`` (default ``postgresql://postgres@localhost/test``): the
session creates its own database there and drops it at the end.  If the server cannot
be reached the PostgreSQL tests are skipped, unless ``CROUPIER_REQUIRE_POSTGRES=1``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy
from argon2 import PasswordHasher
from sqlalchemy.engine import make_url

from croupier.server import accounts, db
from croupier.server.schema import metadata

POSTGRES_URL = os.environ.get("CROUPIER_TEST_POSTGRES_URL", "postgresql://postgres@localhost/test")
#: Each backend; the PostgreSQL runs carry the ``postgres`` mark, to leave out with -m.
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


class _Postgres:
    """The PostgreSQL server of this test session and the databases made on it."""

    def __init__(self, url: str) -> None:
        self.url = make_url(db.normalize_url(url))
        self.admin = sqlalchemy.create_engine(self.url, isolation_level="AUTOCOMMIT")
        self.created: list[str] = []
        self.error: Exception | None = None
        try:
            with self.admin.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        except sqlalchemy.exc.OperationalError as error:
            self.error = error

    def require(self) -> None:
        """Skip (or fail, when PostgreSQL is required) if the server is unreachable."""
        if self.error is None:
            return
        reason = f"PostgreSQL at {self.url.render_as_string()} is unreachable: {self.error}"
        if os.environ.get("CROUPIER_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"CROUPIER_REQUIRE_POSTGRES=1 but {reason}", pytrace=False)
        pytest.skip(reason)

    def create(self) -> str:
        """A new empty database; its URL."""
        self.require()
        name = f"croupier_test_{secrets.token_hex(6)}"
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        self.created.append(name)
        return self.url.set(database=name).render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        """Drop a database made by :meth:`create`."""
        name = make_url(url).database
        assert name in self.created
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.created.remove(name)

    def close(self) -> None:
        """Drop what is left and let go of the server."""
        for name in list(self.created):
            with self.admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            self.created.remove(name)
        self.admin.dispose()


@pytest.fixture(autouse=True)
def light_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2id at its lightest: the tests check what is stored and compared, and the
    library's memory-hard defaults would cost a third of a second a login."""
    light = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    monkeypatch.setattr(accounts, "_hasher", light)


@pytest.fixture(autouse=True)
def figures_cached_for_the_test_session(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Servers started by the tests keep the figures they compute (the tables' RTPs) in
    one folder of the test session, never in the user's own cache."""
    monkeypatch.setenv("CROUPIER_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def postgres() -> Iterator[_Postgres]:
    """The PostgreSQL server of the session (possibly unreachable: see ``require``)."""
    server = _Postgres(POSTGRES_URL)
    yield server
    server.close()


@pytest.fixture(scope="session")
def postgres_engine(postgres: _Postgres) -> Iterator[sqlalchemy.Engine]:
    """An engine on this session's migrated PostgreSQL database."""
    engine = db.connect(postgres.create())
    db.migrate(engine)
    yield engine
    engine.dispose()


def clear(engine: sqlalchemy.Engine) -> None:
    """Empty every table (the schema stays)."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            names = ", ".join(table.name for table in metadata.sorted_tables)
            conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
        else:
            for table in reversed(metadata.sorted_tables):
                conn.execute(table.delete())


@pytest.fixture
def postgres_url(postgres: _Postgres) -> Iterator[str]:
    """A new, migrated PostgreSQL database of the test's own (dropped after it)."""
    url = postgres.create()
    engine = db.connect(url)
    db.migrate(engine)
    engine.dispose()
    yield url
    postgres.drop(url)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty, migrated database, on each backend in turn."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'croupier.db'}"
        engine = db.connect(url)
        db.migrate(engine)
        engine.dispose()
        return url
    request.getfixturevalue("postgres").require()
    shared: sqlalchemy.Engine = request.getfixturevalue("postgres_engine")
    clear(shared)
    return shared.url.render_as_string(hide_password=False)


@pytest.fixture
def engine(db_url: str) -> Iterator[sqlalchemy.Engine]:
    """An engine on the empty, migrated database of ``db_url``."""
    engine = db.connect(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def reset(engine: sqlalchemy.Engine) -> Callable[[], None]:
    """Empty the ``engine``'s tables again (for Hypothesis examples)."""
    return lambda: clear(engine)


@pytest.fixture(params=BACKENDS)
def fresh_db_url(
    request: pytest.FixtureRequest, tmp_path: Path, postgres: _Postgres
) -> Iterator[str]:
    """The URL of an empty database that was never migrated, on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    url = postgres.create()
    yield url
    postgres.drop(url)
