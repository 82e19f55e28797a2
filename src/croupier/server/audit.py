"""The books against the game: every round replayed, its money held to the ledger.

:func:`croupier.server.ledger.check` proves the books balance; :func:`audit` proves
they say what the game did.  Each round's record is replayed through the engine, and
for every player the money the ledger holds on the round (stakes less refunds and
returns) must equal what the engine says: his stakes while the round is open, his
stakes less what settlement (or a void) returned once it is over.
"""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy

from croupier.errors import CroupierError
from croupier.presets import find_preset
from croupier.round import Phase
from croupier.server import ledger, rounds_store
from croupier.server.records import MalformedRecord
from croupier.server.replay import replay
from croupier.server.schema import rounds, users

__all__ = ["audit"]


def audit(conn: sqlalchemy.Connection) -> list[str]:
    """Each disagreement between a round's replay and its money, as a sentence."""
    problems: list[str] = []
    names = {row.name: row.id for row in conn.execute(sqlalchemy.select(users.c.id, users.c.name))}
    for (round_id,) in conn.execute(sqlalchemy.select(rounds.c.id).order_by(rounds.c.created_at)):
        try:
            row = rounds_store.load_round(conn, round_id)
            game, _, _ = replay(row.record, find_preset(row.record.rules).rules)
        except (CroupierError, KeyError, MalformedRecord) as error:
            problems.append(f"round {round_id}: its record does not replay: {error}")
            continue
        over = game.phase in (Phase.SETTLED, Phase.VOID)
        expected_status = "open" if not over else "void" if game.phase is Phase.VOID else "settled"
        if row.status != expected_status:
            problems.append(
                f"round {round_id}: status {row.status!r} but its replay is {game.phase.value}"
            )
        held = dict(game.staked_by_player())
        if over:
            for result in game.results:
                held[result.player] = held.get(result.player, Decimal(0)) - (
                    result.stake + result.net
                )
        ledgered = ledger.round_stakes(conn, round_id)
        by_user = {names[name]: amount for name, amount in held.items() if name in names}
        for user in sorted(set(by_user) | set(ledgered)):
            want = by_user.get(user, Decimal(0))
            have = ledgered.get(user, Decimal(0))
            if want != have:
                problems.append(
                    f"round {round_id}: user {user} has {have} on the table by the ledger, "
                    f"{want} by the game"
                )
    return problems
