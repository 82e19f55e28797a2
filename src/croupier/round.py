"""One round of blackjack at a table: a pure, deterministic state machine.

The round follows the rulebooks' sequence: bets open, "No more bets", the initial
deal, interim settlement (side bets, immediate blackjack payments, insurance and
even money, surrender refunds), each box's decisions hand by hand from the
dealer's left, the dealer, and final settlement.  It takes cards from the card
source it is given and decisions from its caller; it reads no clock and draws no
random number.  Every step appends an immutable event to :attr:`Round.events`.

Every decision is a triplet: a query (``can_double()``), a verification that
raises a typed error naming the state (``verify_double()``), and the action
(``double_down()``), which returns its event.  A refused action changes nothing.

>>> from croupier.rules import Rules, HoleCard
>>> from croupier.shoe import FixedOrder
>>> rules = Rules(hole_card=HoleCard.PEEK)
>>> game = Round(rules, FixedOrder("10S 6D 9H 7C 5S"))
>>> _ = game.place_bet("ann", 1, "10")
>>> _ = game.close_bets()
>>> game.phase
<Phase.PLAYER_TURNS: 'player-turns'>
>>> [action.value for action in game.legal_actions()]
['hit', 'stand', 'double']
>>> game.stand().type
'player_stood'
>>> game.phase, [str(card) for card in game.dealer_cards], game.house_net
(<Phase.SETTLED: 'settled'>, ['6D', '7C', '5S'], Decimal('-10.00'))
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import StrEnum
from typing import TypeVar

from croupier.cards import Card, Rank, hand_total
from croupier.errors import BetError, IllegalActionError
from croupier.events import (
    BetPlaced,
    BetResult,
    BetReturned,
    BetsClosed,
    BetSettled,
    BetWithdrawn,
    CardDealt,
    DealerFinished,
    DealerPeeked,
    DoubleFollowed,
    EvenMoneyTaken,
    Event,
    HoleCardRevealed,
    InsuranceTaken,
    OfferDeclined,
    PlayerDoubledDown,
    PlayerHit,
    PlayerSplit,
    PlayerStood,
    PlayerSurrendered,
    PlayerTimedOut,
    PlayerWalkedAway,
    RoundSettled,
    RoundVoided,
    SeatPassed,
    SplitFollowed,
    TechnicalInterruption,
)
from croupier.money import PayoutRounding, parse_amount, payout, quantize
from croupier.rules import (
    DealerBlackjackTakes,
    DoubleOn,
    HoleCard,
    Rules,
    SideBet,
    SplitMatch,
    Surrender,
)
from croupier.shoe import (
    CardSource,
    CompositionCheck,
    DealerEntry,
    ExcessCardFound,
    ForeignCardFound,
    ShoeExhausted,
)
from croupier.sidebets import settle_side_bet

__all__ = ["MAIN", "Action", "BoxView", "HandView", "Offer", "OfferKind", "Phase", "Round"]

#: The key of a box's initial bet in bets and results.
MAIN = "main"
#: The key of an insurance bet in results.
INSURANCE = "insurance"
_ZERO = Decimal(0)


class Phase(StrEnum):
    """Where a round is."""

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
        return sum((amount for _, amount in self.stakes), _ZERO)


@dataclass(frozen=True, slots=True)
class BoxView:
    """A betting box: its seated player and its hands."""

    number: int
    seated: str
    hands: tuple[HandView, ...]


# -- internal state ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Wager:
    player: str
    initial: Decimal
    double: Decimal = _ZERO
    settled: bool = False

    @property
    def stake(self) -> Decimal:
        return self.initial + self.double


@dataclass(slots=True)
class _Hand:
    number: int
    cards: list[Card]
    wagers: list[_Wager]
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    surrendered: bool = False
    finished: bool = False
    decisions: int = 0
    auto_play: bool = False

    @property
    def total(self) -> int:
        return hand_total(self.cards).total

    @property
    def busted(self) -> bool:
        return self.total > 21

    @property
    def is_blackjack(self) -> bool:
        return not self.from_split and len(self.cards) == 2 and self.total == 21

    def wager_of(self, player: str) -> _Wager | None:
        for wager in self.wagers:
            if wager.player == player:
                return wager
        return None


@dataclass(slots=True)
class _PlacedBet:
    player: str
    box: int
    bet: str
    amount: Decimal


@dataclass(slots=True)
class _Box:
    number: int
    seated: str
    initial: dict[str, Decimal]
    side_bets: list[_PlacedBet]
    hands: list[_Hand] = field(default_factory=list)
    insurance: dict[str, Decimal] = field(default_factory=dict)
    insurance_settled: bool = False


@dataclass(frozen=True, slots=True)
class _NeedCard:
    box: int | None
    hand: int | None


@dataclass(frozen=True, slots=True)
class _NeedDecision:
    box: int
    hand: int


@dataclass(frozen=True, slots=True)
class _NeedAnswers:
    pass


@dataclass(frozen=True, slots=True)
class _Decision:
    action: Action
    amount: Decimal | None = None


_E = TypeVar("_E", bound=Event)
_FOLLOWS = (OfferKind.FOLLOW_SPLIT, OfferKind.FOLLOW_DOUBLE)


def _lead_wager(box: _Box, hand: _Hand) -> _Wager:
    """The wager of the player who decides for the box, else the first on the hand."""
    return hand.wager_of(box.seated) or hand.wagers[0]


def _kinds(kind: OfferKind | None) -> tuple[OfferKind, ...]:
    return tuple(OfferKind) if kind is None else (kind,)


_Request = _NeedCard | _NeedDecision | _NeedAnswers
_Flow = Generator[_Request, object, None]


class Round:
    """A round at a table, from "Place your bets" to final settlement or void.

    Args:
        rules: the table's rules.
        source: where the cards come from (see :mod:`croupier.shoe`).
        check: the shoe's composition check; a table keeps one across rounds of a
            shoe. A new one is made when none is given.
    """

    def __init__(
        self, rules: Rules, source: CardSource, *, check: CompositionCheck | None = None
    ) -> None:
        self.rules = rules
        self._source = source
        self._check = check if check is not None else CompositionCheck(rules.decks)
        self._phase = Phase.BETTING
        self._events: list[Event] = []
        self._bets: list[_PlacedBet] = []
        self._seated: dict[int, str] = {}
        self._boxes: list[_Box] = []
        self._results: list[BetResult] = []
        self._dealer_cards: list[Card] = []
        self._hole_card: Card | None = None
        self._hole_revealed = False
        self._peeked = False
        self._offers: list[Offer] = []
        self._pending: _Request | None = None
        self._flow: _Flow | None = None
        self._absent: set[str] = set()
        self._void_reason: str | None = None

    # -- what the round shows -----------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the round is."""
        return self._phase

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, oldest first."""
        return tuple(self._events)

    @property
    def results(self) -> tuple[BetResult, ...]:
        """Every settled bet; after a void, every bet of the round with net zero."""
        return tuple(self._results)

    @property
    def void_reason(self) -> str | None:
        """Why the round was voided, or ``None``."""
        return self._void_reason

    @property
    def dealer_cards(self) -> tuple[Card, ...]:
        """The dealer's cards a player can see (the hole card once it is turned)."""
        return tuple(self._dealer_cards)

    @property
    def hole_card(self) -> Card | None:
        """The dealer's face-down card, hidden information until revealed."""
        return None if self._hole_revealed else self._hole_card

    @property
    def up_card(self) -> Card | None:
        """The dealer's face-up first card."""
        return self._dealer_cards[0] if self._dealer_cards else None

    @property
    def dealer_total(self) -> int:
        """The total of the dealer's visible cards."""
        return hand_total(self._dealer_cards).total

    @property
    def awaiting_card(self) -> bool:
        """The round waits for the dealer to enter the next card (:meth:`deal_card`)."""
        return isinstance(self._pending, _NeedCard)

    @property
    def offers(self) -> tuple[Offer, ...]:
        """The offers waiting for an answer."""
        return tuple(self._offers)

    @property
    def current_turn(self) -> tuple[int, int] | None:
        """The ``(box, hand)`` whose seated player must decide, or ``None``."""
        if isinstance(self._pending, _NeedDecision):
            return (self._pending.box, self._pending.hand)
        return None

    @property
    def boxes(self) -> tuple[BoxView, ...]:
        """The boxes in play, from the dealer's left."""
        return tuple(
            BoxView(box.number, box.seated, tuple(self._hand_view(hand) for hand in box.hands))
            for box in self._boxes
        )

    @property
    def house_net(self) -> Decimal:
        """What the house won on the round so far (the players' net, negated)."""
        unit = self.rules.currency_unit
        return (-sum((result.net for result in self._results), _ZERO)).quantize(unit)

    def net_by_player(self) -> dict[str, Decimal]:
        """Each player's net on the round so far."""
        nets: dict[str, Decimal] = {}
        for bet in self._bets:
            nets.setdefault(bet.player, _ZERO)
        for result in self._results:
            nets[result.player] = nets.get(result.player, _ZERO) + result.net
        unit = self.rules.currency_unit
        return {player: net.quantize(unit) for player, net in nets.items()}

    def seated_player(self, box: int) -> str | None:
        """The player who decides for a box."""
        for placed in self._boxes:
            if placed.number == box:
                return placed.seated
        return self._seated.get(box)

    def _hand_view(self, hand: _Hand) -> HandView:
        total = hand_total(hand.cards)
        return HandView(
            number=hand.number,
            cards=tuple(hand.cards),
            total=total.total,
            is_soft=total.is_soft,
            is_blackjack=hand.is_blackjack,
            stakes=tuple((wager.player, wager.stake) for wager in hand.wagers),
            from_split=hand.from_split,
            doubled=hand.doubled,
            surrendered=hand.surrendered,
            finished=hand.finished,
        )

    # -- bets -----------------------------------------------------------------------------------

    def can_place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> bool:
        """Whether :meth:`place_bet` would accept this bet."""
        try:
            self.verify_place_bet(player, box, amount, bet)
        except (BetError, IllegalActionError):
            return False
        return True

    def verify_place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> Decimal:
        """Check a bet; returns its exact amount or raises :class:`BetError`."""
        if self._phase is not Phase.BETTING:
            raise BetError(
                f"cannot place a bet: no more bets (RWS v5 5.8) (phase={self._phase.value})"
            )
        if not isinstance(player, str) or not player.strip():
            raise BetError(f"cannot place a bet: player name {player!r} is empty")
        if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= self.rules.boxes:
            raise BetError(
                f"cannot place a bet: box {box!r} is not on this table (boxes 1-{self.rules.boxes})"
            )
        value = parse_amount(amount, self.rules.currency_unit, what=f"{bet} bet")
        offered = {side.value for side in self.rules.side_bets_offered()}
        if bet == MAIN:
            own = self._placed(player, box, MAIN) + value
            if own > self.rules.maximum_bet:
                raise BetError(
                    f"cannot place a bet: {player}'s bet of {own} on box {box} is over the "
                    f"table maximum {self.rules.maximum_bet}"
                )
            return value
        if bet not in offered:
            names = ", ".join(sorted(offered)) or "none"
            raise BetError(
                f"cannot place a bet: side bet {bet!r} is not offered at {self.rules.name} "
                f"(offered: {names})"
            )
        own = self._placed(player, box, bet) + value
        if self.rules.side_bet_maximum is not None and own > self.rules.side_bet_maximum:
            raise BetError(
                f"cannot place a bet: {bet} bet of {own} is over the side bet maximum "
                f"{self.rules.side_bet_maximum}"
            )
        if bet in (SideBet.UNDER_13, SideBet.OVER_13):
            initial = self._box_total(box)
            if initial and own > initial:
                raise BetError(
                    f"cannot place a bet: {bet} bet of {own} is over box {box}'s initial bet "
                    f"{initial} (RWS v5 3.13.2)"
                )
        return value

    def place_bet(self, player: str, box: int, amount: object, bet: str = MAIN) -> BetPlaced:
        """Place (or add to) a bet while bets are open.

        The first player with an initial bet on a box is its seated player; later
        ones bet behind him (RWS v5 1.26, 1.31).  A side bet is ``bet="player_pair"``
        and so on.
        """
        value = self.verify_place_bet(player, box, amount, bet)
        seated = False
        if bet == MAIN and box not in self._seated:
            self._seated[box] = player
            seated = True
        for placed in self._bets:
            if (placed.player, placed.box, placed.bet) == (player, box, bet):
                placed.amount += value
                break
        else:
            self._bets.append(_PlacedBet(player, box, bet, value))
        return self._emit(BetPlaced(player=player, box=box, bet=bet, amount=value, seated=seated))

    def withdraw_bet(self, player: str, box: int, bet: str = MAIN) -> BetWithdrawn:
        """Take a bet back while bets are open."""
        if self._phase is not Phase.BETTING:
            raise BetError(
                f"cannot withdraw a bet: no more bets (RWS v5 5.8) (phase={self._phase.value})"
            )
        for placed in self._bets:
            if (placed.player, placed.box, placed.bet) == (player, box, bet):
                break
        else:
            raise BetError(f"cannot withdraw a bet: {player} has no {bet} bet on box {box}")
        self._bets.remove(placed)
        if bet == MAIN and self._seated.get(box) == player:
            del self._seated[box]
            behind = [b for b in self._bets if b.box == box and b.bet == MAIN]
            if behind:
                self._seated[box] = behind[0].player
        return self._emit(BetWithdrawn(player=player, box=box, bet=bet, amount=placed.amount))

    def _placed(self, player: str, box: int, bet: str) -> Decimal:
        return sum(
            (b.amount for b in self._bets if (b.player, b.box, b.bet) == (player, box, bet)),
            _ZERO,
        )

    def _box_total(self, box: int) -> Decimal:
        return sum((b.amount for b in self._bets if b.box == box and b.bet == MAIN), _ZERO)

    def verify_close_bets(self) -> None:
        """Check that bets can close: some initial bet, every box at its minimum (RWS v5 5.2)."""
        if self._phase is not Phase.BETTING:
            raise IllegalActionError(f"cannot close bets: they are closed (phase={self._phase})")
        if not any(b.bet == MAIN for b in self._bets):
            raise BetError("cannot close bets: no initial bet has been placed")
        for box in sorted(self._seated):
            total = self._box_total(box)
            if total < self.rules.minimum_bet:
                raise BetError(
                    f"cannot close bets: box {box} carries {total}, under the table minimum "
                    f"{self.rules.minimum_bet}; raise or withdraw it (RWS v5 5.2)"
                )

    def close_bets(self) -> BetsClosed:
        """ "No more bets": returns excess and unsupported bets, then deals."""
        self.verify_close_bets()
        closed = self._emit(BetsClosed())
        self._phase = Phase.DEALING
        for number in sorted(self._seated):
            self._boxes.append(self._close_box(number))
        self._flow = self._play()
        self._advance(None)
        return closed

    def _close_box(self, number: int) -> _Box:
        seated = self._seated[number]
        mains = [b for b in self._bets if b.box == number and b.bet == MAIN]
        mains.sort(key=lambda b: b.player != seated)  # seated first, then in betting order
        room = self.rules.maximum_bet
        initial: dict[str, Decimal] = {}
        for bet in mains:
            kept = min(bet.amount, room)
            room -= kept
            if kept < bet.amount:
                self._return(
                    bet.player,
                    number,
                    None,
                    MAIN,
                    bet.amount - kept,
                    "over the box maximum (RWS v5 5.1)",
                )
            if kept > 0:
                initial[bet.player] = kept
        box_initial = sum(initial.values(), _ZERO)
        side_bets: list[_PlacedBet] = []
        for bet in self._bets:
            if bet.box != number or bet.bet == MAIN:
                continue
            kept = bet.amount
            if bet.bet in (SideBet.UNDER_13, SideBet.OVER_13):
                kept = min(kept, box_initial)
            if kept < bet.amount:
                self._return(
                    bet.player,
                    number,
                    None,
                    bet.bet,
                    bet.amount - kept,
                    "over the box's initial bet (RWS v5 3.13.2)",
                )
            side_bets.append(_PlacedBet(bet.player, number, bet.bet, kept))
        wagers = [_Wager(player, amount) for player, amount in initial.items()]
        box = _Box(number, seated, initial, side_bets)
        box.hands.append(_Hand(1, [], wagers))
        return box

    def _return_orphan_side_bets(self) -> None:
        boxes = {box.number for box in self._boxes}
        for bet in self._bets:
            if bet.bet != MAIN and bet.box not in boxes:
                self._return(
                    bet.player,
                    bet.box,
                    None,
                    bet.bet,
                    bet.amount,
                    "no initial bet on the box (RWS v5 5.15)",
                )
        if not self.rules.side_bet_needs_own_initial_bet:
            return
        for box in self._boxes:
            for bet in list(box.side_bets):
                if bet.player not in box.initial:
                    box.side_bets.remove(bet)
                    self._return(
                        bet.player,
                        bet.box,
                        None,
                        bet.bet,
                        bet.amount,
                        f"{bet.player} has no initial bet of his own on the box "
                        f"at {self.rules.name}",
                    )

    # -- the flow ---------------------------------------------------------------------------------

    def _play(self) -> _Flow:
        self._return_orphan_side_bets()
        yield from self._initial_deal()
        self._phase = Phase.OFFERS
        finished = yield from self._interim_settlement()
        if finished:
            return
        self._phase = Phase.PLAYER_TURNS
        for box in self._boxes:
            index = 0
            while index < len(box.hands):
                hand = box.hands[index]
                if len(hand.cards) == 1:
                    yield from self._deal(box, hand)
                yield from self._play_hand(box, hand)
                index += 1
        self._phase = Phase.DEALER_TURN
        yield from self._dealer_turn()
        self._final_settlement()

    def _draw(self, box: int | None, hand: int | None) -> Generator[_Request, object, Card]:
        card = yield _NeedCard(box, hand)
        assert isinstance(card, Card)
        return card

    def _deal(self, box: _Box, hand: _Hand) -> Generator[_Request, object, None]:
        card = yield from self._draw(box.number, hand.number)
        hand.cards.append(card)
        self._emit(CardDealt(card=str(card), box=box.number, hand=hand.number, face_up=True))

    def _deal_dealer(self, *, face_up: bool) -> Generator[_Request, object, None]:
        card = yield from self._draw(None, None)
        if face_up:
            self._dealer_cards.append(card)
        else:
            self._hole_card = card
        self._emit(CardDealt(card=str(card), box=None, hand=None, face_up=face_up))

    def _initial_deal(self) -> Generator[_Request, object, None]:
        rules = self.rules
        for box in self._boxes:
            yield from self._deal(box, box.hands[0])
        yield from self._deal_dealer(face_up=not rules.hole_card_dealt_first)
        for box in self._boxes:
            yield from self._deal(box, box.hands[0])
        if rules.hole_card is not HoleCard.NONE:
            yield from self._deal_dealer(face_up=rules.hole_card_dealt_first)

    def _up_can_make_blackjack(self) -> bool:
        up = self._dealer_cards[0]
        return up.rank is Rank.ACE or up.is_ten_value

    def _dealer_blackjack_possible(self) -> bool:
        """The dealer may still turn out to hold a blackjack."""
        if len(self._dealer_cards) >= 2 or self._peeked:
            return self._dealer_has_blackjack()
        return self._up_can_make_blackjack()

    def _dealer_has_blackjack(self) -> bool:
        cards = self._dealer_cards
        if self._peeked and self._hole_card is not None and not self._hole_revealed:
            cards = [*cards, self._hole_card]
        return len(cards) == 2 and hand_total(cards).total == 21

    def _interim_settlement(self) -> Generator[_Request, object, bool]:
        rules = self.rules
        up = self._dealer_cards[0]
        for box in self._boxes:
            first_two = box.hands[0].cards
            for bet in box.side_bets:
                result = settle_side_bet(SideBet(bet.bet), rules, first_two, up)
                net = (
                    payout(bet.amount, result.pays, rules.currency_unit, rules.payout_rounding)
                    if result.pays is not None
                    else -bet.amount
                )
                self._settle(bet.player, box.number, None, bet.bet, bet.amount, net, result.outcome)
        if rules.blackjack_paid_immediately and not self._up_can_make_blackjack():
            self._pay_blackjacks()
        offers: list[Offer] = []
        for box in self._boxes:
            hand = box.hands[0]
            if up.rank is Rank.ACE and rules.insurance:
                for wager in hand.wagers:
                    half = self._insurance_limit(box.initial[wager.player])
                    if hand.is_blackjack and rules.even_money:
                        offers.append(Offer(OfferKind.EVEN_MONEY, wager.player, box.number, 1))
                    if half > 0 and (not hand.is_blackjack or rules.insurance_with_blackjack):
                        offers.append(Offer(OfferKind.INSURANCE, wager.player, box.number, 1, half))
            if (
                rules.surrender is Surrender.RWS
                and up.rank is not Rank.ACE
                and not hand.is_blackjack
            ):
                offers.append(Offer(OfferKind.SURRENDER, box.seated, box.number, 1))
        yield from self._ask(offers)
        if rules.hole_card is HoleCard.PEEK and self._up_can_make_blackjack():
            self._peeked = True
            blackjack = self._dealer_has_blackjack()
            self._emit(DealerPeeked(blackjack=blackjack))
            if blackjack:
                self._phase = Phase.DEALER_TURN
                self._reveal_hole_card()
                self._finish_dealer()
                self._final_settlement()
                return True
            self._settle_insurance(dealer_blackjack=False)
            self._pay_blackjacks()
        return False

    def _insurance_limit(self, initial: Decimal) -> Decimal:
        # "half or less than half the Initial Bet" (RWS v5 3.14.2): a limit, not a payout,
        # so it is rounded down whatever the table's payout rounding.
        return quantize(initial / 2, self.rules.currency_unit, PayoutRounding.DOWN)

    def _half(self, amount: Decimal) -> Decimal:
        return quantize(amount / 2, self.rules.currency_unit, self.rules.payout_rounding)

    def _pay_blackjacks(self) -> None:
        rules = self.rules
        for box in self._boxes:
            hand = box.hands[0]
            if not hand.is_blackjack:
                continue
            for wager in hand.wagers:
                if not wager.settled:
                    net = payout(
                        wager.stake,
                        rules.blackjack_pays,
                        rules.currency_unit,
                        rules.payout_rounding,
                    )
                    self._settle_wager(box, hand, wager, net, "blackjack")
            hand.finished = True

    def _ask(self, offers: Iterable[Offer]) -> Generator[_Request, object, None]:
        self._offers = list(offers)
        for offer in list(self._offers):
            if offer.player in self._absent:
                self._answer(offer, accept=False)
        while self._offers:
            yield _NeedAnswers()

    def _play_hand(self, box: _Box, hand: _Hand) -> Generator[_Request, object, None]:
        while not hand.finished:
            if all(wager.settled for wager in hand.wagers) or hand.is_blackjack:
                hand.finished = True
                return
            actions = self._legal_actions(box, hand)
            if actions == (Action.STAND,):
                self._stand(box, hand, automatic=True)
                return
            if hand.auto_play or box.seated in self._absent:
                total = hand.total
                choice = Action.HIT if total < 12 and Action.HIT in actions else Action.STAND
                decision = _Decision(choice)
            else:
                answer = yield _NeedDecision(box.number, hand.number)
                assert isinstance(answer, _Decision)
                decision = answer
            hand.decisions += 1
            yield from self._apply(box, hand, decision)

    def _apply(
        self, box: _Box, hand: _Hand, decision: _Decision
    ) -> Generator[_Request, object, None]:
        rules = self.rules
        if decision.action is Action.STAND:
            self._stand(box, hand, automatic=False)
        elif decision.action is Action.HIT:
            self._emit(PlayerHit(box=box.number, hand=hand.number))
            yield from self._deal(box, hand)
            if hand.busted:
                self._bust(box, hand)
        elif decision.action is Action.DOUBLE:
            seated = _lead_wager(box, hand)
            amount = decision.amount if decision.amount is not None else seated.initial
            seated.double = amount
            hand.doubled = True
            self._emit(
                PlayerDoubledDown(
                    player=seated.player, box=box.number, hand=hand.number, amount=amount
                )
            )
            offers = []
            for wager in hand.wagers:
                if wager is seated:
                    continue
                follow = self._follow_amount(wager.initial, amount, seated.initial)
                if follow > 0:
                    offers.append(
                        Offer(
                            OfferKind.FOLLOW_DOUBLE, wager.player, box.number, hand.number, follow
                        )
                    )
            yield from self._ask(offers)
            yield from self._deal(box, hand)
            if hand.busted:
                self._bust(box, hand)
            else:
                self._stand(box, hand, automatic=True)
        elif decision.action is Action.SPLIT:
            seated = _lead_wager(box, hand)
            new = _Hand(
                len(box.hands) + 1,
                [hand.cards.pop()],
                [_Wager(seated.player, seated.initial)],
                from_split=True,
                split_aces=hand.cards[0].rank is Rank.ACE,
            )
            hand.from_split = True
            hand.split_aces = new.split_aces
            box.hands.append(new)
            self._emit(
                PlayerSplit(
                    player=seated.player,
                    box=box.number,
                    hand=hand.number,
                    new_hand=new.number,
                    amount=seated.initial,
                )
            )
            offers = [
                Offer(OfferKind.FOLLOW_SPLIT, wager.player, box.number, new.number, wager.initial)
                for wager in hand.wagers
                if wager is not seated
            ]
            yield from self._ask(offers)
            yield from self._deal(box, hand)
        elif decision.action is Action.SURRENDER:
            hand.surrendered = True
            hand.finished = True
            self._emit(PlayerSurrendered(box=box.number, hand=hand.number))
            held = rules.surrender is Surrender.CASINO_TO_GO and self._dealer_blackjack_possible()
            if not held:
                for wager in hand.wagers:
                    self._settle_wager(box, hand, wager, -self._half_loss(wager.stake), "surrender")

    def _half_loss(self, stake: Decimal) -> Decimal:
        return stake - self._half(stake)

    def _follow_amount(self, own: Decimal, double: Decimal, seated: Decimal) -> Decimal:
        exact = own * double / seated
        return quantize(exact, self.rules.currency_unit, self.rules.payout_rounding)

    def _stand(self, box: _Box, hand: _Hand, *, automatic: bool) -> None:
        hand.finished = True
        self._emit(
            PlayerStood(box=box.number, hand=hand.number, total=hand.total, automatic=automatic)
        )

    def _bust(self, box: _Box, hand: _Hand) -> None:
        hand.finished = True
        held = (
            self.rules.dealer_blackjack_takes is DealerBlackjackTakes.ORIGINAL_BET
            and self._dealer_blackjack_possible()
        )
        if not held:
            for wager in hand.wagers:
                self._settle_wager(box, hand, wager, -wager.stake, "bust")

    def _live_hands(self) -> bool:
        return any(
            not wager.settled and not hand.busted and not hand.surrendered and not hand.is_blackjack
            for box in self._boxes
            for hand in box.hands
            for wager in hand.wagers
        )

    def _anything_open(self) -> bool:
        return any(
            not wager.settled for box in self._boxes for hand in box.hands for wager in hand.wagers
        ) or any(box.insurance and not box.insurance_settled for box in self._boxes)

    def _reveal_hole_card(self) -> None:
        if self._hole_card is not None and not self._hole_revealed:
            self._hole_revealed = True
            if self.rules.hole_card_dealt_first:
                self._dealer_cards.insert(1, self._hole_card)
            else:
                self._dealer_cards.append(self._hole_card)
            self._emit(HoleCardRevealed(card=str(self._hole_card)))

    def _dealer_turn(self) -> Generator[_Request, object, None]:
        rules = self.rules
        live = self._live_hands()
        if rules.hole_card is HoleCard.NONE:
            if self._anything_open():
                yield from self._deal_dealer(face_up=True)
        else:
            self._reveal_hole_card()
        if live and not self._dealer_has_blackjack():
            while True:
                total = hand_total(self._dealer_cards)
                if total.total < 17 or (
                    total.total == 17 and total.is_soft and rules.dealer_hits_soft_17
                ):
                    yield from self._deal_dealer(face_up=True)
                else:
                    break
        self._finish_dealer()

    def _finish_dealer(self) -> None:
        total = self.dealer_total
        self._emit(
            DealerFinished(
                cards=tuple(str(card) for card in self._dealer_cards),
                total=total,
                blackjack=self._dealer_has_blackjack(),
                busted=total > 21,
            )
        )

    def _settle_insurance(self, *, dealer_blackjack: bool) -> None:
        rules = self.rules
        for box in self._boxes:
            if box.insurance_settled:
                continue
            box.insurance_settled = True
            for player, amount in box.insurance.items():
                if dealer_blackjack:
                    net = payout(
                        amount, rules.insurance_pays, rules.currency_unit, rules.payout_rounding
                    )
                    self._settle(
                        player, box.number, None, INSURANCE, amount, net, "dealer-blackjack"
                    )
                else:
                    self._settle(player, box.number, None, INSURANCE, amount, -amount, "lost")

    def _final_settlement(self) -> None:
        rules = self.rules
        dealer_blackjack = self._dealer_has_blackjack()
        dealer_total = self.dealer_total
        self._settle_insurance(dealer_blackjack=dealer_blackjack)
        for box in self._boxes:
            if dealer_blackjack:
                self._settle_against_dealer_blackjack(box)
                continue
            for hand in box.hands:
                for wager in hand.wagers:
                    if wager.settled:
                        continue
                    if hand.surrendered:
                        net, outcome = -self._half_loss(wager.stake), "surrender"
                    elif hand.busted:
                        net, outcome = -wager.stake, "bust"
                    elif hand.is_blackjack:
                        net = payout(
                            wager.stake,
                            rules.blackjack_pays,
                            rules.currency_unit,
                            rules.payout_rounding,
                        )
                        outcome = "blackjack"
                    elif dealer_total > 21 or hand.total > dealer_total:
                        net = payout(
                            wager.stake, rules.win_pays, rules.currency_unit, rules.payout_rounding
                        )
                        outcome = "win"
                    elif hand.total == dealer_total:
                        net, outcome = _ZERO, "stand-off"
                    else:
                        net, outcome = -wager.stake, "lose"
                    self._settle_wager(box, hand, wager, net, outcome)
        self._phase = Phase.SETTLED
        self._emit(RoundSettled(house_net=self.house_net))

    def _settle_against_dealer_blackjack(self, box: _Box) -> None:
        takes = self.rules.dealer_blackjack_takes
        for player, initial in box.initial.items():
            cap = initial
            for hand in box.hands:
                wager = hand.wager_of(player)
                if wager is None or wager.settled:
                    continue
                if hand.is_blackjack:
                    self._settle_wager(box, hand, wager, _ZERO, "stand-off")
                elif hand.surrendered or takes is DealerBlackjackTakes.ALL:
                    self._settle_wager(box, hand, wager, -wager.stake, "dealer-blackjack")
                else:
                    loss = min(wager.stake, cap)
                    cap -= loss
                    self._settle_wager(box, hand, wager, -loss, "dealer-blackjack")

    def _settle_wager(
        self, box: _Box, hand: _Hand, wager: _Wager, net: Decimal, outcome: str
    ) -> None:
        wager.settled = True
        self._settle(wager.player, box.number, hand.number, MAIN, wager.stake, net, outcome)

    def _settle(
        self,
        player: str,
        box: int,
        hand: int | None,
        bet: str,
        stake: Decimal,
        net: Decimal,
        outcome: str,
    ) -> None:
        result = BetResult(player, box, hand, bet, stake, net, outcome)
        self._results.append(result)
        self._emit(
            BetSettled(
                player=player, box=box, hand=hand, bet=bet, stake=stake, net=net, outcome=outcome
            )
        )

    # -- driving the flow ---------------------------------------------------------------------

    def _advance(self, value: object) -> None:
        if isinstance(self._pending, _NeedCard):
            # The round waited for the dealer to enter this card: it is taken first.
            value = self._take_card()
            if value is None:
                return
        while self._flow is not None:
            try:
                request = self._flow.send(value)
            except StopIteration:
                self._flow = None
                self._pending = None
                return
            value = None
            if isinstance(request, _NeedCard):
                value = self._take_card()
                if value is None:
                    if self._flow is not None:
                        self._pending = request
                    return
                continue
            self._pending = request
            return

    def _take_card(self) -> Card | None:
        """The next card of the source; ``None`` when it is not entered yet or the round is void."""
        try:
            drawn = self._source.draw()
        except ShoeExhausted as error:
            self._void(str(error))
            return None
        if drawn is None:
            return None
        try:
            return self._check.take(drawn)
        except (ForeignCardFound, ExcessCardFound) as error:
            self._void(str(error))
            return None

    def _return(
        self, player: str, box: int, hand: int | None, bet: str, amount: Decimal, reason: str
    ) -> None:
        self._emit(
            BetReturned(player=player, box=box, hand=hand, bet=bet, amount=amount, reason=reason)
        )

    def _emit(self, event: _E) -> _E:
        self._events.append(event)
        return event

    def _require_turn(self, action: str, player: str | None) -> tuple[_Box, _Hand]:
        pending = self._pending
        if not isinstance(pending, _NeedDecision):
            raise IllegalActionError(
                f"cannot {action}: no hand is waiting for a decision (phase={self._phase.value})"
            )
        box = self._box(pending.box)
        hand = box.hands[pending.hand - 1]
        if player is not None and player != box.seated:
            raise IllegalActionError(
                f"cannot {action}: box {box.number} is decided by its seated player "
                f"{box.seated}, not {player} (RWS v5 3.8)"
            )
        return box, hand

    def _box(self, number: int) -> _Box:
        for box in self._boxes:
            if box.number == number:
                return box
        raise IllegalActionError(f"box {number} has no bet in this round")

    # -- decisions: queries -------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the hand whose turn it is may take; empty when none waits."""
        if not isinstance(self._pending, _NeedDecision):
            return ()
        box = self._box(self._pending.box)
        return self._legal_actions(box, box.hands[self._pending.hand - 1])

    def _legal_actions(self, box: _Box, hand: _Hand) -> tuple[Action, ...]:
        return tuple(action for action in Action if self._refusal(action, box, hand, None) is None)

    def _refusal(
        self, action: Action, box: _Box, hand: _Hand, amount: Decimal | None
    ) -> str | None:
        """Why ``action`` is not allowed on ``hand`` now, or ``None`` when it is."""
        rules = self.rules
        where = f"box {box.number} hand {hand.number}"
        total = hand.total
        two_cards = len(hand.cards) == 2
        if action is Action.HIT:
            if hand.split_aces and not rules.hit_split_aces:
                return f"{where} is a split Ace, which takes one card only"
            if total >= 21:
                return f"{where} totals {total}; no card is drawn to 21 (RWS v5 3.17)"
            return None
        if action is Action.STAND:
            if rules.must_draw_to_12 and total < 12:
                return f"{where} totals {total}; a hand under 12 must draw (RWS v5 3.19)"
            return None
        if action is Action.DOUBLE:
            if not two_cards:
                return f"{where} has {len(hand.cards)} cards; only the first two may double"
            if hand.split_aces:
                return f"{where} is a split Ace, which may not double (RWS v5 1.6)"
            if hand.from_split and not rules.double_after_split:
                return f"{where} is a split hand; no double after a split at {rules.name}"
            if rules.double_on is DoubleOn.NINE_TO_ELEVEN and total not in (9, 10, 11):
                return f"{where} totals {total}; only 9, 10 or 11 may double"
            if total == 21 and not rules.double_on_21:
                return f"{where} is a two-card 21, which may not double (RWS v5 3.22)"
            if amount is not None:
                initial = _lead_wager(box, hand).initial
                if amount > initial:
                    return f"a double of {amount} is more than the initial bet {initial}"
                if amount != initial and not rules.double_for_less:
                    return f"a double must equal the initial bet {initial} at {rules.name}"
            return None
        if action is Action.SPLIT:
            if not two_cards:
                return f"{where} has {len(hand.cards)} cards; only a pair may split"
            first, second = hand.cards
            pair = (
                first.rank is second.rank
                if rules.split_match is SplitMatch.RANK
                else first.points == second.points
            )
            if not pair:
                return f"{where} holds {first} {second}, not a pair that splits at {rules.name}"
            if len(box.hands) >= rules.max_split_hands:
                return f"box {box.number} has {len(box.hands)} hands, the most allowed"
            if hand.split_aces and not rules.resplit_aces:
                return f"{where} is a split Ace; Aces split once (RWS v5 3.21.2)"
            return None
        # surrender
        if rules.surrender not in (Surrender.LATE, Surrender.CASINO_TO_GO):
            return f"no surrender at this point at {rules.name} (surrender={rules.surrender})"
        if hand.from_split or len(box.hands) > 1:
            return f"{where} is a split hand; no surrender after a split"
        if not two_cards or hand.decisions:
            return f"{where}: surrender is the hand's first decision only"
        return None

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
        except (IllegalActionError, BetError):
            return False
        return True

    def can_split(self) -> bool:
        """Whether the hand whose turn it is may split."""
        return Action.SPLIT in self.legal_actions()

    def can_surrender(self) -> bool:
        """Whether the hand whose turn it is (or an open surrender offer) may surrender."""
        try:
            self.verify_surrender()
        except IllegalActionError:
            return False
        return True

    # -- decisions: verifications ---------------------------------------------------------------

    def _verify(self, action: Action, player: str | None, amount: Decimal | None = None) -> None:
        box, hand = self._require_turn(action.value, player)
        reason = self._refusal(action, box, hand, amount)
        if reason is not None:
            raise IllegalActionError(f"cannot {action.value}: {reason} (phase={self._phase.value})")

    def verify_hit(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may draw."""
        self._verify(Action.HIT, player)

    def verify_stand(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may stand."""
        self._verify(Action.STAND, player)

    def verify_double(self, amount: object = None, player: str | None = None) -> Decimal | None:
        """Check a double; returns its exact amount (``None``: the full initial bet)."""
        value = None
        if amount is not None:
            value = parse_amount(amount, self.rules.currency_unit, what="double")
        self._verify(Action.DOUBLE, player, value)
        return value

    def verify_split(self, player: str | None = None) -> None:
        """Raise :class:`IllegalActionError` unless the current hand may split."""
        self._verify(Action.SPLIT, player)

    def verify_surrender(self, box: int | None = None, player: str | None = None) -> None:
        """Check a surrender: of the current hand, or of a box's open RWS surrender offer."""
        if self._phase is Phase.OFFERS and self.rules.surrender is Surrender.RWS:
            self._find_offer(OfferKind.SURRENDER, player, box)
            return
        self._verify(Action.SURRENDER, player)

    # -- decisions: actions ---------------------------------------------------------------------

    def _act(self, decision: _Decision) -> Event:
        start = len(self._events)
        self._advance(decision)
        return self._events[start]

    def hit(self, player: str | None = None) -> Event:
        """Draw a card to the current hand."""
        self.verify_hit(player)
        return self._act(_Decision(Action.HIT))

    def stand(self, player: str | None = None) -> Event:
        """Stand on the current hand."""
        self.verify_stand(player)
        return self._act(_Decision(Action.STAND))

    def double_down(self, amount: object = None, player: str | None = None) -> Event:
        """Double the current hand (for less where the rules allow) and take one card."""
        value = self.verify_double(amount, player)
        return self._act(_Decision(Action.DOUBLE, value))

    def split(self, player: str | None = None) -> Event:
        """Split the current pair into two hands."""
        self.verify_split(player)
        return self._act(_Decision(Action.SPLIT))

    def surrender(self, box: int | None = None, player: str | None = None) -> Event:
        """Surrender the current hand, or accept a box's RWS surrender offer."""
        self.verify_surrender(box, player)
        if self._phase is Phase.OFFERS and self.rules.surrender is Surrender.RWS:
            offer = self._find_offer(OfferKind.SURRENDER, player, box)
            return self._answer(offer, accept=True)
        return self._act(_Decision(Action.SURRENDER))

    # -- offers -----------------------------------------------------------------------------------

    def _find_offer(self, kind: OfferKind, player: str | None, box: int | None) -> Offer:
        for offer in self._offers:
            if (
                offer.kind is kind
                and (player is None or offer.player == player)
                and (box is None or offer.box == box)
            ):
                return offer
        who = f" to {player}" if player is not None else ""
        where = f" on box {box}" if box is not None else ""
        raise IllegalActionError(
            f"cannot take {kind.value}: no {kind.value} offer is open{who}{where} "
            f"(phase={self._phase.value})"
        )

    def can_take_insurance(self, player: str, box: int, amount: object = None) -> bool:
        """Whether ``player`` may insure his bet on ``box`` (for ``amount``)."""
        try:
            self.verify_take_insurance(player, box, amount)
        except (IllegalActionError, BetError):
            return False
        return True

    def verify_take_insurance(self, player: str, box: int, amount: object = None) -> Decimal:
        """Check an insurance bet; returns its amount (default: the most allowed)."""
        offer = self._find_offer(OfferKind.INSURANCE, player, box)
        assert offer.amount is not None
        if amount is None:
            return offer.amount
        value = parse_amount(amount, self.rules.currency_unit, what="insurance")
        if value > offer.amount:
            raise BetError(
                f"cannot take insurance: {value} is more than half the initial bet ({offer.amount})"
            )
        if value != offer.amount and not self.rules.insurance_for_less:
            raise BetError(
                f"cannot take insurance: it is exactly half the initial bet ({offer.amount}) "
                f"at {self.rules.name}"
            )
        return value

    def take_insurance(self, player: str, box: int, amount: object = None) -> Event:
        """Insure a bet against a dealer blackjack (pays 2 to 1)."""
        value = self.verify_take_insurance(player, box, amount)
        offer = self._find_offer(OfferKind.INSURANCE, player, box)
        return self._answer(offer, accept=True, amount=value)

    def can_take_even_money(self, player: str, box: int) -> bool:
        """Whether ``player`` may take even money on ``box``."""
        return self._open_offer(player, box, (OfferKind.EVEN_MONEY,)) is not None

    def verify_take_even_money(self, player: str, box: int) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` may take even money on ``box``."""
        self._require_offer("take even money", player, box, (OfferKind.EVEN_MONEY,))

    def take_even_money(self, player: str, box: int) -> Event:
        """Settle a blackjack against a dealer Ace at 1 to 1 now (RWS v5 3.14.1)."""
        offer = self._require_offer("take even money", player, box, (OfferKind.EVEN_MONEY,))
        return self._answer(offer, accept=True)

    def can_follow(self, player: str, box: int) -> bool:
        """Whether a standing player has a split or double to follow on ``box``."""
        return self._open_offer(player, box, _FOLLOWS) is not None

    def verify_follow(self, player: str, box: int) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` has a split or double to follow."""
        self._require_offer("follow", player, box, _FOLLOWS)

    def follow(self, player: str, box: int) -> Event:
        """Follow the seated player's split or double (RWS v5 3.21.1, 3.22.1)."""
        return self._answer(self._require_offer("follow", player, box, _FOLLOWS), accept=True)

    def can_decline(self, player: str, box: int, kind: OfferKind | None = None) -> bool:
        """Whether ``player`` has an open offer on ``box`` (of ``kind``) to decline."""
        return self._open_offer(player, box, _kinds(kind)) is not None

    def verify_decline(self, player: str, box: int, kind: OfferKind | None = None) -> None:
        """Raise :class:`IllegalActionError` unless ``player`` has such an offer to decline."""
        self._require_offer("decline", player, box, _kinds(kind))

    def decline(self, player: str, box: int, kind: OfferKind | None = None) -> Event:
        """Decline an open offer (the first one of ``player`` on ``box`` when no kind is given)."""
        offer = self._require_offer("decline", player, box, _kinds(kind))
        return self._answer(offer, accept=False)

    def _open_offer(self, player: str, box: int, kinds: tuple[OfferKind, ...]) -> Offer | None:
        for offer in self._offers:
            if offer.player == player and offer.box == box and offer.kind in kinds:
                return offer
        return None

    def _require_offer(
        self, action: str, player: str, box: int, kinds: tuple[OfferKind, ...]
    ) -> Offer:
        offer = self._open_offer(player, box, kinds)
        if offer is None:
            names = " or ".join(kind.value for kind in kinds)
            raise IllegalActionError(
                f"cannot {action}: {player} has no open {names} offer on box {box} "
                f"(phase={self._phase.value})"
            )
        return offer

    def _answer(self, offer: Offer, *, accept: bool, amount: Decimal | None = None) -> Event:
        self._offers.remove(offer)
        box = self._box(offer.box)
        hand = box.hands[offer.hand - 1]
        event: Event
        if not accept:
            event = self._emit(
                OfferDeclined(
                    player=offer.player, box=offer.box, hand=offer.hand, offer=offer.kind.value
                )
            )
        elif offer.kind is OfferKind.INSURANCE:
            assert amount is not None
            box.insurance[offer.player] = amount
            event = self._emit(InsuranceTaken(player=offer.player, box=offer.box, amount=amount))
            self._drop_offers(offer.player, offer.box, OfferKind.EVEN_MONEY)
        elif offer.kind is OfferKind.EVEN_MONEY:
            event = self._emit(EvenMoneyTaken(player=offer.player, box=offer.box))
            wager = hand.wager_of(offer.player)
            assert wager is not None
            self._settle_wager(box, hand, wager, wager.stake, "even-money")
            self._drop_offers(offer.player, offer.box, OfferKind.INSURANCE)
        elif offer.kind is OfferKind.SURRENDER:
            hand.surrendered = True
            hand.finished = True
            event = self._emit(PlayerSurrendered(box=box.number, hand=hand.number))
            for wager in hand.wagers:
                self._settle_wager(box, hand, wager, -self._half_loss(wager.stake), "surrender")
        elif offer.kind is OfferKind.FOLLOW_DOUBLE:
            assert offer.amount is not None
            wager = hand.wager_of(offer.player)
            assert wager is not None
            wager.double = offer.amount
            event = self._emit(
                DoubleFollowed(
                    player=offer.player, box=offer.box, hand=offer.hand, amount=offer.amount
                )
            )
        else:
            assert offer.amount is not None
            hand.wagers.append(_Wager(offer.player, offer.amount))
            event = self._emit(
                SplitFollowed(
                    player=offer.player, box=offer.box, hand=offer.hand, amount=offer.amount
                )
            )
        if not self._offers and isinstance(self._pending, _NeedAnswers):
            self._advance(None)
        return event

    def _drop_offers(self, player: str, box: int, kind: OfferKind) -> None:
        self._offers = [
            o for o in self._offers if not (o.player == player and o.box == box and o.kind is kind)
        ]

    # -- the dealer and irregularities ------------------------------------------------------------

    def deal_card(self, card: object) -> Event:
        """Enter the next card from a physical shoe (the source must be a :class:`DealerEntry`)."""
        if not isinstance(self._source, DealerEntry):
            raise IllegalActionError("cannot deal a card by hand: this round deals from its shoe")
        if not self.awaiting_card:
            raise IllegalActionError(
                f"cannot deal a card: the round is not waiting for one (phase={self._phase.value})"
            )
        self._source.enter(card)  # type: ignore[arg-type]
        start = len(self._events)
        self._advance(None)
        return self._events[start]

    def void(self, reason: str) -> RoundVoided:
        """Void the round: every bet of the round is returned (RWS v5 5.17).

        For a dealing error that cannot be reconstructed, a card found outside the
        set, cards not shuffled, or "mistakes between hands" (live).
        """
        if self._phase in (Phase.SETTLED, Phase.VOID):
            raise IllegalActionError(f"cannot void: the round is over (phase={self._phase.value})")
        return self._void(reason)

    def interrupt(self) -> Event:
        """A technical interruption: void unless an outcome is established (RWS v5 5.4)."""
        if self._phase in (Phase.SETTLED, Phase.VOID):
            raise IllegalActionError(
                f"cannot interrupt: the round is over (phase={self._phase.value})"
            )
        established = any(result.net != 0 for result in self._results)
        event = self._emit(TechnicalInterruption(outcome_established=established))
        if not established:
            self._void("technical interruption before any outcome was established (RWS v5 5.4.2)")
        return event

    def time_out(self) -> Event:
        """The decision time ran out: the hand draws to 12 or more, then stands (RWS v5 5.3).

        Open offers time out as declined.
        """
        if isinstance(self._pending, _NeedAnswers):
            start = len(self._events)
            for offer in list(self._offers):
                self._answer(offer, accept=False)
            return self._events[start]
        box, hand = self._require_turn("time out", None)
        hand.auto_play = True
        event = self._emit(PlayerTimedOut(box=box.number, hand=hand.number))
        self._advance(_Decision(Action.HIT if hand.total < 12 and self.can_hit() else Action.STAND))
        return event

    def verify_return_bets(self, player: str, box: int) -> None:
        """Check that ``player`` may take his bets on ``box`` back after a dealing error."""
        if self._phase not in (Phase.DEALING, Phase.OFFERS, Phase.PLAYER_TURNS):
            raise IllegalActionError(
                "cannot return bets: no dealing error can be answered now "
                f"(phase={self._phase.value})"
            )
        placed = self._box(box)
        if not any(
            wager.player == player and not wager.settled
            for hand in placed.hands
            for wager in hand.wagers
        ):
            raise IllegalActionError(
                f"cannot return bets: {player} has no open bet on box {box} "
                f"(phase={self._phase.value})"
            )
        turn = self.current_turn
        if turn is not None and turn[0] == box:
            raise IllegalActionError(
                f"cannot return bets: box {box} is deciding hand {turn[1]}; answer the dealing "
                f"error before its decisions (phase={self._phase.value})"
            )

    def return_bets(self, player: str, box: int) -> Event:
        """After a dealing error, a player may have his bet returned and his hand invalidated.

        RWS v5 5.7.3: his open bets on the box (initial, split and double bets and
        insurance) come back; bets already settled stand.  Where others bet on the box,
        its decisions pass to the one with the highest bet (1.26).
        """
        self.verify_return_bets(player, box)
        placed = self._box(box)
        start = len(self._events)
        reason = "dealing error: bet returned and hand invalidated (RWS v5 5.7.3)"
        zero = _ZERO.quantize(self.rules.currency_unit)
        for hand in placed.hands:
            wager = hand.wager_of(player)
            if wager is None or wager.settled:
                continue
            wager.settled = True
            self._results.append(
                BetResult(player, box, hand.number, MAIN, wager.stake, zero, "returned")
            )
            self._return(player, box, hand.number, MAIN, wager.stake, reason)
        insurance = None if placed.insurance_settled else placed.insurance.pop(player, None)
        if insurance is not None:
            self._results.append(
                BetResult(player, box, None, INSURANCE, insurance, zero, "returned")
            )
            self._return(player, box, None, INSURANCE, insurance, reason)
        if placed.seated == player:
            others = [
                (amount, name)
                for name, amount in placed.initial.items()
                if name != player and name not in self._absent
            ]
            if others:
                placed.seated = max(others, key=lambda item: item[0])[1]
                self._emit(SeatPassed(box=box, player=placed.seated))
        for offer in list(self._offers):
            if offer.player == player and offer.box == box:
                index = self._offers.index(offer)
                if offer.kind is OfferKind.SURRENDER and placed.seated != player:
                    # A decision of the box passes with the seat (RWS v5 1.26, 3.8).
                    self._offers[index] = replace(offer, player=placed.seated)
                else:
                    del self._offers[index]
        if not self._offers and isinstance(self._pending, _NeedAnswers):
            self._advance(None)
        return self._events[start]

    def walk_away(self, player: str) -> Event:
        """A player leaves with bets in play (RWS v5 5.3).

        Where others bet on his box, its decisions pass to the one with the highest
        bet (RWS v5 1.26); alone, his hands draw to 12 or more and stand.
        """
        if self._phase in (Phase.SETTLED, Phase.VOID, Phase.BETTING):
            raise IllegalActionError(
                f"cannot walk away with bets in play now (phase={self._phase.value})"
            )
        if not any(bet.player == player for bet in self._bets) or player in self._absent:
            raise IllegalActionError(
                f"cannot walk away: {player} has no bet in play at this table "
                f"(phase={self._phase.value})"
            )
        event = self._emit(PlayerWalkedAway(player=player))
        self._absent.add(player)
        for box in self._boxes:
            if box.seated != player:
                continue
            others = [(amount, p) for p, amount in box.initial.items() if p not in self._absent]
            if others:
                highest = max(others, key=lambda item: item[0])[1]
                box.seated = highest
                self._emit(SeatPassed(box=box.number, player=highest))
        for offer in list(self._offers):
            if offer.player != player:
                continue
            seated = self._box(offer.box).seated
            if offer.kind is OfferKind.SURRENDER and seated not in self._absent:
                # A decision of the box passes with the seat (RWS v5 1.26, 3.8).
                self._offers[self._offers.index(offer)] = replace(offer, player=seated)
            else:
                self._answer(offer, accept=False)
        if isinstance(self._pending, _NeedDecision):
            box = self._box(self._pending.box)
            if box.seated in self._absent:
                hand = box.hands[self._pending.hand - 1]
                choice = Action.HIT if hand.total < 12 and self.can_hit() else Action.STAND
                self._advance(_Decision(choice))
        return event

    def _void(self, reason: str) -> RoundVoided:
        if self._flow is not None:
            self._flow.close()
            self._flow = None
        self._pending = None
        self._offers = []
        self._phase = Phase.VOID
        self._void_reason = reason
        event = RoundVoided(reason=reason)
        self._emit(event)
        returned: list[BetResult] = []
        zero = _ZERO.quantize(self.rules.currency_unit)
        if self._boxes:
            for box in self._boxes:
                for bet in box.side_bets:
                    returned.append(
                        BetResult(bet.player, box.number, None, bet.bet, bet.amount, zero, "void")
                    )
                for player, amount in box.insurance.items():
                    returned.append(
                        BetResult(player, box.number, None, INSURANCE, amount, zero, "void")
                    )
                for hand in box.hands:
                    for wager in hand.wagers:
                        returned.append(
                            BetResult(
                                wager.player,
                                box.number,
                                hand.number,
                                MAIN,
                                wager.stake,
                                zero,
                                "void",
                            )
                        )
        else:
            returned = [
                BetResult(bet.player, bet.box, None, bet.bet, bet.amount, zero, "void")
                for bet in self._bets
            ]
        self._results = returned
        for result in returned:
            self._return(result.player, result.box, result.hand, result.bet, result.stake, "void")
        return event
