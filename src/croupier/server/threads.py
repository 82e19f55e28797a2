"""Worker threads that keep their caches warm: the last one to go idle works next.

A write to the database, a table's clock or a session's confirmation runs in a worker
thread, so that the event loop never waits for the database.  The standard library's
:class:`~concurrent.futures.ThreadPoolExecutor` has its idle workers wait on one queue,
and the one woken is the one that has waited longest: a server doing one thing at a
time (a table's decision, then another's, a few hundred a second) hands each to the
coldest of its threads, whose memory the other threads' work has pushed out of the
processor's caches meanwhile, and whose sleep was the longest (on a virtual machine, a
thread woken after a long sleep costs more).  Here each idle worker waits on a lock of
its own, and work goes to the one that went idle last: at a few things at a time, the
same one or two threads do all of it, and the others stay asleep until they are needed.

It is a :class:`~concurrent.futures.ThreadPoolExecutor` to the rest of the world (an
event loop takes no other as its default executor, the one ``asyncio.to_thread`` uses):

>>> import asyncio
>>> async def demo() -> int:
...     asyncio.get_running_loop().set_default_executor(WarmPool(most=2, name="demo"))
...     return await asyncio.to_thread(sum, [1, 2, 3])
>>> asyncio.run(demo())
6
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

if TYPE_CHECKING:  # not imported by the settings, which ``croupier serve --help`` reads
    import asyncio

__all__ = ["THREADS", "WRITE_THREADS", "WarmPool", "warm_default"]

#: The most threads a pool of the server's has: the standard library's default.
THREADS = min(32, (os.cpu_count() or 1) + 4)

#: The threads that write a process's tables' inputs to PostgreSQL at once, by default.
#: Python runs one thread at a time: a writer whose database has answered waits for
#: that lock while another runs, and each more writer made that wait longer and more
#: frequent.  Two keep one writing while the other waits for the database on the same
#: machine or network; at 500 bots flat out on a 2-core machine they cost 0.80 to 0.89
#: of the CPU an action of six in three runs, with 13 to 14 context switches an action
#: against 24 to 29, and took more actions a second (``benchmarks/load.py``; see the
#: manual's server page).  A database several milliseconds away needs more of them to
#: keep its round trips overlapped (``croupier serve --write-threads``).
WRITE_THREADS = 2

P = ParamSpec("P")
T = TypeVar("T")

_Item = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class _Worker:
    __slots__ = ("item", "wake")

    def __init__(self) -> None:
        #: What it is to run next (``None``: stop).
        self.item: _Item | None = None
        #: Held while it has nothing to do; released to give it :attr:`item`.
        self.wake = threading.Lock()
        self.wake.acquire()


class WarmPool(ThreadPoolExecutor):
    """At most ``most`` threads named ``name-N``, the work going to the one idle the
    shortest time (see the module's text); work that finds every thread busy waits in
    order for the first to finish.

    Args:
        most: the most threads at once.
        name: the threads' names' stem.

    >>> import threading
    >>> pool = WarmPool(most=4, name="demo")
    >>> names = {pool.submit(lambda: threading.current_thread().name).result() for _ in range(20)}
    >>> names  # one thing at a time: the same thread does all of it
    {'demo-0'}
    >>> pool.shutdown()
    """

    def __init__(self, *, most: int = THREADS, name: str) -> None:
        if most < 1:
            raise ValueError(f"a pool needs at least one thread, not {most}")
        super().__init__(max_workers=most, thread_name_prefix=name)
        self.most = most
        self.name = name
        self._lock = threading.Lock()
        #: Idle workers, the one idle the shortest time last.
        self._idle: list[_Worker] = []
        #: Work that found every worker busy, in the order it came.
        self._waiting: deque[_Item] = deque()
        self._workers: list[threading.Thread] = []
        self._shut = False

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` in a worker: its future.

        Raises:
            RuntimeError: after :meth:`shutdown`.
        """
        future: Future[T] = Future()
        item: _Item = (future, fn, args, kwargs)
        with self._lock:
            if self._shut:
                raise RuntimeError(f"{self.name}: no new work after shutdown")
            if self._idle:
                worker = self._idle.pop()
                worker.item = item
                worker.wake.release()
            elif len(self._workers) < self.most:
                worker = _Worker()
                worker.item = item
                worker.wake.release()
                thread = threading.Thread(
                    target=self._work,
                    args=(worker,),
                    name=f"{self.name}-{len(self._workers)}",
                    daemon=True,
                )
                self._workers.append(thread)
                thread.start()
            else:
                self._waiting.append(item)
        return future

    def _work(self, worker: _Worker) -> None:
        while True:
            worker.wake.acquire()
            item, worker.item = worker.item, None
            if item is None:  # shut down
                return
            parked = False
            while item is not None:
                future, fn, args, kwargs = item
                item = None
                ran = future.set_running_or_notify_cancel()
                result: Any = None
                error: BaseException | None = None
                if ran:
                    try:
                        result = fn(*args, **kwargs)
                    except BaseException as failed:
                        error = failed
                if error is None or isinstance(error, Exception):
                    # Idle (or on to what waits) before its caller hears: work
                    # submitted the moment the caller does finds this thread free.
                    with self._lock:
                        if self._waiting:
                            item = self._waiting.popleft()
                        elif not self._shut:
                            self._idle.append(worker)
                            parked = True
                if ran:
                    if error is None:
                        future.set_result(result)
                    else:
                        future.set_exception(error)
                if error is not None and not isinstance(error, Exception):
                    self._gone(worker)
                    raise error
                del future, fn, args, kwargs, result, error
            if not parked:  # shut down, nothing waiting
                return

    def _gone(self, worker: _Worker) -> None:
        """A worker stopped by what it ran (``SystemExit``): another takes its place."""
        with self._lock:
            self._workers = [t for t in self._workers if t is not threading.current_thread()]

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work; with ``cancel_futures``, cancel what waits for a thread.
        With ``wait``, return once the threads have finished what they have."""
        with self._lock:
            self._shut = True
            if cancel_futures:
                while self._waiting:
                    self._waiting.popleft()[0].cancel()
            idle, self._idle = self._idle, []
            threads = list(self._workers)
        for worker in idle:
            worker.item = None
            worker.wake.release()
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()


#: The loops whose default executor is a :class:`WarmPool` set by :func:`warm_default`.
_WARMED: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def warm_default(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``loop``'s default executor (``asyncio.to_thread``'s) a :class:`WarmPool`,
    once a loop: a second call, by another server on the same loop, changes nothing.

    >>> import asyncio
    >>> async def demo() -> str:
    ...     warm_default(asyncio.get_running_loop())
    ...     warm_default(asyncio.get_running_loop())
    ...     return await asyncio.to_thread(lambda: threading.current_thread().name)
    >>> asyncio.run(demo())
    'croupier-0'
    """
    if loop in _WARMED:
        return
    loop.set_default_executor(WarmPool(name="croupier"))
    _WARMED.add(loop)
