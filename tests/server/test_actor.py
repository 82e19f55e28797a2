"""One actor per table: work in order, off the event loop, clocks by deadline."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pytest

from croupier.server.actor import TableActor


@dataclass
class Deadline:
    at: float


@dataclass
class FakeTable:
    """A table whose clock records its ticks; ``fail`` ticks raise first."""

    deadline: Deadline | None = None
    fail: int = 0
    ticks: list[float] = field(default_factory=list)

    def tick(self, now: float) -> str | None:
        if self.deadline is None or now < self.deadline.at:
            return None
        if self.fail:
            self.fail -= 1
            raise RuntimeError("the database went away")
        self.ticks.append(now)
        self.deadline = None
        return "ticked"


def test_work_runs_in_order_each_announced_before_the_next_begins() -> None:
    log: list[str] = []

    async def scenario() -> None:
        actor = TableActor("t", FakeTable(), clock=time.time)
        actor.start()

        def work(name: str) -> str:
            log.append(f"run {name}")
            return name

        async def announce(name: str) -> None:
            await asyncio.sleep(0)  # a yield to the loop: the next work still waits
            log.append(f"announce {name}")

        results = await asyncio.gather(
            *(actor.call(partial(work, n), announce) for n in ("a", "b", "c"))
        )
        await actor.stop()
        assert results == ["a", "b", "c"]

    asyncio.run(scenario())
    assert log == ["run a", "announce a", "run b", "announce b", "run c", "announce c"]


def test_a_slow_write_at_one_table_blocks_neither_the_loop_nor_another_table() -> None:
    """The work runs in a worker thread: while one table waits on its database, the
    event loop answers and another table's work completes."""
    release = threading.Event()
    finished: list[str] = []

    async def scenario() -> None:
        slow = TableActor("slow", FakeTable(), clock=time.time)
        quick = TableActor("quick", FakeTable(), clock=time.time)
        slow.start()
        quick.start()

        def stuck() -> str:
            assert release.wait(30), "never released"
            return "slow"

        slow_call = asyncio.ensure_future(slow.call(stuck))
        await asyncio.sleep(0)
        finished.append(await quick.call(lambda: "quick"))
        release.set()
        finished.append(await slow_call)
        await slow.stop()
        await quick.stop()

    asyncio.run(scenario())
    assert finished == ["quick", "slow"]


def test_a_refused_command_reaches_its_caller_and_the_actor_runs_on() -> None:
    async def scenario() -> str:
        actor = TableActor("t", FakeTable(), clock=time.time)
        actor.start()

        def refuse() -> None:
            raise ValueError("cannot stand: not your turn")

        with pytest.raises(ValueError, match="not your turn"):
            await actor.call(refuse)
        result = await actor.call(lambda: "next")
        await actor.stop()
        return result

    assert asyncio.run(scenario()) == "next"


def test_the_clock_fires_at_the_deadline_without_any_polling_setting() -> None:
    """With a real clock and no recheck interval the actor sleeps exactly until the
    table's deadline and runs its clock then; the outcome is announced."""
    announced: list[str] = []

    async def scenario() -> FakeTable:
        table = FakeTable(Deadline(time.time() + 0.05))
        done = asyncio.Event()

        async def on_tick(outcome: str) -> None:
            announced.append(outcome)
            done.set()

        actor = TableActor("t", table, clock=time.time, on_tick=on_tick)
        actor.start()
        await asyncio.wait_for(done.wait(), 30)
        await actor.stop()
        return table

    table = asyncio.run(scenario())
    assert announced == ["ticked"]
    assert len(table.ticks) == 1 and table.deadline is None


def test_a_clock_that_fails_is_retried_until_it_succeeds() -> None:
    """A database error when a timer fires leaves the deadline in place; the actor tries
    again and the table does not stay stuck (the fault the server's clock must survive)."""

    async def scenario() -> FakeTable:
        table = FakeTable(Deadline(time.time()), fail=2)
        done = asyncio.Event()

        async def on_tick(_: str) -> None:
            done.set()

        actor = TableActor("t", table, clock=time.time, on_tick=on_tick)
        actor.start()
        await asyncio.wait_for(done.wait(), 30)
        await actor.stop()
        return table

    table = asyncio.run(scenario())
    assert table.fail == 0 and len(table.ticks) == 1


def test_a_clock_moved_by_hand_is_read_again_after_recheck_seconds() -> None:
    """A test clock that jumps wakes nobody: ``recheck_seconds`` bounds the sleep."""
    now = [1000.0]

    async def scenario() -> FakeTable:
        table = FakeTable(Deadline(1005.0))
        done = asyncio.Event()

        async def on_tick(_: str) -> None:
            done.set()

        actor = TableActor("t", table, clock=lambda: now[0], recheck_seconds=0.01)
        actor.on_tick = on_tick
        actor.start()
        await asyncio.sleep(0.05)
        assert table.ticks == []  # not yet due on the table's clock
        now[0] += 6
        await asyncio.wait_for(done.wait(), 30)
        await actor.stop()
        return table

    assert asyncio.run(scenario()).ticks == [1006.0]


@dataclass
class BatchingTable(FakeTable):
    """A table that records the inputs it was asked to run together (in a thread of
    their own, as a table's inputs run on the thread that commits them)."""

    batches: list[int] = field(default_factory=list)

    async def run_together(self, runs: list[Any]) -> list[tuple[Any, Exception | None]]:
        self.batches.append(len(runs))

        def together() -> list[tuple[Any, Exception | None]]:
            done: list[tuple[Any, Exception | None]] = []
            for run in runs:
                try:
                    done.append((run(), None))
                except Exception as error:
                    done.append((None, error))
            return done

        return await asyncio.to_thread(together)


def test_inputs_queued_side_by_side_run_together_each_answered_and_announced_in_order() -> None:
    log: list[str] = []
    table = BatchingTable()

    async def scenario() -> None:
        actor = TableActor("t", table, clock=time.time)
        actor.start()
        gate = threading.Event()

        def work(name: str) -> str:
            if name == "refused":
                raise ValueError("no such bet")
            log.append(f"run {name}")
            return name

        async def announce(name: str) -> None:
            log.append(f"announce {name}")

        # The first piece holds the actor while the others queue behind it.
        first = asyncio.ensure_future(actor.call(lambda: gate.wait(10)))
        await asyncio.sleep(0.05)
        calls = [
            actor.call(partial(work, name), announce, together=True)
            for name in ("a", "refused", "b")
        ]
        calls.append(actor.call(partial(work, "alone"), announce))
        calls.append(actor.call(partial(work, "c"), announce, together=True))
        waiting = asyncio.gather(*calls, return_exceptions=True)
        await asyncio.sleep(0.05)
        gate.set()
        await first
        results = await waiting
        await actor.stop()
        assert results[0] == "a" and results[2] == "b" and results[3:] == ["alone", "c"]
        assert isinstance(results[1], ValueError)

    asyncio.run(scenario())
    # a, the refused one and b run together; a work not an input runs alone and splits
    # the queue; c, alone behind it, is an input run together by itself.
    assert table.batches == [3, 1]
    assert log == [
        "run a",
        "run b",
        "announce a",
        "announce b",
        "run alone",
        "announce alone",
        "run c",
        "announce c",
    ]
