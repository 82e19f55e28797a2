"""The tables a server runs: one per preset by default, or from a tables file (TOML).

A tables file lists tables, each with an ``id``, a ``preset`` and optional settings::

    [[table]]
    id = "rws-1"
    preset = "rws-v5"
    dealt = "dealer"          # a physical shoe; "rng" (the default) deals from the server
    betting_seconds = 15
    decision_seconds = 20

>>> [config.id for config in default_tables()]
['rws-v4', 'rws-v5', 'online-8deck', 'casino-to-go', 'live']
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croupier.errors import CroupierError
from croupier.presets import PRESETS, find_preset
from croupier.server.runtime import TableConfig

if TYPE_CHECKING:
    from croupier.server.runtime import TableRuntime

__all__ = [
    "TablesFileError",
    "config_summary",
    "default_tables",
    "load_tables",
    "table_summary",
]


class TablesFileError(ValueError):
    """A tables file that cannot be read; the message names the table and field."""


def default_tables() -> tuple[TableConfig, ...]:
    """One table per preset, dealt by the server's shoe."""
    return tuple(TableConfig(id=name, preset=name, name=PRESETS[name].title) for name in PRESETS)


def load_tables(path: str | Path) -> tuple[TableConfig, ...]:
    """The tables a file lists.

    Raises:
        TablesFileError: unreadable TOML, an unknown field or preset, a repeated id.
    """
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # not TOML, not UTF-8, a NUL in the name
        raise TablesFileError(f"{path}: {error}") from None
    entries = data.get("table")
    if not isinstance(entries, list) or not entries:
        raise TablesFileError(f"{path}: no [[table]] entries")
    known = {f.name for f in fields(TableConfig)}
    configs: list[TableConfig] = []
    for index, entry in enumerate(entries):
        where = f"{path}: table {index + 1}"
        unknown = sorted(set(entry) - known)
        if unknown:
            raise TablesFileError(f"{where}: unknown field {unknown[0]!r}")
        if "id" not in entry or "preset" not in entry:
            raise TablesFileError(f"{where}: needs an id and a preset")
        try:
            preset = find_preset(str(entry["preset"]))
            values: dict[str, Any] = {"name": preset.title, **entry}
            config = TableConfig(**values)
        except (CroupierError, TypeError, ValueError) as error:
            raise TablesFileError(f"{where}: {error}") from None
        if any(other.id == config.id for other in configs):
            raise TablesFileError(f"{where}: the id {config.id!r} is used twice")
        configs.append(config)
    return tuple(configs)


def config_summary(
    config: TableConfig, watchers: int, phase: str = "unavailable"
) -> dict[str, Any]:
    """What the lobby shows of a table from its settings alone (no seats; ``phase``
    ``unavailable`` while the table is being taken over by another process)."""
    preset = find_preset(config.preset)
    rules = preset.rules
    return {
        "id": config.id,
        "name": config.name or preset.title,
        "rules": preset.name,
        "rules_version": preset.version,
        "title": preset.title,
        "dealt": config.dealt,
        "boxes": rules.boxes,
        "minimum_bet": str(rules.minimum_bet),
        "maximum_bet": str(rules.maximum_bet),
        "side_bets": [bet.value for bet in rules.side_bets_offered()],
        "seats": {},
        "players": watchers,
        "phase": phase,
        "betting_seconds": config.betting_seconds,
        "decision_seconds": config.decision_seconds,
    }


def table_summary(runtime: TableRuntime, watchers: int) -> dict[str, Any]:
    """What the lobby shows of a table."""
    return {
        **config_summary(runtime.config, watchers, runtime.round.phase.value),
        "seats": {str(box): seat.user for box, seat in sorted(runtime.seats.reserved.items())},
    }
