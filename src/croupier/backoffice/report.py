"""The back office's report for a period: tables, players, irregularities, advantage play
and shuffle health, read from the records and the ledger (see ``docs/report.md``).

Money is :class:`~decimal.Decimal` (from the ledger's integer units), ratios are
:class:`~fractions.Fraction`; z-scores, correlations and p-values are ``float``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

import sqlalchemy as sa

from croupier.backoffice import advantage, deviations, queries
from croupier.backoffice.columns import INSURANCE, MAIN
from croupier.backoffice.edges import Edges, edges_for
from croupier.backoffice.errors import ReportError
from croupier.backoffice.queries import Scope
from croupier.backoffice.shuffle import ShuffleHealth, shuffle_health_of_ranks
from croupier.backoffice.statistics import verdict
from croupier.errors import CroupierError
from croupier.presets import find_preset
from croupier.round import Round
from croupier.rules import Rules
from croupier.server import rounds_store
from croupier.server.records import RecordedInput
from croupier.server.schema import rounds, users
from croupier.shoe import FixedOrder

__all__ = [
    "SECTIONS",
    "Irregularity",
    "PlayerFigures",
    "Report",
    "TableFigures",
    "build_report",
    "default_period",
]

_CENT = Decimal("0.01")
#: The most shoes of a table the shuffle tests read: its latest (a thousand shoes give
#: the first-card test 77 expected a rank; more cost the report time for little).
SHUFFLE_SHOES = 1000
#: The report's sections, in order.
SECTIONS = ("tables", "players", "irregularities", "advantage_play", "shuffle_health")


def _money(units: int | Fraction) -> Decimal:
    """Units of 0.01 as money, to the cent (exact for whole units, rounded half-even
    for a theoretical figure)."""
    if isinstance(units, int):
        return Decimal(units) * _CENT
    return (Decimal(units.numerator) / Decimal(units.denominator) * _CENT).quantize(_CENT)


def _ratio_text(ratio: Fraction | None, places: int = 6) -> str | None:
    if ratio is None:
        return None
    return str(
        (Decimal(ratio.numerator) / Decimal(ratio.denominator)).quantize(Decimal(10) ** -places)
    )


def default_period(now: datetime) -> tuple[datetime, datetime]:
    """The last 24 hours before ``now``."""
    return now - timedelta(hours=24), now


@dataclass
class _Play:
    """Bets and their theoretical result, summed (units of 0.01)."""

    handle: dict[str, int] = field(default_factory=dict)
    bets: dict[str, int] = field(default_factory=dict)
    theoretical: Fraction = Fraction(0)
    variance: Fraction = Fraction(0)

    def add(self, totals: queries.BetTotals, edges: Edges) -> None:
        self.handle[totals.bet] = self.handle.get(totals.bet, 0) + totals.units
        self.bets[totals.bet] = self.bets.get(totals.bet, 0) + totals.count
        self.theoretical += totals.units * edges.edge(totals.bet)
        self.variance += totals.squares * edges.variance(totals.bet)

    @property
    def sd_units(self) -> float:
        return math.sqrt(self.variance)

    def z(self, actual_units: int) -> float | None:
        if self.variance <= 0:
            return None
        return float(actual_units - self.theoretical) / self.sd_units


@dataclass(frozen=True)
class TableFigures:
    """A table's figures for the period (its rounds under one rule set)."""

    table: str
    rules: str
    rules_version: str
    rounds: int
    void_rounds: int
    open_rounds: int
    #: Initial bets: ``"main"`` and each side bet apart.
    handle: dict[str, Decimal]
    #: Every stake the ledger took (doubles, splits, insurance too), less refunds.
    staked: Decimal
    house_win: Decimal
    hold: Fraction | None
    theoretical_win: Decimal
    #: The standard deviation of the house's win over these bets.
    sd: Decimal
    z: float | None
    edge: dict[str, Fraction]

    @property
    def total_handle(self) -> Decimal:
        """Main and side bets together."""
        return sum(self.handle.values(), Decimal("0.00"))

    @property
    def verdict(self) -> str:
        """The plain verdict on ``z``."""
        return verdict(self.z)

    def to_json(self) -> dict[str, object]:
        """As JSON values (money and ratios as exact text)."""
        return {
            "table": self.table,
            "rules": self.rules,
            "rules_version": self.rules_version,
            "rounds": self.rounds,
            "void_rounds": self.void_rounds,
            "open_rounds": self.open_rounds,
            "handle": {bet: str(amount) for bet, amount in self.handle.items()},
            "total_handle": str(self.total_handle),
            "staked": str(self.staked),
            "house_win": str(self.house_win),
            "hold": _ratio_text(self.hold),
            "theoretical_win": str(self.theoretical_win),
            "sd": str(self.sd),
            "z": None if self.z is None else round(self.z, 4),
            "verdict": self.verdict,
            "house_edge": {bet: _ratio_text(edge, 8) for bet, edge in self.edge.items()},
        }


@dataclass(frozen=True)
class PlayerFigures:
    """A player's figures for the period."""

    player: str
    user_id: int
    rounds: int
    hours: Decimal
    average_bet: Decimal | None
    handle: Decimal
    net: Decimal
    theoretical_loss: Decimal
    sd: Decimal
    z: float | None

    @property
    def verdict(self) -> str:
        """The plain verdict on ``z`` (of his loss against his theoretical loss)."""
        return verdict(self.z)

    def to_json(self) -> dict[str, object]:
        """As JSON values."""
        return {
            "player": self.player,
            "user_id": self.user_id,
            "rounds": self.rounds,
            "hours": str(self.hours),
            "average_bet": None if self.average_bet is None else str(self.average_bet),
            "handle": str(self.handle),
            "net": str(self.net),
            "theoretical_loss": str(self.theoretical_loss),
            "sd": str(self.sd),
            "z": None if self.z is None else round(self.z, 4),
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class Irregularity:
    """A void, an interruption, a return of bets, a walk-away or a time-out."""

    round_id: str
    table: str
    number: int
    at: datetime
    kind: str
    clause: str
    status: str
    who: str | None
    detail: str
    #: The dealer account that entered it (``None``: the table's own, or a record from
    #: before inputs named their dealer).
    dealer: str | None
    returned: Decimal

    def to_json(self) -> dict[str, object]:
        """As JSON values."""
        return {
            "round": self.round_id,
            "table": self.table,
            "number": self.number,
            "at": self.at.isoformat(),
            "kind": self.kind,
            "clause": self.clause,
            "status": self.status,
            "who": self.who,
            "detail": self.detail,
            "dealer": self.dealer,
            "returned": str(self.returned),
        }


@dataclass(frozen=True)
class Report:
    """Every section of the report for one period."""

    since: datetime
    until: datetime
    table: str | None
    player: str | None
    tables: list[TableFigures]
    players: list[PlayerFigures]
    irregularities: list[Irregularity]
    advantage: list[advantage.PlayerCount]
    shuffle: list[ShuffleHealth]

    def to_json(self) -> dict[str, object]:
        """The whole report as JSON values: the same for the same database and period."""
        return {
            "since": self.since.isoformat(),
            "until": self.until.isoformat(),
            "table": self.table,
            "player": self.player,
            "tables": [entry.to_json() for entry in self.tables],
            "players": [entry.to_json() for entry in self.players],
            "irregularities": [entry.to_json() for entry in self.irregularities],
            "advantage_play": {
                "fewest_rounds": advantage.FEWEST_ROUNDS,
                "flag_z": advantage.FLAG_Z,
                "flat_bettor_flagged": advantage.FLAT_BETTOR_FLAGGED,
                "players": [entry.to_json() for entry in self.advantage],
            },
            "shuffle_health": [entry.to_json() for entry in self.shuffle],
        }


def _rules(name: str, version: str, cache: dict[tuple[str, str], Rules]) -> Rules:
    found = cache.get((name, version))
    if found is None:
        try:
            found = find_preset(name).rules
        except CroupierError as error:
            raise ReportError(f"rounds were played under rules {name!r}: {error}") from None
        cache[name, version] = found
    return found


def _check(conn: sa.Connection, scope: Scope) -> None:
    if scope.since >= scope.until:
        raise ReportError(
            f"the period is empty: --since {scope.since.isoformat()} is not before "
            f"--until {scope.until.isoformat()}"
        )
    if scope.table is not None:
        known = conn.execute(
            sa.select(rounds.c.id).where(rounds.c.table_id == scope.table).limit(1)
        ).first()
        if known is None:
            raise ReportError(f"no table {scope.table!r} in the records")
    if scope.player is not None:
        known = conn.execute(sa.select(users.c.id).where(users.c.name == scope.player)).first()
        if known is None:
            raise ReportError(f"no player {scope.player!r}")
    found = conn.execute(sa.select(rounds.c.id).where(scope.rounds_where()).limit(1)).first()
    if found is None:
        where = f" at table {scope.table!r}" if scope.table else ""
        raise ReportError(
            f"no rounds{where} between {scope.since.isoformat()} and {scope.until.isoformat()}"
        )


def build_report(
    conn: sa.Connection,
    *,
    since: datetime,
    until: datetime,
    table: str | None = None,
    player: str | None = None,
    sections: Collection[str] | None = None,
) -> Report:
    """The report over the rounds opened in ``[since, until)``, at ``table`` (or all),
    for ``player`` (or all).  ``sections`` (of :data:`SECTIONS`; all when ``None``)
    leaves the others empty, unread.

    Raises:
        ReportError: an empty period, an unknown table or player, no rounds in the period.
    """
    scope = Scope(since, until, table, player)
    if conn.dialect.name == "postgresql":
        # A report reads for seconds and works between its reads: none of the server's
        # limits for play applies to it (its transaction only reads).
        conn.exec_driver_sql("SET LOCAL statement_timeout = 0")
        conn.exec_driver_sql("SET LOCAL idle_in_transaction_session_timeout = 0")
        # Its statements are planned once each: compiling them costs more than it saves.
        conn.exec_driver_sql("SET LOCAL jit = off")
        # Its groupings hold a few thousand groups: in memory, never spilled to disk.
        conn.exec_driver_sql("SET LOCAL work_mem = '64MB'")
    _check(conn, scope)
    wanted = set(SECTIONS if sections is None else sections)
    unknown = wanted - set(SECTIONS)
    if unknown:
        raise ReportError(
            f"no section {sorted(unknown)[0]!r}: the sections are {', '.join(SECTIONS)}"
        )
    rule_sets: dict[tuple[str, str], Rules] = {}
    player_id = None
    if player is not None:
        player_id = conn.execute(sa.select(users.c.id).where(users.c.name == player)).scalar_one()

    # Rounds and their money, as the ledger held it when each closed.
    counts: dict[tuple[str, str, str], dict[str, int]] = {}
    house: dict[tuple[str, str, str], int] = {}
    staked: dict[tuple[str, str, str], int] = {}
    for row in queries.round_counts(conn, scope):
        key = (row.table_id, row.rules_name, row.rules_version)
        counts.setdefault(key, {})[row.status] = int(row.rounds)
        if row.status == "settled":
            house[key] = house.get(key, 0) + int(row.house_win)
            staked[key] = staked.get(key, 0) + int(row.staked)
    player_net: dict[tuple[str, str, str], int] = {}
    needs_players = "players" in wanted or "advantage_play" in wanted
    needs_bets = "tables" in wanted or "players" in wanted or "advantage_play" in wanted
    if "tables" in wanted and player_id is not None:
        staked = {}
        for row in queries.player_money(conn, scope, player_id):
            if row.status == "settled":
                key = (row.table_id, row.rules_name, row.rules_version)
                player_net[key] = player_net.get(key, 0) + int(row.net or 0)
                staked[key] = staked.get(key, 0) + int(row.staked or 0)

    # Bets and their theory: the recorded inputs, the exact edges.
    by_table: dict[tuple[str, str, str], _Play] = {}
    by_player: dict[str, _Play] = {}
    edges_by_table: dict[tuple[str, str, str], Edges] = {}
    with _hash_grouping(conn):
        bet_rows = queries.bet_sums(conn, scope) if needs_bets else []
    for totals in queries.bet_totals(bet_rows):
        key = (totals.table, totals.rules_name, totals.rules_version)
        edges = edges_by_table.get(key)
        if edges is None:
            edges = edges_for(_rules(totals.rules_name, totals.rules_version, rule_sets))
            edges_by_table[key] = edges
        by_table.setdefault(key, _Play()).add(totals, edges)
        by_player.setdefault(totals.player, _Play()).add(totals, edges)

    tables: list[TableFigures] = []
    for key in sorted(counts.keys() | by_table.keys()):
        play = by_table.get(key, _Play())
        edges = edges_by_table.get(key)
        won = house.get(key, 0) if player_id is None else -player_net.get(key, 0)
        total = sum(play.handle.values())
        handle = {
            bet: _money(units)
            for bet, units in sorted(play.handle.items(), key=lambda item: item[0] != "main")
        }
        tables.append(
            TableFigures(
                table=key[0],
                rules=key[1],
                rules_version=key[2],
                rounds=counts.get(key, {}).get("settled", 0),
                void_rounds=counts.get(key, {}).get("void", 0),
                open_rounds=counts.get(key, {}).get("open", 0),
                handle=handle,
                staked=_money(staked.get(key, 0)),
                house_win=_money(won),
                hold=Fraction(won, total) if total else None,
                theoretical_win=_money(play.theoretical),
                sd=_money(Fraction(play.sd_units)),
                z=play.z(won),
                edge={bet: edges.edge(bet) for bet in handle} if edges is not None else {},
            )
        )

    players: list[PlayerFigures] = []
    by_user: dict[int, tuple[str, int, int]] = {}
    with _hash_grouping(conn):
        player_rows = queries.player_rounds(conn, scope) if needs_players else []
    for row in player_rows:
        name, settled, net = by_user.get(row.id, (row.name, 0, 0))
        if row.status == "settled":
            settled += int(row.rounds)
        by_user[row.id] = (name, settled, net + int(row.net or 0))
    hours = _hours(conn, scope) if needs_players else {}
    for user, (name, settled, net) in sorted(by_user.items(), key=lambda item: item[1][0]):
        if not settled:
            continue
        play = by_player.get(name, _Play())
        main_bets = play.bets.get("main", 0)
        players.append(
            PlayerFigures(
                player=name,
                user_id=user,
                rounds=settled,
                hours=hours.get(user, Decimal("0.00")),
                average_bet=(
                    (Decimal(play.handle["main"]) / main_bets * _CENT).quantize(_CENT)
                    if main_bets
                    else None
                ),
                handle=_money(sum(play.handle.values())),
                net=_money(net),
                theoretical_loss=_money(play.theoretical),
                sd=_money(Fraction(play.sd_units)),
                z=play.z(-net),
            )
        )

    irregularities = _irregularities(conn, scope, rule_sets) if "irregularities" in wanted else []
    shoes = _shoes(conn, scope) if "shuffle_health" in wanted else {}
    counted = (
        _advantage(conn, scope, [entry.player for entry in players], bet_rows)
        if "advantage_play" in wanted
        else []
    )
    return Report(
        since=since,
        until=until,
        table=table,
        player=player,
        tables=tables if "tables" in wanted else [],
        players=players if "players" in wanted else [],
        irregularities=irregularities,
        advantage=counted,
        shuffle=[]
        if "shuffle_health" not in wanted
        else [shuffle_health_of_ranks(name, found) for name, found in sorted(shoes.items())],
    )


@contextlib.contextmanager
def _hash_grouping(conn: sa.Connection) -> Iterator[None]:
    """On PostgreSQL, group by hashing, never by sorting: the planner takes each count
    bucket for a new group and expects a hundred thousand groups where there are a
    thousand, then sorts millions of rows on disk to group them."""
    if conn.dialect.name != "postgresql":
        yield
        return
    conn.exec_driver_sql("SET LOCAL enable_sort = off")
    try:
        yield
    finally:
        conn.exec_driver_sql("SET LOCAL enable_sort = on")


def _hours(conn: sa.Connection, scope: Scope) -> dict[int, Decimal]:
    """Each player's hours at the tables: his sessions of play (from his first action
    until he has been away for the sessions' idle time) within the period, summed."""
    from croupier.server.schema import play_sessions

    rows = conn.execute(
        sa.select(
            play_sessions.c.user_id, play_sessions.c.started_at, play_sessions.c.last_active_at
        ).where(
            play_sessions.c.started_at < scope.until,
            play_sessions.c.last_active_at > scope.since,
        )
    )
    seconds: dict[int, float] = {}
    for user, started, last in rows:
        span = (min(last, scope.until) - max(started, scope.since)).total_seconds()
        seconds[user] = seconds.get(user, 0.0) + max(span, 0.0)
    return {user: (Decimal(str(total)) / 3600).quantize(_CENT) for user, total in seconds.items()}


_KIND = {
    "void": "void",
    "interrupt": "interruption",
    "return_bets": "bets returned after a dealing error",
    "walk_away": "walk-away",
    "time_out": "time-out",
}


def _clause(rules: Rules, op: str) -> str:
    return {
        "void": rules.cite_void,
        "interrupt": rules.cite_interruption,
        "return_bets": rules.cite_dealing_error,
        "walk_away": rules.cite_absent_player,
        "time_out": rules.cite_absent_player,
    }[op]


def _irregularities(
    conn: sa.Connection, scope: Scope, rule_sets: dict[tuple[str, str], Rules]
) -> list[Irregularity]:
    rows = queries.irregular_inputs(conn, scope)
    if not rows:
        return []
    returned = queries.void_returns(conn, scope)
    found: list[Irregularity] = []
    for row in rows:
        rules = _rules(row.rules_name, "", rule_sets)
        dealer = None
        if row.input is None:
            op, who, detail = "void", None, "voided by the engine"
        else:
            entry = RecordedInput.from_json(json.loads(row.input), round_id=row.id)
            op = entry.op
            args = entry.args
            who = args.get("who") or entry.player
            dealer = entry.by
            detail = str(args.get("reason", ""))
            if op == "return_bets":
                detail = f"box {args.get('box')}"
        money = returned.get(row.id, 0) if op == "void" or row.input is None else 0
        found.append(
            Irregularity(
                round_id=row.id,
                table=row.table_id,
                number=int(row.number),
                at=row.created_at,
                kind=_KIND[op],
                clause=_clause(rules, op),
                status=row.status,
                who=None if who is None else str(who),
                detail=detail,
                dealer=dealer,
                returned=_money(money),
            )
        )
    return found


def _shoes(conn: sa.Connection, scope: Scope) -> dict[str, list[str]]:
    """Each table's shoes shuffled in the period, as rank letters (a shoe recorded twice,
    by rounds voided before its first card, counted once)."""
    shoes: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    for table, _, ranks in queries.shoe_ranks(conn, scope, SHUFFLE_SHOES):
        if (table, ranks) in seen:
            continue
        seen.add((table, ranks))
        shoes.setdefault(table, []).append(ranks)
    return shoes


def _advantage(
    conn: sa.Connection, scope: Scope, players: Iterable[str], bet_rows: Iterable[Any]
) -> list[advantage.PlayerCount]:
    """The advantage-play figures of the players with enough rounds: their bets summed
    against each round's true count by the database, their play at the count's index
    situations from a sample of rounds replayed."""
    wanted = set(players)
    if not wanted:
        return []
    by_player: dict[str, dict[int, advantage.Sums]] = {}
    for row in bet_rows:
        if row.player not in wanted or row.bucket is None:
            continue
        sums = by_player.setdefault(row.player, {}).setdefault(int(row.bucket), advantage.Sums())
        if row.kind == MAIN:
            sums.add(
                advantage.Sums(
                    n=int(row.count),
                    sx=float(row.sx),
                    sy=int(row.units),
                    sxy=float(row.sxy),
                    sxx=float(row.sxx),
                    syy=int(row.squares),
                )
            )
        elif row.kind == INSURANCE:
            sums.add(advantage.Sums(insured=int(row.count), at_index=int(row.at_index)))
    found = [advantage.assess_sums(name, buckets) for name, buckets in sorted(by_player.items())]
    found = [entry for entry in found if entry.rounds >= advantage.FEWEST_ROUNDS]
    if not found:
        return []
    tallies = _decisions(conn, scope, [entry.player for entry in found])
    return [
        dataclasses.replace(
            entry,
            index_decisions=tallies[entry.player].decisions,
            index_plays=tallies[entry.player].called,
            play_z=tallies[entry.player].z,
        )
        if entry.player in tallies
        else entry
        for entry in found
    ]


def _decisions(
    conn: sa.Connection, scope: Scope, players: list[str]
) -> dict[str, deviations.PlayTally]:
    """The players' decisions at the count's index situations, from a bounded sample of
    rounds replayed through the engine (see :mod:`croupier.backoffice.deviations`)."""
    wanted = set(players)
    rule_sets: dict[str, Rules] = {}
    found: list[deviations.Decision] = []
    for row, texts in queries.decision_rounds(conn, scope, deviations.DECISION_ROUNDS):
        try:
            # MalformedRecord (a ValueError): not a round's record, not judged.
            record = rounds_store.record_of(row.record, texts)
            shoe = record.shoe
            if shoe is None:
                continue  # a dealer's cards: no shoe to count
            current = rule_sets.get(record.rules)
            if current is None:
                current = rule_sets[record.rules] = find_preset(record.rules).rules
            rules = record.rules_under(current)
            position = int(shoe["position"])
            # The cards from the round's place on: a round never draws eighty.
            rest = shoe["order"][position : position + 80]
            source = FixedOrder(rest)
            game = Round(rules, source)
            decisions = deviations.decisions_of_round(game, record.inputs, float(row.true_count))
        except (CroupierError, KeyError, ValueError, TypeError):
            continue  # a round the engine cannot replay from its record: not judged
        found.extend(decision for decision in decisions if decision.player in wanted)
    return deviations.tally(found)
