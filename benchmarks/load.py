"""Load on the table server: bot players over WebSockets on loopback, many tables.

Starts ``croupier serve`` (SQLite in a temporary file) with enough tables for the
bots, seven boxes each, and plays two phases:

1. ``--bots`` bots (default 500), each acting about once a second (a think time of
   one second before each action): rounds per second, actions per second, and the
   p50/p99 latency from a decision sent to the event it causes;
2. the same tables with bots that act as soon as they may (no think time), to find
   the most actions a second the server sustains.

The bots' accounts and sessions are written to the database before the server starts
(2 x 500 argon2 hashes would cost a minute of CPU and are not what is measured).
The target on a 2-core machine: 500 bots acting once a second with p99 under 50 ms.

    python benchmarks/load.py [--bots 500] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from decimal import Decimal
from pathlib import Path

import sqlalchemy

from croupier.server import accounts, ledger
from croupier.server.bots import PASSWORD, BotStats, run_bot
from croupier.server.db import connect, migrate, utcnow
from croupier.server.schema import sessions, users

BOXES = 7


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def prepare(url: str, count: int) -> list[tuple[str, str]]:
    """``count`` bot accounts with chips and a session each: (name, token)."""
    engine = connect(url)
    migrate(engine)
    password_hash = accounts._hasher.hash(PASSWORD)
    bots: list[tuple[str, str]] = []
    with engine.begin() as conn:
        for index in range(count):
            name = f"bot-{index:04d}"
            inserted = conn.execute(
                users.insert().values(
                    name=name,
                    password_hash=password_hash,
                    role="player",
                    failed_logins=0,
                    created_at=utcnow(),
                )
            ).inserted_primary_key
            assert inserted is not None
            user_id = int(inserted[0])
            ledger.grant(conn, user_id, Decimal("1000000.00"), idempotency_key=f"bench:{name}")
            token = secrets.token_urlsafe(32)
            conn.execute(
                sessions.insert().values(
                    token_hash=accounts.hash_token(token),
                    user_id=user_id,
                    created_at=utcnow(),
                    last_seen=utcnow(),
                )
            )
            bots.append((name, token))
    engine.dispose()
    return bots


def tables_file(path: Path, count: int) -> None:
    """``count`` rws-v5 tables with short clocks."""
    entries = [
        f'[[table]]\nid = "t{n:03d}"\npreset = "rws-v5"\nbetting_seconds = 1.0\n'
        "offer_seconds = 5.0\ndecision_seconds = 5.0\npause_seconds = 0.5\n"
        for n in range(count)
    ]
    path.write_text("\n".join(entries))


def closed_rounds(url: str) -> int:
    """Rounds settled or void so far."""
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as conn:
        count: int = conn.execute(
            sqlalchemy.text("SELECT count(*) FROM rounds WHERE status <> 'open'")
        ).scalar_one()
    engine.dispose()
    return count


async def phase(
    base: str, bots: list[tuple[str, str]], seconds: float, think: float, url: str
) -> tuple[BotStats, float, int]:
    """Play ``seconds`` with every bot; the stats, the time played, the rounds closed."""
    stop = asyncio.Event()
    stats = BotStats()
    tasks = [
        asyncio.create_task(
            run_bot(
                base,
                name,
                f"t{index // BOXES:03d}",
                index % BOXES + 1,
                stop,
                stats,
                think=think,
                token=token,
            )
        )
        for index, (name, token) in enumerate(bots)
    ]
    await asyncio.sleep(3.0)  # everyone connected and seated
    stats.latencies.clear()
    actions, rounds = stats.actions, closed_rounds(url)
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - start
    played = BotStats(
        actions=stats.actions - actions,
        errors=stats.errors,
        latencies=list(stats.latencies),
        error_codes=dict(stats.error_codes),
    )
    closed = closed_rounds(url) - rounds
    stop.set()
    await asyncio.gather(*tasks)
    return played, elapsed, closed


def report(label: str, stats: BotStats, elapsed: float, rounds: int) -> None:
    """Print one phase's figures."""
    latencies = sorted(stats.latencies)
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p99 = latencies[int(0.99 * (len(latencies) - 1))] * 1000 if latencies else float("nan")
    print(
        f"  {label:34s} {rounds / elapsed:8.1f} rounds/s {stats.actions / elapsed:8.1f} actions/s"
        f"   p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   errors {stats.errors}"
    )
    if stats.error_codes:
        codes = ", ".join(f"{code} {count}" for code, count in sorted(stats.error_codes.items()))
        print(f"  {'':34s} refused: {codes}")


def main() -> None:
    """Run both phases and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=30.0)
    arguments = parser.parse_args()
    tables = (arguments.bots + BOXES - 1) // BOXES
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{directory}/load.db"
        bots = prepare(url, arguments.bots)
        tables_path = Path(directory) / "tables.toml"
        tables_file(tables_path, tables)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log = (Path(directory) / "serve.log").open("wb")
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "croupier",
                "serve",
                "--db",
                url,
                "--port",
                str(port),
                "--tables",
                str(tables_path),
            ],
            # The server's JSON-line log (every request, command and money movement)
            # goes to a file, as an operator's would: written, not shown.
            stderr=log,
        )
        try:
            for _ in range(300):
                try:
                    with urllib.request.urlopen(f"{base}/health", timeout=1):
                        break
                except OSError:
                    time.sleep(0.1)
            print(
                f"croupier serve: {arguments.bots} bots at {tables} tables of {BOXES} boxes, "
                f"{arguments.seconds:g} s a phase, {os.cpu_count()} cores shared by server "
                "and bots"
            )
            paced = asyncio.run(phase(base, bots, arguments.seconds, 1.0, url))
            report("each bot acting once a second", *paced)
            flat = asyncio.run(phase(base, bots, arguments.seconds, 0.0, url))
            report("bots acting as fast as allowed", *flat)
            print("  target: p99 under 50 ms with 500 bots acting once a second")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
            log.close()


if __name__ == "__main__":
    main()
