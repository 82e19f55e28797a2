"""Failed logins by client address, shared by every process on the database.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add ``login_throttle``."""
    op.create_table(
        "login_throttle",
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("full_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("address", name="pk_login_throttle"),
    )
    op.create_index("ix_login_throttle_full_ms", "login_throttle", ["full_ms"])


def downgrade() -> None:
    """Drop ``login_throttle``."""
    op.drop_index("ix_login_throttle_full_ms", table_name="login_throttle")
    op.drop_table("login_throttle")
