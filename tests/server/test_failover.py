"""Failover: a standby server takes a killed server's tables over, and nothing is lost.

Two ``croupier serve`` processes on one database: the first runs the tables, the second
(``--standby``) waits without listening.  A player bets, the first is killed with
SIGKILL, and the standby claims the tables within seconds, recovers the round (RWS v5
5.4: a round still taking bets goes on) and serves the player, whose bet and balance
are where he left them; the books balance.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.server.tables import PASSWORD
from tests.server.test_crash import free_port, start

pytestmark = pytest.mark.slow

TABLES = """
[[table]]
id = "rws"
preset = "rws-v5"
betting_seconds = 600
"""


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{base}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def get(base: str, path: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(f"{base}{path}", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def listening(base: str) -> bool:
    try:
        get(base, "/health")
    except (OSError, urllib.error.URLError):
        return False
    return True


def receive(socket: Any, kind: str) -> dict[str, Any]:
    for _ in range(100):
        message: dict[str, Any] = json.loads(socket.recv(timeout=10))
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


def test_a_standby_takes_over_a_killed_server_and_keeps_the_round(
    db_url: str, tmp_path: Path
) -> None:
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    first_port, second_port = free_port(), free_port()
    first = start(db_url, first_port, tables)
    standby = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "croupier",
            "serve",
            "--db",
            db_url,
            "--port",
            str(second_port),
            "--tables",
            str(tables),
            "--log",
            "none",
            "--standby",
        ],
        stderr=subprocess.PIPE,
    )
    try:
        base, spare = f"http://127.0.0.1:{first_port}", f"http://127.0.0.1:{second_port}"
        # The standby says it waits, and does not listen while the first runs the table.
        assert standby.stderr is not None
        assert b"standing by" in standby.stderr.readline()
        assert not listening(spare)

        post(base, "/api/accounts", {"name": "ann", "password": PASSWORD})
        token = post(base, "/api/sessions", {"name": "ann", "password": PASSWORD})["token"]
        with connect(f"ws://127.0.0.1:{first_port}/ws/tables/rws") as socket:
            socket.send(json.dumps({"type": "auth", "token": token}))
            receive(socket, "balance")
            bet = {"box": 1, "amount": "25"}
            socket.send(json.dumps({"type": "action", "op": "bet", "args": bet, "key": "b1"}))
            receive(socket, "ack")
        assert get(base, "/api/me", token)["balance"] == "975.00"

        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        killed = time.monotonic()
        while not listening(spare):
            assert time.monotonic() - killed < 30, "the standby did not take over"
            assert standby.poll() is None, standby.stderr.read()
            time.sleep(0.1)

        # The player's session, money and bet are where he left them.
        assert get(spare, "/api/me", token)["balance"] == "975.00"
        with connect(f"ws://127.0.0.1:{second_port}/ws/tables/rws") as socket:
            socket.send(json.dumps({"type": "auth", "token": token}))
            state = receive(socket, "welcome")["state"]
        assert state["phase"] == "betting"
        assert any(bet["player"] == "ann" and bet["amount"] == "25.00" for bet in state["bets"])
    finally:
        stop(first, standby)
    assert_the_books_balance(db_url)


def stop(*processes: subprocess.Popen[Any]) -> None:
    """Stop the servers still running (SIGTERM), and wait for them."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def assert_the_books_balance(db_url: str) -> None:
    """``croupier ledger check`` finds the books of the database balanced."""
    check = subprocess.run(
        [sys.executable, "-m", "croupier", "ledger", "check", "--db", db_url],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "the books balance" in check.stdout
