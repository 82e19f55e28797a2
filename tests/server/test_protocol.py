"""The table protocol's models: made from the engine's commands, as the page and the
bots write their messages, and every message and field written in docs/protocol.md."""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from pathlib import Path

import pytest

from croupier.commands import COMMANDS, Issuer
from croupier.server.protocol import (
    ACTIONS,
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    Ack,
    Action,
    Message,
    ProtocolError,
    parse_message,
    read_server_message,
)

DOCUMENT = Path(__file__).parents[2] / "docs" / "protocol.md"


def _tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of ``text``: its rows (header first), each a list of cells."""
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(set(cell) <= {"-", ":"} for cell in cells):
                rows.append(cells)
        elif rows:
            tables.append(rows)
            rows = []
    return tables


def _table(header: list[str]) -> dict[str, list[str]]:
    """The table of docs/protocol.md with ``header``: each name its first cell gives
    (as `code`, one or several), and the row's other cells."""
    for rows in _tables(DOCUMENT.read_text(encoding="utf-8")):
        if rows[0] == header:
            return {name: row[1:] for row in rows[1:] for name in re.findall(r"`([^`]+)`", row[0])}
    raise AssertionError(f"docs/protocol.md has no table headed {header}")


def _named(cell: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", cell))


def _type(model: type[Message]) -> str:
    return str(typing.get_args(model.model_fields["type"].annotation)[0])


def _op(model: type[Action]) -> str:
    return str(typing.get_args(model.model_fields["op"].annotation)[0])


def test_every_client_message_and_its_fields_are_in_the_documents_table() -> None:
    documented = _table(["type", "fields", "what it does"])
    kinds: list[type[Message]] = [*CLIENT_MESSAGES, Action]
    models = {_type(model): model for model in kinds}
    assert set(documented) == set(models)
    for kind, model in models.items():
        fields = set(model.model_fields) - {"type"}
        assert fields <= _named(documented[kind][0]), kind


def test_every_action_and_its_arguments_are_in_the_documents_table_with_who_may_send_it() -> None:
    documented = _table(["op", "args", "who", "when"])
    text = DOCUMENT.read_text(encoding="utf-8")
    sent = {_op(model): model for model in ACTIONS if model.issuer is not Issuer.TABLE}
    assert set(documented) == set(sent)
    for op, model in sent.items():
        arguments, who, _ = documented[op]
        names = set(model.model_fields["args"].annotation.model_fields)  # type: ignore[union-attr]
        assert names <= _named(arguments), op
        assert ("dealer" in who) == (model.issuer is Issuer.DEALER), op
    table_own = [_op(model) for model in ACTIONS if model.issuer is Issuer.TABLE]
    sentence = next(line for line in text.splitlines() if "own clock and seating" in line)
    assert set(table_own) <= _named(sentence)


def test_every_server_message_and_its_fields_are_in_the_documents_table() -> None:
    documented = _table(["type", "fields", "when"])
    models = {_type(model): model for model in SERVER_MESSAGES}
    assert set(documented) == set(models)
    for kind, model in models.items():
        fields = set(model.model_fields) - {"type"}
        assert fields <= _named(documented[kind][0]), kind


def test_an_action_is_made_from_its_engine_command() -> None:
    assert {_op(model) for model in ACTIONS} == {*COMMANDS, "cut_card"}
    for model in ACTIONS:
        command = model.command
        if command is None:
            assert _op(model) == "cut_card" and model.issuer is Issuer.DEALER
            continue
        assert model.issuer is command.issuer
        fields = {item.name: item for item in dataclasses.fields(command)}
        fields.pop("player", None)
        arguments = model.model_fields["args"].annotation.model_fields  # type: ignore[union-attr]
        assert set(arguments) == set(fields)
        required = {name for name, item in fields.items() if item.default is dataclasses.MISSING}
        assert set(model.required) == required
        assert {name for name, item in arguments.items() if item.is_required()} == required


@pytest.mark.parametrize(
    ("message", "arguments"),
    [
        # As the page writes them (frontend/src/components/*.js).
        ({"op": "bet", "args": {"box": 1, "amount": "25.00", "bet": "main"}}, None),
        ({"op": "bet", "args": {"box": 2, "amount": "5", "bet": "21+3"}}, None),
        ({"op": "withdraw", "args": {"box": 1, "bet": "perfect_pairs"}}, None),
        ({"op": "hit", "args": {}}, None),
        ({"op": "stand"}, {}),
        ({"op": "surrender", "args": {"box": 3}}, None),
        ({"op": "insurance", "args": {"box": 1, "amount": "12.50"}}, None),
        ({"op": "even_money", "args": {"box": 1}}, None),
        ({"op": "follow", "args": {"box": 1}}, None),
        ({"op": "decline", "args": {"box": 1, "kind": "follow-split"}}, None),
        ({"op": "card", "args": {"card": "QH"}}, None),
        ({"op": "void", "args": {"reason": "dealing error"}}, None),
        ({"op": "interrupt", "args": {}}, None),
        ({"op": "cut_card", "args": {}}, None),
        # A dealer's return of another's bets, a double for less.
        ({"op": "return_bets", "args": {"who": "ann", "box": 2}}, None),
        ({"op": "double", "args": {"amount": None}}, None),
    ],
)
def test_the_actions_clients_send_are_read_as_they_were_sent(
    message: dict[str, object], arguments: dict[str, object] | None
) -> None:
    text = {"type": "action", **message, "key": "k-1"}
    action = parse_message(json.dumps(text))
    assert isinstance(action, Action)
    assert (action.op, action.key) == (message["op"], "k-1")
    assert action.arguments() == (message.get("args") if arguments is None else arguments)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"type": "action", "op": "fly"}', "unknown action 'fly'; expected one of bet, "),
        ('{"type": "action"}', 'an action needs an "op"'),
        ('{"type": "action", "op": "bet", "args": {"box": 1}}', "bet: needs amount"),
        ('{"type": "action", "op": "bet"}', 'bet: "args" must be an object with box, amount'),
        ('{"type": "action", "op": "hit", "args": {"box": 1}}', "hit: unknown argument 'box'"),
        ('{"type": "action", "op": "hit", "args": {"player": "bob"}}', "unknown argument"),
        ('{"type": "action", "op": "bet", "args": {"box": 1, "amount": 25}}', "exact money"),
        ('{"type": "action", "op": "bet", "args": {"box": 0, "amount": "5"}}', "bet: box: "),
        ('{"type": "action", "op": "follow", "args": {"box": true}}', "box must be a box number"),
        ('{"type": "action", "op": "card", "args": {"card": 10}}', "card must be text"),
        ('{"type": "action", "op": "hit", "key": ""}', "key: "),
        ('{"type": "action", "op": "hit", "args": {}, "x": 1}', "x: Extra inputs"),
        # Digits of other scripts, which Decimal would read ("٢٥" as 25), are refused.
        ('{"type": "action", "op": "bet", "args": {"box": 1, "amount": "٢٥"}}', "exact money"),
        ('{"type": "action", "op": "bet", "args": {"box": 1, "amount": "\uff125"}}', "exact"),
        ('{"type": "take_box", "box": "1"}', "box: Input should be a valid integer"),
        ('{"type": "take_box", "box": true}', "box: Input should be a valid integer"),
        ('{"type": "leave_box", "box": 1.0}', "numbers with a fraction are not taken"),
    ],
)
def test_a_wrong_action_is_refused_as_invalid_in_words(text: str, words: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(text)
    assert refused.value.code == "invalid"
    assert words in str(refused.value)


def test_the_server_messages_are_read_back_and_a_stray_field_is_not() -> None:
    ack = read_server_message('{"type": "ack", "op": "bet", "seq": 3, "retried": false}')
    assert isinstance(ack, Ack) and (ack.op, ack.seq, ack.retried, ack.key) == (
        "bet",
        3,
        False,
        None,
    )
    with pytest.raises(ValueError, match="extra"):
        read_server_message({"type": "pong", "extra": 1})
