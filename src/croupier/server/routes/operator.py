"""The operator's view: the server's health and its metrics."""

from __future__ import annotations

import os
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import Response

from croupier.server.dependencies import Database, TableHub
from croupier.server.http_errors import ErrorOut, HttpError
from croupier.server.ownership import Ownership

__all__ = ["router"]

router = APIRouter(tags=["operator"])


@router.get("/health", responses={503: {"model": ErrorOut}})
def health(request: Request, database: Database, hub: TableHub) -> dict[str, Any]:
    """The server is up, reaches its database, and the queue and lag of each table it
    runs (in a cluster, the other processes run the rest); ``pid`` is the process that
    answered, ``sockets`` the table sockets open at it, by table; ``figures`` is
    ``"warming"`` while the tables' strategy charts and RTP are being worked out at
    start (a minute or more on a machine whose cache is empty, a core's worth), then
    ``"ready"``.  503 when the
    database does not answer, when this process cannot renew its tables' leases, or
    when it runs no table while tables wait for a process (a single server whose
    tables were taken over; a cluster whose tables nobody runs)."""
    try:
        with database.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.SQLAlchemyError as problem:
        raise HttpError(
            503, "database_unreachable", f"the database does not answer: {problem}"
        ) from None
    ownership = hub.ownership
    if ownership is not None:
        if not ownership.healthy:
            raise HttpError(503, "leases_lost", "this process cannot renew its tables' leases")
        if not hub.actors and (hub.settings.share is None or _orphans(ownership)):
            raise HttpError(
                503,
                "no_tables",
                "this process runs no table while tables wait for one to run them",
            )
    return {
        "status": "ok",
        "database": "ok",
        "pid": os.getpid(),
        "figures": (
            "warming" if any(thread.is_alive() for thread in request.app.state.warming) else "ready"
        ),
        # A table whose lease was just lost is not listed, even before its actor stops.
        "tables": {
            table: {"queue": actor.waiting, "lag_seconds": round(actor.lag, 6)}
            for table, actor in list(hub.actors.items())
            if ownership is None or table in ownership.held
        },
        "sockets": {
            table: len(connections)
            for table, connections in hub.connections.items()
            if len(connections)
        },
    }


def _orphans(ownership: Ownership) -> list[str]:
    try:
        return ownership.orphans()
    except sa.exc.SQLAlchemyError:
        return ["?"]  # the leases cannot be read: as good as none renewed


@router.get("/metrics", response_class=Response)
def metrics(hub: TableHub) -> Response:
    """The server's metrics in Prometheus' text format."""
    body, content_type = hub.metrics.render()
    return Response(content=body, media_type=content_type)
