"""Published house-edge figures for blackjack rule sets and blackjack side bets.

Every figure below was read on a public web page and is quoted as printed there; the
URL is the address the page was read at (several Wizard of Odds pages were read on
mirrors that reproduce the wizardofodds.com path, e.g. ``/games/blackjack/appendix/9/``).

``PUBLISHED_EDGES`` holds whole-game expected returns for the player:

* Wizard of Odds "Blackjack Appendix 9" pages (slug ``<decks>d<s|h>17r4``, and
  ``euro-...`` for the no-hole-card pages). Each page prints two figures, "Player may
  double after split" and "Player may not double after split", recorded here as two
  entries. The pages state the decks, the soft-17 rule, "Player may resplit to four
  hands, except aces", "No drawing to split aces" and, on the ``euro-`` pages, "No
  dealer hole card. Player loses everything, including doubles and splits, if dealer gets
  a blackjack." They do not state the doubling rule, surrender or the blackjack payout;
  the values used for those are listed in ``unstated``. The hole-card pages do not say
  "peek" in words: their tables are split into hands "and no dealer blackjack" and a
  separate table "for when the dealer has a blackjack", i.e. a game in which the dealer
  checks for blackjack first. Figures printed with a sentence-ending full stop
  ("-0.0072705.") are recorded without it.
* The geditcom.com pages "Single Deck Blackjack Expected Values" and "Two Deck Blackjack
  Expected Values", whose "Full Game Analysis" tables print player expectations in percent
  ("-0.38030%") for "Base - No Resplit" (split once, two hands) and "Prohibit Splitting",
  for doubling on "any two hands" or "hard hands of 10 and 11 only", with ("DD") and
  without ("ND") doubling after a split.

``PUBLISHED_SIDE_BETS`` holds side-bet house edges. ``house_edge`` is verbatim: most
pages print a house edge in percent ("4.10%"); the Wizard of Odds Perfect Pairs tables
print the player's expected return instead, as a bare decimal ("-0.040964"). Use
:func:`house_edge_of` and :func:`expected_return_of` to read either form as an exact
fraction. ``pays`` lists the winning outcomes with their odds "to 1", in the page's own
words for the outcomes.

No page was found that prices either of these two rule sets as a whole game: eight decks,
dealer stands on soft 17, hole card with peek, double on any two, double after split,
split once to two hands, no resplitting or hitting split aces, late surrender, 3 to 2
(the Wind Creek "Single Player Blackjack" rules page lists exactly these rules, with no
return in the part read); and eight decks, stands on soft 17, no hole card with the
dealer's blackjack taking all, double on any two, no double after split, split once, 3 to 2.

>>> expected_return_of(PUBLISHED_EDGES[0])
Fraction(1839, 1000000)
>>> house_edge_of(PUBLISHED_SIDE_BETS[0]) == Fraction(40964, 1000000)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction


@dataclass(frozen=True)
class PublishedEdge:
    """One published whole-game expected return and the rules it was computed under."""

    source: str  # page title
    url: str
    decks: int
    dealer_hits_soft_17: bool
    hole_card: str  # "peek" or "none" (European no hole card)
    dealer_blackjack_takes: str  # "all", "original-bet" or "busted-and-initial-bet"
    double_on: str  # "any-two", "9-11" or "10-11"
    double_after_split: bool
    max_split_hands: int
    resplit_aces: bool
    hit_split_aces: bool
    surrender: str  # "none", "late" or "early"
    blackjack_pays: str  # "3/2"
    expected_return: str  # verbatim as printed: "-0.0072705", or "-0.38030%"
    convention: str  # the page's words on how splits (and the game) were computed
    #: Fields above whose value the page does not state; the value given is the usual one.
    unstated: tuple[str, ...] = ()
    #: Anything else worth knowing about this figure.
    note: str = ""


@dataclass(frozen=True)
class PublishedSideBet:
    """One published side-bet house edge for a pay table and number of decks."""

    source: str  # page title
    url: str
    side_bet: str  # "player_pair", "under_13", "over_13", "perfect_pairs" or "21+3"
    decks: int
    pays: tuple[str, ...]  # "<outcome>: <n> to 1", in the page's words
    house_edge: str  # verbatim, e.g. "4.10%" (or an expected return such as "-0.040964")


def _number(text: str) -> Fraction:
    """The exact value of a figure as printed, with a percent sign or word read as 1/100."""
    text = text.strip()
    scale = Fraction(1)
    for suffix in ("%", " percent"):
        if text.endswith(suffix):
            text = text.removesuffix(suffix).strip()
            scale = Fraction(1, 100)
    return Fraction(Decimal(text)) * scale


def expected_return_of(edge: PublishedEdge) -> Fraction:
    """The player's expected return per initial unit bet (negative: the house is ahead)."""
    return _number(edge.expected_return)


def house_edge_of(bet: PublishedSideBet) -> Fraction:
    """The house edge per unit bet, whether the page printed an edge or a player return.

    A figure in percent is a house edge; a bare decimal is the player's expected return.
    """
    text = bet.house_edge.strip()
    value = _number(text)
    return value if text.endswith(("%", "percent")) else -value


# --------------------------------------------------------------------------------------
# Whole-game figures
# --------------------------------------------------------------------------------------

_APPENDIX_9_CONVENTION = (
    "The values in this table were created using a recursive combinatorial program that "
    "considered the exact hand composition at every step. For splitting values the "
    "program only considered how many hands the player had already split, but not the "
    "other cards drawn in those hands."
)
_APPENDIX_9_UNSTATED = ("double_on", "surrender", "blackjack_pays")
_APPENDIX_9_PEEK_UNSTATED = ("hole_card", "dealer_blackjack_takes", *_APPENDIX_9_UNSTATED)


def _appendix_9(
    source: str,
    url: str,
    decks: int,
    hits_soft_17: bool,
    das: str,
    no_das: str,
    *,
    european: bool = False,
    note: str = "",
) -> tuple[PublishedEdge, PublishedEdge]:
    """The two figures of one Appendix 9 page: with and without double after split."""

    def edge(double_after_split: bool, figure: str) -> PublishedEdge:
        return PublishedEdge(
            source=source,
            url=url,
            decks=decks,
            dealer_hits_soft_17=hits_soft_17,
            hole_card="none" if european else "peek",
            dealer_blackjack_takes="all" if european else "original-bet",
            double_on="any-two",
            double_after_split=double_after_split,
            max_split_hands=4,
            resplit_aces=False,
            hit_split_aces=False,
            surrender="none",
            blackjack_pays="3/2",
            expected_return=figure,
            convention=_APPENDIX_9_CONVENTION,
            unstated=_APPENDIX_9_UNSTATED if european else _APPENDIX_9_PEEK_UNSTATED,
            note=note,
        )

    return edge(True, das), edge(False, no_das)


_ONE_DECK_URL = "http://www.geditcom.com/Blackjack/OneDeck.html"
_TWO_DECK_URL = "http://www.geditcom.com/Blackjack/TwoDeck.html"
_ONE_DECK_CONVENTION = (
    "The following two tables provide expected values for full game of single-deck "
    "blackjack calculated from the Expected Value Tables listed below (and using the "
    "table for exact splitting calculations)."
)
_TWO_DECK_CONVENTION = (
    "The following two tables provide expected values for full game of two-deck "
    "blackjack calculated from the Expected Value Tables listed below (and using "
    "accurate, approximate splitting calculations)."
)
_GEDITCOM_UNSTATED = (
    "hole_card",
    "dealer_blackjack_takes",
    "hit_split_aces",
    "surrender",
    "blackjack_pays",
)
_GEDITCOM_PEEK_NOTE = (
    "The page's expected-value tables say: 'Results for Ace and Ten are conditional on "
    "the dealer not having blackjack.'"
)


def _geditcom(
    source: str,
    url: str,
    decks: int,
    hits_soft_17: bool,
    columns: tuple[str, str, str, str],
    convention: str,
    notes: tuple[str, str, str, str] = ("", "", "", ""),
) -> tuple[PublishedEdge, ...]:
    """One 'Base - No Resplit' row: any-two ND, any-two DD, 10&11 ND, 10&11 DD."""
    layout = (("any-two", False), ("any-two", True), ("10-11", False), ("10-11", True))
    return tuple(
        PublishedEdge(
            source=source,
            url=url,
            decks=decks,
            dealer_hits_soft_17=hits_soft_17,
            hole_card="peek",
            dealer_blackjack_takes="original-bet",
            double_on=double_on,
            double_after_split=das,
            max_split_hands=2,
            resplit_aces=False,
            hit_split_aces=False,
            surrender="none",
            blackjack_pays="3/2",
            expected_return=figure,
            convention=convention,
            unstated=_GEDITCOM_UNSTATED,
            note=" ".join(part for part in (_GEDITCOM_PEEK_NOTE, extra) if part),
        )
        for (double_on, das), figure, extra in zip(layout, columns, notes, strict=True)
    )


def _geditcom_no_split(
    source: str,
    url: str,
    decks: int,
    hits_soft_17: bool,
    any_two: str,
    ten_eleven: str,
    convention: str,
) -> tuple[PublishedEdge, PublishedEdge]:
    """One 'Prohibit Splitting' row: doubling on any two, then on hard 10 and 11 only."""

    def edge(double_on: str, figure: str) -> PublishedEdge:
        return PublishedEdge(
            source=source,
            url=url,
            decks=decks,
            dealer_hits_soft_17=hits_soft_17,
            hole_card="peek",
            dealer_blackjack_takes="original-bet",
            double_on=double_on,
            double_after_split=False,
            max_split_hands=1,
            resplit_aces=False,
            hit_split_aces=False,
            surrender="none",
            blackjack_pays="3/2",
            expected_return=figure,
            convention=convention,
            unstated=("hole_card", "dealer_blackjack_takes", "surrender", "blackjack_pays"),
            note=(
                f"{_GEDITCOM_PEEK_NOTE} Row 'Prohibit Splitting': no pair may be split, so "
                "double_after_split and the split-ace fields do not apply."
            ),
        )

    return edge("any-two", any_two), edge("10-11", ten_eleven)


_TWO_DECK_SUSPECT = (
    "On the page the dealer-stands 'DD 10&11 only' ND column (-0.58675%, -0.55964%, "
    "-0.50687%) is identical, row for row, to the dealer-hits 'DD any two hands' ND "
    "column; one of the two columns may be a slip on the page."
)

PUBLISHED_EDGES: tuple[PublishedEdge, ...] = (
    # Wizard of Odds, Blackjack Appendix 9 ------------------------------------------------
    *_appendix_9(
        "Blackjack Appendix 9",
        "https://wizardofodds.com/games/blackjack/appendix/9/1ds17r4/",
        1,
        False,
        das="0.001839",
        no_das="0.000423",
    ),
    *_appendix_9(
        "Blackjack expected Returns for one deck and dealer hits on soft 17.",
        "http://photoeditorx.com/games/blackjack/appendix/9/1dh17r4/",
        1,
        True,
        das="-0.000072",
        no_das="-0.001513",
    ),
    *_appendix_9(
        "Blackjack expected Returns for two decks and dealer hits on soft 17.",
        "https://nilapub.com/games/blackjack/appendix/9/2dh17r4/",
        2,
        True,
        das="-0.003797",
        no_das="-0.005252",
    ),
    *_appendix_9(
        "Blackjack expected Returns for five decks, dealer stands on soft 17.",
        "http://photoeditorx.com/games/blackjack/appendix/9/5ds17r4/",
        5,
        False,
        das="-0.003804",
        no_das="-0.005225",
    ),
    *_appendix_9(
        "Blackjack expected Returns for five decks and dealer hits on soft 17.",
        "https://www.mycraftingplace.com/games/blackjack/appendix/9/5dh17r4/",
        5,
        True,
        das="-0.005918",
        no_das="-0.007366",
        note=(
            "Unlike the other hole-card pages this one says 'There are two tables' with "
            "no 'no dealer blackjack' wording; its hand values (e.g. stand 2,A against an "
            "ace -0.596923) are of the size of the hole-card pages, not the no-hole-card "
            "ones."
        ),
    ),
    *_appendix_9(
        "Blackjack Appendix 9 — Six deck, dealer hits on soft 17, no hole card.",
        "https://ourgyn.com/games/blackjack/appendix/9/euro-6dh17r4/",
        6,
        True,
        das="-0.0072705",
        no_das="-0.0086975",
        european=True,
    ),
    *_appendix_9(
        "Blackjack Appendix 9 — Eight decks, dealer hits on soft 17, no hole card.",
        "http://photoeditorx.com/games/blackjack/appendix/9/euro-8dh17r4/",
        8,
        True,
        das="-0.007562",
        no_das="-0.0089865",
        european=True,
    ),
    # geditcom.com, Single Deck Blackjack Expected Values ---------------------------------
    *_geditcom(
        "Single Deck Blackjack Expected Values",
        _ONE_DECK_URL,
        1,
        False,
        ("-0.02827%", "0.10066%", "-0.29640%", "-0.19042%"),
        _ONE_DECK_CONVENTION,
    ),
    *_geditcom_no_split(
        "Single Deck Blackjack Expected Values",
        _ONE_DECK_URL,
        1,
        False,
        "-0.38485%",
        "-0.65595%",
        _ONE_DECK_CONVENTION,
    ),
    *_geditcom(
        "Single Deck Blackjack Expected Values",
        _ONE_DECK_URL,
        1,
        True,
        ("-0.22226%", "-0.09109%", "-0.49888%", "-0.39096%"),
        _ONE_DECK_CONVENTION,
    ),
    *_geditcom_no_split(
        "Single Deck Blackjack Expected Values",
        _ONE_DECK_URL,
        1,
        True,
        "-0.57444%",
        "-0.85433%",
        _ONE_DECK_CONVENTION,
    ),
    # geditcom.com, Two Deck Blackjack Expected Values ------------------------------------
    *_geditcom(
        "Two Deck Blackjack Expected Values",
        _TWO_DECK_URL,
        2,
        False,
        ("-0.38030%", "-0.25498%", "-0.58675%", "-0.48020%"),
        _TWO_DECK_CONVENTION,
        notes=("", "", _TWO_DECK_SUSPECT, ""),
    ),
    *_geditcom_no_split(
        "Two Deck Blackjack Expected Values",
        _TWO_DECK_URL,
        2,
        False,
        "-0.76117%",
        "-0.96853%",
        _TWO_DECK_CONVENTION,
    ),
    *_geditcom(
        "Two Deck Blackjack Expected Values",
        _TWO_DECK_URL,
        2,
        True,
        ("-0.58675%", "-0.45574%", "-0.79774%", "-0.68936%"),
        _TWO_DECK_CONVENTION,
        notes=(_TWO_DECK_SUSPECT, "", "", ""),
    ),
    *_geditcom_no_split(
        "Two Deck Blackjack Expected Values",
        _TWO_DECK_URL,
        2,
        True,
        "-0.95963%",
        "-1.17536%",
        _TWO_DECK_CONVENTION,
    ),
)


# --------------------------------------------------------------------------------------
# Side bets
# --------------------------------------------------------------------------------------

_PERFECT_PAIRS = "Perfect Pairs"
_PERFECT_PAIRS_URL = "https://wizardofodds.com/games/blackjack/side-bets/perfect-pairs/"
_PERFECT_PAIRS_A = ("perfect pair: 25 to 1", "colored pair: 12 to 1", "red/black pair: 6 to 1")
_PERFECT_PAIRS_B = ("perfect pair: 30 to 1", "colored pair: 10 to 1", "red/black pair: 5 to 1")
_PERFECT_PAIRS_C = ("perfect pair: 25 to 1", "colored pair: 12 to 1", "red/black pair: 5 to 1")
_PERFECT_PAIRS_D = ("perfect pair: 25 to 1", "colored pair: 15 to 1", "red/black pair: 5 to 1")
_PERFECT_PAIRS_SECOND = "onlinecasinositeinfo.com — Perfect Pairs: Probability and House Edge"
_PERFECT_PAIRS_SECOND_URL = (
    "https://onlinecasinositeinfo.com/mathematical-analysis-of-blackjack-side-bets"
)

_TWENTY_ONE_PLUS_THREE = "21 + 3"
_TWENTY_ONE_PLUS_THREE_URL = "https://www.jndiario.com/games/blackjack/side-bets/21plus3/"
_TWENTY_ONE_PLUS_THREE_V1 = (
    "straight flush: 9 to 1",
    "three of a kind: 9 to 1",
    "straight: 9 to 1",
    "flush: 9 to 1",
)
_TWENTY_ONE_PLUS_THREE_V2 = (
    "straight flush: 2.5 to 1",
    "three of a kind: 2.5 to 1",
    "straight: 2.5 to 1",
    "flush: 2.5 to 1",
    "pair: 2.5 to 1",
)
_TWENTY_ONE_PLUS_THREE_IGT = (
    "suited three of a kind: 100 to 1",
    "straight flush: 35 to 1",
    "three of a kind: 33 to 1",
    "straight: 10 to 1",
    "flush: 5 to 1",
)

_PAIR_PLAY = "Pair Play"
_PAIR_PLAY_URL = "https://wizardofodds.com/games/blackjack/side-bets/pair-play"

_OVER_UNDER = "Over/Under 13"
_OVER_UNDER_URL = "https://nilapub.com/games/blackjack/side-bets/over-under-13"
_UNDER_13 = ("total under 13, aces one, 13 loses: 1 to 1",)
_OVER_13 = ("total over 13, aces one, 13 loses: 1 to 1",)

PUBLISHED_SIDE_BETS: tuple[PublishedSideBet, ...] = (
    # Perfect Pairs, Wizard of Odds (expected returns as printed) ------------------------
    PublishedSideBet(
        _PERFECT_PAIRS, _PERFECT_PAIRS_URL, "perfect_pairs", 8, _PERFECT_PAIRS_A, "-0.040964"
    ),
    PublishedSideBet(
        _PERFECT_PAIRS, _PERFECT_PAIRS_URL, "perfect_pairs", 2, _PERFECT_PAIRS_A, "-0.223301"
    ),
    PublishedSideBet(
        _PERFECT_PAIRS, _PERFECT_PAIRS_URL, "perfect_pairs", 8, _PERFECT_PAIRS_B, "-0.033735"
    ),
    PublishedSideBet(
        _PERFECT_PAIRS, _PERFECT_PAIRS_URL, "perfect_pairs", 8, _PERFECT_PAIRS_C, "-0.079518"
    ),
    PublishedSideBet(
        _PERFECT_PAIRS, _PERFECT_PAIRS_URL, "perfect_pairs", 8, _PERFECT_PAIRS_D, "-0.021687"
    ),
    # Perfect Pairs, pay table A by decks (a secondary page's table) ---------------------
    *(
        PublishedSideBet(
            _PERFECT_PAIRS_SECOND,
            _PERFECT_PAIRS_SECOND_URL,
            "perfect_pairs",
            decks,
            _PERFECT_PAIRS_A,
            edge,
        )
        for decks, edge in ((2, "22.33%"), (4, "10.14%"), (6, "6.11%"), (8, "4.10%"))
    ),
    # 21+3, Wizard of Odds ----------------------------------------------------------------
    *(
        PublishedSideBet(
            _TWENTY_ONE_PLUS_THREE,
            _TWENTY_ONE_PLUS_THREE_URL,
            "21+3",
            decks,
            _TWENTY_ONE_PLUS_THREE_V1,
            edge,
        )
        for decks, edge in (
            (1, "13.30%"),
            (2, "7.26%"),
            (4, "4.24%"),
            (6, "3.24%"),
            (8, "2.74%"),
        )
    ),
    PublishedSideBet(
        _TWENTY_ONE_PLUS_THREE,
        _TWENTY_ONE_PLUS_THREE_URL,
        "21+3",
        2,
        _TWENTY_ONE_PLUS_THREE_V2,
        "2.78%",
    ),
    # 21+3, the suited-trips 100 / 35 / 33 / 10 / 5 table --------------------------------
    PublishedSideBet(
        "How To Beat 21+3 Blackjack Side Bet \u2013 Rules, Tips, Payouts & More",
        "https://toprankcasinos.com/how-to-beat-213-blackjack-side-bet-rules-tips-payouts-more/",
        "21+3",
        6,
        _TWENTY_ONE_PLUS_THREE_IGT,
        "4.14 percent",
    ),
    # Pair Play (pair in the player's first two cards pays 11 to 1), Wizard of Odds -------
    *(
        PublishedSideBet(_PAIR_PLAY, _PAIR_PLAY_URL, "player_pair", decks, ("pair: 11 to 1",), edge)
        for decks, edge in (
            (1, "29.41%"),
            (2, "18.45%"),
            (3, "14.84%"),
            (4, "13.04%"),
            (5, "11.97%"),
            (6, "11.25%"),
            (8, "10.36%"),
        )
    ),
    # Over/Under 13, Wizard of Odds -------------------------------------------------------
    *(
        PublishedSideBet(_OVER_UNDER, _OVER_UNDER_URL, "under_13", decks, _UNDER_13, edge)
        for decks, edge in (
            (1, "10.11%"),
            (2, "10.08%"),
            (4, "10.07%"),
            (6, "10.07%"),
            (8, "10.06%"),
        )
    ),
    *(
        PublishedSideBet(_OVER_UNDER, _OVER_UNDER_URL, "over_13", decks, _OVER_13, edge)
        for decks, edge in (
            (1, "6.79%"),
            (2, "6.65%"),
            (4, "6.58%"),
            (6, "6.55%"),
            (8, "6.54%"),
        )
    ),
)
