"""A round written as JSON values and read back: :meth:`Round.snapshot
<croupier.round.Round.snapshot>` and :meth:`Round.restore <croupier.round.Round.restore>`.

A snapshot holds everything the round is (its rules, cursor, bets, boxes, hands,
offers, results, events and the shoe's composition check), but not the card source,
which the caller gives back as the round left it.  It holds hidden information (the
hole card), so it stays with the server.  A snapshot is refused under rules other
than those it was taken under.

>>> from croupier.presets import find_rules
>>> from croupier.round import Round
>>> from croupier.shoe import FixedOrder
>>> rules = find_rules("rws-v5")
>>> shoe = FixedOrder("10S 6D 9H 7C 5S")
>>> game = Round(rules, shoe)
>>> _ = game.place_bet("ann", 1, "100")
>>> _ = game.close_bets()
>>> again = Round.restore(game.snapshot(), rules, shoe)
>>> again.offers == game.offers, again.events == game.events
(True, True)
>>> _ = again.decline("ann", 1); _ = again.stand()
>>> again.net_by_player()
{'ann': Decimal('100.00')}
>>> Round.restore(game.snapshot(), find_rules("rws-v4"), shoe)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
croupier.snapshot.SnapshotError: the snapshot was taken under other rules: ... differs
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from croupier.cards import Card, parse_card, parse_drawn_card
from croupier.errors import CroupierError
from croupier.events import BetResult, event_from_json
from croupier.round_state import (
    Action,
    Automation,
    Awaiting,
    Box,
    Cursor,
    Hand,
    Offer,
    OfferKind,
    Owed,
    Phase,
    PlacedBet,
    PlacedBets,
    RoundState,
    Step,
    Wager,
)
from croupier.rules import Rules
from croupier.shoe import CardSource, CompositionCheck

__all__ = ["FORMAT", "SnapshotError", "read_snapshot", "write_snapshot"]

#: The snapshot format's version.
FORMAT = 1


class SnapshotError(CroupierError):
    """A snapshot that cannot be restored; the message says why."""


def _money(amount: Decimal) -> str:
    return str(amount)


def _placed(placed: PlacedBet) -> dict[str, Any]:
    return {
        "player": placed.player,
        "box": placed.box,
        "bet": placed.bet,
        "amount": _money(placed.amount),
    }


def _hand(hand: Hand) -> dict[str, Any]:
    return {
        "number": hand.number,
        "cards": [card.text for card in hand.cards],
        "wagers": [
            {
                "player": wager.player,
                "initial": _money(wager.initial),
                "double": _money(wager.double),
                "settled": wager.settled,
                "returned": wager.returned,
            }
            for wager in hand.wagers
        ],
        "from_split": hand.from_split,
        "split_aces": hand.split_aces,
        "doubled": hand.doubled,
        "surrendered": hand.surrendered,
        "finished": hand.finished,
        "decisions": hand.decisions,
        "auto_play": hand.auto_play,
    }


def _offer(offer: Offer) -> dict[str, Any]:
    return {
        "kind": offer.kind.value,
        "player": offer.player,
        "box": offer.box,
        "hand": offer.hand,
        "amount": None if offer.amount is None else _money(offer.amount),
    }


def write_snapshot(state: RoundState) -> dict[str, Any]:
    """The round's state as JSON values."""
    cursor = state.cursor
    return {
        "format": FORMAT,
        "rules": state.rules.to_json(),
        "automation": [
            str(flag.name)
            for flag in (Automation.DEALING, Automation.SETTLEMENT)
            if flag in state.automation
        ],
        "phase": state.phase.value,
        "cursor": {
            "step": cursor.step.value,
            "box": cursor.box,
            "hand": cursor.hand,
            "card": cursor.card,
            "owed": cursor.owed.value,
            "awaiting": cursor.awaiting.value,
            "legal": [action.value for action in cursor.legal],
        },
        "bets": [_placed(placed) for placed in state.bets],
        "seated": {str(box): player for box, player in state.seated.items()},
        "boxes": [
            {
                "number": box.number,
                "seated": box.seated,
                "initial": {player: _money(amount) for player, amount in box.initial.items()},
                "side_bets": [_placed(placed) for placed in box.side_bets],
                "hands": [_hand(hand) for hand in box.hands],
                "insurance": {player: _money(amount) for player, amount in box.insurance.items()},
                "insurance_settled": box.insurance_settled,
                "returned_side_bets": [_placed(placed) for placed in box.returned_side_bets],
                "returned_insurance": {
                    player: _money(amount) for player, amount in box.returned_insurance.items()
                },
            }
            for box in state.boxes
        ],
        "results": [result.to_json() for result in state.results],
        "dealer_cards": [card.text for card in state.dealer_cards],
        "hole_card": None if state.hole_card is None else state.hole_card.text,
        "hole_revealed": state.hole_revealed,
        "peeked": state.peeked,
        "side_bets_settled": state.side_bets_settled,
        "offers": [_offer(offer) for offer in state.offers],
        "absent": sorted(state.absent),
        "void_reason": state.void_reason,
        "entered": None if state.entered is None else str(state.entered),
        "check": state.check.to_json(),
        "events": [event.to_json() for event in state.events],
    }


def read_snapshot(snapshot: object, rules: Rules, source: CardSource | None) -> RoundState:
    """The state a snapshot describes, under ``rules``, dealing from ``source``.

    Raises:
        SnapshotError: not a snapshot, a damaged one, or one taken under other rules.
    """
    if not isinstance(snapshot, dict) or snapshot.get("format") != FORMAT:
        raise SnapshotError(f"not a round snapshot of format {FORMAT}")
    recorded = snapshot.get("rules")
    current = _rules_json(rules)
    if recorded != current:
        differing = sorted(
            key
            for key in set(current) | set(recorded if isinstance(recorded, dict) else {})
            if not isinstance(recorded, dict) or recorded.get(key) != current.get(key)
        )
        raise SnapshotError(
            f"the snapshot was taken under other rules: {', '.join(differing[:5])} differs"
        )
    try:
        state = _read(snapshot, rules, source)
        _check_consistent(state)
        return state
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError, InvalidOperation, AttributeError) as error:
        raise SnapshotError(f"damaged round snapshot: {error}") from None


@functools.lru_cache(maxsize=64)
def _rules_json(rules: Rules) -> dict[str, object]:
    """``rules.to_json()``, kept: a server restores many rounds of few rule sets (read only)."""
    return rules.to_json()


def _cards(texts: list[str]) -> list[Card]:
    return [parse_card(text) for text in texts]


# An amount as a snapshot writes it: ASCII digits, a point, a sign for a net loss.
_AMOUNT = re.compile(r"-?[0-9]+(?:\.[0-9]+)?", re.ASCII)


def _decimal(text: str) -> Decimal:
    if not isinstance(text, str) or _AMOUNT.fullmatch(text) is None:
        raise SnapshotError(f"damaged round snapshot: {text!r} is not an amount")
    return Decimal(text)


def _check_consistent(state: RoundState) -> None:
    """Refuse a snapshot whose parts do not fit together (a hand list emptied under
    the cursor, say): it would restore, then fail untyped at its next command."""
    for box in state.boxes:
        numbers = [hand.number for hand in box.hands]
        if numbers != list(range(1, len(numbers) + 1)):
            raise SnapshotError(
                f"damaged round snapshot: box {box.number} holds hands {numbers}, not 1 to "
                f"{len(numbers)}"
            )
    cursor = state.cursor
    if cursor.awaiting is Awaiting.DECISION and not (
        0 <= cursor.box < len(state.boxes) and 0 <= cursor.hand < len(state.boxes[cursor.box].hands)
    ):
        raise SnapshotError(
            "damaged round snapshot: the hand whose turn it is "
            f"(box index {cursor.box}, hand index {cursor.hand}) is not in it"
        )
    hands = {box.number: len(box.hands) for box in state.boxes}
    for offer in state.offers:
        if offer.box not in hands or not 0 <= offer.hand <= hands[offer.box]:
            raise SnapshotError(
                f"damaged round snapshot: an offer names box {offer.box} hand {offer.hand}, "
                "which it does not hold"
            )


def _read_placed(data: dict[str, Any]) -> PlacedBet:
    return PlacedBet(
        str(data["player"]), int(data["box"]), str(data["bet"]), _decimal(data["amount"])
    )


def _read_bets(data: list[dict[str, Any]]) -> PlacedBets:
    # A player's bet twice on one box is a damaged snapshot (ValueError, as above).
    return PlacedBets(_read_placed(placed) for placed in data)


def _read_hand(data: dict[str, Any]) -> Hand:
    hand = Hand(
        int(data["number"]),
        [],
        [
            Wager(
                str(wager["player"]),
                _decimal(wager["initial"]),
                _decimal(wager["double"]),
                bool(wager["settled"]),
                bool(wager["returned"]),
            )
            for wager in data["wagers"]
        ],
        from_split=bool(data["from_split"]),
        split_aces=bool(data["split_aces"]),
        doubled=bool(data["doubled"]),
        surrendered=bool(data["surrendered"]),
        finished=bool(data["finished"]),
        decisions=int(data["decisions"]),
        auto_play=bool(data["auto_play"]),
    )
    for card in _cards(data["cards"]):
        hand.add(card)
    return hand


def _read(data: dict[str, Any], rules: Rules, source: CardSource | None) -> RoundState:
    automation = Automation.NONE
    for name in data["automation"]:
        automation |= Automation[name]
    cursor_data = data["cursor"]
    cursor = Cursor(
        step=Step(cursor_data["step"]),
        box=int(cursor_data["box"]),
        hand=int(cursor_data["hand"]),
        card=int(cursor_data["card"]),
        owed=Owed(cursor_data["owed"]),
        awaiting=Awaiting(cursor_data["awaiting"]),
        legal=tuple(Action(action) for action in cursor_data["legal"]),
    )
    boxes = []
    for box_data in data["boxes"]:
        box = Box(
            int(box_data["number"]),
            str(box_data["seated"]),
            {player: _decimal(amount) for player, amount in box_data["initial"].items()},
            [_read_placed(placed) for placed in box_data["side_bets"]],
            [_read_hand(hand) for hand in box_data["hands"]],
            {player: _decimal(amount) for player, amount in box_data["insurance"].items()},
            bool(box_data["insurance_settled"]),
            [_read_placed(placed) for placed in box_data["returned_side_bets"]],
            {player: _decimal(amount) for player, amount in box_data["returned_insurance"].items()},
        )
        boxes.append(box)
    results = [
        BetResult(
            str(result["player"]),
            int(result["box"]),
            None if result["hand"] is None else int(result["hand"]),
            str(result["bet"]),
            _decimal(result["stake"]),
            _decimal(result["net"]),
            str(result["outcome"]),
        )
        for result in data["results"]
    ]
    check = CompositionCheck.from_json(data["check"])
    if check.decks != rules.decks:
        raise SnapshotError(f"the snapshot's shoe holds {check.decks} decks, not {rules.decks}")
    hole = data["hole_card"]
    entered = data["entered"]
    return RoundState(
        rules=rules,
        source=source,
        check=check,
        automation=automation,
        deals=Automation.DEALING in automation,
        settles=Automation.SETTLEMENT in automation,
        phase=Phase(data["phase"]),
        cursor=cursor,
        events=[event_from_json(event) for event in data["events"]],
        bets=_read_bets(data["bets"]),
        seated={int(box): str(player) for box, player in data["seated"].items()},
        boxes=boxes,
        results=results,
        dealer_cards=_cards(data["dealer_cards"]),
        hole_card=None if hole is None else parse_card(hole),
        hole_revealed=bool(data["hole_revealed"]),
        peeked=bool(data["peeked"]),
        side_bets_settled=bool(data["side_bets_settled"]),
        offers=[
            Offer(
                OfferKind(offer["kind"]),
                str(offer["player"]),
                int(offer["box"]),
                int(offer["hand"]),
                None if offer["amount"] is None else _decimal(offer["amount"]),
            )
            for offer in data["offers"]
        ],
        absent=set(data["absent"]),
        void_reason=data["void_reason"],
        entered=None if entered is None else parse_drawn_card(entered),
    )
