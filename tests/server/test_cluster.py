"""A cluster: several server processes share the tables on one PostgreSQL database.

Three ``croupier serve --share I/3`` processes, as on three machines behind a load
balancer.  A player connected to one process plays at a table another process runs; a
watcher on the third sees his play.  The process running the table is killed with
SIGKILL while the table is busy: another claims it within seconds, recovers its round
from the database (RWS v5 5.4), and play goes on through the same sockets; the
watcher saw all of it, and the books balance.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from croupier.server.cluster import CLAIM_SECONDS
from tests.server.tables import PASSWORD
from tests.server.test_crash import free_port
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


def launch(db_url: str, port: int, tables: Path, share: str) -> subprocess.Popen[bytes]:
    """Start ``croupier serve --share SHARE`` (without waiting for it)."""
    command = [sys.executable, "-m", "croupier", "serve", "--db", db_url, "--port", str(port)]
    command += ["--tables", str(tables), "--log", "none", "--share", share]
    return subprocess.Popen(command, stderr=subprocess.PIPE)


def wait_until_listening(process: subprocess.Popen[bytes], port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while not listening(base):
        if process.poll() is not None:
            assert process.stderr is not None
            raise AssertionError(f"the server did not start: {process.stderr.read()!r}")
        assert time.monotonic() < deadline, "the server did not answer within 60 s"
        time.sleep(0.1)


def runs(port: int) -> set[str]:
    """The tables the process on ``port`` runs itself (its health says)."""
    try:
        return set(get(f"http://127.0.0.1:{port}", "/health")["tables"])
    except (OSError, urllib.error.URLError):
        return set()


def receive(socket: Any, kind: str, *, seconds: float = 15) -> dict[str, Any]:
    """The next message of ``kind``; the others are skipped."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no {kind} message within {seconds} s"
        message: dict[str, Any] = json.loads(socket.recv(timeout=left))
        if message["type"] == kind:
            return message


def state_where(socket: Any, test: Any, *, seconds: float = 20) -> dict[str, Any]:
    """The first table state the socket receives for which ``test`` holds."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no such state within {seconds} s"
        message: dict[str, Any] = json.loads(socket.recv(timeout=left))
        state: dict[str, Any] = message.get("state", {})
        if message["type"] == "state" and test(state):
            return state


def command(socket: Any, op: str, args: dict[str, Any], key: str) -> dict[str, Any]:
    """Send an action until it is acknowledged (a table being taken over says
    ``unavailable``: the client sends it again, with the same key)."""
    for _ in range(40):
        socket.send(json.dumps({"type": "action", "op": op, "args": args, "key": key}))
        while True:
            message: dict[str, Any] = json.loads(socket.recv(timeout=15))
            if message["type"] == "ack" and message.get("key") == key:
                return message
            if message["type"] == "error" and message.get("key") == key:
                assert message["code"] == "unavailable", message
                time.sleep(0.25)
                break
    raise AssertionError(f"{op} was never taken")


def test_three_servers_share_the_tables_and_take_over_a_killed_one(
    postgres_url: str, tmp_path: Path
) -> None:
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    ports = [free_port() for _ in range(3)]
    # Started together, as a cluster is: each claims its share before the others look
    # beyond theirs.
    processes = [launch(postgres_url, port, tables, f"{i}/3") for i, port in enumerate(ports)]
    try:
        for process, port in zip(processes, ports, strict=True):
            wait_until_listening(process, port)
        # Each table is run by exactly one process: the first by server 0, the second by
        # server 1 (their shares), none by server 2.
        deadline = time.monotonic() + 20
        while [runs(port) for port in ports] != [{"rws"}, {"online"}, set()]:
            assert time.monotonic() < deadline, [runs(port) for port in ports]
            time.sleep(0.2)
        _, player_port, watcher_port = ports

        post(
            f"http://127.0.0.1:{player_port}",
            "/api/accounts",
            {"name": "ann", "password": PASSWORD},
        )
        token = post(
            f"http://127.0.0.1:{player_port}",
            "/api/sessions",
            {"name": "ann", "password": PASSWORD},
        )["token"]
        with (
            connect(f"ws://127.0.0.1:{player_port}/ws/tables/rws") as player,
            connect(f"ws://127.0.0.1:{watcher_port}/ws/tables/rws") as watcher,
        ):
            assert receive(watcher, "welcome")["state"]["table"] == "rws"
            receive(player, "welcome")
            player.send(json.dumps({"type": "auth", "token": token}))
            assert receive(player, "welcome")["you"] == "ann"
            assert receive(player, "balance")["balance"] == "1000.00"

            # Played through server 1 at the table server 0 runs; seen on server 2.
            ack = command(player, "bet", {"box": 1, "amount": "25"}, "b1")
            assert ack["retried"] is False
            assert receive(player, "balance")["balance"] == "975.00"
            seen = state_where(watcher, lambda state: state["bets"])
            assert seen["bets"][0]["player"] == "ann"
            assert seen["bets"][0]["amount"] == "25.00"

            # The process running the busy table dies.
            os.kill(processes[0].pid, signal.SIGKILL)
            processes[0].wait(timeout=10)
            killed = time.monotonic()
            while "rws" not in runs(player_port) | runs(watcher_port):
                assert time.monotonic() - killed < 15, "nobody took the table over"
                time.sleep(0.1)
            took_over = time.monotonic() - killed
            print(f"taken over in {took_over:.2f} s")

            # The round was recovered by RWS v5 5.4 (still taking bets: it goes on), and
            # the watcher on server 2 is told the table as it now stands.
            recovered = state_where(watcher, lambda state: state["bets"])
            assert recovered["phase"] == "betting"
            assert recovered["round"] == seen["round"]
            assert [(bet["player"], bet["amount"]) for bet in recovered["bets"]] == [
                ("ann", "25.00")
            ]

            # Play goes on through the same sockets: the bet doubled, seen by the watcher.
            command(player, "bet", {"box": 1, "amount": "25"}, "b2")
            assert receive(player, "balance")["balance"] == "950.00"
            more = state_where(
                watcher, lambda state: state["bets"] and state["bets"][0]["amount"] == "50.00"
            )
            assert more["round"] == seen["round"]
            assert get(f"http://127.0.0.1:{watcher_port}", "/api/me", token)["balance"] == (
                "950.00"
            )

            # A logout through server 2 ends at once the rights of ann's socket on
            # server 1, which had just confirmed her session.
            logout = urllib.request.Request(
                f"http://127.0.0.1:{watcher_port}/api/sessions/current",
                headers={"Authorization": f"Bearer {token}"},
                method="DELETE",
            )
            with urllib.request.urlopen(logout, timeout=10) as answer:
                assert answer.status == 204
            time.sleep(0.5)  # the word goes round the cluster
            bet = {"box": 1, "amount": "25"}
            player.send(json.dumps({"type": "action", "op": "bet", "args": bet, "key": "b3"}))
            refused = receive(player, "error")
            assert refused["code"] == "session_expired" and refused["key"] == "b3"
        assert took_over < 15
    finally:
        stop(*processes)
    assert_the_books_balance(postgres_url)


def line_with(stream: Any, text: str) -> str:
    """The next line of ``stream`` that holds ``text`` (the workers' log lines skipped)."""
    for _ in range(100):
        line: str = stream.readline()
        if text in line:
            return line
    raise AssertionError(f"no line with {text!r}")


def _open_socket(port: int, table: str) -> socket.socket:
    """A table's socket, opened and welcomed (its handshake answered with 101)."""
    opened = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    opened.sendall(
        (
            f"GET /ws/tables/{table} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = opened.recv(4096)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return opened


def _start_workers(
    postgres_url: str, tmp_path: Path
) -> tuple[subprocess.Popen[str], int, list[int]]:
    """``croupier serve --workers 2`` on the two tables: its process, port and workers'
    process ids."""
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    port = free_port()
    command = [sys.executable, "-m", "croupier", "serve", "--db", postgres_url]
    command += ["--port", str(port), "--tables", str(tables), "--log", "none", "--workers", "2"]
    supervisor = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert supervisor.stderr is not None
    started = supervisor.stderr.readline()
    assert "with 2 workers" in started, started
    pids = [int(pid) for pid in started.rsplit("(pids ", 1)[1].rstrip(")\n").split(", ")]
    return supervisor, port, pids


def _tables_run(base: str) -> dict[int, set[str]]:
    """The tables each worker runs, once both tables are run and both workers answered."""
    seen: dict[int, set[str]] = {}
    deadline = time.monotonic() + 60
    while len(seen) < 2 or set().union(*seen.values()) != {"rws", "online"}:
        assert time.monotonic() < deadline, seen
        try:
            health = get(base, "/health")
        except (OSError, urllib.error.URLError):
            time.sleep(0.1)
            continue
        seen[health["pid"]] = set(health["tables"])
    return seen


def test_workers_share_one_address_and_a_dead_one_is_started_again(
    postgres_url: str, tmp_path: Path
) -> None:
    """``--workers 2``: two processes on one port, each running one of the two tables;
    a worker killed with SIGKILL is started again, and its table is taken over."""
    supervisor, port, pids = _start_workers(postgres_url, tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        assert supervisor.stderr is not None
        # Both tables are run, each by one of the two workers behind the one address.
        seen = _tables_run(base)
        assert sorted(seen) == sorted(pids)
        assert all(len(tables) == 1 for tables in seen.values()), seen
        # Table sockets land on either worker; each is handed to the worker that runs
        # its table (croupier.server.steering) and answered there.
        runs = {table: pid for pid, tables in seen.items() for table in tables}
        time.sleep(3 * CLAIM_SECONDS)  # each worker has looked at the leases since
        sockets = [_open_socket(port, table) for table in ("rws", "online") * 4]
        try:
            at: dict[int, dict[str, int]] = {}
            deadline = time.monotonic() + 30
            while len(at) < 2 or sum(sum(count.values()) for count in at.values()) < 8:
                assert time.monotonic() < deadline, at
                health = get(base, "/health")
                at[health["pid"]] = health["sockets"]
            assert at == {runs["rws"]: {"rws": 4}, runs["online"]: {"online": 4}}, at
        finally:
            for opened in sockets:
                opened.close()

        os.kill(pids[0], signal.SIGKILL)
        assert "ended with -9" in line_with(supervisor.stderr, "worker 0")
        assert "worker 0 started again" in line_with(supervisor.stderr, "worker 0")
        # Its table is run again (by the other worker, or by the new one if it came back
        # first), and every answer now comes from a live worker.
        after: dict[int, set[str]] = {}
        deadline = time.monotonic() + 30
        while set().union(*after.values()) != {"rws", "online"} or len(after) < 2:
            assert time.monotonic() < deadline, after
            health = get(base, "/health")
            after[health["pid"]] = set(health["tables"])
        assert pids[0] not in after and pids[1] in after
    finally:
        supervisor.send_signal(signal.SIGTERM)
        supervisor.wait(timeout=30)
    assert supervisor.returncode == 0
    assert not listening(base)


def test_a_hung_worker_is_handed_no_socket(postgres_url: str, tmp_path: Path) -> None:
    """``--workers 2``, the worker that runs "rws" stopped (SIGSTOP): once it has missed
    its lease renewals, a new socket for "rws" is answered by the live worker (through
    the bus, then as the table's new owner), not handed to the hung one to wait there.
    Its lease run out, the live worker takes "rws" over; woken, the hung worker has
    stepped down and every table is run once."""
    supervisor, port, _ = _start_workers(postgres_url, tmp_path)
    base = f"http://127.0.0.1:{port}"
    hung = None
    try:
        runs = {table: pid for pid, tables in _tables_run(base).items() for table in tables}
        time.sleep(3 * CLAIM_SECONDS)  # each worker has looked at the leases since
        hung = runs["rws"]
        os.kill(hung, signal.SIGSTOP)
        # Renewals missed (a renewal a second; 2.5 s late is missed), its lease not
        # yet run out (5 s): the live worker no longer names it the owner.
        time.sleep(3.5)
        opened = _open_socket(port, "rws")  # answered: 101 (a hung worker answers nothing)
        opened.close()
        deadline = time.monotonic() + 30
        while "rws" not in get(base, "/health")["tables"]:  # its lease ran out: taken over
            assert time.monotonic() < deadline
            time.sleep(0.1)
        os.kill(hung, signal.SIGCONT)
        hung = None
        after: dict[int, set[str]] = {}
        deadline = time.monotonic() + 30
        while len(after) < 2 or set().union(*after.values()) != {"rws", "online"}:
            assert time.monotonic() < deadline, after
            try:
                health = get(base, "/health")
            except urllib.error.HTTPError as problem:
                # The woken worker, until its first renewal since: "cannot renew its
                # tables' leases" (503).  It must come back healthy before the deadline.
                assert problem.code == 503, problem
                time.sleep(0.1)
                continue
            after[health["pid"]] = set(health["tables"])
        assert "rws" in after[runs["online"]] and "rws" not in after[runs["rws"]], after
    finally:
        if hung is not None:
            os.kill(hung, signal.SIGCONT)
        supervisor.send_signal(signal.SIGTERM)
        supervisor.wait(timeout=60)
    assert supervisor.returncode == 0
