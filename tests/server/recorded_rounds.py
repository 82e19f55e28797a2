"""Real rounds played at the server on known cards, and what it stored of them.

:func:`play_rounds` plays a round at a table of every preset (the server's shoe, in a
known order), a round whose cards a dealer enters, a round cut off by a restart and
recovered, a round still taking bets and a dealer's round in play;
:func:`stored_rounds` reads back what the database holds of them, as text: each
round's record and each input's row, byte for byte; :func:`readings`, what the server
reads of them (each player's recall, the table's history, the books' audit).  The
file ``round_records.json`` beside this one is what the server wrote and read for
these rounds before its records were typed (:mod:`croupier.server.records`);
``test_records.py`` holds today's server to it.  It was written by this module with
that server's code::

    python -m tests.server.recorded_rounds tests/server/round_records.json

Only what every version of the server has is used here (the runtime's inputs, as a
client sends them (:func:`tests.server.tables.act`), and its ``tick``, the tables of
the database, the functions that read a stored round), never the record's own type.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import types
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy

from croupier.cards import full_deck
from croupier.errors import CroupierError
from croupier.presets import PRESETS, find_rules
from croupier.round import Phase
from croupier.server import audit, db, history, recall, rounds_store, runtime
from croupier.server.runtime import TableConfig, TableRuntime
from croupier.server.schema import round_inputs, rounds
from croupier.shoe import ShuffledShoe
from tests.server.tables import act, make_users

#: Cards a dealer enters, in order (more than any one round here deals).
DEALER_CARDS = "9S 7D 10H 6C 8D 4S 5H 2C 3D JS QH KC AD 9H 8C 7S 6D 5S 4H 3C 2D"
_OVER = (Phase.SETTLED, Phase.VOID)
#: The runtime's name for the module it draws a new round's id from.
_UUID = "uuid"


def _shoe(preset: str, seed: int) -> ShuffledShoe:
    """The preset's shoe in an order fixed by ``seed``."""
    rules = find_rules(preset)
    fresh = ShuffledShoe.from_rules(rules)
    order = [str(card) for card in full_deck()] * rules.decks
    random.Random(seed).shuffle(order)
    return ShuffledShoe.restore({**fresh.snapshot(), "order": order, "position": 0})


def _round_ids() -> types.SimpleNamespace:
    """``uuid`` for the runtime: its ``uuid4`` gives 1, 2, 3... (a round's id is its hex)."""
    numbers = iter(range(1, 1000))
    return types.SimpleNamespace(uuid4=lambda: uuid.UUID(int=next(numbers)))


def _table(
    engine: sqlalchemy.Engine,
    ids: dict[str, int],
    preset: str,
    *,
    dealt: str,
    seed: int,
    name: str | None = None,
) -> TableRuntime:
    config = TableConfig(id=name or f"{preset}-{dealt}", preset=preset, dealt=dealt)
    shoe = _shoe(preset, seed) if dealt == "rng" else None
    return TableRuntime(config, engine, ids.__getitem__, now=1.0, shoe=shoe)


def _bet(table: TableRuntime, preset: str) -> None:
    """Ann bets on box 1 (with an idempotency key, sent twice), bob on box 2 (he
    withdraws his first bet and bets again)."""
    amount = str(find_rules(preset).minimum_bet * 2)
    act(table, "bet", "ann", {"box": 1, "amount": amount}, now=2.0, key="ann-1")
    act(table, "bet", "ann", {"box": 1, "amount": amount}, now=2.5, key="ann-1")  # a retry
    act(table, "bet", "bob", {"box": 2, "amount": amount}, now=3.0)
    act(table, "withdraw", "bob", {"box": 2, "bet": "main"}, now=4.0)
    act(table, "bet", "bob", {"box": 2, "amount": amount}, now=5.0, key="bob-2")


def _play_out(table: TableRuntime, cards: Iterator[str], now: float = 100.0) -> None:
    """Close betting and play the round to its end: each hand hits once (where it may)
    then stands, offers time out, a dealer's cards are entered by account ``dee``."""
    table.tick(now=now)
    hit: set[tuple[int, int]] = set()
    while table.round.phase not in _OVER:
        now += 1
        game = table.round
        if game.awaiting_card:
            act(table, "card", None, {"card": next(cards)}, now=now, by="dee")
        elif game.offers:
            assert table.deadline is not None
            now = max(now, table.deadline.at)
            table.tick(now=now)
        elif game.current_turn is not None:
            box, hand = game.current_turn
            player = game.seated_player(box)
            if (box, hand) not in hit:
                hit.add((box, hand))
                try:
                    act(table, "hit", player, {}, now=now)
                    continue
                except CroupierError:
                    pass
            act(table, "stand", player, {}, now=now)
        else:  # pragma: no cover - the round waits for nothing a test gives
            raise AssertionError(f"round stuck in {game.phase}")


def play_rounds(engine: sqlalchemy.Engine) -> None:
    """Play the rounds (see the module's docstring) into ``engine``'s database."""
    ids = make_users(engine, "ann", "bob")
    original = getattr(runtime, _UUID)
    setattr(runtime, _UUID, _round_ids())  # the rounds' ids, in order
    try:
        for seed, preset in enumerate(sorted(PRESETS)):
            table = _table(engine, ids, preset, dealt="rng", seed=seed)
            _bet(table, preset)
            _play_out(table, iter(()))
        table = _table(engine, ids, "rws-v5", dealt="dealer", seed=0)
        _bet(table, "rws-v5")
        _play_out(table, iter(DEALER_CARDS.split()))
        # Cut off after "No more bets": the next process recovers the round (RWS v5 5.4).
        table = _table(engine, ids, "live", dealt="rng", seed=99, name="recovered")
        _bet(table, "live")
        table.tick(now=100.0)
        del table
        config = TableConfig(id="recovered", preset="live")
        back = TableRuntime(config, engine, ids.__getitem__, now=200.0)
        if back.round.phase not in _OVER:
            _play_out(back, iter(()), now=300.0)
        # Bets made, betting still open: its record as the round's first input wrote it.
        _bet(_table(engine, ids, "rws-v4", dealt="rng", seed=7, name="betting"), "rws-v4")
        # A dealer's round in play, its hole card entered (hidden from a recall).
        table = _table(engine, ids, "live", dealt="dealer", seed=0, name="dealing")
        _bet(table, "live")
        table.tick(now=100.0)
        cards = iter(DEALER_CARDS.split())
        now = 100.0
        while table.round.awaiting_card:
            now += 1
            act(table, "card", None, {"card": next(cards)}, now=now, by="dee")
    finally:
        setattr(runtime, _UUID, original)


def stored_rounds(engine: sqlalchemy.Engine) -> dict[str, dict[str, Any]]:
    """What the database holds of each round, by table and number: its record's text,
    its inputs' texts in order, and its status."""
    found: dict[str, dict[str, Any]] = {}
    with engine.connect() as conn:
        for row in conn.execute(sqlalchemy.select(rounds).order_by(rounds.c.id)):
            texts = conn.execute(
                sqlalchemy.select(round_inputs.c.input)
                .where(round_inputs.c.round_id == row.id)
                .order_by(round_inputs.c.seq)
            ).scalars()
            found[f"{row.table_id} {row.number}"] = {
                "status": row.status,
                "record": row.record,
                "inputs": list(texts),
            }
    return found


def readings(engine: sqlalchemy.Engine) -> dict[str, Any]:
    """What the server reads from the stored rounds, as JSON values: each round's recall
    for each player and its result in the table's history, and the books' audit."""
    found: dict[str, Any] = {}
    with engine.connect() as conn:
        for round_id, table_id, number in conn.execute(
            sqlalchemy.select(rounds.c.id, rounds.c.table_id, rounds.c.number)
        ):
            row = rounds_store.load_round(conn, round_id)
            result = history.dealer_result(row)
            found[f"{table_id} {number}"] = {
                "recall": {name: recall.recall_record(row, name, None) for name in ("ann", "bob")},
                "history": None if result is None else result.to_json(),
            }
        problems = audit.audit(conn)
    read: dict[str, Any] = json.loads(json.dumps({"rounds": found, "audit": problems}, default=str))
    return read


def main(path: str) -> None:
    """Play the rounds into a new SQLite database and write what it holds, and what the
    server reads of it, to ``path``."""
    with tempfile.TemporaryDirectory() as folder:
        engine = db.connect(f"sqlite:///{folder}/rounds.db")
        db.migrate(engine)
        try:
            play_rounds(engine)
            written = {"stored": stored_rounds(engine), "read": readings(engine)}
        finally:
            engine.dispose()
    Path(path).write_text(json.dumps(written, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
