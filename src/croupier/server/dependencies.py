"""What a route is given: the server's parts, kept on ``app.state`` by
:func:`~croupier.server.app.create_app`, and the signed-in user.

A route names what it needs by its type, ``Annotated`` with its dependency::

    @router.get("/api/me")
    def me(user: CurrentUser, database: Database) -> AccountOut: ...

Each part is read from the connection's application, so a WebSocket route takes them
as an HTTP route does.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import sqlalchemy as sa
from fastapi import Depends, Header, Request, Response
from starlette.requests import HTTPConnection

from croupier.server import accounts, history
from croupier.server.errors import SessionExpired
from croupier.server.http_errors import HttpError
from croupier.server.hub import Hub
from croupier.server.settings import Settings
from croupier.server.web import RtpCache

__all__ = [
    "SESSION_COOKIE",
    "CurrentUser",
    "Database",
    "Figures",
    "Histories",
    "LoginThrottle",
    "ServerSettings",
    "TableHub",
    "as_utc",
    "clear_session_cookie",
    "current_user",
    "request_token",
    "server_now",
    "set_session_cookie",
]

#: The cookie that carries the session token for a browser: HttpOnly (no script reads
#: it), SameSite=Strict (no other site's page sends it, so it cannot forge a request or
#: open a table socket in the player's name), Secure when the site is served over https,
#: and without an expiry date: it lasts until the browser closes, across tabs.
SESSION_COOKIE = "croupier_session"


async def _settings(connection: HTTPConnection) -> Settings:
    settings: Settings = connection.app.state.settings
    return settings


async def _database(connection: HTTPConnection) -> sa.Engine:
    engine: sa.Engine = connection.app.state.engine
    return engine


async def _hub(connection: HTTPConnection) -> Hub:
    hub: Hub = connection.app.state.hub
    return hub


async def _figures(connection: HTTPConnection) -> RtpCache:
    figures: RtpCache = connection.app.state.figures
    return figures


async def _histories(connection: HTTPConnection) -> history.HistoryCache:
    histories: history.HistoryCache = connection.app.state.histories
    return histories


async def _throttle(connection: HTTPConnection) -> accounts.AddressThrottle:
    throttle: accounts.AddressThrottle = connection.app.state.throttle
    return throttle


#: How the server runs (:class:`~croupier.server.settings.Settings`).
ServerSettings = Annotated[Settings, Depends(_settings)]
#: The database (its SQLAlchemy engine; reach it from a worker thread: a ``def`` route).
Database = Annotated[sa.Engine, Depends(_database)]
#: The tables, their actors and connections.
TableHub = Annotated[Hub, Depends(_hub)]
#: The tables' exact RTPs, computed once per rule set.
Figures = Annotated[RtpCache, Depends(_figures)]
#: The finished rounds' results the history routes have replayed, for this database.
Histories = Annotated[history.HistoryCache, Depends(_histories)]
#: The failed logins by client address.
LoginThrottle = Annotated[accounts.AddressThrottle, Depends(_throttle)]


def as_utc(seconds: float) -> datetime:
    """A time in seconds since 1970 as an aware UTC datetime."""
    return datetime.fromtimestamp(seconds, UTC)


def server_now(settings: Settings) -> datetime:
    """The server's clock now, as an aware UTC datetime."""
    return as_utc(settings.clock())


def request_token(request: Request, authorization: str | None) -> str | None:
    """The session token of a request: its bearer token, else its session cookie."""
    if authorization:
        if not authorization.startswith("Bearer "):
            raise HttpError(401, "unauthenticated", "send Authorization: Bearer TOKEN")
        return authorization.removeprefix("Bearer ").strip()
    return request.cookies.get(SESSION_COOKIE) or None


def current_user(
    request: Request,
    database: Database,
    settings: ServerSettings,
    authorization: Annotated[str | None, Header()] = None,
) -> accounts.User:
    """The user of the request's bearer token (or session cookie); 401 without one."""
    token = request_token(request, authorization)
    if not token:
        raise HttpError(401, "unauthenticated", "log in first: send Authorization: Bearer TOKEN")
    try:
        with database.begin() as conn:
            return accounts.authenticate(conn, token, now=server_now(settings))
    except SessionExpired as error:
        raise HttpError(401, "session_expired", str(error)) from None


#: The signed-in user of a request.
CurrentUser = Annotated[accounts.User, Depends(current_user)]


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    """Begin the browser's login: the session cookie (see :data:`SESSION_COOKIE`)."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    """End the browser's login: the session cookie, deleted as it was set."""
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
