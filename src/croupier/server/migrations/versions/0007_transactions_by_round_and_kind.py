"""A round's transactions found by their kind: the index on ``transactions.round_id``
becomes one on ``(round_id, kind)``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28

Every stake asks whether its round was already closed (a settlement or a void among
the round's transactions).  With the round's id alone indexed, that read every
transaction of the round: a crowd of a thousand betting behind one box made each bet
read a thousand rows.  With the kind in the index it reads the closing ones alone; a
look by the round's id alone still uses the index's first column.
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Index ``transactions`` by round and kind, in place of round alone."""
    op.create_index("ix_transactions_round_id_kind", "transactions", ["round_id", "kind"])
    op.drop_index("ix_transactions_round_id", table_name="transactions")


def downgrade() -> None:
    """Back to the index by round alone."""
    op.create_index("ix_transactions_round_id", "transactions", ["round_id"])
    op.drop_index("ix_transactions_round_id_kind", table_name="transactions")
