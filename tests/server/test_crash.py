"""Kill the server (SIGKILL) at random moments of play, restart it, reconcile the books.

A real ``croupier serve`` process runs two tables with short clocks while bots play
at them over WebSockets.  It is killed at random points, restarted on the same
database, and the bots reconnect.  Every round cut off is brought back (RWS v5 5.4:
continued when an outcome is established, else void with every stake returned), and
at the end ``croupier ledger check`` finds the books balanced and every round's money
equal to its replay through the engine: no money created or lost.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
import sqlalchemy

from croupier.server.bots import BotStats, run_bot

# Servers killed and restarted: the slow tier.
pytestmark = pytest.mark.slow

KILLS = 6
TABLES = """
[[table]]
id = "rws"
preset = "rws-v5"
betting_seconds = 0.3
offer_seconds = 0.3
decision_seconds = 1.0
pause_seconds = 0.1

[[table]]
id = "online"
preset = "online-8deck"
betting_seconds = 0.3
offer_seconds = 0.3
decision_seconds = 1.0
pause_seconds = 0.1
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start(db_url: str, port: int, tables: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "croupier",
        "serve",
        "--db",
        db_url,
        "--port",
        str(port),
        "--tables",
        str(tables),
        # Its stderr is read only if it fails to start: no log to fill the pipe meanwhile.
        "--log",
        "none",
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as answer:
                if answer.status == 200:
                    return process
        except OSError:
            time.sleep(0.1)
        if process.poll() is not None:
            raise AssertionError(f"the server did not start: {process.stderr.read()!r}")  # type: ignore[union-attr]
    raise AssertionError("the server did not answer within 60 s")


def wait_for_play(base: str, table: str) -> None:
    """Return once ``table`` has a round past its bets (or after 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/api/tables/{table}", timeout=2) as answer:
                if json.loads(answer.read())["phase"] in ("offers", "player-turns"):
                    return
        except OSError:
            pass
        time.sleep(0.02)


#: Rounds played to their end (settled or void) that the test waits for after its kills.
CLOSED_ROUNDS = 5


def closed_rounds(db_url: str) -> int:
    engine = sqlalchemy.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            count: int = conn.execute(
                sqlalchemy.text("SELECT count(*) FROM rounds WHERE status <> 'open'")
            ).scalar_one()
            return count
    finally:
        engine.dispose()


def wait_for_closed_rounds(db_url: str, count: int, seconds: float = 60.0) -> None:
    """Return once ``count`` rounds have closed (or after ``seconds``: the test's own
    assertion then says how many did), and two seconds more of play."""
    deadline = time.monotonic() + seconds
    while closed_rounds(db_url) < count and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2.0)


def test_killed_at_random_points_nothing_is_created_or_lost(db_url: str, tmp_path: Path) -> None:
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = start(db_url, port, tables)
    stop = asyncio.Event()
    stats = BotStats()
    loop = asyncio.new_event_loop()

    async def bots() -> None:
        await asyncio.gather(
            run_bot(base, "bot-a", "rws", 1, stop, stats, think=0.1),
            run_bot(base, "bot-b", "rws", 2, stop, stats, think=0.1),
            run_bot(base, "bot-c", "online", 1, stop, stats, think=0.1),
            run_bot(base, "bot-d", "online", 2, stop, stats, think=0.1),
        )

    thread = threading.Thread(target=loop.run_until_complete, args=(bots(),))
    thread.start()
    rng = random.Random(20261123)
    try:
        for kill in range(KILLS):
            time.sleep(rng.uniform(0.5, 1.5))
            if kill % 2 == 0:
                # Every other kill waits for a round in play, then strikes within 0.15 s.
                wait_for_play(base, rng.choice(["rws", "online"]))
                time.sleep(rng.uniform(0.0, 0.15))
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            process = start(db_url, port, tables)
        # Play goes on after the last restart until rounds have closed (a slow machine
        # restarts slowly: a wait for them, not a fixed time).
        wait_for_closed_rounds(db_url, CLOSED_ROUNDS)
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=30)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    # A last restart brings back whatever round the last kill cut off.
    process = start(db_url, port, tables)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)

    assert stats.actions > 0 and stats.reconnects >= KILLS, stats
    check = subprocess.run(
        [sys.executable, "-m", "croupier", "ledger", "check", "--db", db_url],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "the books balance" in check.stdout
    engine = sqlalchemy.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as conn:
        # Each round's inputs, one row per command (round_inputs).
        interrupted = conn.execute(
            sqlalchemy.text(
                "SELECT count(DISTINCT round_id) FROM round_inputs"
                ' WHERE input LIKE \'%"op":"interrupt"%\''
            )
        ).scalar_one()
        open_rounds = conn.execute(
            sqlalchemy.text("SELECT count(*) FROM rounds WHERE status = 'open'")
        ).scalar_one()
        closed = conn.execute(
            sqlalchemy.text("SELECT count(*) FROM rounds WHERE status <> 'open'")
        ).scalar_one()
    engine.dispose()
    assert closed >= CLOSED_ROUNDS, closed
    assert interrupted >= 1  # some kills fell in the middle of a round
    assert open_rounds <= 2  # at most one round a table waits for its players
