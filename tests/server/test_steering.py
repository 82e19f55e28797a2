"""Handing a table's socket to the worker that runs the table
(:mod:`croupier.server.steering`): two workers' ends in one process, over loopback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from croupier.server.steering import Steering, steered_protocol, supported

pytestmark = pytest.mark.skipif(
    not supported(), reason="descriptors pass between processes on Linux"
)

REQUEST = b"GET /ws/tables/%s HTTP/1.1\r\nHost: x\r\n\r\n"


class Answers(asyncio.Protocol):
    """A server's protocol that answers each connection with its name and what it read."""

    name = "?"

    def __init__(self, **_: object) -> None:
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(self.name.encode() + b":" + data)
        self.transport.close()


class AtA(Answers):
    name = "a"


class AtB(Answers):
    name = "b"


async def ask(port: int, table: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(REQUEST % table.encode())
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    return answer


def test_a_table_socket_goes_whole_to_the_worker_that_runs_its_table(tmp_path: Path) -> None:
    """Worker A took the connection; worker B runs "rws": B answers it, having been given
    the request line A had read; what A runs, or any other request, A answers."""

    async def scenario() -> None:
        runs = {"rws": 2, "online": 1}
        a = Steering(tmp_path, runs.get, pid=1)
        b = Steering(tmp_path, runs.get, pid=2)
        b.start(AtB)
        a.start(AtA)
        server = await asyncio.get_running_loop().create_server(
            steered_protocol(AtA, a), "127.0.0.1", 0
        )
        port = server.sockets[0].getsockname()[1]
        try:
            assert await ask(port, "rws") == b"b:" + REQUEST % b"rws"
            assert (a.handed, b.taken) == (1, 1)
            # A crowd arriving at once is handed over whole (not only as many as a
            # queue of datagrams would hold: 10 by Linux's default).
            crowd = await asyncio.gather(*(ask(port, "rws") for _ in range(40)))
            assert set(crowd) == {b"b:" + REQUEST % b"rws"}
            assert (a.handed, b.taken) == (41, 41)
            assert await ask(port, "online") == b"a:" + REQUEST % b"online"
            assert await ask(port, "nobody-runs") == b"a:" + REQUEST % b"nobody-runs"
            # Worker B stops taking: its sockets are served where they land.
            b.stop()
            assert await ask(port, "rws") == b"a:" + REQUEST % b"rws"
            assert a.handed == 41
        finally:
            server.close()
            a.stop()

    asyncio.run(scenario())


def test_a_request_line_in_pieces_is_read_whole_first(tmp_path: Path) -> None:
    """A request line that arrives in two pieces is handed over once it is whole."""

    async def scenario() -> None:
        a = Steering(tmp_path, {"rws": 2}.get, pid=1)
        b = Steering(tmp_path, {"rws": 2}.get, pid=2)
        b.start(AtB)
        server = await asyncio.get_running_loop().create_server(
            steered_protocol(AtA, a), "127.0.0.1", 0
        )
        port = server.sockets[0].getsockname()[1]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /ws/tab")
            await writer.drain()
            await asyncio.sleep(0.05)
            writer.write(b"les/rws HTTP/1.1\r\n\r\n")
            answer = await asyncio.wait_for(reader.read(), 5)
            writer.close()
            assert answer == b"b:GET /ws/tables/rws HTTP/1.1\r\n\r\n"
        finally:
            server.close()
            b.stop()

    asyncio.run(scenario())
