"""Round inputs appended one row per command instead of rewriting the round's record.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24

The inputs already kept inside each round's record move to ``round_inputs``, in order;
the record keeps everything else.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

_rounds = sa.table("rounds", sa.column("id", sa.String), sa.column("record", sa.Text))
_inputs = sa.table(
    "round_inputs",
    sa.column("round_id", sa.String),
    sa.column("seq", sa.Integer),
    sa.column("input", sa.Text),
)


def _text(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def upgrade() -> None:
    """Create ``round_inputs`` and move every recorded input into it."""
    op.create_table(
        "round_inputs",
        sa.Column("round_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name="fk_round_inputs_round_id_rounds"
        ),
        sa.PrimaryKeyConstraint("round_id", "seq", name="pk_round_inputs"),
    )
    conn = op.get_bind()
    for round_id, text in conn.execute(sa.select(_rounds.c.id, _rounds.c.record)).all():
        record = json.loads(text)
        inputs = record.pop("inputs", [])
        if inputs:
            conn.execute(
                _inputs.insert(),
                [
                    {"round_id": round_id, "seq": seq, "input": _text(entry)}
                    for seq, entry in enumerate(inputs)
                ],
            )
        conn.execute(_rounds.update().where(_rounds.c.id == round_id).values(record=_text(record)))


def downgrade() -> None:
    """Put every round's inputs back into its record and drop ``round_inputs``."""
    conn = op.get_bind()
    for round_id, text in conn.execute(sa.select(_rounds.c.id, _rounds.c.record)).all():
        record = json.loads(text)
        rows = conn.execute(
            sa.select(_inputs.c.input).where(_inputs.c.round_id == round_id).order_by(_inputs.c.seq)
        ).all()
        record["inputs"] = [json.loads(row.input) for row in rows]
        conn.execute(_rounds.update().where(_rounds.c.id == round_id).values(record=_text(record)))
    op.drop_table("round_inputs")
