"""Load on the table server: bot players over WebSockets on loopback, many tables.

Starts ``croupier serve`` (SQLite in a temporary file; with ``--db`` a new database on
that PostgreSQL server, dropped afterwards; with ``--workers N`` that many server
processes sharing the tables on one port) with enough tables for the bots, seven
boxes each, and plays two phases:

0. ``--warmup`` seconds (default 10) of the same play, not measured: every table's
   first round and the server's caches are behind it when the clock starts;
1. ``--bots`` bots (default 500), each acting about once a second (a think time of
   one second before each action): rounds per second, actions per second, and the
   p50/p99 latency from a decision sent to the event it causes;
2. the same tables with bots that act as soon as they may (no think time), to find
   the most actions a second the server sustains.

With ``--watchers W``, a third phase: ``W`` anonymous watchers on the first table
while its seven bots play (and, with ``--behind B``, ``B`` more bots betting behind
their boxes, RWS v5 1.26), and how long each table state takes to reach each watcher
(from the state's own time, ``now``: when the command or clock that changed the table
reached the server, to its arrival at the watcher; each change counted once per
watcher; the server and the watchers share the machine's clock).

Each phase also prints the CPU each part spent while it was measured: the server's
processes, this benchmark's process (bots and watchers) and PostgreSQL's processes, in
cores and per action (psutil).

The bots are this project's own asyncio clients (:mod:`croupier.server.bots`), not
Locust: Locust's users are synchronous greenlets with no WebSocket client of their own,
and a bot here must read every table state the server pushes and answer the decision
it asks for, a thousand of them in one process beside the server.

The bots' accounts and sessions are written to the database before the server starts
(2 x 500 argon2 hashes would cost a minute of CPU and are not what is measured).
The bots and watchers run in this one process (asyncio), on the same cores as the
server: their CPU is part of what the machine spends.

    python benchmarks/load.py [--bots 500] [--seconds 30] [--db postgresql://...]
                              [--workers N] [--watchers W [--behind B]]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import psutil
import sqlalchemy

from croupier.server import accounts, ledger
from croupier.server.bots import PASSWORD, BotStats, run_bot
from croupier.server.db import connect, migrate, normalize_url, utcnow
from croupier.server.schema import sessions, users

BOXES = 7
#: A table state's time, its key "now" (player names cannot hold the quotes around it).
_NOW = re.compile(r'"now": (-?[0-9.eE+-]+)')


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


@contextlib.contextmanager
def database(server: str | None, directory: str) -> Iterator[str]:
    """A new database: a SQLite file in ``directory``, or one made on the PostgreSQL
    ``server`` (and dropped afterwards)."""
    if server is None:
        yield f"sqlite:///{directory}/load.db"
        return
    admin = sqlalchemy.create_engine(normalize_url(server), isolation_level="AUTOCOMMIT")
    name = f"croupier_load_{secrets.token_hex(4)}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield admin.url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


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
    engine = connect(url)
    with engine.connect() as conn:
        count: int = conn.execute(
            sqlalchemy.text("SELECT count(*) FROM rounds WHERE status <> 'open'")
        ).scalar_one()
    engine.dispose()
    return count


class Meter:
    """CPU seconds so far: the server's processes, this process (the bots and watchers)
    and PostgreSQL's processes on this machine (none for SQLite)."""

    def __init__(self, server: int, postgres: bool) -> None:
        self.server = psutil.Process(server)
        self.me = psutil.Process()
        self.postgres = postgres

    @staticmethod
    def _cpu(process: psutil.Process) -> float:
        try:
            times = process.cpu_times()
        except psutil.Error:  # it ended meanwhile
            return 0.0
        return float(times.user + times.system)

    def read(self) -> dict[str, dict[int, float]]:
        """CPU seconds by part (``server``, ``bots``, ``postgres``) and process id."""
        server = [self.server, *self.server.children(recursive=True)]
        seconds = {
            "server": {process.pid: self._cpu(process) for process in server},
            "bots": {self.me.pid: self._cpu(self.me)},
        }
        if self.postgres:
            seconds["postgres"] = {
                process.pid: self._cpu(process)
                for process in psutil.process_iter(["name"])
                if process.info["name"] == "postgres"
            }
        return seconds

    @staticmethod
    def spent(
        before: dict[str, dict[int, float]], after: dict[str, dict[int, float]]
    ) -> dict[str, float]:
        """CPU seconds each part spent between two readings: a process that started
        meanwhile counts whole; one that ended meanwhile (a short database connection)
        is lost, so the figure is a floor."""
        return {
            part: sum(cpu - before[part].get(pid, 0.0) for pid, cpu in processes.items())
            for part, processes in after.items()
        }


async def phase(
    base: str,
    bots: list[tuple[str, str]],
    seconds: float,
    think: float,
    url: str,
    meter: Meter | None = None,
) -> tuple[BotStats, float, int, dict[str, float]]:
    """Play ``seconds`` with every bot; the stats, the time played, the rounds closed and
    the CPU seconds each part spent meanwhile."""
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
    before = meter.read() if meter is not None else {}
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - start
    spent = Meter.spent(before, meter.read()) if meter is not None else {}
    played = BotStats(
        actions=stats.actions - actions,
        errors=stats.errors,
        latencies=list(stats.latencies),
        error_codes=dict(stats.error_codes),
    )
    closed = closed_rounds(url) - rounds
    stop.set()
    await asyncio.gather(*tasks)
    return played, elapsed, closed, spent


def report(
    label: str, stats: BotStats, elapsed: float, rounds: int, spent: dict[str, float]
) -> None:
    """Print one phase's figures: what the bots saw, then the CPU each part spent
    (in cores, and per action)."""
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
    if spent and stats.actions:
        parts = "   ".join(
            f"{part} {seconds / elapsed:4.2f} cores "
            f"({seconds / stats.actions * 1000:.2f} ms an action)"
            for part, seconds in spent.items()
        )
        print(f"  {'':34s} CPU: {parts}")


async def watch(
    base: str,
    table: str,
    count: int,
    seconds: float,
    bots: list[tuple[str, str]],
    url: str,
    behind: list[tuple[str, str]],
    meter: Meter,
) -> tuple[list[float], int, tuple[BotStats, float, int, dict[str, float]], BotStats]:
    """``count`` watchers on ``table`` while the bots play, and the ``behind`` bots bet
    behind its boxes: each state's delay to each watcher (seconds), the watchers still
    connected at the end, the bots' phase, and what the bots behind did."""
    import websockets

    delays: list[float] = []
    stop = asyncio.Event()
    connected = 0

    async def watcher() -> None:
        nonlocal connected
        address = base.replace("http", "ws", 1) + f"/ws/tables/{table}"
        last = 0.0
        async with websockets.connect(address, max_size=2**20, open_timeout=60) as socket:
            connected += 1
            try:
                while not stop.is_set():
                    try:
                        async with asyncio.timeout(0.5):  # a timer: no task per message
                            text = await socket.recv()
                    except TimeoutError:
                        continue
                    if isinstance(text, str) and text.startswith('{"type": "state"'):
                        # Each change once: a state sent again (a seat taken) keeps the
                        # time of the change it shows.  Only its time is read (the
                        # state's one "now" key): parsing thousands of whole states
                        # would make the watchers, not the server, what is measured.
                        found = _NOW.search(text)
                        if found is None:
                            raise ValueError(f"a state without its time: {text[:200]}")
                        changed = float(found[1])
                        if changed != last:
                            delays.append(time.time() - changed)
                            last = changed
            finally:
                connected -= 1

    tasks = []
    for _ in range(count):  # connected a few at a time: a crowd arriving, not one burst
        tasks.append(asyncio.create_task(watcher()))
        await asyncio.sleep(0.002)
    behind_stats = BotStats()
    # Players betting behind answer a box's bet within its betting window (1 s here).
    for index, (name, token) in enumerate(behind):
        box = index % BOXES + 1
        tasks.append(
            asyncio.create_task(
                run_bot(
                    base, name, table, box, stop, behind_stats, think=0.3, token=token, behind=True
                )
            )
        )
    await asyncio.sleep(2.0)
    delays.clear()
    played = await phase(base, bots, seconds, 1.0, url, meter)
    still = connected
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return delays, still, played, behind_stats


def main() -> None:
    """Run the phases and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--db", default=None, help="a PostgreSQL server URL (default: SQLite)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--watchers", type=int, default=0)
    parser.add_argument(
        "--behind", type=int, default=0, help="bots betting behind on the watched table"
    )
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds of play before the first phase"
    )
    arguments = parser.parse_args()
    tables = (arguments.bots + BOXES - 1) // BOXES
    with tempfile.TemporaryDirectory() as directory, database(arguments.db, directory) as url:
        everyone = prepare(url, arguments.bots + arguments.behind)
        bots, behind = everyone[: arguments.bots], everyone[arguments.bots :]
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
                "--workers",
                str(arguments.workers),
                # Every bot and watcher comes from this machine's one address.
                "--sockets-per-address",
                "1000000",
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
            # Every table run by some worker before the clock starts.
            for _ in range(600):
                try:
                    with urllib.request.urlopen(f"{base}/api/tables", timeout=5) as answer:
                        listed = json.loads(answer.read())
                    if all(table["phase"] != "unavailable" for table in listed):
                        break
                except OSError:
                    pass
                time.sleep(0.1)
            print(
                f"croupier serve on {url.split(':')[0]}, {arguments.workers} worker(s): "
                f"{arguments.bots} bots at {tables} tables of {BOXES} boxes, "
                f"{arguments.seconds:g} s a phase, {os.cpu_count()} cores shared by server "
                "and bots"
            )
            meter = Meter(server.pid, postgres=arguments.db is not None)
            if arguments.warmup:  # every table's first round, the caches: off the clock
                asyncio.run(phase(base, bots, arguments.warmup, 1.0, url))
            paced = asyncio.run(phase(base, bots, arguments.seconds, 1.0, url, meter))
            report("each bot acting once a second", *paced)
            flat = asyncio.run(phase(base, bots, arguments.seconds, 0.0, url, meter))
            report("bots acting as fast as allowed", *flat)
            if arguments.watchers:
                watched = watch(
                    base, "t000", arguments.watchers, arguments.seconds, bots, url, behind, meter
                )
                delays, still, played, backed = asyncio.run(watched)
                report(f"same, {arguments.watchers} watchers on t000", *played)
                if behind:
                    print(
                        f"  {'bets behind on t000':34s} {len(behind):8d} bots"
                        f"   {backed.actions} bets   refused {backed.errors}"
                    )
                delays.sort()
                if delays:
                    p50 = statistics.median(delays) * 1000
                    p99 = delays[int(0.99 * (len(delays) - 1))] * 1000
                    print(
                        f"  {'a state to each watcher':34s} {len(delays):8d} deliveries"
                        f"   p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   "
                        f"{still} of {arguments.watchers} watchers still connected"
                    )
            print(
                "  targets (PostgreSQL): 2,000 actions/s flat out; p99 under 50 ms with 1,000 "
                "bots acting once a second; a state to 5,000 watchers within 200 ms at p99"
            )
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
            log.close()


if __name__ == "__main__":
    main()
