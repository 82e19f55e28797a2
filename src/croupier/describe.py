"""A rule set in plain words for players: short sentences written from a ``Rules`` value.

Each sentence says one rule or a few that belong together, in the order a player
meets them: the shoe, the dealer's hand, what pays what, insurance, doubling,
splitting, surrender, the limits and the side bets, and last what an interruption
or a dealing error does to a round, with the clause the table cites.  Nothing is
copied from a rulebook: every sentence is written from the rule set's fields, so a
table with a rule changed from its preset reads as it plays.  The side bets' pay
lines are :func:`croupier.sidebets.pay_table`'s.

>>> from croupier.presets import find_rules
>>> sentences = describe_rules(find_rules("live"))
>>> for sentence in sentences[:3] + sentences[-3:]:  # doctest: +NORMALIZE_WHITESPACE
...     print(sentence)
8 decks, shuffled when the cut card comes out (about 1/2 of the shoe dealt).
7 boxes on the layout.
The dealer stands on all 17s.
A side bet is at most 500.00 a player on a box, and needs that player's own initial bet on the box.
Payouts are paid in units of 0.01, rounded down.
A malfunction voids all plays and pays: every bet of the round is returned, wins already
    paid included (live rules: mistakes push the hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from croupier.money import PayoutRounding
from croupier.rules import (
    DealerBlackjackTakes,
    DoubleOn,
    HoleCard,
    Interruption,
    Rules,
    SideBet,
    SplitMatch,
    Surrender,
)
from croupier.sidebets import pay_table

__all__ = ["SIDE_BET_NAMES", "describe_rules", "ratio_text"]

#: Each side bet by the name players know it by.
SIDE_BET_NAMES: Mapping[SideBet, str] = MappingProxyType(
    {
        SideBet.PLAYER_PAIR: "Player Pair",
        SideBet.UNDER_13: "Under 13",
        SideBet.OVER_13: "Over 13",
        SideBet.PERFECT_PAIRS: "Perfect Pairs",
        SideBet.TWENTY_ONE_PLUS_THREE: "21+3",
    }
)

_DEALER_BLACKJACK_TAKES: Mapping[DealerBlackjackTakes, str] = MappingProxyType(
    {
        DealerBlackjackTakes.ALL: (
            "A dealer blackjack takes every bet, split and doubled bets included."
        ),
        DealerBlackjackTakes.ORIGINAL_BET: (
            "A dealer blackjack takes only the original bet: split and double bets are returned."
        ),
        DealerBlackjackTakes.BUSTED_AND_INITIAL_BET: (
            "A dealer blackjack takes busted hands in full, and from the hands still standing "
            "only the initial bet; the rest is returned."
        ),
    }
)

_SURRENDER: Mapping[Surrender, str] = MappingProxyType(
    {
        Surrender.NONE: "No surrender.",
        Surrender.LATE: (
            "Surrender: give up half the initial bet as the hand's first decision, after the "
            "dealer "
            "has checked for blackjack (late surrender); not after a split."
        ),
        Surrender.RWS: (
            "Surrender: give up half the initial bet once every box has two cards, before "
            "any third card is dealt; not against a dealer Ace, and not after a split."
        ),
        Surrender.CASINO_TO_GO: (
            "Surrender: give up half the initial bet as the hand's first decision, not after a "
            "split; against an Ace or a ten, a dealer blackjack still takes the whole bet."
        ),
    }
)

_ROUNDING: Mapping[PayoutRounding, str] = MappingProxyType(
    {
        PayoutRounding.DOWN: "rounded down",
        PayoutRounding.UP: "rounded up",
        PayoutRounding.HALF_UP: "rounded to the nearest unit, a half up",
        PayoutRounding.HALF_EVEN: "rounded to the nearest unit, a half to the even unit",
    }
)


def ratio_text(ratio: Fraction) -> str:
    """A ratio to 1 as players read it.

    >>> ratio_text(Fraction(3, 2)), ratio_text(Fraction(11)), ratio_text(Fraction(6, 5))
    ('3 to 2', '11 to 1', '6 to 5')
    """
    return f"{ratio.numerator} to {ratio.denominator}"


def describe_rules(rules: Rules) -> list[str]:
    """The rule set in short sentences for players, every rule that changes their game.

    Rules that cannot matter under the others are left out: what a dealer
    blackjack takes from split and doubled hands when the dealer peeks (a peeked
    blackjack ends the round before any), doubling split hands when a box cannot
    split, a resplit of Aces when a box splits once only.  A table that gives no
    player the choice of taking his bet back after a dealing error says nothing of
    dealing errors: what it does instead is not a field.

    Args:
        rules: The rule set to describe.

    Returns:
        The sentences, each ending with a full stop.

    The RWS Version 5 preset, a sentence a line (a long one goes on over the next):

    >>> from croupier.presets import find_rules
    >>> for sentence in describe_rules(find_rules("rws-v5")):  # doctest: +NORMALIZE_WHITESPACE
    ...     print(sentence)
    8 decks, shuffled when the cut card comes out (about 3/4 of the shoe dealt).
    7 boxes on the layout.
    The dealer stands on all 17s.
    The dealer takes no hole card: his second card is dealt after the players have played.
    A dealer blackjack takes busted hands in full, and from the hands still standing only
        the initial bet; the rest is returned.
    Blackjack pays 3 to 2; any other winning hand pays 1 to 1.
    A blackjack is paid at once, or, against an Ace or a ten, when the dealer's hand is complete.
    Insurance pays 2 to 1: offered when the dealer's up card is an Ace, for up to half the
        initial bet.
    A blackjack against an Ace cannot be insured, but may take even money: paid 1 to 1 at once.
    Double on any first two cards, for any amount up to the initial bet.
    Split to 4 hands; a pair is two cards of the same value (a ten and a King make one).
    Split hands may be doubled, except split Aces and a two-card 21.
    Split Aces take one card each and cannot be split again.
    Surrender: give up half the initial bet once every box has two cards, before any third
        card is dealt; not against a dealer Ace, and not after a split.
    A hand under 12 must draw, unless it has doubled.
    Bets from 25.00 to 5000.00 a box.
    Side bets: Player Pair (pays 11 to 1), Under 13 (pays 1 to 1) and Over 13 (pays 1 to 1).
    A side bet is at most 500.00 a player on a box, and needs an initial bet on the box by
        any player.
    Under 13 and Over 13 are at most the box's initial bet; a total of exactly 13 loses both.
    Payouts are paid in units of 0.01, rounded down.
    A technical interruption voids the round unless a bet has already won or lost; then
        the round is played to its end (RWS v5 5.4.2).
    After a dealing error a player may have his bets returned and his hand invalidated
        (RWS v5 5.7.3).

    A rule changed from its preset reads as it plays:

    >>> online = find_rules("online-8deck").replace(dealer_hits_soft_17=True, surrender="none")
    >>> [s for s in describe_rules(online) if "17" in s or "urrender" in s]
    ['The dealer hits a soft 17 and stands on hard 17s.', 'No surrender.']
    """
    boxes = f"{rules.boxes} box{'es' if rules.boxes != 1 else ''} on the layout."
    sentences = [_shoe(rules), boxes]
    if rules.dealer_hits_soft_17:
        sentences.append("The dealer hits a soft 17 and stands on hard 17s.")
    else:
        sentences.append("The dealer stands on all 17s.")
    sentences += _hole_card(rules)
    sentences += _payouts(rules)
    sentences += _insurance(rules)
    sentences += _doubling_and_splitting(rules)
    sentences.append(_SURRENDER[rules.surrender])
    if rules.must_draw_to_12:
        sentences.append("A hand under 12 must draw, unless it has doubled.")
    limits = f"{_amount(rules.minimum_bet, rules)} to {_amount(rules.maximum_bet, rules)}"
    sentences.append(f"Bets from {limits} a box.")
    sentences += _side_bets(rules)
    sentences.append(
        f"Payouts are paid in units of {rules.currency_unit}, {_ROUNDING[rules.payout_rounding]}."
    )
    sentences += _irregularities(rules)
    return sentences


def _amount(amount: Decimal, rules: Rules) -> str:
    # Amounts are whole units of the currency (Rules checks it), so this only pads: 25 -> 25.00.
    return str(amount.quantize(rules.currency_unit))


def _shoe(rules: Rules) -> str:
    decks = f"{rules.decks} deck{'s' if rules.decks != 1 else ''}"
    if rules.shuffle_every_round:
        return f"{decks}, shuffled before every round."
    return (
        f"{decks}, shuffled when the cut card comes out "
        f"(about {rules.penetration} of the shoe dealt)."
    )


def _hole_card(rules: Rules) -> list[str]:
    if rules.hole_card is HoleCard.NONE:
        sentences = [
            "The dealer takes no hole card: his second card is dealt after the players have played."
        ]
    elif rules.hole_card is HoleCard.PEEK:
        sentences = [
            "The dealer takes a hole card and checks it for blackjack when his up card is an "
            "Ace or a ten: a dealer blackjack ends the round at once."
        ]
    else:
        sentences = [
            "The dealer takes a hole card but does not check it for blackjack: it stays face "
            "down until the players have played."
        ]
    if rules.hole_card_dealt_first:
        sentences.append(
            "The dealer's hole card is dealt in the first pass, his up card in the second."
        )
    # With the peek a dealer blackjack ends the round before any split or double.
    if rules.hole_card is not HoleCard.PEEK:
        sentences.append(_DEALER_BLACKJACK_TAKES[rules.dealer_blackjack_takes])
    return sentences


def _payouts(rules: Rules) -> list[str]:
    sentences = [
        f"Blackjack pays {ratio_text(rules.blackjack_pays)}; "
        f"any other winning hand pays {ratio_text(rules.win_pays)}."
    ]
    if not rules.blackjack_paid_immediately:
        sentences.append("A blackjack is paid when the round is settled.")
    elif rules.hole_card is HoleCard.PEEK:
        sentences.append(
            "A blackjack is paid at once, or, against an Ace or a ten, once the dealer has "
            "checked for blackjack."
        )
    else:
        sentences.append(
            "A blackjack is paid at once, or, against an Ace or a ten, when the dealer's hand "
            "is complete."
        )
    return sentences


def _insurance(rules: Rules) -> list[str]:
    if not rules.insurance:
        return ["No insurance."]
    amount = (
        "up to half the initial bet" if rules.insurance_for_less else "exactly half the initial bet"
    )
    sentences = [
        f"Insurance pays {ratio_text(rules.insurance_pays)}: offered when the dealer's up card "
        f"is an Ace, for {amount}."
    ]
    even_money = "even money: paid 1 to 1 at once"
    if rules.even_money and rules.insurance_with_blackjack:
        sentences.append(f"A blackjack against an Ace may be insured, or take {even_money}.")
    elif rules.even_money:
        sentences.append(
            f"A blackjack against an Ace cannot be insured, but may take {even_money}."
        )
    elif rules.insurance_with_blackjack:
        sentences.append("A blackjack may be insured too; there is no even money.")
    else:
        sentences.append("A blackjack cannot be insured, and there is no even money.")
    return sentences


def _doubling_and_splitting(rules: Rules) -> list[str]:
    which = (
        "any first two cards"
        if rules.double_on is DoubleOn.ANY_TWO
        else "first two cards totalling 9, 10 or 11 only"
    )
    amount = (
        "for any amount up to the initial bet"
        if rules.double_for_less
        else "for an amount equal to the initial bet"
    )
    sentences = [f"Double on {which}, {amount}."]
    if rules.max_split_hands == 1:
        sentences.append("No splitting.")
        return sentences
    pair = (
        "two cards of the same value (a ten and a King make one)"
        if rules.split_match is SplitMatch.VALUE
        else "two cards of the same rank (a ten and a King do not make one)"
    )
    sentences.append(f"Split to {rules.max_split_hands} hands; a pair is {pair}.")
    if not rules.double_after_split:
        sentences.append("Split hands may not be doubled.")
    elif rules.double_on_21 or rules.double_on is not DoubleOn.ANY_TWO:
        # A two-card 21 is never 9, 10 or 11: doubling it is moot there.
        sentences.append("Split hands may be doubled, except split Aces.")
    else:
        sentences.append("Split hands may be doubled, except split Aces and a two-card 21.")
    aces = ["may draw more cards" if rules.hit_split_aces else "take one card each"]
    if rules.max_split_hands > 2:
        aces.append("may be split again" if rules.resplit_aces else "cannot be split again")
    sentences.append(f"Split Aces {' and '.join(aces)}.")
    return sentences


def _side_bets(rules: Rules) -> list[str]:
    offered = rules.side_bets_offered()
    if not offered:
        return ["No side bets."]
    named = [f"{SIDE_BET_NAMES[side_bet]} ({_best_pays(side_bet, rules)})" for side_bet in offered]
    listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    maximum = (
        "A side bet has no maximum of its own"
        if rules.side_bet_maximum is None
        else f"A side bet is at most {_amount(rules.side_bet_maximum, rules)} a player on a box"
    )
    needs = (
        "that player's own initial bet on the box"
        if rules.side_bet_needs_own_initial_bet
        else "an initial bet on the box by any player"
    )
    sentences = [f"Side bets: {listed}.", f"{maximum}, and needs {needs}."]
    if SideBet.UNDER_13 in offered or SideBet.OVER_13 in offered:
        sentences.append(
            "Under 13 and Over 13 are at most the box's initial bet; a total of exactly 13 "
            "loses both."
        )
    return sentences


def _best_pays(side_bet: SideBet, rules: Rules) -> str:
    lines = pay_table(side_bet, rules)
    if len(lines) == 1:
        return f"pays {ratio_text(lines[0].pays)}"
    return f"pays up to {ratio_text(max(line.pays for line in lines))}"


def _irregularities(rules: Rules) -> list[str]:
    if rules.interruption is Interruption.VOID_ALL:
        sentences = [
            "A malfunction voids all plays and pays: every bet of the round is returned, "
            f"wins already paid included ({rules.cite_interruption})."
        ]
    else:
        sentences = [
            "A technical interruption voids the round unless a bet has already won or lost; "
            f"then the round is played to its end ({rules.cite_interruption})."
        ]
    if rules.dealing_error_return:
        sentences.append(
            "After a dealing error a player may have his bets returned and his hand "
            f"invalidated ({rules.cite_dealing_error})."
        )
    return sentences
