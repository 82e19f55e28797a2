"""Bets while bets are open, and "No more bets".

A bet is checked against the table's limits as it is placed: the table maximum on a
box's initial bet, the side bet maximum, and Under 13 or Over 13 no more than the box's
initial bet (RWS v5 3.13.2).  Closing bets needs an initial bet and every box at the
table minimum (5.2); it returns what is over the box maximum (5.1) and starts the deal,
which first returns side bets without an initial bet on their box (5.15).
"""

from __future__ import annotations

from decimal import Decimal

from croupier.errors import BetError, IllegalActionError
from croupier.events import BetPlaced, BetsClosed, BetWithdrawn
from croupier.money import parse_amount
from croupier.round_base import RoundBase
from croupier.round_state import MAIN, ZERO, Box, Hand, Phase, PlacedBet, Wager
from croupier.rules import SideBet

__all__ = ["BettingMixin"]


class BettingMixin(RoundBase):
    """Placing, withdrawing and closing bets."""

    # -- placing and withdrawing ---------------------------------------------------------------

    def can_place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> bool:
        """Whether :meth:`place_bet` would accept this bet."""
        try:
            self.verify_place_bet(player, box, amount, bet)
        except (BetError, IllegalActionError):
            return False
        return True

    def verify_place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> Decimal:
        """Check a bet; returns its exact amount or raises :class:`BetError`."""
        if self._phase is not Phase.BETTING:
            raise BetError(
                f"cannot place a bet: no more bets (RWS v5 5.8) (phase={self._phase.value})"
            )
        if not isinstance(player, str) or not player.strip():
            raise BetError(f"cannot place a bet: player name {player!r} is empty")
        if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= self.rules.boxes:
            raise BetError(
                f"cannot place a bet: box {box!r} is not on this table (boxes 1-{self.rules.boxes})"
            )
        value = parse_amount(amount, self.rules.currency_unit, what=f"{bet} bet")
        offered = {side.value for side in self.rules.side_bets_offered()}
        if bet == MAIN:
            own = self._placed(player, box, MAIN) + value
            if own > self.rules.maximum_bet:
                raise BetError(
                    f"cannot place a bet: {player}'s bet of {own} on box {box} is over the "
                    f"table maximum {self.rules.maximum_bet}"
                )
            return value
        if bet not in offered:
            names = ", ".join(sorted(offered)) or "none"
            raise BetError(
                f"cannot place a bet: side bet {bet!r} is not offered at {self.rules.name} "
                f"(offered: {names})"
            )
        own = self._placed(player, box, bet) + value
        if self.rules.side_bet_maximum is not None and own > self.rules.side_bet_maximum:
            raise BetError(
                f"cannot place a bet: {bet} bet of {own} is over the side bet maximum "
                f"{self.rules.side_bet_maximum}"
            )
        if bet in (SideBet.UNDER_13, SideBet.OVER_13):
            initial = self._box_total(box)
            if initial and own > initial:
                raise BetError(
                    f"cannot place a bet: {bet} bet of {own} is over box {box}'s initial bet "
                    f"{initial} (RWS v5 3.13.2)"
                )
        return value

    def place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> BetPlaced:
        """Place (or add to) a bet while bets are open.

        The first player with an initial bet on a box is its seated player; later
        ones bet behind him (RWS v5 1.26, 1.31).  A side bet is ``bet="player_pair"``
        and so on.
        """
        value = self.verify_place_bet(player, box, amount, bet)
        seated = False
        if bet == MAIN and box not in self._seated:
            self._seated[box] = player
            seated = True
        for placed in self._bets:
            if (placed.player, placed.box, placed.bet) == (player, box, bet):
                placed.amount += value
                break
        else:
            self._bets.append(PlacedBet(player, box, bet, value))
        return self._emit(BetPlaced(player=player, box=box, bet=bet, amount=value, seated=seated))

    def withdraw_bet(self, player: str, box: int, bet: str = MAIN) -> BetWithdrawn:
        """Take a bet back while bets are open."""
        if self._phase is not Phase.BETTING:
            raise BetError(
                f"cannot withdraw a bet: no more bets (RWS v5 5.8) (phase={self._phase.value})"
            )
        for placed in self._bets:
            if (placed.player, placed.box, placed.bet) == (player, box, bet):
                break
        else:
            raise BetError(f"cannot withdraw a bet: {player} has no {bet} bet on box {box}")
        self._bets.remove(placed)
        if bet == MAIN and self._seated.get(box) == player:
            del self._seated[box]
            behind = [b for b in self._bets if b.box == box and b.bet == MAIN]
            if behind:
                self._seated[box] = behind[0].player
        return self._emit(BetWithdrawn(player=player, box=box, bet=bet, amount=placed.amount))

    def _placed(self, player: str, box: int, bet: str) -> Decimal:
        return sum(
            (b.amount for b in self._bets if (b.player, b.box, b.bet) == (player, box, bet)),
            ZERO,
        )

    def _box_total(self, box: int) -> Decimal:
        return sum((b.amount for b in self._bets if b.box == box and b.bet == MAIN), ZERO)

    # -- no more bets --------------------------------------------------------------------------

    def verify_close_bets(self) -> None:
        """Check that bets can close: some initial bet, every box at its minimum (RWS v5 5.2)."""
        if self._phase is not Phase.BETTING:
            raise IllegalActionError(f"cannot close bets: they are closed (phase={self._phase})")
        if not any(b.bet == MAIN for b in self._bets):
            raise BetError("cannot close bets: no initial bet has been placed")
        for box in sorted(self._seated):
            total = self._box_total(box)
            if total < self.rules.minimum_bet:
                raise BetError(
                    f"cannot close bets: box {box} carries {total}, under the table minimum "
                    f"{self.rules.minimum_bet}; raise or withdraw it (RWS v5 5.2)"
                )

    def close_bets(self) -> BetsClosed:
        """ "No more bets": returns excess and unsupported bets, then deals."""
        self.verify_close_bets()
        closed = self._emit(BetsClosed())
        self._phase = Phase.DEALING
        for number in sorted(self._seated):
            self._boxes.append(self._close_box(number))
        self._flow = self._play()
        self._advance(None)
        return closed

    def _close_box(self, number: int) -> Box:
        seated = self._seated[number]
        mains = [b for b in self._bets if b.box == number and b.bet == MAIN]
        mains.sort(key=lambda b: b.player != seated)  # seated first, then in betting order
        room = self.rules.maximum_bet
        initial: dict[str, Decimal] = {}
        for bet in mains:
            kept = min(bet.amount, room)
            room -= kept
            if kept < bet.amount:
                self._return(
                    bet.player,
                    number,
                    None,
                    MAIN,
                    bet.amount - kept,
                    "over the box maximum (RWS v5 5.1)",
                )
            if kept > 0:
                initial[bet.player] = kept
        box_initial = sum(initial.values(), ZERO)
        side_bets: list[PlacedBet] = []
        for bet in self._bets:
            if bet.box != number or bet.bet == MAIN:
                continue
            kept = bet.amount
            if bet.bet in (SideBet.UNDER_13, SideBet.OVER_13):
                kept = min(kept, box_initial)
            if kept < bet.amount:
                self._return(
                    bet.player,
                    number,
                    None,
                    bet.bet,
                    bet.amount - kept,
                    "over the box's initial bet (RWS v5 3.13.2)",
                )
            side_bets.append(PlacedBet(bet.player, number, bet.bet, kept))
        wagers = [Wager(player, amount) for player, amount in initial.items()]
        box = Box(number, seated, initial, side_bets)
        box.hands.append(Hand(1, [], wagers))
        return box

    def _return_orphan_side_bets(self) -> None:
        boxes = {box.number for box in self._boxes}
        for bet in self._bets:
            if bet.bet != MAIN and bet.box not in boxes:
                self._return(
                    bet.player,
                    bet.box,
                    None,
                    bet.bet,
                    bet.amount,
                    "no initial bet on the box (RWS v5 5.15)",
                )
        if not self.rules.side_bet_needs_own_initial_bet:
            return
        for box in self._boxes:
            for bet in list(box.side_bets):
                if bet.player not in box.initial:
                    box.side_bets.remove(bet)
                    self._return(
                        bet.player,
                        bet.box,
                        None,
                        bet.bet,
                        bet.amount,
                        f"{bet.player} has no initial bet of his own on the box "
                        f"at {self.rules.name}",
                    )
