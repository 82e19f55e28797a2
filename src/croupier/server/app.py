"""The table server: HTTP for accounts, wallet and recall; a WebSocket per table.

``create_app`` builds the application (FastAPI on uvicorn); ``croupier serve`` runs
it.  The HTTP part is described at ``/openapi.json``; every WebSocket message is
described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import sqlalchemy as sa
import starlette.websockets
from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from croupier.errors import CroupierError
from croupier.server import accounts, ledger, rounds_store
from croupier.server.actor import TableActor
from croupier.server.db import connect, migrate
from croupier.server.errors import (
    AccountDisabled,
    AuthError,
    InsufficientFunds,
    InvalidCredentials,
    NameTaken,
    NotFound,
    PlayRefused,
    ServerError,
    SessionExpired,
)
from croupier.server.metrics import Metrics
from croupier.server.ownership import Ownership
from croupier.server.player_routes import add_player_routes
from croupier.server.protocol import (
    MAX_MESSAGE_BYTES,
    Action,
    Auth,
    ConfirmBets,
    LeaveBox,
    Ping,
    ProtocolError,
    RateLimiter,
    TakeBox,
    parse_message,
)
from croupier.server.recall import recall_record
from croupier.server.roles import Role
from croupier.server.runtime import (
    DEALER_OPS,
    PLAYER_OPS,
    ActionRefused,
    Outcome,
    ServerShoe,
    TableConfig,
    TableRuntime,
    public_events,
)
from croupier.server.schema import users
from croupier.server.tables import default_tables, table_summary
from croupier.server.web import RtpCache, add_web_routes, default_cache_dir

__all__ = ["SESSION_COOKIE", "Settings", "create_app"]

_log = logging.getLogger("croupier.server")
_access = logging.getLogger("croupier.access")
_commands = logging.getLogger("croupier.commands")
#: A round's id as the server makes them (uuid4, hex).
_ROUND_ID = re.compile(r"[0-9a-f]{32}")
#: What a socket used after its close raises: Starlette 1.8 names it, older Starlette
#: raises a plain RuntimeError.
_SOCKET_CLOSED: type[RuntimeError] = getattr(
    starlette.websockets, "WebSocketDisconnected", RuntimeError
)


@dataclass(frozen=True)
class Settings:
    """How a server runs: its database, its tables, and play money.

    ``play_money`` is the chips a new account gets (``None``: no chips, a real-money
    wallet funded elsewhere).  ``clock`` gives the time in seconds (tests pass their own).
    """

    url: str | None = None
    tables: tuple[TableConfig, ...] = field(default_factory=default_tables)
    play_money: Decimal | None = Decimal("1000.00")
    #: The longest a table sleeps before it reads the clock again.  ``None`` (a real
    #: clock): exactly until its next deadline.  A test that moves its clock by hand
    #: gives a small figure, since nothing else tells the table that time has passed.
    tick_seconds: float | None = None
    clock: Callable[[], float] = time.time
    #: A table's first shoe in a known order, by table id (tests and audits).
    shoes: Mapping[str, ServerShoe] = field(default_factory=dict)
    #: Wait while another process runs the tables, and take them over when it stops
    #: (``None``: refuse at once with :class:`~croupier.server.ownership.TableOwned`).
    #: Called once with the refusal when the waiting begins.
    standby: Callable[[Exception], None] | None = None
    #: Where computed figures (the tables' exact RTPs) are kept across restarts
    #: (``None``: in memory only).
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    #: Compute the tables' RTPs in the background as the server starts (``croupier
    #: serve`` does), so that the lobby has them at once.
    rtp_at_start: bool = False


# -- HTTP models (the OpenAPI description) -----------------------------------------------------


class Credentials(BaseModel):
    """A user name and password, to log in."""

    name: str = Field(min_length=1, max_length=40, examples=["ann"])
    password: str = Field(min_length=1, max_length=1024, examples=["correct horse battery"])


_ACCOUNT_NAME = re.compile(r"[A-Za-z0-9_.-]{3,40}")


class Registration(BaseModel):
    """A new account's name (3 to 40 of A-Z a-z 0-9 _ . -) and password (8 or more).

    A name or password that does not fit is refused in words a person reads:

    >>> from pydantic import ValidationError
    >>> try:
    ...     Registration(name="a b", password="correct horse")
    ... except ValidationError as error:
    ...     print(error.errors()[0]["msg"])
    Value error, A name may use only letters, digits and _ . - (not "a b").
    """

    # The limits are checked by the validators below (in words); the schema states them.
    name: str = Field(examples=["ann"], json_schema_extra={"pattern": f"^{_ACCOUNT_NAME.pattern}$"})
    password: str = Field(
        examples=["correct horse battery"],
        json_schema_extra={"minLength": 8, "maxLength": 1024},
    )

    @field_validator("name")
    @classmethod
    def _name_in_words(cls, name: str) -> str:
        if not 3 <= len(name) <= 40:
            raise ValueError(f"A name has 3 to 40 characters; {name!r} has {len(name)}.")
        if _ACCOUNT_NAME.fullmatch(name) is None:
            raise ValueError(f'A name may use only letters, digits and _ . - (not "{name}").')
        return name

    @field_validator("password")
    @classmethod
    def _password_in_words(cls, password: str) -> str:
        if len(password) < 8:
            raise ValueError(f"A password has at least 8 characters; this one has {len(password)}.")
        if len(password) > 1024:
            raise ValueError("A password has at most 1024 characters.")
        return password


class AccountOut(BaseModel):
    """A user and his balance (exact money as text)."""

    id: int
    name: str
    role: Role
    balance: str


class SessionOut(BaseModel):
    """A session token: send it as ``Authorization: Bearer TOKEN``.

    A browser need not: the login also sets the session cookie (HttpOnly,
    SameSite=Strict), which every request and table socket of the site then carries.
    """

    token: str
    idle_timeout_seconds: int


class MovementOut(BaseModel):
    """One movement of a player's money."""

    transaction: int
    kind: str
    round: str | None
    amount: str
    balance_after: str
    at: str
    memo: str


class TableOut(BaseModel):
    """A table: its rulebook, limits, side bets and seats."""

    id: str
    name: str
    rules: str
    rules_version: int
    title: str
    dealt: str
    boxes: int
    minimum_bet: str
    maximum_bet: str
    side_bets: list[str]
    seats: dict[str, str]
    players: int
    phase: str
    betting_seconds: float
    decision_seconds: float


class RoundOut(BaseModel):
    """One of a player's rounds, newest first."""

    round: str
    table: str
    number: int
    rules: str
    rules_version: str
    status: str
    balance_before: str
    balance_after: str | None


class ErrorOut(BaseModel):
    """An error: a code and a sentence naming what was wrong."""

    error: str
    message: str


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut},
    401: {"model": ErrorOut},
    404: {"model": ErrorOut},
}

#: The cookie that carries the session token for a browser: HttpOnly (no script reads
#: it), SameSite=Strict (no other site's page sends it, so it cannot forge a request or
#: open a table socket in the player's name), Secure when the site is served over https,
#: and without an expiry date: it lasts until the browser closes, across tabs.
SESSION_COOKIE = "croupier_session"


class HttpError(Exception):
    """An HTTP error answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


# -- the server's state --------------------------------------------------------------------------


#: Seconds a session confirmed by the database is trusted for a socket's commands before
#: it is asked again.  A logout through this server ends the trust at once; an expiry or a
#: logout through another server is noticed within this time.
SESSION_RECHECK_SECONDS = 2.0

#: Messages that may wait for one socket; a client that lets more pile up is dropped.
OUTBOX_MESSAGES = 256
#: Seconds one message may take to go out before its socket is dropped.
SEND_SECONDS = 10.0


@dataclass(eq=False)
class Connection:
    """One WebSocket at a table.

    What the server sends it goes through its own bounded outbox, written by its own
    task: a client that stops reading costs only itself.  When the outbox is full or a
    send takes longer than :data:`SEND_SECONDS`, the connection is dropped (its handler
    is cancelled and the socket closed); nothing ever waits on it.
    """

    socket: WebSocket
    table: str
    user: accounts.User | None = None
    #: The session token the user authenticated with: every command is checked against it.
    token: str | None = None
    limiter: RateLimiter = field(default_factory=RateLimiter)
    outbox: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(OUTBOX_MESSAGES))
    #: Why the connection was dropped (None while it is up).
    dropped: str | None = None
    handler: asyncio.Task[Any] | None = None
    writer: asyncio.Task[None] | None = None
    #: The last message's operation and result (``ok`` or an error code), for the
    #: metrics and the log.
    last_op: str = "unknown"
    last_result: str = "ok"

    def push(self, text: str) -> None:
        """Queue ``text`` for the client, never waiting; a full outbox drops the client."""
        if self.dropped is not None:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.drop(f"{OUTBOX_MESSAGES} messages waiting: the client is not reading")

    def drop(self, why: str) -> None:
        """Give up on the client: its handler stops and its socket closes."""
        if self.dropped is not None:
            return
        self.dropped = why
        _log.warning("table %s: connection dropped: %s", self.table, why)
        if self.handler is not None and self.handler is not asyncio.current_task():
            self.handler.cancel()

    async def write(self) -> None:
        """Send the outbox in order, each message within :data:`SEND_SECONDS`."""
        while True:
            text = await self.outbox.get()
            try:
                await asyncio.wait_for(self.socket.send_text(text), SEND_SECONDS)
            except TimeoutError:
                self.drop(f"a message took over {SEND_SECONDS:g} s to send")
                return
            except Exception:  # the socket is closing: its handler cleans up
                return


class Hub:
    """The tables, their actors and their connections.

    A table's runtime is touched only through its actor (:class:`TableActor`): commands,
    seats, clocks and views in order, each off the event loop, each announced before
    the next begins.  The database is reached from worker threads only.
    """

    def __init__(self, engine: sa.Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self.metrics = Metrics()
        self._ids: dict[str, int] = {}
        self._limiters: dict[int, RateLimiter] = {}
        #: Session token -> when the database last confirmed it (the settings' clock).
        self._sessions: dict[str, float] = {}
        self.runtimes: dict[str, TableRuntime] = {}
        now = settings.clock()
        for config in settings.tables:
            self.runtimes[config.id] = TableRuntime(
                config, engine, self.user_id, now=now, shoe=settings.shoes.get(config.id)
            )
        self.connections: dict[str, set[Connection]] = {table: set() for table in self.runtimes}
        self.actors: dict[str, TableActor] = {
            table: TableActor(
                table,
                runtime,
                clock=self.now,
                on_tick=self._announcer(table),
                recheck_seconds=settings.tick_seconds,
            )
            for table, runtime in self.runtimes.items()
        }
        for table, actor in self.actors.items():
            self.metrics.watch_table(
                table,
                connections=partial(self._count, table, signed_in=False),
                players=partial(self._count, table, signed_in=True),
                lag=partial(getattr, actor, "lag"),
                queue=partial(getattr, actor, "waiting"),
            )

    def _count(self, table: str, *, signed_in: bool) -> float:
        connections = list(self.connections[table])
        if signed_in:
            return float(len({c.user.id for c in connections if c.user is not None}))
        return float(len(connections))

    def _announcer(self, table: str) -> Callable[[Outcome], Awaitable[None]]:
        async def announce(outcome: Outcome) -> None:
            await self.announce(table, outcome, await self.balances(table, outcome))

        return announce

    async def balances(self, table: str, outcome: Outcome | None) -> dict[int, Decimal]:
        """The balances to send after ``outcome``: everyone's at the table when a round
        is over, nobody's otherwise (read in a worker thread)."""
        if outcome is None or not outcome.over:
            return {}
        ids = {c.user.id for c in self.connections[table] if c.user is not None}
        return await asyncio.to_thread(self.read_balances, ids)

    def read_balances(self, ids: set[int]) -> dict[int, Decimal]:
        """Balances of the users ``ids`` (blocking: call from a worker thread)."""
        if not ids:
            return {}
        with self.engine.begin() as conn:
            return {user: ledger.balance(conn, user) for user in ids}

    async def announce(
        self, table: str, outcome: Outcome | None, balances: Mapping[int, Decimal]
    ) -> None:
        """Broadcast ``outcome`` and send the ``balances`` to their owners at ``table``."""
        if outcome is not None and outcome.over:
            self.metrics.rounds.labels(table=table).inc()
        await self.broadcast(table, outcome)
        if not balances:
            return
        for connection in list(self.connections[table]):
            user = connection.user
            if user is not None and user.id in balances:
                connection.push(json.dumps({"type": "balance", "balance": str(balances[user.id])}))

    def start(self) -> None:
        """Start every table's actor (on the running loop)."""
        for actor in self.actors.values():
            actor.start()

    async def stop(self) -> None:
        """Stop every table's actor."""
        for actor in self.actors.values():
            await actor.stop()

    def user_id(self, name: str) -> int:
        """A user's id from his name (cached)."""
        if name not in self._ids:
            with self.engine.connect() as conn:
                found = conn.execute(
                    sa.select(users.c.id).where(users.c.name == name)
                ).scalar_one_or_none()
            if found is None:
                raise NotFound(f"no user named {name!r}")
            self._ids[name] = int(found)
        return self._ids[name]

    def now(self) -> float:
        return self.settings.clock()

    async def check_session(self, token: str, now: float) -> None:
        """Hold a command to a live session (:class:`SessionExpired` if it is not).

        The database is asked (and the session marked as used) at most once every
        :data:`SESSION_RECHECK_SECONDS` per token, in a worker thread.
        """
        confirmed = self._sessions.get(token)
        if confirmed is not None and 0 <= now - confirmed < SESSION_RECHECK_SECONDS:
            return
        try:
            await asyncio.to_thread(self.read_session, token, now)
        except SessionExpired:
            self._sessions.pop(token, None)
            raise
        if len(self._sessions) > 10_000:  # forget the stale ones now and then
            self._sessions = {
                kept: at
                for kept, at in self._sessions.items()
                if 0 <= now - at < SESSION_RECHECK_SECONDS
            }
        self._sessions[token] = now

    def forget_session(self, token: str) -> None:
        """A session ended here (a logout): no command is taken on it from now on."""
        self._sessions.pop(token, None)

    def forget_user(self, user_id: int) -> None:
        """Every session of a user ended here (a break, self-exclusion): his sockets'
        commands are asked of the database again, and refused there."""
        for connection in [c for table in self.connections.values() for c in table]:
            user = connection.user
            if user is not None and user.id == user_id and connection.token is not None:
                self._sessions.pop(connection.token, None)

    def read_session(self, token: str, now: float) -> accounts.User:
        """The token's user, the session marked as used (blocking: a worker thread)."""
        with self.engine.begin() as conn:
            return accounts.authenticate(conn, token, now=_utc(now))

    def limiter(self, connection: Connection) -> RateLimiter:
        """The rate limit a message from ``connection`` counts against: the user's own,
        shared by all his sockets at every table, once he has logged in."""
        if connection.user is None:
            return connection.limiter
        return self._limiters.setdefault(connection.user.id, RateLimiter())

    async def send(self, connection: Connection, message: dict[str, Any]) -> None:
        await self.send_text(connection, json.dumps(message))

    async def send_text(self, connection: Connection, text: str) -> None:
        # Queued, never awaited: a slow client never holds up a table.
        connection.push(text)

    async def broadcast(self, table: str, outcome: Outcome | None) -> None:
        """Each connection at ``table`` gets the new events and the table as it sees it."""
        runtime = self.runtimes[table]
        # Everyone but a dealer and the player whose turn it is sees the same table:
        # it is built and encoded once.
        shared: dict[bool, tuple[str | None, str]] = {}
        turn = runtime.round.current_turn
        acting = runtime.round.seated_player(turn[0]) if turn is not None else None

        def texts(dealer: bool, name: str | None) -> tuple[str | None, str]:
            events = None
            if outcome is not None and outcome.events:
                events = json.dumps(
                    {
                        "type": "events",
                        "round": runtime.round_id,
                        "events": public_events(outcome.events, dealer=dealer),
                    }
                )
            state = json.dumps({"type": "state", "state": runtime.view(name, dealer=dealer)})
            return events, state

        for connection in list(self.connections[table]):
            user = connection.user
            dealer = user is not None and user.role.is_staff
            name = user.name if user is not None else None
            if name is not None and name == acting:
                events, state = texts(dealer, name)
            else:
                if dealer not in shared:
                    shared[dealer] = texts(dealer, None)
                events, state = shared[dealer]
            if events is not None:
                await self.send_text(connection, events)
            await self.send_text(connection, state)

    async def send_balance(self, connection: Connection) -> None:
        if connection.user is None:
            return
        user = connection.user.id
        amounts = await asyncio.to_thread(self.read_balances, {user})
        await self.send(connection, {"type": "balance", "balance": str(amounts[user])})


def _utc(now: float) -> datetime:
    return datetime.fromtimestamp(now, UTC)


def clear_session_cookie(request: Request, response: Response) -> None:
    """End the browser's login: the session cookie, deleted as it was set."""
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def request_token(request: Request, authorization: str | None) -> str | None:
    """The session token of a request: its bearer token, else its session cookie."""
    if authorization:
        if not authorization.startswith("Bearer "):
            raise HttpError(401, "unauthenticated", "send Authorization: Bearer TOKEN")
        return authorization.removeprefix("Bearer ").strip()
    return request.cookies.get(SESSION_COOKIE) or None


def current_user(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> tuple[accounts.User, str]:
    """The user of the request's bearer token (or session cookie), and the token."""
    hub: Hub = request.app.state.hub
    token = request_token(request, authorization)
    if not token:
        raise HttpError(401, "unauthenticated", "log in first: send Authorization: Bearer TOKEN")
    try:
        with hub.engine.begin() as conn:
            return accounts.authenticate(conn, token, now=_utc(hub.now())), token
    except SessionExpired as error:
        raise HttpError(401, "session_expired", str(error)) from None


CurrentUser = Annotated[tuple[accounts.User, str], Depends(current_user)]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server application: HTTP API, the table WebSockets, the tables' clocks."""
    settings = settings or Settings()
    engine = connect(settings.url)
    migrate(engine)
    # Claimed before a table's round is read: a second process never voids our rounds.
    names = [table.id for table in settings.tables]
    if settings.standby is not None:
        ownership = Ownership.wait(engine, names, waiting=settings.standby)
    else:
        ownership = Ownership(engine, names)
    try:
        hub = Hub(engine, settings)
    except BaseException:
        ownership.release()
        raise
    throttle = accounts.AddressThrottle()

    figures = RtpCache(settings.cache_dir)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.start()
        if settings.rtp_at_start:
            figures.warm(runtime.rules for runtime in hub.runtimes.values())
        try:
            yield
        finally:
            await hub.stop()
            ownership.release()

    app = FastAPI(
        title="croupier table server",
        version="1",
        description="Accounts, wallet, tables and game recall. The table protocol is a "
        "WebSocket at /ws/tables/{table}; its messages are described in docs/protocol.md.",
        lifespan=lifespan,
    )
    app.state.hub = hub
    app.state.rtp = figures
    ledger.log_movements(engine)
    # The page and the API's answers go out compressed to a browser that takes gzip.
    app.add_middleware(GZipMiddleware, minimum_size=500)

    @app.middleware("http")
    async def log_requests(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        seconds = time.perf_counter() - started
        route = request.scope.get("route")
        path = getattr(route, "path", "unmatched")
        hub.metrics.requests.labels(
            method=request.method, route=path, status=str(response.status_code)
        ).observe(seconds)
        _access.info(
            "%s %s %d",
            request.method,
            path,
            response.status_code,
            extra={
                "method": request.method,
                "path": request.url.path,
                "route": path,
                "status": response.status_code,
                "ms": round(seconds * 1000, 3),
                "client": request.client.host if request.client is not None else None,
            },
        )
        return response

    add_web_routes(
        app, lambda table: hub.runtimes[table].preset if table in hub.runtimes else None, figures
    )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        if request.url.path != "/api/accounts":
            return await request_validation_exception_handler(request, error)
        # A sign-up: the first problem in a person's words, in the shape of our errors.
        problems = error.errors()
        first = problems[0] if problems else {}
        where = [str(part) for part in first.get("loc", ()) if part != "body"]
        reason = str(first.get("msg", "the request is not valid")).removeprefix("Value error, ")
        if first.get("type") == "missing":
            reason = f"Give a {where[-1] if where else 'name and password'}."
        elif not reason[:1].isupper():
            reason = f"{' '.join(where).capitalize() or 'The request'}: {reason}."
        return JSONResponse(
            status_code=422, content={"error": "invalid_account", "message": reason}
        )

    @app.exception_handler(HttpError)
    async def http_error(request: Request, error: HttpError) -> JSONResponse:
        return JSONResponse(
            status_code=error.status, content={"error": error.code, "message": error.message}
        )

    @app.exception_handler(StarletteHTTPException)
    async def starlette_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        # A body that is not even text, an unknown path: the same error shape as ours.
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
            error.status_code, "error"
        )
        headers = dict(getattr(error, "headers", None) or {})
        if error.status_code == 405:
            # Starlette names the methods of the first route on the path; a path with a
            # route per method (GET and PUT /api/limits) allows them all.
            headers["Allow"] = ", ".join(allowed_methods(request.url.path))
        return JSONResponse(
            status_code=error.status_code,
            content={"error": code, "message": str(error.detail)},
            headers=headers or None,
        )

    def allowed_methods(path: str) -> list[str]:
        methods: set[str] = set()
        for route in app.routes:
            if isinstance(route, APIRoute) and route.path_regex.fullmatch(path):
                methods |= route.methods or set()
        return sorted(methods)

    def account_out(user: accounts.User) -> AccountOut:
        with engine.begin() as conn:
            amount = ledger.balance(conn, user.id)
        return AccountOut(id=user.id, name=user.name, role=user.role, balance=str(amount))

    @app.get("/health", responses={503: {"model": ErrorOut}})
    def health() -> dict[str, Any]:
        """The server is up, reaches its database, and each table's queue and lag."""
        try:
            with engine.connect() as conn:
                conn.execute(sa.text("SELECT 1"))
        except sa.exc.SQLAlchemyError as problem:
            raise HttpError(
                503, "database_unreachable", f"the database does not answer: {problem}"
            ) from None
        return {
            "status": "ok",
            "database": "ok",
            "tables": {
                table: {"queue": actor.waiting, "lag_seconds": round(actor.lag, 6)}
                for table, actor in hub.actors.items()
            },
        }

    @app.get("/metrics", response_class=Response)
    def metrics() -> Response:
        """The server's metrics in Prometheus' text format."""
        body, content_type = hub.metrics.render()
        return Response(content=body, media_type=content_type)

    @app.post(
        "/api/accounts",
        status_code=201,
        responses={400: {"model": ErrorOut}, 409: {"model": ErrorOut}, 422: {"model": ErrorOut}},
    )
    def register(credentials: Registration) -> AccountOut:
        """Open an account (play-money chips to start with, where the server gives them)."""
        try:
            # The password is hashed before the transaction: no write waits on it.
            account = accounts.prepare(credentials.name, credentials.password)
            with engine.begin() as conn:
                user_id = accounts.create(conn, account)
                ledger.player_account(conn, user_id)
                if settings.play_money is not None:
                    ledger.grant(
                        conn,
                        user_id,
                        settings.play_money,
                        idempotency_key=f"welcome:{user_id}",
                    )
        except NameTaken as error:
            raise HttpError(409, "name_taken", str(error)) from None
        except InvalidCredentials as error:
            raise HttpError(400, "invalid_account", str(error)) from None
        return account_out(accounts.User(id=user_id, name=credentials.name, role=Role.PLAYER))

    @app.post("/api/sessions", status_code=201, responses={**_ERRORS, 403: {"model": ErrorOut}})
    def sign_in(credentials: Credentials, request: Request, response: Response) -> SessionOut:
        """Log in: a session token, which expires after 30 idle minutes, also set as
        the session cookie.

        Every refusal of the name or password is the same 401 ``login_failed``: an
        unknown name, a wrong password, a name or an address that must wait before
        trying again.  With the right password, 403 ``account_disabled``,
        ``on_break`` or ``self_excluded`` says why the account may not play now.
        """
        now = hub.now()
        address = request.client.host if request.client is not None else "unknown"
        try:
            if not throttle.allows(address, now):
                accounts.refuse(credentials.password)  # not counted: the wait stays as it is
            try:
                token = accounts.sign_in(
                    engine, credentials.name, credentials.password, now=_utc(now)
                )
            except AuthError:
                throttle.failed(address, now)
                raise
        except AccountDisabled as error:
            raise HttpError(403, "account_disabled", str(error)) from None
        except AuthError as error:
            raise HttpError(401, "login_failed", str(error)) from None
        except PlayRefused as error:
            raise HttpError(403, error.code, str(error)) from None
        response.set_cookie(
            SESSION_COOKIE,
            token,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
        return SessionOut(token=token, idle_timeout_seconds=int(accounts.IDLE.total_seconds()))

    @app.delete("/api/sessions/current", status_code=204, responses=_ERRORS)
    def sign_out(
        request: Request, authorization: Annotated[str | None, Header()] = None
    ) -> Response:
        """Log out: the session ends and its cookie is cleared (an ended one too)."""
        token = request_token(request, authorization)
        if token:
            hub.forget_session(token)
            with engine.begin() as conn:
                accounts.logout(conn, token)
        response = Response(status_code=204)
        clear_session_cookie(request, response)
        return response

    @app.get("/api/me", responses=_ERRORS)
    def me(user: CurrentUser) -> AccountOut:
        """The signed-in user and his balance."""
        return account_out(user[0])

    @app.get("/api/wallet/history", responses=_ERRORS)
    def wallet_history(
        user: CurrentUser, limit: Annotated[int, Query(ge=1, le=500)] = 50
    ) -> list[MovementOut]:
        """The movements of the user's money, newest first."""
        with engine.begin() as conn:
            moves = ledger.history(conn, user[0].id, limit)
        return [
            MovementOut(
                transaction=move.transaction_id,
                kind=move.kind,
                round=move.round_id,
                amount=str(move.amount),
                balance_after=str(move.balance_after),
                at=move.created_at.isoformat(),
                memo=move.memo,
            )
            for move in moves
        ]

    add_player_routes(app, engine, hub.now, hub.forget_user)

    @app.get("/api/tables")
    async def tables() -> list[TableOut]:
        """The tables: rulebook, limits, side bets, seats and players."""
        summaries = []
        for table, runtime in hub.runtimes.items():
            watching = len(hub.connections[table])
            summary = await hub.actors[table].call(partial(table_summary, runtime, watching))
            summaries.append(TableOut(**summary))
        return summaries

    @app.get("/api/tables/{table}", responses={404: {"model": ErrorOut}})
    async def table_state(table: str) -> dict[str, Any]:
        """A table as a watcher sees it."""
        runtime = hub.runtimes.get(table)
        if runtime is None:
            raise HttpError(404, "no_table", f"no table {table!r}")
        return await hub.actors[table].call(lambda: runtime.view(None))

    @app.get("/api/tables/{table}/log", responses={404: {"model": ErrorOut}})
    async def table_log(
        table: str, rounds: Annotated[int, Query(ge=0, le=20)] = 3
    ) -> list[dict[str, Any]]:
        """The table's log: the events of its last ``rounds`` finished rounds and of the
        round at the table, oldest first, as a watcher sees them (read back from the
        database after a restart)."""
        runtime = hub.runtimes.get(table)
        if runtime is None:
            raise HttpError(404, "no_table", f"no table {table!r}")
        return await hub.actors[table].call(lambda: runtime.log(rounds))

    @app.get("/api/rounds", responses=_ERRORS)
    def my_rounds(
        user: CurrentUser, limit: Annotated[int, Query(ge=1, le=100)] = 10
    ) -> list[RoundOut]:
        """The user's last rounds, newest first."""
        with engine.begin() as conn:
            rows = rounds_store.player_rounds(conn, user[0].id, limit)
        return [
            RoundOut(
                round=row.id,
                table=row.table_id,
                number=row.number,
                rules=row.rules_name,
                rules_version=row.rules_version,
                status=row.status,
                balance_before=str(before),
                balance_after=None if after is None else str(after),
            )
            for row, before, after in rows
        ]

    @app.get("/api/rounds/{round_id}", responses=_ERRORS)
    def recall(user: CurrentUser, round_id: str) -> dict[str, Any]:
        """Game recall: a round as the user may see it, replayable by ``croupier round``."""
        viewer = user[0]
        if _ROUND_ID.fullmatch(round_id) is None:  # a NUL byte never reaches the database
            raise HttpError(404, "no_round", f"no round {round_id!r}")
        with engine.begin() as conn:
            try:
                row = rounds_store.load_round(conn, round_id)
            except NotFound:
                raise HttpError(404, "no_round", f"no round {round_id!r}") from None
            balances = rounds_store.round_balances(conn, round_id, viewer.id)
            if balances is None and not viewer.role.is_staff:
                raise HttpError(404, "no_round", f"no round {round_id!r} of yours")
        return recall_record(row, viewer.name, balances)

    @app.websocket("/ws/tables/{table}")
    async def table_socket(socket: WebSocket, table: str) -> None:
        runtime = hub.runtimes.get(table)
        await socket.accept()
        if runtime is None:
            await socket.send_text(
                json.dumps({"type": "error", "code": "no_table", "message": f"no table {table!r}"})
            )
            await socket.close(code=4404)
            return
        actor = hub.actors[table]
        connection = Connection(socket, table, handler=asyncio.current_task())
        connection.writer = asyncio.create_task(connection.write())
        hub.connections[table].add(connection)
        try:
            view = await actor.call(lambda: runtime.view(None))
            welcome = {"type": "welcome", "table": table, "you": None, "state": view}
            await hub.send(connection, welcome)
            while True:
                frame = await socket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                if text is None:
                    await error(
                        connection, "malformed", "binary frames are not taken: send JSON text"
                    )
                    continue
                started = time.perf_counter()
                connection.last_op, connection.last_result = "unknown", "ok"
                await handle(connection, runtime, actor, text)
                record(connection, time.perf_counter() - started)
        except (WebSocketDisconnect, _SOCKET_CLOSED):
            pass
        except asyncio.CancelledError:
            if connection.dropped is None:
                raise
            # Dropped for not reading: this connection ends here, quietly.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        finally:
            connection.writer.cancel()
            hub.connections[table].discard(connection)
            user = connection.user
            if user is not None and not any(
                other.user is not None and other.user.id == user.id
                for other in hub.connections[table]
            ):
                name, now = user.name, hub.now()
                actor.post(lambda: runtime.disconnected(name, now))

    def record(connection: Connection, seconds: float) -> None:
        """Count and log one message at a table."""
        table, op, result = connection.table, connection.last_op, connection.last_result
        hub.metrics.actions.labels(table=table, op=op, result=result).inc()
        if result == "ok" and op not in ("ping", "auth", "unknown"):
            hub.metrics.action_seconds.labels(table=table).observe(seconds)
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
        connection: Connection, code: str, message: str, key: str | None = None
    ) -> None:
        connection.last_result = code
        body: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if key is not None:
            body["key"] = key
        await hub.send(connection, body)

    async def handle(
        connection: Connection, runtime: TableRuntime, actor: TableActor, text: str
    ) -> None:
        now = hub.now()
        limiter = hub.limiter(connection)
        if not limiter.allow(now):
            await error(
                connection,
                "rate_limited",
                f"too many messages: at most {limiter.rate:g} a second",
            )
            return
        if len(text.encode()) > MAX_MESSAGE_BYTES:
            await error(connection, "too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
            return
        try:
            message = parse_message(text)
        except ProtocolError as problem:
            await error(connection, problem.code, str(problem))
            return
        connection.last_op = message.op if isinstance(message, Action) else message.type
        if isinstance(message, Ping):
            await hub.send(connection, {"type": "pong"})
            return
        if isinstance(message, Auth):
            # A token in the message, else the session cookie the socket was opened with.
            token = message.token or connection.socket.cookies.get(SESSION_COOKIE)
            if not token:
                await error(
                    connection, "session_expired", "no session: log in, then send auth again"
                )
                return
            try:
                signed = await asyncio.to_thread(hub.read_session, token, now)
            except SessionExpired as problem:
                await error(connection, "session_expired", str(problem))
                return
            connection.user = signed
            connection.token = token
            hub._ids[signed.name] = signed.id
            dealer = signed.role.is_staff

            def welcome() -> dict[str, Any]:
                runtime.reconnected(signed.name)
                return runtime.view(signed.name, dealer=dealer)

            view = await actor.call(welcome)
            await hub.send(
                connection,
                {"type": "welcome", "table": runtime.config.id, "you": signed.name, "state": view},
            )
            await hub.send_balance(connection)
            return
        user = connection.user
        if user is None or connection.token is None:
            await error(connection, "unauthenticated", 'log in first: send {"type": "auth"}')
            return
        # Every command is held to a live session: a logout or an expiry elsewhere ends
        # this socket's rights too.  Checking also marks the session as used.
        try:
            await hub.check_session(connection.token, now)
        except SessionExpired as problem:
            connection.user = None
            connection.token = None
            await error(connection, "session_expired", str(problem), message_key(message))
            return
        table = runtime.config.id

        async def seats_changed(_: None) -> None:
            await hub.broadcast(table, None)

        try:
            if isinstance(message, TakeBox):
                box = message.box
                await actor.call(lambda: runtime.take_box(user.name, box), seats_changed)
                return
            if isinstance(message, LeaveBox):
                box = message.box
                await actor.call(lambda: runtime.leave_box(user.name, box), seats_changed)
                return
            if isinstance(message, ConfirmBets):
                await confirm_bets(connection, runtime, actor, user, now)
                return
            assert isinstance(message, Action)
            op = message.op
            if op in DEALER_OPS and op not in PLAYER_OPS:
                if not user.role.is_staff:
                    raise ActionRefused(f"{op}: for the table's dealer only", code="forbidden")
                player = None
            elif op in PLAYER_OPS:
                player = user.name
            else:
                raise ActionRefused(f"{op}: only the table does that", code="forbidden")
            args, key = message.args, message.key
            # Whose balances go out if the round ends, read here on the loop that owns
            # the connections; the worker thread only reads the ledger.
            present = {c.user.id for c in hub.connections[table] if c.user is not None}

            def apply() -> tuple[Outcome, dict[int, Decimal]]:
                outcome = runtime.apply(op, player, args, now=now, key=key)
                if outcome.retried:
                    return outcome, {}
                # The balances to send, read in this same worker thread: everyone's at
                # the table when the round is over, the acting player's otherwise.
                ids = {user.id}
                if outcome.over:
                    ids |= present
                return outcome, hub.read_balances(ids)

            async def announce(result: tuple[Outcome, dict[int, Decimal]]) -> None:
                outcome, balances = result
                if outcome.retried:
                    return
                # The ack goes first: the player hears his command was taken, then what
                # it did, before anything else happens at the table.
                hub_ack(outcome)
                await hub.announce(table, outcome, balances)

            def hub_ack(outcome: Outcome) -> None:
                ack: dict[str, Any] = {
                    "type": "ack",
                    "op": op,
                    "seq": outcome.seq,
                    "retried": outcome.retried,
                }
                if key is not None:
                    ack["key"] = key
                connection.push(json.dumps(ack))

            outcome, _ = await actor.call(apply, announce)
        except ActionRefused as problem:
            await error(connection, problem.code, str(problem), message_key(message))
            return
        except InsufficientFunds as problem:
            await error(connection, "insufficient_funds", str(problem), message_key(message))
            return
        except PlayRefused as problem:
            await error(connection, problem.code, str(problem), message_key(message))
            return
        except (CroupierError, ServerError) as problem:
            await error(connection, "illegal", str(problem), message_key(message))
            return
        if outcome.retried:
            hub_ack(outcome)

    async def confirm_bets(
        connection: Connection,
        runtime: TableRuntime,
        actor: TableActor,
        user: accounts.User,
        now: float,
    ) -> None:
        """The player's bets are made: he hears their total, and the deal starts once
        every player with a bet on the layout has confirmed."""
        table = runtime.config.id

        def confirm() -> tuple[Decimal, Outcome | None]:
            return runtime.confirm_bets(user.name, now)

        async def announce(result: tuple[Decimal, Outcome | None]) -> None:
            total, outcome = result
            connection.push(json.dumps({"type": "bets_confirmed", "total": str(total)}))
            await hub.announce(table, outcome, await hub.balances(table, outcome))

        await actor.call(confirm, announce)

    def message_key(message: object) -> str | None:
        return message.key if isinstance(message, Action) else None

    return app
