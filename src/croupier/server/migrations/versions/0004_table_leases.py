"""Table leases: which process runs each table, with a fencing epoch.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add ``table_leases``."""
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("owner", sa.String(length=64), server_default="", nullable=False),
        sa.Column("owner_key", sa.Integer(), server_default="0", nullable=False),
        sa.Column("renewed_ms", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("expires_ms", sa.BigInteger(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_table_leases"),
    )


def downgrade() -> None:
    """Drop ``table_leases``."""
    op.drop_table("table_leases")
