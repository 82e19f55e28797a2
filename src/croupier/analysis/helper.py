"""A helper process for a report's independent pieces of work, where a second core is free.

The pieces wait in a queue of places ``0 .. size - 1``.  A helper forked from this
process takes places from the front (up to a limit) and sends each result back as it
is made; this process takes places from the back (:meth:`Helper.take_back`) until the
two meet.  A place the helper took but never sent (it died) is the caller's to compute.
The helper is forked, so it starts with everything this process has loaded and
computed, and needs nothing pickled but its results.

>>> if can_help():
...     with Helper(lambda place: place * place, 6, front=3) as helper:
...         mine = []
...         while (place := helper.take_back()) is not None:
...             mine.append(place)
...         theirs = helper.results()
...     sorted([place for place, _ in theirs] + mine) == list(range(6))
... else:
...     True
True
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from croupier.analysis.native import threads

if TYPE_CHECKING:
    from multiprocessing.context import ForkProcess

__all__ = ["Helper", "TwoEnds", "can_help"]

Result = TypeVar("Result")

#: Whether a helper can be forked: on Linux (elsewhere a fork is unsafe or missing).
_CAN_FORK = sys.platform.startswith("linux")


def can_help() -> bool:
    """Whether a helper would run: a second core is free (``NUMBA_NUM_THREADS``, else
    the cores this process may use) and the process can be forked."""
    return _CAN_FORK and threads() > 1


class TwoEnds:
    """The places ``0 .. size - 1`` of a queue shared with a forked process, taken from
    the front (no more than the first ``front``) and from the back until the two meet.

    >>> import multiprocessing
    >>> ends = TwoEnds(multiprocessing.get_context("fork"), 4, front=1)
    >>> ends.take_front(), ends.take_front(), ends.take_back(), ends.taken()
    (0, None, 3, (1, 3))
    """

    def __init__(self, context: Any, size: int, *, front: int) -> None:
        self.size = size
        self.front = front
        # The next place at the front, and one past the last place left at the back.
        self._ends = context.RawArray("i", [0, size])
        self._lock = context.Lock()

    def take_front(self) -> int | None:
        """The next place from the front, or None when the two ends have met (or the
        front's places are taken)."""
        with self._lock:
            first, last = int(self._ends[0]), int(self._ends[1])
            if first >= min(last, self.front):
                return None
            self._ends[0] = first + 1
            return first

    def take_back(self) -> int | None:
        """The next place from the back, or None when the two ends have met."""
        with self._lock:
            first, last = int(self._ends[0]), int(self._ends[1])
            if first >= last:
                return None
            self._ends[1] = last - 1
            return last - 1

    def taken(self) -> tuple[int, int]:
        """The places taken: those before the first, and from the second on."""
        with self._lock:
            return int(self._ends[0]), int(self._ends[1])


class Helper(Generic[Result]):
    """A forked process computing ``work(place)`` for places from the front of a queue
    of ``size`` (no more than the first ``front``) while this process takes places from
    the back.  Use it as a context manager: leaving it stops a helper still running."""

    def __init__(self, work: Callable[[int], Result], size: int, *, front: int) -> None:
        context = multiprocessing.get_context("fork")
        self._ends = TwoEnds(context, size, front=front)
        self.take_front = self._ends.take_front
        self.take_back = self._ends.take_back
        self._parent = os.getpid()
        self._receiving, sending = context.Pipe(duplex=False)
        self._process: ForkProcess = context.Process(
            target=self._help, args=(sending, work), daemon=True
        )
        self._process.start()
        sending.close()

    def __enter__(self) -> Helper[Result]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def started(self) -> int:
        """How many places the two processes have taken."""
        first, last = self._ends.taken()
        return first + self._ends.size - last

    def results(self) -> list[tuple[int, Result]]:
        """The (place, result) the helper computed, once it is done (fewer if it died)."""
        received: list[tuple[int, Result]] = []
        while True:
            try:
                received.append(self._receiving.recv())
            except (EOFError, OSError):
                return received

    def stop(self) -> None:
        """End the helper (at once, if it still runs)."""
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._receiving.close()

    def _help(self, sending: Connection, work: Callable[[int], Result]) -> None:
        """The helper's work, in the forked process."""
        # The parent's standard streams are not the helper's to write or flush.
        devnull = open(os.devnull, "w")  # noqa: SIM115 - open for the process's life
        sys.stdout = sys.stderr = devnull
        # A parent that died is not waited for beyond the piece under way.
        while os.getppid() == self._parent and (place := self.take_front()) is not None:
            sending.send((place, work(place)))
        sending.close()
