"""The vocabulary of a round and the plain data it is made of.

The public names (:class:`Phase`, :class:`Action`, :class:`OfferKind`, :class:`Offer`,
:class:`HandView`, :class:`BoxView`, :class:`Awaiting`, :class:`Automation` and
:data:`MAIN`) are what a caller sees, and :mod:`croupier.round` exports them.  The rest
is the round's own state: the wagers on a hand, the hands of a box, the bets placed
while bets are open, and :class:`RoundState`, which holds all of it together with the
:class:`Cursor` that says where the round's flow stands.  Every part of a round is a
function over a :class:`RoundState`; nothing in it is hidden in a running generator,
so a round can be copied, pickled and written out as JSON at any point.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Flag, StrEnum, auto

from croupier._frozen import quick_init
from croupier.cards import Card, DrawnCard
from croupier.events import BetResult, Event
from croupier.rules import Rules
from croupier.shoe import CardSource, CompositionCheck

__all__ = [
    "INSURANCE",
    "MAIN",
    "ZERO",
    "Action",
    "Automation",
    "Awaiting",
    "Box",
    "BoxView",
    "Cursor",
    "Hand",
    "HandView",
    "Offer",
    "OfferKind",
    "Owed",
    "Phase",
    "PlacedBet",
    "PlacedBets",
    "RoundState",
    "Step",
    "Wager",
]

#: The key of a box's initial bet in bets and results.
MAIN = "main"
#: The key of an insurance bet in results.
INSURANCE = "insurance"
#: Zero, the start of every sum of money.
ZERO = Decimal(0)


class Phase(StrEnum):
    """Where a round is, in the rulebooks' sequence."""

    BETTING = "betting"
    DEALING = "dealing"
    OFFERS = "offers"
    PLAYER_TURNS = "player-turns"
    DEALER_TURN = "dealer-turn"
    SETTLED = "settled"
    VOID = "void"


class Action(StrEnum):
    """A decision for a hand, made by the box's seated player."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"


class OfferKind(StrEnum):
    """A question the table puts to one player, answered yes or no."""

    INSURANCE = "insurance"
    EVEN_MONEY = "even-money"
    SURRENDER = "surrender"
    FOLLOW_SPLIT = "follow-split"
    FOLLOW_DOUBLE = "follow-double"


class Awaiting(StrEnum):
    """What a round waits for before it can go on."""

    BETS = "bets"  # bets are open: bets, withdrawals, then "No more bets"
    CARD = "card"  # the next card, entered by the dealer
    ANSWERS = "answers"  # every open offer answered
    DECISION = "decision"  # the seated player's decision for the hand whose turn it is
    SETTLEMENT = "settlement"  # the dealer's word to settle (settlement not automatic)
    NOTHING = "nothing"  # the round is over


class Automation(Flag):
    """The steps a round takes by itself; a table that does them by hand turns them off.

    ``DEALING``: cards come from the round's card source; without it the round waits
    for each card (:class:`~croupier.commands.DealCard`), as at a dealer's console.
    ``SETTLEMENT``: final settlement follows the dealer's hand at once; without it the
    round waits for :class:`~croupier.commands.Settle`.  The dealer's own play is not
    a choice: he draws as the rules say, from the cards he is given.

    >>> Automation.ALL
    <Automation.ALL: 3>
    >>> Automation.DEALING in Automation.ALL, Automation.DEALING in Automation.SETTLEMENT
    (True, False)
    """

    NONE = 0
    DEALING = auto()
    SETTLEMENT = auto()
    ALL = DEALING | SETTLEMENT


class Step(StrEnum):
    """The step of the round's flow the cursor is on."""

    BETTING = "betting"
    INITIAL_DEAL = "initial-deal"
    INTERIM = "interim"
    INTERIM_OFFERS = "interim-offers"
    TURNS = "turns"
    DEALER = "dealer"
    SETTLEMENT = "settlement"
    OVER = "over"


class Owed(StrEnum):
    """A card the hand whose turn it is is owed: after a hit, or after a double."""

    NOTHING = "nothing"
    HIT = "hit"
    DOUBLE = "double"


# Bound once: reading an Enum member off its class is slow on Python 3.11.
_DECISION = Awaiting.DECISION


@dataclass(slots=True)
class Cursor:
    """Where the round's flow stands.

    ``step`` is the step; ``box`` and ``hand`` index the boxes in play and the
    hands of that box during the players' turns; ``card`` counts the cards of the
    initial deal; ``owed`` is a card the current hand is owed.  ``awaiting`` is what
    the flow stopped for, and ``legal`` the actions the current hand may take when it
    waits for a decision (worked out once per decision).
    """

    step: Step = Step.BETTING
    box: int = 0
    hand: int = 0
    card: int = 0
    owed: Owed = Owed.NOTHING
    awaiting: Awaiting = Awaiting.BETS
    legal: tuple[Action, ...] = ()


@dataclass(frozen=True, slots=True)
class Offer:
    """An open offer: insurance (up to ``amount``), even money, surrender, or following."""

    kind: OfferKind
    player: str
    box: int
    hand: int
    amount: Decimal | None = None


@dataclass(frozen=True, slots=True)
class HandView:
    """What a hand shows: its cards and every player's stake on it."""

    number: int
    cards: tuple[Card, ...]
    total: int
    is_soft: bool
    is_blackjack: bool
    stakes: tuple[tuple[str, Decimal], ...]
    from_split: bool
    doubled: bool
    surrendered: bool
    finished: bool

    @property
    def stake(self) -> Decimal:
        """The money of every player on the hand."""
        return sum((amount for _, amount in self.stakes), ZERO)

    def to_json(self) -> dict[str, object]:
        """The hand as JSON values, as a round's report shows it (money as text)."""
        return {
            "hand": self.number,
            "cards": [card.text for card in self.cards],
            "total": self.total,
            "soft": self.is_soft,
            "blackjack": self.is_blackjack,
            "doubled": self.doubled,
            "surrendered": self.surrendered,
            "stake": str(self.stake),
            "stakes": {player: str(amount) for player, amount in self.stakes},
        }


@dataclass(frozen=True, slots=True)
class BoxView:
    """A betting box: its seated player and its hands."""

    number: int
    seated: str
    hands: tuple[HandView, ...]


for _view in (Offer, HandView, BoxView):
    quick_init(_view, kw_only=False)


# -- the round's state --------------------------------------------------------------------------


@dataclass(slots=True)
class Wager:
    """One player's money on a hand: his initial bet and any double.

    ``settled`` once a result is recorded for it (won, lost, stood off, or returned);
    ``returned`` when it was given back after a dealing error.
    """

    player: str
    initial: Decimal
    double: Decimal = ZERO
    settled: bool = False
    returned: bool = False

    @property
    def stake(self) -> Decimal:
        return self.initial + self.double


@dataclass(slots=True)
class Hand:
    """A hand of a box: its cards, the wagers on it, and how it was played.

    The hand keeps its hard total (Aces as 1) and whether it holds an Ace as cards
    are added (:meth:`add`), so its total is never worked out again from its cards.
    """

    number: int
    cards: list[Card]
    wagers: list[Wager]
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    surrendered: bool = False
    finished: bool = False
    decisions: int = 0
    auto_play: bool = False
    hard: int = 0
    has_ace: bool = False

    def add(self, card: Card) -> None:
        """Add a card to the hand."""
        self.cards.append(card)
        points = card.points
        self.hard += points
        if points == 1:
            self.has_ace = True

    def take_last(self) -> Card:
        """Take the hand's second card away (a split)."""
        card = self.cards.pop()
        self.hard -= card.points
        self.has_ace = any(kept.points == 1 for kept in self.cards)
        return card

    @property
    def total(self) -> int:
        hard = self.hard
        return hard + 10 if self.has_ace and hard <= 11 else hard

    @property
    def is_soft(self) -> bool:
        return self.has_ace and self.hard <= 11

    @property
    def busted(self) -> bool:
        return self.hard > 21

    @property
    def is_blackjack(self) -> bool:
        return len(self.cards) == 2 and self.has_ace and self.hard == 11 and not self.from_split

    def wager_of(self, player: str) -> Wager | None:
        for wager in self.wagers:
            if wager.player == player:
                return wager
        return None

    def view(self) -> HandView:
        """What the hand shows."""
        return HandView(
            self.number,
            tuple(self.cards),
            self.total,
            self.is_soft,
            self.is_blackjack,
            tuple((wager.player, wager.stake) for wager in self.wagers),
            self.from_split,
            self.doubled,
            self.surrendered,
            self.finished,
        )


@dataclass(slots=True)
class PlacedBet:
    """A bet placed while bets are open, before the boxes close."""

    player: str
    box: int
    bet: str
    amount: Decimal


class PlacedBets:
    """The bets placed while bets are open, in the order placed, each found at once by
    its player, box and bet, with each box's initial bets kept summed as they change.

    A crowd betting behind one box (RWS v5 1.26) makes a thousand bets; a bet's checks
    (the player's own bet, the box's total against the maximum) and a player's stake
    then cost the same as with one.

    >>> bets = PlacedBets()
    >>> _ = bets.add("ann", 1, MAIN, Decimal("10")); _ = bets.add("bob", 1, MAIN, Decimal("5"))
    >>> _ = bets.add("ann", 1, MAIN, Decimal("15"))
    >>> [(placed.player, placed.amount) for placed in bets], bets.initial_on(1)
    ([('ann', Decimal('25')), ('bob', Decimal('5'))], Decimal('30'))
    >>> bets.remove(bets.find("ann", 1, MAIN)); bets.initial_on(1), bets.of("ann")
    (Decimal('5'), ())
    """

    __slots__ = ("_by_key", "_by_player", "_initial")

    def __init__(self, bets: Iterable[PlacedBet] = ()) -> None:
        self._by_key: dict[tuple[str, int, str], PlacedBet] = {}
        self._by_player: dict[str, dict[tuple[int, str], PlacedBet]] = {}
        self._initial: dict[int, Decimal] = {}
        if bets == ():
            return  # a new round's layout
        for placed in bets:
            key = (placed.player, placed.box, placed.bet)
            if key in self._by_key:
                raise ValueError(f"{placed.player} has two {placed.bet} bets on box {placed.box}")
            self._put(key, placed)

    def __iter__(self) -> Iterator[PlacedBet]:
        return iter(self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlacedBets):
            return NotImplemented
        return list(self._by_key.values()) == list(other._by_key.values())

    def __repr__(self) -> str:
        return f"PlacedBets({list(self._by_key.values())!r})"

    def find(self, player: str, box: int, bet: str) -> PlacedBet | None:
        """``player``'s ``bet`` on ``box``, or ``None``."""
        return self._by_key.get((player, box, bet))

    def of(self, player: str) -> tuple[PlacedBet, ...]:
        """``player``'s bets, in the order placed."""
        mine = self._by_player.get(player)
        return () if mine is None else tuple(mine.values())

    def initial_on(self, box: int) -> Decimal:
        """The initial bets on ``box``, added up (every player on it)."""
        return self._initial.get(box, ZERO)

    def initial_totals(self) -> dict[int, Decimal]:
        """Each box with an initial bet, and its initial bets added up."""
        return dict(self._initial)

    def add(self, player: str, box: int, bet: str, amount: Decimal) -> PlacedBet:
        """Add ``amount`` to ``player``'s ``bet`` on ``box``, placed anew if he has none;
        the bet as it now stands."""
        key = (player, box, bet)
        placed = self._by_key.get(key)
        if placed is None:
            placed = PlacedBet(player, box, bet, amount)
            self._put(key, placed)
            return placed
        placed.amount += amount
        if bet == MAIN:
            self._initial[box] += amount
        return placed

    def remove(self, placed: PlacedBet) -> None:
        """Take ``placed`` off the layout."""
        player, box, bet = placed.player, placed.box, placed.bet
        del self._by_key[player, box, bet]
        mine = self._by_player[player]
        del mine[box, bet]
        if not mine:
            del self._by_player[player]
        if bet == MAIN:
            # Bets are positive: the box's total is nothing when its last one goes.
            left = self._initial.get(box, ZERO) - placed.amount
            if left:
                self._initial[box] = left
            else:
                self._initial.pop(box, None)

    def _put(self, key: tuple[str, int, str], placed: PlacedBet) -> None:
        self._by_key[key] = placed
        mine = self._by_player.get(placed.player)
        if mine is None:
            self._by_player[placed.player] = {(placed.box, placed.bet): placed}
        else:
            mine[placed.box, placed.bet] = placed
        if placed.bet == MAIN:
            self._initial[placed.box] = self._initial.get(placed.box, ZERO) + placed.amount


@dataclass(slots=True)
class Box:
    """A betting box in play: its seated player, its bets and its hands.

    ``initial`` is each player's initial bet on the box, as kept at "No more bets";
    ``side_bets`` its side bets, until they are settled or returned; ``insurance``
    each player's insurance bet, until settled or returned.
    """

    number: int
    seated: str
    initial: dict[str, Decimal]
    side_bets: list[PlacedBet]
    hands: list[Hand] = field(default_factory=list)
    insurance: dict[str, Decimal] = field(default_factory=dict)
    insurance_settled: bool = False
    # Bets given back after a dealing error: still the players' stakes, never settled.
    returned_side_bets: list[PlacedBet] = field(default_factory=list)
    returned_insurance: dict[str, Decimal] = field(default_factory=dict)


@dataclass(slots=True)
class RoundState:
    """Everything a round is: plain data, with no reference to code that runs.

    The card source and the composition check are the table's; the round holds
    them so that it can draw.  Everything else is the round's own.
    """

    rules: Rules
    source: CardSource | None
    check: CompositionCheck
    automation: Automation = Automation.ALL
    # The automation as two flags, read at every card and at settlement.
    deals: bool = True
    settles: bool = True
    phase: Phase = Phase.BETTING
    cursor: Cursor = field(default_factory=Cursor)
    events: list[Event] = field(default_factory=list)
    # Bets as placed while bets are open, and each box's first bettor.
    bets: PlacedBets = field(default_factory=PlacedBets)
    seated: dict[int, str] = field(default_factory=dict)
    # The boxes in play once bets are closed, from the dealer's left.
    boxes: list[Box] = field(default_factory=list)
    results: list[BetResult] = field(default_factory=list)
    # The dealer's visible cards; the hole card joins them when it is turned.
    dealer_cards: list[Card] = field(default_factory=list)
    hole_card: Card | None = None
    hole_revealed: bool = False
    peeked: bool = False
    side_bets_settled: bool = False
    offers: list[Offer] = field(default_factory=list)
    # Players who walked away.
    absent: set[str] = field(default_factory=set)
    void_reason: str | None = None
    # A card the dealer entered, waiting to be taken by the flow.
    entered: DrawnCard | None = None

    @property
    def unit(self) -> Decimal:
        return self.rules.currency_unit

    def emit(self, event: Event) -> None:
        """Record an event."""
        self.events.append(event)

    def box(self, number: int) -> Box | None:
        """The box in play with this number, or ``None``."""
        for box in self.boxes:
            if box.number == number:
                return box
        return None

    def current(self) -> tuple[Box, Hand] | None:
        """The box and hand whose seated player must decide, or ``None``."""
        cursor = self.cursor
        if cursor.awaiting is not _DECISION:
            return None
        box = self.boxes[cursor.box]
        return box, box.hands[cursor.hand]
