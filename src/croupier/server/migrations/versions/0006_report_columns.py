"""What the back office sums, in columns: each bet that played, each round's shoe, money
and irregular inputs, each player's money in each round.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27

Adds ``round_bets`` and the new columns of ``rounds`` and ``round_players`` (see
:mod:`croupier.server.schema`), and fills them for the rounds already stored exactly
as the server writes them for new ones: the same functions read each round's record
and inputs (:mod:`croupier.backoffice.columns`), and the money is the ledger's legs of
each closed round's transactions.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from croupier.backoffice.columns import irregular_inputs, placed_bets, shoe_columns
from croupier.server.schema import UTCDateTime

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

_BATCH = 5000

_rounds = sa.table(
    "rounds",
    sa.column("id", sa.String),
    sa.column("table_id", sa.String),
    sa.column("rules_name", sa.String),
    sa.column("rules_version", sa.String),
    sa.column("status", sa.String),
    sa.column("record", sa.Text),
    sa.column("created_at", UTCDateTime()),
    sa.column("shoe_position", sa.Integer),
    sa.column("true_count", sa.Float),
    sa.column("shoe_ranks", sa.Text),
    sa.column("irregular_inputs", sa.Integer),
    sa.column("house_win", sa.BigInteger),
    sa.column("staked", sa.BigInteger),
)
_inputs = sa.table(
    "round_inputs",
    sa.column("round_id", sa.String),
    sa.column("seq", sa.Integer),
    sa.column("input", sa.Text),
)
_players = sa.table(
    "round_players",
    sa.column("round_id", sa.String),
    sa.column("user_id", sa.Integer),
    sa.column("table_id", sa.String),
    sa.column("opened_at", UTCDateTime()),
    sa.column("status", sa.String),
    sa.column("net", sa.BigInteger),
    sa.column("staked", sa.BigInteger),
)
_bets = sa.table(
    "round_bets",
    sa.column("round_id", sa.String),
    sa.column("seq", sa.Integer),
    sa.column("table_id", sa.String),
    sa.column("rules_name", sa.String),
    sa.column("rules_version", sa.String),
    sa.column("opened_at", UTCDateTime()),
    sa.column("status", sa.String),
    sa.column("player", sa.String),
    sa.column("box", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("units", sa.BigInteger),
    sa.column("true_count", sa.Float),
)
_transactions = sa.table(
    "transactions",
    sa.column("id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("round_id", sa.String),
)
_legs = sa.table(
    "legs",
    sa.column("transaction_id", sa.Integer),
    sa.column("account_id", sa.Integer),
    sa.column("amount", sa.BigInteger),
)
_accounts = sa.table(
    "accounts",
    sa.column("id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("owner", sa.String),
)


def upgrade() -> None:
    """Add the columns and ``round_bets``, then fill them for the stored rounds."""
    columns: tuple[tuple[str, sa.types.TypeEngine[Any]], ...] = (
        ("shoe_position", sa.Integer()),
        ("true_count", sa.Float()),
        ("shoe_ranks", sa.Text()),
        ("irregular_inputs", sa.Integer()),
        ("house_win", sa.BigInteger()),
        ("staked", sa.BigInteger()),
    )
    for name, kind in columns:
        op.add_column("rounds", sa.Column(name, kind, nullable=True))
    op.create_index("ix_rounds_created_at", "rounds", ["created_at"])
    columns = (
        ("table_id", sa.String(64)),
        ("opened_at", UTCDateTime()),
        ("status", sa.String(16)),
        ("net", sa.BigInteger()),
        ("staked", sa.BigInteger()),
    )
    for name, kind in columns:
        op.add_column("round_players", sa.Column(name, kind, nullable=True))
    op.create_index("ix_round_players_opened_at", "round_players", ["opened_at"])
    op.create_table(
        "round_bets",
        sa.Column("round_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("rules_name", sa.String(100), nullable=False),
        sa.Column("rules_version", sa.String(40), nullable=False),
        sa.Column("opened_at", UTCDateTime(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("player", sa.String(40), nullable=False),
        sa.Column("box", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("units", sa.BigInteger(), nullable=True),
        sa.Column("true_count", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_round_bets_round_id_rounds"),
        sa.PrimaryKeyConstraint("round_id", "seq", name="pk_round_bets"),
    )
    op.create_index("ix_round_bets_opened_at", "round_bets", ["opened_at"])
    conn = op.get_bind()
    _fill_shoes(conn)
    _fill_closed(conn)


def _batches(result: sa.CursorResult[Any]) -> Iterator[list[Any]]:
    while True:
        rows = result.fetchmany(_BATCH)
        if not rows:
            return
        yield list(rows)


def _fill_shoes(conn: sa.Connection) -> None:
    """Each round's shoe columns, from its record."""
    update = (
        _rounds.update()
        .where(_rounds.c.id == sa.bindparam("rid"))
        .values(
            shoe_position=sa.bindparam("position"),
            true_count=sa.bindparam("count"),
            shoe_ranks=sa.bindparam("ranks"),
        )
    )
    ids = [row.id for row in conn.execute(sa.select(_rounds.c.id).order_by(_rounds.c.id))]
    for start in range(0, len(ids), _BATCH):
        chunk = ids[start : start + _BATCH]
        rows = conn.execute(
            sa.select(_rounds.c.id, _rounds.c.record).where(_rounds.c.id.in_(chunk))
        ).all()
        values = []
        for row in rows:
            shoe = shoe_columns(json.loads(row.record).get("shoe"))
            if shoe.position is not None:
                values.append(
                    {
                        "rid": row.id,
                        "position": shoe.position,
                        "count": shoe.true_count,
                        "ranks": shoe.ranks,
                    }
                )
        if values:
            conn.execute(update, values)


def _fill_closed(conn: sa.Connection) -> None:
    """Each closed round's bets, irregular inputs and money."""
    closed = sa.select(
        _rounds.c.id,
        _rounds.c.table_id,
        _rounds.c.rules_name,
        _rounds.c.rules_version,
        _rounds.c.status,
        _rounds.c.created_at,
        _rounds.c.true_count,
    ).where(_rounds.c.status.in_(("settled", "void")))
    by_id = {row.id: row for row in conn.execute(closed)}
    if not by_id:
        return
    ids = sorted(by_id)
    money = _money(conn)
    close_round = (
        _rounds.update()
        .where(_rounds.c.id == sa.bindparam("rid"))
        .values(
            irregular_inputs=sa.bindparam("irregular"),
            house_win=sa.bindparam("house"),
            staked=sa.bindparam("held"),
        )
    )
    close_players = (
        _players.update()
        .where(_players.c.round_id == sa.bindparam("rid"))
        .values(
            table_id=sa.bindparam("tid"),
            opened_at=sa.bindparam("opened"),
            status=sa.bindparam("to"),
            net=0,
            staked=0,
        )
    )
    player_money = (
        _players.update()
        .where(
            _players.c.round_id == sa.bindparam("rid"), _players.c.user_id == sa.bindparam("uid")
        )
        .values(net=sa.bindparam("net_units"), staked=sa.bindparam("staked_units"))
    )
    for start in range(0, len(ids), _BATCH):
        chunk = ids[start : start + _BATCH]
        inputs: dict[str, list[dict[str, Any]]] = {}
        for row in conn.execute(
            sa.select(_inputs.c.round_id, _inputs.c.input)
            .where(_inputs.c.round_id.in_(chunk))
            .order_by(_inputs.c.round_id, _inputs.c.seq)
        ):
            inputs.setdefault(row.round_id, []).append(json.loads(row.input))
        bets: list[dict[str, Any]] = []
        rounds: list[dict[str, Any]] = []
        players: list[dict[str, Any]] = []
        amounts: list[dict[str, Any]] = []
        for round_id in chunk:
            closing = by_id[round_id]
            entries = inputs.get(round_id, [])
            for bet in placed_bets(entries):
                bets.append(
                    {
                        "round_id": round_id,
                        "seq": bet.seq,
                        "table_id": closing.table_id,
                        "rules_name": closing.rules_name,
                        "rules_version": closing.rules_version,
                        "opened_at": closing.created_at,
                        "status": closing.status,
                        "player": bet.player[:40],
                        "box": bet.box,
                        "kind": bet.kind[:40],
                        "units": bet.units,
                        "true_count": closing.true_count,
                    }
                )
            house, held, by_user = money.get(round_id, (0, 0, {}))
            rounds.append(
                {
                    "rid": round_id,
                    "irregular": irregular_inputs(entries),
                    "house": house,
                    "held": held,
                }
            )
            players.append(
                {
                    "rid": round_id,
                    "tid": closing.table_id,
                    "opened": closing.created_at,
                    "to": closing.status,
                }
            )
            for user, (net, staked) in by_user.items():
                amounts.append(
                    {"rid": round_id, "uid": user, "net_units": net, "staked_units": staked}
                )
        if bets:
            conn.execute(_bets.insert(), bets)
        conn.execute(close_round, rounds)
        conn.execute(close_players, players)
        if amounts:
            conn.execute(player_money, amounts)


def _money(conn: sa.Connection) -> dict[str, tuple[int, int, dict[int, tuple[int, int]]]]:
    """Each closed round's money from the ledger: (house's result, players' stakes less
    refunds, each player's (net, stakes less refunds))."""
    query = (
        sa.select(
            _transactions.c.round_id,
            _accounts.c.kind,
            _accounts.c.owner,
            _transactions.c.kind.label("transaction_kind"),
            sa.func.sum(_legs.c.amount).label("units"),
        )
        .select_from(
            _transactions.join(_legs, _legs.c.transaction_id == _transactions.c.id)
            .join(_accounts, _accounts.c.id == _legs.c.account_id)
            .join(_rounds, _rounds.c.id == _transactions.c.round_id)
        )
        .where(
            _rounds.c.status.in_(("settled", "void")),
            _accounts.c.kind.in_(("player", "house")),
        )
        .group_by(
            _transactions.c.round_id, _accounts.c.kind, _accounts.c.owner, _transactions.c.kind
        )
    )
    found: dict[str, tuple[int, int, dict[int, tuple[int, int]]]] = {}
    for rows in _batches(conn.execute(query)):
        for round_id, kind, owner, transaction_kind, units in rows:
            house, held, by_user = found.get(round_id, (0, 0, {}))
            if kind == "house":
                house += int(units)
            else:
                net, staked = by_user.get(int(owner), (0, 0))
                if transaction_kind in ("stake", "refund"):
                    staked -= int(units)
                    held -= int(units)
                by_user[int(owner)] = (net + int(units), staked)
            found[round_id] = (house, held, by_user)
    return found


def downgrade() -> None:
    """Drop ``round_bets`` and the new columns."""
    op.drop_index("ix_round_bets_opened_at", table_name="round_bets")
    op.drop_table("round_bets")
    op.drop_index("ix_round_players_opened_at", table_name="round_players")
    for name in ("staked", "net", "status", "opened_at", "table_id"):
        op.drop_column("round_players", name)
    op.drop_index("ix_rounds_created_at", table_name="rounds")
    for name in (
        "staked",
        "house_win",
        "irregular_inputs",
        "shoe_ranks",
        "true_count",
        "shoe_position",
    ):
        op.drop_column("rounds", name)
