"""Failover under the faults that are not a clean SIGKILL: a lease connection cut, an
owner hung (SIGSTOP), PostgreSQL restarted under a cluster.

Each test watches every process's ``/health`` all along and checks that at no moment do
two processes run one table, that play resumes within seconds, that what was
acknowledged is kept, and that the books balance.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from websockets.exceptions import ConnectionClosedError
from websockets.sync.client import ClientConnection, connect

from croupier.server import db
from tests.server.tables import PASSWORD
from tests.server.test_cluster import command, launch, receive, runs, wait_until_listening
from tests.server.test_crash import free_port, start
from tests.server.test_failover import assert_the_books_balance, get, listening, post, stop

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

TABLES = """
[[table]]
id = "rws"
preset = "rws-v5"
betting_seconds = 600

[[table]]
id = "online"
preset = "online-8deck"
betting_seconds = 600
"""


def start_sharing(
    url: str, tables: Path, count: int
) -> tuple[list[subprocess.Popen[bytes]], list[int]]:
    """``count`` processes sharing ``tables`` (``--share I/count``): started together."""
    ports = [free_port() for _ in range(count)]
    return [launch(url, port, tables, f"{i}/{count}") for i, port in enumerate(ports)], ports


def spread_out(processes: list[subprocess.Popen[bytes]], ports: list[int]) -> None:
    """Wait until every process serves and each runs its share: the first table by the
    first process, the second by the second, none by a third."""
    for process, port in zip(processes, ports, strict=True):
        wait_until_listening(process, port)
    expected = [{"rws"}, {"online"}, set()][: len(ports)]
    deadline = time.monotonic() + 20
    while [runs(port) for port in ports] != expected:
        assert time.monotonic() < deadline, [runs(port) for port in ports]
        time.sleep(0.2)


#: Seconds a health answer may take and still say what its process ran at one moment
#: of the sample: one held up longer may have been worked out before its process was
#: stopped (SIGSTOP) and only written once it was woken.
FRESH_SECONDS = 1.0


class Watch:
    """Samples which tables each process runs, every 50 ms, in a thread of its own.

    A sample asks each process in turn; it shows two processes running one table at
    one moment only where every answer came within :data:`FRESH_SECONDS`.  An answer
    that took longer (its process was stopped while answering) says what the process
    ran before the stop, not when it arrived: such samples are counted apart
    (``stale``), and the samples after them, every 50 ms, are what would show an owner
    woken into a table another took meanwhile."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.overlaps: list[tuple[float, list[set[str]]]] = []
        self.samples = 0
        self.stale = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            seen: list[set[str]] = []
            fresh = True
            for port in self.ports:
                asked = time.monotonic()
                seen.append(runs(port))
                fresh = fresh and time.monotonic() - asked < FRESH_SECONDS
            self.samples += 1
            if not fresh:
                self.stale += 1
            elif any(tables & other for i, tables in enumerate(seen) for other in seen[i + 1 :]):
                self.overlaps.append((time.monotonic(), seen))
            time.sleep(0.05)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def standby(db_url: str, port: int, tables: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "croupier", "serve", "--db", db_url, "--port", str(port)]
    command += ["--tables", str(tables), "--log", "none", "--standby"]
    return subprocess.Popen(command, stderr=subprocess.DEVNULL)


def sign_in(base: str, name: str) -> str:
    post(base, "/api/accounts", {"name": name, "password": PASSWORD})
    token: str = post(base, "/api/sessions", {"name": name, "password": PASSWORD})["token"]
    return token


def bet(port: int, token: str, key: str, *, seconds: float = 30) -> None:
    """Bet 25 on box 1 of ``rws`` through the server on ``port`` until acknowledged,
    connecting again as a client does when told the table is moving (close 1013)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with connect(f"ws://127.0.0.1:{port}/ws/tables/rws") as socket:
                socket.send(json.dumps({"type": "auth", "token": token}))
                receive(socket, "balance")
                ack = command(socket, "bet", {"box": 1, "amount": "25"}, key)
                assert ack["retried"] is False
                return
        except ConnectionClosedError as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1013, closed
            assert time.monotonic() < deadline, "the table never came back"
            time.sleep(0.25)


@contextmanager
def welcomed(port: int, table: str = "rws", *, seconds: float = 30) -> Iterator[ClientConnection]:
    """A socket at ``table`` through the server on ``port``, its welcome read: connecting
    again, as a client does, while the table is told to be moving (close 1013: on a
    busy machine the owner's answer through the bus can be late)."""
    deadline = time.monotonic() + seconds
    while True:
        with connect(f"ws://127.0.0.1:{port}/ws/tables/{table}") as socket:
            try:
                receive(socket, "welcome")
            except ConnectionClosedError as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1013, closed
                assert time.monotonic() < deadline, "the table never came back"
            else:
                yield socket
                return
        time.sleep(0.25)


def test_a_cut_lease_connection_leaves_the_tables_with_their_one_owner(
    postgres_url: str, tmp_path: Path
) -> None:
    """The lease connection of a server is ended behind its back (a network blip, a
    pooler, ``pg_terminate_backend``): it notices within a renewal, makes a new one and
    keeps its tables; its standby never runs them beside it."""
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    first_port, spare_port = free_port(), free_port()
    first = start(postgres_url, first_port, tables)
    spare = standby(postgres_url, spare_port, tables)
    watch = Watch([first_port, spare_port])
    base = f"http://127.0.0.1:{first_port}"
    try:
        token = sign_in(base, "ann")
        bet(first_port, token, "b1")
        engine = sqlalchemy.create_engine(db.normalize_url(postgres_url))
        with engine.begin() as conn:
            ended = conn.execute(
                sqlalchemy.text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_locks "
                    "WHERE locktype = 'advisory' AND pid <> pg_backend_pid() AND database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())"
                )
            ).scalar_one()
        engine.dispose()
        assert ended >= 1
        time.sleep(6)  # past a lease's time
        assert runs(first_port) == {"rws", "online"}
        assert not listening(f"http://127.0.0.1:{spare_port}")
        bet(first_port, token, "b2")  # play goes on where it was
        assert get(base, "/api/me", token)["balance"] == "950.00"
    finally:
        watch.close()
        stop(first, spare)
    assert watch.samples > 50 and watch.overlaps == []
    assert_the_books_balance(postgres_url)


def test_cut_lease_connections_in_a_cluster_leave_each_table_with_one_owner(
    postgres_url: str, tmp_path: Path
) -> None:
    """The same under ``--share``: every lease connection of both processes ended at
    once; each makes a new one and keeps its table, and play goes on."""
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    processes, ports = start_sharing(postgres_url, tables, 2)
    watch: Watch | None = None
    try:
        spread_out(processes, ports)
        watch = Watch(ports)
        base = f"http://127.0.0.1:{ports[1]}"
        token = sign_in(base, "ann")
        bet(ports[1], token, "b1")
        engine = sqlalchemy.create_engine(db.normalize_url(postgres_url))
        with engine.begin() as conn:
            ended = conn.execute(
                sqlalchemy.text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_locks "
                    "WHERE locktype = 'advisory' AND pid <> pg_backend_pid() AND database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())"
                )
            ).scalar_one()
        engine.dispose()
        assert ended >= 2
        time.sleep(6)  # past a lease's time
        assert [runs(port) for port in ports] == [{"rws"}, {"online"}]
        bet(ports[1], token, "b2")
        assert get(base, "/api/me", token)["balance"] == "950.00"
    finally:
        if watch is not None:
            watch.close()
        stop(*processes)
    assert watch is not None and watch.overlaps == []
    assert_the_books_balance(postgres_url)


def test_a_hung_owner_is_replaced_and_steps_down_when_it_wakes(
    postgres_url: str, tmp_path: Path
) -> None:
    """SIGSTOP of the owner: its standby takes the tables once the leases run out and
    keeps the round; woken (SIGCONT), the old owner finds its leases gone, runs nothing
    and says so (``/health`` 503)."""
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    first_port, spare_port = free_port(), free_port()
    first = start(postgres_url, first_port, tables)
    spare = standby(postgres_url, spare_port, tables)
    watch = Watch([first_port, spare_port])
    base, spare_base = f"http://127.0.0.1:{first_port}", f"http://127.0.0.1:{spare_port}"
    try:
        token = sign_in(base, "ann")
        bet(first_port, token, "b1")
        os.kill(first.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        while runs(spare_port) != {"rws", "online"}:
            assert time.monotonic() - stopped < 20, "the hung owner was never replaced"
            time.sleep(0.1)
        taken_over = time.monotonic() - stopped
        print(f"taken over {taken_over:.2f} s after SIGSTOP")
        state = get(spare_base, "/api/tables/rws")
        assert [(b["player"], b["amount"]) for b in state["bets"]] == [("ann", "25.00")]
        os.kill(first.pid, signal.SIGCONT)
        woken = time.monotonic()
        while True:
            try:
                get(base, "/health")
            except OSError as error:  # 503: it runs nothing now
                assert "503" in str(error)
                break
            assert time.monotonic() - woken < 10, "the old owner never stepped down"
            time.sleep(0.1)
        bet(spare_port, token, "b2")
        assert get(spare_base, "/api/me", token)["balance"] == "950.00"
        time.sleep(2)
        assert runs(first_port) == set() and runs(spare_port) == {"rws", "online"}
    finally:
        watch.close()
        os.kill(first.pid, signal.SIGCONT)
        stop(first, spare)
    assert taken_over < 15
    assert watch.overlaps == []
    assert_the_books_balance(postgres_url)


def _initdb() -> str | None:
    found = shutil.which("initdb") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)), None
    )
    return found


@pytest.fixture
def private_postgres() -> Iterator[tuple[str, Any]]:
    """A PostgreSQL cluster of this test's own (it is restarted under the servers); its
    URL and a function that restarts it."""
    initdb = _initdb()
    if initdb is None:
        if os.environ.get("CROUPIER_REQUIRE_POSTGRES") == "1":
            pytest.fail("CROUPIER_REQUIRE_POSTGRES=1 but PostgreSQL's initdb is not installed")
        pytest.skip("PostgreSQL's initdb is not installed")
    binaries = Path(initdb).parent
    folder = Path(tempfile.mkdtemp(prefix="croupier-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(folder, "postgres", "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    subprocess.run(
        [*run_as, str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    # Its log goes to a file: the server never holds the pipes of the command.
    control = [*run_as, str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-w"]
    control += ["-l", str(folder / "log")]
    subprocess.run([*control, "start"], check=True, capture_output=True)

    def restart() -> None:
        subprocess.run([*control, "-m", "fast", "restart"], check=True, capture_output=True)

    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres", restart
    finally:
        subprocess.run([*control, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_cluster_survives_a_postgresql_restart(
    private_postgres: tuple[str, Any], tmp_path: Path
) -> None:
    """Two processes share the tables; PostgreSQL restarts under them.  Every process
    makes its connections again and the tables run again, each by one process, with
    what was acknowledged before the restart."""
    url, restart = private_postgres
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    processes, ports = start_sharing(url, tables, 2)
    watch: Watch | None = None
    try:
        spread_out(processes, ports)
        watch = Watch(ports)
        base = f"http://127.0.0.1:{ports[1]}"
        token = sign_in(base, "ann")
        bet(ports[1], token, "b1")  # through the process that does not run rws

        restart()
        restarted = time.monotonic()
        bet(ports[1], token, "b2")
        print(f"a bet acknowledged {time.monotonic() - restarted:.2f} s after the restart")
        assert runs(ports[0]) | runs(ports[1]) == {"rws", "online"}
        assert get(base, "/api/me", token)["balance"] == "950.00"
        state = get(base, "/api/tables/rws")
        assert [(b["player"], b["amount"]) for b in state["bets"]] == [("ann", "50.00")]
    finally:
        if watch is not None:
            watch.close()
        stop(*processes)
    assert watch is not None and watch.overlaps == []
    assert_the_books_balance(url)


QUICK_TABLES = """
[[table]]
id = "rws"
preset = "rws-v5"
betting_seconds = 1
offer_seconds = 20
decision_seconds = 20
pause_seconds = 5

[[table]]
id = "online"
preset = "online-8deck"
betting_seconds = 600
"""


def test_a_graceful_stop_plays_out_the_round_in_play_and_hands_the_tables_over(
    postgres_url: str, tmp_path: Path
) -> None:
    """SIGTERM mid-round: the stopping server deals nothing new, keeps its players
    connected until their round is played out (here by the player himself, after the
    signal), then hands its tables to the standby.  No round is voided or
    interrupted (a rolling restart once voided two rounds in three steps)."""
    tables = tmp_path / "tables.toml"
    tables.write_text(QUICK_TABLES)
    first_port, spare_port = free_port(), free_port()
    first = start(postgres_url, first_port, tables)
    spare = standby(postgres_url, spare_port, tables)
    watch = Watch([first_port, spare_port])
    base = f"http://127.0.0.1:{first_port}"
    try:
        token = sign_in(base, "ann")
        with connect(f"ws://127.0.0.1:{first_port}/ws/tables/rws") as socket:
            socket.send(json.dumps({"type": "auth", "token": token}))
            receive(socket, "balance")
            command(socket, "bet", {"box": 1, "amount": "25"}, "b1")
            state = state_of(socket, lambda s: s["phase"] != "betting")
            first.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            moves = 0
            while state["phase"] not in ("settled", "void"):
                mine = [o for o in state.get("offers", []) if o["player"] == "ann"]
                if mine:
                    args = {"box": mine[0]["box"], "kind": mine[0]["kind"]}
                    command(socket, "decline", args, f"d{moves}")
                    moves += 1
                elif (state.get("turn") or {}).get("yours"):
                    legal = state["legal_actions"]
                    command(socket, "stand" if "stand" in legal else "hit", {}, f"s{moves}")
                    moves += 1
                state = state_of(socket, lambda s: True)
            assert state["phase"] == "settled"  # played out, not voided
        first.wait(timeout=60)
        print(f"stopped {time.monotonic() - signalled:.2f} s after SIGTERM")
        while runs(spare_port) != {"rws", "online"}:
            assert time.monotonic() - signalled < 60, "the standby never took over"
            time.sleep(0.1)
    finally:
        watch.close()
        stop(first, spare)
    assert watch.overlaps == []
    engine = sqlalchemy.create_engine(db.normalize_url(postgres_url))
    with engine.connect() as conn:
        voided = conn.execute(
            sqlalchemy.text("SELECT count(*) FROM rounds WHERE status = 'void'")
        ).scalar_one()
        interrupted = conn.execute(
            sqlalchemy.text(
                'SELECT count(*) FROM round_inputs WHERE input LIKE \'%"op":"interrupt"%\''
            )
        ).scalar_one()
    engine.dispose()
    assert (voided, interrupted) == (0, 0)
    assert_the_books_balance(postgres_url)


def state_of(socket: Any, test: Any, *, seconds: float = 30) -> dict[str, Any]:
    """The next table state for which ``test`` holds."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        assert left > 0, "no such state"
        message: dict[str, Any] = json.loads(socket.recv(timeout=left))
        if message["type"] == "state" and test(message["state"]):
            state: dict[str, Any] = message["state"]
            return state


def test_the_new_owner_announces_what_its_recovery_did_as_events(
    postgres_url: str, tmp_path: Path
) -> None:
    """The owner is killed mid-round: the process that takes the table over records the
    technical interruption (RWS v5 5.4) and announces it as events, whose place in the
    round lets a watcher on another process ask for anything it missed."""
    tables = tmp_path / "tables.toml"
    tables.write_text(QUICK_TABLES)
    processes, ports = start_sharing(postgres_url, tables, 2)
    try:
        spread_out(processes, ports)
        base = f"http://127.0.0.1:{ports[1]}"
        token = sign_in(base, "ann")
        with welcomed(ports[1]) as player, welcomed(ports[1]) as watcher:
            player.send(json.dumps({"type": "auth", "token": token}))
            receive(player, "balance")
            for attempt in range(5):
                # A natural needs no decision and settles at once: bet on the next round.
                command(player, "bet", {"box": 1, "amount": "25"}, f"b{attempt}")
                state = state_of(
                    watcher, lambda s: s["phase"] in ("offers", "player-turns", "settled")
                )
                if state["phase"] != "settled":
                    break
                state_of(watcher, lambda s, done=state["round"]: s["round"] != done)
            round_id = state["round"]
            os.kill(processes[0].pid, signal.SIGKILL)
            processes[0].wait(timeout=10)
            while True:
                message = receive(watcher, "events", seconds=30)
                kinds = [event["type"] for event in message["events"]]
                if "technical_interruption" in kinds:
                    break
            assert message["round"] == round_id and message["first"] > 0
            watcher.send(json.dumps({"type": "events_since", "round": round_id, "first": 0}))
            everything = receive(watcher, "events")
            assert everything["first"] == 0
            place = message["first"] + kinds.index("technical_interruption")
            assert everything["events"][place]["type"] == "technical_interruption"
            assert everything["events"][0]["type"] == "bet_placed"
    finally:
        stop(*processes)
    assert_the_books_balance(postgres_url)


def test_processes_started_together_on_a_fresh_database_all_serve(
    postgres: Any, tmp_path: Path
) -> None:
    """Three processes of a cluster started at once on a database never migrated: one
    migrates, the others wait for it (5 of 12 once exited on a unique violation of
    ``alembic_version``); every one serves, and each table is run by one of them."""
    url: str = postgres.create()
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    processes, ports = start_sharing(url, tables, 3)
    try:
        spread_out(processes, ports)
    finally:
        stop(*processes)
        postgres.drop(url)


def test_a_process_stopped_at_random_moments_never_holds_up_another_processs_tables(
    postgres_url: str, tmp_path: Path
) -> None:
    """Bots play at two tables, each run by its own process.  The first process is
    stopped (SIGSTOP) at random moments under load, some inside a settlement: the
    second's table plays on meanwhile (it once froze every table, the house's one
    account row held by the stopped process); the first's table is taken over, and
    the stopped process, woken, steps down.  The books balance."""
    import asyncio
    import random

    from croupier.server.bots import BotStats, run_bot
    from tests.server.test_crash import TABLES as QUICK

    tables = tmp_path / "tables.toml"
    tables.write_text(QUICK)
    processes, ports = start_sharing(postgres_url, tables, 2)
    stop_bots = asyncio.Event()
    online, rws = BotStats(), BotStats()
    loop = asyncio.new_event_loop()
    thread: threading.Thread | None = None
    watch: Watch | None = None
    try:
        spread_out(processes, ports)
        watch = Watch(ports)
        base = f"http://127.0.0.1:{ports[1]}"

        async def bots() -> None:
            await asyncio.gather(
                run_bot(base, "bot-a", "online", 1, stop_bots, online, think=0.05),
                run_bot(base, "bot-b", "online", 2, stop_bots, online, think=0.05),
                run_bot(base, "bot-c", "rws", 1, stop_bots, rws, think=0.05),
            )

        thread = threading.Thread(target=loop.run_until_complete, args=(bots(),))
        thread.start()
        rng = random.Random(20261127)
        time.sleep(3)
        for _ in range(3):
            time.sleep(rng.uniform(0.2, 1.2))
            before = online.actions
            os.kill(processes[0].pid, signal.SIGSTOP)
            time.sleep(3)
            progressed = online.actions - before
            os.kill(processes[0].pid, signal.SIGCONT)
            assert progressed >= 3, f"the other process's table stood still: {online}"
        time.sleep(2)
    finally:
        loop.call_soon_threadsafe(stop_bots.set)
        if thread is not None:
            thread.join(timeout=30)
        if watch is not None:
            watch.close()
        for process in processes:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)
        stop(*processes)
    assert rws.actions > 0 and online.actions > 0
    assert watch is not None and watch.overlaps == []
    assert_the_books_balance(postgres_url)
