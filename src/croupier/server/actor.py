"""One actor per table: its commands, clocks and broadcasts, one at a time and in order.

A table's state is touched only by its actor.  Each piece of work (a player's command,
a seat taken, a clock running out, a view asked for) waits in the actor's queue; the
actor runs it in a worker thread, so the database writes it makes never block the event
loop, and then, back on the loop and before the next piece of work starts, hands the
result to whatever announces it (the broadcast).  Nothing else reads or writes the table
meanwhile, so no view is ever built from a half-applied command.

The actor sleeps until the table's next deadline (a betting countdown, a decision timer)
or until work arrives, whichever is first: there is no polling loop.  A clock that a test
moves by hand cannot wake anyone, so such tests give ``recheck_seconds``: the longest the
actor sleeps before it reads the clock again.

>>> import asyncio
>>> class Quiet:  # a table with no deadline
...     deadline = None
...     def tick(self, now: float) -> None: ...
>>> async def demo() -> list[int]:
...     actor = TableActor("demo", Quiet(), clock=lambda: 0.0)
...     actor.start()
...     seen = [await actor.call(lambda: 1 + 1), await actor.call(lambda: 3)]
...     await actor.stop()
...     return seen
>>> asyncio.run(demo())
[2, 3]
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from croupier.server.ownership import TableLost

__all__ = ["RETRY_SECONDS", "TableActor", "stop_task"]

_log = logging.getLogger("croupier.server")

R = TypeVar("R")

#: Seconds before a clock whose work failed (a database error) is tried again.
RETRY_SECONDS = 0.5
#: The most inputs run together as one write.
MOST_TOGETHER = 64


async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` (if any) and wait until it has ended."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


class _Deadline(Protocol):
    @property
    def at(self) -> float: ...


class _Table(Protocol):
    @property
    def deadline(self) -> _Deadline | None: ...

    def tick(self, now: float) -> Any: ...


@dataclass
class _Work:
    #: ``None``: only a place in the queue (its ``then`` runs in turn, on the loop).
    run: Callable[[], Any] | None
    then: Callable[[Any], Awaitable[None]] | None
    done: asyncio.Future[Any] | None
    #: When it was queued (the loop's monotonic clock).
    queued: float
    #: An input that may be run together with the inputs queued beside it.
    together: bool = False
    #: Run on the loop, in turn, not in a worker thread (see :meth:`TableActor.call`).
    inline: bool = False


class TableActor:
    """The one task that applies a table's work in order (see the module's text).

    Args:
        name: the table's id, for the log.
        table: the table's runtime: its ``deadline`` and ``tick(now)``.
        clock: the time in seconds, in the deadlines' terms.
        on_tick: what announces a clock's outcome (run on the loop, before the next work).
        recheck_seconds: the longest the actor sleeps before reading the clock again
            (``None``: exactly until the next deadline).
        on_lost: told when a piece of work finds that this process no longer holds the
            table (:class:`~croupier.server.ownership.TableLost`): the table is to be
            given up at once.
    """

    def __init__(
        self,
        name: str,
        table: _Table,
        *,
        clock: Callable[[], float],
        on_tick: Callable[[Any], Awaitable[None]] | None = None,
        recheck_seconds: float | None = None,
        on_lost: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.on_lost = on_lost
        self.table = table
        self.clock = clock
        self.on_tick = on_tick
        self.recheck_seconds = recheck_seconds
        self._work: deque[_Work] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._retry_at: float | None = None
        #: Seconds the last piece of work waited in the queue (the table's lag).
        self.lag = 0.0
        #: While a result of inputs run together is announced: whether one of the same
        #: commit comes after it (its announcement can wait for theirs).
        self.more_to_announce = False

    # -- asking ----------------------------------------------------------------------------------

    async def call(
        self,
        run: Callable[[], R],
        then: Callable[[R], Awaitable[None]] | None = None,
        *,
        together: bool = False,
        inline: bool = False,
    ) -> R:
        """Run ``run`` in turn (in a worker thread), then ``then`` with its result on the loop.

        With ``together``, ``run`` is an input to the table: it is run with the inputs
        queued beside it as one write (the table's ``run_together``), and each one's
        ``then`` follows in order once they have all been committed.

        With ``inline``, ``run`` is run on the loop itself, in turn: for a read of the
        table in memory that takes less than a worker thread's hand-over and back (a
        view, a seat marked away).  A crowd arriving at once (a thousand players
        behind a box, or coming back after a failover) costs each a view, not a view
        and two thread switches, each of which may wait for the interpreter's lock
        while the loop is busy.

        Returns what ``run`` returned, or raises what it raised (``then`` is skipped).
        """
        loop = self._running()
        done: asyncio.Future[Any] = loop.create_future()
        self._work.append(_Work(run, then, done, loop.time(), together, inline))
        self._wake.set()
        result: R = await done
        return result

    def post(
        self,
        run: Callable[[], Any] | None,
        then: Callable[[Any], Awaitable[None]] | None = None,
        *,
        inline: bool = False,
    ) -> None:
        """Queue ``run`` in turn without waiting for it (its failure is logged); with
        ``run`` None, only ``then`` (with None), in turn, on the loop."""
        self._work.append(_Work(run, then, None, self._running().time(), inline=inline))
        self._wake.set()

    @property
    def waiting(self) -> int:
        """Pieces of work in the queue."""
        return len(self._work)

    # -- running ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the actor's task on the running loop."""
        self._running()

    def _running(self) -> asyncio.AbstractEventLoop:
        """The running loop, with the actor's task started on it.

        A server started without its lifespan (some ASGI test clients call the app
        that way, each request on a loop of its own) still gets its work done: the
        actor follows the loop its callers are on.
        """
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._task is None or self._task.done():
            self._loop = loop
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._run(), name=f"table {self.name}")
        return loop

    async def stop(self) -> None:
        """Stop after the work in hand; queued callers get ``CancelledError``."""
        if self._task is None:
            return
        await stop_task(self._task)
        self._task = None
        self._loop = None
        while self._work:
            work = self._work.popleft()
            if work.done is not None and not work.done.done():
                work.done.cancel()

    async def _run(self) -> None:
        while True:
            while self._work:
                work = self._work.popleft()
                if not work.together:
                    await self._do(work)
                    continue
                batch = [work]
                while self._work and self._work[0].together and len(batch) < MOST_TOGETHER:
                    batch.append(self._work.popleft())
                await self._do_together(batch)
            await self._clock()
            if self._work:
                continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                # A timer, not the task per wait that ``wait_for`` makes.
                async with asyncio.timeout(self._sleep()):
                    await self._wake.wait()

    def _sleep(self) -> float | None:
        """Seconds until the next thing the clock must do (None: nothing is due)."""
        due: float | None = None
        if self._retry_at is not None:
            due = self._retry_at - asyncio.get_running_loop().time()
        else:
            deadline = self.table.deadline
            if deadline is not None:
                due = deadline.at - self.clock()
        if due is not None:
            due = max(due, 0.0)
        if self.recheck_seconds is not None:
            due = self.recheck_seconds if due is None else min(due, self.recheck_seconds)
        return due

    async def _do(self, work: _Work) -> None:
        if work.done is not None and work.done.done():  # its caller went away
            return
        self.lag = asyncio.get_running_loop().time() - work.queued
        try:
            if work.run is None:
                result = None
            elif work.inline:
                result = work.run()
            else:
                result = await asyncio.to_thread(work.run)
        except Exception as error:
            self._failed(work, error)
            return
        try:
            if work.then is not None:
                await work.then(result)
        except Exception:
            _log.exception("table %s: announcing a result failed", self.name)
        if work.done is not None and not work.done.done():
            work.done.set_result(result)

    async def _do_together(self, batch: list[_Work]) -> None:
        """Inputs run together (see :meth:`call`): each answered as :meth:`_do` would."""
        batch = [work for work in batch if work.done is None or not work.done.done()]
        if not batch:
            return
        # TableRuntime.run_together (the inputs run where they are committed, with no
        # worker thread of their own); a table without it runs each input alone.
        together = getattr(self.table, "run_together", None)
        if together is None:
            for work in batch:
                await self._do(work)
            return
        self.lag = asyncio.get_running_loop().time() - batch[0].queued
        outcomes = await together([work.run for work in batch])
        # The last result announced: those before it can wait for its announcement.
        last = max(
            (
                index
                for index, (work, (_, error)) in enumerate(zip(batch, outcomes, strict=True))
                if error is None and work.then is not None
            ),
            default=-1,
        )
        for index, (work, (result, error)) in enumerate(zip(batch, outcomes, strict=True)):
            if error is not None:
                self._failed(work, error)
                continue
            try:
                if work.then is not None:
                    self.more_to_announce = index < last
                    await work.then(result)
            except Exception:
                _log.exception("table %s: announcing a result failed", self.name)
            finally:
                self.more_to_announce = False
            if work.done is not None and not work.done.done():
                work.done.set_result(result)

    def _failed(self, work: _Work, error: Exception) -> None:
        self._lost_if(error)
        if work.done is not None:
            if not work.done.done():
                work.done.set_exception(error)
        else:
            _log.error("table %s: queued work failed", self.name, exc_info=error)

    async def _clock(self) -> None:
        """Run the table's clock if a deadline has passed."""
        loop = asyncio.get_running_loop()
        if self._retry_at is not None and loop.time() < self._retry_at:
            return
        now = self.clock()
        deadline = self.table.deadline
        if deadline is None or now < deadline.at:
            self._retry_at = None
            return
        try:
            # A table that takes its clock on the loop (TableRuntime.tick_on_loop) says
            # itself where each part runs; another's clock runs in a thread.
            on_loop = getattr(self.table, "tick_on_loop", None)
            if on_loop is not None:
                outcome = await on_loop(now)
            else:
                outcome = await asyncio.to_thread(self.table.tick, now)
        except Exception as error:  # logged and retried; the other tables run on regardless
            if self._lost_if(error):
                return
            _log.exception("table %s: its clock failed; it retries", self.name)
            self._retry_at = loop.time() + RETRY_SECONDS
            return
        self._retry_at = None
        if outcome is not None and self.on_tick is not None:
            try:
                await self.on_tick(outcome)
            except Exception:
                _log.exception("table %s: announcing a clock's outcome failed", self.name)

    def _lost_if(self, error: Exception) -> bool:
        """Tell :attr:`on_lost` if ``error`` says the table was lost; whether it did."""
        if not isinstance(error, TableLost):
            return False
        _log.error("table %s: %s", self.name, error)
        self._retry_at = asyncio.get_running_loop().time() + RETRY_SECONDS
        if self.on_lost is not None:
            self.on_lost()
        return True
