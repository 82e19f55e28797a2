"""Initial schema: users, sessions, the double-entry wallet, and round records.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def _timestamp(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Create every table of the table server."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), server_default="player", nullable=False),
        sa.Column("failed_logins", sa.Integer(), server_default="0", nullable=False),
        _timestamp("locked_until", nullable=True),
        _timestamp("created_at"),
        sa.CheckConstraint("role IN ('player', 'dealer', 'admin')", name="ck_users_role"),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        _timestamp("created_at"),
        _timestamp("last_seen"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_sessions_user_id_users", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(64), server_default="", nullable=False),
        sa.Column("balance", sa.BigInteger(), server_default="0", nullable=False),
        sa.CheckConstraint(
            "kind IN ('player', 'round', 'house', 'issuer')", name="ck_accounts_kind"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.UniqueConstraint("kind", "owner", name="uq_accounts_kind_owner"),
    )
    op.create_table(
        "transactions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("round_id", sa.String(64), nullable=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("memo", sa.String(200), server_default="", nullable=False),
        _timestamp("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_transactions"),
        sa.UniqueConstraint("idempotency_key", name="uq_transactions_idempotency_key"),
    )
    op.create_index("ix_transactions_round_id", "transactions", ["round_id"])
    op.create_table(
        "legs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("transaction_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["transaction_id"], ["transactions.id"], name="fk_legs_transaction_id_transactions"
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_legs_account_id_accounts"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_legs"),
    )
    op.create_index("ix_legs_transaction_id", "legs", ["transaction_id"])
    op.create_index("ix_legs_account_id", "legs", ["account_id"])
    op.create_table(
        "rounds",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("rules_name", sa.String(100), nullable=False),
        sa.Column("rules_version", sa.String(40), nullable=False),
        sa.Column("status", sa.String(16), server_default="open", nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.CheckConstraint("status IN ('open', 'settled', 'void')", name="ck_rounds_status"),
        sa.PrimaryKeyConstraint("id", name="pk_rounds"),
    )
    op.create_index("ix_rounds_table_id", "rounds", ["table_id"])
    op.create_table(
        "round_players",
        sa.Column("round_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("balance_before", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name="fk_round_players_round_id_rounds"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_round_players_user_id_users"),
        sa.PrimaryKeyConstraint("round_id", "user_id", name="pk_round_players"),
    )
    op.create_index("ix_round_players_user_id", "round_players", ["user_id"])


def downgrade() -> None:
    """Drop every table of the table server."""
    op.drop_index("ix_round_players_user_id", table_name="round_players")
    op.drop_table("round_players")
    op.drop_index("ix_rounds_table_id", table_name="rounds")
    op.drop_table("rounds")
    op.drop_index("ix_legs_account_id", table_name="legs")
    op.drop_index("ix_legs_transaction_id", table_name="legs")
    op.drop_table("legs")
    op.drop_index("ix_transactions_round_id", table_name="transactions")
    op.drop_table("transactions")
    op.drop_table("accounts")
    op.drop_index("ix_sessions_user_id", table_name="sessions")
    op.drop_table("sessions")
    op.drop_table("users")
