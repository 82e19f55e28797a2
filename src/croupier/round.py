"""One round of blackjack at a table: a pure, deterministic state machine you can hold.

The round follows the rulebooks' sequence: bets open, "No more bets", the initial
deal, interim settlement (side bets, immediate blackjack payments, insurance and
even money, surrender refunds), each box's decisions hand by hand from the
dealer's left, the dealer, and final settlement.  It takes cards from the card
source it is given and commands from its caller; it reads no clock and draws no
random number.  Every step appends an immutable event to :attr:`Round.events`.

Every input is a typed command (:mod:`croupier.commands`) given to :meth:`Round.apply`,
which returns the events it caused.  The methods are shorthand for the same, each a
triplet: a query (``can_double()``), a verification that raises a typed error naming
the state (``verify_double()``), and the action (``double_down()``), which returns its
first event.  A refused command changes nothing.

A round is plain data: :meth:`Round.copy` gives an independent copy (a what-if),
:meth:`Round.snapshot` writes it as JSON and :meth:`Round.restore` reads it back; the
round then runs on exactly as it would have.  Where a caller deals the cards itself (a
dealer's console), the round waits for each (:attr:`Round.awaiting`, :meth:`deal_card`).

The parts live in their own modules, each a set of functions over the round's state
(:mod:`croupier.round_state`): bets in :mod:`croupier.betting`, offers in
:mod:`croupier.offers`, decisions in :mod:`croupier.decisions`, the dealer's hand in
:mod:`croupier.dealer`, settlement in :mod:`croupier.settlement`, irregularities in
:mod:`croupier.irregularities`, and the sequence in :mod:`croupier.flow`.

>>> from croupier.rules import Rules, HoleCard
>>> from croupier.shoe import FixedOrder
>>> rules = Rules(hole_card=HoleCard.PEEK)
>>> game = Round(rules, FixedOrder("10S 6D 9H 7C 5S"))
>>> _ = game.place_bet("ann", 1, "10")
>>> _ = game.close_bets()
>>> game.phase, game.awaiting
(<Phase.PLAYER_TURNS: 'player-turns'>, <Awaiting.DECISION: 'decision'>)
>>> [action.value for action in game.legal_actions()]
['hit', 'stand', 'double']
>>> what_if = game.copy()
>>> [event.type for event in what_if.apply(Hit())][:2]
['player_hit', 'card_dealt']
>>> game.stand().type
'player_stood'
>>> game.phase, [str(card) for card in game.dealer_cards], game.house_net
(<Phase.SETTLED: 'settled'>, ['6D', '7C', '5S'], Decimal('-10.00'))
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection
from decimal import Decimal
from typing import Any, TypeVar

from croupier import betting, decisions, irregularities, offers
from croupier.cards import Card, DrawnCard, parse_drawn_card
from croupier.commands import (
    CloseBets,
    Command,
    DealCard,
    Decline,
    DoubleDown,
    Follow,
    Hit,
    Interrupt,
    PlaceBet,
    ReturnBets,
    Settle,
    Split,
    Stand,
    Surrender,
    TakeEvenMoney,
    TakeInsurance,
    TimeOut,
    Void,
    WalkAway,
    Withdraw,
)
from croupier.dealer import dealer_total, has_blackjack
from croupier.errors import CroupierError, IllegalActionError
from croupier.events import (
    BetPlaced,
    BetResult,
    BetsClosed,
    BetWithdrawn,
    Event,
    RoundVoided,
)
from croupier.flow import CardFor, next_card, run
from croupier.money import parse_amount
from croupier.round_state import (
    INSURANCE as INSURANCE,
)
from croupier.round_state import (
    MAIN,
    ZERO,
    Action,
    Automation,
    Awaiting,
    BoxView,
    HandView,
    Offer,
    OfferKind,
    Phase,
    PlacedBet,
    RoundState,
    Step,
)
from croupier.rules import Rules
from croupier.rules import Surrender as SurrenderRule
from croupier.settlement import final_settlement, house_net
from croupier.shoe import CardSource, CompositionCheck, DealerEntry
from croupier.snapshot import read_snapshot, write_snapshot

__all__ = [
    "MAIN",
    "Action",
    "Automation",
    "Awaiting",
    "BoxView",
    "HandView",
    "Offer",
    "OfferKind",
    "Phase",
    "Round",
]

_C = TypeVar("_C", bound=Command)
_Handler = Callable[["Round", Any, bool], None]
_HANDLERS: dict[type[Command], _Handler] = {}
# Enum members as module names: on Python 3.11 reading a member off its class goes
# through EnumType.__getattr__'s slow hook (about 70 ns), and a round reads dozens.
_ALL_STEPS = Automation.ALL
_DECISION = Awaiting.DECISION


def _handles(
    kind: type[_C],
) -> Callable[[Callable[[Round, _C, bool], None]], Callable[[Round, _C, bool], None]]:
    def register(handler: Callable[[Round, _C, bool], None]) -> Callable[[Round, _C, bool], None]:
        _HANDLERS[kind] = handler
        return handler

    return register


class Round:
    """A round at a table, from "Place your bets" to final settlement or void.

    Args:
        rules: the table's rules.
        source: where the cards come from (see :mod:`croupier.shoe`); ``None`` or a
            :class:`~croupier.shoe.DealerEntry` when a dealer enters each card.
        check: the shoe's composition check; a table keeps one across rounds of a
            shoe. A new one is made when none is given.
        automation: the steps the round takes by itself (:class:`Automation`).
    """

    __slots__ = ("_state",)

    def __init__(
        self,
        rules: Rules,
        source: CardSource | None = None,
        *,
        check: CompositionCheck | None = None,
        automation: Automation = Automation.ALL,
    ) -> None:
        if source is None:
            automation &= ~Automation.DEALING
        full = automation is _ALL_STEPS
        self._state = RoundState(
            rules,
            source,
            check if check is not None else CompositionCheck(rules.decks),
            automation,
            full or Automation.DEALING in automation,
            full or Automation.SETTLEMENT in automation,
        )

    # -- commands ------------------------------------------------------------------------------

    def apply(self, command: Command) -> tuple[Event, ...]:
        """Carry out a command; returns the events it caused.

        Raises:
            CroupierError: the command is refused (its typed error says why); the
                round is unchanged.
        """
        events = self._state.events
        start = len(events)
        self._handler(command)(self, command, True)
        return tuple(events[start:])

    def verify(self, command: Command) -> None:
        """Raise the error :meth:`apply` would raise for ``command``, and change nothing."""
        self._handler(command)(self, command, False)

    def can(self, command: Command) -> bool:
        """Whether :meth:`apply` would accept ``command``."""
        try:
            self._handler(command)(self, command, False)
        except CroupierError:
            return False
        return True

    @staticmethod
    def _handler(command: Command) -> _Handler:
        handler = _HANDLERS.get(type(command))
        if handler is None:
            raise IllegalActionError(f"{command!r} is not a command a round takes")
        return handler

    def _first(self, command: Command) -> Event:
        events = self._state.events
        start = len(events)
        # The methods below only make commands the round takes: no need to check.
        _HANDLERS[type(command)](self, command, True)
        return events[start]

    # -- holding a round -----------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The table's rules."""
        return self._state.rules

    @property
    def state(self) -> RoundState:
        """The round's state, plain data (read it; change it only through commands)."""
        return self._state

    def copy(self) -> Round:
        """An independent copy: commands applied to it leave this round as it is.

        The copy draws from a copy of the card source: a shoe in a known order (a fixed
        order, a seeded shuffle) deals the copy the same cards.
        """
        return copy.deepcopy(self)

    def snapshot(self) -> dict[str, Any]:
        """The round as JSON values, rules included (hidden cards too: keep it private).

        The card source is not in it: give :meth:`restore` the source as the round
        left it.
        """
        return write_snapshot(self._state)

    @classmethod
    def restore(cls, snapshot: object, rules: Rules, source: CardSource | None = None) -> Round:
        """The round a :meth:`snapshot` wrote, dealing on from ``source``.

        Raises:
            CroupierError: the snapshot is not one, or was taken under other rules.
        """
        game = cls.__new__(cls)
        game._state = read_snapshot(snapshot, rules, source)
        return game

    # -- what the round shows ------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the round is."""
        return self._state.phase

    @property
    def awaiting(self) -> Awaiting:
        """What the round waits for."""
        return self._state.cursor.awaiting

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, oldest first."""
        return tuple(self._state.events)

    @property
    def event_count(self) -> int:
        """How many events the round has had: the place of its next one in :attr:`events`.

        >>> from croupier.presets import find_rules
        >>> from croupier.shoe import FixedOrder
        >>> game = Round(find_rules("rws-v5"), FixedOrder([]))
        >>> first = game.event_count
        >>> _ = game.place_bet("ann", 1, Decimal("25"))
        >>> [type(event).__name__ for event in game.events_since(first)]
        ['BetPlaced']
        """
        return len(self._state.events)

    def events_since(self, first: int) -> tuple[Event, ...]:
        """The events from place ``first`` on (the tail of :attr:`events`, the rest
        not copied: a server asks after every input)."""
        return tuple(self._state.events[first:])

    @property
    def results(self) -> tuple[BetResult, ...]:
        """Every settled or returned bet; after a void, every bet of the round with net zero."""
        return tuple(self._state.results)

    @property
    def void_reason(self) -> str | None:
        """Why the round was voided, or ``None``."""
        return self._state.void_reason

    @property
    def dealer_cards(self) -> tuple[Card, ...]:
        """The dealer's cards a player can see (the hole card once it is turned)."""
        return tuple(self._state.dealer_cards)

    @property
    def hole_card(self) -> Card | None:
        """The dealer's face-down card, hidden information until revealed."""
        state = self._state
        return None if state.hole_revealed else state.hole_card

    @property
    def up_card(self) -> Card | None:
        """The dealer's face-up first card."""
        cards = self._state.dealer_cards
        return cards[0] if cards else None

    @property
    def dealer_total(self) -> int:
        """The total of the dealer's visible cards."""
        return dealer_total(self._state)

    @property
    def awaiting_card(self) -> bool:
        """The round waits for the dealer to enter the next card (:meth:`deal_card`)."""
        return self._state.cursor.awaiting is Awaiting.CARD

    @property
    def offers(self) -> tuple[Offer, ...]:
        """The offers waiting for an answer."""
        return tuple(self._state.offers)

    @property
    def current_turn(self) -> tuple[int, int] | None:
        """The ``(box, hand)`` whose seated player must decide, or ``None``."""
        current = self._state.current()
        return None if current is None else (current[0].number, current[1].number)

    @property
    def current_hand(self) -> HandView | None:
        """The hand whose seated player must decide, or ``None``."""
        current = self._state.current()
        return None if current is None else current[1].view()

    @property
    def boxes(self) -> tuple[BoxView, ...]:
        """The boxes in play, from the dealer's left."""
        return tuple(
            BoxView(box.number, box.seated, tuple(hand.view() for hand in box.hands))
            for box in self._state.boxes
        )

    @property
    def house_net(self) -> Decimal:
        """What the house won on the round so far (the players' net, negated)."""
        return house_net(self._state)

    def net_by_player(self) -> dict[str, Decimal]:
        """Each player's net on the round so far."""
        state = self._state
        nets: dict[str, Decimal] = {}
        for placed in state.bets:
            nets.setdefault(placed.player, ZERO)
        for result in state.results:
            nets[result.player] = nets.get(result.player, ZERO) + result.net
        unit = state.rules.currency_unit
        return {player: net.quantize(unit) for player, net in nets.items()}

    @property
    def next_card_for(self) -> CardFor | None:
        """Where the card the round waits for goes (a dealer enters it); ``None`` when
        it waits for no card.

        >>> from croupier.presets import find_rules
        >>> game = Round(find_rules("rws-v5"), DealerEntry())
        >>> _ = game.place_bet("ann", 2, "25"); _ = game.close_bets()
        >>> str(game.next_card_for)
        'box 2'
        >>> _ = game.deal_card("10S"); str(game.next_card_for)
        'the dealer'
        """
        return next_card(self._state)

    def boxes_short_of_minimum(self) -> dict[int, Decimal]:
        """While bets are open: the boxes whose initial bets fall short of the table
        minimum, with their totals (RWS v5 5.2: the minimum must be met before the deal).

        >>> from croupier.presets import find_rules
        >>> game = Round(find_rules("rws-v5"), DealerEntry())
        >>> _ = game.place_bet("ann", 1, "10"); _ = game.place_bet("bob", 2, "25")
        >>> game.boxes_short_of_minimum()
        {1: Decimal('10.00')}
        """
        return betting.short_of_minimum(self._state)

    @property
    def placed_bets(self) -> tuple[PlacedBet, ...]:
        """Every bet placed so far this round, in order (withdrawn ones gone)."""
        return tuple(self._state.bets)

    def staked_by_player(self, of: Collection[str] | None = None) -> dict[str, Decimal]:
        """The money each player has put on the table this round, every bet counted
        (``of``: these players' alone; one with nothing on the table is left out).

        Initial bets, side bets, insurance, doubles and the bets of split hands, as
        placed (a withdrawn bet no longer counts); what settlement later returns is in
        :attr:`results`.  A wallet takes this much from each player.

        >>> from croupier.presets import find_rules
        >>> from croupier.shoe import FixedOrder
        >>> game = Round(find_rules("rws-v5"), FixedOrder([]))
        >>> _ = game.place_bet("ann", 1, Decimal("25"))
        >>> _ = game.place_bet("bob", 1, Decimal("10"))
        >>> game.staked_by_player(), game.staked_by_player(of={"bob", "cy"})
        ({'ann': Decimal('25.00'), 'bob': Decimal('10.00')}, {'bob': Decimal('10.00')})
        """
        state = self._state
        staked: dict[str, Decimal] = {}
        if of is not None and not state.boxes:
            return self._bets_of(of)
        # Summed inline, not through a helper: a server asks after every input, and a
        # crowd betting behind one box makes this a loop over a thousand bets.
        if not state.boxes:
            for placed in state.bets:
                player = placed.player
                staked[player] = staked.get(player, ZERO) + placed.amount
            return staked
        for box in state.boxes:
            for placed in (*box.side_bets, *box.returned_side_bets):
                player = placed.player
                staked[player] = staked.get(player, ZERO) + placed.amount
            for insured in (box.insurance, box.returned_insurance):
                for player, amount in insured.items():
                    staked[player] = staked.get(player, ZERO) + amount
            for hand in box.hands:
                for wager in hand.wagers:
                    player = wager.player
                    staked[player] = staked.get(player, ZERO) + wager.stake
        if of is not None:
            return {player: amount for player, amount in staked.items() if player in of}
        return staked

    def _bets_of(self, players: Collection[str]) -> dict[str, Decimal]:
        """Before the deal: the money ``players`` have on the table."""
        bets = self._state.bets
        staked: dict[str, Decimal] = {}
        for player in players:
            mine = bets.of(player)
            if mine:
                staked[player] = sum((placed.amount for placed in mine), ZERO)
        return staked

    def bets_of(self, player: str) -> tuple[PlacedBet, ...]:
        """``player``'s bets on the layout while bets are open, in the order placed.

        >>> from croupier.presets import find_rules
        >>> from croupier.shoe import FixedOrder
        >>> game = Round(find_rules("rws-v5"), FixedOrder([]))
        >>> _ = game.place_bet("ann", 1, "25"); _ = game.place_bet("bob", 1, "10")
        >>> [(placed.box, placed.amount) for placed in game.bets_of("bob")]
        [(1, Decimal('10.00'))]
        """
        return self._state.bets.of(player)

    @property
    def has_bets(self) -> bool:
        """Whether any bet is on the layout (placed, not withdrawn).

        >>> from croupier.presets import find_rules
        >>> from croupier.shoe import FixedOrder
        >>> game = Round(find_rules("rws-v5"), FixedOrder([]))
        >>> game.has_bets, game.place_bet("ann", 1, "25") is not None, game.has_bets
        (False, True, True)
        >>> _ = game.withdraw_bet("ann", 1); game.has_bets
        False
        """
        return bool(self._state.bets)

    def seated_player(self, box: int) -> str | None:
        """The player who decides for a box."""
        state = self._state
        placed = state.box(box)
        if placed is not None:
            return placed.seated
        return state.seated.get(box)

    # -- bets ----------------------------------------------------------------------------------

    def can_place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> bool:
        """Whether :meth:`place_bet` would accept this bet."""
        try:
            betting.verify_place_bet(self._state, player, box, amount, bet)
        except CroupierError:
            return False
        return True

    def verify_place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> Decimal:
        """Check a bet; returns its exact amount or raises :class:`BetError`."""
        return betting.verify_place_bet(self._state, player, box, amount, bet)

    def place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> BetPlaced:
        """Place (or add to) a bet while bets are open.

        The first player with an initial bet on a box is its seated player; later
        ones bet behind him (RWS v5 1.26, 1.31).  A side bet is ``bet="player_pair"``
        and so on.
        """
        state = self._state
        # What the PlaceBet handler does, with the bet checked once: the check reads
        # the amount too, so a text amount needs no check of its own first.
        value = betting.verify_place_bet(state, player, box, amount, bet)
        betting.place_bet(state, player, box, value, bet)
        event = state.events[-1]
        assert isinstance(event, BetPlaced)
        return event

    def withdraw_bet(self, player: str, box: int, bet: str = MAIN) -> BetWithdrawn:
        """Take a bet back while bets are open."""
        event = self._first(Withdraw(player, box, bet))
        assert isinstance(event, BetWithdrawn)
        return event

    def verify_close_bets(self) -> None:
        """Check that bets can close: some initial bet, every box at its minimum (RWS v5 5.2)."""
        betting.verify_close_bets(self._state)

    def close_bets(self) -> BetsClosed:
        """ "No more bets": returns excess and unsupported bets, then deals."""
        event = self._first(CloseBets())
        assert isinstance(event, BetsClosed)
        return event

    # -- offers --------------------------------------------------------------------------------

    def can_take_insurance(self, player: str, box: int, amount: object = None) -> bool:
        """Whether ``player`` may insure his bet on ``box`` (for ``amount``)."""
        try:
            offers.verify_insurance(self._state, player, box, amount)
        except CroupierError:
            return False
        return True

    def verify_take_insurance(self, player: str, box: int, amount: object = None) -> Decimal:
        """Check an insurance bet; returns its amount (default: the most allowed)."""
        return offers.verify_insurance(self._state, player, box, amount)[1]

    def take_insurance(self, player: str, box: int, amount: object = None) -> Event:
        """Insure a bet against a dealer blackjack (pays 2 to 1)."""
        value = offers.verify_insurance(self._state, player, box, amount)[1]
        return self._first(TakeInsurance(player, box, value))

    def can_take_even_money(self, player: str, box: int) -> bool:
        """Whether ``player`` may take even money on ``box``."""
        return self.can(TakeEvenMoney(player, box))

    def verify_take_even_money(self, player: str, box: int) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` may take even money on ``box``."""
        self.verify(TakeEvenMoney(player, box))

    def take_even_money(self, player: str, box: int) -> Event:
        """Settle a blackjack against a dealer Ace at 1 to 1 now (RWS v5 3.14.1)."""
        return self._first(TakeEvenMoney(player, box))

    def can_follow(self, player: str, box: int) -> bool:
        """Whether a standing player has a split or double to follow on ``box``."""
        return self.can(Follow(player, box))

    def verify_follow(self, player: str, box: int) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` has a split or double to follow."""
        self.verify(Follow(player, box))

    def follow(self, player: str, box: int) -> Event:
        """Follow the seated player's split or double (RWS v5 3.21.1, 3.22.1)."""
        return self._first(Follow(player, box))

    def can_decline(self, player: str, box: int, kind: OfferKind | None = None) -> bool:
        """Whether ``player`` has an open offer on ``box`` (of ``kind``) to decline."""
        return self.can(Decline(player, box, kind))

    def verify_decline(self, player: str, box: int, kind: OfferKind | None = None) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` has such an offer to decline."""
        self.verify(Decline(player, box, kind))

    def decline(self, player: str, box: int, kind: OfferKind | None = None) -> Event:
        """Decline an open offer (the first one of ``player`` on ``box`` when no kind is given)."""
        return self._first(Decline(player, box, kind))

    # -- decisions -----------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the hand whose turn it is may take; empty when none waits."""
        cursor = self._state.cursor
        return cursor.legal if cursor.awaiting is _DECISION else ()

    def can_hit(self) -> bool:
        """Whether the hand whose turn it is may draw."""
        return Action.HIT in self.legal_actions()

    def can_stand(self) -> bool:
        """Whether the hand whose turn it is may stand."""
        return Action.STAND in self.legal_actions()

    def can_double(self, amount: object = None) -> bool:
        """Whether the hand whose turn it is may double (for ``amount``)."""
        try:
            self.verify_double(amount)
        except CroupierError:
            return False
        return True

    def can_split(self) -> bool:
        """Whether the hand whose turn it is may split."""
        return Action.SPLIT in self.legal_actions()

    def can_surrender(self) -> bool:
        """Whether the hand whose turn it is (or an open surrender offer) may surrender."""
        return self.can(Surrender())

    def verify_hit(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may draw."""
        decisions.verify(self._state, Action.HIT, player)

    def verify_stand(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may stand."""
        decisions.verify(self._state, Action.STAND, player)

    def verify_double(self, amount: object = None, player: str | None = None) -> Decimal | None:
        """Check a double; returns its exact amount (``None``: the full initial bet)."""
        value = _double_amount(self._state, amount)
        decisions.verify(self._state, Action.DOUBLE, player, value)
        return value

    def verify_split(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may split."""
        decisions.verify(self._state, Action.SPLIT, player)

    def verify_surrender(self, box: int | None = None, player: str | None = None) -> None:
        """Check a surrender: of the current hand, or of a box's open RWS surrender offer."""
        self.verify(Surrender(player, box))

    def hit(self, player: str | None = None) -> Event:
        """Draw a card to the current hand."""
        return self._first(Hit(player))

    def stand(self, player: str | None = None) -> Event:
        """Stand on the current hand."""
        return self._first(Stand(player))

    def double_down(self, amount: object = None, player: str | None = None) -> Event:
        """Double the current hand (for less where the rules allow) and take one card."""
        return self._first(DoubleDown(player, _double_amount(self._state, amount)))

    def split(self, player: str | None = None) -> Event:
        """Split the current pair into two hands."""
        return self._first(Split(player))

    def surrender(self, box: int | None = None, player: str | None = None) -> Event:
        """Surrender the current hand, or accept a box's RWS surrender offer."""
        return self._first(Surrender(player, box))

    # -- the dealer and irregularities ---------------------------------------------------------

    def deal_card(self, card: object) -> Event:
        """Enter the next card from a physical shoe (the round must be waiting for one)."""
        return self._first(DealCard(card if isinstance(card, str) else str(card)))

    def settle(self) -> Event:
        """Settle the round where settlement is not automatic (the dealer's word)."""
        return self._first(Settle())

    def void(self, reason: str) -> RoundVoided:
        """Void the round: every bet of the round is returned (RWS v5 5.17).

        For a dealing error that cannot be reconstructed, a card found outside the
        set, cards not shuffled, or "mistakes between hands" (live).
        """
        event = self._first(Void(reason))
        assert isinstance(event, RoundVoided)
        return event

    def interrupt(self) -> Event:
        """A technical interruption: void unless an outcome is established (RWS v5 5.4),
        or void every play and pay where the table's rules say so."""
        return self._first(Interrupt())

    def time_out(self) -> Event:
        """The decision time ran out: the hand draws to 12 or more, then stands (RWS v5 5.3).

        Open offers time out as declined.
        """
        return self._first(TimeOut())

    def verify_return_bets(self, player: str, box: int) -> None:
        """Check that ``player`` may take his bets on ``box`` back after a dealing error."""
        irregularities.verify_return_bets(self._state, player, box)

    def return_bets(self, player: str, box: int) -> Event:
        """After a dealing error, a player may have his bet returned and his hand invalidated.

        RWS v5 5.7.3: his open bets on the box (initial, split and double bets,
        insurance and side bets not yet settled) come back; bets already settled stand.
        Where others bet on the box, its decisions pass to the one with the highest
        bet (1.26).
        """
        return self._first(ReturnBets(player, box))

    def walk_away(self, player: str) -> Event:
        """A player leaves with bets in play (RWS v5 5.3).

        Where others bet on his box, its decisions pass to the one with the highest
        bet (RWS v5 1.26); alone, his hands draw to 12 or more and stand.
        """
        return self._first(WalkAway(player))

    def __repr__(self) -> str:
        state = self._state
        return (
            f"Round(rules={state.rules.name!r}, phase={state.phase.value}, "
            f"awaiting={state.cursor.awaiting.value}, events={len(state.events)})"
        )


def _double_amount(state: RoundState, amount: object) -> Decimal | None:
    if amount is None:
        return None
    return parse_amount(amount, state.rules.currency_unit, what="double")


# -- the handlers: each checks its command and, when ``act``, carries it out ---------------------


@_handles(PlaceBet)
def _place_bet(game: Round, command: PlaceBet, act: bool) -> None:
    state = game._state
    value = betting.verify_place_bet(
        state, command.player, command.box, command.amount, command.bet
    )
    if act:
        betting.place_bet(state, command.player, command.box, value, command.bet)


@_handles(Withdraw)
def _withdraw(game: Round, command: Withdraw, act: bool) -> None:
    state = game._state
    placed = betting.verify_withdraw(state, command.player, command.box, command.bet)
    if act:
        betting.withdraw(state, placed)


@_handles(CloseBets)
def _close_bets(game: Round, command: CloseBets, act: bool) -> None:
    state = game._state
    betting.verify_close_bets(state)
    if act:
        betting.close_bets(state)
        run(state)


def _decision(action: Action) -> _Handler:
    def handler(game: Round, command: Hit | Stand | Split, act: bool) -> None:
        state = game._state
        box, hand = decisions.verify(state, action, command.player)
        if act:
            decisions.decide(state, box, hand, action)
            run(state)

    return handler


_HANDLERS[Hit] = _decision(Action.HIT)
_HANDLERS[Stand] = _decision(Action.STAND)
_HANDLERS[Split] = _decision(Action.SPLIT)


@_handles(DoubleDown)
def _double_down(game: Round, command: DoubleDown, act: bool) -> None:
    state = game._state
    amount = _double_amount(state, command.amount)
    box, hand = decisions.verify(state, Action.DOUBLE, command.player, amount)
    if act:
        decisions.decide(state, box, hand, Action.DOUBLE, amount)
        run(state)


@_handles(Surrender)
def _surrender(game: Round, command: Surrender, act: bool) -> None:
    state = game._state
    if state.phase is Phase.OFFERS and state.rules.surrender is SurrenderRule.RWS:
        offer = offers.find(state, command.player, command.box, (OfferKind.SURRENDER,))
        if offer is None:
            who = f" to {command.player}" if command.player is not None else ""
            where = f" on box {command.box}" if command.box is not None else ""
            raise IllegalActionError(
                f"cannot take surrender: no surrender offer is open{who}{where} "
                f"(phase={state.phase.value})"
            )
        if act:
            offers.answer(state, offer, accept=True)
            run(state)
        return
    box, hand = decisions.verify(state, Action.SURRENDER, command.player)
    if act:
        decisions.decide(state, box, hand, Action.SURRENDER)
        run(state)


@_handles(TakeInsurance)
def _take_insurance(game: Round, command: TakeInsurance, act: bool) -> None:
    state = game._state
    offer, value = offers.verify_insurance(state, command.player, command.box, command.amount)
    if act:
        offers.answer(state, offer, accept=True, amount=value)
        run(state)


@_handles(TakeEvenMoney)
def _take_even_money(game: Round, command: TakeEvenMoney, act: bool) -> None:
    state = game._state
    offer = offers.require(
        state, "take even money", command.player, command.box, (OfferKind.EVEN_MONEY,)
    )
    if act:
        offers.answer(state, offer, accept=True)
        run(state)


@_handles(Follow)
def _follow(game: Round, command: Follow, act: bool) -> None:
    state = game._state
    offer = offers.require(state, "follow", command.player, command.box, offers.FOLLOWS)
    if act:
        offers.answer(state, offer, accept=True)
        run(state)


@_handles(Decline)
def _decline(game: Round, command: Decline, act: bool) -> None:
    state = game._state
    kinds = tuple(OfferKind) if command.kind is None else (command.kind,)
    offer = offers.require(state, "decline", command.player, command.box, kinds)
    if act:
        offers.answer(state, offer, accept=False)
        run(state)


@_handles(TimeOut)
def _time_out(game: Round, command: TimeOut, act: bool) -> None:
    state = game._state
    if state.cursor.awaiting is not Awaiting.ANSWERS:
        decisions.require_turn(state, "time out", None)
    if act:
        irregularities.time_out(state)
        run(state)


@_handles(WalkAway)
def _walk_away(game: Round, command: WalkAway, act: bool) -> None:
    state = game._state
    irregularities.verify_walk_away(state, command.who)
    if act:
        irregularities.walk_away(state, command.who)
        run(state)


@_handles(ReturnBets)
def _return_bets(game: Round, command: ReturnBets, act: bool) -> None:
    state = game._state
    placed = irregularities.verify_return_bets(state, command.who, command.box)
    if act:
        irregularities.return_bets(state, command.who, placed)
        run(state)


@_handles(DealCard)
def _deal_card(game: Round, command: DealCard, act: bool) -> None:
    state = game._state
    if state.cursor.awaiting is not Awaiting.CARD:
        if state.source is not None and not isinstance(state.source, DealerEntry) and state.deals:
            raise IllegalActionError("cannot deal a card by hand: this round deals from its shoe")
        raise IllegalActionError(
            f"cannot deal a card: the round is not waiting for one (phase={state.phase.value})"
        )
    card: DrawnCard = parse_drawn_card(command.card)
    if act:
        state.entered = card
        run(state)


@_handles(Void)
def _void(game: Round, command: Void, act: bool) -> None:
    state = game._state
    irregularities.verify_not_over(state, "void")
    if not isinstance(command.reason, str) or not command.reason.strip():
        raise IllegalActionError("cannot void: give the reason the round is void")
    if act:
        irregularities.void(state, command.reason)


@_handles(Interrupt)
def _interrupt(game: Round, command: Interrupt, act: bool) -> None:
    state = game._state
    irregularities.verify_not_over(state, "interrupt")
    if act:
        irregularities.interrupt(state)


@_handles(Settle)
def _settle(game: Round, command: Settle, act: bool) -> None:
    state = game._state
    if state.cursor.awaiting is not Awaiting.SETTLEMENT:
        raise IllegalActionError(
            f"cannot settle: the round is not waiting for settlement (phase={state.phase.value})"
        )
    if act:
        final_settlement(state, has_blackjack(state), dealer_total(state))
        state.cursor.step = Step.OVER
        run(state)
