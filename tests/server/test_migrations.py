"""Migrations build exactly the schema of ``croupier.server.schema``; engines behave."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from croupier.server import db, rounds_store
from croupier.server.schema import metadata


def reflected(engine: sqlalchemy.Engine) -> dict[str, set[str]]:
    """Table name -> column names, as the database reports them."""
    inspector = sqlalchemy.inspect(engine)
    return {
        table: {column["name"] for column in inspector.get_columns(table)}
        for table in inspector.get_table_names()
        if table != "alembic_version"
    }


def test_migrating_builds_the_schema_and_is_idempotent(fresh_db_url: str) -> None:
    engine = db.connect(fresh_db_url)
    try:
        assert db.current_revision(engine) is None
        assert reflected(engine) == {}
        db.migrate(engine)
        db.migrate(engine)
        assert db.current_revision(engine) == db.head_revision() == "0007"
        expected = {
            name: {c.name for c in table.columns} for name, table in metadata.tables.items()
        }
        assert reflected(engine) == expected
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(context, metadata) == []
    finally:
        engine.dispose()


def test_downgrade_removes_everything_and_upgrade_rebuilds(fresh_db_url: str) -> None:
    engine = db.connect(fresh_db_url)
    try:
        db.migrate(engine)
        with engine.begin() as conn:
            command.downgrade(db.alembic_config(conn), "base")
        assert db.current_revision(engine) is None
        assert reflected(engine) == {}
        db.migrate(engine)
        assert set(reflected(engine)) == set(metadata.tables)
    finally:
        engine.dispose()


def test_migrations_need_a_connection() -> None:
    with pytest.raises(RuntimeError, match=r"through croupier\.server\.db\.migrate"):
        command.upgrade(db.alembic_config(), "head")


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        (None, "sqlite:///croupier.db"),
        ("sqlite:///x.db", "sqlite:///x.db"),
        ("sqlite://", "sqlite://"),
        ("postgresql://u:p@h:5432/d", "postgresql+psycopg://u:p@h:5432/d"),
        ("postgres://h/d", "postgresql+psycopg://h/d"),
        ("postgresql+psycopg2://h/d", "postgresql+psycopg://h/d"),
    ],
)
def test_normalize_url(url: str | None, normalized: str) -> None:
    assert db.normalize_url(url) == normalized


@pytest.mark.parametrize("url", ["mysql://h/d", "oracle+cx://h/d", "croupier.db"])
def test_other_databases_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="scheme"):
        db.normalize_url(url)


def test_sqlite_connections_are_configured(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    engine = db.connect(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            pragma = conn.exec_driver_sql
            assert pragma("PRAGMA foreign_keys").scalar_one() == 1
            assert pragma("PRAGMA journal_mode").scalar_one() == "wal"
            assert pragma("PRAGMA busy_timeout").scalar_one() == 5000
        # A transaction holds the write lock from its start (BEGIN IMMEDIATE), so
        # another writer cannot even begin until it ends.
        other = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            with engine.begin() as conn:
                conn.exec_driver_sql("SELECT 1")
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
        finally:
            other.close()
    finally:
        engine.dispose()


def test_sqlite_enforces_foreign_keys(tmp_path: Path) -> None:
    engine = db.connect(f"sqlite:///{tmp_path / 'fk.db'}")
    try:
        db.migrate(engine)
        with pytest.raises(sqlalchemy.exc.IntegrityError), engine.begin() as conn:
            conn.exec_driver_sql(
                "INSERT INTO legs (transaction_id, account_id, amount) VALUES (1, 1, 5)"
            )
    finally:
        engine.dispose()


def test_upgrading_moves_the_inputs_kept_in_each_record_into_rows(fresh_db_url: str) -> None:
    """Revision 0002: a round written by 0001 (its inputs inside its record) loads the same
    after the upgrade, its inputs one row each; a downgrade puts them back.  The runtime
    of 0001 kept its ``stored`` mark in the record: read, and left out."""
    at = "2026-11-23T01:00:00+00:00"
    record = {
        "round_id": "r1",
        "table": "t",
        "number": 4,
        "rules": "rws-v5",
        "rules_version": 1,
        "dealt": "dealer",
        "shoe": None,
        "opened_at": at,
        "inputs": [
            {
                "op": "bet",
                "player": "ann",
                "args": {"box": 1, "amount": "10"},
                "at": at,
                "key": None,
            },
            {"op": "stand", "player": "ann", "args": {"box": 1}, "at": at, "key": "k2"},
        ],
        "stored": True,
    }
    engine = db.connect(fresh_db_url)
    try:
        with engine.begin() as conn:
            command.upgrade(db.alembic_config(conn), "0001")
            conn.execute(
                sqlalchemy.text(
                    "INSERT INTO rounds (id, table_id, number, rules_name, rules_version,"
                    " status, record, created_at, updated_at) VALUES ('r1', 't', 4, 'rws-v5',"
                    " '1', 'open', :record, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"record": json.dumps(record)},
            )
        db.migrate(engine)
        with engine.connect() as conn:
            loaded = rounds_store.load_round(conn, "r1").record
            assert loaded.to_json() == {k: v for k, v in record.items() if k != "stored"}
            stored = conn.execute(sqlalchemy.text("SELECT record FROM rounds")).scalar_one()
            assert "inputs" not in json.loads(stored)
            rows = conn.execute(sqlalchemy.text("SELECT COUNT(*) FROM round_inputs"))
            assert rows.scalar_one() == 2
        with engine.begin() as conn:
            command.downgrade(db.alembic_config(conn), "0001")
        with engine.connect() as conn:
            stored = conn.execute(sqlalchemy.text("SELECT record FROM rounds")).scalar_one()
            assert json.loads(stored) == record
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_rested_postgres_connection_is_checked_and_a_dead_one_replaced_unseen(
    postgres: Any, postgres_engine: sqlalchemy.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pooled PostgreSQL connection used a moment ago goes straight to work (no extra
    round trip per command); one that rested is checked first, and one the server closed
    meanwhile (a restart, an idle timeout) is replaced before anyone uses it."""
    postgres.require()
    engine = db.connect(postgres_engine.url.render_as_string(hide_password=False))
    pings: list[object] = []
    ping = engine.dialect.do_ping

    def counted_ping(dbapi: Any) -> bool:
        pings.append(dbapi)
        return ping(dbapi)

    monkeypatch.setattr(engine.dialect, "do_ping", counted_ping)
    try:
        with engine.connect() as conn:
            first = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() == first
        assert pings == []  # used a moment ago: not checked
        with postgres_engine.connect() as admin:
            assert admin.exec_driver_sql(f"SELECT pg_terminate_backend({first})").scalar_one()
        monkeypatch.setattr(db, "PING_AFTER_IDLE", 0.0)  # every connection has rested now
        with engine.connect() as conn:
            again = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        assert again != first and len(pings) >= 1
    finally:
        engine.dispose()


def test_a_read_only_command_never_migrates_nor_writes(fresh_db_url: str) -> None:
    """``ledger check`` and ``accounts list`` read: on a database never migrated, or at
    an older schema, they say so in one line (exit 2) and leave it as it was."""
    from click.testing import CliRunner

    from croupier.cli import cli

    engine = db.connect(fresh_db_url)
    try:
        with engine.connect():
            pass  # an empty database (SQLite makes its file): no croupier tables in it
        for command_line in (["ledger", "check"], ["accounts", "list"]):
            never = CliRunner().invoke(cli, [*command_line, "--db", fresh_db_url])
            assert never.exit_code == 2 and "holds no croupier tables" in never.stderr
            assert db.current_revision(engine) is None
        with engine.begin() as conn:
            command.upgrade(db.alembic_config(conn), "0003")
        for command_line in (["ledger", "check"], ["accounts", "list"]):
            older = CliRunner().invoke(cli, [*command_line, "--db", fresh_db_url])
            assert older.exit_code == 2, older.output
            assert "is at schema 0003" in older.stderr and "migrate" in older.stderr
            assert older.stderr.count("\n") == 1
            assert db.current_revision(engine) == "0003"
        db.migrate(engine)
        checked = CliRunner().invoke(cli, ["ledger", "check", "--db", fresh_db_url])
        assert checked.exit_code == 0 and "the books balance" in checked.output
    finally:
        engine.dispose()


def test_a_missing_sqlite_file_is_named_and_not_made(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from croupier.cli import cli

    url = f"sqlite:///{tmp_path / 'none.db'}"
    missing = CliRunner().invoke(cli, ["ledger", "check", "--db", url])
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    assert not (tmp_path / "none.db").exists()
