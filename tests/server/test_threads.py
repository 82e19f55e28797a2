"""The server's worker threads: the last one idle works next, and work is never lost."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import CancelledError, Future

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.server.threads import WarmPool, warm_default


def _name() -> str:
    return threading.current_thread().name


def test_one_thing_at_a_time_is_done_by_one_thread() -> None:
    """A pool doing one thing at a time wakes the thread that went idle last: the
    first does everything, however many the pool may start."""
    pool = WarmPool(most=6, name="w")
    names = [pool.submit(_name).result() for _ in range(200)]
    pool.shutdown()
    assert set(names) == {"w-0"}


def test_the_thread_idle_the_shortest_time_works_next() -> None:
    """Three busy at once start three threads; afterwards, work goes to the last of
    them to finish, not the first."""
    pool = WarmPool(most=3, name="w")
    gates = [threading.Event() for _ in range(3)]
    started = threading.Barrier(4)

    def hold(gate: threading.Event) -> str:
        started.wait()
        gate.wait()
        return _name()

    futures = [pool.submit(hold, gate) for gate in gates]
    started.wait()  # all three are running, each in a thread of its own
    finished: list[str] = []
    for gate, future in zip(gates, futures, strict=True):
        gate.set()
        finished.append(future.result())
    assert sorted(finished) == ["w-0", "w-1", "w-2"]
    assert pool.submit(_name).result() == finished[-1]
    pool.shutdown()


def test_work_beyond_the_threads_waits_its_turn_in_order() -> None:
    """With every thread busy, work waits, and is taken in the order it came by the
    threads as they finish: never more threads than ``most``."""
    pool = WarmPool(most=1, name="w")
    gate = threading.Event()
    busy = pool.submit(gate.wait)
    done: list[int] = []
    waiting = [pool.submit(done.append, n) for n in range(5)]
    assert not any(future.done() for future in waiting)
    gate.set()
    busy.result()
    for future in waiting:
        future.result()
    assert done == [0, 1, 2, 3, 4]
    pool.shutdown()

    pool = WarmPool(most=2, name="x")
    gate = threading.Event()
    names = [pool.submit(lambda: (gate.wait(), _name())[1]) for _ in range(8)]
    gate.set()
    assert {future.result() for future in names} == {"x-0", "x-1"}
    pool.shutdown()


def test_an_error_goes_to_its_caller_and_the_thread_works_on() -> None:
    pool = WarmPool(most=1, name="w")

    def fail() -> None:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        pool.submit(fail).result()
    assert pool.submit(sum, [2, 3]).result() == 5
    pool.shutdown()


def test_shutdown_finishes_what_was_given_and_refuses_more() -> None:
    """``shutdown()`` waits for the work in hand and the work waiting; after it, a
    submission is refused; ``cancel_futures`` cancels what still waits for a thread."""
    pool = WarmPool(most=1, name="w")
    gate = threading.Event()
    first = pool.submit(gate.wait)
    later = pool.submit(sum, [1, 1])
    threading.Timer(0.05, gate.set).start()
    pool.shutdown(wait=True)
    assert first.result() is True and later.result() == 2
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(sum, [1])

    pool = WarmPool(most=1, name="v")
    gate = threading.Event()
    running = pool.submit(gate.wait)
    waiting: Future[int] = pool.submit(sum, [1])
    pool.shutdown(wait=False, cancel_futures=True)
    gate.set()
    assert running.result() is True
    with pytest.raises(CancelledError):
        waiting.result()


@settings(max_examples=25, deadline=None)
@given(most=st.integers(1, 4), senders=st.integers(1, 4), each=st.integers(0, 30))
def test_every_submission_is_run_once_from_any_number_of_threads(
    most: int, senders: int, each: int
) -> None:
    """Submitted from several threads at once, every piece of work runs exactly once
    and its caller gets its own result."""
    pool = WarmPool(most=most, name="h")
    ran: list[int] = []
    lock = threading.Lock()

    def work(n: int) -> int:
        with lock:
            ran.append(n)
        return n * n

    futures: list[list[Future[int]]] = [[] for _ in range(senders)]

    def send(sender: int) -> None:
        for n in range(each):
            futures[sender].append(pool.submit(work, sender * 1000 + n))

    threads = [threading.Thread(target=send, args=(s,)) for s in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for sender, sent in enumerate(futures):
        assert [future.result() for future in sent] == [
            (sender * 1000 + n) ** 2 for n in range(each)
        ]
    pool.shutdown()
    assert sorted(ran) == sorted(s * 1000 + n for s in range(senders) for n in range(each))


def test_a_loops_default_executor_is_made_warm_once() -> None:
    """``asyncio.to_thread`` runs in the pool; a second server on the loop keeps it."""

    async def run() -> tuple[str, str]:
        loop = asyncio.get_running_loop()
        warm_default(loop)
        first = await asyncio.to_thread(_name)
        warm_default(loop)
        return first, await asyncio.to_thread(_name)

    assert asyncio.run(run()) == ("croupier-0", "croupier-0")
