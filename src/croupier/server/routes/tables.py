"""The tables: the lobby's list, each table as a watcher sees it, its log, and what the
page reads about it (its rules, the basic strategy chart, the exact RTP)."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel

from croupier.describe import describe_rules
from croupier.server.dependencies import Figures, TableHub
from croupier.server.http_errors import ErrorOut, HttpError
from croupier.server.runtime import TableRuntime
from croupier.server.tables import table_summary
from croupier.server.web import pay_tables_of, strategy_of

__all__ = ["TableOut", "router"]

router = APIRouter(tags=["tables"])

_NO_TABLE: dict[int | str, dict[str, Any]] = {404: {"model": ErrorOut}}


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


async def _runtime(table: str, hub: TableHub) -> TableRuntime:
    """The table named in the path (404 ``no_table`` for none)."""
    runtime = hub.runtimes.get(table)
    if runtime is None:
        raise HttpError(404, "no_table", f"no table {table!r}")
    return runtime


#: The table a route's path names.
Table = Annotated[TableRuntime, Depends(_runtime)]


@router.get("/api/tables")
async def tables(hub: TableHub) -> list[TableOut]:
    """The tables: rulebook, limits, side bets, seats and players."""
    summaries = []
    for table, runtime in hub.runtimes.items():
        watching = len(hub.connections[table])
        summary = await hub.actors[table].call(partial(table_summary, runtime, watching))
        summaries.append(TableOut(**summary))
    return summaries


@router.get("/api/tables/{table}", responses=_NO_TABLE)
async def table_state(runtime: Table, hub: TableHub) -> dict[str, Any]:
    """A table as a watcher sees it."""
    return await hub.actors[runtime.config.id].call(lambda: runtime.view(None))


@router.get("/api/tables/{table}/log", responses=_NO_TABLE)
async def table_log(
    runtime: Table, hub: TableHub, rounds: Annotated[int, Query(ge=0, le=20)] = 3
) -> list[dict[str, Any]]:
    """The table's log: the events of its last ``rounds`` finished rounds and of the
    round at the table, oldest first, as a watcher sees them (read back from the
    database after a restart)."""
    return await hub.actors[runtime.config.id].call(lambda: runtime.log(rounds))


@router.get("/api/tables/{table}/rules", responses=_NO_TABLE)
def table_rules(runtime: Table) -> dict[str, Any]:
    """The table's rules as its preset gives them: each rule's value, clause and note.

    Besides the preset's JSON: ``summary``, the rules in plain sentences for players,
    and ``pay_tables``, each offered side bet's winning lines by its key.
    """
    found = runtime.preset
    data: dict[str, Any] = found.to_json()
    data["summary"] = describe_rules(found.rules)
    data["pay_tables"] = pay_tables_of(found.rules)
    return data


@router.get("/api/tables/{table}/strategy", responses=_NO_TABLE)
async def table_strategy(runtime: Table) -> dict[str, Any]:
    """The basic strategy chart for the table's rules (rows of codes, and SVG)."""
    return await asyncio.to_thread(strategy_of, runtime.preset.rules)


@router.get("/api/tables/{table}/rtp", responses=_NO_TABLE)
async def table_rtp(runtime: Table, figures: Figures) -> dict[str, Any]:
    """The exact RTP of the table's main game (basic strategy) and side bets."""
    return await asyncio.to_thread(figures.get, runtime.preset.rules)
