"""Fuzzing: the HTTP API from its OpenAPI description (schemathesis), the WebSocket
messages from generated JSON (Hypothesis).  No input may crash the server, move money,
or get an answer other than the documented ones."""

from __future__ import annotations

import json
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.server.app import Settings, create_app
from croupier.server.protocol import ProtocolError, parse_message, read_server_message
from croupier.server.runtime import OPS, TableConfig

# Hundreds of generated requests: the slow tier.
pytestmark = pytest.mark.slow

_DIRECTORY = Path(tempfile.mkdtemp(prefix="croupier-fuzz-"))
APP = create_app(
    Settings(
        url=f"sqlite:///{_DIRECTORY / 'fuzz.db'}",
        tables=(TableConfig(id="rws", preset="rws-v5"),),
    )
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
#: The live table's server, apart: the HTTP fuzzing's failed logins make its client's
#: address wait (20 failures from one address), which would keep this player out too.
LIVE = create_app(
    Settings(
        url=f"sqlite:///{_DIRECTORY / 'live.db'}",
        tables=(TableConfig(id="rws", preset="rws-v5"),),
    )
)
CHIPS = Decimal("1000.00")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_http_api_answers_every_generated_request_as_it_documents(case: Any) -> None:
    case.call_and_validate()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
_OPS = st.sampled_from([*sorted(OPS), "fly"])
_MESSAGES = st.one_of(
    _JSON.map(json.dumps),
    st.text(max_size=60),
    st.builds(
        lambda op, args, key: json.dumps({"type": "action", "op": op, "args": args, "key": key}),
        _OPS,
        st.dictionaries(st.sampled_from(["box", "amount", "bet", "kind", "card", "x"]), _JSON),
        st.none() | st.text(min_size=1, max_size=10),
    ),
    st.builds(
        lambda kind, box: json.dumps({"type": kind, "box": box}),
        st.sampled_from(["take_box", "leave_box", "ping", "auth"]),
        _JSON,
    ),
)


@settings(max_examples=300, deadline=None)
@given(text=_MESSAGES)
def test_a_message_is_either_parsed_or_refused_with_a_typed_error(text: str) -> None:
    try:
        message = parse_message(text)
    except ProtocolError as error:
        assert error.code in ("malformed", "unknown_type", "invalid") and str(error)
    else:
        assert message.type in ("auth", "ping", "take_box", "leave_box", "confirm_bets", "action")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=st.lists(_MESSAGES, min_size=1, max_size=8))
def test_generated_messages_to_a_live_table_never_break_it_or_move_money(
    texts: list[str],
) -> None:
    with TestClient(LIVE) as client:
        client.post("/api/accounts", json={"name": "fuzzer", "password": "fuzzer-password"})
        token = client.post(
            "/api/sessions", json={"name": "fuzzer", "password": "fuzzer-password"}
        ).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        with client.websocket_connect("/ws/tables/rws") as socket:
            assert socket.receive_json()["type"] == "welcome"
            socket.send_json({"type": "auth", "token": token})
            for text in texts:
                socket.send_text(text)
                socket.send_json({"type": "ping"})
                answers: list[dict[str, Any]] = []
                # The ping is answered by a pong, or refused when the player's rate (one
                # for all his sockets, across examples) is spent.
                while not answers or not (
                    answers[-1]["type"] == "pong" or answers[-1].get("code") == "rate_limited"
                ):
                    answers.append(socket.receive_json())
                for answer in answers:
                    read_server_message(answer)  # one of the messages the protocol describes
                    assert answer["type"] in (
                        "welcome",
                        "balance",
                        "state",
                        "events",
                        "ack",
                        "error",
                        "pong",
                    )
                    if answer["type"] == "error":
                        assert answer["code"] and answer["message"]
            # Whatever was accepted, the money off the balance is the bets on the table.
            state = client.get("/api/tables/rws").json()
            after = Decimal(client.get("/api/me", headers=headers).json()["balance"])
            if state["phase"] == "betting":
                mine = [Decimal(b["amount"]) for b in state["bets"] if b["player"] == "fuzzer"]
                assert after == CHIPS - sum(mine, Decimal(0))
            assert after >= 0
