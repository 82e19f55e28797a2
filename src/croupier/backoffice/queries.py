"""The report's reads: aggregates computed by the database, one statement per figure set.

Nothing here reads a round's JSON, nor loops over rounds in Python: each figure is a
``GROUP BY`` over the columns the server writes beside its records
(:mod:`croupier.server.rounds_store`): the rounds' money and shoe, each player's money
in each round, and one ``round_bets`` row per bet that played.  Only the few rounds with
irregular inputs have their inputs read.  A round belongs to the period in which it
opened (``rounds.created_at``, written beside each bet and player as ``opened_at``).

Amounts come back as integers of the ledger's unit (:data:`croupier.server.ledger.UNIT`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from croupier.backoffice.advantage import COUNT_BUCKETS, INSURANCE_INDEX
from croupier.backoffice.columns import INSURANCE, IRREGULAR_OPS
from croupier.server.schema import (
    accounts,
    legs,
    round_bets,
    round_inputs,
    round_players,
    rounds,
    transactions,
    users,
)

__all__ = [
    "IRREGULAR_OPS",
    "BetTotals",
    "Scope",
    "bet_sums",
    "bet_totals",
    "decision_rounds",
    "irregular_inputs",
    "player_money",
    "player_rounds",
    "round_counts",
    "shoe_ranks",
    "void_returns",
]


@dataclass(frozen=True)
class Scope:
    """Which rounds a report reads: opened in ``[since, until)``, at one table or all,
    and (for the players' figures) one player or all."""

    since: datetime
    until: datetime
    table: str | None = None
    player: str | None = None

    def rounds_where(self, *statuses: str) -> sa.ColumnElement[bool]:
        """The condition on ``rounds`` (of these statuses; any when none is named)."""
        return self.where(rounds.c.created_at, rounds.c.table_id, rounds.c.status, statuses)

    def where(
        self,
        opened: sa.ColumnElement[Any],
        table: sa.ColumnElement[Any],
        status: sa.ColumnElement[Any],
        statuses: Sequence[str],
    ) -> sa.ColumnElement[bool]:
        """The same condition on any table's columns of opening time, table and status."""
        condition = sa.and_(opened >= self.since, opened < self.until)
        if self.table is not None:
            condition = sa.and_(condition, table == self.table)
        if statuses:
            condition = sa.and_(condition, status.in_(statuses))
        return condition


def _op_is(column: sa.ColumnElement[str], op: str) -> sa.ColumnElement[bool]:
    """The recorded input is of operation ``op``: a text match (inputs are written with
    sorted keys, and a quote inside a string value is escaped, so ``"op":"void",``
    appears only as the input's own operation)."""
    return column.like(f'%"op":"{op}",%')


def round_counts(conn: sa.Connection, scope: Scope) -> list[sa.Row[Any]]:
    """Rounds by (table, rules name, rules version, status), with their money as the
    ledger held it when each closed: the house's result and the players' stakes less
    refunds (``house_win``, ``staked``, units)."""
    query = (
        sa.select(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            rounds.c.status,
            sa.func.count().label("rounds"),
            sa.func.coalesce(sa.func.sum(rounds.c.house_win), 0).label("house_win"),
            sa.func.coalesce(sa.func.sum(rounds.c.staked), 0).label("staked"),
        )
        .where(scope.rounds_where())
        .group_by(rounds.c.table_id, rounds.c.rules_name, rounds.c.rules_version, rounds.c.status)
    )
    return list(conn.execute(query).all())


def _players_where(scope: Scope, *statuses: str) -> sa.ColumnElement[bool]:
    return scope.where(
        round_players.c.opened_at, round_players.c.table_id, round_players.c.status, statuses
    )


def player_money(conn: sa.Connection, scope: Scope, user: int) -> list[Any]:
    """One player's money in the period's closed rounds (his legs in their
    transactions), by table, rules and status: ``net`` (their sum) and ``staked`` (his
    stakes less refunds)."""
    query = (
        sa.select(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            round_players.c.status,
            sa.func.sum(round_players.c.net).label("net"),
            sa.func.sum(round_players.c.staked).label("staked"),
        )
        .join(rounds, rounds.c.id == round_players.c.round_id)
        .where(_players_where(scope, "settled", "void"), round_players.c.user_id == user)
        .group_by(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            round_players.c.status,
        )
    )
    return list(conn.execute(query).all())


@dataclass(frozen=True)
class BetTotals:
    """A player's initial bets of one kind at one table and rules, summed."""

    table: str
    rules_name: str
    rules_version: str
    player: str
    bet: str
    #: How many bets (one per box and round).
    count: int
    units: int
    #: The sum of each bet's square (units squared), for the variance of the result.
    squares: int


def _bets_where(scope: Scope) -> sa.ColumnElement[bool]:
    return scope.where(
        round_bets.c.opened_at, round_bets.c.table_id, round_bets.c.status, ("settled",)
    )


def bet_sums(conn: sa.Connection, scope: Scope) -> list[Any]:
    """The bets of the period's settled rounds summed in one read of ``round_bets``, by
    table, rules, player, kind (``"main"``, a side bet's key, ``"insurance"``) and count
    bucket (:func:`croupier.backoffice.advantage.bucket` of the round's true count;
    ``None`` where the dealer entered the cards): ``count``, ``units``, ``squares``
    (units squared), and against the true count x: ``sx``, ``sxy``, ``sxx``, and
    ``at_index`` (the bets placed at the insurance index or more)."""
    x = round_bets.c.true_count
    y = sa.func.coalesce(round_bets.c.units, 0)
    query = (
        sa.select(
            round_bets.c.table_id,
            round_bets.c.rules_name,
            round_bets.c.rules_version,
            round_bets.c.player,
            round_bets.c.kind,
            _bucket(x).label("bucket"),
            sa.func.count().label("count"),
            sa.func.sum(y).label("units"),
            sa.func.sum(y * y).label("squares"),
            sa.func.sum(x).label("sx"),
            sa.func.sum(x * y).label("sxy"),
            sa.func.sum(x * x).label("sxx"),
            sa.func.sum(sa.case((x >= INSURANCE_INDEX, 1), else_=0)).label("at_index"),
        )
        .where(_bets_where(scope))
        .group_by(
            round_bets.c.table_id,
            round_bets.c.rules_name,
            round_bets.c.rules_version,
            round_bets.c.player,
            round_bets.c.kind,
            sa.text("6"),
        )
    )
    if scope.player is not None:
        query = query.where(round_bets.c.player == scope.player)
    return list(conn.execute(query))


def bet_totals(rows: Sequence[Any]) -> list[BetTotals]:
    """The initial bets (main and side bets; insurance aside) of :func:`bet_sums`' rows,
    by table, rules, player and bet."""
    found: dict[tuple[str, str, str, str, str], list[int]] = {}
    for row in rows:
        if row.kind == INSURANCE:
            continue
        key = (row.table_id, row.rules_name, row.rules_version, row.player, row.kind)
        sums = found.setdefault(key, [0, 0, 0])
        sums[0] += int(row.count)
        sums[1] += int(row.units)
        sums[2] += int(row.squares)
    return [
        BetTotals(table, name, version, player, bet, count, units, squares)
        for (table, name, version, player, bet), (count, units, squares) in found.items()
        if units > 0
    ]


def player_rounds(conn: sa.Connection, scope: Scope) -> list[Any]:
    """Each player's closed rounds in the period, summed in one read of
    ``round_players``, by player and status: (name, user id, status, rounds, net,
    staked, first and last opening)."""
    counted = (
        sa.select(
            round_players.c.user_id,
            round_players.c.status,
            sa.func.count().label("rounds"),
            sa.func.sum(round_players.c.net).label("net"),
            sa.func.sum(round_players.c.staked).label("staked"),
            sa.func.min(round_players.c.opened_at).label("first"),
            sa.func.max(round_players.c.opened_at).label("last"),
        )
        .where(_players_where(scope, "settled", "void"))
        .group_by(round_players.c.user_id, round_players.c.status)
        .subquery("counted")
    )
    query = sa.select(
        users.c.name,
        users.c.id,
        counted.c.status,
        counted.c.rounds,
        counted.c.net,
        counted.c.staked,
        counted.c.first,
        counted.c.last,
    ).join(counted, counted.c.user_id == users.c.id)
    if scope.player is not None:
        query = query.where(users.c.name == scope.player)
    return list(conn.execute(query).all())


def irregular_inputs(conn: sa.Connection, scope: Scope) -> list[Any]:
    """The irregular inputs of the period's rounds, and every void round (whose void
    may have come from the engine itself), oldest first: the round, its status, the
    input's place and JSON text (``None`` for a void round with no such input).  Only
    the inputs of the rounds that had some (and of those still open) are read."""
    marked = sa.or_(
        rounds.c.irregular_inputs > 0,
        rounds.c.irregular_inputs.is_(None),
        rounds.c.status == "void",
    )
    candidates = {
        row.id: row
        for row in conn.execute(
            sa.select(
                rounds.c.id,
                rounds.c.table_id,
                rounds.c.number,
                rounds.c.rules_name,
                rounds.c.status,
                rounds.c.created_at,
            ).where(scope.rounds_where(), marked)
        )
    }
    text = round_inputs.c.input
    irregular = sa.or_(*(_op_is(text, op) for op in IRREGULAR_OPS))
    found: list[Any] = []
    seen: set[str] = set()
    ids = sorted(candidates)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for round_id, seq, entry in conn.execute(
            sa.select(round_inputs.c.round_id, round_inputs.c.seq, text).where(
                round_inputs.c.round_id.in_(chunk), irregular
            )
        ):
            seen.add(round_id)
            found.append(_Irregular(*candidates[round_id], seq, entry))
    for round_id, row in candidates.items():
        if row.status == "void" and round_id not in seen:
            found.append(_Irregular(*row, None, None))
    return sorted(found, key=lambda row: (row.created_at, row.id, row.seq is not None, row.seq))


@dataclass(frozen=True)
class _Irregular:
    id: str
    table_id: str
    number: int
    rules_name: str
    status: str
    created_at: datetime
    seq: int | None
    input: str | None


def _bucket(count: sa.ColumnElement[float]) -> sa.ColumnElement[int]:
    """:func:`croupier.backoffice.advantage.bucket` in SQL (``floor`` without SQLite's
    optional math functions: a cast truncates toward zero, right for the counts >= 0)."""
    low, high = COUNT_BUCKETS[0], COUNT_BUCKETS[-1]
    return sa.case(
        (count < low + 1, low),
        (count < 0, -1),
        (count >= high, high),
        else_=sa.cast(count, sa.Integer),
    )


def decision_rounds(conn: sa.Connection, scope: Scope, limit: int) -> list[tuple[Any, list[str]]]:
    """At most ``limit`` of the period's settled rounds dealt from the server's shoe, to
    replay for the players' decisions: those with the largest true counts either way
    (where the indices apply; a top-``limit`` read, never a sort of them all).  Each as
    its row (id, table, true count, record's text) and its inputs' texts in order."""
    chosen = (
        sa.select(rounds.c.id)
        .where(scope.rounds_where("settled"), rounds.c.true_count.is_not(None))
        .order_by(sa.func.abs(rounds.c.true_count).desc(), rounds.c.id)
        .limit(limit)
    )
    ids = [row.id for row in conn.execute(chosen)]
    found: list[tuple[Any, list[str]]] = []
    inputs: dict[str, list[str]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for round_id, text in conn.execute(
            sa.select(round_inputs.c.round_id, round_inputs.c.input)
            .where(round_inputs.c.round_id.in_(chunk))
            .order_by(round_inputs.c.round_id, round_inputs.c.seq)
        ):
            inputs.setdefault(round_id, []).append(text)
        for row in conn.execute(
            sa.select(rounds.c.id, rounds.c.table_id, rounds.c.true_count, rounds.c.record)
            .where(rounds.c.id.in_(chunk))
            .order_by(rounds.c.id)
        ):
            found.append((row, inputs.get(row.id, [])))
    return found


def shoe_ranks(conn: sa.Connection, scope: Scope, most: int) -> list[tuple[str, int, str]]:
    """The shoes of the period's rounds dealt first from a freshly shuffled shoe of the
    server's (position 0), each table's latest ``most``: (table, number, the order as
    rank letters)."""
    ranked = (
        sa.select(
            rounds.c.id,
            sa.func.row_number()
            .over(partition_by=rounds.c.table_id, order_by=rounds.c.number.desc())
            .label("rank"),
        )
        .where(scope.rounds_where(), rounds.c.shoe_ranks.is_not(None))
        .subquery("ranked")
    )
    query = (
        sa.select(rounds.c.table_id, rounds.c.number, rounds.c.shoe_ranks)
        .join(ranked, ranked.c.id == rounds.c.id)
        .where(ranked.c.rank <= most)
    )
    return [(row.table_id, int(row.number), str(row.shoe_ranks)) for row in conn.execute(query)]


def void_returns(conn: sa.Connection, scope: Scope) -> dict[str, int]:
    """What each void round of the period gave back to its players (the void
    transaction's player legs), by round id."""
    query = (
        sa.select(rounds.c.id, sa.func.sum(legs.c.amount).label("units"))
        .select_from(
            rounds.join(transactions, transactions.c.round_id == rounds.c.id)
            .join(legs, legs.c.transaction_id == transactions.c.id)
            .join(accounts, accounts.c.id == legs.c.account_id)
        )
        .where(
            scope.rounds_where("void"),
            transactions.c.kind == "void",
            accounts.c.kind == "player",
        )
        .group_by(rounds.c.id)
    )
    return {row.id: int(row.units) for row in conn.execute(query)}
