"""Side bets settled on the initial deal: Player Pair, Under/Over 13, Perfect Pairs, 21+3.

Each side bet is decided by the player's first two cards (and, for 21+3, the
dealer's up card) alone; it never affects the hand on its box.  Payouts are
ratios to 1 from the rule set's pay table, and a side bet whose pay table is
``None`` is not offered.

>>> from fractions import Fraction
>>> from croupier.cards import parse_card, parse_cards
>>> from croupier.rules import Rules, SideBet
>>> rules = Rules(
...     player_pair_pays=Fraction(11),
...     under_13_pays=Fraction(1),
...     over_13_pays=Fraction(1),
... )
>>> result = settle_side_bet(SideBet.PLAYER_PAIR, rules, parse_cards("KS KD"), parse_card("5H"))
>>> result.outcome, result.pays, result.wins
(<SideBetOutcome.PAIR: 'pair'>, Fraction(11, 1), True)
>>> settle_side_bet(SideBet.OVER_13, rules, parse_cards("AS KD"), parse_card("5H")).outcome
<SideBetOutcome.UNDER_13: 'under-13'>
>>> [(line.outcome.value, line.pays) for line in pay_table(SideBet.UNDER_13, rules)]
[('under-13', Fraction(1, 1))]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import TypeVar

from croupier.cards import Card, Rank
from croupier.errors import BetError
from croupier.rules import Rules, SideBet

__all__ = [
    "PayLine",
    "SideBetOutcome",
    "SideBetResult",
    "pay_table",
    "settle_side_bet",
]


class SideBetOutcome(StrEnum):
    """What the cards made for a side bet; ``NOTHING`` when they made nothing it pays on."""

    #: Player Pair: two cards of the same rank.
    PAIR = "pair"
    #: Perfect Pairs: the same rank and the same suit.
    PERFECT_PAIR = "perfect-pair"
    #: Perfect Pairs: the same rank and colour, different suits.
    COLOURED_PAIR = "coloured-pair"
    #: Perfect Pairs: the same rank, one red card and one black.
    MIXED_PAIR = "mixed-pair"
    #: Under/Over 13: fewer than 13 points, Aces 1 (a blackjack included).
    UNDER_13 = "under-13"
    #: Under/Over 13: more than 13 points.
    OVER_13 = "over-13"
    #: Under/Over 13: exactly 13 points, which loses both bets.
    THIRTEEN = "thirteen"
    #: 21+3: three cards of the same rank and suit.
    SUITED_TRIPS = "suited-trips"
    #: 21+3: three cards in sequence of one suit.
    STRAIGHT_FLUSH = "straight-flush"
    #: 21+3: three cards of the same rank, not all of one suit.
    THREE_OF_A_KIND = "three-of-a-kind"
    #: 21+3: three cards in sequence, not all of one suit.
    STRAIGHT = "straight"
    #: 21+3: three cards of one suit, not in sequence.
    FLUSH = "flush"
    #: No winning combination for the side bet.
    NOTHING = "nothing"


@dataclass(frozen=True, slots=True)
class SideBetResult:
    """The settlement of one side bet.

    Attributes:
        side_bet: The side bet settled.
        outcome: What the cards made.  For Under 13 and Over 13 it is the cards' side
            of 13 whichever of the two bets was placed, so an Over 13 bet can lose
            with outcome ``UNDER_13``.
        pays: The ratio to 1 the bet is paid when it wins; ``None`` when it loses.

    >>> SideBetResult(SideBet.OVER_13, SideBetOutcome.THIRTEEN, None).wins
    False
    """

    side_bet: SideBet
    outcome: SideBetOutcome
    pays: Fraction | None

    @property
    def wins(self) -> bool:
        """Whether the side bet is paid.

        >>> SideBetResult(SideBet.PLAYER_PAIR, SideBetOutcome.PAIR, Fraction(11)).wins
        True
        """
        return self.pays is not None


@dataclass(frozen=True, slots=True)
class PayLine:
    """One winning line of a side bet's pay table.

    Attributes:
        outcome: The winning outcome.
        description: The outcome in words for players, such as
            ``"Perfect pair: same rank and suit"``.
        pays: The ratio to 1 it pays.

    >>> line = PayLine(SideBetOutcome.PAIR, "Pair: two cards of the same rank", Fraction(11))
    >>> line.pays
    Fraction(11, 1)
    """

    outcome: SideBetOutcome
    description: str
    pays: Fraction


#: Each winning outcome in words for players, as a pay table lists it.
_DESCRIPTIONS: Mapping[SideBetOutcome, str] = MappingProxyType(
    {
        SideBetOutcome.PAIR: "Pair: two cards of the same rank, any suits",
        SideBetOutcome.UNDER_13: "Under 13: the two cards count 12 or less, every Ace as 1",
        SideBetOutcome.OVER_13: "Over 13: the two cards count 14 or more, every Ace as 1",
        SideBetOutcome.PERFECT_PAIR: "Perfect pair: same rank and suit",
        SideBetOutcome.COLOURED_PAIR: "Coloured pair: same rank and colour, different suits",
        SideBetOutcome.MIXED_PAIR: "Mixed pair: same rank, one red card and one black",
        SideBetOutcome.SUITED_TRIPS: "Suited trips: three cards of the same rank and suit",
        SideBetOutcome.STRAIGHT_FLUSH: "Straight flush: three cards in sequence, of one suit",
        SideBetOutcome.THREE_OF_A_KIND: (
            "Three of a kind: three cards of the same rank, not all of one suit"
        ),
        SideBetOutcome.STRAIGHT: (
            "Straight: three cards in sequence (Ace high or low), not all of one suit"
        ),
        SideBetOutcome.FLUSH: "Flush: three cards of one suit, not in sequence",
    }
)

#: Position of each 21+3 outcome in ``Rules.twenty_one_plus_three_pays``.
_TWENTY_ONE_PLUS_THREE_INDEX = {
    SideBetOutcome.SUITED_TRIPS: 0,
    SideBetOutcome.STRAIGHT_FLUSH: 1,
    SideBetOutcome.THREE_OF_A_KIND: 2,
    SideBetOutcome.STRAIGHT: 3,
    SideBetOutcome.FLUSH: 4,
}

#: Position of each Perfect Pairs outcome in ``Rules.perfect_pairs_pays``.
_PERFECT_PAIRS_INDEX = {
    SideBetOutcome.PERFECT_PAIR: 0,
    SideBetOutcome.COLOURED_PAIR: 1,
    SideBetOutcome.MIXED_PAIR: 2,
}

#: The ranks in sequence with the Ace both low and high: A, 2, ..., K, A.
_RANKS_IN_SEQUENCE = (*Rank, Rank.ACE)

#: The rank sets of the twelve straights, A-2-3 to Q-K-A; K-A-2 does not wrap round.
_STRAIGHTS = frozenset(
    frozenset(_RANKS_IN_SEQUENCE[start : start + 3]) for start in range(len(Rank) - 1)
)

_Table = TypeVar("_Table")


def settle_side_bet(
    side_bet: SideBet, rules: Rules, first_two: Sequence[Card], dealer_up: Card
) -> SideBetResult:
    """Settle a side bet on the player's first two cards and the dealer's up card.

    Player Pair wins on two cards of the same rank, whatever their suits (RWS v4
    3.7.1, v5 3.13.1).  Under 13 and Over 13 count every Ace as 1 and every picture
    as 10; exactly 13 loses both, and a blackjack is Under 13 (RWS v4 3.7.2, v5
    3.13.2).  Perfect Pairs pays a perfect, coloured or mixed pair; 21+3 pays only
    the best of suited trips, straight flush, three of a kind, straight and flush
    formed with the dealer's up card (live).  Only 21+3 looks at the up card.

    Args:
        side_bet: The side bet to settle.
        rules: The rule set whose pay table pays the bet.
        first_two: The player's initial two cards.
        dealer_up: The dealer's up card.

    Returns:
        The outcome, and the ratio to 1 paid when the bet wins.

    Raises:
        BetError: The rule set does not offer the side bet (its pay table is
            ``None``), the side bet is unknown, ``first_two`` is not two cards, or a
            card is not a card of the set.

    >>> from croupier.cards import parse_card, parse_cards
    >>> rules = Rules(player_pair_pays=Fraction(11))
    >>> result = settle_side_bet(
    ...     SideBet.PLAYER_PAIR, rules, parse_cards("KS KD"), parse_card("5H")
    ... )
    >>> result.side_bet, result.outcome, result.pays
    (<SideBet.PLAYER_PAIR: 'player_pair'>, <SideBetOutcome.PAIR: 'pair'>, Fraction(11, 1))
    >>> settle_side_bet(SideBet.PLAYER_PAIR, rules, parse_cards("10S KD"), parse_card("5H")).wins
    False
    >>> live = Rules(
    ...     name="live",
    ...     twenty_one_plus_three_pays=tuple(Fraction(n) for n in (100, 40, 30, 10, 5)),
    ... )
    >>> result = settle_side_bet(
    ...     SideBet.TWENTY_ONE_PLUS_THREE, live, parse_cards("QH KH"), parse_card("AH")
    ... )
    >>> result.outcome, result.pays
    (<SideBetOutcome.STRAIGHT_FLUSH: 'straight-flush'>, Fraction(40, 1))
    >>> settle_side_bet(SideBet.UNDER_13, live, parse_cards("5S 6D"), parse_card("5H"))
    Traceback (most recent call last):
    ...
    croupier.errors.BetError: cannot settle side bet under_13: the rule set 'live' does not offer it
    """
    side_bet = _known(side_bet)
    if len(first_two) != 2:
        raise BetError(
            f"cannot settle side bet {side_bet.value}: it needs the player's first two cards, "
            f"not {len(first_two)}"
        )
    for card in (*first_two, dealer_up):
        if not isinstance(card, Card):
            raise BetError(f"cannot settle side bet {side_bet.value}: {card!r} is not a card")
    first, second = first_two
    outcome: SideBetOutcome
    pays: Fraction | None
    if side_bet is SideBet.PLAYER_PAIR:
        table = _offered(rules.player_pair_pays, side_bet, rules)
        outcome = SideBetOutcome.PAIR if first.rank is second.rank else SideBetOutcome.NOTHING
        pays = table if outcome is SideBetOutcome.PAIR else None
    elif side_bet in (SideBet.UNDER_13, SideBet.OVER_13):
        under = side_bet is SideBet.UNDER_13
        table = _offered(rules.under_13_pays if under else rules.over_13_pays, side_bet, rules)
        outcome = _thirteen_outcome(first, second)
        wanted = SideBetOutcome.UNDER_13 if under else SideBetOutcome.OVER_13
        pays = table if outcome is wanted else None
    elif side_bet is SideBet.PERFECT_PAIRS:
        tables = _offered(rules.perfect_pairs_pays, side_bet, rules)
        outcome = _perfect_pairs_outcome(first, second)
        index = _PERFECT_PAIRS_INDEX.get(outcome)
        pays = None if index is None else tables[index]
    else:
        tables = _offered(rules.twenty_one_plus_three_pays, side_bet, rules)
        outcome = _twenty_one_plus_three_outcome(first, second, dealer_up)
        index = _TWENTY_ONE_PLUS_THREE_INDEX.get(outcome)
        pays = None if index is None else tables[index]
    return SideBetResult(side_bet, outcome, pays)


def pay_table(side_bet: SideBet, rules: Rules) -> tuple[PayLine, ...]:
    """The winning lines of a side bet's pay table, best first, from the rule set.

    Player Pair, Under 13 and Over 13 have one line each (RWS v4 4.1, v5 4.1.1).
    Perfect Pairs lists the perfect, coloured and mixed pair, and 21+3 suited trips,
    straight flush, three of a kind, straight and flush, in the order the rule
    set's pay fields hold them: the order in which only the best combination is
    paid (live).

    Args:
        side_bet: The side bet whose pay table is wanted.
        rules: The rule set whose pay fields give the ratios.

    Returns:
        One line per winning outcome: the outcome, its description for players and
        the ratio to 1 it pays.

    Raises:
        BetError: The rule set does not offer the side bet (its pay table is
            ``None``), or the side bet is unknown.

    >>> from croupier.presets import find_rules
    >>> for line in pay_table(SideBet.PERFECT_PAIRS, find_rules("live")):
    ...     print(f"{line.description}: {line.pays} to 1")
    Perfect pair: same rank and suit: 25 to 1
    Coloured pair: same rank and colour, different suits: 12 to 1
    Mixed pair: same rank, one red card and one black: 6 to 1
    >>> live = find_rules("live")
    >>> [line.outcome.value for line in pay_table(SideBet.TWENTY_ONE_PLUS_THREE, live)]
    ['suited-trips', 'straight-flush', 'three-of-a-kind', 'straight', 'flush']
    >>> pay_table(SideBet.PLAYER_PAIR, find_rules("rws-v5"))[0].pays
    Fraction(11, 1)
    >>> pay_table(SideBet.PLAYER_PAIR, live)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.BetError: cannot list the pays of side bet player_pair: the rule set 'live' ...
    """
    side_bet = _known(side_bet)
    doing = "list the pays of"
    single: Fraction | None
    if side_bet is SideBet.PLAYER_PAIR:
        outcome, single = SideBetOutcome.PAIR, rules.player_pair_pays
    elif side_bet is SideBet.UNDER_13:
        outcome, single = SideBetOutcome.UNDER_13, rules.under_13_pays
    elif side_bet is SideBet.OVER_13:
        outcome, single = SideBetOutcome.OVER_13, rules.over_13_pays
    else:
        if side_bet is SideBet.PERFECT_PAIRS:
            index, tables = _PERFECT_PAIRS_INDEX, rules.perfect_pairs_pays
        else:
            index, tables = _TWENTY_ONE_PLUS_THREE_INDEX, rules.twenty_one_plus_three_pays
        ratios = _offered(tables, side_bet, rules, doing=doing)
        # The index tables give each outcome's place in the pay field: best first.
        ordered = sorted(index.items(), key=lambda item: item[1])
        return tuple(_line(winner, ratios[position]) for winner, position in ordered)
    return (_line(outcome, _offered(single, side_bet, rules, doing=doing)),)


def _line(outcome: SideBetOutcome, pays: Fraction) -> PayLine:
    return PayLine(outcome, _DESCRIPTIONS[outcome], pays)


def _known(side_bet: SideBet | str) -> SideBet:
    if isinstance(side_bet, SideBet):
        return side_bet
    try:
        return SideBet(side_bet)
    except ValueError:
        known = ", ".join(member.value for member in SideBet)
        raise BetError(f"unknown side bet {side_bet!r}; the side bets are: {known}") from None


def _offered(
    table: _Table | None, side_bet: SideBet, rules: Rules, *, doing: str = "settle"
) -> _Table:
    if table is None:
        raise BetError(
            f"cannot {doing} side bet {side_bet.value}: "
            f"the rule set {rules.name!r} does not offer it"
        )
    return table


def _thirteen_outcome(first: Card, second: Card) -> SideBetOutcome:
    # Card.points counts an Ace as 1, as Under/Over 13 does: a blackjack is 11, Under 13.
    points = first.points + second.points
    if points < 13:
        return SideBetOutcome.UNDER_13
    if points > 13:
        return SideBetOutcome.OVER_13
    return SideBetOutcome.THIRTEEN


def _perfect_pairs_outcome(first: Card, second: Card) -> SideBetOutcome:
    if first.rank is not second.rank:
        return SideBetOutcome.NOTHING
    if first.suit is second.suit:
        return SideBetOutcome.PERFECT_PAIR
    if first.suit.is_red == second.suit.is_red:
        return SideBetOutcome.COLOURED_PAIR
    return SideBetOutcome.MIXED_PAIR


def _twenty_one_plus_three_outcome(first: Card, second: Card, third: Card) -> SideBetOutcome:
    # Checked from the best down: only the best combination is paid (live rules).
    one_suit = first.suit is second.suit is third.suit
    if first.rank is second.rank is third.rank:
        return SideBetOutcome.SUITED_TRIPS if one_suit else SideBetOutcome.THREE_OF_A_KIND
    if _is_straight(first.rank, second.rank, third.rank):
        return SideBetOutcome.STRAIGHT_FLUSH if one_suit else SideBetOutcome.STRAIGHT
    if one_suit:
        return SideBetOutcome.FLUSH
    return SideBetOutcome.NOTHING


def _is_straight(first: Rank, second: Rank, third: Rank) -> bool:
    return frozenset((first, second, third)) in _STRAIGHTS
