"""A round left open across an upgrade of its preset: recorded under version 2, it is
replayed under version 2's rules (kept in croupier/presets/history) and recovered."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import sqlalchemy

from croupier.presets import find_preset
from croupier.round import Phase
from croupier.server import rounds_store
from croupier.server.runtime import TableRuntime
from croupier.server.schema import rounds
from tests.server.tables import act, balance, books, make_users, table

#: Each preset's rules as version 2 wrote them into a round's record.
RECORDED_V2 = json.loads(
    (Path(__file__).parent.parent / "golden" / "preset_rules_values_v2.json").read_text()
)


def as_recorded_by_version_2(engine: sqlalchemy.Engine, round_id: str) -> None:
    """Rewrite a stored round's header as version 2 wrote it: its version and its rules
    (without bets_behind, not a rule yet)."""
    with engine.begin() as conn:
        text = conn.execute(
            sqlalchemy.select(rounds.c.record).where(rounds.c.id == round_id)
        ).scalar_one()
        record = json.loads(text)
        record["rules_version"] = 2
        record["rules_values"] = RECORDED_V2[record["rules"]]
        conn.execute(
            sqlalchemy.update(rounds)
            .where(rounds.c.id == round_id)
            .values(record=json.dumps(record, sort_keys=True), rules_version="2")
        )


def test_live_a_round_open_across_the_upgrade_to_version_3_is_recovered(
    engine: sqlalchemy.Engine,
) -> None:
    """Live (silent on interruptions; the preset voids every play and pays): the round
    recorded under version 2 replays under version 2 and is voided, every stake
    returned, as it would have been before the upgrade."""
    assert find_preset("live").version == 3
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "live", "8S 7C 6D 8H 9C QD JD")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "30"}, now=1)
    runtime.tick(now=100)
    assert runtime.round.phase is Phase.PLAYER_TURNS
    record = runtime.record
    del runtime  # the process dies mid-round: the upgrade comes before it runs again
    as_recorded_by_version_2(engine, record.round_id)
    back = TableRuntime(table(engine, ids, "live").config, engine, ids.__getitem__, now=200)
    assert back.number == record.number + 1  # the next round is open, at version 3
    assert back.record.rules_version == 3
    with engine.begin() as conn:
        row = rounds_store.load_round(conn, record.round_id)
    assert row.status == "void"
    assert row.record.rules_version == 2
    assert row.record.inputs[-1].op == "interrupt"
    assert balance(engine, ids["ann"]) == Decimal("1000.00")
    assert balance(engine, ids["bob"]) == Decimal("1000.00")
    assert books(engine) == []


def test_rws_v5_a_round_with_an_outcome_continues_under_version_2_after_the_upgrade(
    engine: sqlalchemy.Engine,
) -> None:
    """RWS v5 5.4: ann's surrender settled at interim settlement is an outcome, so the
    round recorded under version 2 goes on after the restart, under version 2's rules,
    and bob's hand is played to its end."""
    ids = make_users(engine, "ann", "bob")
    runtime = table(engine, ids, "rws-v5", "8S 7C 10D 8H 9C 4S 7S")
    act(runtime, "bet", "ann", {"box": 1, "amount": "100"}, now=1)
    act(runtime, "bet", "bob", {"box": 2, "amount": "30"}, now=1)
    runtime.tick(now=100)
    act(runtime, "surrender", "ann", {"box": 1}, now=101)
    act(runtime, "decline", "bob", {"box": 2, "kind": "surrender"}, now=102)
    round_id = runtime.round_id
    del runtime
    as_recorded_by_version_2(engine, round_id)
    back = TableRuntime(table(engine, ids, "rws-v5").config, engine, ids.__getitem__, now=200)
    assert back.round_id == round_id and back.round.phase is Phase.PLAYER_TURNS
    assert back.record.inputs[-1].op == "interrupt"
    act(back, "hit", "bob", {}, now=201)
    outcome = act(back, "stand", "bob", {}, now=202)
    assert outcome.over and back.round.phase.value == "settled"
    assert balance(engine, ids["ann"]) == Decimal("950.00")  # half back
    assert balance(engine, ids["bob"]) == Decimal("1030.00")  # 20 against 17
    assert books(engine) == []
    assert back.number == 1
