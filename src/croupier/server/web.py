"""The browser table's files, and the figures it reads besides the table protocol.

The page ships built in the package (``static/``, bundled by Vite from ``frontend/``:
Preact components, no CDN), compressed on the way out; its hashed assets are cached
for good, the page itself is asked for again each time
(:mod:`croupier.server.routes.page`).  It reads a table's rules (from
its preset, every rule with its clause, the rules in plain sentences and each side
bet's pay table), the basic strategy chart for its rules (when a player opens it), and
the exact RTP of its main game and side bets: computed once per rule set, kept in a
cache file named by the rules' fingerprint so that a restart finds it, and worked out
in the background when the server starts (:class:`RtpCache`); the routes that give
them are :mod:`croupier.server.routes.tables`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

from croupier import __version__
from croupier.rules import Rules
from croupier.sidebets import pay_table

__all__ = [
    "STATIC",
    "CachedStaticFiles",
    "RtpCache",
    "pay_tables_of",
    "rules_fingerprint",
    "strategy_of",
    "warm_charts",
]

_log = logging.getLogger("croupier.server")

#: The page's files.
STATIC = Path(__file__).resolve().parent / "static"
#: Vite names each built asset after a hash of its content: a new build, a new name.
IMMUTABLE = "public, max-age=31536000, immutable"
#: The page's index is checked with the server every time (it names the current assets).
REVALIDATE = "no-cache"


class CachedStaticFiles(StaticFiles):
    """The page's files with their cache headers: hashed assets kept for a year, the
    rest (``index.html``) revalidated on every load."""

    async def get_response(self, path: str, scope: Scope) -> Any:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            hashed = path.startswith("assets/")
            response.headers["Cache-Control"] = IMMUTABLE if hashed else REVALIDATE
        return response


def warm_charts(rule_sets: Iterable[Rules]) -> threading.Thread:
    """Work out each rule set's strategy chart (:func:`strategy_of`) in a background
    thread (started here and returned), so that a player's first look at the chart
    does not wait for it (seconds on a busy machine).

    >>> from croupier.presets import find_rules
    >>> warm_charts([find_rules("rws-v5")]).join()
    >>> strategy_of.cache_info().currsize >= 1
    True
    """
    pending = list({rules_fingerprint(rules): rules for rules in rule_sets}.values())

    def run() -> None:
        for rules in pending:
            try:
                strategy_of(rules)
            except Exception:  # logged; the page asks again and gets the error then
                _log.exception("the strategy chart of %s could not be worked out", rules.name)

    thread = threading.Thread(target=run, name="croupier charts", daemon=True)
    thread.start()
    return thread


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


def compute_rtp(rules: Rules) -> dict[str, Any]:
    """The exact RTP of the main game (basic strategy) and of each side bet."""
    from croupier.analysis.report import par_sheet

    sheet = par_sheet(rules, explain=False)
    return {
        "main": sheet.td.rtp,
        "side_bets": {key: float(bet.rtp) for key, bet in sheet.side_bets.items()},
    }


def rules_fingerprint(rules: Rules) -> str:
    """A name for the rule set's figures: the rules' every value and croupier's version.

    >>> from croupier.presets import find_rules
    >>> len(rules_fingerprint(find_rules("rws-v5")))
    64
    >>> rules_fingerprint(find_rules("rws-v5")) == rules_fingerprint(find_rules("live"))
    False
    """
    text = json.dumps(
        {"rules": rules.to_json(), "croupier": __version__}, sort_keys=True, default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()


class RtpCache:
    """Each rule set's exact RTP, computed once: kept in memory and in ``folder`` (one
    JSON file per rules' fingerprint), so that a restart reads it back at once.

    ``folder=None`` keeps the figures in memory only.  A file that cannot be read or
    written is only a slower start: the figures are computed again.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._known: dict[str, dict[str, Any]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _path(self, key: str) -> Path | None:
        return None if self.folder is None else self.folder / f"rtp-{key}.json"

    def known(self, rules: Rules) -> dict[str, Any] | None:
        """The figures if they are at hand (in memory or in the cache file), else ``None``."""
        key = rules_fingerprint(rules)
        found = self._known.get(key)
        if found is not None:
            return found
        path = self._path(key)
        if path is None or not path.is_file():
            return None
        try:
            found = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(found, dict) or "main" not in found:
            return None
        self._known[key] = found
        return found

    def get(self, rules: Rules) -> dict[str, Any]:
        """The figures, computed now if nobody has yet (once: other callers wait)."""
        key = rules_fingerprint(rules)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            found = self.known(rules)
            if found is not None:
                return found
            found = compute_rtp(rules)
            self._known[key] = found
            self._write(key, found)
            return found

    def _write(self, key: str, figures: dict[str, Any]) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Written whole, then renamed: a reader never sees half a file.
            with tempfile.NamedTemporaryFile(
                "w", dir=path.parent, prefix=".rtp-", suffix=".json", delete=False
            ) as out:
                json.dump(figures, out)
            os.replace(out.name, path)
        except OSError as error:
            _log.warning("the RTP cache %s cannot be written: %s", path, error)

    def warm(self, rule_sets: Iterable[Rules]) -> threading.Thread:
        """Compute every rule set's figures not yet known, one after another, in a
        background thread (started here and returned)."""
        pending = list({rules_fingerprint(rules): rules for rules in rule_sets}.values())

        def run() -> None:
            for rules in pending:
                try:
                    self.get(rules)
                except Exception:  # logged; the page asks again and gets the error then
                    _log.exception("the RTP of %s could not be computed", rules.name)

        thread = threading.Thread(target=run, name="croupier rtp", daemon=True)
        thread.start()
        return thread
