"""The wallet: double-entry books of play-money chips.

Every account is a row of ``accounts``: one per player (kind ``player``, owner the
user id), one per round (kind ``round``, owner the round id: the money on that
round's table), one ``house`` and one ``issuer`` (the source of play-money chips).
Only the house and the issuer may go below zero.

Every movement is a transaction whose legs sum to zero; the cached balances are
updated in the same database transaction as the legs.  The functions take a
:class:`sqlalchemy.Connection` that the caller holds inside a transaction (``with
engine.begin() as conn:``) and never commit: a movement is atomic with the caller's
own writes.  A refused movement (an error raised) leaves nothing behind even if the
caller goes on and commits: a bet or a refund checks everything before it writes (and
makes a missing account in a savepoint), the other movements run inside a savepoint.

Each movement carries an idempotency key: repeating a request with the same key moves
nothing and answers the same transaction id; reusing a key for another request is an
:class:`~croupier.server.errors.IdempotencyConflict`.

Amounts are :class:`~decimal.Decimal`, stored as integers of :data:`UNIT`:

>>> to_units(Decimal("12.50"))
1250
>>> from_units(1250)
Decimal('12.50')
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

import sqlalchemy
from sqlalchemy import bindparam, exists, func, insert, select, update

from croupier.server.db import (
    ANY_OF_MOST,
    in_chunks,
    insert_ignoring_for,
    unindexed,
    utcnow,
)
from croupier.server.driver import Prepared, Sent
from croupier.server.errors import (
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    LedgerError,
)
from croupier.server.schema import accounts, legs, rounds, transactions

__all__ = [
    "UNIT",
    "MoveReads",
    "Movement",
    "balance",
    "balances",
    "check",
    "close_round",
    "from_units",
    "grant",
    "history",
    "house_account",
    "issuer_account",
    "last_transaction",
    "player_account",
    "refund",
    "round_account",
    "round_stakes",
    "send_move_reads",
    "session_totals",
    "stake",
    "to_units",
]

UNIT = Decimal("0.01")
"""The smallest amount of money: the database stores amounts as integers of it."""

_MAX_UNITS = 2**63 - 1  # a BigInteger column
_MAX_KEY = 200
_MAX_MEMO = 200
_CLOSING_KINDS = ("settle", "void")


@dataclass(frozen=True)
class Movement:
    """One transaction as one player's statement shows it."""

    transaction_id: int
    kind: str
    round_id: str | None
    amount: Decimal
    """Signed: positive when money came into the player's account."""
    balance_after: Decimal
    created_at: datetime
    memo: str


# -- amounts -----------------------------------------------------------------------


def to_units(amount: Decimal) -> int:
    """The whole number of :data:`UNIT` in ``amount`` (any sign).

    >>> to_units(Decimal("-3"))
    -300
    >>> to_units(Decimal("0.005"))
    Traceback (most recent call last):
    ...
    croupier.server.errors.InvalidAmount: amount 0.005 is not a whole number of units of 0.01
    >>> to_units(0.5)
    Traceback (most recent call last):
    ...
    croupier.server.errors.InvalidAmount: amount 0.5 is a float, not a Decimal
    """
    if isinstance(amount, bool) or not isinstance(amount, Decimal | int):
        raise InvalidAmount(f"amount {amount!r} is a {type(amount).__name__}, not a Decimal")
    value = Decimal(amount)
    if not value.is_finite():
        raise InvalidAmount(f"amount {value} is not a finite number")
    numerator, denominator = value.as_integer_ratio()
    unit_numerator, unit_denominator = UNIT.as_integer_ratio()
    units, remainder = divmod(numerator * unit_denominator, denominator * unit_numerator)
    if remainder:
        raise InvalidAmount(f"amount {value} is not a whole number of units of {UNIT}")
    if abs(units) > _MAX_UNITS:
        raise InvalidAmount(f"amount {value} is too large to store")
    return units


def from_units(units: int) -> Decimal:
    """The amount of ``units`` of :data:`UNIT`.

    >>> from_units(-5)
    Decimal('-0.05')
    """
    return Decimal(units) * UNIT


def _positive_units(amount: Decimal, what: str) -> int:
    units = to_units(amount)
    if units <= 0:
        raise InvalidAmount(f"{what} amount {amount} is not positive")
    return units


# -- accounts ----------------------------------------------------------------------


_FIND_ACCOUNT = Prepared(
    select(accounts.c.id).where(
        accounts.c.kind == bindparam("kind"), accounts.c.owner == bindparam("owner")
    )
)


@functools.cache
def _new_account_statement(dialect: str) -> Prepared:
    return Prepared(insert_ignoring_for(dialect, accounts, ("kind", "owner")))


def _find_account(conn: sqlalchemy.Connection, kind: str, owner: str) -> int | None:
    found: int | None = _FIND_ACCOUNT.run(conn, {"kind": kind, "owner": owner}).scalar()
    return found


def _account(conn: sqlalchemy.Connection, kind: str, owner: str) -> int:
    found = _find_account(conn, kind, owner)
    if found is not None:
        return found
    _new_account_statement(conn.dialect.name).run(
        conn, {"kind": kind, "owner": owner, "balance": 0}
    )
    created = _find_account(conn, kind, owner)
    if created is None:
        raise LedgerError(f"account {kind} {owner!r} could not be created")
    return created


def player_account(conn: sqlalchemy.Connection, user_id: int) -> int:
    """The id of a user's player account, created (empty) if he has none yet."""
    return _account(conn, "player", str(user_id))


def round_account(conn: sqlalchemy.Connection, round_id: str) -> int:
    """The id of a round's account (the money on its table), created if missing."""
    _check_round_id(round_id)
    return _account(conn, "round", round_id)


def open_round_account(conn: sqlalchemy.Connection, round_id: str) -> None:
    """Make the (empty) account of a round being opened, in one statement (nothing if
    it has one already): its first stake then finds both accounts to lock, where it
    would make this one in a savepoint of its own, five statements more.

    >>> engine = sqlalchemy.create_engine("sqlite://")
    >>> from croupier.server.schema import metadata
    >>> metadata.create_all(engine)
    >>> with engine.begin() as conn:
    ...     open_round_account(conn, "t1-7")
    ...     open_round_account(conn, "t1-7")  # there already: nothing
    ...     conn.execute(sqlalchemy.select(accounts.c.kind, accounts.c.owner)).all()
    [('round', 't1-7')]
    """
    _check_round_id(round_id)
    _new_account_statement(conn.dialect.name).run(
        conn, {"kind": "round", "owner": round_id, "balance": 0}
    )


def _check_round_id(round_id: str) -> None:
    if not round_id or len(round_id) > 64:
        raise LedgerError(f"round id {round_id!r} must have 1 to 64 characters")


def house_account(conn: sqlalchemy.Connection, table: str = "") -> int:
    """The id of the house's account at ``table`` (the house's money is the sum of its
    accounts: one per table, so that no row is shared by every table's settlement)."""
    return _account(conn, "house", table)


def issuer_account(conn: sqlalchemy.Connection) -> int:
    """The id of the issuer's account, the source of play-money chips."""
    return _account(conn, "issuer", "")


def balance(conn: sqlalchemy.Connection, user_id: int) -> Decimal:
    """A user's balance (zero if he has no account yet)."""
    return balances(conn, [user_id])[user_id]


def balances(conn: sqlalchemy.Connection, user_ids: Iterable[int]) -> dict[int, Decimal]:
    """Several users' balances in one query (zero for one with no account yet)."""
    wanted = sorted(set(user_ids))
    if not wanted:
        return {}
    found: dict[int, int] = {}
    for chunk in in_chunks(wanted):
        rows = _balances_statement(len(chunk)).run(
            conn, {f"owner{index}": str(user) for index, user in enumerate(chunk)}
        )
        found.update((int(row.owner), int(row.balance)) for row in rows.all())
    return {user: from_units(found.get(user, 0)) for user in wanted}


# -- transactions ------------------------------------------------------------------


def _request_hash(request: Mapping[str, object]) -> str:
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _check_key(idempotency_key: str, memo: str) -> None:
    if not idempotency_key or len(idempotency_key) > _MAX_KEY:
        raise LedgerError(
            f"idempotency key {idempotency_key!r} must have 1 to {_MAX_KEY} characters"
        )
    if len(memo) > _MAX_MEMO:
        raise LedgerError(f"memo {memo[:40]!r}... is longer than {_MAX_MEMO} characters")


def _existing(conn: sqlalchemy.Connection, key: str, request_hash: str) -> int | None:
    """The transaction already made with ``key``, if it was this same request."""
    row = conn.execute(
        select(transactions.c.id, transactions.c.request_hash).where(
            transactions.c.idempotency_key == key
        )
    ).one_or_none()
    if row is None:
        return None
    if row.request_hash != request_hash:
        raise IdempotencyConflict(
            f"idempotency key {key!r} was already used by transaction {row.id} "
            "for a different request"
        )
    found: int = row.id
    return found


def _lock(conn: sqlalchemy.Connection, account_ids: Iterable[int]) -> dict[int, int]:
    """Lock the accounts (in id order, so that no two writers deadlock); their balances.

    PostgreSQL takes row locks; SQLite ignores ``FOR UPDATE``, its ``BEGIN IMMEDIATE``
    already serializes writers.
    """
    locked: dict[int, int] = {}
    for chunk in in_chunks(sorted(set(account_ids))):  # in id order across the chunks too
        rows = _lock_statement(len(chunk)).run(
            conn, {f"id{index}": account for index, account in enumerate(chunk)}
        )
        locked.update((row.id, row.balance) for row in rows.all())
    return locked


# The statements of every stake, built once (per count of accounts where it varies):
# building one costs more of the server's time than running it.
#
# Each closing kind a term of its own beside the key, (round_id, kind) in each: every
# term is then one look in an index (SQLite's OR by several indexes, PostgreSQL's
# BitmapOr), and a round's stakes are never read (a crowd behind makes a thousand).
_KEY_OR_CLOSING = Prepared(
    select(transactions.c.id, transactions.c.idempotency_key, transactions.c.request_hash)
    .where(
        sqlalchemy.or_(
            transactions.c.idempotency_key == bindparam("key"),
            *(
                sqlalchemy.and_(
                    transactions.c.round_id == bindparam("rid"), transactions.c.kind == kind
                )
                for kind in _CLOSING_KINDS
            ),
        )
    )
    .order_by(transactions.c.id)
)


@functools.lru_cache(maxsize=128)
def _legs_statement(count: int) -> Prepared:
    """A transaction's ``count`` legs in one ``INSERT`` (one statement, where the
    driver's ``executemany`` enters a pipeline for each): transaction ``tid``, accounts
    ``account{i}`` and amounts ``amount{i}``."""
    return Prepared(
        insert(legs).values(
            [
                {
                    "transaction_id": bindparam("tid", type_=sqlalchemy.Integer),
                    "account_id": bindparam(f"account{index}", type_=sqlalchemy.Integer),
                    "amount": bindparam(f"amount{index}", type_=sqlalchemy.BigInteger),
                }
                for index in range(count)
            ]
        )
    )


def _owned(count: int) -> sqlalchemy.ColumnElement[bool]:
    return sqlalchemy.or_(
        *(
            sqlalchemy.and_(
                accounts.c.kind == bindparam(f"kind{index}"),
                accounts.c.owner == bindparam(f"owner{index}"),
            )
            for index in range(count)
        )
    )


@functools.lru_cache(maxsize=64)
def _lock_statement(count: int) -> Prepared:
    """Lock the accounts ``id{i}``, in id order; their balances."""
    ids = (accounts.c.id == bindparam(f"id{index}") for index in range(count))
    return Prepared(
        select(accounts.c.id, accounts.c.balance)
        .where(sqlalchemy.or_(*ids))
        .order_by(accounts.c.id)
        .with_for_update()
    )


@functools.lru_cache(maxsize=64)
def _lock_owned_statement(count: int) -> Prepared:
    return Prepared(
        select(accounts.c.id, accounts.c.kind, accounts.c.owner, accounts.c.balance)
        .where(_owned(count))
        .order_by(accounts.c.id)
        .with_for_update()
    )


@functools.lru_cache(maxsize=64)
def _owned_statement(count: int) -> Prepared:
    return Prepared(select(accounts.c.id, accounts.c.kind, accounts.c.owner).where(_owned(count)))


@functools.lru_cache(maxsize=64)
def _balances_statement(count: int) -> Prepared:
    owners = (accounts.c.owner == bindparam(f"owner{index}") for index in range(count))
    return Prepared(
        select(accounts.c.owner, accounts.c.balance).where(
            accounts.c.kind == "player", sqlalchemy.or_(*owners)
        )
    )


@functools.lru_cache(maxsize=64)
def _move_statement(count: int) -> Prepared:
    """Add ``amount{i}`` to the balance of account ``account{i}``, for each ``i``."""
    return Prepared(_moved(count))


def _moved(count: int) -> sqlalchemy.Update:
    """The ``UPDATE`` of :func:`_move_statement`."""
    accounts_ = [bindparam(f"account{index}", type_=sqlalchemy.Integer) for index in range(count)]
    amounts = [bindparam(f"amount{index}", type_=sqlalchemy.BigInteger) for index in range(count)]
    return (
        update(accounts)
        .where(sqlalchemy.or_(*(accounts.c.id == account for account in accounts_)))
        .values(
            balance=accounts.c.balance
            + sqlalchemy.case(
                *(
                    (accounts.c.id == account, amount)
                    for account, amount in zip(accounts_, amounts, strict=True)
                )
            )
        )
    )


@functools.lru_cache(maxsize=128)
def _movement_statement(count: int) -> Prepared:
    """PostgreSQL: a transaction, its ``count`` legs and the new cached balances in one
    statement (the legs and the balances only once the transaction is written: with
    its key taken already, nothing moves); the transaction's id, or no row.

    Its parameters are :func:`_transaction_statement`'s, and ``account{i}`` and
    ``amount{i}`` for each leg.  One round trip where three made it.
    """
    columns = ("idempotency_key", "kind", "round_id", "request_hash", "memo", "created_at")
    made = (
        insert_ignoring_for("postgresql", transactions, ("idempotency_key",))
        .values({name: bindparam(name, type_=transactions.c[name].type) for name in columns})
        .returning(transactions.c.id)
        .cte("made")
    )
    moves = (
        sqlalchemy.values(
            sqlalchemy.column("account_id", sqlalchemy.Integer),
            sqlalchemy.column("amount", sqlalchemy.BigInteger),
            name="moves",
        )
        .data(
            [
                (
                    bindparam(f"account{index}", type_=sqlalchemy.Integer),
                    bindparam(f"amount{index}", type_=sqlalchemy.BigInteger),
                )
                for index in range(count)
            ]
        )
        .cte("moves")
    )
    legs_made = (
        insert(legs)
        .from_select(
            ["transaction_id", "account_id", "amount"],
            select(made.c.id, moves.c.account_id, moves.c.amount),
        )
        .cte("legs_made")
    )
    # Each account by its id (a look in the primary key, as _move_statement does): a
    # join with the moves would have the planner read every account.
    balances_moved = _moved(count).where(exists(select(made.c.id))).cte("balances_moved")
    return Prepared(select(made.c.id).add_cte(legs_made, balances_moved))


@functools.cache
def _transaction_statement(dialect: str) -> Prepared:
    return Prepared(
        insert_ignoring_for(dialect, transactions, ("idempotency_key",)).returning(
            transactions.c.id
        )
    )


def _open_round_or_found(
    conn: sqlalchemy.Connection,
    key: str,
    request_hash: str,
    round_id: str,
    sent: Sent | None = None,
) -> int | None:
    """The transaction already made with ``key`` (a retry moves nothing); else ``None``,
    once the round is known to be open (:class:`LedgerError` if it was closed)."""
    found, closing = _existing_or_closing(conn, key, request_hash, round_id, sent)
    if found is None and closing is not None:
        raise LedgerError(f"round {round_id!r} was already closed by transaction {closing}")
    return found


def _lock_owned(
    conn: sqlalchemy.Connection, owners: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], tuple[int, int]]:
    """Find and lock the accounts of these (kind, owner) pairs in one query, in id order
    as :func:`_lock` does; each found one's (id, balance)."""
    owners = list(owners)
    if len(owners) > ANY_OF_MOST:
        # Too many for one statement: their ids first, then locked in id order, so
        # that no two writers lock them in different orders (and deadlock).
        ids = _account_ids(conn, owners)
        balances = _lock(conn, ids.values())
        return {owner: (found, balances[found]) for owner, found in ids.items()}
    return _locked(_send_lock_owned(conn, owners))


def _send_lock_owned(conn: sqlalchemy.Connection, owners: list[tuple[str, str]]) -> Sent:
    """The statement of :func:`_lock_owned` for a few owners, sent; :func:`_locked` reads it."""
    parameters = {}
    for index, (kind, owner) in enumerate(owners):
        parameters[f"kind{index}"], parameters[f"owner{index}"] = kind, owner
    return _lock_owned_statement(len(owners)).send(conn, parameters)


def _locked(sent: Sent) -> dict[tuple[str, str], tuple[int, int]]:
    return {(row.kind, row.owner): (row.id, row.balance) for row in sent.ran().all()}


def _account_ids(
    conn: sqlalchemy.Connection, owners: list[tuple[str, str]]
) -> dict[tuple[str, str], int]:
    """The ids of the accounts of these (kind, owner) pairs that exist (not locked)."""
    found: dict[tuple[str, str], int] = {}
    for chunk in in_chunks(owners):
        parameters = {}
        for index, (kind, owner) in enumerate(chunk):
            parameters[f"kind{index}"], parameters[f"owner{index}"] = kind, owner
        rows = _owned_statement(len(chunk)).run(conn, parameters).all()
        found.update(((row.kind, row.owner), row.id) for row in rows)
    return found


def _existing_or_closing(
    conn: sqlalchemy.Connection,
    key: str,
    request_hash: str,
    round_id: str,
    sent: Sent | None = None,
) -> tuple[int | None, int | None]:
    """In one query: the transaction already made with ``key`` (if it was this same
    request, as :func:`_existing`), and the first transaction that closed the round
    (``sent``: that query, sent ahead)."""
    if sent is None:
        sent = _KEY_OR_CLOSING.send(conn, {"key": key, "rid": round_id})
    rows = sent.ran().all()
    closing = None
    for row in rows:
        if row.idempotency_key == key:
            if row.request_hash != request_hash:
                raise IdempotencyConflict(
                    f"idempotency key {key!r} was already used by transaction {row.id} "
                    "for a different request"
                )
            found: int = row.id
            return found, None
        if closing is None:
            closing = row.id
    return None, closing


def _record(
    conn: sqlalchemy.Connection,
    *,
    key: str,
    kind: str,
    request_hash: str,
    round_id: str | None,
    memo: str,
    deltas: Mapping[int, int],
) -> int:
    """Write the transaction, its legs and the new cached balances; the transaction id."""
    if sum(deltas.values()) != 0:
        raise LedgerError(f"{kind} transaction legs {dict(deltas)} do not sum to zero")
    made: dict[str, object] = {
        "idempotency_key": key,
        "kind": kind,
        "round_id": round_id,
        "request_hash": request_hash,
        "memo": memo,
        "created_at": utcnow(),
    }
    moves = [(account, amount) for account, amount in sorted(deltas.items()) if amount]
    chunks = list(in_chunks(moves))
    together = conn.dialect.name == "postgresql" and len(chunks) == 1
    if together:
        # On PostgreSQL the transaction, its legs and the balances are one statement.
        made.update(_moves_parameters(chunks[0]))
        inserted = _movement_statement(len(chunks[0])).run(conn, made).scalar()
    else:
        inserted = _transaction_statement(conn.dialect.name).run(conn, made).scalar()
    if inserted is None:
        # A concurrent request with the same key committed first: move nothing.
        existing = _existing(conn, key, request_hash)
        if existing is None:
            raise LedgerError(f"idempotency key {key!r} conflicted but names no transaction")
        return existing
    transaction_id: int = inserted
    # Elsewhere the legs, then every cached balance, each in one statement (a hundred
    # at a time).
    for chunk in [] if together else chunks:
        parameters = _moves_parameters(chunk)
        _legs_statement(len(chunk)).run(conn, {"tid": transaction_id, **parameters})
        _move_statement(len(chunk)).run(conn, parameters)
    _note_movement(
        conn,
        {
            "transaction": transaction_id,
            "kind": kind,
            "round": round_id,
            "memo": memo,
            "legs": {str(account): str(from_units(amount)) for account, amount in moves},
        },
    )
    return transaction_id


def _moves_parameters(moves: list[tuple[int, int]]) -> dict[str, int]:
    """``account{i}`` and ``amount{i}`` of each of ``moves`` (an account, its amount)."""
    parameters: dict[str, int] = {}
    for index, (account, amount) in enumerate(moves):
        parameters[f"account{index}"], parameters[f"amount{index}"] = account, amount
    return parameters


def grant(
    conn: sqlalchemy.Connection,
    user_id: int,
    amount: Decimal,
    *,
    idempotency_key: str,
    memo: str = "play-money chips",
) -> int:
    """Give a user play-money chips from the issuer; the transaction id."""
    units = _positive_units(amount, "grant")
    _check_key(idempotency_key, memo)
    request_hash = _request_hash({"kind": "grant", "user": user_id, "amount": units})
    with conn.begin_nested():
        found = _existing(conn, idempotency_key, request_hash)
        if found is not None:
            return found
        player = player_account(conn, user_id)
        issuer = issuer_account(conn)
        _lock(conn, [player, issuer])
        found = _existing(conn, idempotency_key, request_hash)
        if found is not None:
            return found
        return _record(
            conn,
            key=idempotency_key,
            kind="grant",
            request_hash=request_hash,
            round_id=None,
            memo=memo,
            deltas={issuer: -units, player: units},
        )


def _move_on_round(
    conn: sqlalchemy.Connection,
    kind: str,
    user_id: int,
    round_id: str,
    amount: Decimal,
    *,
    idempotency_key: str,
    memo: str,
    refuse: Callable[[dict[int, int], int, int, int], None],
    onto_table: bool,
    reads: MoveReads | None = None,
    after: dict[int, Decimal] | None = None,
) -> int:
    """Move ``amount`` between a user's account and a round's, once per key.

    ``refuse(balances, player, table, units)`` raises when the movement may not
    happen; it runs with both accounts locked and the round known to be open.
    ``reads``: the movement's reads, sent ahead (:func:`send_move_reads`); ``after``:
    where the user's balance after the movement goes (by his id), as the lock read it
    and the movement changed it: no read of its own.
    """
    units = _positive_units(amount, kind)
    _check_key(idempotency_key, memo)
    _check_round_id(round_id)
    request_hash = _request_hash(
        {"kind": kind, "user": user_id, "round": round_id, "amount": units}
    )
    owners = _move_owners(user_id, round_id)
    if reads is not None and reads.of != (user_id, round_id, idempotency_key):
        raise ValueError(f"the reads sent ahead are {reads.of}'s, not this movement's")
    move = functools.partial(
        _move_locked,
        conn,
        kind=kind,
        owners=owners,
        round_id=round_id,
        units=units,
        key=idempotency_key,
        request_hash=request_hash,
        memo=memo,
        refuse=refuse,
        onto_table=onto_table,
        user_id=user_id,
        after=after,
    )
    locked = _lock_owned(conn, owners) if reads is None else _locked(reads.locked)
    if len(locked) < len(owners):
        # A new account to make first: in a savepoint, so that a refusal leaves none.
        with conn.begin_nested():
            player_account(conn, user_id)
            round_account(conn, round_id)
            return move(_lock_owned(conn, owners))
    # Every check comes before the first write: a refusal leaves nothing to undo.
    return move(locked, keys=None if reads is None else reads.keys)


def _move_owners(user_id: int, round_id: str) -> list[tuple[str, str]]:
    """The accounts a movement between a player and a round locks, in that order."""
    return [("player", str(user_id)), ("round", round_id)]


@dataclass(frozen=True)
class MoveReads:
    """The reads of a movement between a player and a round (a stake, a refund), sent
    ahead by :func:`send_move_reads`: its two accounts, locked, and the transactions
    its key or the round's close already made."""

    #: The movement they are for: the user, the round and the idempotency key.
    of: tuple[int, str, str]
    locked: Sent
    keys: Sent


def send_move_reads(
    conn: sqlalchemy.Connection, user_id: int, round_id: str, *, idempotency_key: str
) -> MoveReads:
    """Send the reads of the stake or refund of ``user_id`` on ``round_id`` with
    ``idempotency_key`` (in a :func:`~croupier.server.driver.pipeline`, with a table's
    input, so that they cost no round trip of their own); give them to :func:`stake`
    or :func:`refund`.  The accounts are locked in the order :func:`_lock_owned` locks
    them, and the key read after them, as the movement itself does."""
    return MoveReads(
        (user_id, round_id, idempotency_key),
        _send_lock_owned(conn, _move_owners(user_id, round_id)),
        _KEY_OR_CLOSING.send(conn, {"key": idempotency_key, "rid": round_id}),
    )


def _move_locked(
    conn: sqlalchemy.Connection,
    locked: Mapping[tuple[str, str], tuple[int, int]],
    *,
    kind: str,
    owners: list[tuple[str, str]],
    round_id: str,
    units: int,
    key: str,
    request_hash: str,
    memo: str,
    refuse: Callable[[dict[int, int], int, int, int], None],
    onto_table: bool,
    user_id: int,
    after: dict[int, Decimal] | None,
    keys: Sent | None = None,
) -> int:
    """The movement of :func:`_move_on_round` once both accounts are locked."""
    (player, player_units), (table, table_units) = (locked[owner] for owner in owners)
    found = _open_round_or_found(conn, key, request_hash, round_id, keys)
    if found is not None:
        # Done before (a retry): the balance is as the lock read it.
        if after is not None:
            after[user_id] = from_units(player_units)
        return found
    refuse({player: player_units, table: table_units}, player, table, units)
    sign = 1 if onto_table else -1
    made = _record(
        conn,
        key=key,
        kind=kind,
        request_hash=request_hash,
        round_id=round_id,
        memo=memo,
        deltas={player: -sign * units, table: sign * units},
    )
    if after is not None:
        # The account was locked before the read of its balance: only this changed it.
        after[user_id] = from_units(player_units - sign * units)
    return made


def stake(
    conn: sqlalchemy.Connection,
    user_id: int,
    round_id: str,
    amount: Decimal,
    *,
    idempotency_key: str,
    memo: str,
    reads: MoveReads | None = None,
    after: dict[int, Decimal] | None = None,
) -> int:
    """Move a bet from a user's account onto a round's table; the transaction id.

    Raises :class:`~croupier.server.errors.InsufficientFunds` if the user's balance
    is short, and :class:`~croupier.server.errors.LedgerError` if the round is closed.
    ``reads``: its reads, sent ahead by :func:`send_move_reads`; ``after``: where the
    user's balance after it goes, by his id (read with the accounts' lock: no query of
    its own).
    """

    def refuse(balances: dict[int, int], player: int, table: int, units: int) -> None:
        if balances[player] < units:
            raise InsufficientFunds(
                f"user {user_id} has a balance of {from_units(balances[player])}, "
                f"less than the stake of {from_units(units)} on round {round_id!r}"
            )

    return _move_on_round(
        conn,
        "stake",
        user_id,
        round_id,
        amount,
        idempotency_key=idempotency_key,
        memo=memo,
        refuse=refuse,
        onto_table=True,
        reads=reads,
        after=after,
    )


def refund(
    conn: sqlalchemy.Connection,
    user_id: int,
    round_id: str,
    amount: Decimal,
    *,
    idempotency_key: str,
    memo: str,
    reads: MoveReads | None = None,
    after: dict[int, Decimal] | None = None,
) -> int:
    """Give back (part of) a user's bet on a round before the deal; the transaction id.

    Never more than the user has on that round, nor than the round account holds
    (:class:`~croupier.server.errors.InsufficientFunds`).  ``reads``, ``after``: as
    :func:`stake`.
    """

    def refuse(balances: dict[int, int], player: int, table: int, units: int) -> None:
        staked = _stake_units(conn, round_id).get(user_id, 0)
        if staked < units:
            raise InsufficientFunds(
                f"refund of {from_units(units)} to user {user_id} exceeds his stake of "
                f"{from_units(staked)} on round {round_id!r}"
            )
        if balances[table] < units:
            raise InsufficientFunds(
                f"refund of {from_units(units)} exceeds the balance of "
                f"{from_units(balances[table])} of round {round_id!r}"
            )

    return _move_on_round(
        conn,
        "refund",
        user_id,
        round_id,
        amount,
        idempotency_key=idempotency_key,
        memo=memo,
        refuse=refuse,
        onto_table=False,
        reads=reads,
        after=after,
    )


def _format_units(by_user: Mapping[int, int]) -> str:
    parts = (f"user {user}: {from_units(units)}" for user, units in sorted(by_user.items()))
    return "{" + ", ".join(parts) + "}"


def close_round(
    conn: sqlalchemy.Connection,
    round_id: str,
    returns: Mapping[int, Decimal],
    *,
    idempotency_key: str,
    void: bool,
    table: str = "",
) -> int:
    """Pay out a round in one transaction and empty its account; the transaction id.

    ``returns`` gives each user's total return (stake plus winnings; zero or omitted
    for a lost bet).  The house takes what is left on the table, or pays what is
    missing.  A void round (``void=True``) must return exactly each user's net stake
    and has no house leg.  A round closes once: closing it again with another key is
    a :class:`~croupier.server.errors.LedgerError`.  The house's leg goes to its account
    at ``table`` (:func:`house_account`).
    """
    kind = "void" if void else "settle"
    paid: dict[int, int] = {}
    for user_id, amount in returns.items():
        units = to_units(amount)
        if units < 0:
            raise InvalidAmount(f"return {amount} to user {user_id} is negative")
        if units:
            paid[int(user_id)] = units
    _check_key(idempotency_key, "")
    request_hash = _request_hash(
        {
            "kind": kind,
            "round": round_id,
            "returns": {str(user): units for user, units in sorted(paid.items())},
        }
    )
    _check_round_id(round_id)
    owners = [
        ("round", round_id),
        ("house", table),
        *(("player", str(user)) for user in sorted(paid)),
    ]
    with conn.begin_nested():
        # Every account found and locked in one query (made first where one is missing).
        locked = _lock_owned(conn, owners)
        if len(locked) < len(owners):
            round_account(conn, round_id)
            house_account(conn, table)
            for user in paid:
                player_account(conn, user)
            locked = _lock_owned(conn, owners)
        on_round, house = locked["round", round_id][0], locked["house", table][0]
        players = {user: locked["player", str(user)][0] for user in sorted(paid)}
        balances = {account: units for account, units in locked.values()}
        found = _open_round_or_found(conn, idempotency_key, request_hash, round_id)
        if found is not None:
            return found
        staked = _stake_units(conn, round_id)
        for user in paid:
            if staked.get(user, 0) <= 0:
                raise LedgerError(f"user {user} has no stake on round {round_id!r} to return")
        held = balances[on_round]
        total = sum(paid.values())
        if void and paid != staked:
            raise LedgerError(
                f"void of round {round_id!r} must return exactly the stakes "
                f"{_format_units(staked)}, not {_format_units(paid)}"
            )
        if void and total != held:
            raise LedgerError(
                f"round {round_id!r} holds {from_units(held)} but its stakes total "
                f"{from_units(total)}"
            )
        deltas: dict[int, int] = {on_round: -held}
        deltas.update({players[user]: units for user, units in paid.items()})
        if not void:
            deltas[house] = held - total
        return _record(
            conn,
            key=idempotency_key,
            kind=kind,
            request_hash=request_hash,
            round_id=round_id,
            memo=f"{kind} round {round_id}",
            deltas=deltas,
        )


def _player_leg_sums(
    conn: sqlalchemy.Connection, round_id: str | None = None, kinds: Iterable[str] = ()
) -> dict[tuple[str, int], int]:
    """Sum of player-account legs per (round, user) over the round's transactions."""
    total = func.sum(legs.c.amount)
    query = (
        select(transactions.c.round_id, accounts.c.owner, total.label("total"))
        .select_from(
            legs.join(accounts, legs.c.account_id == accounts.c.id).join(
                transactions, legs.c.transaction_id == transactions.c.id
            )
        )
        .where(accounts.c.kind == "player", transactions.c.round_id.is_not(None))
        .group_by(transactions.c.round_id, accounts.c.owner)
    )
    if round_id is not None:
        query = query.where(transactions.c.round_id == round_id)
    kinds = tuple(kinds)
    if kinds:
        query = query.where(transactions.c.kind.in_(kinds))
    return {(row.round_id, int(row.owner)): int(row.total) for row in conn.execute(query)}


_ROUND_STAKES = Prepared(
    select(accounts.c.owner, func.sum(legs.c.amount).label("total"))
    .select_from(
        legs.join(accounts, legs.c.account_id == accounts.c.id).join(
            transactions, legs.c.transaction_id == transactions.c.id
        )
    )
    # The round's transactions lead (their index), not every player's account.
    .where(unindexed(accounts.c.kind) == "player", transactions.c.round_id == bindparam("rid"))
    .group_by(accounts.c.owner)
)


def _stake_units(conn: sqlalchemy.Connection, round_id: str) -> dict[int, int]:
    """Each user's net stake on the round (what his account's legs on it took)."""
    rows = _ROUND_STAKES.run(conn, {"rid": round_id}).all()
    return {int(row.owner): -int(row.total) for row in rows if row.total}


def round_stakes(conn: sqlalchemy.Connection, round_id: str) -> dict[int, Decimal]:
    """Per user, the money he has put on a round's table net of refunds and returns.

    Users whose net is zero are left out.
    """
    return {user: from_units(units) for user, units in _stake_units(conn, round_id).items()}


def history(conn: sqlalchemy.Connection, user_id: int, limit: int = 50) -> list[Movement]:
    """A user's latest movements, newest first, each with the balance it left."""
    account = _find_account(conn, "player", str(user_id))
    if account is None or limit < 1:
        return []
    running = (
        select(
            legs.c.transaction_id,
            legs.c.amount,
            func.sum(legs.c.amount)
            .over(order_by=(legs.c.transaction_id, legs.c.id))
            .label("after"),
        )
        .where(legs.c.account_id == account)
        .subquery()
    )
    rows = conn.execute(
        select(
            transactions.c.id,
            transactions.c.kind,
            transactions.c.round_id,
            transactions.c.memo,
            transactions.c.created_at,
            running.c.amount,
            running.c.after,
        )
        .join(running, running.c.transaction_id == transactions.c.id)
        .order_by(transactions.c.id.desc())
        .limit(limit)
    )
    return [
        Movement(
            transaction_id=row.id,
            kind=row.kind,
            round_id=row.round_id,
            amount=from_units(row.amount),
            balance_after=from_units(int(row.after)),
            created_at=row.created_at,
            memo=row.memo,
        )
        for row in rows
    ]


def last_transaction(conn: sqlalchemy.Connection) -> int:
    """The id of the newest transaction (0 when there is none): a mark in the books
    after which a session's money is counted (:func:`session_totals`)."""
    newest = conn.execute(select(func.max(transactions.c.id))).scalar_one_or_none()
    return int(newest or 0)


#: The movements of a round: what a player staked, had back, and won or lost.
_PLAY_KINDS = ("stake", "refund", "settle", "void")
#: Of those, the ones that stake money or give stakes back without a result.
_WAGER_KINDS = ("stake", "refund", "void")


def session_totals(
    conn: sqlalchemy.Connection, user_id: int, after: int
) -> tuple[Decimal, Decimal]:
    """A player's net result and amount wagered in the transactions after ``after``.

    The net counts money on the table as gone until it comes back (a stake moves it off
    the balance), so it is what the player's balance has gained or lost by play; chips
    granted are not play.  The amount wagered is what he staked, less the bets returned
    to him unplayed (withdrawn before "No more bets", or a void round).
    """
    account = _find_account(conn, "player", str(user_id))
    if account is None:
        return Decimal("0.00"), Decimal("0.00")
    rows = conn.execute(
        select(transactions.c.kind, func.sum(legs.c.amount).label("total"))
        .join(transactions, legs.c.transaction_id == transactions.c.id)
        .where(
            legs.c.account_id == account,
            legs.c.transaction_id > after,
            transactions.c.kind.in_(_PLAY_KINDS),
        )
        .group_by(transactions.c.kind)
    ).all()
    by_kind = {row.kind: int(row.total) for row in rows}
    net = sum(by_kind.values())
    wagered = -sum(by_kind.get(kind, 0) for kind in _WAGER_KINDS)
    return from_units(net), from_units(wagered)


# -- reconciliation ----------------------------------------------------------------


def _describe(kind: str, owner: str, account_id: int) -> str:
    if kind == "player":
        return f"account {account_id} of user {owner}"
    if kind == "round":
        return f"account {account_id} of round {owner!r}"
    if kind == "house" and owner:
        return f"house account {account_id} of table {owner!r}"
    return f"{kind} account {account_id}"


def check(conn: sqlalchemy.Connection) -> list[str]:
    """Reconcile the books; one sentence per problem, an empty list if they balance."""
    problems: list[str] = []
    leg_total = func.sum(legs.c.amount)
    for row in conn.execute(
        select(legs.c.transaction_id, transactions.c.kind, leg_total.label("total"))
        .join(transactions, legs.c.transaction_id == transactions.c.id)
        .group_by(legs.c.transaction_id, transactions.c.kind)
        .having(leg_total != 0)
        .order_by(legs.c.transaction_id)
    ):
        problems.append(
            f"transaction {row.transaction_id} ({row.kind}) has legs summing to "
            f"{from_units(int(row.total))}, not zero"
        )

    sums = (
        select(legs.c.account_id, leg_total.label("total")).group_by(legs.c.account_id)
    ).subquery()
    summed = func.coalesce(sums.c.total, 0)
    all_accounts = conn.execute(
        select(accounts.c.id, accounts.c.kind, accounts.c.owner, accounts.c.balance, summed)
        .outerjoin(sums, sums.c.account_id == accounts.c.id)
        .order_by(accounts.c.id)
    ).all()
    for account_id, kind, owner, cached, legs_sum in all_accounts:
        name = _describe(kind, owner, account_id)
        if cached != legs_sum:
            problems.append(
                f"{name} has a cached balance of {from_units(cached)} but its legs sum to "
                f"{from_units(int(legs_sum))}"
            )
        if kind in ("player", "round") and cached < 0:
            problems.append(f"{name} has a balance of {from_units(cached)}, below zero")
    grand_total = sum(row[3] for row in all_accounts)
    if grand_total:
        problems.append(f"the balances of all accounts sum to {from_units(grand_total)}, not zero")

    round_balances = {
        owner: cached for _, kind, owner, cached, _ in all_accounts if kind == "round"
    }
    on_table: dict[str, int] = {}
    for (round_id, _), total in _player_leg_sums(conn, kinds=("stake", "refund")).items():
        on_table[round_id] = on_table.get(round_id, 0) - total
    for round_id, status in conn.execute(
        select(rounds.c.id, rounds.c.status).order_by(rounds.c.id)
    ).all():
        held = round_balances.get(round_id, 0)
        if status in ("settled", "void"):
            if held:
                problems.append(
                    f"round {round_id!r} is {status} but its account still holds {from_units(held)}"
                )
        elif held != on_table.get(round_id, 0):
            problems.append(
                f"round {round_id!r} is open and its account holds {from_units(held)}, "
                f"but its net stakes are {from_units(on_table.get(round_id, 0))}"
            )

    for account_id, owner in conn.execute(
        select(accounts.c.id, accounts.c.owner)
        .where(
            accounts.c.kind == "round",
            exists().where(legs.c.account_id == accounts.c.id),
            ~exists().where(rounds.c.id == accounts.c.owner),
        )
        .order_by(accounts.c.id)
    ).all():
        problems.append(f"account {account_id} of round {owner!r} has legs but no round record")
    return problems


# -- the money log ------------------------------------------------------------------------------

_money = logging.getLogger("croupier.money")
#: Where a connection keeps the movements of its open transaction until it commits.
_PENDING = "croupier.movements"
#: Where it keeps, for each open savepoint (innermost last), how many movements came
#: before it.
_MARKS = "croupier.movement-marks"


def log_movements(engine: sqlalchemy.Engine) -> None:
    """Log every money movement on ``engine`` once its transaction has committed.

    One record per ledger transaction, on the ``croupier.money`` logger: its id, kind,
    round, memo and the amount each account moved (exact, as text).  Movements of a
    transaction that rolls back are never logged.
    """
    if sqlalchemy.event.contains(engine, "commit", _emit_movements):
        return
    sqlalchemy.event.listen(engine, "commit", _emit_movements)
    sqlalchemy.event.listen(engine, "rollback", _drop_movements)
    # A savepoint rolled back takes its movements with it (an input refused among
    # several run together, after its stake was made).
    sqlalchemy.event.listen(engine, "savepoint", _mark_movements)
    sqlalchemy.event.listen(engine, "release_savepoint", _keep_movements)
    sqlalchemy.event.listen(engine, "rollback_savepoint", _drop_since_mark)


def _note_movement(conn: sqlalchemy.Connection, movement: dict[str, object]) -> None:
    conn.info.setdefault(_PENDING, []).append(movement)


def _emit_movements(conn: sqlalchemy.Connection) -> None:
    conn.info.pop(_MARKS, None)
    for movement in conn.info.pop(_PENDING, ()):
        _money.info(
            "%s transaction %s: %s",
            movement["kind"],
            movement["transaction"],
            movement["memo"],
            extra=movement,
        )


def _drop_movements(conn: sqlalchemy.Connection) -> None:
    # A connection lost mid-transaction (the database restarted) has no info to read:
    # its movements went with it, and closing it must not fail here.
    with contextlib.suppress(sqlalchemy.exc.SQLAlchemyError):
        conn.info.pop(_PENDING, None)
        conn.info.pop(_MARKS, None)


def _mark_movements(conn: sqlalchemy.Connection, _name: str | None) -> None:
    """A savepoint begins: how many movements came before it.  Savepoints nest, so the
    marks are a stack (SQLAlchemy names a savepoint it makes only after this event)."""
    conn.info.setdefault(_MARKS, []).append(len(conn.info.get(_PENDING, ())))


def _keep_movements(conn: sqlalchemy.Connection, _name: str, _context: object) -> None:
    marks = conn.info.get(_MARKS)
    if marks:
        marks.pop()


def _drop_since_mark(conn: sqlalchemy.Connection, _name: str, _context: object) -> None:
    """A savepoint rolled back: its movements never happened."""
    with contextlib.suppress(sqlalchemy.exc.SQLAlchemyError):
        marks = conn.info.get(_MARKS)
        pending = conn.info.get(_PENDING)
        if marks:
            mark = marks.pop()
            if pending is not None:
                del pending[mark:]
