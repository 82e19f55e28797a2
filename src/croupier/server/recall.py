"""Game recall: a round as one player may see it, and replayable.

A recall record is a round script (``croupier round FILE`` plays it again): the
rules and their version, the cards in the order they were dealt, and every input in
order with its time, plus a ``recall`` part for the player: his decisions with their
times, his bets with their results, his balance before and after, the events.  A
card the table has not shown (the hole card of a round in progress) is ``null``, and
such a round cannot be replayed until it is over.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from croupier.events import CardDealt, HoleCardRevealed
from croupier.presets import find_preset
from croupier.round import Phase
from croupier.server.replay import replay
from croupier.server.rounds_store import RoundRow
from croupier.server.views import public_events

__all__ = ["recall_record"]


def recall_record(
    row: RoundRow, viewer: str, balances: tuple[Decimal, Decimal | None] | None
) -> dict[str, Any]:
    """The recall record of ``row`` for the player ``viewer``."""
    record = row.record
    preset = find_preset(record.rules)
    game, _, _ = replay(record, preset.rules)
    over = game.phase in (Phase.SETTLED, Phase.VOID)
    revealed = {event.card for event in game.events if isinstance(event, HoleCardRevealed)}
    dealt: list[str | None] = []
    for event in game.events:
        if isinstance(event, CardDealt):
            shown = event.face_up or over or event.card in revealed
            dealt.append(event.card if shown else None)
    entered = record.dealer_entered
    # A dealer's k-th card entered is the k-th dealt: one not yet shown stays hidden.
    cards = iter(dealt)
    inputs: list[dict[str, Any]] = []
    mine: list[dict[str, Any]] = []
    for entry in record.inputs:
        hidden = entered and entry.op == "card" and next(cards, "") is None
        args = {"card": None} if hidden else entry.args
        given = {"op": entry.op, "player": entry.player, "args": args, "at": entry.at}
        inputs.append(given)
        if entry.player == viewer:
            mine.append(given)
    before, after = balances if balances is not None else (None, None)
    return {
        "rules": preset.name,
        "rules_version": record.rules_version,
        **({"rules_values": record.rules_values} if record.rules_values is not None else {}),
        "shoe": [] if entered else dealt,
        "inputs": inputs,
        "recall": {
            "round": row.id,
            "table": row.table_id,
            "number": row.number,
            "status": row.status,
            "phase": game.phase.value,
            "opened_at": record.opened_at,
            "closed_at": record.closed_at,
            "player": viewer,
            "replayable": all(card is not None for card in dealt),
            "cards_dealt": dealt,
            "decisions": mine,
            "bets": [result.to_json() for result in game.results if result.player == viewer],
            "balance_before": None if before is None else str(before),
            "balance_after": None if after is None else str(after),
            "void_reason": game.void_reason,
            "events": public_events(list(game.events), dealer=over),
        },
    }
