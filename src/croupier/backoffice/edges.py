"""The exact house edge and spread of each rule set, as ``croupier edge`` gives them.

The main game's edge is the basic-strategy player's (the chart's) expected loss per
unit initial bet, and its standard deviation per unit; each side bet has its own.  They
are computed once per rule set by :func:`croupier.analysis.report.par_sheet` and kept
in the cache folder (:func:`croupier.cache.cache_dir`), one file per rules'
fingerprint, so a second report reads them at once.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from croupier.cache import cache_dir
from croupier.rules import Rules

__all__ = ["Edges", "edges_for"]


@dataclass(frozen=True)
class Edges:
    """A rule set's house edge (per unit initial bet) and variance per unit bet.

    >>> edges = Edges("rws-v5", Fraction(1, 500), Fraction(5, 4), {"21+3": Fraction(1, 25)},
    ...               {"21+3": Fraction(9)})
    >>> edges.edge("main"), edges.edge("21+3")
    (Fraction(1, 500), Fraction(1, 25))
    """

    rules: str
    #: The house's expected win per unit initial main bet, basic strategy.
    main_edge: Fraction
    #: The variance of the player's net result per unit initial main bet.
    main_variance: Fraction
    side_edges: dict[str, Fraction]
    side_variances: dict[str, Fraction]

    def edge(self, bet: str) -> Fraction:
        """The house edge of ``bet`` (``"main"`` or a side bet's key); zero for a side
        bet these rules do not know (it is counted in no theoretical win)."""
        if bet == "main":
            return self.main_edge
        return self.side_edges.get(bet, Fraction(0))

    def variance(self, bet: str) -> Fraction:
        """The variance per unit bet of ``bet`` (``"main"`` or a side bet's key)."""
        if bet == "main":
            return self.main_variance
        return self.side_variances.get(bet, Fraction(0))

    def to_json(self) -> dict[str, object]:
        """As JSON values (exact fractions as text)."""
        return {
            "rules": self.rules,
            "main_edge": str(self.main_edge),
            "main_variance": str(self.main_variance),
            "side_edges": {key: str(value) for key, value in self.side_edges.items()},
            "side_variances": {key: str(value) for key, value in self.side_variances.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Edges:
        """Read back :meth:`to_json`."""
        sides = data["side_edges"]
        spreads = data["side_variances"]
        assert isinstance(sides, dict) and isinstance(spreads, dict)
        return cls(
            rules=str(data["rules"]),
            main_edge=Fraction(str(data["main_edge"])),
            main_variance=Fraction(str(data["main_variance"])),
            side_edges={str(key): Fraction(str(value)) for key, value in sides.items()},
            side_variances={str(key): Fraction(str(value)) for key, value in spreads.items()},
        )


_KNOWN: dict[str, Edges] = {}


def _fingerprint(rules: Rules) -> str:
    from croupier.server.web import rules_fingerprint

    return rules_fingerprint(rules)


def _computed(rules: Rules) -> Edges:
    from croupier.analysis.report import par_sheet

    sheet = par_sheet(rules, explain=False)
    td = sheet.td
    return Edges(
        rules=rules.name,
        # The float the analysis gives, exactly as it is (no rounding added).
        main_edge=-Fraction(td.ev),
        main_variance=Fraction(td.sd) ** 2,
        side_edges={key: -bet.ev for key, bet in sheet.side_bets.items()},
        side_variances={key: bet.variance for key, bet in sheet.side_bets.items()},
    )


def edges_for(rules: Rules, folder: Path | None = None) -> Edges:
    """The rule set's :class:`Edges`: from memory, the cache file, or computed now."""
    key = _fingerprint(rules)
    found = _KNOWN.get(key)
    if found is not None:
        return found
    path = (folder if folder is not None else cache_dir()) / f"edges-{key}.json"
    try:
        found = Edges.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, AssertionError):
        found = _computed(rules)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                "w", dir=path.parent, prefix=".edges-", suffix=".json", delete=False
            ) as out:
                json.dump(found.to_json(), out)
            os.replace(out.name, path)
        except OSError:
            pass  # only a slower next report: the figures are computed again
    _KNOWN[key] = found
    return found
