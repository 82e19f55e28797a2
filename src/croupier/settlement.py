"""Settlement: every result a bet can have, recorded in one place.

Bets are paid at the table's rates (by default a blackjack 3 to 2, a win 1 to 1,
insurance 2 to 1); a stand-off returns the stake.  Against a dealer blackjack a
blackjack stands off and the other hands lose what the table's
``dealer_blackjack_takes`` says: every bet, or no more than each player's initial
bet.  A surrendered hand loses half, a busted hand its whole stake; either may be
held while the dealer may still turn out to hold a blackjack that takes more or
less.  A bet returned (a void, a dealing error) has net zero.  Every function here
skips a wager already settled or returned, so no stake is ever settled twice.
"""

from __future__ import annotations

from decimal import Decimal

from croupier.events import BetResult, BetReturned, BetSettled, RoundSettled
from croupier.money import payout, quantize
from croupier.round_state import INSURANCE, MAIN, ZERO, Box, Hand, Phase, RoundState, Wager
from croupier.rules import DealerBlackjackTakes

__all__ = [
    "bust",
    "final_settlement",
    "half",
    "house_net",
    "money_zero",
    "pay_blackjacks",
    "record_return",
    "settle",
    "settle_insurance",
    "settle_wager",
    "surrender",
]

# Bound once: reading an Enum member off its class is slow on Python 3.11.
_SETTLED = Phase.SETTLED


def money_zero(state: RoundState) -> Decimal:
    """Zero in the table's currency unit (``0.00``)."""
    return ZERO.quantize(state.rules.currency_unit)


def half(state: RoundState, amount: Decimal) -> Decimal:
    """Half an amount, rounded as the table rounds payouts."""
    rules = state.rules
    return quantize(amount / 2, rules.currency_unit, rules.payout_rounding)


def settle(
    state: RoundState,
    player: str,
    box: int,
    hand: int | None,
    bet: str,
    stake: Decimal,
    net: Decimal,
    outcome: str,
) -> None:
    """Record a bet's result and its event."""
    state.results.append(BetResult(player, box, hand, bet, stake, net, outcome))
    state.events.append(
        BetSettled(
            player=player, box=box, hand=hand, bet=bet, stake=stake, net=net, outcome=outcome
        )
    )


def settle_wager(
    state: RoundState, box: Box, hand: Hand, wager: Wager, net: Decimal, outcome: str
) -> None:
    """Settle one player's money on a hand."""
    wager.settled = True
    settle(state, wager.player, box.number, hand.number, MAIN, wager.stake, net, outcome)


def record_return(
    state: RoundState,
    player: str,
    box: int,
    hand: int | None,
    bet: str,
    amount: Decimal,
    reason: str,
    outcome: str,
) -> None:
    """A bet given back with nothing won or lost: its result and its event."""
    zero = money_zero(state)
    state.results.append(BetResult(player, box, hand, bet, amount, zero, outcome))
    state.events.append(
        BetReturned(player=player, box=box, hand=hand, bet=bet, amount=amount, reason=reason)
    )


def surrender(state: RoundState, box: Box, hand: Hand) -> None:
    """A surrendered hand loses half of every open stake on it."""
    for wager in hand.wagers:
        if not wager.settled:
            stake = wager.stake
            settle_wager(state, box, hand, wager, half(state, stake) - stake, "surrender")


def bust(state: RoundState, box: Box, hand: Hand) -> None:
    """A busted hand loses every open stake on it."""
    for wager in hand.wagers:
        if not wager.settled:
            settle_wager(state, box, hand, wager, -wager.stake, "bust")


def pay_blackjacks(state: RoundState) -> None:
    """Pay every first-hand blackjack not yet settled; the hand is finished."""
    rules = state.rules
    for box in state.boxes:
        hand = box.hands[0]
        if not hand.is_blackjack:
            continue
        for wager in hand.wagers:
            if not wager.settled:
                net = payout(
                    wager.stake, rules.blackjack_pays, rules.currency_unit, rules.payout_rounding
                )
                settle_wager(state, box, hand, wager, net, "blackjack")
        hand.finished = True


def settle_insurance(state: RoundState, *, dealer_blackjack: bool) -> None:
    """Settle every insurance bet: paid against a dealer blackjack, lost otherwise."""
    rules = state.rules
    for box in state.boxes:
        if box.insurance_settled:
            continue
        box.insurance_settled = True
        if not box.insurance:
            continue
        for player, amount in box.insurance.items():
            if dealer_blackjack:
                net = payout(
                    amount, rules.insurance_pays, rules.currency_unit, rules.payout_rounding
                )
                settle(state, player, box.number, None, INSURANCE, amount, net, "dealer-blackjack")
            else:
                settle(state, player, box.number, None, INSURANCE, amount, -amount, "lost")


def house_net(state: RoundState) -> Decimal:
    """What the house won on the round so far."""
    total = ZERO
    for result in state.results:
        total += result.net
    return (-total).quantize(state.rules.currency_unit)


def final_settlement(state: RoundState, dealer_blackjack: bool, dealer_total: int) -> None:
    """Settle every open bet against the dealer's finished hand; the round is settled."""
    rules = state.rules
    unit = rules.currency_unit
    rounding = rules.payout_rounding
    settle_insurance(state, dealer_blackjack=dealer_blackjack)
    for box in state.boxes:
        if dealer_blackjack:
            _against_dealer_blackjack(state, box)
            continue
        for hand in box.hands:
            total = hand.total
            for wager in hand.wagers:
                if wager.settled:
                    continue
                stake = wager.stake
                if hand.surrendered:
                    net, outcome = half(state, stake) - stake, "surrender"
                elif total > 21:
                    net, outcome = -stake, "bust"
                elif hand.is_blackjack:
                    net, outcome = payout(stake, rules.blackjack_pays, unit, rounding), "blackjack"
                elif dealer_total > 21 or total > dealer_total:
                    net, outcome = payout(stake, rules.win_pays, unit, rounding), "win"
                elif total == dealer_total:
                    net, outcome = money_zero(state), "stand-off"
                else:
                    net, outcome = -stake, "lose"
                settle_wager(state, box, hand, wager, net, outcome)
    state.phase = _SETTLED
    state.events.append(RoundSettled(house_net=house_net(state)))


def _against_dealer_blackjack(state: RoundState, box: Box) -> None:
    takes = state.rules.dealer_blackjack_takes
    for player, initial in box.initial.items():
        cap = initial
        for hand in box.hands:
            wager = hand.wager_of(player)
            if wager is None or wager.settled:
                continue
            if hand.is_blackjack:
                settle_wager(state, box, hand, wager, money_zero(state), "stand-off")
            elif hand.surrendered or takes is DealerBlackjackTakes.ALL:
                settle_wager(state, box, hand, wager, -wager.stake, "dealer-blackjack")
            else:
                loss = min(wager.stake, cap)
                cap -= loss
                settle_wager(state, box, hand, wager, -loss, "dealer-blackjack")
