"""The seated player's decisions for the hand whose turn it is.

One function, :func:`refusal`, says why an action is not allowed on a hand, so the
query (``can_double()``), the verification (``verify_double()``) and the action
(``double_down()``) always agree.  The actions a hand may take are worked out once,
when the round stops for its decision, and kept on the cursor.  :func:`decide`
records a decision and leaves the hand owing whatever card it calls for; the flow
deals it.
"""

from __future__ import annotations

from decimal import Decimal

from croupier.dealer import blackjack_possible
from croupier.errors import IllegalActionError
from croupier.events import (
    PlayerDoubledDown,
    PlayerHit,
    PlayerSplit,
    PlayerStood,
    PlayerSurrendered,
)
from croupier.offers import follow_amount, put
from croupier.round_state import (
    Action,
    Awaiting,
    Box,
    Hand,
    Offer,
    OfferKind,
    Owed,
    RoundState,
    Wager,
)
from croupier.rules import DealerBlackjackTakes, DoubleOn, SplitMatch, Surrender
from croupier.settlement import surrender

__all__ = [
    "decide",
    "deciding_wager",
    "legal_actions",
    "refusal",
    "require_turn",
    "stand",
    "verify",
]

_HAND_SURRENDERS = (Surrender.LATE, Surrender.CASINO_TO_GO)
# Enum members as module names: on Python 3.11 reading a member off its class goes
# through EnumType.__getattr__'s slow hook (about 70 ns), and a round reads dozens.
_DECISION = Awaiting.DECISION
_HIT = Action.HIT
_STAND = Action.STAND
_DOUBLE = Action.DOUBLE
_SPLIT = Action.SPLIT
_SURRENDER = Action.SURRENDER
_ANY_TWO = DoubleOn.ANY_TWO
_BY_RANK = SplitMatch.RANK
_NOTHING = Awaiting.NOTHING
_OWES_HIT = Owed.HIT
_OWES_DOUBLE = Owed.DOUBLE
_FOLLOW_DOUBLE = OfferKind.FOLLOW_DOUBLE


def deciding_wager(box: Box, hand: Hand) -> Wager | None:
    """The seated player's own money on the hand; ``None`` when he has none on it.

    A player only ever stakes his own money: a hand that carries only other players'
    bets (a standing player who took the box over did not follow its split, or the
    seated player's own bet was returned after a dealing error) is played for them by
    the absent-player rule, never doubled or split with their money.
    """
    own = hand.wager_of(box.seated)
    return None if own is None or own.returned else own


def refusal(
    state: RoundState, action: Action, box: Box, hand: Hand, amount: Decimal | None
) -> str | None:
    """Why ``action`` is not allowed on ``hand`` now, or ``None`` when it is."""
    rules = state.rules
    total = hand.total
    if action is Action.HIT:
        if hand.split_aces and not rules.hit_split_aces:
            return f"box {box.number} hand {hand.number} is a split Ace, which takes one card only"
        if total >= 21:
            return (
                f"box {box.number} hand {hand.number} totals {total}; no card is drawn to 21 "
                "(RWS v5 3.17)"
            )
        return None
    if action is Action.STAND:
        if rules.must_draw_to_12 and total < 12:
            return (
                f"box {box.number} hand {hand.number} totals {total}; a hand under 12 must draw "
                "(RWS v5 3.19)"
            )
        return None
    where = f"box {box.number} hand {hand.number}"
    count = len(hand.cards)
    if action is Action.DOUBLE:
        if count != 2:
            return f"{where} has {count} cards; only the first two may double"
        if hand.split_aces:
            return f"{where} is a split Ace, which may not double (RWS v5 1.6)"
        if hand.from_split and not rules.double_after_split:
            return f"{where} is a split hand; no double after a split at {rules.name}"
        if rules.double_on is DoubleOn.NINE_TO_ELEVEN and total not in (9, 10, 11):
            return f"{where} totals {total}; only 9, 10 or 11 may double"
        if total == 21 and not rules.double_on_21:
            return f"{where} is a two-card 21, which may not double (RWS v5 3.22)"
        own = deciding_wager(box, hand)
        if own is None:
            return f"{where} carries none of {box.seated}'s money; he may not double it"
        if amount is not None:
            if amount > own.initial:
                return f"a double of {amount} is more than the initial bet {own.initial}"
            if amount != own.initial and not rules.double_for_less:
                return f"a double must equal the initial bet {own.initial} at {rules.name}"
        return None
    if action is Action.SPLIT:
        if count != 2:
            return f"{where} has {count} cards; only a pair may split"
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
        if deciding_wager(box, hand) is None:
            return f"{where} carries none of {box.seated}'s money; he may not split it"
        return None
    # surrender
    if rules.surrender not in (Surrender.LATE, Surrender.CASINO_TO_GO):
        return f"no surrender at this point at {rules.name} (surrender={rules.surrender})"
    if hand.from_split or len(box.hands) > 1:
        return f"{where} is a split hand; no surrender after a split"
    if count != 2 or hand.decisions:
        return f"{where}: surrender is the hand's first decision only"
    return None


def legal_actions(state: RoundState, box: Box, hand: Hand) -> tuple[Action, ...]:
    """The actions ``hand`` may take: those :func:`refusal` does not refuse.

    Written out once more for speed (a round asks it at every decision); the
    property tests hold it to :func:`refusal` action by action.
    """
    rules = state.rules
    total = hand.total
    split_aces = hand.split_aces
    legal: list[Action] = []
    if total < 21 and (not split_aces or rules.hit_split_aces):
        legal.append(_HIT)
    if total >= 12 or not rules.must_draw_to_12:
        legal.append(_STAND)
    if len(hand.cards) != 2:
        return tuple(legal)
    own = deciding_wager(box, hand) is not None
    if (
        own
        and not split_aces
        and (not hand.from_split or rules.double_after_split)
        and (rules.double_on is _ANY_TWO or total in (9, 10, 11))
        and (total != 21 or rules.double_on_21)
    ):
        legal.append(_DOUBLE)
    first, second = hand.cards
    if (
        own
        and (
            first.rank is second.rank
            if rules.split_match is _BY_RANK
            else first.points == second.points
        )
        and len(box.hands) < rules.max_split_hands
        and (not split_aces or rules.resplit_aces)
    ):
        legal.append(_SPLIT)
    if (
        rules.surrender in _HAND_SURRENDERS
        and not hand.from_split
        and len(box.hands) == 1
        and not hand.decisions
    ):
        legal.append(_SURRENDER)
    return tuple(legal)


def require_turn(state: RoundState, action: str, player: str | None) -> tuple[Box, Hand]:
    """The box and hand waiting for a decision, which ``player`` (when named) must make."""
    current = state.current()
    if current is None:
        raise IllegalActionError(
            f"cannot {action}: no hand is waiting for a decision (phase={state.phase.value})"
        )
    box = current[0]
    if player is not None and player != box.seated:
        raise IllegalActionError(
            f"cannot {action}: box {box.number} is decided by its seated player "
            f"{box.seated}, not {player} (RWS v5 3.8)"
        )
    return current


def verify(
    state: RoundState, action: Action, player: str | None, amount: Decimal | None = None
) -> tuple[Box, Hand]:
    """The box and hand ``action`` is for, or :class:`IllegalActionError` saying why not."""
    cursor = state.cursor
    if (
        cursor.awaiting is _DECISION
        and action in cursor.legal
        and (amount is None or action is not _DOUBLE)
    ):
        box = state.boxes[cursor.box]
        if player is None or player == box.seated:
            return box, box.hands[cursor.hand]
    box, hand = require_turn(state, action.value, player)
    if action in state.cursor.legal and (amount is None or action is not _DOUBLE):
        return box, hand
    reason = refusal(state, action, box, hand, amount)
    if reason is not None:
        raise IllegalActionError(f"cannot {action.value}: {reason} (phase={state.phase.value})")
    return box, hand


def stand(state: RoundState, box: Box, hand: Hand, *, automatic: bool) -> None:
    """The hand stands."""
    hand.finished = True
    state.events.append(
        PlayerStood(box=box.number, hand=hand.number, total=hand.total, automatic=automatic)
    )


def decide(
    state: RoundState, box: Box, hand: Hand, action: Action, amount: Decimal | None = None
) -> None:
    """Record a checked decision; the hand then owes the card it calls for."""
    hand.decisions += 1
    cursor = state.cursor
    cursor.awaiting = _NOTHING
    cursor.legal = ()
    events = state.events
    if action is _STAND:
        stand(state, box, hand, automatic=False)
    elif action is _HIT:
        events.append(PlayerHit(box=box.number, hand=hand.number))
        cursor.owed = _OWES_HIT
    elif action is _DOUBLE:
        own = deciding_wager(box, hand)
        assert own is not None
        value = amount if amount is not None else own.initial
        own.double = value
        hand.doubled = True
        events.append(
            PlayerDoubledDown(player=own.player, box=box.number, hand=hand.number, amount=value)
        )
        offers = []
        for wager in hand.wagers:
            if wager is own or wager.settled:
                continue
            follow = follow_amount(state, wager.initial, value, own.initial)
            if follow > 0:
                offers.append(Offer(_FOLLOW_DOUBLE, wager.player, box.number, hand.number, follow))
        cursor.owed = _OWES_DOUBLE
        put(state, offers)
    elif action is _SPLIT:
        own = deciding_wager(box, hand)
        assert own is not None
        split_aces = hand.cards[0].points == 1
        new = Hand(
            len(box.hands) + 1,
            [],
            [Wager(own.player, own.initial)],
            from_split=True,
            split_aces=split_aces,
        )
        new.add(hand.take_last())
        hand.from_split = True
        hand.split_aces = split_aces
        box.hands.append(new)
        events.append(
            PlayerSplit(
                player=own.player,
                box=box.number,
                hand=hand.number,
                new_hand=new.number,
                amount=own.initial,
            )
        )
        put(
            state,
            [
                Offer(OfferKind.FOLLOW_SPLIT, wager.player, box.number, new.number, wager.initial)
                for wager in hand.wagers
                if wager is not own and not wager.settled
            ],
        )
    else:
        hand.surrendered = True
        hand.finished = True
        events.append(PlayerSurrendered(box=box.number, hand=hand.number))
        if not _held(state):
            surrender(state, box, hand)


def _held(state: RoundState) -> bool:
    """A Casino-To-Go surrender waits while the dealer may still hold a blackjack."""
    return state.rules.surrender is Surrender.CASINO_TO_GO and blackjack_possible(state)


def holds_bust(state: RoundState) -> bool:
    """A bust waits while a dealer blackjack, which takes only the original bet, may come."""
    return (
        state.rules.dealer_blackjack_takes is DealerBlackjackTakes.ORIGINAL_BET
        and blackjack_possible(state)
    )
