"""What a wake-up costs on this machine: the CPU a thread spends each time it sleeps
and is woken, as the table server's threads are at every action of a paced load.

The server's CPU an action (``benchmarks/load.py``) is work and wake-ups: a paced
action wakes the event loop for its message, a worker thread for its write and the loop
again for the answer, and each of its database round trips is a sleep and a wake-up of
the committing thread.  On a machine where a wake-up is dear (a virtual machine whose
idle processor sleeps) a paced action costs more than the same action flat out, where
the loop and the threads rarely sleep.  This prints the CPU of each kind of wake-up
here, beside the CPU of a fixed piece of plain Python work, so that two machines'
figures can be told apart::

    python benchmarks/wakeups.py [--times 2000] [--idle-seconds 10] [--db postgresql://...]

Each line is the process's CPU (user and system) per wake-up, over ``--times`` of them.
Then the same sleep at several lengths: on a virtual machine a thread woken after a
long sleep pays for the caches it finds cold, so a server's threads that wake seldom
(its timers) pay more each time than one kept busy.  Then paced work handed to a pool
of worker threads, as the server hands its writes: the standard library's
``ThreadPoolExecutor`` beside the server's ``WarmPool`` (the thread idle the shortest
time works next), alternated in the same run.  With ``--db postgresql://...``, a one-row
statement every 4 ms, as a paced table's decisions are written: sent by a worker thread,
and from the event loop itself (psycopg's asynchronous connection), in turn.  Last, a
server with nothing to do:
``croupier serve`` with 72 tables and no player, its CPU over ``--idle-seconds``
(Linux's ``/proc``: its event loop's thread, and the others), what every action of a
paced load shares; on a new SQLite file, or with ``--db`` on that database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import resource
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import uvloop

from croupier.server.threads import THREADS, WarmPool

#: Seconds each sleep asks for: the order of a paced table's gaps between messages.
NAP = 0.002


def cpu_each(run: Callable[[int], object], times: int) -> float:
    """Microseconds of this process's CPU for each of ``times`` runs of ``run``."""
    began = time.process_time()
    run(times)
    return (time.process_time() - began) / times * 1e6


def plain_work(times: int) -> None:
    """A fixed piece of plain Python work (a loop of 10,000 additions), ``times`` times."""
    for _ in range(times):
        total = 0
        for number in range(10_000):
            total += number


def sleeps(times: int) -> None:
    for _ in range(times):
        time.sleep(NAP)


def polls(times: int) -> None:
    poller = select.epoll()
    try:
        for _ in range(times):
            poller.poll(NAP)
    finally:
        poller.close()


def ping_pong(times: int) -> None:
    """A thread hands work to another and waits for its answer (both sleep in turn)."""
    asked: queue.SimpleQueue[int] = queue.SimpleQueue()
    answered: queue.SimpleQueue[int] = queue.SimpleQueue()

    def answer() -> None:
        for _ in range(times):
            answered.put(asked.get())

    other = threading.Thread(target=answer)
    other.start()
    for number in range(times):
        asked.put(number)
        answered.get()
    other.join()


async def loop_sleeps(times: int) -> None:
    for _ in range(times):
        await asyncio.sleep(NAP)


async def to_thread(times: int) -> None:
    for _ in range(times):
        await asyncio.to_thread(int)


def sleeps_of(seconds: float) -> Callable[[int], None]:
    """``time.sleep(seconds)``, a given number of times."""

    def run(times: int) -> None:
        for _ in range(times):
            time.sleep(seconds)

    return run


#: Memory a piece of pooled work reads (a table's record and views, in the server).
_TOUCHED = {number: str(number) * 3 for number in range(20_000)}


def pooled_piece(number: int) -> int:
    """A piece of a worker thread's work: reads a few thousand of ``_TOUCHED``'s entries,
    then waits half a millisecond as for a database's answer."""
    total = 0
    for index in range(0, 20_000, 7):
        total += len(_TOUCHED[(index * 31 + number) % 20_000])
    time.sleep(0.0005)
    return total


async def paced_pool(pool: Executor, seconds: float) -> tuple[float, float]:
    """Hand ``pool`` a piece every 8 ms for ``seconds`` (a few hundred a second, as a
    paced table server's writes), waiting for each: the process's CPU (µs) and context
    switches a piece."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    end = time.perf_counter() + seconds
    pieces = 0
    while time.perf_counter() < end:
        await asyncio.wrap_future(pool.submit(pooled_piece, pieces))
        pieces += 1
        await asyncio.sleep(0.008)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    switches = after.ru_nvcsw - before.ru_nvcsw + after.ru_nivcsw - before.ru_nivcsw
    return cpu / pieces * 1e6, switches / pieces


async def pools(seconds: float, rounds: int = 3) -> dict[str, list[tuple[float, float]]]:
    """:func:`paced_pool` on each pool in turn, ``rounds`` times; every thread of each
    started first."""
    each: dict[str, Executor] = {
        "ThreadPoolExecutor": ThreadPoolExecutor(max_workers=THREADS),
        "WarmPool": WarmPool(most=THREADS, name="warm"),
    }
    for pool in each.values():
        await asyncio.gather(
            *(asyncio.wrap_future(pool.submit(pooled_piece, n)) for n in range(2 * THREADS))
        )
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in each}
    for _ in range(rounds):
        for name, pool in each.items():
            figures[name].append(await paced_pool(pool, seconds))
    for pool in each.values():
        pool.shutdown()
    return figures


async def paced_statements(url: str, seconds: float, rounds: int = 3) -> dict[str, list[float]]:
    """A one-row statement to PostgreSQL at ``url`` every 4 ms, as a paced table's
    decisions are written, waited for on uvloop: sent by a worker thread (psycopg, as
    the writes' pool sends it) and from the event loop itself (psycopg's asynchronous
    connection, as :class:`~croupier.server.loop_writes.LoopWrites` sends it), in turn;
    the process's CPU (µs) a statement, less that of the loop's 4 ms sleep alone."""
    import psycopg

    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    blocking = psycopg.connect(conninfo, autocommit=True)
    looped = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    pool = WarmPool(most=1, name="writes")
    sql = "SELECT %s::int"

    def written(value: int) -> object:
        return blocking.execute(sql, (value,)).fetchall()

    async def by_thread(value: int) -> object:
        return await asyncio.wrap_future(pool.submit(written, value))

    async def from_loop(value: int) -> object:
        return await (await looped.execute(sql, (value,))).fetchall()

    async def asleep(_value: int) -> object:
        return None

    async def paced(send: Callable[[int], Any]) -> float:
        began, end, count = time.process_time(), time.perf_counter() + seconds, 0
        while time.perf_counter() < end:
            await send(count)
            count += 1
            await asyncio.sleep(0.004)
        return (time.process_time() - began) / count * 1e6

    each = {"by a worker thread": by_thread, "from the event loop": from_loop}
    figures: dict[str, list[float]] = {name: [] for name in each}
    for _ in range(rounds):
        alone = await paced(asleep)
        for name, send in each.items():
            figures[name].append(await paced(send) - alone)
    pool.shutdown()
    blocking.close()
    await looped.close()
    return figures


#: Tables of the idle server: as many as ``benchmarks/load.py`` runs for 500 bots.
IDLE_TABLES = 72


def idle_server(seconds: float, db: str | None = None) -> tuple[float, float, float]:
    """``croupier serve`` with :data:`IDLE_TABLES` tables and nobody connected, on a new
    SQLite database (``db``: on that database, which it migrates), once its figures are
    ready: the cores its event loop's thread and its other threads spent over
    ``seconds``, and their context switches a second."""
    with tempfile.TemporaryDirectory() as directory:
        tables = Path(directory, "tables.toml")
        tables.write_text(
            "\n".join(
                f'[[table]]\nid = "t{n:03d}"\npreset = "rws-v5"\n' for n in range(IDLE_TABLES)
            )
        )
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = [sys.executable, "-m", "croupier", "serve", "--port", str(port)]
        command += ["--db", db or f"sqlite:///{directory}/idle.db", "--tables", str(tables)]
        server = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                health = f"http://127.0.0.1:{port}/health"
                with (
                    contextlib.suppress(OSError, ValueError),
                    urllib.request.urlopen(health) as answer,
                ):
                    if json.loads(answer.read()).get("figures") == "ready":
                        break
                time.sleep(0.5)
            else:
                raise RuntimeError("the idle server did not start within 2 minutes")
            time.sleep(2.0)  # the start's last work done
            before = _threads(server.pid)
            time.sleep(seconds)
            after = _threads(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    spent = {
        tid: (cpu - before.get(tid, (0, 0))[0], n - before.get(tid, (0, 0))[1])
        for tid, (cpu, n) in after.items()
    }
    loop = spent.get(server.pid, (0, 0))[0]
    others = sum(cpu for tid, (cpu, _) in spent.items() if tid != server.pid)
    switches = sum(n for _, n in spent.values())
    return loop / seconds, others / seconds, switches / seconds


def _threads(pid: int) -> dict[int, tuple[float, int]]:
    """Each thread of ``pid``: its CPU seconds and its context switches so far
    (``/proc/PID/task/TID/schedstat``: nanoseconds on a processor, ..., times run)."""
    found = {}
    for stat in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        with contextlib.suppress(OSError, ValueError):
            on_cpu, _, runs = stat.read_text().split()[:3]
            found[int(stat.parent.name)] = (int(on_cpu) / 1e9, int(runs))
    return found


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--times", type=int, default=2000)
    options.add_argument("--idle-seconds", type=float, default=10.0)
    options.add_argument(
        "--db", help="the idle server's database (default: a new SQLite file), e.g. postgresql://"
    )
    arguments = options.parse_args()
    times = arguments.times
    print(f"CPU a wake-up on this machine, {times} of each ({NAP * 1000:.0f} ms sleeps):")
    rows = [
        ("10,000 additions (plain work, for scale)", cpu_each(plain_work, max(1, times // 4))),
        ("time.sleep", cpu_each(sleeps, times)),
        ("epoll.poll with a timeout", cpu_each(polls, times)),
        ("two threads handing work back and forth", cpu_each(ping_pong, times)),
        ("asyncio.sleep on uvloop", cpu_each(lambda n: uvloop.run(loop_sleeps(n)), times)),
        ("asyncio.to_thread on uvloop", cpu_each(lambda n: uvloop.run(to_thread(n)), times)),
    ]
    for label, micros in rows:
        print(f"  {label:44s} {micros:8.1f} µs CPU each")
    print("time.sleep by how long the thread slept (about 2 s of each):")
    for nap in (0.002, 0.02, 0.2, 0.5):
        each = cpu_each(sleeps_of(nap), max(4, round(2 / nap)))
        print(f"  {f'{nap * 1000:g} ms':44s} {each:8.1f} µs CPU each")
    print(
        f"paced work handed to {THREADS} worker threads, a piece every 8 ms (about 4 s of"
        " each, three times, in turn):"
    )
    for name, figures in asyncio.run(pools(4.0)).items():
        cpu = " ".join(f"{micros:6.1f}" for micros, _ in figures)
        counts = " ".join(f"{count:4.1f}" for _, count in figures)
        print(f"  {name:22s} µs CPU a piece {cpu}   context switches a piece {counts}")
    if arguments.db is not None and arguments.db.startswith("postgresql"):
        print(
            "a one-row statement to PostgreSQL every 4 ms (about 3 s of each, three times, in"
            " turn; the loop's sleep alone taken off):"
        )
        for name, spent in uvloop.run(paced_statements(arguments.db, 3.0)).items():
            print(f"  sent {name:22s} µs CPU a statement {' '.join(f'{m:6.1f}' for m in spent)}")
    if not os.path.isdir("/proc/self/task"):
        print("an idle server: not measured (no /proc here)")
        return
    loop, others, switches = idle_server(arguments.idle_seconds, arguments.db)
    where = "SQLite" if arguments.db is None else arguments.db.partition(":")[0]
    print(
        f"croupier serve on {where} with {IDLE_TABLES} tables and nobody at them, over "
        f"{arguments.idle_seconds:g} s: its event loop {loop:.3f} cores, its other threads "
        f"{others:.3f} cores, {switches:.0f} context switches a second"
    )


if __name__ == "__main__":
    main()
