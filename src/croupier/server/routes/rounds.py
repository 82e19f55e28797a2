"""A player's rounds, and game recall: a round as he may see it, replayable."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from croupier.server import rounds_store
from croupier.server.dependencies import CurrentUser, Database
from croupier.server.errors import NotFound
from croupier.server.http_errors import ERRORS, HttpError
from croupier.server.recall import recall_record

__all__ = ["RoundOut", "router"]

router = APIRouter(tags=["rounds"])

#: A round's id as the server makes them (uuid4, hex).
_ROUND_ID = re.compile(r"[0-9a-f]{32}")


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


@router.get("/api/rounds", responses=ERRORS)
def my_rounds(
    user: CurrentUser, database: Database, limit: Annotated[int, Query(ge=1, le=100)] = 10
) -> list[RoundOut]:
    """The user's last rounds, newest first."""
    with database.begin() as conn:
        rows = rounds_store.player_rounds(conn, user.id, limit)
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


@router.get("/api/rounds/{round_id}", responses=ERRORS)
def recall(user: CurrentUser, database: Database, round_id: str) -> dict[str, Any]:
    """Game recall: a round as the user may see it, replayable by ``croupier round``."""
    if _ROUND_ID.fullmatch(round_id) is None:  # a NUL byte never reaches the database
        raise HttpError(404, "no_round", f"no round {round_id!r}")
    with database.begin() as conn:
        try:
            row = rounds_store.load_round(conn, round_id)
        except NotFound:
            raise HttpError(404, "no_round", f"no round {round_id!r}") from None
        balances = rounds_store.round_balances(conn, round_id, user.id)
        if balances is None and not user.role.is_staff:
            raise HttpError(404, "no_round", f"no round {round_id!r} of yours")
    return recall_record(row, user.name, balances)
