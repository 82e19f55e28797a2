"""Load on the table server: bot players over WebSockets on loopback, many tables.

Starts ``croupier serve`` (SQLite in a temporary file; with ``--db`` a new database on
that PostgreSQL server, dropped afterwards; with ``--workers N`` that many server
processes sharing the tables on one port) with enough tables for the bots, seven
boxes each, and plays these phases:

0. ``--warmup`` seconds (default 10) of the same play, not measured: every table's
   first round and the server's caches are behind it when the clock starts;
1. ``--bots`` bots (default 500), each acting about once a second (a think time of
   one second before each action): rounds per second, actions per second, and the
   p50/p99 latency from a decision sent to the event it causes (every action but a
   bet), and from a bet sent to its answer (ack or error; its events go out with the
   bets placed beside it, at most every 0.1 s);
2. the same tables with bots that act as soon as they may (no think time), to find
   the most actions a second the server sustains.

With ``--watchers W`` (or ``--behind B``), a third phase: ``W`` anonymous watchers on
the first table while its seven bots play at the pace of phase 1 (and ``B`` more bots
betting behind their boxes, RWS v5 1.26).  It prints:

- how long each table state takes to reach each watcher (from the state's own time,
  ``now``: when the command or clock that changed the table reached the server, to its
  arrival at the watcher; each change counted once per watcher; the server and the
  watchers share the machine's clock);
- the frames the watchers received, and the server's CPU per watcher frame: the
  server's CPU in this phase, less what phase 1 says its actions cost, over the frames;
- for the bets behind (over the whole phase: they are one a round each; each player
  behind bets within half a second of the seated bet on his box, or with
  ``--behind-spread`` through the rws-v5 preset's 15 s window, as a live crowd does): how many were
  accepted and refused, and the p50/p99 time from a bet sent to its answer (ack or
  error).

Each phase also prints the CPU each part spent while it was measured: the server's
processes, the bots' (the processes playing the bots and watchers, and this one) and
PostgreSQL's processes, in cores and per action (psutil, by process id); how the
server's CPU divides between its event loops (each process's main thread) and its other
threads (the tables' writes to the database, and the clocks), how much of it was spent
in the kernel (system calls: sockets, round trips, sleeps and wake-ups), and its threads' context
switches an action (Linux's ``/proc``: each is a thread put to sleep or woken, for a
socket, a lock or the interpreter's); and the time the server took to commit each
round's settlement, from its Prometheus histogram ``croupier_round_close_seconds`` at
``GET /metrics`` (count, mean and p99 over the phase; "n/a" where the server has no
such histogram; with several workers, the figures of the one that answers).

``--bot-processes N`` (default 1): the bots and watchers are played by ``N`` child
processes (this script again, with ``--child``), split evenly, so that the Python
clients do not share one core and the benchmark measures the server, not itself.
Each is given its bots, the server's address and a wall-clock time at which the
measured window starts; it plays, and returns what it saw in that window.

``--anchor REV`` (a git revision): the same phases are also played against the server
as it was at ``REV``, in the same run: a worktree of ``REV`` is added (and removed
afterwards), and its server run with the same Python but its own code
(``PYTHONPATH``) and its own new database, prepared by its own code.  Each phase is
played against the anchor, then against the current server; each figure is printed
for both, with the current/anchor ratio of the server's CPU per action and per
watcher frame.  The bots are this checkout's against both servers; with
``--anchor-bots``, the anchor's phases are played by the anchor's own bots (its
``croupier.server.bots``), and the ratio of the bots' CPU per action is printed too.

``--profile DIR``: each measured window of each server is also sampled by py-spy
(``--gil``, so only the thread running Python counts; ``--subprocesses``, so a
``--workers`` server's workers too; never pausing the server), into
``DIR/<server>-<phase>.txt``: one line a stack, with its count of samples.

The bots are this project's own asyncio clients (:mod:`croupier.server.bots`), not
Locust: Locust's users are synchronous greenlets with no WebSocket client of their own,
and a bot here must read every table state the server pushes and answer the decision
it asks for, hundreds of them in one process beside the server.

The bots' accounts and sessions are written to the database before the server starts
(2 x 500 argon2 hashes would cost a minute of CPU and are not what is measured).
The bots run on the same cores as the server: their CPU is part of what the machine
spends.  After the run each server is stopped (SIGTERM: it finishes the rounds in
play) and killed if it has not stopped within 90 seconds.

    python benchmarks/load.py [--bots 500] [--seconds 30] [--warmup 10]
                              [--db postgresql://...] [--workers N]
                              [--watchers W] [--behind B]
                              [--bot-processes N] [--anchor REV] [--profile DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import dataclasses
import json
import math
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import psutil
import sqlalchemy
import uvloop

from croupier.server.bots import BotStats

BOXES = 7
#: The table the watchers and the bots betting behind are at.
WATCHED = "t000"
#: Seconds the bots are given to connect, log in and sit down before a phase is measured
#: (the clock waits for the last of them all the same).
SETTLE_SECONDS = 3.0
#: Seconds of play off the clock before each measured phase (with ``--warmup``): longer
#: than a table's decision clock, so that the rounds left waiting are played out.
REWARM_SECONDS = 6.0
#: Before a server's phase, the most CPU (cores, over a second) each other server may
#: still spend on what its own last phase left, and the longest wait for that.
QUIET_CORES = 0.05
QUIET_SECONDS_MOST = 60.0
#: Seconds a server has to finish the rounds in play after SIGTERM before it is killed.
STOP_SECONDS = 90.0
#: The seconds between two watchers connecting: a crowd arriving, not one burst.
WATCHER_SPACING = 0.002
#: Seconds of lead a bot betting behind is given to sign in before the seated bots bet
#: (each child also waits until all of its own are welcomed, up to a minute).
BEHIND_SIGN_IN = 0.01
#: The watched table's betting window when players bet behind: each bets once he sees
#: the seated bet on his box, and the seated bots bet up to a second after the first
#: (which opens the window); with the other tables' 1 s, a third of the crowd's bets
#: came after "No more bets".
BEHIND_BETTING_SECONDS = 3.0
#: A player behind's think time (seconds, each drawn from half to one and a half of it)
#: from the seated bet on his box to his own: the whole crowd within half a second.
BEHIND_THINK = 0.3
#: With ``--behind-spread``: the watched table's betting window is the rws-v5 preset's
#: own (15 s), and the players behind bet through it (from 2.5 to 7.5 s after their box
#: opens), as a live studio's crowd does, instead of all at once.
SPREAD_BETTING_SECONDS = 15.0
SPREAD_THINK = 5.0
#: A table state's time, its key "now" (player names cannot hold the quotes around it),
#: with or without a space after the colon.
_NOW = re.compile(r'"now"\s*:\s*(-?[0-9.eE+-]+)')
#: The Prometheus histogram of the settlement transaction's seconds.
ROUND_CLOSE = "croupier_round_close_seconds"
#: The gauges of the group commit: transactions made, and the inputs they carried.
COMMITS = ("croupier_commits", "croupier_commit_inputs")
#: The gauges of the sessions' transactions: those commands waited for, those that
#: marked sessions in use in the background, those that read idle sockets' sessions.
SESSION_CHECKS = tuple(
    f'croupier_session_checks{{how="{how}"}}' for how in ("waited", "renewed", "kept")
)
#: A bucket's bound, its label "le" (not the end of another label's name, "table").
_LE = re.compile(r'[{,]\s*le="([^"]*)"')
#: This repository's root, where ``git worktree`` is run.
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def prepare(url: str, count: int) -> list[tuple[str, str]]:
    """``count`` bot accounts with chips and a session each: (name, token).

    Run by the server's own code (``--prepare``): its schema is the one migrated.
    """
    from croupier.server import accounts, ledger
    from croupier.server.bots import PASSWORD
    from croupier.server.db import connect, migrate, utcnow
    from croupier.server.schema import sessions, users

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
def database(server: str | None, directory: str, name: str) -> Iterator[str]:
    """A new database: a SQLite file ``name`` in ``directory``, or one made on the
    PostgreSQL ``server`` (and dropped afterwards)."""
    if server is None:
        yield f"sqlite:///{directory}/{name}.db"
        return
    from croupier.server.db import normalize_url

    admin = sqlalchemy.create_engine(normalize_url(server), isolation_level="AUTOCOMMIT")
    made = f"croupier_load_{secrets.token_hex(4)}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{made}"')
    try:
        yield admin.url.set(database=made).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{made}" WITH (FORCE)')
        admin.dispose()


@contextlib.contextmanager
def worktree(revision: str, directory: str) -> Iterator[Path]:
    """This repository as it was at ``revision``, checked out in ``directory`` (a git
    worktree, removed afterwards)."""
    path = Path(directory) / "anchor"
    git("worktree", "add", "--detach", str(path), revision)
    try:
        yield path
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, capture_output=True
        )
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


def git(*arguments: str) -> str:
    """What ``git`` prints, run in this repository; its complaint, raised, if it fails."""
    done = subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"git {' '.join(arguments)}: {done.stderr.strip()}")
    return done.stdout.strip()


def tables_file(
    path: Path, count: int, *, behind: bool = False, window: float = BEHIND_BETTING_SECONDS
) -> None:
    """``count`` rws-v5 tables with short clocks; with players ``behind``, the watched
    table's betting window is ``window`` seconds."""
    entries = [
        f'[[table]]\nid = "t{n:03d}"\npreset = "rws-v5"\n'
        f"betting_seconds = {window if behind and n == 0 else 1.0}\n"
        "offer_seconds = 5.0\ndecision_seconds = 5.0\npause_seconds = 0.5\n"
        for n in range(count)
    ]
    path.write_text("\n".join(entries))


class Meter:
    """CPU seconds so far: a server's processes, the bots' (the processes ``bots``,
    and this one) and PostgreSQL's processes on this machine (none for SQLite)."""

    def __init__(self, server: int, bots: list[int], postgres: bool) -> None:
        self.server = psutil.Process(server)
        self.bots = [psutil.Process(), *(psutil.Process(pid) for pid in bots)]
        self.postgres = postgres
        #: Each thread's context switches when last read (by process and thread id): a
        #: thread that ends keeps its count, so that a phase's figure never goes down.
        self._seen: dict[tuple[int, str], int] = {}

    @staticmethod
    def _cpu(process: psutil.Process) -> float:
        try:
            times = process.cpu_times()
        except psutil.Error:  # it ended meanwhile
            return 0.0
        return float(times.user + times.system)

    @staticmethod
    def _kernel_cpu(process: psutil.Process) -> float:
        """The CPU seconds ``process`` spent in the kernel (its system calls: sockets,
        the database's round trips, threads put to sleep and woken)."""
        try:
            return float(process.cpu_times().system)
        except psutil.Error:
            return 0.0

    @staticmethod
    def _loop_cpu(process: psutil.Process) -> float:
        """The CPU seconds of ``process``'s main thread (a server's event loop)."""
        try:
            threads = process.threads()
        except psutil.Error:
            return 0.0
        return sum(t.user_time + t.system_time for t in threads if t.id == process.pid)

    def _switches(self, process: psutil.Process, loop: bool = False) -> float:
        """Context switches so far of every thread of ``process`` (``loop``: of its main
        thread alone), voluntary (it waited: for a socket, a lock, the interpreter) or
        not (Linux's ``/proc``; 0 elsewhere).  A thread that has ended counts what it
        had when last seen."""
        tasks = Path(f"/proc/{process.pid}/task")
        for status in [tasks / str(process.pid) / "status"] if loop else tasks.glob("*/status"):
            with contextlib.suppress(OSError):
                count = 0
                for line in status.read_text().splitlines():
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt")):
                        count += int(line.split()[-1])
                self._seen[process.pid, status.parent.name] = count
        if loop:
            return float(self._seen.get((process.pid, str(process.pid)), 0))
        return float(sum(n for (pid, _), n in self._seen.items() if pid == process.pid))

    def read(self) -> dict[str, dict[int, float]]:
        """CPU seconds by part (``server``, ``bots``, ``postgres``) and process id; and
        of the server's processes, their event loops' CPU seconds (``loop``) and their
        threads' context switches (``switches``)."""
        try:
            server = [self.server, *self.server.children(recursive=True)]
        except psutil.Error:
            server = []
        seconds = {
            "server": {process.pid: self._cpu(process) for process in server},
            "bots": {process.pid: self._cpu(process) for process in self.bots},
            "loop": {process.pid: self._loop_cpu(process) for process in server},
            "kernel": {process.pid: self._kernel_cpu(process) for process in server},
            "switches": {process.pid: self._switches(process) for process in server},
            "loop_switches": {process.pid: self._switches(process, True) for process in server},
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


@dataclass(frozen=True)
class Histogram:
    """A Prometheus histogram summed over its labels: the count of observations at or
    under each bound (``math.inf`` last), their sum and count."""

    buckets: dict[float, float]
    total: float
    count: float

    def __sub__(self, earlier: Histogram) -> Histogram:
        return Histogram(
            {le: n - earlier.buckets.get(le, 0.0) for le, n in self.buckets.items()},
            self.total - earlier.total,
            self.count - earlier.count,
        )

    def quantile(self, q: float) -> float:
        """The ``q`` quantile estimated from the buckets, as Prometheus'
        ``histogram_quantile`` does: linear within the bucket it falls in (the highest
        finite bound where it falls past them).

        >>> Histogram({0.1: 50.0, 0.2: 100.0, math.inf: 100.0}, 10.0, 100.0).quantile(0.75)
        0.15
        """
        rank = q * self.count
        lower, below = 0.0, 0.0
        for le, cumulative in sorted(self.buckets.items()):
            if cumulative >= rank:
                if math.isinf(le):
                    return lower
                if cumulative == below:
                    return le
                return round(lower + (le - lower) * (rank - below) / (cumulative - below), 12)
            lower, below = le, cumulative
        return lower


def gauge(text: str, name: str) -> float | None:
    """The value of the unlabelled gauge ``name`` in a Prometheus text page; ``None``
    where the page has none.

    >>> gauge("# HELP x An x.\\nx 12.0\\nx_more 3.0", "x")
    12.0
    >>> gauge("x 12.0", "y") is None
    True
    """
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == name:
            return float(parts[1])
    return None


def histogram(text: str, name: str) -> Histogram | None:
    """The histogram ``name`` in a Prometheus text page, summed over its labels;
    ``None`` where the page has none.

    >>> page = '''x_bucket{table="a",le="0.1"} 1.0
    ... x_bucket{table="b",le="0.1"} 2.0
    ... x_bucket{table="a",le="+Inf"} 2.0
    ... x_bucket{table="b",le="+Inf"} 2.0
    ... x_sum{table="a"} 0.5
    ... x_sum{table="b"} 0.25
    ... x_count{table="a"} 2.0
    ... x_count{table="b"} 2.0'''
    >>> histogram(page, "x")
    Histogram(buckets={0.1: 3.0, inf: 4.0}, total=0.75, count=4.0)
    >>> histogram(page, "y") is None
    True
    """
    buckets: dict[float, float] = {}
    total = count = 0.0
    found = False
    for line in text.splitlines():
        if not line.startswith(name) or line.startswith("#"):
            continue
        rest = line[len(name) :]
        value = float(line.rsplit(None, 1)[-1])
        if rest.startswith("_bucket"):
            le = _LE.search(rest)
            if le is not None:
                bound = float(le[1])  # "+Inf" reads as infinity
                buckets[bound] = buckets.get(bound, 0.0) + value
                found = True
        elif rest.startswith(("_sum{", "_sum ")):
            total += value
        elif rest.startswith(("_count{", "_count ")):
            count += value
    return Histogram(buckets, total, count) if found else None


# -- the bots' processes ------------------------------------------------------------------------


@dataclass
class Watching:
    """What the watchers of one process saw: each state's delay (seconds), the frames
    received, the watchers connected now."""

    delays: list[float] = field(default_factory=list)
    frames: int = 0
    connected: int = 0


async def watcher(base: str, table: str, stop: asyncio.Event, watching: Watching) -> None:
    """Watch ``table`` anonymously until ``stop``: count the frames, and time each
    change of the table's state (a state sent again, a seat taken, keeps the time of
    the change it shows).  Only a state's type and time are read: parsing thousands of
    whole states would make the watchers, not the server, what is measured.

    The socket is read with ``websockets``' Sans-I/O protocol under a plain asyncio
    protocol (:class:`Watch`): a frame costs its parsing, not also the library's
    asyncio layer (a future and a task switch a message, and its text decoded), which
    with 5,000 watchers took twice the server's CPU a frame."""
    from websockets.uri import parse_uri

    uri = parse_uri(base.replace("http", "ws", 1) + f"/ws/tables/{table}")
    loop = asyncio.get_running_loop()
    transport, watch = await asyncio.wait_for(
        loop.create_connection(lambda: Watch(uri, watching, loop), uri.host, uri.port),
        OPEN_SECONDS,
    )
    try:
        await asyncio.wait_for(asyncio.shield(watch.opened), OPEN_SECONDS)
        watching.connected += 1
        try:
            stopping: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
            await asyncio.wait({stopping, watch.closed}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not stop.is_set():
                watch.closed.result()  # what ended it, raised
                raise ConnectionError("the server closed a watcher's socket")
            watch.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(watch.closed), CLOSE_SECONDS)
        finally:
            watching.connected -= 1
    finally:
        transport.abort()


#: Seconds a watcher's socket may take to open, and to close once asked.
OPEN_SECONDS = 60.0
CLOSE_SECONDS = 10.0


class Watch(asyncio.Protocol):
    """A watcher's socket: bytes in, ``websockets``' Sans-I/O protocol
    (``ClientProtocol``) turns them into frames, and each text frame is counted and,
    for a state, timed (see :func:`watcher`); the protocol's own answers (the
    handshake, pongs, the close) are written back."""

    def __init__(self, uri: Any, watching: Watching, loop: asyncio.AbstractEventLoop) -> None:
        from websockets.client import ClientProtocol

        self.protocol = ClientProtocol(uri, max_size=2**20)
        self.watching = watching
        self.last = 0.0
        self.transport: asyncio.Transport | None = None
        #: Set once the handshake is answered, and once the connection is gone.
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast("asyncio.Transport", transport)
        self.protocol.send_request(self.protocol.connect())
        self._send()

    def data_received(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode

        try:
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                if isinstance(event, Frame):
                    if event.opcode is Opcode.TEXT:
                        self._seen(str(event.data, "utf-8"))
                elif not self.opened.done():  # the handshake's answer
                    refused = self.protocol.handshake_exc
                    if refused is not None:
                        raise refused
                    self.opened.set_result(None)
            self._send()
        except Exception as problem:
            self._end(problem)

    def _seen(self, text: str) -> None:
        from croupier.server.bots import message_type

        self.watching.frames += 1
        if message_type(text) == "state":
            found = _NOW.search(text)
            if found is None:
                raise ValueError(f"a state without its time: {text[:200]}")
            changed = float(found[1])
            if changed != self.last:
                self.watching.delays.append(time.time() - changed)
                self.last = changed

    def close(self) -> None:
        """Ask the server to close the connection."""
        self.protocol.send_close()
        self._send()

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(exc)

    def _send(self) -> None:
        transport = self.transport
        for data in self.protocol.data_to_send():
            if data and transport is not None and not transport.is_closing():
                transport.write(data)

    def _end(self, problem: Exception | None) -> None:
        for future in (self.opened, self.closed):
            if not future.done():
                if problem is None:
                    future.set_result(None)
                else:
                    future.set_exception(problem)
        if problem is not None and self.transport is not None:
            self.transport.abort()


def gained(stats: BotStats, mark: BotStats) -> BotStats:
    """What ``stats`` counted since ``mark`` (a copy of it taken earlier, after which
    its lists were emptied)."""
    return BotStats(
        actions=stats.actions - mark.actions,
        errors=stats.errors - mark.errors,
        bets_accepted=stats.bets_accepted - mark.bets_accepted,
        bets_refused=stats.bets_refused - mark.bets_refused,
        frames=stats.frames - mark.frames,
        rounds=stats.rounds - mark.rounds,
        reconnects=stats.reconnects - mark.reconnects,
        latencies=list(stats.latencies),
        bet_answers=list(stats.bet_answers),
        error_codes={
            code: count - mark.error_codes.get(code, 0)
            for code, count in stats.error_codes.items()
            if count > mark.error_codes.get(code, 0)
        },
        last_errors=list(stats.last_errors),
    )


def marked(stats: BotStats) -> BotStats:
    """A copy of ``stats`` to count from (see :func:`gained`); its lists are emptied."""
    mark = copy.deepcopy(stats)
    stats.latencies.clear()
    stats.bet_answers.clear()
    return mark


async def sleep_until(moment: float) -> None:
    """Sleep until the wall clock reads ``moment``."""
    await asyncio.sleep(max(0.0, moment - time.time()))


async def play(job: dict[str, Any], go: Callable[[], Awaitable[float]]) -> dict[str, Any]:
    """One process's part of a phase (see :func:`child`): what its bots, its bots
    betting behind and its watchers did in the measured window, which starts when
    ``go`` says (asked once its bots are seated)."""
    from croupier.server.bots import run_bot

    base: str = job["base"]
    stop = asyncio.Event()
    players, backers, watching = BotStats(), BotStats(), Watching()
    tasks: list[asyncio.Task[None]] = []
    for _ in range(job["watchers"]):
        tasks.append(asyncio.create_task(watcher(base, WATCHED, stop, watching)))
        await asyncio.sleep(job["spacing"])
    arrived = time.perf_counter()
    # The crowd behind bets once every process's crowd has signed in, not on a round
    # left open by the phase before while the others still sign in.
    ready = asyncio.Event()
    think = job["behind_think"]
    for name, token, table, box in job["behind"]:
        # Players behind answer a box's bet within its window, after their think time.
        backer = run_bot(
            base,
            name,
            table,
            box,
            stop,
            backers,
            think=think,
            token=token,
            behind=True,
            ready=ready,
        )
        tasks.append(asyncio.create_task(backer))
    if job["watchers"] or job["behind"]:
        await asyncio.sleep(2.0)
        # The crowd behind is at the table before its seated players bet: the bets are
        # measured, not a thousand sockets opening (timed apart, as ``welcomed_in``).
        while backers.welcomed < len(job["behind"]) and time.perf_counter() - arrived < 60:
            await asyncio.sleep(0.1)
    welcomed_in = time.perf_counter() - arrived
    if job["watchers"] or job["behind"]:
        # Every process's crowd, not only this one's: the seated players of all of them
        # sit down together, once the sign-ins are over (each a write to the database,
        # which on SQLite held up the first bets' commits by a second).
        await sleep_until(job["start"] - SETTLE_SECONDS)
    ready.set()
    for name, token, table, box in job["bots"]:
        player = run_bot(base, name, table, box, stop, players, think=job["think"], token=token)
        tasks.append(asyncio.create_task(player))
    # The clock starts once every process's bots have signed in (on a slow machine, 500
    # sign-ins took longer than the lead, and were measured as the tables' cost).
    seated_from = time.perf_counter()
    while players.welcomed < len(job["bots"]) and time.perf_counter() - seated_from < 120:
        await asyncio.sleep(0.05)
    job["start"] = await go()
    await sleep_until(job["start"])
    marks = marked(players), watching.frames
    watching.delays.clear()
    await sleep_until(job["start"] + job["seconds"])
    result = {
        "bots": dataclasses.asdict(gained(players, marks[0])),
        # Their bets are few (one a round each): counted over the whole phase.
        "behind": dataclasses.asdict(copy.deepcopy(backers)),
        "delays": [round(delay, 6) for delay in watching.delays],
        "frames": watching.frames - marks[1],
        "connected": watching.connected,
        "welcomed_in": round(welcomed_in, 3),
    }
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return result


def child() -> None:
    """A bots' process (``--child``): for each job read from stdin (a JSON line), play
    it and write what was seen as a JSON line to stdout."""
    import croupier.server.bots  # noqa: F401  (imported before the first job's clock runs)

    results = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout = sys.stderr  # only results on the pipe

    def say(message: dict[str, Any]) -> None:
        results.write(json.dumps(message) + "\n")
        results.flush()

    async def go() -> float:
        """Say this process's bots are seated; the phase's start, once all are."""
        say({"seated": True})
        line = await asyncio.to_thread(sys.stdin.readline)
        return float(json.loads(line)["start"])

    while line := sys.stdin.readline():
        # On uvloop, as the server is (uvicorn's default where it is installed): the
        # standard loop's selector and callbacks cost the bots about a fifth more CPU.
        say(uvloop.run(play(json.loads(line), go)))


class BotProcesses:
    """The child processes that play the bots and watchers (see :func:`child`)."""

    def __init__(self, count: int, source: Path | None = None) -> None:
        self.children: list[subprocess.Popen[str]] = []
        for _ in range(count):
            self.children.append(
                subprocess.Popen(
                    [sys.executable, str(Path(__file__).resolve()), "--child"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    # The bots of ``source`` (a worktree), or this checkout's.
                    env=environment(source),
                    # Out of the terminal's process group: a Ctrl-C is this process's
                    # to handle, and it ends them.
                    start_new_session=True,
                )
            )

    @property
    def pids(self) -> list[int]:
        """The children's process ids."""
        return [process.pid for process in self.children]

    def send(self, jobs: list[dict[str, Any]]) -> None:
        """Give each child its job."""
        for process, job in zip(self.children, jobs, strict=True):
            assert process.stdin is not None
            process.stdin.write(json.dumps(job) + "\n")
            process.stdin.flush()

    def start(self, earliest: float) -> float:
        """Once every child's bots are seated, the phase's start (the wall clock's
        time): ``earliest``, or half a second from now if that has passed; told to
        each child."""
        self.receive()  # each says {"seated": true}
        start = max(earliest, time.time() + 0.5)
        for process in self.children:
            assert process.stdin is not None
            process.stdin.write(json.dumps({"start": start}) + "\n")
            process.stdin.flush()
        return start

    def receive(self) -> list[dict[str, Any]]:
        """Each child's next line: its bots seated, or its result once it has played
        its job."""
        results = []
        for process in self.children:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"bots' process {process.pid} ended ({process.poll()})")
            results.append(json.loads(line))
        return results

    def close(self) -> None:
        """End the children: told to (no more jobs), else killed."""
        for process in self.children:
            with contextlib.suppress(OSError):
                assert process.stdin is not None
                process.stdin.close()
        deadline = time.monotonic() + 5.0
        for process in self.children:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except (subprocess.TimeoutExpired, KeyboardInterrupt):
                process.kill()
                process.wait()

    def __enter__(self) -> BotProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the servers --------------------------------------------------------------------------------


@dataclass
class Played:
    """One phase against one server: what its bots did, the time measured, the rounds
    closed, each part's CPU seconds, and the settlement histogram over the phase; with
    watchers or bets behind, what they saw."""

    stats: BotStats
    elapsed: float
    rounds: int
    spent: dict[str, float]
    round_close: Histogram | None
    #: Transactions the server's group commit made, and the writes they carried
    #: (``None``: a server without one).
    commits: tuple[float, float] | None = None
    #: The sessions' transactions over the phase, by :data:`SESSION_CHECKS` (``None``:
    #: a server that does not count them).
    session_checks: tuple[float, ...] | None = None
    behind: BotStats = field(default_factory=BotStats)
    #: Seconds until every bot betting behind was signed in and welcomed at the table.
    welcomed_in: float = 0.0
    delays: list[float] = field(default_factory=list)
    frames: int = 0
    connected: int = 0


@dataclass
class Server:
    """One ``croupier serve`` under test: its label, address, database, process and
    bots' accounts, and the phases played against it."""

    label: str
    base: str
    url: str
    process: subprocess.Popen[bytes]
    source: str
    bots: list[tuple[str, str]]
    behind: list[tuple[str, str]]
    meter: Meter | None = None
    #: The bots' processes that play against it.
    pool: BotProcesses | None = None
    played: dict[str, Played] = field(default_factory=dict)

    def closed_rounds(self) -> int:
        """Rounds settled or void so far (read without the write lock, which the
        server's commits hold most of the time flat out on SQLite)."""
        from croupier.server.db import connect

        engine = connect(self.url, read_only=True)
        with engine.connect() as conn:
            count: int = conn.execute(
                sqlalchemy.text("SELECT count(*) FROM rounds WHERE status <> 'open'")
            ).scalar_one()
        engine.dispose()
        return count

    def metrics(self) -> str | None:
        """The server's metrics page now (``None``: it did not answer)."""
        try:
            with urllib.request.urlopen(f"{self.base}/metrics", timeout=10) as answer:
                page: str = answer.read().decode()
                return page
        except OSError:
            return None


def environment(source: Path | None) -> dict[str, str]:
    """The environment of a process that runs the code in ``source`` (a worktree), or
    this checkout's (``None``)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            part for part in (str(source / "src"), env.get("PYTHONPATH")) if part
        )
    return env


def start_server(
    label: str,
    source: Path | None,
    url: str,
    directory: Path,
    arguments: argparse.Namespace,
    tables_path: Path,
    started: list[subprocess.Popen[bytes]],
) -> Server:
    """Prepare the bots' accounts in the database at ``url`` and start a server on it
    with the code in ``source`` (``None``: this checkout's), added to ``started``."""
    prepared = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--prepare",
            url,
            str(arguments.bots + arguments.behind),
        ],
        cwd=source,
        env=environment(source),
        check=True,
        capture_output=True,
        text=True,
    )
    answer = json.loads(prepared.stdout.splitlines()[-1])
    everyone = [(name, token) for name, token in answer["bots"]]
    port = free_port()
    log = (directory / f"serve-{port}.log").open("wb")
    process = subprocess.Popen(
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
        cwd=source,
        env=environment(source),
        # Its own process group: a Ctrl-C does not reach it before this script stops it.
        start_new_session=True,
    )
    log.close()
    started.append(process)
    server = Server(
        label,
        f"http://127.0.0.1:{port}",
        url,
        process,
        answer["source"],
        everyone[: arguments.bots],
        everyone[arguments.bots :],
    )
    wait_ready(server, directory / f"serve-{port}.log")
    wait_figures(server, arguments.workers)
    return server


def wait_ready(server: Server, log: Path) -> None:
    """Wait until ``server`` answers and runs every table."""
    for _ in range(600):
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.label}: the server ended: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{server.base}/api/tables", timeout=5) as answer:
                listed = json.loads(answer.read())
            # Every table run by some worker before the clock starts.
            if all(table["phase"] != "unavailable" for table in listed):
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{server.label}: the server did not start: {log.read_text()[-2000:]}")


def wait_figures(server: Server, workers: int) -> None:
    """Wait until ``server`` has worked out its tables' charts and RTP (``/health``
    says ``figures: ready``; a revision that does not say is taken as ready): with an
    empty cache that is a minute or more of a core, which would be measured as the
    tables' cost.  Each worker answers for itself: ready in a row, as many times over."""
    started, in_a_row = time.monotonic(), 0
    while in_a_row < 3 * workers:
        with urllib.request.urlopen(f"{server.base}/health", timeout=30) as answer:
            ready = json.loads(answer.read()).get("figures", "ready") == "ready"
        in_a_row = in_a_row + 1 if ready else 0
        if not ready:
            time.sleep(0.5)
    waited = time.monotonic() - started
    if waited > 2:
        print(f"  ({server.label} worked out its tables' figures first: {waited:.0f} s)")


def stop_servers(started: list[subprocess.Popen[bytes]]) -> None:
    """Stop each server (SIGTERM: it finishes the rounds in play), all at once; kill
    each process of one that has not stopped within :data:`STOP_SECONDS`, or at once on
    a Ctrl-C."""
    processes: list[psutil.Process] = []
    for server in started:
        with contextlib.suppress(psutil.Error):
            process = psutil.Process(server.pid)
            processes += [process, *process.children(recursive=True)]
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    try:
        for server in started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=max(0.0, deadline - time.monotonic()))
        psutil.wait_procs(processes, timeout=max(0.0, deadline - time.monotonic()))
    except KeyboardInterrupt:
        pass
    for process in processes:
        with contextlib.suppress(psutil.Error):
            if process.is_running():  # the same process: psutil checks its start time
                print(f"killing server process {process.pid}: not stopped", file=sys.stderr)
                process.kill()
    for server in started:
        server.wait()


# -- the phases ---------------------------------------------------------------------------------


def spread(items: list[Any], count: int) -> list[list[Any]]:
    """``items`` dealt to ``count`` processes in turn.

    >>> spread([1, 2, 3, 4, 5], 2)
    [[1, 3, 5], [2, 4]]
    """
    return [items[index::count] for index in range(count)]


def by_table(seats: list[list[Any]], count: int) -> list[list[Any]]:
    """Seated bots (as :func:`seated` gives them) dealt to ``count`` processes a whole
    table at a time, in turn: a table's announcement is then read by one process, which
    wakes once for its seven sockets, where dealt bot by bot it woke both.

    >>> [[bot[0] for bot in part] for part in by_table(
    ...     [["a", "", "t000", 1], ["b", "", "t000", 2], ["c", "", "t001", 1]], 2)]
    [['a', 'b'], ['c']]
    """
    tables = list(dict.fromkeys(bot[2] for bot in seats))
    process = {table: index % count for index, table in enumerate(tables)}
    parts: list[list[Any]] = [[] for _ in range(count)]
    for bot in seats:
        parts[process[bot[2]]].append(bot)
    return parts


def seated(bots: list[tuple[str, str]], table: str | None = None) -> list[list[Any]]:
    """Each bot with its table and box: (name, token, table, box), seven to a table (or
    all at ``table``, in turn at its boxes)."""
    return [
        [name, token, table or f"t{index // BOXES:03d}", index % BOXES + 1]
        for index, (name, token) in enumerate(bots)
    ]


def phase(
    server: Server,
    pool: BotProcesses,
    seconds: float,
    think: float,
    *,
    watchers: int = 0,
    behind: bool = False,
    through_window: bool = False,
    measured: bool = True,
    profile: Path | None = None,
) -> Played:
    """Play ``seconds`` with every bot of ``server`` (and ``watchers`` watchers, and its
    bots betting behind, through the window with ``through_window``) in the bots' processes, and
    measure it (with ``profile``, a file: the server's stacks sampled by py-spy over the
    measured window)."""
    count = len(pool.children)
    lead = SETTLE_SECONDS
    if watchers or behind:
        lead += 2.0 + WATCHER_SPACING * watchers
    if behind:
        lead += BEHIND_SIGN_IN * len(server.behind)
    start = time.time() + 0.5 + lead
    bots = by_table(seated(server.bots), count)
    backers = spread(seated(server.behind, WATCHED) if behind else [], count)
    jobs = [
        {
            "base": server.base,
            "start": start,
            "seconds": seconds,
            "think": think,
            "behind_think": SPREAD_THINK if through_window else BEHIND_THINK,
            "bots": bots[index],
            "behind": backers[index],
            "watchers": watchers // count + (index < watchers % count),
            "spacing": WATCHER_SPACING * count,
        }
        for index in range(count)
    ]
    pool.send(jobs)
    start = pool.start(start)
    time.sleep(max(0.0, start - time.time()))
    meter = server.meter if measured else None
    rounds = server.closed_rounds()
    page_before = server.metrics() if measured else None
    before = meter.read() if meter is not None else {}
    began = time.perf_counter()
    sampler = sampled(server.process.pid, seconds, profile) if profile is not None else None
    time.sleep(max(0.0, start + seconds - time.time()))
    if sampler is not None:
        sampler.wait()
    elapsed = time.perf_counter() - began
    spent = Meter.spent(before, meter.read()) if meter is not None else {}
    rounds = server.closed_rounds() - rounds
    page_after = server.metrics() if measured else None
    results = pool.receive()
    round_close = commits = session_checks = None
    if page_after is not None:
        close_after = histogram(page_after, ROUND_CLOSE)
        close_before = histogram(page_before, ROUND_CLOSE) if page_before else None
        if close_after is not None:  # before any round closed, the page may have none yet
            round_close = close_after - (close_before or Histogram({}, 0.0, 0.0))
        counts = [gauge(page, name) for page in (page_before or "", page_after) for name in COMMITS]
        if None not in counts:
            made_before, carried_before, made, carried = cast("list[float]", counts)
            commits = (made - made_before, carried - carried_before)
        checks = [
            gauge(page, name) for page in (page_before or "", page_after) for name in SESSION_CHECKS
        ]
        if None not in checks:
            values = cast("list[float]", checks)
            half = len(SESSION_CHECKS)
            session_checks = tuple(
                after - before for before, after in zip(values[:half], values[half:], strict=True)
            )
    return Played(
        stats=merged([BotStats(**result["bots"]) for result in results]),
        elapsed=elapsed,
        rounds=rounds,
        spent=spent,
        round_close=round_close,
        commits=commits,
        session_checks=session_checks,
        behind=merged([BotStats(**result["behind"]) for result in results]),
        delays=[delay for result in results for delay in result["delays"]],
        frames=sum(result["frames"] for result in results),
        connected=sum(result["connected"] for result in results),
        welcomed_in=max(result["welcomed_in"] for result in results),
    )


def sampled(pid: int, seconds: float, path: Path) -> subprocess.Popen[bytes]:
    """py-spy sampling the process ``pid`` while it holds the interpreter's lock, for
    ``seconds``, into ``path`` (collapsed stacks: one line a stack, with its count).
    ``--nonblocking``: the server is never paused, so its figures are what they are."""
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile: py-spy is not installed (pip install py-spy)")
    command = [spy, "record", "-p", str(pid), "-d", str(max(1, round(seconds)))]
    command += ["-r", "250", "--gil", "--nonblocking", "--subprocesses"]
    command += ["-f", "raw", "-o", str(path)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def merged(parts: list[BotStats]) -> BotStats:
    """The stats of several processes' bots as one."""
    total = BotStats()
    for part in parts:
        total.actions += part.actions
        total.errors += part.errors
        total.bets_accepted += part.bets_accepted
        total.bets_refused += part.bets_refused
        total.frames += part.frames
        total.rounds += part.rounds
        total.reconnects += part.reconnects
        total.latencies += part.latencies
        total.bet_answers += part.bet_answers
        for code, count in part.error_codes.items():
            total.error_codes[code] = total.error_codes.get(code, 0) + count
        total.last_errors = [*total.last_errors, *part.last_errors][-10:]
    return total


# -- the report ---------------------------------------------------------------------------------


def percentiles(values: list[float]) -> tuple[float, float]:
    """The p50 and p99 of ``values`` in milliseconds (NaN where there are none)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan"), float("nan")
    return statistics.median(ordered) * 1000, ordered[int(0.99 * (len(ordered) - 1))] * 1000


def server_per_action(played: Played) -> float:
    """The server's CPU seconds per action in a phase (NaN without actions)."""
    if not played.stats.actions or "server" not in played.spent:
        return float("nan")
    return played.spent["server"] / played.stats.actions


def bots_per_action(played: Played) -> float:
    """The bots' CPU seconds per action in a phase (NaN without actions)."""
    if not played.stats.actions or "bots" not in played.spent:
        return float("nan")
    return played.spent["bots"] / played.stats.actions


def server_per_frame(played: Played, paced: Played | None) -> float:
    """The server's CPU seconds per frame to a watcher: its CPU in the watchers' phase,
    less what its actions cost at the same pace without watchers, over the frames."""
    if paced is None or not played.frames or "server" not in played.spent:
        return float("nan")
    actions_cost = server_per_action(paced) * played.stats.actions
    return (played.spent["server"] - actions_cost) / played.frames


def report(label: str, played: Played) -> None:
    """Print one phase's figures against one server: what the bots saw, then the CPU
    each part spent (in cores, and per action) and the settlement's commit time."""
    stats, elapsed = played.stats, played.elapsed
    p50, p99 = percentiles(stats.latencies)
    print(
        f"  {label:34s} {played.rounds / elapsed:8.1f} rounds/s "
        f"{stats.actions / elapsed:8.1f} actions/s"
        f"   p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   errors {stats.errors}"
    )
    if stats.bet_answers:
        p50, p99 = percentiles(stats.bet_answers)
        print(
            f"  {'':34s} bets: {len(stats.bet_answers)} answered   p50 {p50:6.1f} ms"
            f"   p99 {p99:6.1f} ms (p50 and p99 above: the decisions, to their events)"
        )
    if stats.error_codes:
        codes = ", ".join(f"{code} {count}" for code, count in sorted(stats.error_codes.items()))
        print(f"  {'':34s} refused: {codes}")
    if played.spent and stats.actions:
        parts = "   ".join(
            f"{part} {seconds / elapsed:4.2f} cores "
            f"({seconds / stats.actions * 1000:.2f} ms an action)"
            for part, seconds in played.spent.items()
            if part in ("server", "bots", "postgres")
        )
        frames = stats.frames / stats.actions
        print(f"  {'':34s} CPU: {parts}   ({frames:.1f} frames to the bots an action)")
        if "loop" in played.spent:
            per = 1000 / stats.actions
            loop, server = played.spent["loop"], played.spent["server"]
            print(
                f"  {'':34s} the server's CPU: its event loop {loop * per:.2f} ms an action,"
                f" its other threads (the writes) {(server - loop) * per:.2f} ms;"
                f" in the kernel {played.spent['kernel'] * per:.2f} ms;"
                f" {played.spent['switches'] / stats.actions:.1f} context switches an action"
                f" ({played.spent['loop_switches'] / stats.actions:.1f} of them the loop's)"
            )
    close = played.round_close
    if close is None:
        print(f"  {'':34s} settlement commit: n/a")
    elif close.count:
        print(
            f"  {'':34s} settlement commit: {close.count:.0f} rounds"
            f"   mean {close.total / close.count * 1000:6.1f} ms"
            f"   p99 {close.quantile(0.99) * 1000:6.1f} ms"
        )
    else:
        print(f"  {'':34s} settlement commit: no round closed")
    if played.commits is not None and played.commits[0]:
        made, carried = played.commits
        print(
            f"  {'':34s} tables' writes: {made:.0f} transactions, {carried / made:.2f} inputs each"
        )
    if played.session_checks is not None:
        waited, renewed, kept = played.session_checks
        print(
            f"  {'':34s} sessions' transactions: {waited:.0f} waited for by a command;"
            f" in the background, {renewed:.0f} marking them in use, {kept:.0f} reading idle ones"
        )


def report_watched(
    indent: str, played: Played, paced: Played | None, watchers: int, behind: int
) -> None:
    """Print what the watchers and the bots betting behind saw in the third phase."""
    backed = played.behind
    if behind:
        p50, p99 = percentiles(backed.bet_answers)
        codes = ", ".join(f"{code} {count}" for code, count in sorted(backed.error_codes.items()))
        print(
            f"  {indent + 'bets behind on ' + WATCHED:34s} {len(backed.bet_answers):8d} bets"
            f"   accepted {backed.bets_accepted}   refused {backed.bets_refused}"
            f"   answered p50 {p50:6.1f} ms   p99 {p99:6.1f} ms"
            f"   ({backed.actions} actions sent)"
        )
        if codes:
            print(f"  {'':34s} refused: {codes}")
            print(f"  {'':34s} the last refusal: {backed.last_errors[-1]}")
        print(
            f"  {'':34s} the {behind} players behind signed in at the table in"
            f" {played.welcomed_in:.1f} s, before its seated players bet"
        )
    if watchers:
        p50, p99 = percentiles(played.delays)
        print(
            f"  {indent + 'a state to each watcher':34s} {len(played.delays):8d} deliveries"
            f"   p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   "
            f"{played.connected} of {watchers} watchers still connected"
        )
        per_frame = server_per_frame(played, paced) * 1e6
        # An estimate by difference: where the actions' own cost varied by more than
        # the watchers cost, it comes out at or below zero, and says so.
        if math.isnan(per_frame) or per_frame > 0:
            cost = f"server CPU {per_frame:6.1f} µs a frame"
        else:
            cost = "server CPU a frame: below the noise of the actions' cost"
        print(
            f"  {indent + 'frames to the watchers':34s} {played.frames:8d} frames"
            f"   {played.frames / played.elapsed:8.1f} a second   {cost}"
        )


def ratio(current: float, anchor: float) -> str:
    """``current / anchor`` as text (``n/a`` where either is unknown, or not above zero:
    an estimate by difference lost in the noise)."""
    if math.isnan(current) or math.isnan(anchor) or anchor <= 0 or current <= 0:
        return "n/a"
    return f"{current / anchor:.2f}"


def parser() -> argparse.ArgumentParser:
    """The command line's options (see the module's text)."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--bots", type=int, default=500)
    options.add_argument("--seconds", type=float, default=30.0)
    options.add_argument("--db", default=None, help="a PostgreSQL server URL (default: SQLite)")
    options.add_argument("--workers", type=int, default=1)
    options.add_argument("--watchers", type=int, default=0)
    options.add_argument(
        "--behind", type=int, default=0, help="bots betting behind on the watched table"
    )
    options.add_argument(
        "--behind-spread",
        action="store_true",
        help=f"the players behind bet through a {SPREAD_BETTING_SECONDS:g} s window, not all "
        "at once",
    )
    options.add_argument(
        "--warmup", type=float, default=10.0, help="seconds of play before the first phase"
    )
    options.add_argument(
        "--bot-processes", type=int, default=1, help="processes playing the bots and watchers"
    )
    options.add_argument(
        "--anchor", default=None, help="a git revision whose server plays the same phases"
    )
    options.add_argument(
        "--anchor-bots",
        action="store_true",
        help="the anchor's phases are played by the anchor's own bots",
    )
    options.add_argument(
        "--profile",
        metavar="DIR",
        default=None,
        help="sample each server's measured windows with py-spy (--gil), into DIR",
    )
    options.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options.add_argument("--prepare", nargs=2, metavar=("URL", "COUNT"), help=argparse.SUPPRESS)
    return options


def main() -> None:
    """Run the phases and print the figures (or, as a child, prepare the accounts or
    play the bots)."""
    options = parser()
    arguments = options.parse_args()
    if arguments.child:
        child()
    elif arguments.prepare:
        import croupier

        url, count = arguments.prepare
        bots = prepare(url, int(count))
        print(json.dumps({"source": str(Path(croupier.__file__).parent), "bots": bots}))
    elif arguments.bot_processes < 1:
        options.error("--bot-processes: at least 1")
    else:
        benchmark(arguments)


def benchmark(arguments: argparse.Namespace) -> None:
    """Start the servers (the anchor's and the current one), play the phases against
    each in turn and print the figures; stop everything, whatever happens."""
    tables = (arguments.bots + BOXES - 1) // BOXES
    started: list[subprocess.Popen[bytes]] = []
    with contextlib.ExitStack() as stack:
        directory = stack.enter_context(tempfile.TemporaryDirectory())
        tables_path = Path(directory) / "tables.toml"
        window = SPREAD_BETTING_SECONDS if arguments.behind_spread else BEHIND_BETTING_SECONDS
        tables_file(tables_path, tables, behind=arguments.behind > 0, window=window)
        sources: list[tuple[str, Path | None]] = []
        if arguments.anchor:
            short = git("rev-parse", "--short", "--verify", f"{arguments.anchor}^{{commit}}")
            sources.append((f"anchor {short}", stack.enter_context(worktree(short, directory))))
        sources.append(("current", None))
        urls = [
            stack.enter_context(database(arguments.db, directory, f"load-{index}"))
            for index in range(len(sources))
        ]
        stack.callback(stop_servers, started)  # before the databases are dropped
        # Ended first: no bot plays on while the servers finish their rounds.
        pool = stack.enter_context(BotProcesses(arguments.bot_processes))
        pools = [pool] * len(sources)
        if arguments.anchor_bots and arguments.anchor:
            pools[0] = stack.enter_context(BotProcesses(arguments.bot_processes, sources[0][1]))
        servers = [
            start_server(label, source, url, Path(directory), arguments, tables_path, started)
            for (label, source), url in zip(sources, urls, strict=True)
        ]
        for server, its_pool in zip(servers, pools, strict=True):
            server.pool = its_pool
            server.meter = Meter(
                server.process.pid, server.pool.pids, postgres=arguments.db is not None
            )
        print(
            f"croupier serve on {urls[0].split(':')[0]}, {arguments.workers} worker(s): "
            f"{arguments.bots} bots at {tables} tables of {BOXES} boxes, "
            f"{arguments.seconds:g} s a phase, {os.cpu_count()} cores shared by server "
            f"and bots ({arguments.bot_processes} bots' process(es))"
        )
        if len(servers) > 1:
            for server in servers:
                print(f"  {server.label}: croupier from {server.source}")
        if arguments.warmup:  # every table's first round, the caches: off the clock
            for server, its_pool in zip(servers, pools, strict=True):
                phase(server, its_pool, arguments.warmup, 1.0, measured=False)
        play_phases(servers, arguments)
        print(
            "  targets: server CPU at most 1.0 ms an action on PostgreSQL (0.8 ms on SQLite), "
            "10 µs a watcher frame; a bet behind answered within 50 ms at p99; "
            "the bots at most 0.3 ms an action"
        )


def profile_path(directory: str | None, label: str, key: str) -> Path | None:
    """Where ``--profile`` puts a phase's samples of a server (``None``: not asked)."""
    if directory is None:
        return None
    Path(directory).mkdir(parents=True, exist_ok=True)
    return Path(directory) / f"{re.sub(r'[^A-Za-z0-9]+', '-', label).strip('-')}-{key}.txt"


def quiet(others: list[Server]) -> None:
    """Wait until ``others`` (the servers not about to be measured) are done with what
    their last phase left them (rounds played out, departed bots' turns run out): at
    most :data:`QUIET_CORES` of CPU each over a second, for at most
    :data:`QUIET_SECONDS_MOST`.  Measured while the server before it wound down, a
    server's phase shared the machine with it: run against itself (the same revision
    as anchor and current), the ratio came out 0.89 paced and 1.09 flat out."""
    deadline = time.monotonic() + QUIET_SECONDS_MOST
    meters = [other.meter for other in others if other.meter is not None]
    while meters and time.monotonic() < deadline:
        before = [meter.read() for meter in meters]
        time.sleep(1.0)
        after = [meter.read() for meter in meters]
        busiest = max(
            Meter.spent(was, now).get("server", 0.0) for was, now in zip(before, after, strict=True)
        )
        if busiest <= QUIET_CORES:
            return
    if meters:
        print(f"  (another server still busy after {QUIET_SECONDS_MOST:g} s: measured anyway)")


def play_phases(servers: list[Server], arguments: argparse.Namespace) -> None:
    """Play each measured phase against each server in turn, and print its figures
    (with an anchor, the current/anchor ratios after each phase)."""
    titles = {"paced": "each bot acting once a second", "flat": "bots acting as fast as allowed"}
    if arguments.watchers or arguments.behind:
        crowd = [f"{arguments.watchers} watchers"] if arguments.watchers else []
        if arguments.behind:
            how = f"through {SPREAD_BETTING_SECONDS:g} s" if arguments.behind_spread else "at once"
            crowd.append(f"{arguments.behind} behind ({how})")
        titles["watched"] = f"same, {' and '.join(crowd)} on {WATCHED}"
    several = len(servers) > 1
    for key, title in titles.items():
        if several:
            print(f"  {title}")
        for server in servers:
            watched = key == "watched"
            assert server.pool is not None
            quiet([other for other in servers if other is not server])
            if arguments.warmup and not watched:
                # The rounds the last phase's bots left waiting (a turn runs out after
                # the table's decision clock) are played out first, off the clock, as
                # at the start: else the first server's phase would find its tables
                # fresh and the next server's found them waiting.
                phase(
                    server,
                    server.pool,
                    REWARM_SECONDS,
                    0.0 if key == "flat" else 1.0,
                    measured=False,
                )
            played = phase(
                server,
                server.pool,
                arguments.seconds,
                0.0 if key == "flat" else 1.0,
                watchers=arguments.watchers if watched else 0,
                behind=watched,
                through_window=arguments.behind_spread,
                profile=profile_path(arguments.profile, server.label, key),
            )
            server.played[key] = played
            report(f"  {server.label}" if several else title, played)
            if watched:
                paced = server.played.get("paced")
                indent = "  " if several else ""
                report_watched(indent, played, paced, arguments.watchers, arguments.behind)
        if several:
            anchor, current = (server.played[key] for server in servers)
            line = (
                f"  {'  current/anchor':34s} server CPU per action "
                f"{ratio(server_per_action(current), server_per_action(anchor))}"
            )
            if key == "watched" and arguments.watchers:
                frame = [
                    server_per_frame(server.played[key], server.played.get("paced"))
                    for server in servers
                ]
                line += f"   per watcher frame {ratio(frame[1], frame[0])}"
            if arguments.anchor_bots:
                bots = [bots_per_action(server.played[key]) for server in servers]
                line += f"   bots' CPU per action {ratio(bots[1], bots[0])}"
            print(line)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # everything was stopped on the way out
        sys.exit(130)
