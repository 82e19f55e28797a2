"""The operator's view: the server's health and its metrics."""

from __future__ import annotations

import os
from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter
from fastapi.responses import Response

from croupier.server.dependencies import Database, TableHub
from croupier.server.http_errors import ErrorOut, HttpError

__all__ = ["router"]

router = APIRouter(tags=["operator"])


@router.get("/health", responses={503: {"model": ErrorOut}})
def health(database: Database, hub: TableHub) -> dict[str, Any]:
    """The server is up, reaches its database, and the queue and lag of each table it
    runs (in a cluster, the other processes run the rest); ``pid`` is the process that
    answered."""
    try:
        with database.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.SQLAlchemyError as problem:
        raise HttpError(
            503, "database_unreachable", f"the database does not answer: {problem}"
        ) from None
    return {
        "status": "ok",
        "database": "ok",
        "pid": os.getpid(),
        "tables": {
            table: {"queue": actor.waiting, "lag_seconds": round(actor.lag, 6)}
            for table, actor in hub.actors.items()
        },
    }


@router.get("/metrics", response_class=Response)
def metrics(hub: TableHub) -> Response:
    """The server's metrics in Prometheus' text format."""
    body, content_type = hub.metrics.render()
    return Response(content=body, media_type=content_type)
