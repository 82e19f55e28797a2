"""Bot players: real clients of a running server, for load tests and crash tests.

A bot signs up over HTTP, joins a table over a WebSocket and plays: it bets the
table minimum on its own box, declines every offer, and hits below 17.  A bot that
bets behind (RWS v5 1.26) bets the minimum on another player's box once that player
has bet, and declines every offer (the box's decisions are its seated player's).  It records
the time from each decision it sends to the event that answers it.  A bot whose
connection drops (the server was killed) reconnects until told to stop.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.exceptions import WebSocketException

__all__ = ["BotStats", "run_bot", "sign_up"]

PASSWORD = "bot-password-1"


@dataclass
class BotStats:
    """What bots did: actions sent and answered, latencies (seconds), reconnections."""

    actions: int = 0
    errors: int = 0
    rounds: int = 0
    reconnects: int = 0
    latencies: list[float] = field(default_factory=list)
    error_codes: dict[str, int] = field(default_factory=dict)
    last_errors: list[str] = field(default_factory=list)


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


def sign_up(base: str, name: str) -> str:
    """Register ``name`` (if new) and log in; the session token."""
    try:
        _post(f"{base}/api/accounts", {"name": name, "password": PASSWORD})
    except urllib.error.HTTPError as error:
        if error.code != 409:  # 409: the name is taken, from an earlier run
            raise
    return str(_post(f"{base}/api/sessions", {"name": name, "password": PASSWORD})["token"])


async def run_bot(
    base: str,
    name: str,
    table: str,
    box: int,
    stop: asyncio.Event,
    stats: BotStats,
    *,
    think: float = 0.0,
    token: str | None = None,
    behind: bool = False,
) -> None:
    """Play at ``table`` on ``box`` until ``stop`` is set, reconnecting after failures.

    ``think`` is the pause before each action; ``token`` a session to use (else the
    bot signs up and logs in, and again after each reconnection); ``behind``: bet
    behind the player seated at ``box`` instead of taking it.
    """
    given = token
    while not stop.is_set():
        try:
            if token is None:
                token = await asyncio.to_thread(sign_up, base, name)
            await _play(base, token, name, table, box, stop, stats, think, behind)
        except (OSError, WebSocketException, urllib.error.URLError):
            stats.reconnects += 1
            token = given
            await asyncio.sleep(0.2)


async def _play(
    base: str,
    token: str,
    name: str,
    table: str,
    box: int,
    stop: asyncio.Event,
    stats: BotStats,
    think: float,
    behind: bool,
) -> None:
    url = base.replace("http", "ws", 1) + f"/ws/tables/{table}"
    async with websockets.connect(url, max_size=2**20) as socket:
        await socket.send(json.dumps({"type": "auth", "token": token}))
        sent: dict[str, float] = {}
        counter = 0
        # Keys are never reused: a reconnected bot's new commands are not retries.
        connection = secrets.token_hex(4)
        acted: str | None = None
        pending: str | None = None  # an action sent and not yet answered
        last_round = None
        while not stop.is_set():
            try:
                async with asyncio.timeout(0.5):  # a timer: no task per message
                    text = await socket.recv()
            except TimeoutError:
                continue
            if isinstance(text, str) and text.startswith('{"type": "events"'):
                # The events answer what was sent; the state that follows says what
                # to do next.  Only their arrival counts: they are not parsed.
                if sent:
                    now = time.perf_counter()
                    stats.latencies.extend(now - at for at in sent.values())
                    sent.clear()
                continue
            message = json.loads(text)
            kind = message["type"]
            if kind in ("ack", "error") and message.get("key") == pending:
                pending = None
            if kind == "error":
                stats.errors += 1
                code = str(message.get("code"))
                stats.error_codes[code] = stats.error_codes.get(code, 0) + 1
                stats.last_errors = [*stats.last_errors[-9:], str(message.get("message"))]
                sent.pop(str(message.get("key")), None)
                acted = None
                continue
            if kind not in ("state", "welcome"):
                continue
            state = message["state"]
            if state["round"] != last_round and state["phase"] in ("settled", "void"):
                last_round = state["round"]
                stats.rounds += 1
            action = _choose(state, name, box, behind=behind)
            if action is None or pending is not None:
                continue
            # One action per decision point: the same table state is not answered twice.
            hands = sum(len(hand["cards"]) for placed in state["boxes"] for hand in placed["hands"])
            point = (
                f"{state['round']} {state['phase']} {state['turn']} {hands} "
                f"{len(state['offers'])} {len(state['bets'])}"
            )
            if point == acted:
                continue
            acted = point
            if think:
                # Players do not all answer in step: a think time around ``think``.
                await asyncio.sleep(think * random.uniform(0.5, 1.5))
            counter += 1
            key = f"{name}-{connection}-{counter}"
            pending = key
            sent[key] = time.perf_counter()
            stats.actions += 1
            op, args = action
            await socket.send(json.dumps({"type": "action", "op": op, "args": args, "key": key}))


def _choose(
    state: dict[str, Any], name: str, box: int, *, behind: bool = False
) -> tuple[str, dict[str, Any]] | None:
    """The bot's next action, or ``None`` when it has nothing to do."""
    phase = state["phase"]
    if phase == "betting":
        if any(bet["player"] == name for bet in state["bets"]):
            return None
        seated = state["seats"].get(str(box))
        if behind:
            # Behind the player whose bet opened the box (its holder's, if reserved).
            others = {bet["player"] for bet in state["bets"] if bet["box"] == box} - {name}
            if not others or (seated is not None and seated not in others):
                return None
        elif seated not in (None, name):
            return None
        return "bet", {"box": box, "amount": state.get("minimum_bet", "25")}
    for offer in state["offers"]:
        if offer["player"] == name:
            return "decline", {"box": offer["box"], "kind": offer["kind"]}
    if state["turn"] and state["turn"]["yours"] and state["legal_actions"]:
        box_number, hand_number = state["turn"]["box"], state["turn"]["hand"]
        for placed in state["boxes"]:
            if placed["box"] != box_number:
                continue
            for hand in placed["hands"]:
                if hand["hand"] == hand_number:
                    hit = hand["total"] < 17 and "hit" in state["legal_actions"]
                    return ("hit" if hit else "stand"), {}
    return None
