"""Sessions of play kept on the server, players' own limits, disabled accounts.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def _timestamp(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Add ``users.disabled_at``, ``play_sessions`` and ``player_limits``."""
    with op.batch_alter_table("users") as batch:
        batch.add_column(_timestamp("disabled_at", nullable=True))
    op.create_table(
        "play_sessions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        _timestamp("started_at"),
        _timestamp("last_active_at"),
        sa.Column("ledger_mark", sa.BigInteger(), server_default="0", nullable=False),
        _timestamp("reality_check_at"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_play_sessions_user_id_users", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_play_sessions"),
    )
    op.create_index("ix_play_sessions_user_id", "play_sessions", ["user_id"])
    op.create_table(
        "player_limits",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("loss_limit", sa.BigInteger(), nullable=True),
        sa.Column("pending_loss_limit", sa.BigInteger(), nullable=True),
        _timestamp("pending_loss_limit_from", nullable=True),
        sa.Column("session_minutes", sa.Integer(), nullable=True),
        sa.Column("pending_session_minutes", sa.Integer(), nullable=True),
        _timestamp("pending_session_minutes_from", nullable=True),
        sa.Column("reality_check_minutes", sa.Integer(), server_default="60", nullable=False),
        _timestamp("break_until", nullable=True),
        _timestamp("excluded_until", nullable=True),
        _timestamp("updated_at"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_player_limits_user_id_users", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_player_limits"),
    )


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_table("player_limits")
    op.drop_index("ix_play_sessions_user_id", table_name="play_sessions")
    op.drop_table("play_sessions")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("disabled_at")
