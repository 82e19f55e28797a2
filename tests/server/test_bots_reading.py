"""The bots' fast path, held to their choice: a state a bot leaves unparsed never asks
it for an action, with the server's JSON written with spaces or without."""

from __future__ import annotations

import json
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.server.bots import _choose, _may_ask, _offer_pattern, _state_heading, message_type

PHASES = ("betting", "dealing", "offers", "player-turns", "dealer-turn", "settled", "void")
NAMES = ("bot-0001", "bot-0002", "ann", "zoë", 'say "hi"', "offers", "yours")


def spaced(message: dict[str, Any]) -> str:
    return json.dumps(message)


def compact(message: dict[str, Any]) -> str:
    return orjson.dumps(message).decode()


@st.composite
def states(draw: st.DrawFn) -> dict[str, Any]:
    """A table state as the server writes it (the keys in its order), random within
    what a table may show."""
    phase = draw(st.sampled_from(PHASES))
    players = st.sampled_from(NAMES)
    box_numbers = st.integers(1, 7)
    bets = draw(
        st.lists(
            st.fixed_dictionaries(
                {"player": players, "box": box_numbers, "bet": st.just("main")}
            ).map(lambda bet: {**bet, "amount": "25.00"}),
            max_size=6,
        )
    )
    offers = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "kind": st.sampled_from(("insurance", "surrender", "follow-split")),
                    "player": players,
                    "box": box_numbers,
                    "hand": st.just(1),
                }
            ),
            max_size=4,
        )
    )
    seated_at = draw(st.dictionaries(box_numbers, players, max_size=7))
    boxes: list[dict[str, Any]] = [
        {
            "box": number,
            "seated": seated,
            "hands": [
                {
                    "hand": 1,
                    "cards": ["8S", "8H"],
                    "total": draw(st.integers(4, 21)),
                    "stake": "25.00",
                    # A player's name is a key here: it may read like a state's own key.
                    "stakes": {seated: "25.00"},
                }
            ],
        }
        for number, seated in sorted(seated_at.items())
    ]
    turn: dict[str, Any] | None = None
    legal: list[str] = []
    has_turn = draw(st.booleans())
    if boxes and has_turn:
        yours = draw(st.booleans())
        turn = {"box": boxes[0]["box"], "hand": 1, "yours": yours}
        if yours:
            legal = draw(st.sampled_from((["hit", "stand"], ["stand"], [])))
    seats = draw(st.dictionaries(box_numbers.map(str), players, max_size=3))
    return {
        "table": "t000",
        "rules": "rws-v5",
        "rules_version": 2,
        "round": draw(st.sampled_from(("r1", "r2"))),
        "number": 1,
        "phase": phase,
        "minimum_bet": "25.00",
        "boxes": boxes,
        "bets": bets if phase == "betting" else [],
        "seats": dict(sorted(seats.items())),
        "offers": offers if phase != "betting" else [],
        "turn": turn,
        "legal_actions": legal,
        "now": 1795392000.25,
        "results": [],
    }


@settings(max_examples=400)
@given(
    state=states(),
    name=st.sampled_from(NAMES),
    box=st.integers(1, 7),
    behind=st.booleans(),
    encode=st.sampled_from((spaced, compact)),
)
def test_a_state_the_bot_does_not_parse_asks_nothing_of_it(
    state: dict[str, Any], name: str, box: int, behind: bool, encode: Any
) -> None:
    text = encode({"type": "state", "state": state})
    assert message_type(text) == "state"
    assert _state_heading(text) == (state["round"], state["phase"])
    # The bot knows it has bet this round once its bet was accepted: it is among the bets.
    has_bet = any(bet["player"] == name for bet in state["bets"])
    bet_round = state["round"] if has_bet else "an earlier round"
    if _choose(state, name, box, behind=behind) is not None:
        asked = _may_ask(text, state["round"], state["phase"], bet_round, _offer_pattern(name))
        assert asked, text


def test_the_type_is_read_from_either_encoding() -> None:
    for encode in (spaced, compact):
        assert message_type(encode({"type": "events", "round": "r1", "events": []})) == "events"
        assert message_type(encode({"type": "ack", "op": "bet", "key": "k"})) == "ack"
    # Not written first: unknown, and the bot parses the message.
    assert message_type('{"round": "r1", "type": "events"}') is None


def test_an_offer_to_another_player_is_left_unparsed() -> None:
    state: dict[str, Any] = {"round": "r1", "phase": "offers", "turn": None, "legal_actions": []}
    offer = {"kind": "surrender", "player": "bot-0002", "box": 2, "hand": 1}
    for encode in (spaced, compact):
        text = encode({"type": "state", "state": {**state, "offers": [offer]}})
        assert not _may_ask(text, "r1", "offers", None, _offer_pattern("bot-0001"))
        assert _may_ask(text, "r1", "offers", None, _offer_pattern("bot-0002"))
        # A name that JSON may write in more than one way: always parsed.
        assert _may_ask(text, "r1", "offers", None, _offer_pattern("zoë"))
