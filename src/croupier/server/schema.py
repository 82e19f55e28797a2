"""The table server's tables (SQLAlchemy Core), one :data:`metadata` for all of them.

The migrations in ``croupier/server/migrations`` create exactly these tables; a test
checks that a migrated database reflects back to this metadata.  Money columns hold
integers of minor units (see :data:`croupier.server.ledger.UNIT`).

>>> sorted(metadata.tables)  # doctest: +NORMALIZE_WHITESPACE
['accounts', 'legs', 'login_throttle', 'play_sessions', 'player_limits', 'round_bets',
 'round_inputs', 'round_players', 'rounds', 'sessions', 'table_leases', 'transactions', 'users']
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)

from croupier.server.roles import Role

__all__ = [
    "ACCOUNT_KINDS",
    "ROLES",
    "ROUND_STATUSES",
    "UTCDateTime",
    "accounts",
    "legs",
    "login_throttle",
    "metadata",
    "play_sessions",
    "player_limits",
    "round_bets",
    "round_inputs",
    "round_players",
    "rounds",
    "sessions",
    "table_leases",
    "transactions",
    "users",
]

#: The roles an account may have, as the database holds them.
ROLES = tuple(role.value for role in Role)
ACCOUNT_KINDS = ("player", "round", "house", "issuer")
ROUND_STATUSES = ("open", "settled", "void")


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend.

    SQLite keeps no zone, so values are stored as UTC and read back as UTC; naive
    datetimes are refused on the way in.

    >>> UTCDateTime().process_result_value(datetime(2025, 1, 2, 3, 4), None)
    datetime.datetime(2025, 1, 2, 3, 4, tzinfo=datetime.timezone.utc)
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Convert an aware datetime to UTC (naive ones are refused)."""
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"timestamp {value.isoformat()} has no time zone; use UTC")
        return value.astimezone(UTC)

    def process_result_value(
        self, value: datetime | None, dialect: Dialect | None
    ) -> datetime | None:
        """Read a stored timestamp back as an aware UTC datetime."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def _one_of(column: str, values: tuple[str, ...], name: str) -> CheckConstraint:
    listed = ", ".join(f"'{value}'" for value in values)
    return CheckConstraint(f"{column} IN ({listed})", name=name)


metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(40), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=False),
    Column("role", String(16), nullable=False, server_default=Role.PLAYER.value),
    Column("failed_logins", Integer, nullable=False, server_default="0"),
    Column("locked_until", UTCDateTime(), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False),
    #: When the operator disabled the account (``croupier accounts disable``); it can
    #: then neither log in nor play.
    Column("disabled_at", UTCDateTime(), nullable=True),
    _one_of("role", ROLES, "role"),
)

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column(
        "user_id",
        Integer,
        ForeignKey("users.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("last_seen", UTCDateTime(), nullable=False),
)

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("owner", String(64), nullable=False, server_default=""),
    Column("balance", BigInteger, nullable=False, server_default="0"),
    UniqueConstraint("kind", "owner"),
    _one_of("kind", ACCOUNT_KINDS, "kind"),
)

transactions = Table(
    "transactions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("idempotency_key", String(200), nullable=False, unique=True),
    Column("kind", String(32), nullable=False),
    Column("round_id", String(64), nullable=True),
    Column("request_hash", String(64), nullable=False),
    Column("memo", String(200), nullable=False, server_default=""),
    Column("created_at", UTCDateTime(), nullable=False),
    # A round's closing transactions found without reading its stakes (migration 0007).
    Index(None, "round_id", "kind"),
)

legs = Table(
    "legs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("transaction_id", Integer, ForeignKey("transactions.id"), nullable=False, index=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Index(None, "account_id"),
)

rounds = Table(
    "rounds",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("table_id", String(64), nullable=False, index=True),
    Column("number", Integer, nullable=False),
    Column("rules_name", String(100), nullable=False),
    Column("rules_version", String(40), nullable=False),
    Column("status", String(16), nullable=False, server_default="open"),
    Column("record", Text, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    # What the back office reads of each round without parsing its record, written with
    # it (:mod:`croupier.server.rounds_store`).  From the server's shoe as the round
    # found it (null where the dealer enters the cards): how far it had been dealt, the
    # hi-lo true count of the cards dealt before the round, and, for the first round
    # dealt from a freshly shuffled shoe (position 0), its order as one rank letter a
    # card (``A23456789TJQK``).
    Column("shoe_position", Integer, nullable=True),
    Column("true_count", Float, nullable=True),
    Column("shoe_ranks", Text, nullable=True),
    # Written when the round closes, from its inputs and from the ledger's legs of its
    # transactions: how many inputs were irregularities (a void, an interruption, a
    # return of bets, a walk-away, a time-out), the house's result, and what the
    # players staked on it, less refunds (minor units).
    Column("irregular_inputs", Integer, nullable=True),
    Column("house_win", BigInteger, nullable=True),
    Column("staked", BigInteger, nullable=True),
    _one_of("status", ROUND_STATUSES, "status"),
    Index(None, "created_at"),
)

#: A round's inputs, one row per command as it came (append-only): the round's record in
#: ``rounds`` holds the rest (rules, shoe, times), written when it opens and when it closes.
round_inputs = Table(
    "round_inputs",
    metadata,
    Column("round_id", String(64), ForeignKey("rounds.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("input", Text, nullable=False),
    PrimaryKeyConstraint("round_id", "seq"),
)

round_players = Table(
    "round_players",
    metadata,
    Column("round_id", String(64), ForeignKey("rounds.id"), nullable=False),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("balance_before", BigInteger, nullable=False),
    Column("balance_after", BigInteger, nullable=True),
    # Written when the round closes, for the back office to sum without joining the
    # ledger: the round's table, opening time and status, and the player's legs in its
    # transactions: their sum (what the round did to his balance) and his stakes less
    # refunds (minor units).
    Column("table_id", String(64), nullable=True),
    Column("opened_at", UTCDateTime(), nullable=True),
    Column("status", String(16), nullable=True),
    Column("net", BigInteger, nullable=True),
    Column("staked", BigInteger, nullable=True),
    PrimaryKeyConstraint("round_id", "user_id"),
    Index(None, "opened_at"),
)

#: The bets that played in each closed round, one row each, written when the round
#: closes (from its inputs, as the engine reads them: a player's bets on a box added up,
#: a withdrawn bet gone, a side bet on a box without a main bet given back), with the
#: round's table, rules, opening time, status and true count beside them: the back
#: office sums them in one read.  ``kind`` is ``"main"``, a side bet's key, or
#: ``"insurance"`` (its ``units`` null where the input left the amount to the engine:
#: the most allowed).  ``seq`` is the input that placed it (the last, for a bet added to).
round_bets = Table(
    "round_bets",
    metadata,
    Column("round_id", String(64), ForeignKey("rounds.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("table_id", String(64), nullable=False),
    Column("rules_name", String(100), nullable=False),
    Column("rules_version", String(40), nullable=False),
    Column("opened_at", UTCDateTime(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("player", String(40), nullable=False),
    Column("box", Integer, nullable=False),
    Column("kind", String(40), nullable=False),
    Column("units", BigInteger, nullable=True),
    Column("true_count", Float, nullable=True),
    PrimaryKeyConstraint("round_id", "seq"),
    Index(None, "opened_at"),
)

#: A player's session of play: from his first login until he has been away for the
#: login sessions' idle time.  Logging in again or opening another tab continues it.
#: Its money (net, wagered) is read from the ledger after ``ledger_mark``, the last
#: transaction before it started; ``reality_check_at`` starts the reality-check clock.
play_sessions = Table(
    "play_sessions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "user_id",
        Integer,
        ForeignKey("users.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("started_at", UTCDateTime(), nullable=False),
    Column("last_active_at", UTCDateTime(), nullable=False),
    Column("ledger_mark", BigInteger, nullable=False, server_default="0"),
    Column("reality_check_at", UTCDateTime(), nullable=False),
)

#: The limits a player set himself, and his breaks and exclusion.  A raised limit waits
#: in ``pending_*`` until its ``pending_*_from`` time (the cooling-off period); a
#: ``pending_*_from`` with a null value raises to no limit.  Money in minor units.
player_limits = Table(
    "player_limits",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("loss_limit", BigInteger, nullable=True),
    Column("pending_loss_limit", BigInteger, nullable=True),
    Column("pending_loss_limit_from", UTCDateTime(), nullable=True),
    Column("session_minutes", Integer, nullable=True),
    Column("pending_session_minutes", Integer, nullable=True),
    Column("pending_session_minutes_from", UTCDateTime(), nullable=True),
    Column("reality_check_minutes", Integer, nullable=False, server_default="60"),
    Column("break_until", UTCDateTime(), nullable=True),
    Column("excluded_until", UTCDateTime(), nullable=True),
    Column("updated_at", UTCDateTime(), nullable=False),
)

#: Which process runs each table (:mod:`croupier.server.ownership`): a lease until
#: ``expires_ms`` (the database's clock, milliseconds since the epoch), renewed by its
#: ``owner`` while it lives, and a fencing ``epoch`` raised at every claim.  Every write
#: for a table checks the epoch in its own transaction, so a process that lost the
#: table can never write for it again.  ``owner_key`` names the owner's liveness lock
#: (a PostgreSQL advisory lock held by its lease connection).
table_leases = Table(
    "table_leases",
    metadata,
    Column("table_id", String(64), primary_key=True),
    Column("epoch", BigInteger, nullable=False, server_default="0"),
    Column("owner", String(64), nullable=False, server_default=""),
    Column("owner_key", Integer, nullable=False, server_default="0"),
    Column("renewed_ms", BigInteger, nullable=False, server_default="0"),
    Column("expires_ms", BigInteger, nullable=False, server_default="0"),
)

#: Failed logins by client address (:class:`~croupier.server.accounts.AddressThrottle`):
#: the time at which the address's bucket is full again (milliseconds since the epoch,
#: the server's clock).  In the database, so that every process of a cluster counts
#: against one budget and a restart forgets nothing.
login_throttle = Table(
    "login_throttle",
    metadata,
    Column("address", String(64), primary_key=True),
    Column("full_ms", BigInteger, nullable=False, index=True),
)
