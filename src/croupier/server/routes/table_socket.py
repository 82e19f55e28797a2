"""The table socket, ``/ws/tables/{table}``: one WebSocket per table and connection.

Each message is read (:func:`~croupier.server.protocol.parse_message`), held to the
connection's rate limit and live session, and handed to the table's actor; what it
caused goes out through the :class:`~croupier.server.hub.Hub`.  Every message is
described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

import starlette.websockets
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from croupier.commands import Issuer, command_from_json
from croupier.server import operations
from croupier.server.connections import Connection
from croupier.server.dependencies import SESSION_COOKIE, TableHub
from croupier.server.errors import ActionRefused, SessionExpired, TableUnavailable
from croupier.server.hub import Hub, refusal
from croupier.server.protocol import (
    MAX_MESSAGE_BYTES,
    Action,
    Auth,
    ConfirmBets,
    EventsSince,
    LeaveBox,
    Ping,
    ProtocolError,
    TakeBox,
    parse_message,
)
from croupier.server.runtime import CutCard, Input
from croupier.server.transports import protocol_of, transport_of
from croupier.server.wire import encode, wire_of

__all__ = ["router"]

_commands = logging.getLogger("croupier.commands")
#: What a socket used after its close raises: Starlette 1.8 names it, older Starlette
#: raises a plain RuntimeError.
_SOCKET_CLOSED: type[RuntimeError] = getattr(
    starlette.websockets, "WebSocketDisconnected", RuntimeError
)

router = APIRouter()


@router.websocket("/ws/tables/{table}")
async def table_socket(socket: WebSocket, table: str, hub: TableHub) -> None:
    """A table's socket: the table as the connection may see it, and its messages
    (``docs/protocol.md``).  The table may be run by this process or by another of the
    cluster: :meth:`Hub.call` takes each operation where the table is run."""
    await socket.accept()
    if table not in hub.configs:
        await socket.send_text(
            encode({"type": "error", "code": "no_table", "message": f"no table {table!r}"})
        )
        await socket.close(code=4404)
        return
    address = socket.client.host if socket.client is not None else "unknown"
    most = hub.settings.sockets_per_address
    if hub.addresses[address] >= most:
        message = f"at most {most} table connections from one address"
        body = {"type": "error", "code": "too_many_connections", "message": message}
        await socket.send_text(encode(body))
        await socket.close(code=1008)
        return
    hub.addresses[address] += 1
    try:
        await _serve_socket(socket, table, hub)
    finally:
        hub.addresses[address] -= 1
        if not hub.addresses[address]:
            del hub.addresses[address]


async def _serve_socket(socket: WebSocket, table: str, hub: Hub) -> None:
    transport = transport_of(socket.scope)
    connection = Connection(
        socket,
        table,
        handler=asyncio.current_task(),
        transport=transport,
        wire=wire_of(protocol_of(socket.scope), transport),
        outgoing=hub.outgoing,
    )
    if connection.wire is None:  # written through ASGI, by a task of its own
        connection.writer = asyncio.create_task(connection.write())
        # Held until it ends: a writer cancelled with its socket must not be collected
        # while it is still finishing.
        hub.keep(connection.writer)
    hub.connections[table].add(connection)
    try:
        await hub.socket_opened(table)
        view = await hub.call(table, operations.View(viewer=None, dealer=False))
        welcome = {"type": "welcome", "table": table, "you": None, "state": view}
        await hub.send(connection, welcome)
        while True:
            frame = await socket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:
                await error(
                    hub, connection, "malformed", "binary frames are not taken: send JSON text"
                )
                continue
            started = time.perf_counter()
            connection.last_op, connection.last_result = "unknown", "ok"
            await handle(hub, connection, table, text)
            record(hub, connection, time.perf_counter() - started)
    except (WebSocketDisconnect, _SOCKET_CLOSED):
        pass
    except TableUnavailable as problem:  # the table is moving: the client comes back
        with contextlib.suppress(Exception):
            connection.flush()
            await socket.send_text(
                encode({"type": "error", "code": "unavailable", "message": str(problem)})
            )
            await socket.close(code=1013)
    except asyncio.CancelledError:
        if connection.dropped is None:
            raise
        # Dropped for not reading: this connection ends here, quietly.
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
    finally:
        if connection.writer is not None:
            connection.writer.cancel()
        hub.connections[table].discard(connection)
        user = connection.user
        if user is not None and not hub.connections[table].has(user.id):
            hub.disconnected(table, user.name, hub.now())


def record(hub: Hub, connection: Connection, seconds: float) -> None:
    """Count and log one message at a table."""
    table, op, result = connection.table, connection.last_op, connection.last_result
    timed = result == "ok" and op not in ("auth", "unknown", "ping")
    hub.metrics.command(table, op, result, seconds if timed else None)
    if op == "ping" and result == "ok":
        return  # a page's heartbeat: counted, not logged (every quiet page, every 4 s)
    _commands.info(
        "%s %s %s",
        table,
        op,
        result,
        extra={
            "table": table,
            "user": connection.user.name if connection.user is not None else None,
            "op": op,
            "result": result,
            "ms": round(seconds * 1000, 3),
        },
    )


async def error(
    hub: Hub,
    connection: Connection,
    code: str,
    message: str,
    key: str | None = None,
    clause: str | None = None,
) -> None:
    connection.last_result = code
    body: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if key is not None:
        body["key"] = key
    if clause is not None:
        body["clause"] = clause
    await hub.send(connection, body)


async def handle(hub: Hub, connection: Connection, table: str, text: str) -> None:
    now = hub.now()
    limiter = hub.limiter(connection)
    if not limiter.allow(now):
        await error(
            hub,
            connection,
            "rate_limited",
            f"too many messages: at most {limiter.rate:g} a second",
            key=_key_of(text),
        )
        return
    if len(text.encode()) > MAX_MESSAGE_BYTES:
        await error(hub, connection, "too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
        return
    try:
        message = parse_message(text)
    except ProtocolError as problem:
        await error(hub, connection, problem.code, str(problem))
        return
    connection.last_op = message.op if isinstance(message, Action) else message.type
    if isinstance(message, Ping):
        await hub.send(connection, {"type": "pong"})
        return
    if isinstance(message, EventsSince):
        await events_since(hub, connection, table, message)
        return
    if isinstance(message, Auth):
        # A token in the message, else the session cookie the socket was opened with.
        token = message.token or connection.socket.cookies.get(SESSION_COOKIE)
        if not token:
            await error(
                hub, connection, "session_expired", "no session: log in, then send auth again"
            )
            return
        try:
            signed = await hub.sessions.sign_in(token, now)
        except SessionExpired as problem:
            await error(hub, connection, "session_expired", str(problem))
            return
        hub.connections[table].sign_in(connection, signed)
        connection.token = token
        hub._ids[signed.name] = signed.id
        dealer = signed.role.is_staff
        try:
            view = await hub.call(table, operations.Welcome(viewer=signed.name, dealer=dealer))
        except TableUnavailable as problem:
            await error(hub, connection, "unavailable", str(problem))
            return
        await hub.send(
            connection, {"type": "welcome", "table": table, "you": signed.name, "state": view}
        )
        await hub.send_balance(connection)
        return
    user = connection.user
    if user is None or connection.token is None:
        await error(hub, connection, "unauthenticated", 'log in first: send {"type": "auth"}')
        return
    # Every command is held to a live session: a logout or an expiry elsewhere ends
    # this socket's rights too.  Checking also marks the session as used.
    try:
        await hub.sessions.check(connection.token, now)
    except SessionExpired as problem:
        hub.connections[table].sign_in(connection, None)
        connection.token = None
        await error(hub, connection, "session_expired", str(problem), message_key(message))
        return
    try:
        if isinstance(message, TakeBox):
            await hub.call(table, operations.TakeBox(user.name, message.box))
            return
        if isinstance(message, LeaveBox):
            await hub.call(table, operations.LeaveBox(user.name, message.box))
            return
        if isinstance(message, ConfirmBets):

            def confirmed(total: Any) -> None:
                connection.push(encode({"type": "bets_confirmed", "total": total}))

            await hub.call(table, operations.ConfirmBets(user.name, now), first=confirmed)
            return
        assert isinstance(message, Action)
        op = message.op
        # Who may send it, asked here once, of the command's issuer: a player for
        # himself, a dealer (or admin) for the table, nobody for the table's own.
        if message.issuer is Issuer.DEALER:
            if not user.role.is_staff:
                raise ActionRefused(f"{op}: for the table's dealer only", code="forbidden")
            player = None
        elif message.issuer is Issuer.PLAYER:
            player = user.name
        else:
            raise ActionRefused(f"{op}: only the table does that", code="forbidden")
        key = message.key
        # The engine's command, read once: it travels as itself from here on.
        given = message.arguments()
        command: Input = (
            CutCard()
            if message.command is None
            else command_from_json({"op": op, "player": player, "args": given})
        )

        def ack(result: dict[str, Any]) -> None:
            # The ack goes first: the player hears his command was taken, then what it
            # did, before anything else happens at the table.
            body: dict[str, Any] = {
                "type": "ack",
                "op": op,
                "seq": result["seq"],
                "retried": result["retried"],
            }
            if key is not None:
                body["key"] = key
            connection.push(encode(body))

        applied = operations.Apply(
            command,
            now=now,
            user=user.id,
            key=key,
            # The dealer account, recorded with its input.
            by=user.name if player is None else None,
            given=frozenset(given),
        )
        result = await hub.call(table, applied, first=ack)
    except Exception as problem:
        said = refusal(problem)
        if said is None:
            raise
        await error(hub, connection, said.code, said.message, message_key(message), said.clause)
        return
    if table not in hub.actors and not result["retried"]:
        # Played on another process: his balance is read here.
        await hub.send_balance(connection)


async def events_since(hub: Hub, connection: Connection, table: str, message: EventsSince) -> None:
    """Send the round's events the client missed (anyone at the table may ask: the
    events are those it would have been sent)."""
    dealer = connection.user is not None and connection.user.role.is_staff
    asked = operations.EventsSince(round=message.round, first=message.first, dealer=dealer)
    try:
        events = await hub.call(table, asked)
    except TableUnavailable as problem:
        await error(hub, connection, "unavailable", str(problem))
        return
    if events is None:
        await error(
            hub,
            connection,
            "round_over",
            f"round {message.round} is no longer at the table; its record is at "
            f"/api/rounds/{message.round}",
        )
        return
    body = {"type": "events", "round": message.round, "first": message.first, "events": events}
    await hub.send(connection, body)


def message_key(message: object) -> str | None:
    return message.key if isinstance(message, Action) else None


def _key_of(text: str) -> str | None:
    """The ``key`` of an action refused before it was read (so its client knows which
    command to send again), if the message is small JSON with a string key."""
    if len(text) > MAX_MESSAGE_BYTES or '"key"' not in text:
        return None
    try:
        key = json.loads(text).get("key")
    except (ValueError, AttributeError):
        return None
    return key if isinstance(key, str) else None
