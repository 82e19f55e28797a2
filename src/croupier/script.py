"""Scripted rounds: rules, shoe order, bets and decisions in; every event and result out.

This is the contract behind ``croupier round FILE``; it is extended, never changed.

>>> report = play_script({
...     "rules": "rws-v5",
...     "shoe": ["9S", "KD", "7H", "7C"],
...     "bets": [{"box": 1, "player": "ann", "main": "100"}],
...     "decisions": {"ann": ["stand"]},
... })
>>> report["dealer"], report["players"], report["house_net"], report["void"]
({'cards': ['KD', '7C'], 'total': 17}, {'ann': '-100.00'}, '100.00', False)

A round the rules void is not an error: every bet comes back.

>>> report = play_script({"rules": "rws-v5", "shoe": ["9S", "KD"],
...                       "bets": [{"box": 1, "player": "ann", "main": "100"}]})
>>> report["void"], report["players"]
('the shoe has no card left to complete the round (RWS v5 5.5.3)', {'ann': '0.00'})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from croupier.cards import DrawnCard, parse_drawn_card
from croupier.commands import (
    Command,
    Decline,
    DoubleDown,
    Follow,
    Hit,
    Split,
    Stand,
    Surrender,
    TakeEvenMoney,
    TakeInsurance,
    command_from_json,
    command_schema,
)
from croupier.errors import CroupierError
from croupier.inputs import apply_input
from croupier.presets import find_preset
from croupier.round import MAIN, OfferKind, Phase, Round
from croupier.rules import SIDE_BET_KEYS, Rules
from croupier.shoe import DealerEntry, FixedOrder

__all__ = ["ScriptError", "play_script", "script_schema"]

_TOP_KEYS = (
    "rules",
    "rules_version",
    "rules_values",
    "overrides",
    "shoe",
    "bets",
    "decisions",
    "inputs",
    "recall",
)
_BET_KEYS = ("box", "player", MAIN, *SIDE_BET_KEYS)
# The decision words are the commands' own (``Command.word``).
_TURNS: dict[str, type[Command]] = {
    str(kind.word): kind for kind in (Hit, Stand, DoubleDown, Split, Surrender)
}
_ACCEPTS: dict[OfferKind, type[Command]] = {
    OfferKind.INSURANCE: TakeInsurance,
    OfferKind.EVEN_MONEY: TakeEvenMoney,
    OfferKind.SURRENDER: Surrender,
    OfferKind.FOLLOW_SPLIT: Follow,
    OfferKind.FOLLOW_DOUBLE: Follow,
}
_TURN_ACTIONS = tuple(_TURNS)
_OFFER_ANSWERS = tuple(dict.fromkeys([*(str(kind.word) for kind in _ACCEPTS.values()), "decline"]))


class ScriptError(CroupierError):
    """A round script that cannot be played as written; the message says what and where."""


def play_script(script: object) -> dict[str, object]:
    """Play one scripted round and return its report (JSON values).

    Raises:
        ScriptError: a malformed script, an unknown card, an illegal decision, or
            decisions that run out.
    """
    if not isinstance(script, Mapping):
        raise ScriptError("the script must be a JSON object")
    unknown = [key for key in script if key not in _TOP_KEYS]
    if unknown:
        raise ScriptError(f"unknown key {unknown[0]!r}; a script has: {', '.join(_TOP_KEYS)}")
    rules = _read_rules(script)
    cards = _read_shoe(script.get("shoe"))
    if "inputs" in script:
        if "bets" in script or "decisions" in script:
            raise ScriptError('a script gives either "inputs" or "bets" and "decisions", not both')
        inputs = script["inputs"]
        entered = isinstance(inputs, list) and any(
            isinstance(entry, Mapping) and entry.get("op") == "card" for entry in inputs
        )
        # A dealer's table: its cards are among the inputs, entered one by one.
        source = DealerEntry() if entered else FixedOrder(cards)
        game = Round(rules, source)
        _replay_inputs(game, inputs)
        return report(game)
    game = Round(rules, FixedOrder(cards))
    decisions = _read_decisions(script.get("decisions", {}))
    _place_bets(game, script.get("bets"))
    try:
        game.close_bets()
    except CroupierError as error:
        raise ScriptError(f"bets: {error}") from None
    _play(game, decisions)
    return report(game, unused={player: list(left) for player, left in decisions.items() if left})


def script_schema() -> dict[str, Any]:
    """A JSON Schema of the round script, its inputs and decision words read from the commands.

    >>> schema = script_schema()
    >>> schema["properties"]["inputs"]["items"]["oneOf"][0]["title"]
    'PlaceBet'
    >>> sorted(schema["$defs"]["decision"]["properties"]["word"]["enum"])[:3]
    ['decline', 'double', 'even-money']
    """
    commands = command_schema()
    inputs = []
    for variant in commands["oneOf"]:
        item = dict(variant)
        item["properties"] = {**variant["properties"], "at": {"type": "string"}}
        inputs.append(item)
    words = sorted({*_TURN_ACTIONS, *_OFFER_ANSWERS})
    side_bets = {key: {"type": "string"} for key in SIDE_BET_KEYS}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://croupier.invalid/schema/round-script.json",
        "title": "croupier round script",
        "type": "object",
        "additionalProperties": False,
        "required": ["rules", "shoe"],
        "properties": {
            "rules": {"type": "string", "description": "a preset name, such as rws-v5"},
            "rules_version": {"type": "integer"},
            "rules_values": {
                "type": "object",
                "description": "every rule the round was played under; a replay under "
                "other rules is refused",
            },
            "overrides": {"type": "object"},
            "shoe": {"type": "array", "items": {"type": "string"}},
            "bets": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["box", "player"],
                    "additionalProperties": False,
                    "properties": {
                        "box": {"type": "integer", "minimum": 1},
                        "player": {"type": "string", "minLength": 1},
                        MAIN: {"type": "string"},
                        **side_bets,
                    },
                },
            },
            "decisions": {
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "items": {
                        "type": "string",
                        "pattern": "^\\s*(" + "|".join(words) + ")(\\s+\\S+)?\\s*$",
                    },
                },
            },
            "inputs": {"type": "array", "items": {"oneOf": inputs}},
            "recall": {"type": "object"},
        },
        "$defs": {
            "decision": {
                "description": "a decision word, then an amount where it takes one",
                "properties": {"word": {"enum": words}},
            }
        },
    }


def _replay_inputs(game: Round, inputs: object) -> None:
    """Apply a recorded round's inputs in order (a table's game recall record)."""
    if not isinstance(inputs, list):
        raise ScriptError("inputs: must be a list of recorded inputs")
    for index, entry in enumerate(inputs):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("op"), str):
            raise ScriptError(f'inputs[{index}]: must be an object with an "op"')
        player = entry.get("player")
        args = entry.get("args", {})
        if (player is not None and not isinstance(player, str)) or not isinstance(args, Mapping):
            raise ScriptError(f'inputs[{index}]: "player" must be a name and "args" an object')
        try:
            apply_input(game, entry["op"], player, args)
        except CroupierError as error:
            raise ScriptError(f"inputs[{index}] ({entry['op']}): {error}") from None


def _read_rules(script: Mapping[str, object]) -> Rules:
    name = script.get("rules")
    if not isinstance(name, str):
        raise ScriptError("rules: give a preset name such as 'rws-v5'")
    try:
        preset = find_preset(name)
    except CroupierError as error:
        raise ScriptError(f"rules: {error}") from None
    version = script.get("rules_version")
    if version is not None and version != preset.version:
        raise ScriptError(
            f"rules_version: the round was played under {name} version {version}; "
            f"this croupier has version {preset.version}"
        )
    rules = preset.rules
    overrides = script.get("overrides", {})
    if not isinstance(overrides, Mapping):
        raise ScriptError("overrides: must be an object of rule names and values")
    try:
        rules = preset.replace(**{str(key): value for key, value in overrides.items()})
    except CroupierError as error:
        raise ScriptError(f"overrides: {error}") from None
    recorded = script.get("rules_values")
    if recorded is not None and recorded != rules.to_json():
        current = rules.to_json()
        differing = sorted(
            key
            for key in current
            if not isinstance(recorded, Mapping) or recorded.get(key) != current[key]
        )
        raise ScriptError(
            f"rules_values: the round was played under other rules than {name} gives here "
            f"({', '.join(differing[:5]) or 'unknown rules'} differ); it is not replayed "
            "under different rules"
        )
    return rules


def _read_shoe(shoe: object) -> list[DrawnCard]:
    if not isinstance(shoe, list):
        raise ScriptError('shoe: must be a list of cards such as ["9S", "KD"]')
    cards: list[DrawnCard] = []
    for index, text in enumerate(shoe):
        try:
            cards.append(parse_drawn_card(text))
        except CroupierError as error:
            raise ScriptError(f"shoe[{index}]: {error}") from None
    return cards


def _read_decisions(decisions: object) -> dict[str, list[str]]:
    if not isinstance(decisions, Mapping):
        raise ScriptError("decisions: must be an object of player names and lists of decisions")
    read: dict[str, list[str]] = {}
    for player, answers in decisions.items():
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            raise ScriptError(f'decisions.{player}: must be a list of texts such as "hit"')
        for index, answer in enumerate(answers):
            word = answer.split()[0] if answer.split() else ""
            if word not in _TURN_ACTIONS + _OFFER_ANSWERS:
                raise ScriptError(
                    f"decisions.{player}[{index}]: unknown decision {answer!r}; expected one of "
                    f"{', '.join(dict.fromkeys(_TURN_ACTIONS + _OFFER_ANSWERS))}"
                )
        read[str(player)] = [answer.strip() for answer in answers]
    return read


def _place_bets(game: Round, bets: object) -> None:
    if not isinstance(bets, list) or not bets:
        raise ScriptError("bets: must be a non-empty list of bets")
    for index, bet in enumerate(bets):
        if not isinstance(bet, Mapping):
            raise ScriptError(f"bets[{index}]: must be an object")
        unknown = [key for key in bet if key not in _BET_KEYS]
        if unknown:
            raise ScriptError(
                f"bets[{index}]: unknown key {unknown[0]!r}; a bet has: {', '.join(_BET_KEYS)}"
            )
        box = bet.get("box")
        is_box = isinstance(box, int) and not isinstance(box, bool)
        if not isinstance(bet.get("player"), str) or not is_box:
            raise ScriptError(f'bets[{index}]: needs a "player" name and a "box" number')
        for key in (MAIN, *SIDE_BET_KEYS):
            if key in bet and isinstance(bet[key], int):  # a float is refused as such
                raise ScriptError(
                    f"bets[{index}].{key}: an amount is exact money written as text, such as "
                    f'"100", not {bet[key]!r}'
                )
    # Initial bets first, in the order listed (the first on a box is its seated player),
    # then side bets, which need an initial bet on their box (RWS v5 3.9).
    for keys in ((MAIN,), SIDE_BET_KEYS):
        for index, bet in enumerate(bets):
            for key in keys:
                if key in bet:
                    try:
                        game.place_bet(bet["player"], bet["box"], bet[key], key)
                    except CroupierError as error:
                        raise ScriptError(f"bets[{index}].{key}: {error}") from None


def _play(game: Round, decisions: dict[str, list[str]]) -> None:
    used: dict[str, int] = {player: 0 for player in decisions}

    def next_answer(player: str) -> str | None:
        answers = decisions.get(player, [])
        return answers[0] if answers else None

    def take(player: str) -> str:
        used[player] = used.get(player, 0) + 1
        return decisions[player].pop(0)

    while game.phase not in (Phase.SETTLED, Phase.VOID):
        if game.offers:
            offer = game.offers[0]
            answer = next_answer(offer.player)
            word, amount = _split_answer(answer)
            where = f"decisions.{offer.player}[{used.get(offer.player, 0)}]"
            accepting = _ACCEPTS[offer.kind]
            try:
                if word == accepting.word:
                    take(offer.player)
                    args: dict[str, object] = {"box": offer.box}
                    if amount is not None:
                        args["amount"] = amount
                    game.apply(_command(accepting, offer.player, args))
                else:
                    if word == Decline.word:
                        take(offer.player)
                    game.apply(Decline(offer.player, offer.box, offer.kind))
            except CroupierError as error:
                raise ScriptError(f"{where}: {error}") from None
            continue
        turn = game.current_turn
        if turn is None:  # pragma: no cover - a fixed order never waits for a dealer
            raise ScriptError(f"the round stopped in phase {game.phase.value}")
        box, hand = turn
        player = game.seated_player(box) or ""
        answer = next_answer(player)
        legal = ", ".join(action.value for action in game.legal_actions())
        if answer is None:
            raise ScriptError(
                f"decisions.{player}: ran out; a decision is needed for box {box} hand {hand} "
                f"(legal: {legal})"
            )
        where = f"decisions.{player}[{used.get(player, 0)}]"
        word, amount = _split_answer(answer)
        take(player)
        decision = _TURNS.get(word)
        if decision is None:
            raise ScriptError(
                f"{where}: {answer!r} is not a decision for box {box} hand {hand} (legal: {legal})"
            )
        try:
            game.apply(_command(decision, player, {} if amount is None else {"amount": amount}))
        except CroupierError as error:
            raise ScriptError(f"{where}: {error}") from None


def _command(kind: type[Command], player: str, args: dict[str, object]) -> Command:
    """A decision word's command, its arguments read as a recorded input's are."""
    return command_from_json({"op": kind.op, "player": player, "args": args})


def _split_answer(answer: str | None) -> tuple[str, str | None]:
    if not answer:
        return "", None
    parts = answer.split()
    return parts[0], parts[1] if len(parts) > 1 else None


def _money(amount: Decimal) -> str:
    return str(amount)


def report(game: Round, *, unused: Mapping[str, Sequence[str]] | None = None) -> dict[str, object]:
    """The JSON report of a round: dealer, boxes, results, players, house net, void, events."""
    boxes = [
        {
            "box": box.number,
            "seated": box.seated,
            "hands": [hand.to_json() for hand in box.hands],
        }
        for box in game.boxes
    ]
    return {
        "rules": game.rules.name,
        "dealer": {"cards": [str(card) for card in game.dealer_cards], "total": game.dealer_total},
        "boxes": boxes,
        "results": [result.to_json() for result in game.results],
        "players": {player: _money(net) for player, net in game.net_by_player().items()},
        "house_net": _money(game.house_net),
        "void": game.void_reason if game.void_reason is not None else False,
        "unused_decisions": dict(unused or {}),
        "events": [event.to_json() for event in game.events],
    }
