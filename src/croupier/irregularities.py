"""Irregularities: voids, interruptions, time-outs, players who leave, dealing errors.

Each preset names its own clauses (``Rules.cite_*``).  A void returns every bet of the
round (RWS v5 5.17; "malfunctions void all plays and pays" online).  A technical
interruption voids the round unless an outcome is established (RWS v5 5.4), or at a
table whose rules void every play and pay on a malfunction, voids it whatever has
happened.  A hand whose time runs out, or whose player walks away alone, draws to 12 or
more and stands (5.3); where others bet on the box, its decisions pass to the one with
the highest bet (1.26).  After a dealing error a player may have his bets returned and
his hand invalidated where the rules allow it (5.7.3).
"""

from __future__ import annotations

from dataclasses import replace

from croupier.errors import IllegalActionError
from croupier.events import (
    PlayerTimedOut,
    PlayerWalkedAway,
    RoundVoided,
    SeatPassed,
    TechnicalInterruption,
)
from croupier.offers import answer
from croupier.round_state import (
    INSURANCE,
    MAIN,
    Awaiting,
    Box,
    OfferKind,
    Phase,
    RoundState,
    Step,
)
from croupier.rules import Interruption
from croupier.settlement import record_return

__all__ = [
    "interrupt",
    "outcome_established",
    "pass_seat",
    "return_bets",
    "time_out",
    "verify_not_over",
    "verify_return_bets",
    "verify_walk_away",
    "void",
    "walk_away",
]

_OVER = (Phase.SETTLED, Phase.VOID)
#: The outcome of a bet returned after a dealing error; a void keeps it as it is.
RETURNED = "returned"


def verify_not_over(state: RoundState, action: str) -> None:
    """Refuse an irregularity on a round that is over."""
    if state.phase in _OVER:
        raise IllegalActionError(f"cannot {action}: the round is over (phase={state.phase.value})")


def void(state: RoundState, reason: str) -> None:
    """Void the round: every bet of the round not already returned comes back.

    Bets settled earlier in the round are returned as well: a void round has no result
    (RWS v5 1.36, 5.17).  A bet already returned after a dealing error keeps its one
    result.
    """
    state.offers = []
    state.phase = Phase.VOID
    cursor = state.cursor
    cursor.step = Step.OVER
    cursor.awaiting = Awaiting.NOTHING
    cursor.legal = ()
    state.void_reason = reason
    state.events.append(RoundVoided(reason=reason))
    state.results = [result for result in state.results if result.outcome == RETURNED]
    if state.boxes:
        for box in state.boxes:
            for placed in box.side_bets:
                record_return(
                    state,
                    placed.player,
                    box.number,
                    None,
                    placed.bet,
                    placed.amount,
                    "void",
                    "void",
                )
            for player, amount in box.insurance.items():
                record_return(state, player, box.number, None, INSURANCE, amount, "void", "void")
            for hand in box.hands:
                for wager in hand.wagers:
                    if not wager.returned:
                        record_return(
                            state,
                            wager.player,
                            box.number,
                            hand.number,
                            MAIN,
                            wager.stake,
                            "void",
                            "void",
                        )
    else:
        for placed in state.bets:
            record_return(
                state, placed.player, placed.box, None, placed.bet, placed.amount, "void", "void"
            )


def outcome_established(state: RoundState) -> bool:
    """Some bet has conclusively won or lost (RWS v5 5.4.1).

    A settled bet that won or lost counts (a stand-off or a returned bet does not), and
    so does a bet held while the dealer may still have a blackjack but lost whatever he
    has: a busted hand, or a surrendered one.
    """
    if any(result.net != 0 for result in state.results):
        return True
    for box in state.boxes:
        for hand in box.hands:
            if (hand.busted or hand.surrendered) and any(
                not wager.settled for wager in hand.wagers
            ):
                return True
    return False


def interrupt(state: RoundState) -> bool:
    """A technical interruption: returns whether the round goes on."""
    rules = state.rules
    established = outcome_established(state)
    state.events.append(TechnicalInterruption(outcome_established=established))
    if rules.interruption is Interruption.VOID_ALL:
        void(state, f"malfunction: all plays and pays are void ({rules.cite_interruption})")
        return False
    if not established:
        void(
            state,
            "technical interruption before any outcome was established "
            f"({rules.cite_interruption})",
        )
        return False
    return True


def time_out(state: RoundState) -> None:
    """The decision time ran out: open offers are declined; a hand plays by 5.3."""
    if state.cursor.awaiting is Awaiting.ANSWERS:
        for offer in list(state.offers):
            answer(state, offer, accept=False)
        return
    current = state.current()
    if current is None:
        raise IllegalActionError(
            f"cannot time out: nothing is waiting for a decision (phase={state.phase.value})"
        )
    box, hand = current
    hand.auto_play = True
    state.events.append(PlayerTimedOut(box=box.number, hand=hand.number))


def pass_seat(state: RoundState, box: Box, leaving: str) -> None:
    """The box's decisions pass to the remaining player with the highest bet (1.26)."""
    others = [
        (amount, name)
        for name, amount in box.initial.items()
        if name != leaving and name not in state.absent and _has_open_bet(box, name)
    ]
    if others:
        box.seated = max(others, key=lambda item: item[0])[1]
        state.events.append(SeatPassed(box=box.number, player=box.seated))


def _has_open_bet(box: Box, player: str) -> bool:
    return any(
        wager.player == player and not wager.returned for hand in box.hands for wager in hand.wagers
    )


def verify_return_bets(state: RoundState, player: str, box: int) -> Box:
    """The box ``player`` takes his bets back from, or :class:`IllegalActionError`."""
    rules = state.rules
    if not rules.dealing_error_return:
        raise IllegalActionError(
            f"cannot return bets: {rules.name} gives no player the choice to take his bet back "
            f"after a dealing error ({rules.cite_dealing_error}); void the round or play on"
        )
    if state.phase not in (Phase.DEALING, Phase.OFFERS, Phase.PLAYER_TURNS):
        raise IllegalActionError(
            f"cannot return bets: no dealing error can be answered now (phase={state.phase.value})"
        )
    placed = state.box(box)
    if placed is None:
        raise IllegalActionError(f"cannot return bets: box {box} has no bet in this round")
    open_bet = (
        any(
            wager.player == player and not wager.settled
            for hand in placed.hands
            for wager in hand.wagers
        )
        or (player in placed.insurance and not placed.insurance_settled)
        or (not state.side_bets_settled and any(side.player == player for side in placed.side_bets))
    )
    if not open_bet:
        raise IllegalActionError(
            f"cannot return bets: {player} has no open bet on box {box} (phase={state.phase.value})"
        )
    cursor = state.cursor
    if (
        cursor.step is Step.TURNS
        and cursor.box < len(state.boxes)
        and state.boxes[cursor.box] is placed
        and cursor.hand < len(placed.hands)
        and (placed.seated == player or cursor.awaiting is not Awaiting.DECISION)
    ):
        # The box's decisions have begun.  A standing player may still take his bet
        # back while the seated player decides (RWS v5 5.7: "all Players on the gaming
        # table"; 5.9: errors "during a Subsequent Deal"); the seated player cannot leave
        # the hand mid-decision, nor anyone a split or double being followed.
        raise IllegalActionError(
            f"cannot return bets: box {box} is deciding hand {placed.hands[cursor.hand].number}; "
            f"answer the dealing error before its decisions (phase={state.phase.value})"
        )
    return placed


def return_bets(state: RoundState, player: str, placed: Box) -> None:
    """Give ``player`` his open bets on the box back; his hand is invalidated (5.7.3).

    His initial, split and double bets, insurance and side bets not yet settled come
    back; bets already settled stand.  Where he was seated, the box's decisions pass to
    the player with the highest bet (1.26); his offers on the box go with him.
    """
    rules = state.rules
    reason = f"dealing error: bet returned and hand invalidated ({rules.cite_dealing_error})"
    number = placed.number
    for hand in placed.hands:
        wager = hand.wager_of(player)
        if wager is None or wager.settled:
            continue
        wager.settled = True
        wager.returned = True
        record_return(state, player, number, hand.number, MAIN, wager.stake, reason, RETURNED)
    if not placed.insurance_settled and player in placed.insurance:
        amount = placed.insurance.pop(player)
        placed.returned_insurance[player] = amount
        record_return(state, player, number, None, INSURANCE, amount, reason, RETURNED)
    if not state.side_bets_settled:
        for side in [side for side in placed.side_bets if side.player == player]:
            placed.side_bets.remove(side)
            placed.returned_side_bets.append(side)
            record_return(state, player, number, None, side.bet, side.amount, reason, RETURNED)
    if placed.seated == player:
        pass_seat(state, placed, player)
    for offer in list(state.offers):
        if offer.player == player and offer.box == number:
            index = state.offers.index(offer)
            if offer.kind is OfferKind.SURRENDER and placed.seated != player:
                # A decision of the box passes with the seat (RWS v5 1.26, 3.8).
                state.offers[index] = replace(offer, player=placed.seated)
            else:
                del state.offers[index]


def verify_walk_away(state: RoundState, player: str) -> None:
    """Check that ``player`` has bets in play to walk away from."""
    if state.phase in (*_OVER, Phase.BETTING):
        raise IllegalActionError(
            f"cannot walk away with bets in play now (phase={state.phase.value})"
        )
    if player in state.absent or not state.bets.of(player):
        raise IllegalActionError(
            f"cannot walk away: {player} has no bet in play at this table "
            f"(phase={state.phase.value})"
        )


def walk_away(state: RoundState, player: str) -> None:
    """A player leaves with bets in play (5.3); his seats pass (1.26), his offers lapse."""
    state.events.append(PlayerWalkedAway(player=player))
    state.absent.add(player)
    for box in state.boxes:
        if box.seated == player:
            pass_seat(state, box, player)
    for offer in list(state.offers):
        if offer.player != player:
            continue
        placed = state.box(offer.box)
        assert placed is not None
        seated = placed.seated
        if offer.kind is OfferKind.SURRENDER and seated not in state.absent:
            # A decision of the box passes with the seat (RWS v5 1.26, 3.8).
            state.offers[state.offers.index(offer)] = replace(offer, player=seated)
        else:
            answer(state, offer, accept=False)
