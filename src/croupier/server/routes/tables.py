"""The tables: the lobby's list, each table as a watcher sees it, its log and its
history, and what the page reads about it (its rules, the basic strategy chart, the
exact RTP)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel

from croupier.describe import describe_rules
from croupier.presets import find_preset
from croupier.server import history, operations
from croupier.server.dependencies import Database, Figures, Histories, TableHub
from croupier.server.errors import TableUnavailable
from croupier.server.http_errors import ErrorOut, HttpError
from croupier.server.runtime import TableConfig
from croupier.server.tables import config_summary
from croupier.server.web import pay_tables_of, strategy_of

__all__ = ["TableOut", "router"]

router = APIRouter(tags=["tables"])

_NO_TABLE: dict[int | str, dict[str, Any]] = {404: {"model": ErrorOut}}
#: A table being taken over by another process of the cluster.
_UNAVAILABLE: dict[int | str, dict[str, Any]] = {503: {"model": ErrorOut}}


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


async def _config(table: str, hub: TableHub) -> TableConfig:
    """The table named in the path (404 ``no_table`` for none)."""
    config = hub.configs.get(table)
    if config is None:
        raise HttpError(404, "no_table", f"no table {table!r}")
    return config


#: The table a route's path names (run by this process or by another of the cluster).
Table = Annotated[TableConfig, Depends(_config)]


@router.get("/api/tables")
async def tables(hub: TableHub) -> list[TableOut]:
    """The tables: rulebook, limits, side bets, seats and players."""
    summaries = []
    for table, config in hub.configs.items():
        watching = len(hub.connections[table])
        try:
            summary = await hub.call(table, operations.Summary(watching))
        except TableUnavailable:  # being taken over: the lobby shows it without seats
            summary = config_summary(config, watching)
        summaries.append(TableOut(**summary))
    return summaries


@router.get("/api/tables/{table}", responses={**_NO_TABLE, **_UNAVAILABLE})
async def table_state(config: Table, hub: TableHub) -> dict[str, Any]:
    """A table as a watcher sees it."""
    try:
        view: dict[str, Any] = await hub.call(config.id, operations.View(viewer=None, dealer=False))
    except TableUnavailable as problem:
        raise HttpError(503, "unavailable", str(problem)) from None
    return view


@router.get("/api/tables/{table}/log", responses={**_NO_TABLE, **_UNAVAILABLE})
async def table_log(
    config: Table, hub: TableHub, rounds: Annotated[int, Query(ge=0, le=20)] = 3
) -> list[dict[str, Any]]:
    """The table's log: the events of its last ``rounds`` finished rounds and of the
    round at the table, oldest first, as a watcher sees them (read back from the
    database after a restart)."""
    try:
        log: list[dict[str, Any]] = await hub.call(config.id, operations.Log(rounds))
    except TableUnavailable as problem:
        raise HttpError(503, "unavailable", str(problem)) from None
    return log


@router.get("/api/tables/{table}/history", responses=_NO_TABLE)
async def table_history(
    config: Table,
    database: Database,
    histories: Histories,
    rounds: Annotated[int, Query(ge=1, le=history.MOST_ROUNDS)] = history.DEFAULT_ROUNDS,
    after: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    """The table's history, the same for everyone: the dealer's final hand in each of
    its last ``rounds`` finished rounds (oldest first; ``null`` for a void round) and
    his bust rate over those whose hand was played out.  Read from the recorded
    rounds, so a new tab, another device or a restart shows the same.  ``after``: the
    round whose end the page saw (the pages at a table, asking together as it ends,
    share one read that holds it)."""
    return await asyncio.to_thread(
        history.history_of, database, config.id, histories, rounds, after
    )


@router.get("/api/tables/{table}/rules", responses=_NO_TABLE)
def table_rules(config: Table) -> dict[str, Any]:
    """The table's rules as its preset gives them: each rule's value, clause and note.

    Besides the preset's JSON: ``summary``, the rules in plain sentences for players,
    and ``pay_tables``, each offered side bet's winning lines by its key.
    """
    found = find_preset(config.preset)
    data: dict[str, Any] = found.to_json()
    data["summary"] = describe_rules(found.rules)
    data["pay_tables"] = pay_tables_of(found.rules)
    return data


@router.get("/api/tables/{table}/strategy", responses=_NO_TABLE)
async def table_strategy(config: Table) -> dict[str, Any]:
    """The basic strategy chart for the table's rules (rows of codes, and SVG)."""
    return await asyncio.to_thread(strategy_of, find_preset(config.preset).rules)


@router.get("/api/tables/{table}/rtp", responses=_NO_TABLE)
async def table_rtp(config: Table, figures: Figures) -> dict[str, Any]:
    """The exact RTP of the table's main game (basic strategy) and side bets."""
    return await asyncio.to_thread(figures.get, find_preset(config.preset).rules)
