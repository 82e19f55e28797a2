"""Table leases on a real database: claims, renewals, fencing, and the owner that lost
its connection, hung, or died (:mod:`croupier.server.ownership`)."""

from __future__ import annotations

import threading
import time

import pytest
import sqlalchemy

from croupier.server import db
from croupier.server.ownership import Ownership, TableLost, TableOwned, fence


def write(engine: sqlalchemy.Engine, table: str, epoch: int) -> None:
    """A write for ``table``, fenced as the table's runtime fences its own."""
    with engine.begin() as conn:
        fence(conn, table, epoch)


def wait_until(test: object, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not test():  # type: ignore[operator]
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def test_a_claim_raises_the_epoch_and_a_fenced_write_needs_it(engine: sqlalchemy.Engine) -> None:
    first = Ownership(engine)
    try:
        epoch = first.claim("rws")
        assert epoch == 1 and first.held == {"rws": 1}
        write(engine, "rws", 1)
        with pytest.raises(TableLost, match="another process"):
            write(engine, "rws", 0)
        assert first.renew() == set() and first.healthy
        first.let_go("rws")
        assert first.held == {}
        assert first.claim("rws") == 2  # a claim after a let-go: a new epoch
        with pytest.raises(TableLost):
            write(engine, "rws", 1)  # what the first claim's runtime would write
    finally:
        first.release()


@pytest.mark.postgres
def test_a_live_owner_keeps_its_tables(postgres_url: str) -> None:
    engine = db.connect(postgres_url)
    first, second = Ownership(engine), Ownership(engine)
    try:
        first.claim_all(["rws", "online"])
        with pytest.raises(TableOwned, match="another croupier process"):
            second.claim_all(["online", "rws"])
        assert second.held == {}
        assert second.vacant() == set()  # both run by a live process
        assert second.survey() == (set(), {"rws": first.owner, "online": first.owner})
        assert first.renew() == set()
    finally:
        first.release()
        second.release()
        engine.dispose()


@pytest.mark.postgres
def test_an_owner_whose_lease_connection_is_terminated_is_fenced_and_steps_down(
    postgres_url: str,
) -> None:
    """The split brain of a lost lock connection: once another process claims the
    table, the first can write nothing more for it, and its next renewal says so."""
    engine = db.connect(postgres_url)
    first = Ownership(engine, stale_seconds=0.2)
    second = Ownership(engine, stale_seconds=0.2)
    try:
        epoch = first.claim("rws")
        assert epoch is not None
        assert second.claim("rws") is None  # alive: its liveness lock is held
        with engine.begin() as conn:  # a network blip, a pooler, a restart...
            conn.execute(
                sqlalchemy.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks "
                    "WHERE locktype = 'advisory' AND pid <> pg_backend_pid() AND database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())"
                )
            )
        assert second.vacant() == {"rws"}  # its owner's liveness lock is gone
        time.sleep(0.3)  # one missed renewal
        taken = second.claim("rws")
        assert taken == epoch + 1
        with pytest.raises(TableLost):
            write(engine, "rws", epoch)  # the first's runtime, still believing
        write(engine, "rws", taken)
        assert first.renew() == {"rws"} and first.held == {}
        assert second.renew() == set()
    finally:
        first.release()
        second.release()
        engine.dispose()


@pytest.mark.postgres
def test_a_hung_owner_loses_its_tables_when_its_lease_runs_out(postgres_url: str) -> None:
    """An owner that stops renewing (stopped, hung, partitioned) keeps its liveness
    lock, but not its tables: they are claimed once its lease has run out."""
    engine = db.connect(postgres_url)
    first = Ownership(engine, lease_seconds=0.5, renew_seconds=0.1)
    second = Ownership(engine, lease_seconds=0.5, renew_seconds=0.1)
    try:
        epoch = first.claim("rws")
        assert epoch is not None and second.claim("rws") is None
        assert second.survey() == (set(), {"rws": first.owner})
        time.sleep(0.3)
        # It missed its renewals: no longer named as the table's owner (a socket is
        # not handed to it, croupier.server.steering), though its lease still runs.
        assert second.survey() == (set(), {})
        time.sleep(0.3)  # the first renews nothing: it is hung
        assert second.claim("rws") == epoch + 1
        assert first.renew() == {"rws"}  # it wakes, and finds its epoch stale
    finally:
        first.release()
        second.release()
        engine.dispose()


@pytest.mark.postgres
def test_a_woken_owner_is_healthy_again_only_once_its_lost_tables_are_forgotten(
    postgres_url: str,
) -> None:
    """A hung owner woken after another process took its table: while its renewal
    forgets the table, it does not yet say it is healthy, so its health (the tables it
    runs) never names a table another process runs, even for an instant."""
    engine = db.connect(postgres_url)
    first = Ownership(engine, lease_seconds=0.5)
    second = Ownership(engine, lease_seconds=0.5)
    seen: list[bool] = []

    class Held(dict[str, int]):
        def __delitem__(self, table: str) -> None:
            seen.append(first.healthy)  # what a health check would read meanwhile
            super().__delitem__(table)

    try:
        epoch = first.claim("rws")
        assert epoch is not None
        time.sleep(0.6)  # hung
        assert second.claim("rws") == epoch + 1
        first.held = Held(first.held)
        assert first.renew() == {"rws"}
        assert seen == [False]
        assert first.healthy and "rws" not in first.held
    finally:
        first.release()
        second.release()
        engine.dispose()


@pytest.mark.postgres
def test_a_claim_waits_for_a_fenced_write_in_flight(postgres_url: str) -> None:
    """The fence holds the lease row for the writer's transaction: a claim made
    meanwhile comes after it, so nothing the old owner commits follows the claim."""
    engine = db.connect(postgres_url)
    first = Ownership(engine, lease_seconds=0.3)
    second = Ownership(engine, lease_seconds=0.3)
    claimed: list[int | None] = []
    try:
        epoch = first.claim("rws")
        assert epoch is not None
        time.sleep(0.4)
        with engine.begin() as conn:
            fence(conn, "rws", epoch)
            claiming = threading.Thread(target=lambda: claimed.append(second.claim("rws")))
            claiming.start()
            time.sleep(0.5)
            assert claimed == []  # it waits for the write's transaction
        claiming.join(timeout=10)
        assert claimed == [epoch + 1]
    finally:
        first.release()
        second.release()
        engine.dispose()


@pytest.mark.postgres
def test_the_owners_renewal_never_waits_for_its_tables_fenced_writes(postgres_url: str) -> None:
    """A busy table's transactions hold its lease row (FOR KEY SHARE) one after another:
    the owner's renewal (an UPDATE of no key) goes through them at once, so a busy
    process never loses its tables for want of a renewal."""
    engine = db.connect(postgres_url)
    owner = Ownership(engine)
    try:
        epoch = owner.claim("rws")
        assert epoch is not None
        with engine.begin() as conn:
            fence(conn, "rws", epoch)
            renewed: list[set[str]] = []
            renewing = threading.Thread(target=lambda: renewed.append(owner.renew()))
            renewing.start()
            renewing.join(timeout=5)
            assert renewed == [set()]  # renewed while the write is in flight, none lost
        assert owner.held == {"rws": epoch}
    finally:
        owner.release()
        engine.dispose()


@pytest.mark.postgres
def test_the_renewals_run_in_their_own_thread_and_report_what_is_lost(postgres_url: str) -> None:
    engine = db.connect(postgres_url)
    first = Ownership(engine, lease_seconds=0.6, renew_seconds=0.1)
    second = Ownership(engine, lease_seconds=0.6)
    lost: list[set[str]] = []
    try:
        first.claim_all(["rws", "online"])
        first.start_renewing(lost.append)
        time.sleep(1.0)  # renewed all along: still held
        assert second.claim("rws") is None and lost == []
        with engine.begin() as conn:  # claimed behind its back, as another process would
            conn.execute(
                sqlalchemy.text(
                    "UPDATE table_leases SET epoch = epoch + 1, owner = 'elsewhere' "
                    "WHERE table_id = 'rws'"
                )
            )
        wait_until(lambda: lost == [{"rws"}])
        assert set(first.held) == {"online"}
    finally:
        first.release()
        second.release()
        engine.dispose()


@pytest.mark.postgres
def test_processes_started_together_migrate_one_at_a_time(postgres: object) -> None:
    """Several processes on a fresh database: one migrates, the others find it done
    (they once failed on a unique violation of alembic_version)."""
    url: str = postgres.create()  # type: ignore[attr-defined]
    failures: list[BaseException] = []

    def start() -> None:
        engine = db.connect(url)
        try:
            db.migrate(engine)
        except BaseException as error:
            failures.append(error)
        finally:
            engine.dispose()

    try:
        threads = [threading.Thread(target=start) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert failures == []
        engine = db.connect(url)
        assert db.current_revision(engine) == db.head_revision()
        engine.dispose()
    finally:
        postgres.drop(url)  # type: ignore[attr-defined]
