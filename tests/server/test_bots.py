"""The load and crash tests' bots choose as a player at the table would."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

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


class _Table:
    """A table server on loopback that asks the bot to bet, answers its bet as the
    server does (ack, events), asks it to decide on its hand, answers the decision with
    its events, then stops the bot."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.received: list[dict[str, Any]] = []

    async def serve(self, socket: ServerConnection) -> None:
        # A ping first, right behind the handshake: the bot answers it.
        await asyncio.wait_for(await socket.ping(b"are you there"), 5)
        state = {**betting([]), "round": "r1", "turn": None, "offers": [], "boxes": []}
        # On connecting, the table as anyone sees it; signed in, as the player does.
        await socket.send(json.dumps({"type": "welcome", "you": None, "state": state}))
        async for text in socket:
            message = json.loads(text)
            self.received.append(message)
            if message["type"] == "auth":
                welcome = {"type": "welcome", "you": "ann", "state": state}
                await socket.send(json.dumps(welcome))
            if message["type"] == "action":
                await socket.send(json.dumps({"type": "ack", "key": message["key"]}))
                # Long enough to come in several pieces, and sent in fragments.
                events = json.dumps({"type": "events", "round": "r1", "events": ["x" * 70_000]})
                await socket.send([events[:1000], events[1000:]])
                if message["op"] == "bet":
                    hand = {"hand": 1, "total": 12, "cards": ["10H", "2S"]}
                    turn = {
                        **state,
                        "phase": "playing",
                        "turn": {"box": 1, "hand": 1, "yours": True},
                        "legal_actions": ["hit", "stand"],
                        "boxes": [{"box": 1, "hands": [hand]}],
                    }
                    await socket.send(json.dumps({"type": "state", "state": turn}))
                    continue
                await asyncio.sleep(0.05)  # the bot reads the events, then is stopped
                self.stop.set()


async def _play_against(table: _Table, stats: BotStats, token: str | None) -> None:
    async with serve(table.serve, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        await run_bot(f"http://127.0.0.1:{port}", "ann", "rws", 1, table.stop, stats, token=token)


def test_a_bot_times_its_action_to_the_events_that_answer_it() -> None:
    """The load benchmark's latency: from a decision sent to the events frame after it
    (read by its type alone, the events left unparsed); a bet is timed to its ack (its
    events go out with the bets beside it, at most every 0.1 s)."""

    async def scenario() -> tuple[BotStats, _Table]:
        table = _Table(asyncio.Event())
        stats = BotStats()
        await _play_against(table, stats, "t")
        return stats, table

    stats, table = asyncio.run(scenario())
    assert [message["type"] for message in table.received] == ["auth", "action", "action"]
    assert table.received[0]["token"] == "t"
    assert [message["op"] for message in table.received[1:]] == ["bet", "hit"]
    assert stats.actions == 2 and stats.errors == 0 and stats.welcomed == 1
    assert len(stats.bet_answers) == 1 and 0 <= stats.bet_answers[0] < 5
    assert len(stats.latencies) == 1 and 0 <= stats.latencies[0] < 5
    # The two welcomes, each action's ack and events (two fragments: one message), and
    # the state that asks for the decision; the sign-in is the welcome that names the bot.
    assert stats.frames == 7


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

    async def scenario() -> tuple[BotStats, _Table]:
        table = _Table(asyncio.Event())
        monkeypatch.setattr("croupier.server.bots.sign_up", sign_up)
        stats = BotStats()
        await _play_against(table, stats, None)
        return stats, table

    stats, table = asyncio.run(scenario())
    assert answers == ["cut", "token"]
    assert stats.reconnects == 1 and stats.actions == 2  # the bet and the decision asked for
    assert [message["type"] for message in table.received] == ["auth", "action", "action"]


def test_a_bot_whose_socket_the_server_closes_comes_back() -> None:
    """A socket the server closes while the bot plays (a server stopped, a process
    gone) is opened again: the bot signs in anew and plays on."""
    opened: list[int] = []

    async def scenario() -> BotStats:
        stop = asyncio.Event()
        table = _Table(stop)

        async def flaky(socket: ServerConnection) -> None:
            opened.append(1)
            if len(opened) == 1:
                await socket.recv()  # the sign-in, then the server goes
                await socket.close()
                return
            await table.serve(socket)

        stats = BotStats()
        async with serve(flaky, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            await run_bot(f"http://127.0.0.1:{port}", "ann", "rws", 1, stop, stats, token="t")
        return stats

    stats = asyncio.run(scenario())
    assert len(opened) == 2 and stats.reconnects == 1 and stats.actions == 2


def test_a_crowd_behind_waits_to_be_ready_and_skips_a_round_already_running() -> None:
    """The load benchmark's crowd behind a box bets only once every one of it has
    signed in (``ready``), and not in a round whose window was already running before
    then (one left open by the bots of the phase before): in the next round."""
    from croupier.server.bots import _Player

    def state(round_id: str, bets: list[dict[str, Any]]) -> str:
        table = {**betting(bets), "round": round_id, "turn": None, "offers": [], "boxes": []}
        return json.dumps({"type": "state", "state": table})

    ready = asyncio.Event()
    player = _Player("zed", 1, BotStats(), behind=True, ready=ready)
    assert player.heard(state("r1", [bet("ann", 1)])) is None  # not ready yet
    ready.set()
    assert player.heard(state("r1", [bet("ann", 1), bet("bob", 2)])) is None  # r1 ran already
    assert player.heard(state("r2", [bet("ann", 1)])) == ("bet", {"box": 1, "amount": "25.00"})
