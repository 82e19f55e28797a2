"""The rules of a blackjack table: one frozen, keyword-only, validated value.

Every rule any of the five rulebooks states is a field here; the presets
(:mod:`croupier.presets`) set each one with the clause it comes from.

>>> rules = Rules(decks=6, dealer_hits_soft_17=True)
>>> rules.decks, rules.dealer_hits_soft_17, rules.blackjack_pays
(6, True, Fraction(3, 2))
>>> Rules(decks=0)
Traceback (most recent call last):
...
croupier.errors.RulesError: decks must be from 1 to 8, not 0
>>> rules.replace(decks=4).decks
4
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from enum import Enum, StrEnum
from fractions import Fraction
from typing import Any

from croupier.errors import RulesError
from croupier.money import PayoutRounding

__all__ = [
    "SIDE_BET_KEYS",
    "DealerBlackjackTakes",
    "DoubleOn",
    "HoleCard",
    "Interruption",
    "Rules",
    "SideBet",
    "SplitMatch",
    "Surrender",
    "coerce_field",
    "json_value",
    "rule_fields",
]


class HoleCard(StrEnum):
    """The dealer's second card."""

    #: No hole card: the dealer's second card comes after the players finish (RWS).
    NONE = "none"
    #: A hole card, checked for blackjack when the up card is an Ace or ten (online).
    PEEK = "peek"
    #: A hole card that stays down until the players finish (Casino-To-Go, live).
    NO_PEEK = "no-peek"


class DealerBlackjackTakes(StrEnum):
    """What a dealer blackjack found after the players acted takes from split and doubled hands."""

    #: Every bet on every hand, busted or standing.
    ALL = "all"
    #: Only the initial bet; split and double bets are returned (Casino-To-Go).
    ORIGINAL_BET = "original-bet"
    #: Busted hands in full; from the hands still standing only the initial bet (RWS 3.13/3.14).
    BUSTED_AND_INITIAL_BET = "busted-and-initial-bet"


class DoubleOn(StrEnum):
    """Which first two cards may be doubled."""

    ANY_TWO = "any-two"
    #: Hard totals 9, 10 and 11 only (Casino-To-Go).
    NINE_TO_ELEVEN = "9-11"


class SplitMatch(StrEnum):
    """Which two cards make a pair that may be split."""

    #: Same point value: a ten and a King split (RWS, Casino-To-Go, live).
    VALUE = "value"
    #: Same rank: a ten and a King do not (online: "two identical cards").
    RANK = "rank"


class Surrender(StrEnum):
    """The surrender rule."""

    NONE = "none"
    #: After the dealer has checked for blackjack, as the hand's first decision (online).
    LATE = "late"
    #: Not against an Ace; offered after every box has two cards, before any third card;
    #: half the bet refunded at interim settlement (RWS v4 3.10, v5 3.16).
    RWS = "rws"
    #: As the hand's first decision; against an Ace or ten the dealer's blackjack then
    #: takes the whole bet (Casino-To-Go).
    CASINO_TO_GO = "casino-to-go"


class Interruption(StrEnum):
    """What a technical interruption or a malfunction does to the round in progress."""

    #: The round goes on when any bet has conclusively won or lost, else it is void
    #: (RWS v5 5.4.1, 5.4.2).
    VOID_UNLESS_OUTCOME = "void-unless-outcome-established"
    #: "Malfunctions void all plays and pays" (the online table): every bet of the
    #: round is returned, those already settled included.
    VOID_ALL = "void-all-plays-and-pays"


class SideBet(StrEnum):
    """The side bets, keyed as in the round script."""

    PLAYER_PAIR = "player_pair"
    UNDER_13 = "under_13"
    OVER_13 = "over_13"
    PERFECT_PAIRS = "perfect_pairs"
    TWENTY_ONE_PLUS_THREE = "21+3"


SIDE_BET_KEYS = tuple(side_bet.value for side_bet in SideBet)


def _fractions(*values: int) -> tuple[Fraction, ...]:
    return tuple(Fraction(value) for value in values)


@dataclass(frozen=True, kw_only=True, slots=True)
class Rules:
    """Every rule of a table; the defaults are a plain 8-deck hole-card game.

    Pay ratios are ``Fraction`` (to 1); money is ``Decimal``.  A side bet whose pay
    table is ``None`` is not offered.
    """

    #: The preset this rule set came from, or ``custom``.
    name: str = "custom"
    #: Decks in the shoe.
    decks: int = 8
    #: Share of the shoe dealt before the cut card comes out.
    penetration: Fraction = Fraction(3, 4)
    #: Shuffle before every round (an online table may).
    shuffle_every_round: bool = False
    #: Boxes on the layout.
    boxes: int = 7
    #: The dealer hits a soft 17 (every rulebook here stands on all 17s).
    dealer_hits_soft_17: bool = False
    #: The dealer's second card.
    hole_card: HoleCard = HoleCard.PEEK
    #: In the first pass the dealer takes the face-down card (online), not the up card.
    hole_card_dealt_first: bool = False
    #: What a dealer blackjack found after the players acted takes from split and doubled hands.
    dealer_blackjack_takes: DealerBlackjackTakes = DealerBlackjackTakes.ALL
    #: A winning blackjack pays this to 1.
    blackjack_pays: Fraction = Fraction(3, 2)
    #: A winning hand pays this to 1.
    win_pays: Fraction = Fraction(1)
    #: A player blackjack is paid at once when the dealer's first card cannot make blackjack.
    blackjack_paid_immediately: bool = True
    #: Insurance is offered when the dealer's up card is an Ace.
    insurance: bool = True
    #: Insurance pays this to 1.
    insurance_pays: Fraction = Fraction(2)
    #: Insurance may be less than half the initial bet (otherwise exactly half).
    insurance_for_less: bool = True
    #: A player with a blackjack may insure it.
    insurance_with_blackjack: bool = True
    #: A player with a blackjack may ask for even money against a dealer Ace.
    even_money: bool = False
    #: Which first two cards may be doubled.
    double_on: DoubleOn = DoubleOn.ANY_TWO
    #: The double may be less than the initial bet.
    double_for_less: bool = False
    #: Split hands may be doubled (never split Aces).
    double_after_split: bool = True
    #: A two-card 21 (after a split) may be doubled.
    double_on_21: bool = True
    #: Which pairs may be split.
    split_match: SplitMatch = SplitMatch.VALUE
    #: The most hands a box may hold after splitting (1: no split).
    max_split_hands: int = 4
    #: A pair of Aces dealt after splitting Aces may be split again.
    resplit_aces: bool = False
    #: Split Aces may draw more than their one card.
    hit_split_aces: bool = False
    #: The surrender rule.
    surrender: Surrender = Surrender.NONE
    #: A hand under 12 must draw unless doubled (RWS v4 3.17, v5 3.19).
    must_draw_to_12: bool = False
    #: The smallest total of initial bets a box may carry.
    minimum_bet: Decimal = Decimal("10")
    #: The largest total of initial bets a box may carry.
    maximum_bet: Decimal = Decimal("1000")
    #: Players may bet on a box another player is seated at: standing players, who
    #: bet behind him and follow his decisions (RWS v5 1.26, 3.6).  Off, a box takes
    #: the initial bets of one player only.
    bets_behind: bool = False
    #: A side bet needs its player's own initial bet on the box (otherwise any initial bet).
    side_bet_needs_own_initial_bet: bool = False
    #: The largest single side bet, or ``None`` for the box maximum.
    side_bet_maximum: Decimal | None = None
    #: The currency's smallest unit.
    currency_unit: Decimal = Decimal("0.01")
    #: How a payout finer than the unit is rounded.
    payout_rounding: PayoutRounding = PayoutRounding.DOWN
    #: Player Pair pays this to 1 (same rank).
    player_pair_pays: Fraction | None = None
    #: Under 13 pays this to 1.
    under_13_pays: Fraction | None = None
    #: Over 13 pays this to 1.
    over_13_pays: Fraction | None = None
    #: Perfect Pairs pays (perfect, coloured, mixed) to 1.
    perfect_pairs_pays: tuple[Fraction, ...] | None = None
    #: 21+3 pays (suited trips, straight flush, three of a kind, straight, flush) to 1.
    twenty_one_plus_three_pays: tuple[Fraction, ...] | None = None
    #: What a technical interruption or malfunction does to the round in progress.
    interruption: Interruption = Interruption.VOID_UNLESS_OUTCOME
    #: After a dealing error a player may have his bets returned and his hand
    #: invalidated (RWS v5 5.7.3); otherwise the round is voided or played on.
    dealing_error_return: bool = True
    #: The clause a technical interruption cites.
    cite_interruption: str = "RWS v5 5.4.2"
    #: The clause a void round cites (every bet of the round returned).
    cite_void: str = "RWS v5 5.17"
    #: The clause a card from outside the set cites.
    cite_foreign_card: str = "RWS v5 5.5.1"
    #: The clause one copy of a card more than the shoe holds cites.
    cite_excess_card: str = "RWS v5 5.5.2"
    #: The clause a shoe with no card left to complete the round cites.
    cite_shoe_exhausted: str = "RWS v5 5.5.3"
    #: The clause a bet returned after a dealing error cites.
    cite_dealing_error: str = "RWS v5 5.7.3"
    #: The clause a hand played for an absent or timed-out player cites.
    cite_absent_player: str = "RWS v5 5.3"
    #: The clause the excess over the box maximum, returned at "No more bets", cites.
    cite_box_maximum: str = "RWS v5 5.1"
    #: The clause a box under the minimum at "No more bets" cites.
    cite_box_minimum: str = "RWS v5 5.2"
    #: The clause a side bet returned for want of an initial bet on its box cites.
    cite_side_bet_alone: str = "RWS v5 5.15"
    #: The clause "No more bets" cites: nothing is placed, raised or withdrawn after it.
    cite_no_more_bets: str = "RWS v5 5.8"

    def __post_init__(self) -> None:
        _validate(self)

    def __deepcopy__(self, memo: dict[int, object]) -> Rules:
        # A frozen value: a copy of a round shares it.
        return self

    def replace(self, **changes: object) -> Rules:
        """A copy with some fields changed; values are read as :meth:`from_mapping` reads them.

        >>> Rules().replace(surrender="late").surrender
        <Surrender.LATE: 'late'>
        """
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for key, value in changes.items():
            values[key] = coerce_field(key, value)
        return Rules(**values)

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> Rules:
        """Rules from plain values (JSON or TOML): enums by value, ratios as ``"3/2"``.

        >>> Rules.from_mapping({"decks": 6, "blackjack_pays": "6/5"}).blackjack_pays
        Fraction(6, 5)
        """
        return cls().replace(**dict(values))

    def side_bets_offered(self) -> tuple[SideBet, ...]:
        """The side bets this table offers, in the round script's key order.

        >>> Rules(under_13_pays=Fraction(1)).side_bets_offered()
        (<SideBet.UNDER_13: 'under_13'>,)
        """
        tables = {
            SideBet.PLAYER_PAIR: self.player_pair_pays,
            SideBet.UNDER_13: self.under_13_pays,
            SideBet.OVER_13: self.over_13_pays,
            SideBet.PERFECT_PAIRS: self.perfect_pairs_pays,
            SideBet.TWENTY_ONE_PLUS_THREE: self.twenty_one_plus_three_pays,
        }
        return tuple(side_bet for side_bet in SideBet if tables[side_bet] is not None)

    def to_json(self) -> dict[str, object]:
        """Every field as a JSON value: enums by value, fractions and amounts as strings.

        >>> Rules().to_json()["blackjack_pays"]
        '3/2'
        """
        return {f.name: json_value(getattr(self, f.name)) for f in dataclasses.fields(self)}


def rule_fields() -> tuple[str, ...]:
    """The names of every field of :class:`Rules`, in order.

    >>> rule_fields()[:3]
    ('name', 'decks', 'penetration')
    """
    return tuple(f.name for f in dataclasses.fields(Rules))


def json_value(value: object) -> object:
    """A rule's value as JSON writes it: enums by value, fractions and amounts as text.

    >>> json_value(Fraction(3, 2)), json_value(Surrender.LATE), json_value(4)
    ('3/2', 'late', 4)
    """
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Fraction | Decimal):
        return str(value)
    if isinstance(value, tuple):
        return [json_value(item) for item in value]
    return value


_HINTS: dict[str, Any] = typing.get_type_hints(Rules)


# Numbers as people write them, in ASCII digits only: int(), Fraction() and Decimal()
# would also read other scripts' digits (a full-width 8 as 8), underscores and exponents.
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_RATIO = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]+)?)(?:/[0-9]+)?", re.ASCII)
_AMOUNT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)


def coerce_field(name: str, value: object) -> object:
    """Read one field's value from a plain value, with a clear error naming the field.

    >>> coerce_field("hole_card", "none")
    <HoleCard.NONE: 'none'>
    >>> coerce_field("decks", "six")
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: rule decks: 'six' is not an integer in digits 0-9
    """
    if name not in _HINTS:
        raise RulesError(f"unknown rule {name!r}; the rules are: {', '.join(rule_fields())}")
    return _coerce(name, _HINTS[name], value)


def _coerce(name: str, hint: Any, value: object) -> object:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        arguments = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        is_none = value is None or (isinstance(value, str) and value.lower() in ("none", "null"))
        if is_none and len(arguments) < len(typing.get_args(hint)):
            return None
        return _coerce(name, arguments[0], value)
    if origin is tuple:
        if isinstance(value, str):
            value = [part for part in value.replace(",", " ").split() if part]
        if not isinstance(value, list | tuple):
            raise RulesError(f"rule {name}: {value!r} is not a list")
        return tuple(_coerce(name, Fraction, item) for item in value)
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "yes", "1", "false", "no", "0"):
            return value.lower() in ("true", "yes", "1")
        raise RulesError(f"rule {name}: {value!r} is not true or false")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
            return int(value)
        raise RulesError(f"rule {name}: {value!r} is not an integer in digits 0-9")
    if hint is str:
        if isinstance(value, str):
            return value
        raise RulesError(f"rule {name}: {value!r} is not a text")
    if hint is Fraction:
        if isinstance(value, Fraction):
            return value
        if isinstance(value, int | str) and not isinstance(value, bool):
            try:
                if isinstance(value, str) and not _RATIO.fullmatch(value.strip()):
                    raise ValueError(value)
                return Fraction(str(value).strip())
            except (ValueError, ZeroDivisionError):
                pass
        raise RulesError(f"rule {name}: {value!r} is not a ratio such as 3/2 or 11")
    if hint is Decimal:
        amount: Decimal | None = None
        if isinstance(value, Decimal):
            amount = value
        elif isinstance(value, int) and not isinstance(value, bool):
            amount = Decimal(value)
        elif isinstance(value, str):
            try:
                amount = Decimal(value.strip())
            except InvalidOperation:
                amount = None
            if amount is not None and amount.is_finite() and not _AMOUNT.fullmatch(value.strip()):
                raise RulesError(
                    f"rule {name}: {value!r} is not an exact amount in digits 0-9, such as '10.00'"
                )
        if amount is None:
            raise RulesError(f"rule {name}: {value!r} is not an exact amount such as '10.00'")
        if not amount.is_finite():
            raise RulesError(f"rule {name}: {value!r} is not a finite amount")
        return amount
    if isinstance(hint, type) and issubclass(hint, Enum):
        if isinstance(value, hint):
            return value
        try:
            return hint(value)
        except ValueError:
            choices = ", ".join(str(member.value) for member in hint)
            raise RulesError(f"rule {name}: {value!r} is not one of {choices}") from None
    raise RulesError(f"rule {name}: cannot read {value!r}")  # pragma: no cover


def _finer(amount: Decimal, unit: Decimal) -> bool:
    """Whether ``amount`` is not a whole number of ``unit``, exactly: the remainder is
    taken with as many digits as the quotient has (the default 28 would fail on a
    large amount over a small unit).

    >>> _finer(Decimal("1" + "0" * 40), Decimal("0.0001")), _finer(Decimal("2.5"), Decimal(1))
    (False, True)
    """
    with localcontext() as context:
        context.prec = max(28, amount.adjusted() - unit.adjusted() + 3)
        return amount % unit != 0


def _validate(rules: Rules) -> None:
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        expected = _HINTS[f.name]
        coerced = _coerce(f.name, expected, value)
        if coerced != value or type(coerced) is not type(value):
            raise RulesError(f"rule {f.name}: {value!r} has the wrong type; use Rules.replace")
    checks: list[tuple[bool, str]] = [
        (1 <= rules.decks <= 8, f"decks must be from 1 to 8, not {rules.decks}"),
        (1 <= rules.boxes <= 9, f"boxes must be from 1 to 9, not {rules.boxes}"),
        (
            0 < rules.penetration < 1,
            f"penetration must be between 0 and 1, not {rules.penetration}",
        ),
        (
            1 <= rules.max_split_hands <= 4,
            f"max_split_hands must be from 1 to 4, not {rules.max_split_hands}",
        ),
        (rules.blackjack_pays > 0, "blackjack_pays must be more than zero"),
        (rules.win_pays > 0, "win_pays must be more than zero"),
        (rules.insurance_pays > 0, "insurance_pays must be more than zero"),
        (rules.currency_unit > 0, "currency_unit must be more than zero"),
        (
            0 < rules.minimum_bet <= rules.maximum_bet,
            f"minimum_bet {rules.minimum_bet} must be more than zero and at most "
            f"maximum_bet {rules.maximum_bet}",
        ),
        (
            rules.side_bet_maximum is None or rules.side_bet_maximum > 0,
            "side_bet_maximum must be more than zero",
        ),
        (
            rules.perfect_pairs_pays is None or len(rules.perfect_pairs_pays) == 3,
            "perfect_pairs_pays needs 3 ratios: perfect, coloured, mixed",
        ),
        (
            rules.twenty_one_plus_three_pays is None or len(rules.twenty_one_plus_three_pays) == 5,
            "twenty_one_plus_three_pays needs 5 ratios: suited trips, straight flush, "
            "three of a kind, straight, flush",
        ),
        (
            rules.hole_card is not HoleCard.NONE or not rules.hole_card_dealt_first,
            "hole_card_dealt_first needs a hole card",
        ),
        (
            rules.surrender is not Surrender.LATE or rules.hole_card is HoleCard.PEEK,
            "late surrender comes after the dealer's peek: it needs hole_card = peek",
        ),
        (
            not (rules.even_money and not rules.insurance),
            "even_money is a form of insurance: it needs insurance = true",
        ),
    ]
    for field in dataclasses.fields(Rules):
        if field.name.startswith("cite_") and not getattr(rules, field.name).strip():
            checks.append((False, f"{field.name} must name the clause the table cites"))
    for amount_name in ("minimum_bet", "maximum_bet", "side_bet_maximum"):
        amount = getattr(rules, amount_name)
        # (A unit of zero is refused above; the remainder by it would be undefined.)
        if amount is not None and rules.currency_unit > 0 and _finer(amount, rules.currency_unit):
            checks.append((False, f"{amount_name} {amount} is finer than the currency unit"))
    for ok, message in checks:
        if not ok:
            raise RulesError(message)
