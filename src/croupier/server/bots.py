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
import contextlib
import http.client
import json
import random
import re
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
from websockets.client import ClientProtocol
from websockets.exceptions import ProtocolError, WebSocketException
from websockets.frames import Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

__all__ = ["BotStats", "message_type", "run_bot", "server_frames", "sign_up"]

PASSWORD = "bot-password-1"

# What a bot reads of a message without parsing it, with or without spaces in the JSON.
_TYPE = re.compile(r'\{\s*"type"\s*:\s*"(\w+)"')
_ROUND = re.compile(r'"round"\s*:\s*"([^"]*)"')
_PHASE = re.compile(r'"phase"\s*:\s*"([^"]*)"')
_YOURS = re.compile(r'"yours"\s*:\s*true')
_NO_OFFERS = re.compile(r'"offers"\s*:\s*\[\s*\]')
#: The opcodes a bot reads, as plain numbers (an enum's comparisons cost more).
_TEXT, _CLOSE, _PING = int(Opcode.TEXT), int(Opcode.CLOSE), int(Opcode.PING)
#: The phases of a round that has ended.
_ENDED = ("settled", "void")


@dataclass
class BotStats:
    """What bots did: actions sent and refused, bets accepted and refused, frames
    received, latencies (seconds), reconnections.

    ``latencies``: from each decision sent (every action but a bet) to the events that
    answer it; ``bet_answers``: from each bet sent to its ack or error (a bet's events
    go out with the bets placed beside it, at most every
    :data:`~croupier.server.hub.BETS_ANNOUNCED_EVERY`, so they time the table's
    announcements, not the bet); ``welcomed``: sign-ins the
    table answered (its ``welcome`` naming the bot, not the one on connecting).
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
    ready: asyncio.Event | None = None,
) -> None:
    """Play at ``table`` on ``box`` until ``stop`` is set, reconnecting after failures.

    ``think`` is the pause before each action; ``token`` a session to use (else the
    bot signs up and logs in, and again after each reconnection); ``behind``: bet
    behind the player seated at ``box`` instead of taking it; ``ready``: act only once
    it is set (a crowd that signs in before anyone plays).
    """
    given = token
    while not stop.is_set():
        try:
            if token is None:
                token = await asyncio.to_thread(sign_up, base, name)
            player = _Player(name, box, stats, behind=behind, ready=ready)
            await _play(base, table, token, player, stop, think)
        # A server killed mid-answer cuts an HTTP reply short (IncompleteRead): the
        # bot comes back as after any other lost connection.
        # A socket that did not open in time raises TimeoutError, an OSError.
        except (OSError, WebSocketException, urllib.error.URLError, http.client.HTTPException):
            stats.reconnects += 1
            token = given
            await asyncio.sleep(0.2)


#: Seconds a bot's socket may take to open, and to close once asked.
OPEN_SECONDS = 60.0
CLOSE_SECONDS = 10.0


async def _play(
    base: str, table: str, token: str, player: _Player, stop: asyncio.Event, think: float
) -> None:
    """Play on one socket until ``stop`` is set; raise what ended the socket before."""
    uri = parse_uri(base.replace("http", "ws", 1) + f"/ws/tables/{table}")
    loop = asyncio.get_running_loop()
    protocol = ClientProtocol(uri, max_size=MAX_MESSAGE)
    transport, seat = await asyncio.wait_for(
        loop.create_connection(
            lambda: _Seat(protocol, player, token, think, stop, loop),
            uri.host,
            uri.port,
        ),
        OPEN_SECONDS,
    )
    try:
        stopping: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({stopping, seat.closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if not stop.is_set():
            seat.closed.result()  # what ended it, raised
            raise ConnectionError(f"the server closed {player.name}'s socket")
        seat.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(seat.closed), CLOSE_SECONDS)
    finally:
        seat.stop()
        transport.abort()


class _Seat(asyncio.Protocol):
    """A bot's socket.  ``websockets``' Sans-I/O protocol (``ClientProtocol``) makes the
    handshake and frames what the bot sends; the server's frames are read here
    (:func:`server_frames`), and each message is given to the bot (:class:`_Player`) as
    it arrives.  The action the bot chooses is written after its think time (a timer,
    not a task).  A message costs its frame's header and the bot's reading of it: no
    future, no task switch and no queue a message, as the library's asyncio client has,
    and not its general parser (a generator a frame, an enum an opcode), which took
    more than half of a bot's time a message.

    ``closed`` is set when the connection is gone: with the exception that ended it,
    if any (a refused handshake, a broken connection, a frame no server sends)."""

    def __init__(
        self,
        protocol: ClientProtocol,
        player: _Player,
        token: str,
        think: float,
        stop: asyncio.Event,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.protocol = protocol
        self.player = player
        self.token = token
        self.think = think
        self.halt = stop
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.closed: asyncio.Future[None] = loop.create_future()
        self._opened = False
        #: Bytes received and not yet read: the handshake's answer, a frame's start.
        self._pending = b""
        #: A fragmented message's frames so far.
        self._parts: list[bytes] = []
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast("asyncio.Transport", transport)
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        try:
            if self._pending:
                data = self._pending + data
                self._pending = b""
            if not self._opened:
                data = self._handshake(data)
                if not self._opened:
                    return
            frames, self._pending = server_frames(data)
            for fin, opcode, payload in frames:
                self._frame(fin, opcode, payload)
        except Exception as problem:
            self._end(problem)

    def _handshake(self, data: bytes) -> bytes:
        """Give the handshake's answer in ``data`` to the protocol; what follows it.

        Only the answer's head goes to the protocol: the frames after it are read here.
        An answer that is not ``101 Switching Protocols`` goes whole, with its body, and
        the protocol's verdict is raised once it has it."""
        switching = b"HTTP/1.1 101 "
        if len(data) < len(switching) and switching.startswith(data):
            self._pending = data  # too little yet to tell
            return b""
        if data.startswith(switching):
            end = data.find(b"\r\n\r\n")
            if end < 0:
                self._pending = data
                return b""
            data, rest = data[: end + 4], data[end + 4 :]
        else:
            rest = b""
        self.protocol.receive_data(data)
        if self.protocol.events_received():  # the answer, read whole
            refused = self.protocol.handshake_exc
            if refused is not None:
                raise refused
            self._opened = True
            self._write(json.dumps({"type": "auth", "token": self.token}))
            self._flush()
        return rest

    def _frame(self, fin: bool, opcode: int, payload: bytes) -> None:
        if opcode > _TEXT:
            if opcode == _PING:
                self.protocol.send_pong(payload)
                self._flush()
            elif opcode == _CLOSE:
                self.close()
                if self.transport is not None:
                    self.transport.close()
            return  # a pong, binary
        if not fin or self._parts:
            self._parts.append(payload)
            if not fin:
                return
            payload, self._parts = b"".join(self._parts), []
        action = self.player.heard(str(payload, "utf-8"))
        if action is None:
            return
        if not self.think:
            self._act(action)
            return
        # Players do not all answer in step: a think time around ``think``.
        self.player.thinking = True
        delay = self.think * random.uniform(0.5, 1.5)
        self._timer = self.loop.call_later(delay, self._act, action)

    def _act(self, action: tuple[str, dict[str, Any]]) -> None:
        self._timer = None
        self.player.thinking = False
        if self.halt.is_set() or self.closed.done() or self.protocol.state is not State.OPEN:
            return
        self._write(self.player.send(*action))
        self._flush()

    def _write(self, text: str) -> None:
        self.protocol.send_text(text.encode())

    def _flush(self) -> None:
        transport = self.transport
        for data in self.protocol.data_to_send():
            if data and transport is not None and not transport.is_closing():
                transport.write(data)

    def close(self) -> None:
        """Ask the server to close the connection."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close()
            self._flush()

    def stop(self) -> None:
        """Act no more: a pending action is dropped."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(exc)

    def _end(self, problem: Exception | None) -> None:
        self.stop()
        if not self.closed.done():
            if problem is None:
                self.closed.set_result(None)
            else:
                self.closed.set_exception(problem)
        if problem is not None and self.transport is not None:
            self.transport.abort()


class _Player:
    """What a bot does with what it is told at its table, with no I/O: each message in
    (:meth:`heard`), the action it chooses out, as the message to send (:meth:`send`).

    Each change at a table goes to every player there, and most ask nothing of a given
    bot: a bot reads a message's type, and a state's round and phase, from its text,
    and parses only the states that may ask it for something (a bet, an offer, its
    turn).
    """

    def __init__(
        self,
        name: str,
        box: int,
        stats: BotStats,
        *,
        behind: bool = False,
        ready: asyncio.Event | None = None,
    ) -> None:
        self.name = name
        self.ready = ready
        self._unready_round: str | None = None
        self.box = box
        self.stats = stats
        self.behind = behind
        #: An action chosen and not yet sent (its think time runs): nothing else is.
        self.thinking = False
        self._sent: dict[str, float] = {}
        self._counter = 0
        # Keys are never reused: a reconnected bot's new commands are not retries.
        self._connection = secrets.token_hex(4)
        self._acted: str | None = None  # the decision point last answered
        self._pending: str | None = None  # an action sent and not yet answered
        self._pending_at = 0.0
        self._pending_bet: str | None = None  # the round of the bet pending, if it is one
        self._bet_round: str | None = None  # the last round in which a bet was taken
        self._last_round: str | None = None
        self._chosen_round = ""  # the round of the state the last action answers
        self._offered = _offer_pattern(name)

    def heard(self, text: str) -> tuple[str, dict[str, Any]] | None:
        """Take in one message from the server; the action it asks of this bot, if
        any (``op`` and ``args``), to be sent with :meth:`send`."""
        stats = self.stats
        stats.frames += 1
        kind = message_type(text)
        if kind == "events":
            # The events answer what was sent; the state that follows says what to do
            # next.  Only their arrival counts: they are not parsed.
            if self._sent:
                now = time.perf_counter()
                stats.latencies.extend(now - at for at in self._sent.values())
                self._sent.clear()
            return None
        busy = self._pending is not None or self.thinking
        counted = False
        if kind == "state":
            # Most states ask nothing of this bot (each change at the table goes to all
            # seven players): what it needs is read from the text, and the state parsed
            # only where it may ask for an action.
            heading = _state_heading(text)
            if heading is not None:
                state_round, phase = heading
                if state_round != self._last_round and phase in _ENDED:
                    self._last_round = state_round
                    stats.rounds += 1
                counted = True
                if busy or not _may_ask(text, state_round, phase, self._bet_round, self._offered):
                    return None
        elif kind is not None and kind not in ("welcome", "ack", "error"):
            return None  # a balance, a pong, bets confirmed: nothing to answer
        message = orjson.loads(text)
        kind = message["type"]
        if kind in ("ack", "error") and message.get("key") == self._pending:
            if self._pending_bet is not None:
                stats.bet_answers.append(time.perf_counter() - self._pending_at)
                if kind == "ack":
                    stats.bets_accepted += 1
                    self._bet_round = self._pending_bet
                else:
                    stats.bets_refused += 1
            self._pending = None
        if kind == "error":
            stats.errors += 1
            code = str(message.get("code"))
            stats.error_codes[code] = stats.error_codes.get(code, 0) + 1
            stats.last_errors = [*stats.last_errors[-9:], str(message.get("message"))]
            self._sent.pop(str(message.get("key")), None)
            self._acted = None
            return None
        if kind not in ("state", "welcome"):
            return None
        if kind == "welcome" and message.get("you") is not None:
            stats.welcomed += 1  # signed in: the first welcome, on connecting, names nobody
        state = message["state"]
        if not counted and state["round"] != self._last_round and state["phase"] in _ENDED:
            self._last_round = state["round"]
            stats.rounds += 1
        if self._pending is not None or self.thinking:
            return None
        if self.ready is not None:
            # Not before it is set, nor in a round whose bets it saw before then (whose
            # window runs: one left open by players gone): its next round asks again.
            if not self.ready.is_set():
                if state["phase"] == "betting" and state["bets"]:
                    self._unready_round = state["round"]
                return None
            if state["round"] == self._unready_round:
                return None
        action = _choose(state, self.name, self.box, behind=self.behind)
        if action is None:
            return None
        # One action per decision point: the same table state is not answered twice.
        hands = sum(len(hand["cards"]) for placed in state["boxes"] for hand in placed["hands"])
        point = (
            f"{state['round']} {state['phase']} {state['turn']} {hands} "
            f"{len(state['offers'])} {len(state['bets'])}"
        )
        if point == self._acted:
            return None
        self._acted = point
        self._chosen_round = str(state["round"])
        return action

    def send(self, op: str, args: dict[str, Any]) -> str:
        """The message that sends the action ``op`` with ``args``, now: a decision is
        timed to the events that answer it, a bet to its ack or error."""
        self._counter += 1
        key = f"{self.name}-{self._connection}-{self._counter}"
        self._pending = key
        self._pending_bet = self._chosen_round if op == "bet" else None
        self._pending_at = time.perf_counter()
        if op != "bet":
            self._sent[key] = self._pending_at  # a bet is timed to its answer alone
        self.stats.actions += 1
        return orjson.dumps({"type": "action", "op": op, "args": args, "key": key}).decode()


#: The largest message a bot takes from a server, in bytes.
MAX_MESSAGE = 1 << 20


def server_frames(data: bytes) -> tuple[list[tuple[bool, int, bytes]], bytes]:
    """The whole WebSocket frames at the start of ``data``, as a server sends them (not
    masked; RFC 6455 5.2): each one's FIN bit, opcode and payload; and the bytes after
    them (a frame not yet whole).

    >>> from websockets.frames import Frame, Opcode
    >>> framed = [Frame(Opcode.TEXT, b"x" * size).serialize(mask=False)
    ...           for size in (3, 125, 126, 70_000)]
    >>> frames, rest = server_frames(b"".join(framed) + framed[0][:2])
    >>> [(fin, opcode, len(payload)) for fin, opcode, payload in frames]
    [(True, 1, 3), (True, 1, 125), (True, 1, 126), (True, 1, 70000)]
    >>> rest
    b'\\x81\\x03'
    >>> server_frames(Frame(Opcode.TEXT, b"hi").serialize(mask=True))
    Traceback (most recent call last):
    ...
    websockets.exceptions.ProtocolError: a server's frame is masked (RFC 6455 5.1)
    """
    frames = []
    size = len(data)
    start = 0
    while size - start >= 2:
        first, second = data[start], data[start + 1]
        if second & 0x80:
            raise ProtocolError("a server's frame is masked (RFC 6455 5.1)")
        if first & 0x70:
            raise ProtocolError("a frame with reserved bits set, and no extension agreed")
        length = second & 0x7F
        head = start + 2
        if length == 126:
            head += 2
            if head > size:
                break
            length = int.from_bytes(data[start + 2 : head], "big")
        elif length == 127:
            head += 8
            if head > size:
                break
            length = int.from_bytes(data[start + 2 : head], "big")
        if length > MAX_MESSAGE:
            raise ProtocolError(f"a frame of {length} bytes, over {MAX_MESSAGE}")
        end = head + length
        if end > size:
            break
        frames.append((bool(first & 0x80), first & 0x0F, data[head:end]))
        start = end
    return frames, data[start:]


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
