"""Card sources: where the engine takes its cards from, and the check of every card.

The engine draws no random number of its own.  It is given a :class:`CardSource`:

- :class:`ShuffledShoe`: N decks shuffled by a cryptographic generator, or by a
  seeded one for reproducible play and simulation;
- :class:`FixedOrder`: cards in a given order, for tests, replay and reconstruction;
- :class:`DealerEntry`: cards entered one at a time by a dealer from a physical shoe.

Whatever the source, every card is held to the shoe's composition by a
:class:`CompositionCheck`: a card from outside the set (RWS v5 5.5.1) or one copy
more than the shoe holds (RWS v5 5.5.2) voids the round, and so does a shoe with
no card left to complete it (RWS v5 5.5.3).

>>> shoe = ShuffledShoe(6, penetration=Fraction(2, 3), seed=7)
>>> shoe
ShuffledShoe(decks=6, remaining=312, dealt=0)
>>> shoe.cut_card_position
208
>>> check = CompositionCheck(6)
>>> hand = [check.take(shoe.draw()) for _ in range(3)]
>>> shoe.dealt, check.taken
(3, 3)
>>> check.take(parse_drawn_card("JK"))
Traceback (most recent call last):
...
croupier.shoe.ForeignCardFound: foreign card JK found: it is not part of the set (RWS v5 5.5.1)
"""

from __future__ import annotations

import random
import secrets
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from croupier.cards import (
    Card,
    DrawnCard,
    ForeignCard,
    full_deck,
    parse_cards,
    parse_drawn_card,
)
from croupier.errors import CardError, CroupierError, RulesError

if TYPE_CHECKING:
    from croupier.rules import Rules

__all__ = [
    "CardSource",
    "CompositionCheck",
    "DealerEntry",
    "ExcessCardFound",
    "FixedOrder",
    "ForeignCardFound",
    "ShoeExhausted",
    "ShuffledShoe",
]

_EXHAUSTED_MESSAGE = "the shoe has no card left to complete the round (RWS v5 5.5.3)"


class ShoeExhausted(CroupierError):
    """No card is left to complete the round: the round is void (RWS v5 5.5.3).

    >>> str(ShoeExhausted())
    'the shoe has no card left to complete the round (RWS v5 5.5.3)'
    """

    def __init__(self, message: str = _EXHAUSTED_MESSAGE) -> None:
        super().__init__(message)


class ForeignCardFound(CardError):
    """A card that is not part of the set was found: the round is void (RWS v5 5.5.1).

    Attributes:
        card: The card found.

    >>> error = ForeignCardFound(ForeignCard("JK"))
    >>> error.card, str(error)
    (ForeignCard(text='JK'), 'foreign card JK found: it is not part of the set (RWS v5 5.5.1)')
    """

    def __init__(self, card: DrawnCard) -> None:
        super().__init__(self.reason("RWS v5 5.5.1", card))
        self.card = card

    def reason(self, clause: str, card: DrawnCard | None = None) -> str:
        """The void reason, citing ``clause`` (each table cites its own rulebook).

        >>> ForeignCardFound(ForeignCard("JK")).reason("RWS v4 5.1.1")
        'foreign card JK found: it is not part of the set (RWS v4 5.1.1)'
        """
        found = self.card if card is None else card
        return f"foreign card {found} found: it is not part of the set ({clause})"

    def __reduce__(self) -> tuple[type[ForeignCardFound], tuple[DrawnCard]]:
        return type(self), (self.card,)


class ExcessCardFound(CardError):
    """One copy of a card more than the shoe holds: the round is void (RWS v5 5.5.2).

    Attributes:
        card: The card found once too often.
        decks: Decks in the shoe, so the copies of each card it holds.

    >>> from croupier.cards import parse_card
    >>> error = ExcessCardFound(parse_card("AS"), decks=6)
    >>> str(error)
    'excess card AS: the 6-deck shoe holds 6 and this is the 7th (RWS v5 5.5.2)'
    """

    def __init__(self, card: Card, decks: int) -> None:
        self.card = card
        self.decks = decks
        super().__init__(self.reason("RWS v5 5.5.2"))

    def reason(self, clause: str) -> str:
        """The void reason, citing ``clause`` (each table cites its own rulebook)."""
        decks = self.decks
        return (
            f"excess card {self.card}: the {decks}-deck shoe holds {decks} and this is the "
            f"{_ordinal(decks + 1)} ({clause})"
        )

    def __reduce__(self) -> tuple[type[ExcessCardFound], tuple[Card, int]]:
        return type(self), (self.card, self.decks)


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _randbelow(rng: random.Random) -> Callable[[int], int]:
    """``rng.randrange(n)`` for ``n`` of 1 or more, without its argument checks.

    Both give the same numbers; this one is the generator's own method, where it has one.
    """
    below = getattr(rng, "_randbelow", None)
    return below if callable(below) else rng.randrange


def _getrandbits(rng: random.Random) -> Callable[[int], int] | None:
    """The generator's ``getrandbits`` where its integers below ``n`` are drawn from it
    (Python's ``Random`` and ``SystemRandom``), else ``None``."""
    below = getattr(type(rng), "_randbelow", None)
    if below is not None and below is getattr(random.Random, "_randbelow_with_getrandbits", None):
        return rng.getrandbits
    return None


#: Each card by the text a shoe's snapshot writes for it.
_KEPT_CARDS: dict[str, Card] = {str(card): card for card in full_deck()}


@lru_cache(maxsize=16)
def _whole_decks(decks: int) -> Counter[DrawnCard]:
    """How many of each card ``decks`` whole decks hold."""
    return Counter({card: decks for card in full_deck()})


def _check_decks(decks: int) -> None:
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise RulesError(f"decks must be a whole number of at least 1, not {decks!r}")


@runtime_checkable
class CardSource(Protocol):
    """Where the engine takes its cards from.

    >>> isinstance(FixedOrder(["AS"]), CardSource), isinstance(DealerEntry(), CardSource)
    (True, True)
    """

    def draw(self) -> DrawnCard | None:
        """The next card, or ``None`` when a dealer has not entered it yet.

        Raises:
            ShoeExhausted: No card is left (RWS v5 5.5.3).
        """
        ...

    @property
    def needs_shuffle(self) -> bool:
        """The cut card has come out, or the table shuffles every round and cards were dealt.

        The table finishes the round in progress, then calls :meth:`shuffle`.
        """
        ...

    def shuffle(self) -> None:
        """Shuffle all the cards back together; called between rounds."""
        ...


class ShuffledShoe:
    """A shoe of N decks, shuffled on construction and on every :meth:`shuffle`.

    With ``lazy``, the shuffle is a Fisher-Yates shuffle done as the cards are dealt:
    each card drawn is chosen uniformly from those not yet dealt.  The order is as
    random as a shuffle of the whole shoe made in advance, and a table that shuffles
    every round pays only for the cards it deals (a simulation's shoe).  A seed gives
    another order that way than with the whole shoe shuffled at once, whose order for a
    seed is kept from one release to the next.

    Without a seed the order comes from the system's cryptographic generator
    (:class:`secrets.SystemRandom`); with one, from ``random.Random(seed)``, and the
    same seed gives the same orders, shuffle after shuffle.  Neither the seed nor the
    order is ever shown by ``repr`` or ``str``: they are hidden information.

    The cut card comes out once :attr:`cut_card_position` cards are dealt; the round
    in progress finishes from the cards behind it, then :attr:`needs_shuffle` tells
    the table to shuffle (Casino-To-Go: "the game can continue until the cut card is
    about to be dealt").

    Args:
        decks: Decks in the shoe, at least 1.
        penetration: Share of the cards dealt before the cut card comes out, more
            than 0 and at most 1.
        seed: Seed of a reproducible order, or ``None`` for a cryptographic one.
        shuffle_every_round: Shuffle before every round in which cards were dealt.
        lazy: Shuffle as the cards are dealt (see above).

    Raises:
        RulesError: ``decks`` or ``penetration`` is out of range.

    >>> shoe = ShuffledShoe(1, seed=2024)
    >>> first = [shoe.draw() for _ in range(52)]
    >>> sorted(first) == sorted(full_deck()), shoe.remaining, shoe.needs_shuffle
    (True, 0, True)
    >>> again = ShuffledShoe(1, seed=2024)
    >>> [again.draw() for _ in range(52)] == first
    True
    >>> ShuffledShoe(2, penetration=Fraction(1, 2))
    ShuffledShoe(decks=2, remaining=104, dealt=0)
    """

    __slots__ = (
        "_cards",
        "_cut_card_position",
        "_decks",
        "_getrandbits",
        "_lazy",
        "_position",
        "_random",
        "_randrange",
        "_shuffle_every_round",
        "_shuffles",
    )

    def __init__(
        self,
        decks: int,
        *,
        penetration: Fraction = Fraction(3, 4),
        seed: int | None = None,
        shuffle_every_round: bool = False,
        lazy: bool = False,
    ) -> None:
        _check_decks(decks)
        if not isinstance(penetration, Fraction | int) or isinstance(penetration, bool):
            raise RulesError(
                f"penetration must be an exact ratio such as Fraction(3, 4), not {penetration!r}"
            )
        if not 0 < penetration <= 1:
            raise RulesError(f"penetration must be more than 0 and at most 1, not {penetration}")
        self._decks = decks
        self._cards: list[Card] = full_deck() * decks
        self._cut_card_position = max(1, int(len(self._cards) * Fraction(penetration)))
        self._random: random.Random = (
            secrets.SystemRandom() if seed is None else random.Random(seed)
        )
        self._randrange = _randbelow(self._random)
        self._getrandbits = _getrandbits(self._random)
        self._shuffle_every_round = shuffle_every_round
        self._lazy = lazy
        self._position = 0
        self._shuffles = 0
        self.shuffle()

    @classmethod
    def from_rules(
        cls, rules: Rules, *, seed: int | None = None, lazy: bool = False
    ) -> ShuffledShoe:
        """The shoe a table with these rules deals from.

        >>> from croupier.rules import Rules
        >>> shoe = ShuffledShoe.from_rules(Rules(decks=6, penetration=Fraction(2, 3)), seed=1)
        >>> shoe.remaining, shoe.cut_card_position
        (312, 208)
        """
        return cls(
            rules.decks,
            penetration=rules.penetration,
            seed=seed,
            shuffle_every_round=rules.shuffle_every_round,
            lazy=lazy,
        )

    def draw(self) -> Card:
        """The next card.

        Raises:
            ShoeExhausted: Every card has been dealt (RWS v5 5.5.3).

        >>> shoe = ShuffledShoe(1, seed=3)
        >>> for _ in range(52):
        ...     _ = shoe.draw()
        >>> shoe.draw()
        Traceback (most recent call last):
        ...
        croupier.shoe.ShoeExhausted: the shoe has no card left to complete the round (RWS v5 5.5.3)
        """
        position = self._position
        cards = self._cards
        left = len(cards) - position
        if left <= 0:
            raise ShoeExhausted()
        if self._lazy:
            # Uniform over the cards not yet dealt: random's own method for an integer
            # below ``left`` (``_randbelow_with_getrandbits``), written out, the same numbers.
            getrandbits = self._getrandbits
            if getrandbits is None:
                chosen = position + self._randrange(left)
            else:
                bits = left.bit_length()
                offset = getrandbits(bits)
                while offset >= left:
                    offset = getrandbits(bits)
                chosen = position + offset
            card = cards[chosen]
            cards[chosen] = cards[position]
            cards[position] = card
        else:
            card = cards[position]
        self._position = position + 1
        return card

    def __getstate__(self) -> dict[str, object]:
        # The system's generator has no state to keep: a copy or an unpickled shoe
        # draws from a fresh one.  A seeded generator is kept as it is.
        system = isinstance(self._random, secrets.SystemRandom)
        return {
            "cards": list(self._cards),
            "cut_card_position": self._cut_card_position,
            "decks": self._decks,
            "lazy": self._lazy,
            "position": self._position,
            "random": None if system else self._random,
            "shuffle_every_round": self._shuffle_every_round,
            "shuffles": self._shuffles,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._cards = state["cards"]
        self._cut_card_position = state["cut_card_position"]
        self._decks = state["decks"]
        self._lazy = state["lazy"]
        self._position = state["position"]
        rng = state["random"]
        self._random = secrets.SystemRandom() if rng is None else rng
        self._randrange = _randbelow(self._random)
        self._getrandbits = _getrandbits(self._random)
        self._shuffle_every_round = state["shuffle_every_round"]
        self._shuffles = state["shuffles"]

    @property
    def needs_shuffle(self) -> bool:
        """The cut card has come out, or the shoe shuffles every round and a card was dealt.

        >>> shoe = ShuffledShoe(1, penetration=Fraction(1, 2), seed=5)
        >>> for _ in range(25):
        ...     _ = shoe.draw()
        >>> shoe.needs_shuffle
        False
        >>> _ = shoe.draw()
        >>> shoe.needs_shuffle
        True
        """
        position = self._position
        return position >= self._cut_card_position or (self._shuffle_every_round and position > 0)

    def shuffle(self) -> None:
        """Gather every card back and shuffle them all; the cut card goes back in.

        >>> shoe = ShuffledShoe(1, seed=9)
        >>> _ = shoe.draw()
        >>> shoe.shuffle()
        >>> shoe.remaining, shoe.dealt, shoe.shuffles
        (52, 0, 2)
        """
        # Every card goes back; a lazy shoe chooses each as it is dealt.
        if not self._lazy:
            self._random.shuffle(self._cards)
        self._position = 0
        self._shuffles += 1

    @property
    def decks(self) -> int:
        """Decks in the shoe."""
        return self._decks

    @property
    def remaining(self) -> int:
        """Cards not yet dealt since the last shuffle."""
        return len(self._cards) - self._position

    @property
    def dealt(self) -> int:
        """Cards dealt since the last shuffle."""
        return self._position

    @property
    def dealt_cards(self) -> tuple[Card, ...]:
        """The cards dealt since the last shuffle, in order.

        >>> shoe = ShuffledShoe.stacked("AS KH", decks=1)
        >>> [str(card) for card in (shoe.draw(), *shoe.dealt_cards)]
        ['AS', 'AS']
        """
        return tuple(self._cards[: self._position])

    @property
    def cut_card_position(self) -> int:
        """Cards dealt before the cut card comes out: ``int(total * penetration)``, at least 1.

        >>> ShuffledShoe(8, seed=1).cut_card_position
        312
        """
        return self._cut_card_position

    @property
    def shuffles(self) -> int:
        """Shuffles so far, the one made on construction included.

        >>> ShuffledShoe(1, seed=1).shuffles
        1
        """
        return self._shuffles

    # -- kept as plain values (a table server's rounds) ----------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The shoe as plain JSON values: its decks, the cut card's position, whether it
        shuffles every round, the order of every card and how many are dealt.  Secret:
        it shows every card to come.  A table server keeps it in each round's record,
        so that the round is dealt again, card for card, after a restart.

        >>> shoe = ShuffledShoe(1, penetration=Fraction(1, 2), seed=4)
        >>> _ = shoe.draw()
        >>> kept = shoe.snapshot()
        >>> kept["decks"], kept["cut"], kept["every_round"], kept["position"], len(kept["order"])
        (1, 26, False, 1, 52)

        Raises:
            ValueError: the shoe shuffles as it deals (``lazy``): it has no order to keep.
        """
        if self._lazy:
            raise ValueError("a shoe that shuffles as it deals has no order to keep")
        return {
            "decks": self._decks,
            "cut": self._cut_card_position,
            "every_round": self._shuffle_every_round,
            "order": [str(card) for card in self._cards],
            "position": self._position,
        }

    @classmethod
    def restore(cls, snapshot: Mapping[str, Any]) -> ShuffledShoe:
        """The shoe a :meth:`snapshot` describes, its next shuffles the system's
        cryptographic generator's.

        >>> shoe = ShuffledShoe(2, seed=8)
        >>> first = shoe.draw()
        >>> again = ShuffledShoe.restore(shoe.snapshot())
        >>> again.dealt, again.remaining, again.draw() == shoe.draw()
        (1, 103, True)
        >>> ShuffledShoe.restore({**shoe.snapshot(), "position": 500})
        Traceback (most recent call last):
        ...
        croupier.errors.RulesError: a kept shoe's position must be from 0 to 104, not 500

        Raises:
            RulesError: the snapshot is not one :meth:`snapshot` writes (its decks,
                cut card, position or cards out of range).
        """
        try:
            decks, cut = snapshot["decks"], snapshot["cut"]
            every_round, position = snapshot["every_round"], snapshot["position"]
            # A kept card is its text as the snapshot wrote it: looked up, not parsed.
            order = [_KEPT_CARDS.get(text) or parse_drawn_card(text) for text in snapshot["order"]]
        except (KeyError, TypeError) as problem:
            raise RulesError(f"a kept shoe is not a shoe's snapshot: {problem!r}") from None
        if any(not isinstance(card, Card) for card in order):
            raise RulesError("a kept shoe holds a card that is not part of the set")
        for name, value in (("decks", decks), ("cut", cut), ("position", position)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(f"a kept shoe's {name} must be a whole number, not {value!r}")
        _check_decks(decks)
        if Counter(order) != _whole_decks(decks):
            raise RulesError(f"a kept shoe's cards are not {decks} whole decks")
        if not 0 <= position <= len(order):
            raise RulesError(
                f"a kept shoe's position must be from 0 to {len(order)}, not {position}"
            )
        if not 1 <= cut <= len(order):
            raise RulesError(f"a kept shoe's cut card must be from 1 to {len(order)}, not {cut}")
        shoe = cls.__new__(cls)
        shoe.__setstate__(
            {
                "cards": order,
                "cut_card_position": cut,
                "decks": decks,
                "lazy": False,
                "position": position,
                "random": None,
                "shuffle_every_round": bool(every_round),
                "shuffles": 1,
            }
        )
        return shoe

    @classmethod
    def stacked(cls, cards: str, *, decks: int = 8) -> ShuffledShoe:
        """A shoe of ``decks`` whose top cards are ``cards``, the rest of the decks
        behind them shuffled (tests and demonstrations of a table server).

        >>> shoe = ShuffledShoe.stacked("AS KH", decks=1)
        >>> str(shoe.draw()), str(shoe.draw()), shoe.remaining
        ('AS', 'KH', 50)
        """
        shoe = cls(decks)
        top = parse_cards(cards)
        rest = list(shoe._cards)
        for card in top:
            rest.remove(card)
        shoe._cards = top + rest
        return shoe

    def __repr__(self) -> str:
        return f"ShuffledShoe(decks={self._decks}, remaining={self.remaining}, dealt={self.dealt})"


class FixedOrder:
    """The cards in the order given: for tests, replay and reconstruction.

    Card texts are read as found in a shoe (:func:`~croupier.cards.parse_drawn_card`),
    so ``JK`` is a foreign card; a single text is split at spaces and commas.

    Args:
        cards: Cards or card texts, first dealt first.

    Raises:
        CardError: A text is not a card; the message names it and its position,
            counted from 1.

    >>> order = FixedOrder(["AS", "10h", "JK"])
    >>> order.draw(), order.remaining
    (Card(rank=<Rank.ACE: 'A'>, suit=<Suit.SPADES: 'S'>), 2)
    >>> [str(card) for card in FixedOrder("AS, KD 5c").cards]
    ['AS', 'KD', '5C']
    >>> FixedOrder(["AS", "1S"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.CardError: card 2 of the fixed order: unknown card '1S': expected rank ...
    """

    __slots__ = ("_cards", "_position")

    def __init__(self, cards: Iterable[DrawnCard | str]) -> None:
        if isinstance(cards, str):
            cards = cards.replace(",", " ").split()
        parsed: list[DrawnCard] = []
        for position, item in enumerate(cards, start=1):
            if isinstance(item, Card | ForeignCard):
                parsed.append(item)
                continue
            try:
                parsed.append(parse_drawn_card(item))
            except CardError as error:
                raise CardError(f"card {position} of the fixed order: {error}") from None
        self._cards = parsed
        self._position = 0

    def draw(self) -> DrawnCard:
        """The next card in the order.

        Raises:
            ShoeExhausted: Every card given has been dealt (RWS v5 5.5.3).

        >>> order = FixedOrder(["9C"])
        >>> str(order.draw())
        '9C'
        >>> order.draw()
        Traceback (most recent call last):
        ...
        croupier.shoe.ShoeExhausted: the shoe has no card left to complete the round (RWS v5 5.5.3)
        """
        position = self._position
        try:
            card = self._cards[position]
        except IndexError:
            raise ShoeExhausted() from None
        self._position = position + 1
        return card

    @property
    def needs_shuffle(self) -> bool:
        """Never: the order is what it is."""
        return False

    def shuffle(self) -> None:
        """Does nothing: the order is kept as given."""

    @property
    def cards(self) -> tuple[DrawnCard, ...]:
        """Every card of the order, dealt or not."""
        return tuple(self._cards)

    @property
    def remaining(self) -> int:
        """Cards not yet dealt."""
        return len(self._cards) - self._position

    @property
    def dealt(self) -> int:
        """Cards dealt so far."""
        return self._position

    def __repr__(self) -> str:
        return f"FixedOrder(remaining={self.remaining}, dealt={self.dealt})"


class DealerEntry:
    """Cards entered one at a time by a dealer who deals from a physical shoe.

    :meth:`draw` answers ``None`` while the dealer has not entered the next card;
    the table then waits.  When the dealer sees the cut card come out they call
    :meth:`mark_cut_card`, and the table shuffles after the round.

    >>> entry = DealerEntry()
    >>> entry.draw() is None
    True
    >>> entry.enter("qh")
    >>> entry.queued, str(entry.draw())
    (1, 'QH')
    >>> entry.mark_cut_card()
    >>> entry.needs_shuffle
    True
    >>> entry.shuffle()
    >>> entry.needs_shuffle
    False
    """

    __slots__ = ("_cut_card_seen", "_queue")

    def __init__(self) -> None:
        self._queue: deque[DrawnCard] = deque()
        self._cut_card_seen = False

    def enter(self, card: DrawnCard | str) -> None:
        """Queue the next card the dealer took from the shoe.

        Raises:
            CardError: The text is not a card; the message names it.

        >>> DealerEntry().enter("ZZ")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        croupier.errors.CardError: unknown card 'ZZ': expected rank ...
        """
        if not isinstance(card, Card | ForeignCard):
            card = parse_drawn_card(card)
        self._queue.append(card)

    def draw(self) -> DrawnCard | None:
        """The oldest card entered and not yet drawn, or ``None`` when there is none."""
        queue = self._queue
        return queue.popleft() if queue else None

    def mark_cut_card(self) -> None:
        """The dealer saw the cut card come out: shuffle after this round."""
        self._cut_card_seen = True

    @property
    def needs_shuffle(self) -> bool:
        """The dealer marked the cut card since the last shuffle."""
        return self._cut_card_seen

    def shuffle(self) -> None:
        """The dealer shuffled the physical shoe: clears the cut card mark."""
        self._cut_card_seen = False

    @property
    def queued(self) -> int:
        """Cards entered and not yet drawn."""
        return len(self._queue)

    def __repr__(self) -> str:
        return f"DealerEntry(queued={self.queued}, needs_shuffle={self._cut_card_seen})"


class CompositionCheck:
    """Holds every card taken from a source to the shoe's composition.

    A shoe of N decks holds each of the 52 cards N times.  A card taken once more
    than that since the last shuffle, or a card that is not part of the set, voids
    the round (RWS v5 5.5.1, 5.5.2).  A refused card is not counted.

    Args:
        decks: Decks in the shoe, at least 1.

    Raises:
        RulesError: ``decks`` is less than 1.

    >>> check = CompositionCheck(2)
    >>> ace = parse_drawn_card("AS")
    >>> check.take(ace) == ace, check.take(ace) == ace
    (True, True)
    >>> check.take(ace)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.shoe.ExcessCardFound: excess card AS: the 2-deck shoe holds 2 and this is the 3rd ...
    >>> check.count(ace), check.taken
    (2, 2)
    >>> check.reset()
    >>> check.count(ace), check.taken
    (0, 0)
    """

    __slots__ = ("_counts", "_decks", "_taken")

    def __init__(self, decks: int) -> None:
        _check_decks(decks)
        self._decks = decks
        # How many of each of the 52 cards (by Card.index) were taken.
        self._counts = [0] * 52
        self._taken = 0

    def take(self, card: DrawnCard) -> Card:
        """Count a card drawn from the source and return it when it belongs.

        Raises:
            ForeignCardFound: The card is not part of the set (RWS v5 5.5.1).
            ExcessCardFound: The card was already taken as often as the shoe holds it
                (RWS v5 5.5.2).
            CardError: The value is not a card at all.
        """
        if type(card) is not Card:
            if isinstance(card, ForeignCard):
                raise ForeignCardFound(card)
            if not isinstance(card, Card):
                raise CardError(f"{card!r} is not a card drawn from a shoe")
        index = card.index
        counts = self._counts
        count = counts[index]
        if count >= self._decks:
            raise ExcessCardFound(card, self._decks)
        counts[index] = count + 1
        self._taken += 1
        return card

    def reset(self) -> None:
        """Forget every card taken: the shoe was shuffled."""
        self._counts = [0] * 52
        self._taken = 0

    def to_json(self) -> dict[str, object]:
        """The check as JSON values: the decks and each card taken since the shuffle.

        >>> check = CompositionCheck(2)
        >>> _ = check.take(parse_drawn_card("AS"))
        >>> check.to_json()
        {'decks': 2, 'taken': {'AS': 1}}
        >>> CompositionCheck.from_json(check.to_json()).count(parse_drawn_card("AS"))
        1
        """
        return {
            "decks": self._decks,
            "taken": {
                card.text: count for card in full_deck() if (count := self._counts[card.index])
            },
        }

    @classmethod
    def from_json(cls, data: object) -> CompositionCheck:
        """The check :meth:`to_json` wrote.

        Raises:
            CardError: the data is not such a check; the message says what is wrong.
        """
        if not isinstance(data, dict) or not isinstance(data.get("taken"), dict):
            raise CardError("a composition check is an object with decks and taken")
        decks = data.get("decks")
        if not isinstance(decks, int) or isinstance(decks, bool):
            raise CardError(f"a composition check's decks must be a number, not {decks!r}")
        check = cls(decks)
        for text, count in data["taken"].items():
            card = parse_drawn_card(text)
            if not isinstance(card, Card) or not isinstance(count, int) or not 0 < count <= decks:
                raise CardError(f"a composition check cannot hold {count!r} of {text!r}")
            check._counts[card.index] = count
            check._taken += count
        return check

    def count(self, card: Card) -> int:
        """How many times this card was taken since the last reset."""
        return self._counts[card.index]

    @property
    def decks(self) -> int:
        """Decks in the shoe."""
        return self._decks

    @property
    def taken(self) -> int:
        """Cards taken since the last reset."""
        return self._taken

    def __repr__(self) -> str:
        return f"CompositionCheck(decks={self._decks}, taken={self._taken})"
