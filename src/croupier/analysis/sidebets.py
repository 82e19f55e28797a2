"""The exact math of the side bets: hit frequency of every outcome, expected return, variance.

Every side bet is decided on the first cards out of a freshly shuffled shoe of
``rules.decks`` decks: the player's first two cards and, for 21+3, the dealer's
up card as the third.  The cards are drawn without replacement, and every figure
is an exact ``Fraction``.

The draws are counted by card face (rank and suit) rather than card by card: a
set of faces stands for every physical draw of it, its distinct orders times the
ways to pick the copies of each face from the decks.  There are 1,378 sets of two
faces and 24,804 of three whatever the shoe, so an 8-deck shoe costs no more than
one deck.  Each set is settled by the engine's own
:func:`~croupier.sidebets.settle_side_bet` on its faces, so the math and the table
agree by construction, and the pays come from the rule set's pay table.  A rule
set's sets are settled once and kept for every deck count.

>>> from croupier.presets import find_rules
>>> analysis = analyze_side_bet(SideBet.PLAYER_PAIR, find_rules("rws-v4"))
>>> analysis.decks, analysis.ev
(8, Fraction(-43, 415))
>>> round(float(-analysis.ev) * 100, 4)  # house edge, per cent
10.3614
>>> [(line.outcome.value, line.pays, line.probability) for line in analysis.lines]
[('pair', Fraction(11, 1), Fraction(31, 415)), ('nothing', None, Fraction(384, 415))]
>>> sorted(analyze_side_bets(find_rules("live")))
['21+3', 'perfect_pairs']
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import factorial, perm

from croupier.cards import full_deck
from croupier.errors import BetError
from croupier.rules import Rules, SideBet
from croupier.sidebets import SideBetOutcome, settle_side_bet

__all__ = [
    "OutcomeLine",
    "SideBetAnalysis",
    "analyze_side_bet",
    "analyze_side_bets",
]

#: The outcomes each side bet can settle with that it does not pay on.
_LOSING_OUTCOMES: dict[SideBet, tuple[SideBetOutcome, ...]] = {
    SideBet.PLAYER_PAIR: (SideBetOutcome.NOTHING,),
    SideBet.UNDER_13: (SideBetOutcome.OVER_13, SideBetOutcome.THIRTEEN),
    SideBet.OVER_13: (SideBetOutcome.UNDER_13, SideBetOutcome.THIRTEEN),
    SideBet.PERFECT_PAIRS: (SideBetOutcome.NOTHING,),
    SideBet.TWENTY_ONE_PLUS_THREE: (SideBetOutcome.NOTHING,),
}

#: The outcomes of the multi-line pay tables, in the order of their ``Rules`` field.
_PERFECT_PAIRS_OUTCOMES = (
    SideBetOutcome.PERFECT_PAIR,
    SideBetOutcome.COLOURED_PAIR,
    SideBetOutcome.MIXED_PAIR,
)
_TWENTY_ONE_PLUS_THREE_OUTCOMES = (
    SideBetOutcome.SUITED_TRIPS,
    SideBetOutcome.STRAIGHT_FLUSH,
    SideBetOutcome.THREE_OF_A_KIND,
    SideBetOutcome.STRAIGHT,
    SideBetOutcome.FLUSH,
)


@dataclass(frozen=True, slots=True)
class OutcomeLine:
    """One outcome of a side bet and how often the first cards of a fresh shoe make it.

    Attributes:
        outcome: What the cards make.
        pays: The ratio to 1 the bet is paid on this outcome; ``None`` when it loses.
        probability: The outcome's hit frequency, exact.

    >>> line = OutcomeLine(SideBetOutcome.PAIR, Fraction(11), Fraction(31, 415))
    >>> line.net
    Fraction(11, 1)
    >>> OutcomeLine(SideBetOutcome.NOTHING, None, Fraction(384, 415)).net
    Fraction(-1, 1)
    """

    outcome: SideBetOutcome
    pays: Fraction | None
    probability: Fraction

    @property
    def net(self) -> Fraction:
        """What one unit bet wins (the pays) or loses (-1) on this outcome."""
        return Fraction(-1) if self.pays is None else self.pays

    def to_json(self) -> dict[str, object]:
        """The line as JSON values: numbers, and the exact fractions as strings.

        >>> data = OutcomeLine(SideBetOutcome.FLUSH, Fraction(5), Fraction(1, 4)).to_json()
        >>> data["outcome"], data["pays"], data["pays_exact"]
        ('flush', 5.0, '5')
        >>> data["probability"], data["probability_exact"]
        (0.25, '1/4')
        >>> losing = OutcomeLine(SideBetOutcome.NOTHING, None, Fraction(3, 4))
        >>> losing.to_json()["pays"], losing.to_json()["pays_exact"]
        (None, None)
        """
        return {
            "outcome": self.outcome.value,
            "pays": None if self.pays is None else float(self.pays),
            "pays_exact": None if self.pays is None else str(self.pays),
            "probability": float(self.probability),
            "probability_exact": str(self.probability),
        }


@dataclass(frozen=True, slots=True)
class SideBetAnalysis:
    """The exact return of one side bet on a shoe of ``decks`` decks.

    Attributes:
        side_bet: The side bet analysed.
        decks: Decks in the shoe.
        lines: Every outcome the bet can settle with, the paying ones first in
            pay-table order, then the losing ones; their probabilities sum to 1.

    >>> from croupier.presets import find_rules
    >>> analysis = analyze_side_bet(SideBet.PERFECT_PAIRS, find_rules("live"))
    >>> [line.outcome.value for line in analysis.lines]
    ['perfect-pair', 'coloured-pair', 'mixed-pair', 'nothing']
    >>> sum(line.probability for line in analysis.lines)
    Fraction(1, 1)
    """

    side_bet: SideBet
    decks: int
    lines: tuple[OutcomeLine, ...]

    @property
    def ev(self) -> Fraction:
        """The expected net result per unit bet; negative, it is the house edge.

        >>> from croupier.presets import find_rules
        >>> analyze_side_bet(SideBet.UNDER_13, find_rules("rws-v5")).ev
        Fraction(-543, 5395)
        """
        return sum((line.probability * line.net for line in self.lines), Fraction(0))

    @property
    def rtp(self) -> Fraction:
        """The return to player: what a unit bet returns on average, stake included.

        >>> from croupier.presets import find_rules
        >>> analysis = analyze_side_bet(SideBet.PLAYER_PAIR, find_rules("rws-v4"))
        >>> analysis.rtp, analysis.rtp == 1 + analysis.ev
        (Fraction(372, 415), True)
        """
        return 1 + self.ev

    @property
    def variance(self) -> Fraction:
        """The variance of the net result per unit bet.

        >>> from croupier.presets import find_rules
        >>> analysis = analyze_side_bet(SideBet.PLAYER_PAIR, find_rules("rws-v4"))
        >>> analysis.variance == Fraction(31, 415) * 11**2 + Fraction(384, 415) - analysis.ev**2
        True
        """
        second_moment = sum((line.probability * line.net**2 for line in self.lines), Fraction(0))
        return second_moment - self.ev**2

    @property
    def hit_frequency(self) -> dict[SideBetOutcome, Fraction]:
        """The probability of each paying outcome, in pay-table order.

        >>> from croupier.presets import find_rules
        >>> analysis = analyze_side_bet(SideBet.OVER_13, find_rules("rws-v4"))
        >>> analysis.hit_frequency
        {<SideBetOutcome.OVER_13: 'over-13'>: Fraction(2521, 5395)}
        """
        return {line.outcome: line.probability for line in self.lines if line.pays is not None}

    @property
    def win_probability(self) -> Fraction:
        """The probability that the bet is paid at all.

        >>> from croupier.presets import find_rules
        >>> analyze_side_bet(SideBet.PLAYER_PAIR, find_rules("rws-v4")).win_probability
        Fraction(31, 415)
        """
        return sum(self.hit_frequency.values(), Fraction(0))

    def to_json(self) -> dict[str, object]:
        """The analysis as JSON values: numbers, and every exact fraction as a string.

        >>> from croupier.presets import find_rules
        >>> data = analyze_side_bet(SideBet.PLAYER_PAIR, find_rules("rws-v4")).to_json()
        >>> data["side_bet"], data["decks"], data["ev_exact"], round(data["ev"], 6)
        ('player_pair', 8, '-43/415', -0.103614)
        >>> data["hit_frequency_exact"], [line["outcome"] for line in data["lines"]]
        ({'pair': '31/415'}, ['pair', 'nothing'])
        """
        hit_frequency = self.hit_frequency
        return {
            "side_bet": self.side_bet.value,
            "decks": self.decks,
            "ev": float(self.ev),
            "ev_exact": str(self.ev),
            "rtp": float(self.rtp),
            "rtp_exact": str(self.rtp),
            "variance": float(self.variance),
            "variance_exact": str(self.variance),
            "win_probability": float(self.win_probability),
            "win_probability_exact": str(self.win_probability),
            "hit_frequency": {
                outcome.value: float(probability) for outcome, probability in hit_frequency.items()
            },
            "hit_frequency_exact": {
                outcome.value: str(probability) for outcome, probability in hit_frequency.items()
            },
            "lines": [line.to_json() for line in self.lines],
        }


def analyze_side_bet(side_bet: SideBet | str, rules: Rules) -> SideBetAnalysis:
    """The exact hit frequencies and return of a side bet under a rule set.

    Args:
        side_bet: The side bet, or its round-script key such as ``"21+3"``.
        rules: The rule set: its ``decks`` and its pay table for the bet.

    Returns:
        Every outcome with its pays and probability, the paying ones first.

    Raises:
        BetError: The side bet is unknown, or the rule set does not offer it.

    >>> from croupier.presets import find_rules
    >>> analysis = analyze_side_bet("21+3", find_rules("live"))
    >>> analysis.side_bet, analysis.decks
    (<SideBet.TWENTY_ONE_PLUS_THREE: '21+3'>, 8)
    >>> [(line.outcome.value, str(line.pays)) for line in analysis.lines[:2]]
    [('suited-trips', '100'), ('straight-flush', '40')]
    >>> analyze_side_bet(SideBet.UNDER_13, find_rules("live"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.BetError: cannot analyse side bet under_13: the rule set 'live' does not ...
    """
    if not isinstance(side_bet, SideBet):
        try:
            side_bet = SideBet(side_bet)
        except ValueError:
            known = ", ".join(member.value for member in SideBet)
            raise BetError(f"unknown side bet {side_bet!r}; the side bets are: {known}") from None
    pay_table = _pay_table(side_bet, rules)
    if pay_table is None:
        raise BetError(
            f"cannot analyse side bet {side_bet.value}: "
            f"the rule set {rules.name!r} does not offer it"
        )
    outcomes = (*pay_table, *_LOSING_OUTCOMES[side_bet])
    weights = _outcome_weights(side_bet, rules, pay_table)
    total = sum(weights.values())
    unknown = set(weights) - set(outcomes)
    if unknown or total != perm(52 * rules.decks, _cards_deciding(side_bet)):
        raise RuntimeError(  # pragma: no cover - the engine and this table disagree
            f"side bet {side_bet.value}: outcomes {sorted(unknown)} or total {total} unexpected"
        )
    lines = tuple(
        OutcomeLine(outcome, pay_table.get(outcome), Fraction(weights[outcome], total))
        for outcome in outcomes
    )
    return SideBetAnalysis(side_bet=side_bet, decks=rules.decks, lines=lines)


def analyze_side_bets(rules: Rules) -> dict[str, SideBetAnalysis]:
    """The analysis of every side bet the rule set offers, keyed as in the round script.

    >>> from croupier.presets import find_rules
    >>> analyses = analyze_side_bets(find_rules("rws-v5"))
    >>> list(analyses)
    ['player_pair', 'under_13', 'over_13']
    >>> analyses["over_13"].ev
    Fraction(-353, 5395)
    >>> analyze_side_bets(find_rules("online-8deck"))
    {}
    """
    return {
        side_bet.value: analyze_side_bet(side_bet, rules) for side_bet in rules.side_bets_offered()
    }


def _pay_table(side_bet: SideBet, rules: Rules) -> dict[SideBetOutcome, Fraction] | None:
    """The bet's paying outcomes and their pays, in pay-table order; ``None`` if not offered."""
    if side_bet is SideBet.PLAYER_PAIR:
        pays = rules.player_pair_pays
        return None if pays is None else {SideBetOutcome.PAIR: pays}
    if side_bet is SideBet.UNDER_13:
        pays = rules.under_13_pays
        return None if pays is None else {SideBetOutcome.UNDER_13: pays}
    if side_bet is SideBet.OVER_13:
        pays = rules.over_13_pays
        return None if pays is None else {SideBetOutcome.OVER_13: pays}
    if side_bet is SideBet.PERFECT_PAIRS:
        table = rules.perfect_pairs_pays
        return None if table is None else dict(zip(_PERFECT_PAIRS_OUTCOMES, table, strict=True))
    table = rules.twenty_one_plus_three_pays
    if table is None:
        return None
    return dict(zip(_TWENTY_ONE_PLUS_THREE_OUTCOMES, table, strict=True))


def _cards_deciding(side_bet: SideBet) -> int:
    """How many cards decide the bet: the player's two, and the dealer's up card for 21+3."""
    return 3 if side_bet is SideBet.TWENTY_ONE_PLUS_THREE else 2


def _outcome_weights(
    side_bet: SideBet, rules: Rules, pay_table: dict[SideBetOutcome, Fraction]
) -> Counter[SideBetOutcome]:
    """The number of ordered physical draws from the shoe that make each outcome.

    A class of faces whose repeats are ``r1, r2, ...`` (three different faces: 1, 1, 1;
    a face twice and another once: 1, 2) stands for ``size! / (r1! r2! ...)`` orders of
    its faces times ``perm(decks, r1) perm(decks, r2) ...`` ways to choose the copies.
    """
    size = _cards_deciding(side_bet)
    # The classes do not depend on the deck count: settle them once for any shoe.
    classes = _classify(side_bet, rules.replace(decks=1), size, tuple(pay_table.items()))
    weights: Counter[SideBetOutcome] = Counter()
    for outcome, repeats, count in classes:
        orders = factorial(size)
        copies = 1
        for repeat in repeats:
            orders //= factorial(repeat)
            copies *= perm(rules.decks, repeat)
        weights[outcome] += count * orders * copies
    return weights


def _repeats(positions: tuple[int, ...]) -> tuple[int, ...]:
    """How often each face repeats in a sorted multiset of faces, in increasing order.

    >>> _repeats((4, 4, 9)), _repeats((1, 2, 3)), _repeats((7, 7))
    ((1, 2), (1, 1, 1), (2,))
    """
    # combinations_with_replacement gives equal faces side by side.
    return tuple(sorted(len(list(group)) for _, group in itertools.groupby(positions)))


@lru_cache(maxsize=64)
def _classify(
    side_bet: SideBet,
    rules: Rules,
    size: int,
    pay_table: tuple[tuple[SideBetOutcome, Fraction], ...],
) -> tuple[tuple[SideBetOutcome, tuple[int, ...], int], ...]:
    """How many multisets of card faces make each outcome, by the repeats among the faces.

    Each multiset of faces is settled by the engine in one order: the bets do not
    depend on the order of their cards (the first two are a pair or not, 21+3 is a
    set of three), and the tests hold this to a card-by-card count of every ordered
    draw.
    """
    pays = dict(pay_table)
    deck = full_deck()
    counts: Counter[tuple[SideBetOutcome, tuple[int, ...]]] = Counter()
    for positions in itertools.combinations_with_replacement(range(len(deck)), size):
        first, second, *rest = (deck[position] for position in positions)
        # Only 21+3 looks at the dealer's up card; the two-card bets are given any card.
        dealer_up = rest[0] if rest else first
        result = settle_side_bet(side_bet, rules, (first, second), dealer_up)
        if result.pays != pays.get(result.outcome):
            raise RuntimeError(  # pragma: no cover - the engine and the pay table disagree
                f"side bet {side_bet.value}: the engine pays {result.pays} on "
                f"{result.outcome.value}, the pay table {pays.get(result.outcome)}"
            )
        counts[result.outcome, _repeats(positions)] += 1
    return tuple((outcome, repeats, count) for (outcome, repeats), count in counts.items())
