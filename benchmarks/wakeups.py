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

    python benchmarks/wakeups.py [--times 2000]

Each line is the process's CPU (user and system) per wake-up, over ``--times`` of them.
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import select
import threading
import time
from collections.abc import Callable

import uvloop

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


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--times", type=int, default=2000)
    times = options.parse_args().times
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


if __name__ == "__main__":
    main()
