"""The load and crash tests' bots choose as a player at the table would."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from croupier.server.bots import BotStats, _choose, run_bot


def betting(bets: list[dict[str, Any]], seats: dict[str, str] | None = None) -> dict[str, Any]:
    return {"phase": "betting", "bets": bets, "seats": seats or {}, "minimum_bet": "25.00"}


def bet(player: str, box: int) -> dict[str, Any]:
    return {"player": player, "box": box, "bet": "main", "amount": "25.00"}


def test_a_bot_betting_behind_waits_for_the_box_to_open_rws_v5_1_26() -> None:
    """RWS v5 1.26: a player may bet behind a box another player plays. The bot bets
    behind only once someone else's bet opened the box, behind its holder if reserved,
    and once a round."""
    assert _choose(betting([]), "zed", 1, behind=True) is None
    assert _choose(betting([bet("ann", 2)]), "zed", 1, behind=True) is None
    assert _choose(betting([bet("ann", 1)]), "zed", 1, behind=True) == (
        "bet",
        {"box": 1, "amount": "25.00"},
    )
    # A reserved box opens with its holder's bet, not another's.
    reserved = {"1": "bob"}
    assert _choose(betting([bet("ann", 1)], reserved), "zed", 1, behind=True) is None
    assert _choose(betting([bet("bob", 1)], reserved), "zed", 1, behind=True) is not None
    assert _choose(betting([bet("ann", 1), bet("zed", 1)]), "zed", 1, behind=True) is None


def test_a_seated_bot_bets_on_its_own_box_unless_another_holds_it() -> None:
    assert _choose(betting([]), "ann", 1) == ("bet", {"box": 1, "amount": "25.00"})
    assert _choose(betting([], {"1": "bob"}), "ann", 1) is None
    assert _choose(betting([bet("ann", 1)]), "ann", 1) is None


class _Socket:
    """A table socket that asks the bot to bet, then answers its bet as the server does
    (ack, events, the new state), then stops the bot."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.sent: list[dict[str, Any]] = []
        self.frames: asyncio.Queue[str] = asyncio.Queue()
        state = {**betting([]), "round": "r1", "turn": None, "offers": [], "boxes": []}
        self.frames.put_nowait(json.dumps({"type": "welcome", "state": state}))

    async def __aenter__(self) -> _Socket:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def send(self, text: str) -> None:
        message = json.loads(text)
        self.sent.append(message)
        if message["type"] == "action":
            self.frames.put_nowait(json.dumps({"type": "ack", "key": message["key"]}))
            self.frames.put_nowait(json.dumps({"type": "events", "round": "r1", "events": []}))

    async def recv(self) -> str:
        frame = await self.frames.get()
        if frame.startswith('{"type": "events"'):
            self.stop.set()  # the bot reads this frame, then stops
        return frame


def test_a_bot_times_its_action_to_the_events_that_answer_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The load benchmark's latency: from an action sent to the events frame after it
    (read by its type alone, the events left unparsed)."""

    async def scenario() -> tuple[BotStats, _Socket]:
        stop = asyncio.Event()
        socket = _Socket(stop)
        monkeypatch.setattr("websockets.connect", lambda url, **_: socket)
        stats = BotStats()
        await run_bot("http://table", "ann", "rws", 1, stop, stats, token="t")
        return stats, socket

    stats, socket = asyncio.run(scenario())
    assert [message["type"] for message in socket.sent] == ["auth", "action"]
    assert socket.sent[1]["op"] == "bet"
    assert stats.actions == 1 and stats.errors == 0
    assert len(stats.latencies) == 1 and 0 <= stats.latencies[0] < 5


def test_a_bot_signs_up_again_when_the_server_dies_mid_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server killed while it answers a sign-up cuts the reply short
    (``http.client.IncompleteRead``, an HTTP error, not an ``OSError``): the bot tries
    again, as after any lost connection, instead of dying (the crash test's bots
    stopped playing when one did)."""
    import http.client

    answers: list[str] = []

    def sign_up(base: str, name: str) -> str:
        if not answers:
            answers.append("cut")
            raise http.client.IncompleteRead(b"", 83)
        answers.append("token")
        return "t"

    async def scenario() -> tuple[BotStats, _Socket]:
        stop = asyncio.Event()
        socket = _Socket(stop)
        monkeypatch.setattr("croupier.server.bots.sign_up", sign_up)
        monkeypatch.setattr("websockets.connect", lambda url, **_: socket)
        stats = BotStats()
        await run_bot("http://table", "ann", "rws", 1, stop, stats)
        return stats, socket

    stats, socket = asyncio.run(scenario())
    assert answers == ["cut", "token"]
    assert stats.reconnects == 1 and stats.actions == 1
    assert [message["type"] for message in socket.sent] == ["auth", "action"]
