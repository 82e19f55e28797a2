"""Round records, for game recall and for crash recovery.

A round's record (:class:`~croupier.server.records.RoundRecord`: rules, shoe, times...)
has its list of ``inputs``.  The inputs are stored one row each in ``round_inputs``,
appended as they come (:func:`append_input`), and the rest as JSON text in ``rounds``,
written when the round opens and when it closes: a command costs one small insert,
never a rewrite of the round.  Loading a round puts the two back together.  This
module is the records' edge: they are JSON here only (``to_json``, ``from_json``).  A
round is ``open`` until it is ``settled`` or ``void``; a closed round stays closed.
``round_players`` remembers each player's balance before and after.

What the back office sums is written beside the record, worked out once per round
(:mod:`croupier.backoffice.columns`): the shoe's position, true count and (for a fresh
shoe) order when the round opens; when it closes, in the same transaction as its
settlement, one ``round_bets`` row per bet that played, how many of its inputs were
irregularities, and its money as the ledger's legs of its transactions hold it (the
house's result, each player's net and stakes).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import sqlalchemy
from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Dialect

from croupier.backoffice.columns import irregular_inputs, placed_bets, shoe_columns
from croupier.server.db import any_of, insert_ignoring_for, utcnow
from croupier.server.driver import Prepared, Sent
from croupier.server.errors import InvalidAmount, NotFound, RoundError
from croupier.server.ledger import balance, from_units, to_units
from croupier.server.records import RecordedInput, RoundRecord
from croupier.server.schema import (
    ROUND_STATUSES,
    accounts,
    legs,
    round_bets,
    round_inputs,
    round_players,
    rounds,
    table_leases,
    transactions,
    users,
)

__all__ = [
    "PlayedRound",
    "RoundRow",
    "append_input",
    "appended",
    "create_round",
    "finish_round_player",
    "finish_round_players",
    "join_round",
    "joined",
    "last_round",
    "load_round",
    "open_rounds",
    "player_rounds",
    "record_of",
    "round_balances",
    "save_round",
    "send_input",
    "send_join",
]

_CLOSED = ("settled", "void")
#: An ``INSERT ... SELECT``'s count of rows written (not kept for inserts unless asked).
_ROWCOUNT = {"preserve_rowcount": True}


@dataclass(frozen=True)
class PlayedRound:
    """A round as a player's list of rounds shows it: its columns, not its record."""

    id: str
    table_id: str
    number: int
    rules_name: str
    rules_version: str
    status: str


@dataclass(frozen=True)
class RoundRow(PlayedRound):
    """A stored round, its record read back."""

    record: RoundRecord
    created_at: datetime
    updated_at: datetime


def _encode(round_id: str, record: dict[str, Any]) -> str:
    """The record as canonical JSON text.

    >>> _encode("r1", {"b": [1, "2.50"], "a": None})
    '{"a":null,"b":[1,"2.50"]}'
    >>> _encode("r1", {"bet": Decimal("1")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.server.errors.RoundError: record of round 'r1' is not JSON: ...Decimal...
    """
    if not isinstance(record, dict):
        raise RoundError(f"record of round {round_id!r} is a {type(record).__name__}, not a dict")
    try:
        return json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise RoundError(f"record of round {round_id!r} is not JSON: {error}") from error


def _header(round_id: str, record: RoundRecord) -> str:
    """The record without its inputs (stored one row each), as text."""
    if not isinstance(record, RoundRecord):
        raise RoundError(
            f"record of round {round_id!r} is a {type(record).__name__}, not a RoundRecord"
        )
    if record.round_id != round_id:
        raise RoundError(f"the record of round {record.round_id!r} is not round {round_id!r}'s")
    return _encode(round_id, record.header_json())


def _check_length(what: str, value: str, longest: int) -> None:
    if not isinstance(value, str) or not 1 <= len(value) <= longest:
        raise RoundError(f"{what} {value!r} must have 1 to {longest} characters")


def record_of(text: str, inputs: Iterable[str]) -> RoundRecord:
    """A stored round's record, from its row's text and its inputs' (in order).

    Raises:
        MalformedRecord: what is stored is not a round's record.
    """
    record = json.loads(text)
    if isinstance(record, dict):
        record["inputs"] = [json.loads(entry) for entry in inputs]
    return RoundRecord.from_json(record)


def _row(conn: sqlalchemy.Connection, row: sqlalchemy.Row[Any]) -> RoundRow:
    """The round of ``row``, its record read back with its inputs.

    Raises:
        MalformedRecord: what is stored is not a round's record.
    """
    inputs = conn.execute(
        select(round_inputs.c.input)
        .where(round_inputs.c.round_id == row.id)
        .order_by(round_inputs.c.seq)
    ).scalars()
    return RoundRow(
        id=row.id,
        table_id=row.table_id,
        number=row.number,
        rules_name=row.rules_name,
        rules_version=row.rules_version,
        status=row.status,
        record=record_of(row.record, inputs),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


_STATUS = Prepared(select(rounds.c.status).where(rounds.c.id == bindparam("rid")))
#: What closing a round writes beside it needs of its row.
_CLOSING = Prepared(
    select(
        rounds.c.status,
        rounds.c.table_id,
        rounds.c.rules_name,
        rounds.c.rules_version,
        rounds.c.created_at,
        # Read as the driver gives it (a float): a float column's processor needs the
        # driver's type code, which a prepared statement does not keep.
        sqlalchemy.type_coerce(rounds.c.true_count, sqlalchemy.types.NullType()).label(
            "true_count"
        ),
    ).where(rounds.c.id == bindparam("rid"))
)
#: The ledger's legs of a round's transactions on players' and the house's accounts,
#: by account and kind of transaction.
_MONEY = Prepared(
    select(
        accounts.c.kind,
        accounts.c.owner,
        transactions.c.kind.label("transaction_kind"),
        sqlalchemy.func.sum(legs.c.amount).label("units"),
    )
    .select_from(
        transactions.join(legs, legs.c.transaction_id == transactions.c.id).join(
            accounts, accounts.c.id == legs.c.account_id
        )
    )
    .where(
        transactions.c.round_id == bindparam("rid"),
        sqlalchemy.or_(accounts.c.kind == "player", accounts.c.kind == "house"),
    )
    .group_by(accounts.c.kind, accounts.c.owner, transactions.c.kind)
)
_BETS = Prepared(round_bets.insert())
_CLOSE_ROUND = Prepared(
    update(rounds)
    .where(rounds.c.id == bindparam("rid"))
    .values(
        irregular_inputs=bindparam("irregular"),
        house_win=bindparam("house"),
        staked=bindparam("held"),
    )
)
_CLOSE_PLAYERS = Prepared(
    update(round_players)
    .where(round_players.c.round_id == bindparam("rid"))
    .values(
        table_id=bindparam("tid"),
        opened_at=bindparam("opened"),
        status=bindparam("to"),
        net=0,
        staked=0,
    )
)
_PLAYER_MONEY = Prepared(
    update(round_players)
    .where(
        round_players.c.round_id == bindparam("rid"), round_players.c.user_id == bindparam("uid")
    )
    .values(net=bindparam("net_units"), staked=bindparam("staked_units"))
)
_FINISH_PLAYER = Prepared(
    update(round_players)
    .where(
        round_players.c.round_id == bindparam("rid"), round_players.c.user_id == bindparam("uid")
    )
    .values(balance_after=bindparam("after"))
)
_NEW_ROUND = Prepared(rounds.insert())
_INPUTS = Prepared(round_inputs.insert())
_COUNT_INPUTS = Prepared(
    select(sqlalchemy.func.count()).where(round_inputs.c.round_id == bindparam("rid"))
)
_SAVE = Prepared(
    update(rounds)
    .where(rounds.c.id == bindparam("rid"))
    .values(record=bindparam("text"), status=bindparam("to"), updated_at=bindparam("at"))
)


def _stored_inputs(conn: sqlalchemy.Connection, round_id: str) -> int:
    count: int = _COUNT_INPUTS.run(conn, {"rid": round_id}).scalar()
    return count


def _insert_inputs(
    conn: sqlalchemy.Connection, round_id: str, first: int, inputs: Sequence[RecordedInput]
) -> None:
    if inputs:
        _INPUTS.run_many(
            conn,
            [
                {
                    "round_id": round_id,
                    "seq": first + offset,
                    "input": _encode_input(round_id, entry),
                }
                for offset, entry in enumerate(inputs)
            ],
        )


def _encode_input(round_id: str, entry: RecordedInput) -> str:
    if not isinstance(entry, RecordedInput):
        raise RoundError(
            f"an input of round {round_id!r} is a {type(entry).__name__}, not a RecordedInput"
        )
    try:
        return json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise RoundError(f"an input of round {round_id!r} is not JSON: {error}") from error


def _status(conn: sqlalchemy.Connection, round_id: str) -> str:
    status: str | None = _STATUS.run(conn, {"rid": round_id}).scalar()
    if status is None:
        raise NotFound(f"round {round_id!r} does not exist")
    return status


def create_round(
    conn: sqlalchemy.Connection,
    *,
    round_id: str,
    table_id: str,
    number: int,
    rules_name: str,
    rules_version: str,
    record: RoundRecord,
    now: datetime | None = None,
) -> None:
    """Store a new, open round with the inputs it has so far.

    :class:`RoundError` if the id is taken.
    """
    _check_length("round id", round_id, 64)
    _check_length("table id", table_id, 64)
    _check_length("rules name", rules_name, 100)
    _check_length("rules version", rules_version, 40)
    text = _header(round_id, record)
    inputs = record.inputs
    if _STATUS.run(conn, {"rid": round_id}).all():
        raise RoundError(f"round {round_id!r} already exists")
    stamp = now if now is not None else utcnow()
    shoe = shoe_columns(record.shoe)
    _NEW_ROUND.run(
        conn,
        {
            "id": round_id,
            "table_id": table_id,
            "number": number,
            "rules_name": rules_name,
            "rules_version": rules_version,
            "status": "open",
            "record": text,
            "created_at": stamp,
            "updated_at": stamp,
            "shoe_position": shoe.position,
            "true_count": shoe.true_count,
            "shoe_ranks": shoe.ranks,
        },
    )
    _insert_inputs(conn, round_id, 0, inputs)


# The statements every input and every first stake run, built once (their construction
# costs more than their execution's own Python).
def _appending(*, fenced: bool) -> Prepared:
    """The input's row, written only if the round is open and ``seq`` is next; with
    ``fenced``, only if the table's lease still has the writer's epoch, whose row it
    locks as :func:`~croupier.server.ownership.fence` does (FOR KEY SHARE), in the same
    statement: the fence and the write of an input are one round trip, not two."""
    conditions = [
        sqlalchemy.exists().where(
            rounds.c.id == bindparam("rid"), ~any_of(rounds.c.status, _CLOSED)
        ),
        select(sqlalchemy.func.count())
        .where(round_inputs.c.round_id == bindparam("rid"))
        .scalar_subquery()
        == bindparam("n"),
    ]
    if fenced:
        conditions.insert(
            0,
            select(table_leases.c.epoch)
            .where(
                table_leases.c.table_id == bindparam("table"),
                table_leases.c.epoch == bindparam("epoch"),
            )
            .with_for_update(read=True, key_share=True)
            .exists(),
        )
    return Prepared(
        round_inputs.insert().from_select(
            ["round_id", "seq", "input"],
            select(
                bindparam("rid", type_=sqlalchemy.String),
                bindparam("n", type_=sqlalchemy.Integer),
                bindparam("text", type_=sqlalchemy.Text),
            ).where(*conditions),
        )
    )


_APPEND = _appending(fenced=False)
_APPEND_FENCED = _appending(fenced=True)


@functools.cache
def _join_statement(dialect: str, *, balance_now: bool) -> Prepared:
    """Join a player to a round if both exist and he has not joined yet (per database:
    the ``ON CONFLICT`` clause is each one's own); with ``balance_now``, his balance
    before the round is read in the same statement (zero with no account yet)."""
    before: sqlalchemy.ColumnElement[Any] = bindparam("units", type_=sqlalchemy.BigInteger)
    if balance_now:
        before = sqlalchemy.func.coalesce(
            select(accounts.c.balance)
            .where(
                accounts.c.kind == "player",
                accounts.c.owner == sqlalchemy.cast(bindparam("who"), sqlalchemy.String),
            )
            .scalar_subquery(),
            0,
        )
    joining = select(
        bindparam("rid", type_=sqlalchemy.String),
        bindparam("who", type_=sqlalchemy.Integer),
        before,
    ).where(
        sqlalchemy.exists().where(rounds.c.id == bindparam("rid")),
        sqlalchemy.exists().where(users.c.id == bindparam("who")),
    )
    ignoring = insert_ignoring_for(dialect, round_players, ("round_id", "user_id"))
    return Prepared(ignoring.from_select(["round_id", "user_id", "balance_before"], joining))


def append_input(
    conn: sqlalchemy.Connection,
    round_id: str,
    seq: int,
    entry: RecordedInput,
    *,
    lease: tuple[str, int] | None = None,
    fence: Callable[[sqlalchemy.Connection], None] | None = None,
) -> None:
    """Append the round's input number ``seq`` (0 first): one row, nothing rewritten.

    With ``lease`` (a table and the epoch this process holds it at), the same statement
    holds the table's lease for the transaction, as ``fence`` does (called when nothing
    was written, to raise why: the table was claimed by another process).

    :class:`NotFound` if there is no such round; :class:`RoundError` if the round is
    closed or ``seq`` is not the next number.
    """
    sent = send_input(conn, round_id, seq, entry, lease=lease)
    appended(conn, sent, round_id, seq, fence=fence)


def _input_statement(
    round_id: str, seq: int, entry: RecordedInput, lease: tuple[str, int] | None
) -> tuple[Prepared, dict[str, Any]]:
    """The statement that writes the round's input ``seq``, and its values.  Written
    only if the round is open and ``seq`` is next (and, with ``lease``, the table's
    lease still held), in one statement: this runs at every input.  When nothing was
    written, :func:`appended` says why."""
    values: dict[str, Any] = {"rid": round_id, "n": seq, "text": _encode_input(round_id, entry)}
    if lease is None:
        return _APPEND, values
    values["table"], values["epoch"] = lease
    return _APPEND_FENCED, values


def send_input(
    conn: sqlalchemy.Connection,
    round_id: str,
    seq: int,
    entry: RecordedInput,
    *,
    lease: tuple[str, int] | None = None,
) -> Sent:
    """The statement of :func:`append_input`, sent (in a :func:`~croupier.server.driver.
    pipeline`, with others); :func:`appended` checks what it did."""
    statement, values = _input_statement(round_id, seq, entry, lease)
    return statement.send(conn, values)


def input_row(
    dialect: Dialect,
    round_id: str,
    seq: int,
    entry: RecordedInput,
    *,
    lease: tuple[str, int] | None = None,
) -> tuple[str, Sequence[Any] | Mapping[str, Any]]:
    """The statement :func:`send_input` sends, as ``dialect``'s driver takes it: its
    text and parameters (for a connection of the driver's own; it writes one row, or
    none, which :func:`appended` then says why)."""
    statement, values = _input_statement(round_id, seq, entry, lease)
    return statement.for_driver(dialect, values)


def appended(
    conn: sqlalchemy.Connection,
    sent: Sent,
    round_id: str,
    seq: int,
    *,
    fence: Callable[[sqlalchemy.Connection], None] | None = None,
) -> None:
    """Raise as :func:`append_input` does if the input :func:`send_input` sent was not
    written."""
    if sent.ran().rowcount == 1:
        return
    if fence is not None:
        fence(conn)  # first: a table lost says so, whatever else is wrong
    counted = (
        select(sqlalchemy.func.count()).where(round_inputs.c.round_id == round_id).scalar_subquery()
    )
    found = conn.execute(
        select(rounds.c.status, counted).where(rounds.c.id == round_id)
    ).one_or_none()
    if found is None:
        raise NotFound(f"round {round_id!r} does not exist")
    status, stored = found
    if status in _CLOSED:
        raise RoundError(f"round {round_id!r} is closed: no input is added to it")
    if seq != stored:
        raise RoundError(f"round {round_id!r} has {stored} inputs: the next is {stored}, not {seq}")
    raise RoundError(f"input {seq} of round {round_id!r} was not written")  # pragma: no cover


def save_round(
    conn: sqlalchemy.Connection,
    round_id: str,
    *,
    record: RoundRecord,
    status: str,
    now: datetime | None = None,
) -> None:
    """Replace a round's record and status; inputs not stored yet are appended.

    Inputs already stored are never rewritten.  When the round closes (from ``open`` to
    ``settled`` or ``void``), its bets that played, its irregular inputs and its money
    as the ledger's legs of its transactions now hold it are written beside it: close
    it after its settlement, in the same transaction.  :class:`NotFound` if there is no such
    round; :class:`RoundError` for an unknown status, or for a settled or void round
    asked to become something else.
    """
    if status not in ROUND_STATUSES:
        raise RoundError(f"round status {status!r} must be one of {', '.join(ROUND_STATUSES)}")
    text = _header(round_id, record)
    inputs = record.inputs
    found = _CLOSING.run(conn, {"rid": round_id}).all()
    if not found:
        raise NotFound(f"round {round_id!r} does not exist")
    current = found[0].status
    if current in _CLOSED and status != current:
        raise RoundError(f"round {round_id!r} is {current} and cannot become {status}")
    stored = _stored_inputs(conn, round_id)
    _insert_inputs(conn, round_id, stored, inputs[stored:])
    at = now if now is not None else utcnow()
    _SAVE.run(conn, {"rid": round_id, "text": text, "to": status, "at": at})
    if current not in _CLOSED and status in _CLOSED:
        _write_closing(conn, round_id, found[0], status, inputs)


def _write_closing(
    conn: sqlalchemy.Connection,
    round_id: str,
    row: Any,
    status: str,
    inputs: Sequence[RecordedInput],
) -> None:
    """What the back office reads of a round that closes: its bets, its irregular
    inputs, and its money as the ledger's legs of its transactions hold it."""
    # The back office's columns are worked out from the inputs as stored (its
    # migrations work them out for rounds already stored, from their JSON).
    stored = [entry.to_json() for entry in inputs]
    bets = placed_bets(stored)
    if bets:
        _BETS.run_many(
            conn,
            [
                {
                    "round_id": round_id,
                    "seq": bet.seq,
                    "table_id": row.table_id,
                    "rules_name": row.rules_name,
                    "rules_version": row.rules_version,
                    "opened_at": row.created_at,
                    "status": status,
                    "player": bet.player[:40],
                    "box": bet.box,
                    "kind": bet.kind[:40],
                    "units": bet.units,
                    "true_count": row.true_count,
                }
                for bet in bets
            ],
        )
    house = held = 0
    players: dict[int, tuple[int, int]] = {}
    for kind, owner, transaction_kind, units in _MONEY.run(conn, {"rid": round_id}).all():
        if kind == "house":
            house += int(units)
            continue
        net, staked = players.get(int(owner), (0, 0))
        if transaction_kind in ("stake", "refund"):
            staked -= int(units)
            held -= int(units)
        players[int(owner)] = (net + int(units), staked)
    irregular = irregular_inputs(stored)
    _CLOSE_ROUND.run(conn, {"rid": round_id, "irregular": irregular, "house": house, "held": held})
    _CLOSE_PLAYERS.run(
        conn, {"rid": round_id, "tid": row.table_id, "opened": row.created_at, "to": status}
    )
    if players:
        _PLAYER_MONEY.run_many(
            conn,
            [
                {"rid": round_id, "uid": user, "net_units": net, "staked_units": staked}
                for user, (net, staked) in players.items()
            ],
        )


def load_round(conn: sqlalchemy.Connection, round_id: str) -> RoundRow:
    """A stored round.  :class:`NotFound` if there is none."""
    row = conn.execute(select(rounds).where(rounds.c.id == round_id)).one_or_none()
    if row is None:
        raise NotFound(f"round {round_id!r} does not exist")
    return _row(conn, row)


def open_rounds(conn: sqlalchemy.Connection, table_id: str | None = None) -> list[RoundRow]:
    """The rounds still open (of one table, or of all), by table and round number."""
    query = select(rounds).where(rounds.c.status == "open")
    if table_id is not None:
        query = query.where(rounds.c.table_id == table_id)
    query = query.order_by(rounds.c.table_id, rounds.c.number, rounds.c.id)
    return [_row(conn, row) for row in conn.execute(query).all()]


def last_round(conn: sqlalchemy.Connection, table_id: str) -> RoundRow | None:
    """The table's round with the highest number, whatever its status; ``None`` if none."""
    row = conn.execute(
        select(rounds)
        .where(rounds.c.table_id == table_id)
        .order_by(rounds.c.number.desc(), rounds.c.created_at.desc(), rounds.c.id.desc())
        .limit(1)
    ).one_or_none()
    return None if row is None else _row(conn, row)


def recent_rounds(conn: sqlalchemy.Connection, table_id: str, limit: int) -> list[RoundRow]:
    """The table's last ``limit`` rounds, whatever their status, newest first."""
    if limit < 1:
        return []
    query = (
        select(rounds)
        .where(rounds.c.table_id == table_id)
        .order_by(rounds.c.number.desc(), rounds.c.created_at.desc(), rounds.c.id.desc())
        .limit(limit)
    )
    return [_row(conn, row) for row in conn.execute(query).all()]


def _balance_units(amount: Decimal, what: str) -> int:
    units = to_units(amount)
    if units < 0:
        raise InvalidAmount(f"{what} {amount} is negative")
    return units


def join_round(
    conn: sqlalchemy.Connection,
    round_id: str,
    user_id: int,
    balance_before: Decimal | None = None,
) -> None:
    """Record that a user plays a round, with his balance before it (idempotent):
    ``balance_before``, or where it is ``None`` his balance as it stands, read in the
    same statement (before his stake on the round moves it).

    A second call for the same round and user changes nothing.
    """
    sent = send_join(conn, round_id, user_id, balance_before)
    joined(conn, sent, round_id, user_id, balance_before)


def send_join(
    conn: sqlalchemy.Connection,
    round_id: str,
    user_id: int,
    balance_before: Decimal | None = None,
) -> Sent:
    """The statement of :func:`join_round`, sent (in a :func:`~croupier.server.driver.
    pipeline`, with others); :func:`joined` finishes what it did not do."""
    given = (
        {}
        if balance_before is None
        else {"units": _balance_units(balance_before, "balance before")}
    )
    # One statement when the round and the user exist; :func:`joined` says which not.
    statement = _join_statement(conn.dialect.name, balance_now=balance_before is None)
    return statement.send(conn, {"rid": round_id, "who": user_id, **given})


def joined(
    conn: sqlalchemy.Connection,
    sent: Sent,
    round_id: str,
    user_id: int,
    balance_before: Decimal | None = None,
) -> None:
    """Finish the join :func:`send_join` sent (with the same ``balance_before``):
    nothing to do where it wrote its row; else :class:`NotFound` for a round or a user
    that does not exist, and his row where he has none yet."""
    if sent.ran().rowcount == 1:
        return
    _status(conn, round_id)
    known = conn.execute(select(users.c.id).where(users.c.id == user_id)).first()
    if known is None:
        raise NotFound(f"user {user_id} does not exist")
    joined = conn.execute(
        select(round_players.c.user_id).where(
            round_players.c.round_id == round_id, round_players.c.user_id == user_id
        )
    ).first()
    if joined is None:
        if balance_before is None:
            units = to_units(balance(conn, user_id))
        else:
            units = _balance_units(balance_before, "balance before")
        conn.execute(
            round_players.insert().values(
                round_id=round_id, user_id=user_id, balance_before=units, balance_after=None
            )
        )


def finish_round_player(
    conn: sqlalchemy.Connection, round_id: str, user_id: int, balance_after: Decimal
) -> None:
    """Record a player's balance after a round.  :class:`NotFound` if he did not join it."""
    finish_round_players(conn, round_id, {user_id: balance_after})


def finish_round_players(
    conn: sqlalchemy.Connection, round_id: str, balances_after: dict[int, Decimal]
) -> None:
    """Record several players' balances after a round (one statement, run for each:
    a round trip in all on PostgreSQL), as :func:`finish_round_player` does for one."""
    if not balances_after:
        return
    rows = [
        {"rid": round_id, "uid": user, "after": _balance_units(after, "balance after")}
        for user, after in sorted(balances_after.items())
    ]
    if _FINISH_PLAYER.run_many(conn, rows) != len(rows):
        joined = {
            user
            for (user,) in conn.execute(
                select(round_players.c.user_id).where(round_players.c.round_id == round_id)
            )
        }
        missing = sorted(set(balances_after) - joined)
        if missing:
            raise NotFound(f"user {missing[0]} did not join round {round_id!r}")


def player_rounds(
    conn: sqlalchemy.Connection, user_id: int, limit: int = 10
) -> list[tuple[PlayedRound, Decimal, Decimal | None]]:
    """A user's latest rounds, newest first: (round, balance before, balance after).

    Read from the rounds' columns alone: a list of rounds neither reads nor parses
    their records and inputs (recall does, one round at a time).
    """
    if limit < 1:
        return []
    query = (
        select(
            rounds.c.id,
            rounds.c.table_id,
            rounds.c.number,
            rounds.c.rules_name,
            rounds.c.rules_version,
            rounds.c.status,
            round_players.c.balance_before,
            round_players.c.balance_after,
        )
        .join(round_players, round_players.c.round_id == rounds.c.id)
        .where(round_players.c.user_id == user_id)
        .order_by(rounds.c.created_at.desc(), rounds.c.number.desc(), rounds.c.id.desc())
        .limit(limit)
    )
    return [
        (
            PlayedRound(
                row.id, row.table_id, row.number, row.rules_name, row.rules_version, row.status
            ),
            from_units(row.balance_before),
            None if row.balance_after is None else from_units(row.balance_after),
        )
        for row in conn.execute(query).all()
    ]


def round_balances(
    conn: sqlalchemy.Connection, round_id: str, user_id: int
) -> tuple[Decimal, Decimal | None] | None:
    """A player's balance before and after a round; ``None`` if he did not join it."""
    row = conn.execute(
        select(round_players.c.balance_before, round_players.c.balance_after).where(
            round_players.c.round_id == round_id, round_players.c.user_id == user_id
        )
    ).one_or_none()
    if row is None:
        return None
    after = None if row.balance_after is None else from_units(row.balance_after)
    return from_units(row.balance_before), after
