"""Alembic environment of the table server's migrations.

Run them with :func:`croupier.server.db.migrate`, which hands Alembic a connection
inside a transaction; there is no ``alembic.ini`` and no offline (``--sql``) mode.
"""

from __future__ import annotations

from alembic import context
from alembic.config import Config

from croupier.server.schema import metadata


def run_migrations(config: Config) -> None:
    """Run the pending migrations on the connection in ``config.attributes``."""
    connection = config.attributes.get("connection")
    if connection is None or context.is_offline_mode():
        raise RuntimeError(
            "croupier migrations run online only, through croupier.server.db.migrate(engine)"
        )
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


# Alembic sets ``context.config`` while it runs this file; a plain import (for
# instance by pytest's doctest collector) finds none and runs nothing.
_config: Config | None = getattr(context, "config", None)
if _config is not None:
    run_migrations(_config)
