"""Typed commands: one class each, their JSON, their schema, and Round.apply."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

import pytest

from croupier.commands import (
    COMMANDS,
    CloseBets,
    Command,
    DealCard,
    Decline,
    DoubleDown,
    Hit,
    InputError,
    Issuer,
    PlaceBet,
    ReturnBets,
    Stand,
    TimeOut,
    command_from_json,
    command_schema,
    ops_for,
)
from croupier.errors import CroupierError, IllegalActionError
from croupier.inputs import INPUT_OPS
from croupier.presets import find_rules
from croupier.round import OfferKind, Round
from croupier.script import script_schema
from croupier.server.protocol import message_schema
from croupier.server.runtime import DEALER_OPS, PLAYER_OPS, SYSTEM_OPS
from croupier.shoe import FixedOrder

EXAMPLES: list[Command] = [
    PlaceBet("ann", 1, Decimal("25.00")),
    PlaceBet("ann", 2, Decimal("5"), "player_pair"),
    CloseBets(),
    Hit(),
    Hit("ann"),
    Stand("bob"),
    DoubleDown("ann", Decimal("10")),
    DoubleDown(),
    Decline("bob", 1, OfferKind.FOLLOW_SPLIT),
    Decline("bob", 1),
    TimeOut(),
    ReturnBets("bob", 1),
    DealCard("QH"),
]


@pytest.mark.parametrize("command", EXAMPLES, ids=repr)
def test_every_command_round_trips_through_json(command: Command) -> None:
    data = command.to_json()
    assert json.loads(json.dumps(data)) == data
    assert command_from_json(data) == command


def test_every_command_class_is_listed_once_by_its_op() -> None:
    assert len(COMMANDS) == len({cls.__name__ for cls in COMMANDS.values()})
    assert set(INPUT_OPS) == set(COMMANDS)
    for op, cls in COMMANDS.items():
        assert cls.op == op and isinstance(cls.issuer, Issuer)
        assert dataclasses.is_dataclass(cls)


def test_server_permissions_are_read_from_the_commands() -> None:
    assert ops_for(Issuer.PLAYER) == PLAYER_OPS
    assert {"close_bets", "time_out", "walk_away"} == SYSTEM_OPS
    assert ops_for(Issuer.DEALER) | {"cut_card"} == DEALER_OPS
    # RWS v5 5.7.3 is the dealer's to apply at the table.
    assert "return_bets" in DEALER_OPS and "return_bets" not in PLAYER_OPS


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"op": "fold"}, ("unknown input 'fold'",)),
        ({"op": "bet", "player": "ann", "args": {"box": 1}}, ("bet: needs amount",)),
        ({"op": "bet", "args": {"box": 1, "amount": "5"}}, ("needs the player",)),
        ({"op": "bet", "player": "ann", "args": {"box": "1", "amount": "5"}}, ("box number",)),
        ({"op": "bet", "player": "ann", "args": {"box": 1, "amount": 5}}, ("written as text",)),
        ({"op": "bet", "player": "ann", "args": {"box": 1, "amount": "x"}}, ("not a number",)),
        ({"op": "hit", "args": {"box": 1}}, ("unknown argument 'box'",)),
        ({"op": "decline", "player": "ann", "args": {"box": 1, "kind": "x"}}, ("unknown offer",)),
        ({"op": "return_bets", "args": {"box": 1}}, ("needs who",)),
        ("hit", ('"op"',)),
    ],
)
def test_malformed_commands_are_named(data: object, words: tuple[str, ...]) -> None:
    with pytest.raises(InputError) as raised:
        command_from_json(data)
    for word in words:
        assert word in str(raised.value)


def test_apply_returns_every_event_and_methods_are_shorthand_for_it() -> None:
    rules = find_rules("rws-v5")
    by_method = Round(rules, FixedOrder("10S 6D 6H 9C 10C"))
    by_command = Round(rules, FixedOrder("10S 6D 6H 9C 10C"))
    by_method.place_bet("ann", 1, "100")
    by_method.close_bets()
    by_method.decline("ann", 1)
    first = by_method.stand()
    events = [
        *by_command.apply(PlaceBet("ann", 1, Decimal("100"))),
        *by_command.apply(CloseBets()),
        *by_command.apply(Decline("ann", 1)),
    ]
    caused = by_command.apply(Stand())
    assert caused[0] == first
    assert [*events, *caused] == list(by_command.events) == list(by_method.events)
    assert [event.type for event in caused] == [
        "player_stood",
        "card_dealt",
        "card_dealt",
        "dealer_finished",
        "bet_settled",
        "round_settled",
    ]


def test_a_refused_command_changes_nothing_and_can_agrees() -> None:
    game = Round(find_rules("rws-v5"), FixedOrder("10S 6D 6H 9C 10C"))
    game.place_bet("ann", 1, "100")
    game.close_bets()
    before = game.snapshot()
    for command in (Hit(), Stand(), CloseBets(), DealCard("AS"), ReturnBets("zed", 1)):
        assert not game.can(command)
        with pytest.raises(CroupierError):
            game.verify(command)
        with pytest.raises(CroupierError):
            game.apply(command)
        assert game.snapshot() == before
    assert game.can(Decline("ann", 1))


def test_dealing_by_hand_is_refused_at_a_table_dealt_from_its_shoe() -> None:
    game = Round(find_rules("rws-v5"), FixedOrder("10S 6D 6H"))
    game.place_bet("ann", 1, "100")
    game.close_bets()
    with pytest.raises(IllegalActionError, match="deals from its shoe"):
        game.deal_card("AS")


def test_the_schemas_are_read_from_the_commands() -> None:
    schema = command_schema()
    ops = [variant["properties"]["op"]["const"] for variant in schema["oneOf"]]
    assert ops == list(COMMANDS)
    words = {variant.get("x-script-word") for variant in schema["oneOf"]} - {None}
    assert words == {
        "hit",
        "stand",
        "double",
        "split",
        "surrender",
        "insurance",
        "even-money",
        "follow",
        "decline",
    }
    script = script_schema()
    assert len(script["properties"]["inputs"]["items"]["oneOf"]) == len(COMMANDS)
    protocol = message_schema()
    actions = {
        definition["properties"]["op"]["const"]: definition
        for definition in protocol["$defs"].values()
        if definition.get("properties", {}).get("type", {}).get("const") == "action"
    }
    assert set(actions) == {*COMMANDS, "cut_card"}
    for op, cls in COMMANDS.items():
        assert actions[op]["x-issuer"] == cls.issuer.value
        arguments = protocol["$defs"][actions[op]["properties"]["args"]["$ref"].split("/")[-1]]
        expected = next(v for v in schema["oneOf"] if v["properties"]["op"]["const"] == op)
        assert set(arguments["properties"]) == set(expected["properties"]["args"]["properties"])
        assert arguments.get("required", []) == expected["properties"]["args"]["required"]
