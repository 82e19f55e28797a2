"""The seated player's decisions for the hand whose turn it is.

Every decision is a triplet: a query (``can_double()``), a verification that raises
:class:`~croupier.errors.IllegalActionError` naming the state (``verify_double()``), and
the action (``double_down()``), which returns its event.  One function,
``_refusal``, says why an action is not allowed, so query, verification and action
agree.
"""

from __future__ import annotations

from decimal import Decimal

from croupier.errors import BetError, IllegalActionError
from croupier.events import Event
from croupier.money import parse_amount
from croupier.round_base import RoundBase
from croupier.round_state import (
    Action,
    Box,
    Decision,
    Hand,
    NeedDecision,
    OfferKind,
    Phase,
    lead_wager,
)
from croupier.rules import DoubleOn, SplitMatch, Surrender

__all__ = ["DecisionsMixin"]


class DecisionsMixin(RoundBase):
    """Hit, stand, double, split and surrender: queries, verifications and actions."""

    # -- queries -------------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the hand whose turn it is may take; empty when none waits."""
        if not isinstance(self._pending, NeedDecision):
            return ()
        box = self._box(self._pending.box)
        return self._legal_actions(box, box.hands[self._pending.hand - 1])

    def _legal_actions(self, box: Box, hand: Hand) -> tuple[Action, ...]:
        return tuple(action for action in Action if self._refusal(action, box, hand, None) is None)

    def _refusal(self, action: Action, box: Box, hand: Hand, amount: Decimal | None) -> str | None:
        """Why ``action`` is not allowed on ``hand`` now, or ``None`` when it is."""
        rules = self.rules
        where = f"box {box.number} hand {hand.number}"
        total = hand.total
        two_cards = len(hand.cards) == 2
        if action is Action.HIT:
            if hand.split_aces and not rules.hit_split_aces:
                return f"{where} is a split Ace, which takes one card only"
            if total >= 21:
                return f"{where} totals {total}; no card is drawn to 21 (RWS v5 3.17)"
            return None
        if action is Action.STAND:
            if rules.must_draw_to_12 and total < 12:
                return f"{where} totals {total}; a hand under 12 must draw (RWS v5 3.19)"
            return None
        if action is Action.DOUBLE:
            if not two_cards:
                return f"{where} has {len(hand.cards)} cards; only the first two may double"
            if hand.split_aces:
                return f"{where} is a split Ace, which may not double (RWS v5 1.6)"
            if hand.from_split and not rules.double_after_split:
                return f"{where} is a split hand; no double after a split at {rules.name}"
            if rules.double_on is DoubleOn.NINE_TO_ELEVEN and total not in (9, 10, 11):
                return f"{where} totals {total}; only 9, 10 or 11 may double"
            if total == 21 and not rules.double_on_21:
                return f"{where} is a two-card 21, which may not double (RWS v5 3.22)"
            if amount is not None:
                initial = lead_wager(box, hand).initial
                if amount > initial:
                    return f"a double of {amount} is more than the initial bet {initial}"
                if amount != initial and not rules.double_for_less:
                    return f"a double must equal the initial bet {initial} at {rules.name}"
            return None
        if action is Action.SPLIT:
            if not two_cards:
                return f"{where} has {len(hand.cards)} cards; only a pair may split"
            first, second = hand.cards
            pair = (
                first.rank is second.rank
                if rules.split_match is SplitMatch.RANK
                else first.points == second.points
            )
            if not pair:
                return f"{where} holds {first} {second}, not a pair that splits at {rules.name}"
            if len(box.hands) >= rules.max_split_hands:
                return f"box {box.number} has {len(box.hands)} hands, the most allowed"
            if hand.split_aces and not rules.resplit_aces:
                return f"{where} is a split Ace; Aces split once (RWS v5 3.21.2)"
            return None
        # surrender
        if rules.surrender not in (Surrender.LATE, Surrender.CASINO_TO_GO):
            return f"no surrender at this point at {rules.name} (surrender={rules.surrender})"
        if hand.from_split or len(box.hands) > 1:
            return f"{where} is a split hand; no surrender after a split"
        if not two_cards or hand.decisions:
            return f"{where}: surrender is the hand's first decision only"
        return None

    def can_hit(self) -> bool:
        """Whether the hand whose turn it is may draw."""
        return Action.HIT in self.legal_actions()

    def can_stand(self) -> bool:
        """Whether the hand whose turn it is may stand."""
        return Action.STAND in self.legal_actions()

    def can_double(self, amount: object = None) -> bool:
        """Whether the hand whose turn it is may double (for ``amount``)."""
        try:
            self.verify_double(amount)
        except (IllegalActionError, BetError):
            return False
        return True

    def can_split(self) -> bool:
        """Whether the hand whose turn it is may split."""
        return Action.SPLIT in self.legal_actions()

    def can_surrender(self) -> bool:
        """Whether the hand whose turn it is (or an open surrender offer) may surrender."""
        try:
            self.verify_surrender()
        except IllegalActionError:
            return False
        return True

    # -- verifications -------------------------------------------------------------------------

    def _require_turn(self, action: str, player: str | None) -> tuple[Box, Hand]:
        pending = self._pending
        if not isinstance(pending, NeedDecision):
            raise IllegalActionError(
                f"cannot {action}: no hand is waiting for a decision (phase={self._phase.value})"
            )
        box = self._box(pending.box)
        hand = box.hands[pending.hand - 1]
        if player is not None and player != box.seated:
            raise IllegalActionError(
                f"cannot {action}: box {box.number} is decided by its seated player "
                f"{box.seated}, not {player} (RWS v5 3.8)"
            )
        return box, hand

    def _verify(self, action: Action, player: str | None, amount: Decimal | None = None) -> None:
        box, hand = self._require_turn(action.value, player)
        reason = self._refusal(action, box, hand, amount)
        if reason is not None:
            raise IllegalActionError(f"cannot {action.value}: {reason} (phase={self._phase.value})")

    def verify_hit(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may draw."""
        self._verify(Action.HIT, player)

    def verify_stand(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may stand."""
        self._verify(Action.STAND, player)

    def verify_double(self, amount: object = None, player: str | None = None) -> Decimal | None:
        """Check a double; returns its exact amount (``None``: the full initial bet)."""
        value = None
        if amount is not None:
            value = parse_amount(amount, self.rules.currency_unit, what="double")
        self._verify(Action.DOUBLE, player, value)
        return value

    def verify_split(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may split."""
        self._verify(Action.SPLIT, player)

    def verify_surrender(self, box: int | None = None, player: str | None = None) -> None:
        """Check a surrender: of the current hand, or of a box's open RWS surrender offer."""
        if self._phase is Phase.OFFERS and self.rules.surrender is Surrender.RWS:
            self._find_offer(OfferKind.SURRENDER, player, box)
            return
        self._verify(Action.SURRENDER, player)

    # -- actions -------------------------------------------------------------------------------

    def _act(self, decision: Decision) -> Event:
        start = len(self._events)
        self._advance(decision)
        return self._events[start]

    def hit(self, player: str | None = None) -> Event:
        """Draw a card to the current hand."""
        self.verify_hit(player)
        return self._act(Decision(Action.HIT))

    def stand(self, player: str | None = None) -> Event:
        """Stand on the current hand."""
        self.verify_stand(player)
        return self._act(Decision(Action.STAND))

    def double_down(self, amount: object = None, player: str | None = None) -> Event:
        """Double the current hand (for less where the rules allow) and take one card."""
        value = self.verify_double(amount, player)
        return self._act(Decision(Action.DOUBLE, value))

    def split(self, player: str | None = None) -> Event:
        """Split the current pair into two hands."""
        self.verify_split(player)
        return self._act(Decision(Action.SPLIT))

    def surrender(self, box: int | None = None, player: str | None = None) -> Event:
        """Surrender the current hand, or accept a box's RWS surrender offer."""
        self.verify_surrender(box, player)
        if self._phase is Phase.OFFERS and self.rules.surrender is Surrender.RWS:
            offer = self._find_offer(OfferKind.SURRENDER, player, box)
            return self._answer(offer, accept=True)
        return self._act(Decision(Action.SURRENDER))
