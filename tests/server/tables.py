"""Helpers of the server tests: users with chips, tables on known cards, and an
application served on loopback."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Collection, Iterator, Mapping
from decimal import Decimal
from typing import Any

import sqlalchemy
import uvicorn

from croupier.commands import command_from_json
from croupier.presets import find_rules
from croupier.server import accounts, ledger
from croupier.server.commits import Committer
from croupier.server.records import RoundRecord
from croupier.server.runtime import CutCard, Input, Outcome, TableConfig, TableRuntime
from croupier.shoe import ShuffledShoe

PASSWORD = "correct horse battery"


def make_users(
    engine: sqlalchemy.Engine, *names: str, chips: str = "1000.00", role: str = "player"
) -> dict[str, int]:
    """Register ``names`` with ``chips`` each; their ids by name."""
    ids: dict[str, int] = {}
    with engine.begin() as conn:
        for name in names:
            user = accounts.register(conn, name, PASSWORD, role=role)
            ledger.player_account(conn, user)
            if Decimal(chips):
                ledger.grant(conn, user, Decimal(chips), idempotency_key=f"chips:{user}")
            ids[name] = user
    return ids


def make_crowd(engine: sqlalchemy.Engine, *names: str, chips: str = "1000.00") -> dict[str, int]:
    """As :func:`make_users`, for hundreds of players: one password hash for them all."""
    account = accounts.prepare(names[0], PASSWORD)
    ids: dict[str, int] = {}
    with engine.begin() as conn:
        for name in names:
            user = accounts.create(conn, dataclasses.replace(account, name=name))
            ledger.grant(conn, user, Decimal(chips), idempotency_key=f"chips:{user}")
            ids[name] = user
    return ids


def sent(op: str, player: str | None, args: Mapping[str, Any]) -> Input:
    """The command a client's action reads as (``op``, the player, its ``args``), as
    the table socket reads it."""
    if op == CutCard.op:
        return CutCard()
    return command_from_json({"op": op, "player": player, "args": dict(args)})


def act(
    runtime: TableRuntime,
    op: str,
    player: str | None,
    args: Mapping[str, Any],
    *,
    now: float,
    key: str | None = None,
    balances: Collection[int] = (),
    balances_at_end: Collection[int] = (),
    by: str | None = None,
) -> Outcome:
    """Apply an input to ``runtime`` as a client sends it: its command read from its
    JSON (:func:`sent`), recorded with the arguments given, as the table socket does."""
    return runtime.apply(
        sent(op, player, args),
        now=now,
        key=key,
        given=frozenset(args),
        balances=balances,
        balances_at_end=balances_at_end,
        by=by,
    )


def balance(engine: sqlalchemy.Engine, user: int) -> Decimal:
    """A user's balance."""
    with engine.begin() as conn:
        return ledger.balance(conn, user)


def books(engine: sqlalchemy.Engine) -> list[str]:
    """The reconciliation's problems (none when the books balance)."""
    with engine.begin() as conn:
        return ledger.check(conn)


def table(
    engine: sqlalchemy.Engine,
    ids: dict[str, int],
    preset: str,
    cards: str | None = None,
    *,
    now: float = 0.0,
    commits: Committer | None = None,
    **settings: object,
) -> TableRuntime:
    """A table of ``preset`` whose shoe starts with ``cards`` (a shuffled shoe if None)."""
    config = TableConfig(id=f"{preset}-test", preset=preset, **settings)  # type: ignore[arg-type]
    shoe = None
    if cards is not None:
        shoe = ShuffledShoe.stacked(cards, decks=find_rules(preset).decks)
    return TableRuntime(config, engine, ids.__getitem__, now=now, shoe=shoe, commits=commits)


@contextlib.contextmanager
def served(app: Any, port: int, **options: Any) -> Iterator[None]:
    """Serve ``app`` with uvicorn on loopback ``port`` (uvicorn's ``options`` too), in a
    thread, until the block ends."""
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def record_of(round_id: str, number: int = 1, *, closed: bool = False) -> RoundRecord:
    """A round's record with no input yet (closed: with the time it ended)."""
    return RoundRecord(
        round_id=round_id,
        table="t1",
        number=number,
        rules="test",
        rules_version=1,
        dealt="dealer",
        shoe=None,
        opened_at="2025-03-01T20:00:00+00:00",
        closed_at="2025-03-01T20:01:00+00:00" if closed else None,
    )
