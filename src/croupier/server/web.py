"""The browser table: the page itself and what it reads besides the table protocol.

The page ships built in the package (``static/``, bundled by Vite from ``frontend/``:
Preact components, no CDN).  It reads a table's rules (from its preset, every rule with its
clause, the rules in plain sentences and each side bet's pay table), the basic
strategy chart for its rules, and the exact RTP of its main game and side bets,
computed once per rule set and cached.
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from croupier.describe import describe_rules
from croupier.rules import Rules
from croupier.sidebets import pay_table

__all__ = ["STATIC", "add_web_routes", "pay_tables_of"]

#: The page's files.
STATIC = Path(__file__).resolve().parent / "static"


@functools.cache
def strategy_of(rules: Rules) -> dict[str, Any]:
    """The basic strategy chart as rows of codes per up card, and as SVG (cached)."""
    from croupier.analysis.chart import UP_CARD_LABELS, chart_rows, chart_title, render_svg
    from croupier.analysis.strategy import derive_strategy

    strategy = derive_strategy(rules)
    return {
        "title": chart_title(rules),
        "up_cards": list(UP_CARD_LABELS),
        "rows": [
            {"section": row.section, "label": row.label, "codes": list(row.codes)}
            for row in chart_rows(strategy)
        ],
        "svg": render_svg(strategy),
    }


def pay_tables_of(rules: Rules) -> dict[str, list[dict[str, str]]]:
    """Each side bet the rules offer, by its key, with its winning lines best first.

    Ratios are text, as the rules' JSON writes them (``"25"``, ``"3/2"``): never floats.

    >>> from croupier.presets import find_rules
    >>> pay_tables_of(find_rules("live"))["perfect_pairs"][0]
    {'outcome': 'perfect-pair', 'description': 'Perfect pair: same rank and suit', 'pays': '25'}
    >>> pay_tables_of(find_rules("online-8deck"))
    {}
    """
    return {
        side_bet.value: [
            {"outcome": line.outcome.value, "description": line.description, "pays": str(line.pays)}
            for line in pay_table(side_bet, rules)
        ]
        for side_bet in rules.side_bets_offered()
    }


@functools.cache
def rtp_of(rules: Rules) -> dict[str, Any]:
    """The exact RTP of the main game (basic strategy) and of each side bet (cached)."""
    from croupier.analysis.report import par_sheet

    sheet = par_sheet(rules, explain=False)
    return {
        "main": sheet.td.rtp,
        "side_bets": {key: float(bet.rtp) for key, bet in sheet.side_bets.items()},
    }


def add_web_routes(app: FastAPI, rules_of: Any) -> None:
    """Serve the page at ``/`` and its data under ``/api/tables/{table}/...``.

    ``rules_of(table)`` gives a table's preset (or ``None`` for an unknown table).
    """
    from croupier.server.app import HttpError

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    def preset(table: str) -> Any:
        found = rules_of(table)
        if found is None:
            raise HttpError(404, "no_table", f"no table {table!r}")
        return found

    @app.get("/api/tables/{table}/rules", responses={404: {"description": "no such table"}})
    def table_rules(table: str) -> dict[str, Any]:
        """The table's rules as its preset gives them: each rule's value, clause and note.

        Besides the preset's JSON: ``summary``, the rules in plain sentences for players,
        and ``pay_tables``, each offered side bet's winning lines by its key.
        """
        found = preset(table)
        data: dict[str, Any] = found.to_json()
        data["summary"] = describe_rules(found.rules)
        data["pay_tables"] = pay_tables_of(found.rules)
        return data

    @app.get("/api/tables/{table}/strategy", responses={404: {"description": "no such table"}})
    async def table_strategy(table: str) -> dict[str, Any]:
        """The basic strategy chart for the table's rules (rows of codes, and SVG)."""
        rules = preset(table).rules
        return await asyncio.to_thread(strategy_of, rules)

    @app.get("/api/tables/{table}/rtp", responses={404: {"description": "no such table"}})
    async def table_rtp(table: str) -> dict[str, Any]:
        """The exact RTP of the table's main game (basic strategy) and side bets."""
        rules = preset(table).rules
        return await asyncio.to_thread(rtp_of, rules)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)
