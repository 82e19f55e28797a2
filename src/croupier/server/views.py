"""What a viewer of a table may see: the table's state and its events, as a watcher,
a player and the dealer see them.

Every view is built from the table's round and settings, never from its record: no
hole card for anyone but the dealer, no shoe, no seed.  A table's views share one
:func:`public_view`; :func:`personal_view` adds what only its viewer may see.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from decimal import Decimal
from typing import Any, Protocol

from croupier.cards import hand_total
from croupier.decisions import legal_actions
from croupier.events import CardDealt, Event
from croupier.presets import Preset
from croupier.round import Phase, Round
from croupier.round_state import ZERO, Box, BoxView, Hand, Offer, OfferKind, PlacedBet
from croupier.rules import Rules


class _Deadline(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def at(self) -> float: ...
    @property
    def who(self) -> str | None: ...


class _Seat(Protocol):
    @property
    def user(self) -> str: ...


class _Seats(Protocol):
    @property
    def reserved(self) -> Mapping[int, _Seat]: ...
    @property
    def away(self) -> Mapping[str, float]: ...


class _Config(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def grace_seconds(self) -> float: ...


class Table(Protocol):
    """What a view reads of a table (:class:`~croupier.server.runtime.TableRuntime`)."""

    @property
    def config(self) -> _Config: ...
    @property
    def preset(self) -> Preset: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def round(self) -> Round: ...
    @property
    def round_id(self) -> str: ...
    @property
    def number(self) -> int: ...
    @property
    def seats(self) -> _Seats: ...
    @property
    def deadline(self) -> _Deadline | None: ...
    @property
    def confirmed(self) -> Collection[str]: ...
    @property
    def changed_at(self) -> float: ...


__all__ = [
    "Table",
    "away_players",
    "mine",
    "mines",
    "next_card_for",
    "offer_view",
    "personal_view",
    "playing",
    "public_events",
    "public_view",
    "timeout_rule",
]


def public_events(events: list[Event], *, dealer: bool = False) -> list[dict[str, Any]]:
    """Events as a viewer may see them: a card dealt face down shows no card.

    >>> from croupier.events import CardDealt
    >>> public_events([CardDealt(card="AS", box=None, hand=None, face_up=False)])[0]["card"] is None
    True
    """
    shown = []
    for event in events:
        body = event.to_json()
        if isinstance(event, CardDealt) and not event.face_up and not dealer:
            body["card"] = None
        shown.append(body)
    return shown


def timeout_rule(rules: Rules) -> str:
    """What the table does with a hand whose decision time runs out, citing its rulebook.

    >>> from croupier.presets import find_rules
    >>> timeout_rule(find_rules("rws-v5"))
    'draw to 12 or more, then stand (RWS v5 5.3)'
    >>> timeout_rule(find_rules("live"))
    'draw to 12 or more, then stand (live rules silent; as RWS v5 5.3)'
    """
    return f"draw to 12 or more, then stand ({rules.cite_absent_player})"


def next_card_for(game: Round) -> str | None:
    """Where the card the round waits for goes, in words (``"box 2"``, ``"box 2, hand
    2"``, ``"the dealer"``, ``"the dealer (hole card)"``); ``None`` when no card is due.

    >>> from croupier.presets import find_rules
    >>> from croupier.shoe import DealerEntry
    >>> game = Round(find_rules("rws-v5"), DealerEntry())
    >>> _ = game.place_bet("ann", 2, "25"); _ = game.close_bets()
    >>> next_card_for(game)
    'box 2'
    """
    where = game.next_card_for
    return None if where is None else str(where)


def public_view(table: Table) -> dict[str, Any]:
    """The table as a watcher sees it: what every view shares (see
    :func:`personal_view`).

    Each box's seated player is shown by name, his bets and his stake in each hand; the
    players betting behind him (RWS v5 1.26) as one total a box and bet, and a hand
    (``behind``): a state's size does not grow with the crowd behind a box, which every
    viewer would otherwise be sent at every change.  Each player's own bets and stakes
    behind come in his own view's ``mine`` (:func:`personal_view`), its last key.
    """
    game = table.round
    seated = _seated(table)
    # The round's own boxes: ``game.boxes`` builds a view of every hand anew, where each
    # hand is shown here from what it holds, in one pass.
    boxes = game.state.boxes
    bets, behind = _bets_shown(game, seated)
    shown = set(seated.values())
    visible = list(game.dealer_cards)
    turn = game.current_turn
    deadline = table.deadline
    view: dict[str, Any] = {
        "table": table.config.id,
        "rules": table.preset.name,
        "rules_version": table.preset.version,
        "round": table.round_id,
        "number": table.number,
        "phase": game.phase.value,
        "boxes_count": table.rules.boxes,
        "side_bets": [bet.value for bet in table.rules.side_bets_offered()],
        "minimum_bet": str(table.rules.minimum_bet),
        "maximum_bet": str(table.rules.maximum_bet),
        # Whether a second player may bet behind a box's seated player (RWS v5 1.26).
        "bets_behind": table.rules.bets_behind,
        "dealer": {
            "cards": [str(card) for card in visible],
            "total": hand_total(visible).total if visible else 0,
            "hole_card": None,
            "hidden_cards": (
                1 if game.hole_card is not None and game.hole_card not in visible else 0
            ),
        },
        "boxes": [
            {
                "box": box.number,
                "seated": box.seated,
                "hands": [_hand_shown(hand, box.seated) for hand in box.hands],
            }
            for box in boxes
        ],
        "bets": bets,
        "behind": behind,
        "seats": {str(box): seat.user for box, seat in sorted(table.seats.reserved.items())},
        "offers": [offer_view(game, offer) for offer in game.offers],
        "turn": None if turn is None else {"box": turn[0], "hand": turn[1], "yours": False},
        "legal_actions": [],
        "awaiting_card": game.awaiting_card,
        "deadline": None
        if deadline is None
        else {"kind": deadline.kind, "at": deadline.at, "for": deadline.who},
        "timeout_rule": timeout_rule(table.rules),
        "next_card_for": None,
        "confirmed": sorted(set(table.confirmed) & shown) if game.phase is Phase.BETTING else [],
        "now": table.changed_at,
        "results": [
            result.to_json() for result in game.results if seated.get(result.box) == result.player
        ],
        "void_reason": game.void_reason,
    }
    named, holding = playing(table, seated, boxes)
    view["away"] = away_players(named, holding, table.seats.away, table.config.grace_seconds)
    view["mine"] = None  # last: a player's own view fills it in (see personal_view)
    return view


def _seated(table: Table) -> dict[int, str]:
    """Each box's seated player (the first initial bet on a box seats its player)."""
    game = table.round
    seated = {}
    for number in range(1, table.rules.boxes + 1):
        player = game.seated_player(number)
        if player is not None:
            seated[number] = player
    return seated


def _bets_shown(
    game: Round, seated: Mapping[int, str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """While the round takes bets: the seated players' bets, and the others' as a total
    a box and bet (players, amount)."""
    if game.phase is not Phase.BETTING:
        return [], []
    shown: list[dict[str, Any]] = []
    totals: dict[tuple[int, str], tuple[int, Decimal]] = {}
    for bet in game.placed_bets:
        if seated.get(bet.box) == bet.player:
            shown.append(_bet_shown(bet))
            continue
        key = (bet.box, bet.bet)
        players, amount = totals.get(key, (0, Decimal(0)))
        totals[key] = (players + 1, amount + bet.amount)
    behind = [
        {"box": box, "bet": kind, "players": players, "amount": str(amount)}
        for (box, kind), (players, amount) in sorted(totals.items())
    ]
    return shown, behind


def _hand_shown(hand: Hand, seated: str) -> dict[str, Any]:
    """A hand as every viewer sees it (:meth:`HandView.to_json`, and whether it is
    finished): the seated player's stake by name, the stakes behind him as one total
    (``behind``: players, amount; ``None`` when there are none)."""
    stake = own = behind = ZERO
    players = 0
    mine = False
    for wager in hand.wagers:
        amount = wager.initial + wager.double
        stake += amount
        if wager.player != seated:
            players += 1
            behind += amount
        elif not mine:
            own, mine = amount, True
    hard = hand.hard
    soft = hand.has_ace and hard <= 11
    return {
        "hand": hand.number,
        "cards": [card.text for card in hand.cards],
        "total": hard + 10 if soft else hard,
        "soft": soft,
        "blackjack": hand.is_blackjack,
        "doubled": hand.doubled,
        "surrendered": hand.surrendered,
        "stake": str(stake),
        "stakes": {seated: str(own)} if mine else {},
        "finished": hand.finished,
        "behind": {"players": players, "amount": str(behind)} if players else None,
    }


def mine(table: Table, viewer: str) -> dict[str, Any] | None:
    """What of the round is ``viewer``'s and not in the public view (``None``:
    nothing): see :func:`mines`."""
    return mines(table, only=viewer).get(viewer)


def mines(table: Table, *, only: str | None = None) -> dict[str, dict[str, Any]]:
    """Each player's part of the round that the public view shows only as a total (or
    ``only``'s): his bets behind a box while bets are open (``bets``), his stakes behind
    each hand (``stakes``: box, hand, amount), whether he confirmed his bets
    (``confirmed``), and his settled bets behind a box (``results``).  One pass over the
    round, whatever the crowd."""
    game = table.round
    seated = _seated(table)
    found: dict[str, dict[str, Any]] = {}

    def of(player: str) -> dict[str, Any]:
        if player not in found:
            found[player] = {"bets": [], "stakes": [], "confirmed": False, "results": []}
        return found[player]

    betting = game.phase is Phase.BETTING
    if betting:
        for bet in game.placed_bets:
            player = bet.player
            if (only is None or player == only) and seated.get(bet.box) != player:
                of(player)["bets"].append(_bet_shown(bet))
    # The round's own boxes, not their views (``game.boxes`` builds every hand's view
    # anew, where only the wagers are read here).
    for box in game.state.boxes:
        for hand in box.hands:
            for wager in hand.wagers:
                player = wager.player
                if (only is None or player == only) and player != box.seated:
                    of(player)["stakes"].append(
                        {"box": box.number, "hand": hand.number, "amount": str(wager.stake)}
                    )
    for result in game.results:
        player = result.player
        if (only is None or player == only) and seated.get(result.box) != player:
            of(player)["results"].append(result.to_json())
    if betting:
        for player in table.confirmed:
            if player in found:
                found[player]["confirmed"] = True
    return found


def away_players(
    playing: Collection[str],
    holding: Collection[str],
    away: Mapping[str, float],
    grace_seconds: float,
) -> list[dict[str, Any]]:
    """The ``playing`` players (those a state names: a reserved box, a seat or a
    seated player's bet or stake in the round; see :func:`playing`) whose last
    connection closed, each with when (``since``) and, for one ``holding`` a reserved
    box, until when it is kept for him (``seat_until``); ``away`` gives when each
    player left, by name.

    >>> gone = away_players({"ann", "cy"}, {"cy"}, {"ann": 10.0, "cy": 12.0, "dee": 5.0}, 60)
    >>> [(player["player"], player["since"], player["seat_until"]) for player in gone]
    [('ann', 10.0, None), ('cy', 12.0, 72.0)]
    """
    return [
        {
            "player": player,
            "since": since,
            "seat_until": since + grace_seconds if player in holding else None,
        }
        for player, since in sorted(away.items(), key=lambda item: (item[1], item[0]))
        if player in playing
    ]


def playing(
    table: Table,
    seated: Mapping[int, str] | None = None,
    boxes: Sequence[BoxView | Box] | None = None,
) -> tuple[set[str], set[str]]:
    """The players a table's state names (a reserved box, a seat in the round), and
    those of them holding a reserved box: whose leaving the state shows (``away``).
    A player behind a box is not among them: the state names him nowhere.

    ``seated`` and ``boxes``: the table's seated players and its round's boxes, where
    the caller has them already."""
    holding = {seat.user for seat in table.seats.reserved.values()}
    named = holding | set((_seated(table) if seated is None else seated).values())
    boxes = table.round.boxes if boxes is None else boxes
    named.update(box.seated for box in boxes if box.seated is not None)
    return named, holding


def personal_view(
    table: Table, public: Mapping[str, Any], viewer: str | None, *, dealer: bool = False
) -> dict[str, Any]:
    """The :func:`public_view` as ``viewer`` (or the dealer) sees it: the turn his
    own and his legal actions, or the hole card and the next card's hand.

    Built from the public view, so that a table's several views cost one.
    """
    game = table.round
    view = dict(public)
    if viewer is not None:
        view["mine"] = mine(table, viewer)
    if dealer:
        visible = game.dealer_cards
        if game.hole_card is not None and game.hole_card not in visible:
            view["dealer"] = {**public["dealer"], "hole_card": str(game.hole_card)}
        view["next_card_for"] = next_card_for(game)
    turn = game.current_turn
    if turn is not None and viewer is not None and game.seated_player(turn[0]) == viewer:
        view["turn"] = {"box": turn[0], "hand": turn[1], "yours": True}
        if not game.offers:
            view["legal_actions"] = [action.value for action in game.legal_actions()]
    return view


def offer_view(game: Round, offer: Offer) -> dict[str, Any]:
    """An open offer as the page shows it.

    ``blackjack``: the hand is a blackjack (insuring it against an Ace is even money in
    effect).  ``then``: for an RWS surrender offer, the actions the hand has when its
    player plays on, so that surrender can be shown beside them (RWS v5 3.16).
    """
    state = game.state
    box = next((box for box in state.boxes if box.number == offer.box), None)
    hand = None
    if box is not None and 1 <= offer.hand <= len(box.hands):
        hand = box.hands[offer.hand - 1]
    shown: dict[str, Any] = {
        "kind": offer.kind.value,
        "player": offer.player,
        "box": offer.box,
        "hand": offer.hand,
        "amount": None if offer.amount is None else str(offer.amount),
        "blackjack": hand is not None and hand.is_blackjack,
    }
    if offer.kind is OfferKind.SURRENDER and box is not None and hand is not None:
        shown["then"] = [action.value for action in legal_actions(state, box, hand)]
    return shown


def _bet_shown(bet: PlacedBet) -> dict[str, Any]:
    return {"player": bet.player, "box": bet.box, "bet": bet.bet, "amount": str(bet.amount)}
