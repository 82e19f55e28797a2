"""Irregularities (RWS v5 section 5): voids, interruptions, time-outs, players who leave.

A void returns every bet of the round (5.17); a technical interruption voids the round
unless an outcome is established (5.4); a hand whose time runs out, or whose player
walks away alone, draws to 12 or more and stands (5.3); after a dealing error a player
may have his bets returned (5.7.3).  Where a seated player leaves, the box's decisions
pass to the one with the highest bet on it (1.26).
"""

from __future__ import annotations

from dataclasses import replace

from croupier.errors import IllegalActionError
from croupier.events import (
    BetResult,
    Event,
    PlayerTimedOut,
    PlayerWalkedAway,
    RoundVoided,
    SeatPassed,
    TechnicalInterruption,
)
from croupier.round_base import RoundBase
from croupier.round_state import (
    INSURANCE,
    MAIN,
    ZERO,
    Action,
    Decision,
    NeedAnswers,
    NeedDecision,
    OfferKind,
    Phase,
)

__all__ = ["IrregularitiesMixin"]


class IrregularitiesMixin(RoundBase):
    """Voiding, interrupting, timing out, returning bets and walking away."""

    def void(self, reason: str) -> RoundVoided:
        """Void the round: every bet of the round is returned (RWS v5 5.17).

        For a dealing error that cannot be reconstructed, a card found outside the
        set, cards not shuffled, or "mistakes between hands" (live).
        """
        if self._phase in (Phase.SETTLED, Phase.VOID):
            raise IllegalActionError(f"cannot void: the round is over (phase={self._phase.value})")
        return self._void(reason)

    def interrupt(self) -> Event:
        """A technical interruption: void unless an outcome is established (RWS v5 5.4)."""
        if self._phase in (Phase.SETTLED, Phase.VOID):
            raise IllegalActionError(
                f"cannot interrupt: the round is over (phase={self._phase.value})"
            )
        established = any(result.net != 0 for result in self._results)
        event = self._emit(TechnicalInterruption(outcome_established=established))
        if not established:
            self._void("technical interruption before any outcome was established (RWS v5 5.4.2)")
        return event

    def time_out(self) -> Event:
        """The decision time ran out: the hand draws to 12 or more, then stands (RWS v5 5.3).

        Open offers time out as declined.
        """
        if isinstance(self._pending, NeedAnswers):
            start = len(self._events)
            for offer in list(self._offers):
                self._answer(offer, accept=False)
            return self._events[start]
        box, hand = self._require_turn("time out", None)
        hand.auto_play = True
        event = self._emit(PlayerTimedOut(box=box.number, hand=hand.number))
        self._advance(Decision(Action.HIT if hand.total < 12 and self.can_hit() else Action.STAND))
        return event

    def verify_return_bets(self, player: str, box: int) -> None:
        """Check that ``player`` may take his bets on ``box`` back after a dealing error."""
        if self._phase not in (Phase.DEALING, Phase.OFFERS, Phase.PLAYER_TURNS):
            raise IllegalActionError(
                "cannot return bets: no dealing error can be answered now "
                f"(phase={self._phase.value})"
            )
        placed = self._box(box)
        if not any(
            wager.player == player and not wager.settled
            for hand in placed.hands
            for wager in hand.wagers
        ):
            raise IllegalActionError(
                f"cannot return bets: {player} has no open bet on box {box} "
                f"(phase={self._phase.value})"
            )
        turn = self.current_turn
        if turn is not None and turn[0] == box:
            raise IllegalActionError(
                f"cannot return bets: box {box} is deciding hand {turn[1]}; answer the dealing "
                f"error before its decisions (phase={self._phase.value})"
            )

    def return_bets(self, player: str, box: int) -> Event:
        """After a dealing error, a player may have his bet returned and his hand invalidated.

        RWS v5 5.7.3: his open bets on the box (initial, split and double bets and
        insurance) come back; bets already settled stand.  Where others bet on the box,
        its decisions pass to the one with the highest bet (1.26).
        """
        self.verify_return_bets(player, box)
        placed = self._box(box)
        start = len(self._events)
        reason = "dealing error: bet returned and hand invalidated (RWS v5 5.7.3)"
        zero = ZERO.quantize(self.rules.currency_unit)
        for hand in placed.hands:
            wager = hand.wager_of(player)
            if wager is None or wager.settled:
                continue
            wager.settled = True
            self._results.append(
                BetResult(player, box, hand.number, MAIN, wager.stake, zero, "returned")
            )
            self._return(player, box, hand.number, MAIN, wager.stake, reason)
        insurance = None if placed.insurance_settled else placed.insurance.pop(player, None)
        if insurance is not None:
            self._results.append(
                BetResult(player, box, None, INSURANCE, insurance, zero, "returned")
            )
            self._return(player, box, None, INSURANCE, insurance, reason)
        if placed.seated == player:
            others = [
                (amount, name)
                for name, amount in placed.initial.items()
                if name != player and name not in self._absent
            ]
            if others:
                placed.seated = max(others, key=lambda item: item[0])[1]
                self._emit(SeatPassed(box=box, player=placed.seated))
        for offer in list(self._offers):
            if offer.player == player and offer.box == box:
                index = self._offers.index(offer)
                if offer.kind is OfferKind.SURRENDER and placed.seated != player:
                    # A decision of the box passes with the seat (RWS v5 1.26, 3.8).
                    self._offers[index] = replace(offer, player=placed.seated)
                else:
                    del self._offers[index]
        if not self._offers and isinstance(self._pending, NeedAnswers):
            self._advance(None)
        return self._events[start]

    def walk_away(self, player: str) -> Event:
        """A player leaves with bets in play (RWS v5 5.3).

        Where others bet on his box, its decisions pass to the one with the highest
        bet (RWS v5 1.26); alone, his hands draw to 12 or more and stand.
        """
        if self._phase in (Phase.SETTLED, Phase.VOID, Phase.BETTING):
            raise IllegalActionError(
                f"cannot walk away with bets in play now (phase={self._phase.value})"
            )
        if not any(bet.player == player for bet in self._bets) or player in self._absent:
            raise IllegalActionError(
                f"cannot walk away: {player} has no bet in play at this table "
                f"(phase={self._phase.value})"
            )
        event = self._emit(PlayerWalkedAway(player=player))
        self._absent.add(player)
        for box in self._boxes:
            if box.seated != player:
                continue
            others = [(amount, p) for p, amount in box.initial.items() if p not in self._absent]
            if others:
                highest = max(others, key=lambda item: item[0])[1]
                box.seated = highest
                self._emit(SeatPassed(box=box.number, player=highest))
        for offer in list(self._offers):
            if offer.player != player:
                continue
            seated = self._box(offer.box).seated
            if offer.kind is OfferKind.SURRENDER and seated not in self._absent:
                # A decision of the box passes with the seat (RWS v5 1.26, 3.8).
                self._offers[self._offers.index(offer)] = replace(offer, player=seated)
            else:
                self._answer(offer, accept=False)
        if isinstance(self._pending, NeedDecision):
            box = self._box(self._pending.box)
            if box.seated in self._absent:
                hand = box.hands[self._pending.hand - 1]
                choice = Action.HIT if hand.total < 12 and self.can_hit() else Action.STAND
                self._advance(Decision(choice))
        return event

    def _void(self, reason: str) -> RoundVoided:
        if self._flow is not None:
            self._flow.close()
            self._flow = None
        self._pending = None
        self._offers = []
        self._phase = Phase.VOID
        self._void_reason = reason
        event = RoundVoided(reason=reason)
        self._emit(event)
        returned: list[BetResult] = []
        zero = ZERO.quantize(self.rules.currency_unit)
        if self._boxes:
            for box in self._boxes:
                for bet in box.side_bets:
                    returned.append(
                        BetResult(bet.player, box.number, None, bet.bet, bet.amount, zero, "void")
                    )
                for player, amount in box.insurance.items():
                    returned.append(
                        BetResult(player, box.number, None, INSURANCE, amount, zero, "void")
                    )
                for hand in box.hands:
                    for wager in hand.wagers:
                        returned.append(
                            BetResult(
                                wager.player,
                                box.number,
                                hand.number,
                                MAIN,
                                wager.stake,
                                zero,
                                "void",
                            )
                        )
        else:
            returned = [
                BetResult(bet.player, bet.box, None, bet.bet, bet.amount, zero, "void")
                for bet in self._bets
            ]
        self._results = returned
        for result in returned:
            self._return(result.player, result.box, result.hand, result.bet, result.stake, "void")
        return event
