"""The wallet: the movements of a player's money."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from croupier.server import ledger
from croupier.server.dependencies import CurrentUser, Database
from croupier.server.http_errors import ERRORS

__all__ = ["MovementOut", "router"]

router = APIRouter(tags=["wallet"])


class MovementOut(BaseModel):
    """One movement of a player's money."""

    transaction: int
    kind: str
    round: str | None
    amount: str
    balance_after: str
    at: str
    memo: str


@router.get("/api/wallet/history", responses=ERRORS)
def wallet_history(
    user: CurrentUser, database: Database, limit: Annotated[int, Query(ge=1, le=500)] = 50
) -> list[MovementOut]:
    """The movements of the user's money, newest first."""
    with database.begin() as conn:
        moves = ledger.history(conn, user.id, limit)
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
