"""The boxes players reserve at a table, and who of them is away.

A player takes a box before he bets (``take_box``): the box waits for his first bet,
and others may bet behind him once he has bet (RWS v5 1.26, where the rules have
standing players).  When his last connection closes he is *away*: his boxes wait for
him for the table's grace period, then are given back, and the others are told who is
away and how long the table waits (the state's ``away``).

>>> seats = Seats(boxes=7, grace_seconds=60.0)
>>> seats.take("ann", 3, seated=None)
>>> seats.take("bob", 3, seated=None)
Traceback (most recent call last):
...
croupier.server.errors.ActionRefused: box 3 is taken by ann
>>> seats.disconnected("ann", now=100.0); seats.away
{'ann': 100.0}
>>> seats.release_expired(now=159.0); 3 in seats.reserved
True
>>> seats.release_expired(now=160.0); 3 in seats.reserved
False
"""

from __future__ import annotations

from dataclasses import dataclass

from croupier.server.errors import ActionRefused

__all__ = ["Seat", "Seats"]

#: Seconds an away player is remembered at the least, to tell the others of him.
AWAY_REMEMBERED_SECONDS = 3600.0


@dataclass
class Seat:
    """A reserved box: who reserved it, and since when he is away (``None``: here)."""

    user: str
    away_since: float | None = None


class Seats:
    """A table's reserved boxes and its away players (see the module's text).

    Args:
        boxes: the table's boxes, numbered from 1.
        grace_seconds: how long an away player's boxes wait for him.
    """

    def __init__(self, boxes: int, grace_seconds: float) -> None:
        self.boxes = boxes
        self.grace_seconds = grace_seconds
        #: Box -> its reservation.
        self.reserved: dict[int, Seat] = {}
        #: Players whose last connection closed, and when (the others are told).
        self.away: dict[str, float] = {}

    def holder(self, box: int) -> str | None:
        """Who reserved ``box`` (``None``: nobody)."""
        seat = self.reserved.get(box)
        return None if seat is None else seat.user

    def take(self, player: str, box: int, *, seated: str | None) -> None:
        """Reserve ``box`` for ``player`` (``seated``: who plays it in the round now).

        Raises:
            ActionRefused: no such box, or it is someone else's.
        """
        if not 1 <= box <= self.boxes:
            raise ActionRefused(
                f"box {box} does not exist: this table has boxes 1 to {self.boxes}",
                code="invalid",
            )
        seat = self.reserved.get(box)
        if (seat is not None and seat.user != player) or (seated not in (None, player)):
            holder = seat.user if seat is not None else seated
            raise ActionRefused(f"box {box} is taken by {holder}", code="box_taken")
        self.reserved[box] = Seat(player)

    def leave(self, player: str, box: int) -> None:
        """Give a reserved box back.

        Raises:
            ActionRefused: the box is not ``player``'s.
        """
        seat = self.reserved.get(box)
        if seat is None or seat.user != player:
            raise ActionRefused(f"box {box} is not yours", code="not_yours")
        del self.reserved[box]

    def disconnected(self, player: str, now: float) -> None:
        """The player's last connection closed: his boxes wait for the grace period."""
        for seat in self.reserved.values():
            if seat.user == player:
                seat.away_since = now
        # Kept while it may matter to the others (a round, a seat's grace period).
        longest = max(self.grace_seconds, AWAY_REMEMBERED_SECONDS)
        self.away = {name: since for name, since in self.away.items() if now - since < longest}
        self.away[player] = now

    def reconnected(self, player: str) -> None:
        """The player is back: his boxes are his again."""
        for seat in self.reserved.values():
            if seat.user == player:
                seat.away_since = None
        self.away.pop(player, None)

    def present(self) -> set[str]:
        """The players with a reserved box who are here."""
        return {seat.user for seat in self.reserved.values() if seat.away_since is None}

    def release_expired(self, now: float) -> None:
        """Give back the boxes whose players have been away for the grace period."""
        for box, seat in list(self.reserved.items()):
            if seat.away_since is not None and now - seat.away_since >= self.grace_seconds:
                del self.reserved[box]
