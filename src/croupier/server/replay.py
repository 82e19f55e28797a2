"""A round rebuilt from its record: the engine is deterministic, so the same inputs
against the same cards give the same round, event for event.

The server rebuilds a round this way after a restart, to undo an input it refused, and
to show a finished round again (recall, the table's log and history, the audit).
"""

from __future__ import annotations

from croupier.inputs import apply_input
from croupier.round import Round
from croupier.rules import Rules
from croupier.server.records import RoundRecord
from croupier.shoe import CompositionCheck, DealerEntry, ShuffledShoe

__all__ = ["replay"]


def replay(
    record: RoundRecord, rules: Rules
) -> tuple[Round, ShuffledShoe | DealerEntry, CompositionCheck]:
    """A round rebuilt from its record: its shoe as the round found it, every input
    applied in order.  Returns the round, its card source and its composition check."""
    # Under the rules it was recorded with: an earlier preset version's, as kept.
    rules = record.rules_under(rules)
    source: ShuffledShoe | DealerEntry
    check = CompositionCheck(rules.decks)
    if record.shoe is not None:
        source = ShuffledShoe.restore(record.shoe)
        for card in source.dealt_cards:
            check.take(card)
    else:
        source = DealerEntry()
    game = Round(rules, source, check=check)
    for entry in record.inputs:
        apply_input(game, entry.op, entry.player, entry.args)
    return game, source, check
