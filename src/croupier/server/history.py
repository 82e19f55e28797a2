"""A table's history as everyone at it may see it: the dealer's hand in each of its
last rounds (the bead road of live tables) and how often he busted.

It is read from the recorded rounds (:mod:`croupier.server.rounds_store`), so a new
tab, another device or a restart of the server shows the same history.  A finished
round never changes, so each is replayed once (:func:`dealer_result`) and its result
kept (:class:`HistoryCache`); only a round not seen before is read in full.  Every page
at a table asks again when a round ends: the history read for the first answers the
others for a moment (:func:`history_of`), so a crowd costs one read, not one each.

The dealer's bust rate counts the rounds whose dealer hand was played out, drawn to
17 or more by the rules: a round where every bet was settled before his turn (all
boxes bust, say) leaves his hand short and says nothing of how often he busts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import sqlalchemy as sa

from croupier.errors import CroupierError
from croupier.events import DealerFinished
from croupier.presets import find_preset
from croupier.server import rounds_store
from croupier.server.errors import NotFound
from croupier.server.records import MalformedRecord
from croupier.server.replay import replay
from croupier.server.schema import rounds

__all__ = [
    "DEFAULT_ROUNDS",
    "MOST_ROUNDS",
    "DealerResult",
    "HistoryCache",
    "RoundResult",
    "bust_rate",
    "dealer_result",
    "history_of",
    "table_history",
]

_log = logging.getLogger("croupier.server")

#: The rounds a table's history shows unless asked for another number.
DEFAULT_ROUNDS = 60
#: The most rounds one request may ask for.
MOST_ROUNDS = 200
#: How long a table's history, once read, answers the requests that follow it (those
#: of every page at the table when a round ends).
FRESH_SECONDS = 2.0
#: The lowest total a dealer's hand played out by the rules stands on.
_PLAYED_OUT = 17
_CLOSED = ("settled", "void")


@dataclass(frozen=True)
class DealerResult:
    """The dealer's final hand in a round."""

    cards: tuple[str, ...]
    total: int
    busted: bool
    blackjack: bool

    @property
    def played_out(self) -> bool:
        """Whether the hand was drawn to the end by the rules (17 or more, or bust).

        >>> DealerResult(("TS", "6D"), 16, busted=False, blackjack=False).played_out
        False
        >>> DealerResult(("TS", "6D", "9C"), 25, busted=True, blackjack=False).played_out
        True
        """
        return self.busted or self.total >= _PLAYED_OUT

    def to_json(self) -> dict[str, Any]:
        """The result as the page reads it."""
        return {
            "cards": list(self.cards),
            "total": self.total,
            "busted": self.busted,
            "blackjack": self.blackjack,
            "played_out": self.played_out,
        }


@dataclass(frozen=True)
class RoundResult:
    """One finished round of a table: its number, how it ended and the dealer's hand
    (``None`` for a void round, which has none)."""

    round: str
    number: int
    status: str
    dealer: DealerResult | None

    def to_json(self) -> dict[str, Any]:
        """The round as the page reads it."""
        return {
            "round": self.round,
            "number": self.number,
            "status": self.status,
            "dealer": None if self.dealer is None else self.dealer.to_json(),
        }


def dealer_result(row: rounds_store.RoundRow) -> RoundResult | None:
    """The result of a finished round, replayed from its record; ``None`` for a round
    still open or one that cannot be replayed under its preset's rules now."""
    if row.status not in _CLOSED:
        return None
    try:
        rules = find_preset(row.record.rules).rules
        game, _, _ = replay(row.record, rules)
    except (CroupierError, KeyError) as problem:
        _log.warning("round %s is left out of its table's history: %s", row.id, problem)
        return None
    finished = [event for event in game.events if isinstance(event, DealerFinished)]
    dealer = None
    if finished and row.status == "settled":
        last = finished[-1]
        dealer = DealerResult(tuple(last.cards), last.total, last.busted, last.blackjack)
    return RoundResult(row.id, row.number, row.status, dealer)


class HistoryCache:
    """Finished rounds' results by round id, the most recently used kept (a finished
    round never changes).  Safe to share between threads."""

    def __init__(self, size: int = 4 * MOST_ROUNDS) -> None:
        if size < 1:
            raise ValueError(f"a history cache holds at least one round, not {size}")
        self.size = size
        self._results: OrderedDict[str, RoundResult | None] = OrderedDict()
        #: Each table's history as last read, by table and number of rounds: when, what.
        self._read: dict[tuple[str, int], tuple[float, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def get(self, round_id: str) -> tuple[bool, RoundResult | None]:
        """Whether ``round_id`` is known, and its result (``None``: not replayable)."""
        with self._lock:
            if round_id not in self._results:
                return False, None
            self._results.move_to_end(round_id)
            return True, self._results[round_id]

    def put(self, round_id: str, result: RoundResult | None) -> None:
        """Keep a finished round's result."""
        with self._lock:
            self._results[round_id] = result
            self._results.move_to_end(round_id)
            while len(self._results) > self.size:
                self._results.popitem(last=False)

    def recent(
        self, table_id: str, limit: int, after: str | None, now: float
    ) -> dict[str, Any] | None:
        """The history of ``table_id`` read less than :data:`FRESH_SECONDS` before
        ``now`` and holding round ``after`` (when named), else ``None``."""
        with self._lock:
            found = self._read.get((table_id, limit))
        if found is None or not 0 <= now - found[0] < FRESH_SECONDS:
            return None
        history = found[1]
        if after is not None and all(r["round"] != after for r in history["rounds"]):
            return None
        return history

    def read(self, table_id: str, limit: int, history: dict[str, Any], now: float) -> None:
        """Keep the history of ``table_id`` read from ``now`` (a read begun earlier
        than the one kept, and so perhaps older, is not kept)."""
        with self._lock:
            kept = self._read.get((table_id, limit))
            if kept is None or kept[0] <= now:
                self._read[(table_id, limit)] = (now, history)


def bust_rate(results: list[RoundResult]) -> dict[str, Any]:
    """How often the dealer busted in ``results``: of the rounds whose dealer hand was
    played out, how many went over 21, and that share in percent (exact, to one
    decimal; ``None`` when no hand was played out).

    >>> bust = DealerResult(("TS", "6D", "9C"), 25, busted=True, blackjack=False)
    >>> stood = DealerResult(("TS", "7D"), 17, busted=False, blackjack=False)
    >>> bust_rate([RoundResult("a", 1, "settled", bust), RoundResult("b", 2, "settled", stood),
    ...            RoundResult("c", 3, "settled", stood), RoundResult("d", 4, "void", None)])
    {'rounds': 3, 'busts': 1, 'percent': '33.3'}
    >>> bust_rate([])
    {'rounds': 0, 'busts': 0, 'percent': None}
    """
    played = [r.dealer for r in results if r.dealer is not None and r.dealer.played_out]
    busts = sum(1 for dealer in played if dealer.busted)
    percent = None
    if played:
        share = Decimal(100 * busts) / Decimal(len(played))
        percent = str(share.quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN))
    return {"rounds": len(played), "busts": busts, "percent": percent}


def table_history(
    conn: sa.Connection, table_id: str, cache: HistoryCache, limit: int = DEFAULT_ROUNDS
) -> dict[str, Any]:
    """The last ``limit`` finished rounds of ``table_id``, oldest first, with the
    dealer's bust rate over them.

    Only rounds not in ``cache`` are read in full and replayed.
    """
    if not 1 <= limit <= MOST_ROUNDS:
        raise ValueError(f"a table's history shows 1 to {MOST_ROUNDS} rounds, not {limit}")
    query = (
        sa.select(rounds.c.id)
        .where(rounds.c.table_id == table_id, rounds.c.status.in_(_CLOSED))
        .order_by(rounds.c.number.desc(), rounds.c.created_at.desc(), rounds.c.id.desc())
        .limit(limit)
    )
    results: list[RoundResult] = []
    for round_id in conn.execute(query).scalars():
        known, result = cache.get(round_id)
        if not known:
            try:
                row = rounds_store.load_round(conn, round_id)
            except NotFound:
                continue
            except MalformedRecord as problem:
                _log.warning("round %s is left out of its table's history: %s", round_id, problem)
                cache.put(round_id, None)
                continue
            result = dealer_result(row)
            cache.put(round_id, result)
        if result is not None:
            results.append(result)
    results.reverse()
    return {
        "table": table_id,
        "rounds": [result.to_json() for result in results],
        "dealer": bust_rate(results),
    }


def history_of(
    engine: sa.Engine,
    table_id: str,
    cache: HistoryCache,
    limit: int = DEFAULT_ROUNDS,
    after: str | None = None,
) -> dict[str, Any]:
    """:func:`table_history`, read once for the requests that come together: a history
    read a moment ago answers, if it holds round ``after`` (the round whose end the
    page saw; ``None``: any)."""
    now = time.monotonic()
    found = cache.recent(table_id, limit, after, now)
    if found is not None:
        return found
    with engine.begin() as conn:
        history = table_history(conn, table_id, cache, limit)
    cache.read(table_id, limit, history, now)
    return history
