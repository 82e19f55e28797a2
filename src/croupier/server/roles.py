"""The roles an account may have.

The standard library only: the command line reads the roles without the server's
packages.

>>> Role("dealer").is_staff, Role.PLAYER.is_staff
(True, False)
>>> [role.value for role in Role]
['player', 'dealer', 'admin']
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Role"]


class Role(StrEnum):
    """What an account is for: playing, dealing, or running the site."""

    #: Plays: bets, decides for his own boxes, sees only what the table shows.
    PLAYER = "player"
    #: Deals at a table: enters cards, voids, interrupts; sees the cards dealt face down.
    DEALER = "dealer"
    #: Runs the site: everything a dealer may.
    ADMIN = "admin"

    @property
    def is_staff(self) -> bool:
        """A dealer or an admin: the table's dealer commands and face-down cards, and
        the recall of any round, are theirs."""
        return self is not Role.PLAYER
