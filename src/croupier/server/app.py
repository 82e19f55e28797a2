"""The table server: HTTP for accounts, wallet and recall; a WebSocket per table.

``create_app`` builds the application (FastAPI on uvicorn); ``croupier serve`` runs
it.  Its parts are kept on ``app.state`` (the settings, the database, the tables'
:class:`~croupier.server.hub.Hub`, the RTP figures, the login throttle) and given to
the routes as dependencies (:mod:`croupier.server.dependencies`); the routes are one
router per resource (:mod:`croupier.server.routes`).  The HTTP part is described at
``/openapi.json``; every WebSocket message is described in ``docs/protocol.md``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.middleware.gzip import GZipMiddleware

from croupier.presets import find_preset
from croupier.server import admin, history, ledger
from croupier.server.accounts import AddressThrottle
from croupier.server.db import connect, migrate
from croupier.server.http_errors import add_error_handlers
from croupier.server.hub import Hub
from croupier.server.origin import SameOrigin
from croupier.server.ownership import Ownership, TableOwned
from croupier.server.routes import (
    accounts,
    limits,
    operator,
    page,
    play_session,
    rounds,
    table_socket,
    tables,
    wallet,
)
from croupier.server.settings import Settings
from croupier.server.transports import KeepTransport
from croupier.server.web import STATIC, CachedStaticFiles, RtpCache, warm_charts

__all__ = ["ROUTERS", "Settings", "create_app"]

_access = logging.getLogger("croupier.access")

#: Every router, in the order its routes are matched.
ROUTERS = (
    page.router,
    operator.router,
    accounts.router,
    play_session.router,
    limits.router,
    wallet.router,
    tables.router,
    rounds.router,
    table_socket.router,
    admin.router,
)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server application: HTTP API, the table WebSockets, the tables' clocks.

    Without ``settings``, they are read from the environment
    (:meth:`Settings.from_environment`), so that ``uvicorn --factory
    croupier.server.app:create_app`` serves as ``croupier serve`` would.
    """
    settings = settings or Settings.from_environment()
    engine = connect(settings.url)
    migrate(engine)
    # Claimed before a table's round is read: a second process never voids our rounds.
    # In a cluster, the tables are claimed one by one as the server runs (Claims).
    names = [table.id for table in settings.tables] if settings.share is None else []
    if settings.share is not None and engine.dialect.name != "postgresql":
        raise TableOwned(
            f"several servers share tables only on PostgreSQL, not {engine.dialect.name}"
        )
    if settings.standby:
        ownership = Ownership.standing_by(engine, names, waiting=settings.on_standby)
    else:
        ownership = Ownership(engine)
    try:
        ownership.claim_all(names)
        hub = Hub(engine, settings, ownership)
    except BaseException:
        ownership.release()
        raise
    app = FastAPI(
        title="croupier table server",
        version="1",
        description="Accounts, wallet, tables and game recall. The table protocol is a "
        "WebSocket at /ws/tables/{table}; its messages are described in docs/protocol.md.",
        lifespan=_lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.ownership = ownership
    app.state.hub = hub
    app.state.figures = RtpCache(settings.cache_dir)
    #: The threads working out the lobby's figures at start (``/health`` says while).
    app.state.warming = []
    # The tables' history, kept for this application's database alone.
    app.state.histories = history.HistoryCache()
    app.state.throttle = AddressThrottle(engine)
    ledger.log_movements(engine)
    # The page and the API's answers go out compressed to a browser that takes gzip.
    app.add_middleware(GZipMiddleware, minimum_size=500)
    # A page of another site changes nothing here (nor opens a table socket).
    app.add_middleware(SameOrigin)
    # Outermost: a table socket's transport, to cut off a client dropped for not reading.
    app.add_middleware(KeepTransport)
    app.middleware("http")(_log_request)
    add_error_handlers(app)
    app.mount("/static", CachedStaticFiles(directory=STATIC), name="static")
    for router in ROUTERS:
        app.include_router(router)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The tables' actors run while the server does; its claim on them ends with it."""
    hub: Hub = app.state.hub
    settings: Settings = app.state.settings
    figures: RtpCache = app.state.figures
    ownership: Ownership = app.state.ownership
    await hub.start()
    if settings.rtp_at_start:
        rule_sets = [find_preset(config.preset).rules for config in settings.tables]
        # The charts first: seconds, where the RTP takes longer.
        app.state.warming = [warm_charts(rule_sets), figures.warm(rule_sets)]
    try:
        yield
    finally:
        await hub.stop()
        ownership.release()


async def _log_request(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """Count and log one HTTP request: its route, status and time."""
    started = time.perf_counter()
    response = await call_next(request)
    seconds = time.perf_counter() - started
    route = request.scope.get("route")
    path = getattr(route, "path", "unmatched")
    hub: Hub = request.app.state.hub
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
