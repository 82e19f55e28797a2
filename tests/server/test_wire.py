"""A table's frames written once and straight to each socket (``croupier.server.wire``):
the bytes every watcher gets, a client that stops reading, a socket that compresses."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from croupier.server import connections as connections_module
from croupier.server import hub as hub_module
from croupier.server.app import create_app
from croupier.server.connections import SEND_SECONDS, Connection
from croupier.server.hub import Hub
from croupier.server.runtime import TableConfig
from croupier.server.settings import Settings
from croupier.server.wire import BUFFER_BYTES, Wire, text_frame
from tests.server.tables import served
from tests.server.test_cluster import receive
from tests.server.test_crash import free_port
from tests.server.test_faults import sign_in


def serving(tmp_path: Path, *, deflate: bool) -> Iterator[tuple[str, Hub]]:
    """``croupier serve``'s app on loopback (``deflate``: with permessage-deflate, which
    ``croupier serve`` turns off); its address and its hub."""
    table = TableConfig(id="rws", preset="rws-v5", betting_seconds=60)
    app = create_app(Settings(url=f"sqlite:///{tmp_path / 'wire.db'}", tables=(table,)))
    port = free_port()
    with served(app, port, ws_per_message_deflate=deflate):
        yield f"127.0.0.1:{port}", app.state.hub


def next_state(socket: Any) -> str:
    """The text of the next table state the socket receives, as it came."""
    while True:
        text = str(socket.recv(timeout=10))
        if json.loads(text)["type"] == "state":
            return text


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Hub]]:
    yield from serving(tmp_path, deflate=False)


def test_a_change_goes_to_every_watcher_as_the_same_bytes_framed_once(
    site: tuple[str, Hub], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three watchers and a player: a bet is announced once per audience, each audience's
    messages framed once whatever its number of sockets, and written straight to them."""
    address, hub = site
    framed: list[str] = []

    def counted(text: str) -> bytes:
        framed.append(text)
        return text_frame(text)

    monkeypatch.setattr(hub_module, "text_frame", counted)
    monkeypatch.setattr(connections_module, "text_frame", counted)
    token = sign_in(f"http://{address}", "ann")
    with contextlib.ExitStack() as stack:
        watchers = [stack.enter_context(connect(f"ws://{address}/ws/tables/rws")) for _ in range(3)]
        player = stack.enter_context(connect(f"ws://{address}/ws/tables/rws"))
        for watcher in watchers:
            receive(watcher, "welcome")
        assert all(c.wire is not None and c.writer is None for c in hub.connections["rws"])
        player.send(json.dumps({"type": "auth", "token": token}))
        receive(player, "balance")
        framed.clear()
        bet = {"type": "action", "op": "bet", "args": {"box": 1, "amount": "25"}, "key": "b"}
        player.send(json.dumps(bet))
        states = [next_state(watcher) for watcher in watchers]
        assert len(set(states)) == 1  # the same bytes to every watcher
        assert json.loads(states[0])["state"]["bets"][0]["amount"] == "25.00"
        # The bet's events and state framed once for the four sockets (the player sees
        # the table as the watchers do), his ack and balance once for him: no text twice.
        assert framed.count(states[0]) == 1
        assert len(framed) == len(set(framed)) == 4


def test_what_a_socket_is_sent_in_one_pass_goes_out_in_one_write(
    site: tuple[str, Hub], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bet is answered with its acknowledgement and the player's balance in the same
    pass of the event loop: one write (one system call) to his socket, in order."""
    address, hub = site
    writes: list[tuple[Wire, bytes]] = []
    write = Wire.write

    def counted(wire: Wire, frame: bytes) -> bool:
        writes.append((wire, frame))
        return write(wire, frame)

    monkeypatch.setattr(Wire, "write", counted)
    token = sign_in(f"http://{address}", "ann")
    with connect(f"ws://{address}/ws/tables/rws") as player:
        receive(player, "welcome")
        player.send(json.dumps({"type": "auth", "token": token}))
        receive(player, "balance")
        (connection,) = hub.connections["rws"]
        writes.clear()
        bet = {"type": "action", "op": "bet", "args": {"box": 1, "amount": "25"}, "key": "b"}
        player.send(json.dumps(bet))
        assert receive(player, "ack")["key"] == "b"
        assert receive(player, "balance")["balance"] == "975.00"
        mine = [frame for wire, frame in writes if wire is connection.wire]
        ack, balance = mine[0].index(b'"type":"ack"'), mine[0].find(b'"type":"balance"')
        assert 0 <= ack < balance  # both in the first write, the ack first


def test_with_permessage_deflate_the_messages_go_through_asgi(tmp_path: Path) -> None:
    """A socket that compresses its messages is not written around its protocol: it
    gets a writer of its own, and its messages as usual."""
    for address, hub in serving(tmp_path, deflate=True):
        with connect(f"ws://{address}/ws/tables/rws") as watcher:
            assert receive(watcher, "welcome")["state"]["phase"] == "betting"
            (connection,) = hub.connections["rws"]
            assert connection.wire is None and connection.writer is not None
            watcher.send(json.dumps({"type": "ping"}))
            assert receive(watcher, "pong")["type"] == "pong"


class _Transport:
    """A transport whose buffer the test fills and empties by hand."""

    def __init__(self) -> None:
        self.waiting = 0
        self.frames: list[bytes] = []
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.frames.append(data)
        self.waiting += len(data)

    def get_write_buffer_size(self) -> int:
        return self.waiting

    def abort(self) -> None:
        self.aborted = True


class _Open:
    """A protocol that says its connection is open."""

    handshake_complete = True
    close_sent = False
    disconnected = False

    class conn:
        from websockets.protocol import State

        state = State.OPEN


def _connection(transport: _Transport) -> Connection:
    wire = Wire(_Open(), transport)
    return Connection(socket=None, table="rws", transport=transport, wire=wire)  # type: ignore[arg-type]


def test_a_client_that_lets_a_megabyte_pile_up_is_cut_off() -> None:
    """Past ``BUFFER_BYTES`` waiting in its transport, the client is dropped and its
    transport aborted; nothing was ever waited for."""

    async def run() -> None:
        transport = _Transport()
        connection = _connection(transport)
        connection.handler = handler = asyncio.create_task(asyncio.sleep(60))
        text = "x" * 4000
        frame = text_frame(text)
        while connection.dropped is None:
            connection.push(text, frame)
        assert "not reading" in connection.dropped
        assert transport.aborted
        assert transport.waiting <= BUFFER_BYTES + len(frame)
        assert transport.frames[0] == frame  # framed once, by the caller
        with contextlib.suppress(asyncio.CancelledError):
            await handler
        assert handler.cancelled()  # its handler stops

    asyncio.run(run())


def test_a_client_none_of_whose_bytes_go_out_for_the_send_time_is_dropped() -> None:
    """Bytes that wait are fine while some go out; none going out for
    ``SEND_SECONDS`` drops the client (the hub looks every second)."""
    transport = _Transport()
    connection = _connection(transport)
    connection.push("hello")
    connection.check(0.0)
    transport.waiting -= 2  # the client reads a little: progress
    connection.check(SEND_SECONDS - 1)
    connection.check(2 * SEND_SECONDS - 2)
    assert connection.dropped is None
    connection.check(2 * SEND_SECONDS)
    assert connection.dropped is not None and "nothing went out" in connection.dropped
    assert transport.aborted

    idle = _Transport()
    quiet = _connection(idle)
    quiet.push("hello")
    idle.waiting = 0  # all of it went out
    quiet.check(0.0)
    quiet.check(10 * SEND_SECONDS)
    assert quiet.dropped is None


def test_nothing_is_written_to_a_socket_that_is_closing() -> None:
    transport = _Transport()
    protocol = _Open()
    wire = Wire(protocol, transport)
    protocol.close_sent = True
    assert not wire.write(text_frame("late")) and transport.frames == []


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_frame_written_out_is_the_frame_websockets_writes(size: int) -> None:
    """RFC 6455 5.2: a server's text frame, at each boundary of the length's three
    forms (7 bits; 126 and 2 bytes; 127 and 8 bytes), byte for byte as the
    ``websockets`` library frames it; a multi-byte character counts as its bytes."""
    for text in ("x" * size, "é" * (size // 2)):
        assert text_frame(text) == Frame(Opcode.TEXT, text.encode()).serialize(mask=False)
