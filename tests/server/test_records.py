"""The typed round record: the JSON it reads and writes is the JSON the server has always
stored, byte for byte, and a malformed record is refused naming what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from croupier.presets import find_preset
from croupier.round import Phase
from croupier.server import rounds_store
from croupier.server.errors import RoundError
from croupier.server.records import MalformedRecord, RecordedInput, RoundRecord
from croupier.server.replay import replay
from tests.server.recorded_rounds import play_rounds, readings, stored_rounds

#: What the server stored and read of the rounds of :func:`play_rounds` before its
#: records were typed (written by ``python -m tests.server.recorded_rounds`` with that
#: code).
BEFORE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "round_records.json").read_text(encoding="utf-8")
)
STORED: dict[str, dict[str, Any]] = BEFORE["stored"]
AT = "2026-11-27T20:00:00+00:00"


def whole(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored round's record with its inputs, as the server used to load it."""
    return {**json.loads(stored["record"]), "inputs": [json.loads(t) for t in stored["inputs"]]}


def canonical(value: object) -> str:
    """JSON text as the database holds it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def test_the_rounds_recorded_cover_every_preset_a_dealer_a_recovery_and_open_rounds() -> None:
    records = [RoundRecord.from_json(whole(stored)) for stored in STORED.values()]
    assert {record.rules for record in records} == {
        "casino-to-go",
        "live",
        "online-8deck",
        "rws-v4",
        "rws-v5",
    }
    assert any(record.dealt == "dealer" and record.shoe is None for record in records)
    assert any(entry.by == "dee" for record in records for entry in record.inputs)
    assert any(record.inputs[-1].op == "interrupt" for record in records)
    assert sum(record.closed_at is None for record in records) == 2
    hidden = BEFORE["read"]["rounds"]["dealing 1"]["recall"]["ann"]["recall"]["cards_dealt"]
    assert hidden[-1] is None  # the hole card of a dealer's round in play
    assert all(record.rules_values is not None for record in records)


@pytest.mark.parametrize("name", sorted(STORED))
def test_a_stored_record_reads_back_and_writes_the_same_bytes(name: str) -> None:
    stored = STORED[name]
    record = RoundRecord.from_json(whole(stored))
    assert record.to_json() == whole(stored)
    assert canonical(record.header_json()) == stored["record"]
    assert [canonical(entry.to_json()) for entry in record.inputs] == stored["inputs"]
    assert rounds_store._encode(record.round_id, record.header_json()) == stored["record"]
    # And it is the round it was: replayed, it ends as it was stored.
    game, _, _ = replay(record, find_preset(record.rules).rules)
    status = {Phase.SETTLED: "settled", Phase.VOID: "void"}.get(game.phase, "open")
    assert status == stored["status"]


def test_the_server_writes_its_records_as_it_did_before_they_were_typed(
    engine: sqlalchemy.Engine,
) -> None:
    """The same rounds, played today on the same cards at the same times, are stored
    byte for byte as the server stored them before."""
    play_rounds(engine)
    assert stored_rounds(engine) == STORED
    # And what recall, the table's history and the audit read of them is as it was.
    assert readings(engine) == BEFORE["read"]


def test_a_record_written_before_the_rules_values_were_kept_reads_back_as_it_was() -> None:
    """The first records had no ``rules_values``, and kept the runtime's ``stored``
    mark: one is read (the mark left out) and written as it was."""
    old = {
        "round_id": "r1",
        "table": "t1",
        "number": 3,
        "rules": "rws-v5",
        "rules_version": 1,
        "dealt": "dealer",
        "shoe": None,
        "opened_at": AT,
        "inputs": [{"op": "bet", "player": "ann", "args": {"box": 1}, "at": AT, "key": None}],
        "stored": True,
    }
    record = RoundRecord.from_json(old)
    assert record.rules_values is None and record.closed_at is None
    assert record.to_json() == {name: value for name, value in old.items() if name != "stored"}
    assert "rules_values" not in record.header_json()


def test_an_input_keeps_its_dealer_only_when_a_dealer_entered_it() -> None:
    card = RecordedInput("card", None, {"card": "AS"}, AT, by="dee")
    assert card.to_json()["by"] == "dee"
    assert "by" not in RecordedInput("stand", "ann", {}, AT, key="k1").to_json()
    assert RecordedInput.from_json(card.to_json()) == card


def _good() -> dict[str, Any]:
    return {
        "round_id": "r1",
        "table": "t1",
        "number": 1,
        "rules": "rws-v5",
        "rules_version": 1,
        "rules_values": {},
        "dealt": "rng",
        "shoe": {"order": [], "position": 0},
        "opened_at": AT,
        "inputs": [{"op": "bet", "player": "ann", "args": {}, "at": AT, "key": None}],
    }


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"op": "bet", "player": "ann", "args": {}, "at": AT, "key": None}
    entry.update(changes)
    return {**_good(), "inputs": [entry]}


def _without(name: str) -> dict[str, Any]:
    record = _good()
    del record[name]
    return record


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "a round record is list, not an object"),
        (_without("dealt"), "record of round 'r1': dealt is missing"),
        (_without("shoe"), "record of round 'r1': shoe is missing"),
        (_without("inputs"), "record of round 'r1': inputs is missing"),
        ({**_good(), "round_id": 7}, "a round record: round_id must be a string, not int"),
        ({**_good(), "number": "1"}, "record of round 'r1': number must be an integer, not str"),
        ({**_good(), "number": True}, "number must be an integer, not bool"),
        ({**_good(), "rules_version": None}, "rules_version must be an integer, not null"),
        ({**_good(), "rules_values": None}, "rules_values must be an object, not null"),
        ({**_good(), "shoe": []}, "shoe must be an object or null, not list"),
        ({**_good(), "dealt": "robot"}, "dealt must be 'rng' or 'dealer', not 'robot'"),
        ({**_good(), "closed_at": 5}, "closed_at must be a string, not int"),
        ({**_good(), "seat": 1}, "record of round 'r1': unknown field 'seat'"),
        ({**_good(), "inputs": {}}, "inputs must be a list, not dict"),
        ({**_good(), "inputs": ["bet"]}, "record of round 'r1', input 0 is str, not an object"),
        (_entry(args=None), "input 0: args must be an object, not null"),
        (_entry(player=3), "input 0: player must be a string or null, not int"),
        (_entry(by=None), "input 0: by must be a string, not null"),
        (_entry(seat=2), "input 0: unknown field 'seat'"),
        ({**_good(), "inputs": [{"op": "bet", "player": None, "args": {}, "at": AT}]}, "key is"),
    ],
)
def test_a_malformed_record_is_refused_naming_what_is_wrong(value: object, message: str) -> None:
    with pytest.raises(MalformedRecord, match=message.replace("(", r"\(")) as refused:
        RoundRecord.from_json(value)
    assert isinstance(refused.value, RoundError) and isinstance(refused.value, ValueError)


def test_a_record_grows_by_new_values_the_old_left_as_it_was() -> None:
    record = RoundRecord.from_json(_good())
    longer = record.with_input(RecordedInput("stand", "ann", {}, AT))
    closed = longer.closed(AT, {"order": [], "position": 2})
    assert len(record.inputs) == 1 and len(longer.inputs) == 2
    assert record.closed_at is None and closed.closed_at == AT
    assert closed.to_json()["shoe_after"] == {"order": [], "position": 2}
    assert RoundRecord.from_json(closed.to_json()) == closed


def test_a_record_with_an_input_keeps_every_other_field() -> None:
    """``with_input`` makes the record field by field (one at every input): it keeps
    each field as ``dataclasses.replace`` would, whatever fields a record has."""
    import dataclasses

    values: dict[str, Any] = {}
    for index, field in enumerate(dataclasses.fields(RoundRecord)):
        values[field.name] = {"field": index} if "dict" in str(field.type) else f"v{index}"
    values["inputs"] = (RecordedInput("bet", "ann", {"box": 1}, "2026-01-01T00:00:00"),)
    record = RoundRecord(**values)
    entry = RecordedInput("stand", "ann", {}, "2026-01-01T00:00:01")
    grown = record.with_input(entry)
    assert grown == dataclasses.replace(record, inputs=(*record.inputs, entry))
    assert record.inputs == values["inputs"]  # the record itself is unchanged
