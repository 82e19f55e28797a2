"""Reads asked for at one moment, made in one call: a crowd's balances in one query.

A thousand players signing in at a table at once each want their balance. Read one by
one, that was a thousand transactions in the event loop's worker threads, whose turns
at the interpreter's lock held up the table's own commits: the first bets of the round
that followed waited up to two seconds (``benchmarks/load.py --behind 1000``).
:class:`ReadTogether` reads every key asked for while no read runs in one call of its
``read`` (in a worker thread), then those asked for meanwhile in the next, and so on:
a burst costs a few reads, one alone costs one.

>>> import asyncio
>>> calls = []
>>> def read(keys):
...     calls.append(sorted(keys))
...     return {key: key * 10 for key in keys}
>>> async def crowd():
...     together = ReadTogether(read)
...     return await asyncio.gather(*(together.get(key) for key in (1, 2, 3, 2)))
>>> asyncio.run(crowd()), calls
([10, 20, 30, 20], [[1, 2, 3]])
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar

__all__ = ["ReadTogether", "settle"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ReadTogether(Generic[K, V]):
    """Keys asked for at one moment, read in one call of ``read`` (blocking: it runs in a
    worker thread), which answers each key it was given: with its value, or with an
    exception, raised to that key's callers alone.  A key it leaves out is answered
    with :class:`KeyError`, and what it raises goes to every key of its call.  With
    ``most``, a call is given at most that many keys (the others wait for the next).
    """

    def __init__(
        self, read: Callable[[set[K]], Mapping[K, V | Exception]], *, most: int | None = None
    ) -> None:
        self._read = read
        self._most = most
        #: The keys waiting for the next read, each with its answer to come.
        self._waiting: dict[K, asyncio.Future[V]] = {}
        #: The task that reads, while it runs (a strong reference: the loop keeps a weak one).
        self._reader: asyncio.Task[None] | None = None

    async def get(self, key: K) -> V:
        """``key``'s value, read with every other key asked for meanwhile."""
        loop = asyncio.get_running_loop()
        future = self._waiting.get(key)
        if future is None:
            future = loop.create_future()
            # An answer no one waits for any more (its socket went) is read here, not logged.
            future.add_done_callback(_read_out)
            self._waiting[key] = future
        if self._reader is None:
            self._reader = loop.create_task(self._run())
        return await asyncio.shield(future)

    async def _run(self) -> None:
        try:
            while self._waiting:
                if self._most is None or len(self._waiting) <= self._most:
                    batch, self._waiting = self._waiting, {}
                else:
                    keys = list(self._waiting)[: self._most]
                    batch = {key: self._waiting.pop(key) for key in keys}
                try:
                    values = await asyncio.to_thread(self._read, set(batch))
                except Exception as problem:
                    for future in batch.values():
                        settle(future, exception=problem)
                    continue
                for key, future in batch.items():
                    value = values[key] if key in values else KeyError(key)
                    if isinstance(value, Exception):
                        settle(future, exception=value)
                    else:
                        settle(future, value=value)
        finally:
            self._reader = None


def settle(
    future: asyncio.Future[Any], *, value: Any = None, exception: Exception | None = None
) -> None:
    """Give a waiting caller its answer: ``exception`` raised, else ``value`` (nothing
    if it went away)."""
    if future.done():
        return
    if exception is not None:
        future.set_exception(exception)
    else:
        future.set_result(value)


def _read_out(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
