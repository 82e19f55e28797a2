"""The report's reads: aggregates computed by the database, one statement per figure set.

Nothing here loops over rounds in Python: the money is summed from the ledger's legs,
the bets from the rounds' recorded inputs (their JSON read by the database itself:
``json_extract`` on SQLite, ``jsonb`` on PostgreSQL), grouped by table, rules and
player.  A round belongs to the period in which it opened (``rounds.created_at``).

Amounts come back as integers of the ledger's unit (:data:`croupier.server.ledger.UNIT`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from croupier.backoffice.advantage import INSURANCE_INDEX
from croupier.server.schema import (
    accounts,
    legs,
    round_inputs,
    round_players,
    rounds,
    transactions,
    users,
)

__all__ = [
    "BetTotals",
    "LedgerTotals",
    "Scope",
    "bet_totals",
    "count_sums",
    "irregular_inputs",
    "ledger_totals",
    "player_rounds",
    "round_counts",
    "round_positions",
    "shoe_orders",
    "void_returns",
]

#: The inputs that are irregularities (RWS v5 5.3, 5.4, 5.7.3, 5.17).
IRREGULAR_OPS = ("void", "interrupt", "return_bets", "walk_away", "time_out")


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
        condition = sa.and_(rounds.c.created_at >= self.since, rounds.c.created_at < self.until)
        if self.table is not None:
            condition = sa.and_(condition, rounds.c.table_id == self.table)
        if statuses:
            condition = sa.and_(condition, rounds.c.status.in_(statuses))
        return condition


def _op_is(column: sa.ColumnElement[str], op: str) -> sa.ColumnElement[bool]:
    """The recorded input is of operation ``op``: a text match, cheaper than reading the
    JSON (inputs are written with sorted keys, and a quote inside a string value is
    escaped, so ``"op":"bet",`` appears only as the input's own operation)."""
    return column.like(f'%"op":"{op}",%')


def _arg(dialect: str, column: sa.ColumnElement[str], name: str) -> sa.ColumnElement[Any]:
    """A field of a recorded input (``player``, or an argument: ``amount``, ``box``,
    ``bet``) as text, ``NULL`` when absent.

    PostgreSQL cuts it out of the text: an input is stored as canonical JSON (sorted keys,
    no spaces: :func:`croupier.server.rounds_store.append_input`), where ``"box":`` can
    only begin that field (a quote inside a string is escaped), and a player's name or a
    bet's key holds no quote, comma or brace.  Reading a million inputs' JSON would cost
    several times as much.  SQLite reads the JSON.
    """
    if dialect != "postgresql":
        path = "$.player" if name == "player" else f"$.args.{name}"
        return sa.func.json_extract(column, path)
    after = sa.func.split_part(column, f'"{name}":', 2)
    value = sa.func.split_part(sa.func.split_part(after, ",", 1), "}", 1)
    return sa.func.nullif(sa.func.trim(value, '"'), "")


def _units(dialect: str, text: sa.ColumnElement[Any]) -> sa.ColumnElement[int]:
    """An amount recorded as text ("12.50") as whole units of 0.01."""
    if dialect == "postgresql":
        return sa.cast(sa.cast(text, sa.Numeric) * 100, sa.BigInteger)
    return sa.cast(sa.func.round(text * 100), sa.Integer)


def round_counts(conn: sa.Connection, scope: Scope) -> list[sa.Row[Any]]:
    """Rounds by (table, rules name, rules version, status)."""
    query = (
        sa.select(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            rounds.c.status,
            sa.func.count().label("rounds"),
            sa.func.min(rounds.c.created_at).label("first"),
            sa.func.max(rounds.c.created_at).label("last"),
        )
        .where(scope.rounds_where())
        .group_by(rounds.c.table_id, rounds.c.rules_name, rounds.c.rules_version, rounds.c.status)
    )
    return list(conn.execute(query).all())


@dataclass(frozen=True)
class LedgerTotals:
    """The legs of one kind of transaction on one kind of account, summed."""

    table: str
    rules_name: str
    rules_version: str
    status: str
    transaction_kind: str
    account_kind: str
    #: The account's owner: the user's id for a player account, the table for the house.
    owner: str
    units: int


def ledger_totals(conn: sa.Connection, scope: Scope) -> list[LedgerTotals]:
    """The legs of the rounds' transactions, by table, rules, round status, transaction
    kind, account kind and owner (players and the house; the rounds' own accounts only
    hold money on its way)."""
    query = (
        sa.select(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            rounds.c.status,
            transactions.c.kind.label("transaction_kind"),
            accounts.c.kind.label("account_kind"),
            accounts.c.owner,
            sa.func.sum(legs.c.amount).label("units"),
        )
        .select_from(
            rounds.join(transactions, transactions.c.round_id == rounds.c.id)
            .join(legs, legs.c.transaction_id == transactions.c.id)
            .join(accounts, accounts.c.id == legs.c.account_id)
        )
        .where(scope.rounds_where(), accounts.c.kind.in_(("player", "house")))
        .group_by(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            rounds.c.status,
            transactions.c.kind,
            accounts.c.kind,
            accounts.c.owner,
        )
    )
    return [
        LedgerTotals(
            table=row.table_id,
            rules_name=row.rules_name,
            rules_version=row.rules_version,
            status=row.status,
            transaction_kind=row.transaction_kind,
            account_kind=row.account_kind,
            owner=row.owner,
            units=int(row.units),
        )
        for row in conn.execute(query)
    ]


def _placed(dialect: str, scope: Scope, statuses: Sequence[str]) -> sa.Subquery:
    """Every bet that played: by (round, player, box, bet), the amount left on the layout
    at "No more bets" (bets added up, a withdrawn bet gone, a side bet without a main
    bet on its box given back as the engine gives it back)."""
    text = round_inputs.c.input
    # One read of the inputs for both: the bets and the withdrawals.
    moves = (
        sa.select(
            round_inputs.c.round_id,
            round_inputs.c.seq,
            _op_is(text, "bet").label("is_bet"),
            _arg(dialect, text, "player").label("player"),
            sa.cast(_arg(dialect, text, "box"), sa.Integer).label("box"),
            sa.func.coalesce(_arg(dialect, text, "bet"), "main").label("bet"),
            _arg(dialect, text, "amount").label("amount"),
        )
        .join(rounds, rounds.c.id == round_inputs.c.round_id)
        .where(
            scope.rounds_where(*statuses),
            sa.or_(_op_is(text, "bet"), _op_is(text, "withdraw")),
        )
        .cte("moves")
    )
    bets = (
        sa.select(
            moves.c.round_id,
            moves.c.seq,
            moves.c.player,
            moves.c.box,
            moves.c.bet,
            _units(dialect, moves.c.amount).label("units"),
        )
        .where(moves.c.is_bet)
        .cte("bets")
    )
    withdrawn = (
        sa.select(
            moves.c.round_id,
            moves.c.player,
            moves.c.box,
            moves.c.bet,
            sa.func.max(moves.c.seq).label("last"),
        )
        .where(~moves.c.is_bet)
        .group_by(moves.c.round_id, moves.c.player, moves.c.box, moves.c.bet)
        .cte("withdrawn")
    )
    kept = (
        sa.select(
            bets.c.round_id,
            bets.c.player,
            bets.c.box,
            bets.c.bet,
            sa.func.sum(bets.c.units).label("units"),
        )
        .select_from(
            bets.outerjoin(
                withdrawn,
                sa.and_(
                    withdrawn.c.round_id == bets.c.round_id,
                    withdrawn.c.player == bets.c.player,
                    withdrawn.c.box == bets.c.box,
                    withdrawn.c.bet == bets.c.bet,
                ),
            )
        )
        .where(sa.or_(withdrawn.c.last.is_(None), bets.c.seq > withdrawn.c.last))
        .group_by(bets.c.round_id, bets.c.player, bets.c.box, bets.c.bet)
        .cte("kept")
    )
    # The boxes with a main bet: a side bet on any other box was given back.
    boxes = (
        sa.select(kept.c.round_id, kept.c.box)
        .where(kept.c.bet == "main")
        .group_by(kept.c.round_id, kept.c.box)
        .subquery("boxes")
    )
    return (
        sa.select(kept)
        .join(boxes, sa.and_(boxes.c.round_id == kept.c.round_id, boxes.c.box == kept.c.box))
        .subquery("placed")
    )


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


def bet_totals(conn: sa.Connection, scope: Scope) -> list[BetTotals]:
    """The initial bets of the period's settled rounds, by table, rules, player and bet
    (``"main"`` or a side bet's key)."""
    placed = _placed(conn.dialect.name, scope, ("settled",))
    query = (
        sa.select(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            placed.c.player,
            placed.c.bet,
            sa.func.count().label("count"),
            sa.func.sum(placed.c.units).label("units"),
            sa.func.sum(placed.c.units * placed.c.units).label("squares"),
        )
        .join(rounds, rounds.c.id == placed.c.round_id)
        .where(placed.c.units > 0)
        .group_by(
            rounds.c.table_id,
            rounds.c.rules_name,
            rounds.c.rules_version,
            placed.c.player,
            placed.c.bet,
        )
    )
    return [
        BetTotals(
            table=row.table_id,
            rules_name=row.rules_name,
            rules_version=row.rules_version,
            player=row.player,
            bet=row.bet,
            count=int(row[5]),
            units=int(row.units),
            squares=int(row.squares),
        )
        for row in conn.execute(query)
    ]


def player_rounds(conn: sa.Connection, scope: Scope) -> list[sa.Row[Any]]:
    """Each player's settled rounds in the period (name, user id, rounds, first, last)."""
    query = (
        sa.select(
            users.c.name,
            users.c.id,
            sa.func.count().label("rounds"),
            sa.func.min(rounds.c.created_at).label("first"),
            sa.func.max(rounds.c.updated_at).label("last"),
        )
        .select_from(
            round_players.join(rounds, rounds.c.id == round_players.c.round_id).join(
                users, users.c.id == round_players.c.user_id
            )
        )
        .where(scope.rounds_where("settled"))
        .group_by(users.c.name, users.c.id)
    )
    if scope.player is not None:
        query = query.where(users.c.name == scope.player)
    return list(conn.execute(query).all())


def irregular_inputs(conn: sa.Connection, scope: Scope) -> list[Any]:
    """The irregular inputs of the period's rounds, and every void round (whose void
    may have come from the engine itself), oldest first: the round, its status, the
    input's place and JSON text (``None`` for a void round with no such input)."""
    text = round_inputs.c.input
    irregular = sa.or_(*(_op_is(text, op) for op in IRREGULAR_OPS))
    inputs = (
        sa.select(
            rounds.c.id,
            rounds.c.table_id,
            rounds.c.number,
            rounds.c.rules_name,
            rounds.c.status,
            rounds.c.created_at,
            round_inputs.c.seq,
            text.label("input"),
        )
        .join(rounds, rounds.c.id == round_inputs.c.round_id)
        .where(scope.rounds_where(), irregular)
    )
    voids = sa.select(
        rounds.c.id,
        rounds.c.table_id,
        rounds.c.number,
        rounds.c.rules_name,
        rounds.c.status,
        rounds.c.created_at,
        sa.literal(None, sa.Integer).label("seq"),
        sa.literal(None, sa.Text).label("input"),
    ).where(
        scope.rounds_where("void"),
        ~sa.exists().where(round_inputs.c.round_id == rounds.c.id, irregular),
    )
    union = sa.union_all(inputs, voids).subquery()
    return list(
        conn.execute(sa.select(union).order_by(union.c.created_at, union.c.id, union.c.seq)).all()
    )


def round_positions(conn: sa.Connection, scope: Scope) -> list[Any]:
    """Each settled round of the period dealt from the server's shoe: (round id, table,
    number, the place its shoe had reached when it opened), one row per round."""
    if conn.dialect.name == "postgresql":
        # The shoe's position is the record's first "position" (keys sorted, the shoe's
        # order before it): read as text, not parsed as JSON.
        record = rounds.c.record
        start = sa.func.strpos(record, '"position":') + 11
        position: sa.ColumnElement[Any] = sa.cast(
            sa.func.substring(sa.func.substr(record, start, 8), sa.literal_column("'^[0-9]+'")),
            sa.Integer,
        )
    else:
        position = sa.cast(sa.func.json_extract(rounds.c.record, "$.shoe.position"), sa.Integer)
    query = sa.select(
        rounds.c.id, rounds.c.table_id, rounds.c.number, position.label("position")
    ).where(scope.rounds_where("settled"), rounds.c.record.like('%"dealt":"rng"%'))
    return [row for row in conn.execute(query)]


def count_sums(
    conn: sa.Connection,
    scope: Scope,
    counts: Sequence[tuple[str, float, int]],
    players: Sequence[str],
) -> list[Any]:
    """Sums for each player's bet-against-count correlation, by count bucket: given each
    round's (id, true count, bucket), the main bets of ``players`` joined to them and
    summed by the database: (player, bucket, n, sum x, sum y, sum xy, sum x^2, sum y^2,
    insured, insured at the index), with x the true count and y the bet in units."""
    dialect = conn.dialect.name
    ids = [entry[0] for entry in counts]
    parameters: dict[str, Any]
    if dialect == "postgresql":
        source = sa.text(
            "unnest(CAST(:ids AS text[]), CAST(:tcs AS float8[]), CAST(:buckets AS int[]))"
            " AS c(round_id, tc, bucket)"
        )
        parameters = {
            "ids": ids,
            "tcs": [entry[1] for entry in counts],
            "buckets": [entry[2] for entry in counts],
        }
        table = sa.select(
            sa.column("round_id", sa.String),
            sa.column("tc", sa.Float),
            sa.column("bucket", sa.Integer),
        ).select_from(source)
    else:
        import json

        source = sa.text("json_each(:data)")
        parameters = {"data": json.dumps([list(entry) for entry in counts])}
        table = sa.select(
            sa.literal_column("json_extract(value, '$[0]')", sa.String).label("round_id"),
            sa.literal_column("json_extract(value, '$[1]')", sa.Float).label("tc"),
            sa.literal_column("json_extract(value, '$[2]')", sa.Integer).label("bucket"),
        ).select_from(source)
    counted = table.subquery("counted")
    placed = _placed(dialect, scope, ("settled",))
    main = (
        sa.select(placed.c.round_id, placed.c.player, sa.func.sum(placed.c.units).label("units"))
        .where(placed.c.bet == "main", placed.c.player.in_(players))
        .group_by(placed.c.round_id, placed.c.player)
        .subquery("main")
    )
    text = round_inputs.c.input
    insured = (
        sa.select(round_inputs.c.round_id, _arg(dialect, text, "player").label("player"))
        .join(rounds, rounds.c.id == round_inputs.c.round_id)
        .where(scope.rounds_where("settled"), _op_is(text, "insurance"))
        .group_by(round_inputs.c.round_id, sa.text("2"))
        .subquery("insured")
    )
    x, y = counted.c.tc, main.c.units
    took = sa.case((insured.c.round_id.is_not(None), 1), else_=0)
    query = (
        sa.select(
            main.c.player,
            counted.c.bucket,
            sa.func.count().label("n"),
            sa.func.sum(x).label("sx"),
            sa.func.sum(y).label("sy"),
            sa.func.sum(x * y).label("sxy"),
            sa.func.sum(x * x).label("sxx"),
            sa.func.sum(y * y).label("syy"),
            sa.func.sum(took).label("insured"),
            sa.func.sum(sa.case((x >= INSURANCE_INDEX, took), else_=0)).label("at_index"),
        )
        .select_from(
            main.join(counted, counted.c.round_id == main.c.round_id).outerjoin(
                insured,
                sa.and_(insured.c.round_id == main.c.round_id, insured.c.player == main.c.player),
            )
        )
        .group_by(main.c.player, counted.c.bucket)
    )
    return [row for row in conn.execute(query, parameters)]


def shoe_orders(conn: sa.Connection, scope: Scope) -> list[tuple[str, int, str]]:
    """The shoes of the period's rounds dealt first from a freshly shuffled shoe of the
    server's (position 0): (table, number, the order as its JSON text without brackets:
    ``"AS","10H",...``), by table and number.  Cut out of the record's text, where the
    shoe's ``order`` and ``position`` are the first of their names (keys sorted)."""
    record = rounds.c.record
    order: sa.ColumnElement[Any]
    first: sa.ColumnElement[Any]
    if conn.dialect.name == "postgresql":
        order = sa.func.split_part(sa.func.split_part(record, '"order":[', 2), "]", 1)
        first = sa.func.split_part(sa.func.split_part(record, '"position":', 2), "}", 1)
    else:
        order = sa.func.substr(
            sa.func.json_extract(record, "$.shoe.order"), 2
        )  # '["AS",...]' less its brackets
        order = sa.func.rtrim(order, "]")
        first = sa.cast(sa.func.json_extract(record, "$.shoe.position"), sa.String)
    query = (
        sa.select(rounds.c.table_id, rounds.c.number, order.label("order"))
        .where(
            scope.rounds_where(),
            record.like('%"dealt":"rng"%'),
            record.like('%"position":0}%'),
            first == "0",
        )
        .order_by(rounds.c.table_id, rounds.c.number)
    )
    return [(row.table_id, int(row.number), str(row.order)) for row in conn.execute(query)]


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
