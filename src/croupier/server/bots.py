"""Bot players: real clients of a running server, for load tests and crash tests.

A bot signs up over HTTP, joins a table over a WebSocket and plays: it bets the
table minimum on its own box, declines every offer, and hits below 17.  A bot that
bets behind (RWS v5 1.26) bets the minimum on another player's box once that player
has bet, and declines every offer (the box's decisions are its seated player's).  It
records the time from each decision it sends to the events that answer it, and from
each bet to its ack or error.  A bot whose connection drops (the server was killed)
reconnects until told to stop.

Each change at a table goes to every player there, and most ask nothing of a given
bot: a bot reads a message's type, and a state's round and phase, from its text
(:func:`message_type`), and parses only the states that may ask it for something (a
bet, an offer, its turn), so that a load test measures the server, not its bots.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import re
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, WebSocketException

__all__ = ["BotStats", "message_type", "run_bot", "sign_up"]

PASSWORD = "bot-password-1"

# What a bot reads of a message without parsing it, with or without spaces in the JSON.
_TYPE = re.compile(r'\{\s*"type"\s*:\s*"(\w+)"')
_ROUND = re.compile(r'"round"\s*:\s*"([^"]*)"')
_PHASE = re.compile(r'"phase"\s*:\s*"([^"]*)"')
_YOURS = re.compile(r'"yours"\s*:\s*true')
_NO_OFFERS = re.compile(r'"offers"\s*:\s*\[\s*\]')
#: The phases of a round that has ended.
_ENDED = ("settled", "void")


@dataclass
class BotStats:
    """What bots did: actions sent and refused, bets accepted and refused, frames
    received, latencies (seconds), reconnections.

    ``latencies``: from each action sent to the events that answer it;
    ``bet_answers``: from each bet sent to its ack or error; ``welcomed``: sign-ins the
    table answered (its ``welcome``).
    """

    actions: int = 0
    welcomed: int = 0
    errors: int = 0
    bets_accepted: int = 0
    bets_refused: int = 0
    frames: int = 0
    rounds: int = 0
    reconnects: int = 0
    latencies: list[float] = field(default_factory=list)
    bet_answers: list[float] = field(default_factory=list)
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
        # A server killed mid-answer cuts an HTTP reply short (IncompleteRead): the
        # bot comes back as after any other lost connection.
        except (OSError, WebSocketException, urllib.error.URLError, http.client.HTTPException):
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
        # Told to stop, the bot closes its socket, which ends its wait for the next
        # message: no timer for each message.
        closing = asyncio.create_task(_close_on(stop, socket))
        try:
            await _answer(socket, token, name, box, stop, stats, think, behind)
        except ConnectionClosed:
            if not stop.is_set():
                raise
        finally:
            closing.cancel()


async def _close_on(stop: asyncio.Event, socket: ClientConnection) -> None:
    """Close ``socket`` once ``stop`` is set."""
    await stop.wait()
    await socket.close()


async def _answer(
    socket: ClientConnection,
    token: str,
    name: str,
    box: int,
    stop: asyncio.Event,
    stats: BotStats,
    think: float,
    behind: bool,
) -> None:
    """Log in on ``socket`` with ``token`` and play until ``stop`` is set."""
    await socket.send(json.dumps({"type": "auth", "token": token}))
    sent: dict[str, float] = {}
    counter = 0
    # Keys are never reused: a reconnected bot's new commands are not retries.
    connection = secrets.token_hex(4)
    acted: str | None = None
    pending: str | None = None  # an action sent and not yet answered
    pending_at = 0.0
    pending_bet: str | None = None  # the round of the bet pending, if it is one
    bet_round: str | None = None  # the last round in which a bet of this bot was taken
    last_round: str | None = None
    offered = _offer_pattern(name)
    while not stop.is_set():
        text = await socket.recv()
        stats.frames += 1
        kind = message_type(text) if isinstance(text, str) else None
        if kind == "events":
            # The events answer what was sent; the state that follows says what
            # to do next.  Only their arrival counts: they are not parsed.
            if sent:
                now = time.perf_counter()
                stats.latencies.extend(now - at for at in sent.values())
                sent.clear()
            continue
        counted = False
        if kind == "state" and isinstance(text, str):
            # Most states ask nothing of this bot (each change at the table goes to
            # all seven players): what it needs is read from the text, and the
            # state parsed only where it may ask for an action.
            heading = _state_heading(text)
            if heading is not None:
                state_round, phase = heading
                if state_round != last_round and phase in _ENDED:
                    last_round = state_round
                    stats.rounds += 1
                counted = True
                if pending is not None or not _may_ask(
                    text, state_round, phase, bet_round, offered
                ):
                    continue
        elif kind is not None and kind not in ("welcome", "ack", "error"):
            continue  # a balance, a pong, bets confirmed: nothing to answer
        message = json.loads(text)
        kind = message["type"]
        if kind in ("ack", "error") and message.get("key") == pending:
            if pending_bet is not None:
                stats.bet_answers.append(time.perf_counter() - pending_at)
                if kind == "ack":
                    stats.bets_accepted += 1
                    bet_round = pending_bet
                else:
                    stats.bets_refused += 1
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
        if kind == "welcome":
            stats.welcomed += 1
        state = message["state"]
        if not counted and state["round"] != last_round and state["phase"] in _ENDED:
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
            if stop.is_set():
                return
        counter += 1
        key = f"{name}-{connection}-{counter}"
        op, args = action
        pending = key
        pending_bet = str(state["round"]) if op == "bet" else None
        pending_at = sent[key] = time.perf_counter()
        stats.actions += 1
        await socket.send(json.dumps({"type": "action", "op": op, "args": args, "key": key}))


def message_type(text: str) -> str | None:
    """A server message's ``type`` read from its text, without parsing it (the server
    writes it first); ``None`` where it is not found there.

    >>> message_type('{"type": "events", "round": "r1"}')
    'events'
    >>> message_type('{"type":"state","state":{}}')
    'state'
    >>> message_type('[1, 2]') is None
    True
    """
    found = _TYPE.match(text)
    return None if found is None else found[1]


def _state_heading(text: str) -> tuple[str, str] | None:
    """A ``state`` message's round and phase read from its text, without parsing it;
    ``None`` where they are not found.

    The server writes them before any object nested in the state, so their first
    occurrences are the state's own (a name or a message cannot hold the quotes
    around a key: they are escaped inside a string).

    >>> _state_heading('{"type":"state","state":{"round":"r7","number":3,"phase":"betting"}}')
    ('r7', 'betting')
    >>> _state_heading('{"type": "state", "state": {"round": "r7", "phase": "void"}}')
    ('r7', 'void')
    """
    found_round = _ROUND.search(text)
    found_phase = _PHASE.search(text)
    if found_round is None or found_phase is None:
        return None
    return found_round[1], found_phase[1]


def _may_ask(
    text: str, state_round: str, phase: str, bet_round: str | None, offered: re.Pattern[str] | None
) -> bool:
    """Whether the state written in ``text`` may ask a bot for an action
    (:func:`_choose`), read without parsing it: ``False`` only where it asks for none.

    While bets are open, a bot that has bet this round (``bet_round``) has nothing to
    do.  Otherwise only its own turn asks for something (the state's turn is ``yours``
    only in the state sent to the player whose turn it is), or an offer to it: where
    offers are open, ``offered`` (:func:`_offer_pattern`) finds the bot's name as an
    offer's player (``None``: the state is read whenever an offer is open).

    >>> text = '{"type":"state","state":{"phase":"offers","offers":[],"turn":null}}'
    >>> _may_ask(text, "r1", "offers", None, None)
    False
    >>> yours = text.replace("null", '{"box":1,"hand":1,"yours":true}')
    >>> _may_ask(yours, "r1", "player-turns", None, None)
    True
    >>> offers = text.replace("[]", '[{"kind":"insurance","player":"bob","box":2}]')
    >>> _may_ask(offers, "r1", "offers", None, _offer_pattern("ann"))
    False
    >>> _may_ask(offers, "r1", "offers", None, _offer_pattern("bob"))
    True
    """
    if phase == "betting":
        return state_round != bet_round
    if _YOURS.search(text) is not None:
        return True
    if _NO_OFFERS.search(text) is not None:
        return False
    return offered is None or offered.search(text) is not None


def _offer_pattern(name: str) -> re.Pattern[str] | None:
    """What finds ``name`` as an offer's ``player`` in a state's text, with or without
    spaces; ``None`` for a name whose JSON may be written in more than one way (with
    escapes, or characters that an encoder may escape or not).

    >>> _offer_pattern("bot-0001").search('{"kind":"insurance","player": "bot-0001"}') is not None
    True
    >>> _offer_pattern("zoë") is None
    True
    """
    if not name.isascii() or json.dumps(name) != f'"{name}"':
        return None
    return re.compile(r'"player"\s*:\s*"' + re.escape(name) + '"')


def _choose(
    state: dict[str, Any], name: str, box: int, *, behind: bool = False
) -> tuple[str, dict[str, Any]] | None:
    """The bot's next action, or ``None`` when it has nothing to do."""
    phase = state["phase"]
    if phase == "betting":
        # Its own bets: a seated player's are public, one behind a box is the bot's own
        # part of the state (``mine``).
        own = [*state["bets"], *((state.get("mine") or {}).get("bets") or [])]
        if any(bet["player"] == name for bet in own):
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
