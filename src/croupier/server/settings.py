"""How a server runs: its database, address, tables, play money, log, and clock.

:meth:`Settings.from_environment` reads them from ``CROUPIER_*`` variables
(:data:`ENVIRONMENT`), each checked as ``croupier serve`` checks its flag, whose value
wins over the variable's.  A value that cannot be used is a :class:`SettingError`
naming the variable and the flag:

>>> settings = Settings.from_environment({"CROUPIER_PORT": "8080", "CROUPIER_PLAY_MONEY": "none"})
>>> settings.host, settings.port, settings.play_money
('127.0.0.1', 8080, None)
>>> Settings.from_environment({"CROUPIER_PORT": "80a"})
Traceback (most recent call last):
...
croupier.server.settings.SettingError: CROUPIER_PORT: --port '80a' is not a port number, 1 to 65535
>>> Settings.from_environment({"CROUPIER_PORT": "80a"}, port=8000).port  # the flag wins
8000

Only the standard library is imported here, so that the command line reads the
defaults without the server's packages.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croupier.cache import cache_dir
from croupier.errors import BetError
from croupier.money import parse_amount
from croupier.server.threads import WRITE_THREADS

if TYPE_CHECKING:
    from croupier.server.runtime import TableConfig
    from croupier.shoe import ShuffledShoe

__all__ = [
    "ENVIRONMENT",
    "LogFormat",
    "SettingError",
    "Settings",
    "Share",
    "Variable",
    "default_cache_dir",
    "read_environment",
    "read_setting",
]


class SettingError(ValueError):
    """A setting that cannot be used; the message names it and says why."""


class LogFormat(StrEnum):
    """What the server logs on stderr."""

    #: JSON lines: requests, table commands, money movements.
    JSON = "json"
    #: The same as plain text.
    TEXT = "text"
    #: Warnings only.
    NONE = "none"


@dataclass(frozen=True)
class Share:
    """Server ``index`` of ``workers`` sharing the tables: it runs tables ``index``,
    ``index + workers``, ... (by their place in the tables file) first.

    >>> Share(0, 2).prefers(["a", "b", "c"]), Share(1, 2).prefers(["a", "b", "c"])
    (['a', 'c'], ['b'])
    >>> Share.read("1/3")
    Share(index=1, workers=3)
    >>> Share.read("3/3")
    Traceback (most recent call last):
    ...
    ValueError: server 3 of 3: must be 0 to 2
    """

    index: int = 0
    workers: int = 1

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"{self.workers} servers: must be at least 1")
        if not 0 <= self.index < self.workers:
            raise ValueError(
                f"server {self.index} of {self.workers}: must be 0 to {self.workers - 1}"
            )

    @classmethod
    def read(cls, text: str) -> Share:
        """``I/N`` as a share (``ValueError`` saying what is wrong)."""
        index, slash, count = text.strip().partition("/")
        if not slash or not index.isdigit() or not count.isdigit():
            raise ValueError("write I/N, server I (0 to N-1) of N, such as 0/2")
        return cls(int(index), int(count))

    def prefers(self, tables: Sequence[str]) -> list[str]:
        """The tables of this server's share, in order."""
        return [table for place, table in enumerate(tables) if place % self.workers == self.index]


def default_cache_dir() -> Path:
    """Where figures are cached: :func:`croupier.cache.cache_dir`."""
    return cache_dir()


def _default_tables() -> tuple[TableConfig, ...]:
    from croupier.server.tables import default_tables

    return default_tables()


@dataclass(frozen=True)
class Settings:
    """How a server runs: its database, its tables, and play money.

    ``play_money`` is the chips a new account gets (``None``: no chips, a real-money
    wallet funded elsewhere).  ``clock`` gives the time in seconds (tests pass their own).
    ``host``, ``port`` and ``log`` are for whoever runs the application (``croupier
    serve`` gives them to uvicorn and to the logging).
    """

    #: The database (``None``: SQLite's ``croupier.db`` in the working folder).
    url: str | None = None
    #: The address and port to listen on.
    host: str = "127.0.0.1"
    port: int = 8000
    tables: tuple[TableConfig, ...] = field(default_factory=_default_tables)
    play_money: Decimal | None = Decimal("1000.00")
    log: LogFormat = LogFormat.JSON
    #: The longest a table sleeps before it reads the clock again.  ``None`` (a real
    #: clock): exactly until its next deadline.  A test that moves its clock by hand
    #: gives a small figure, since nothing else tells the table that time has passed.
    tick_seconds: float | None = None
    clock: Callable[[], float] = time.time
    #: A table's first shoe in a known order, by table id (tests and audits).
    shoes: Mapping[str, ShuffledShoe] = field(default_factory=dict)
    #: Wait while another process runs the tables, and take them over when it stops
    #: (``False``: refuse at once with :class:`~croupier.server.ownership.TableOwned`).
    standby: bool = False
    #: Told once, with the refusal, when a standby server begins to wait.
    on_standby: Callable[[Exception], None] | None = None
    #: Server processes on this address sharing the tables (``croupier serve`` starts
    #: them, each with its :attr:`share`; PostgreSQL only).
    workers: int = 1
    #: This process's share of the tables it shares with other processes on the same
    #: PostgreSQL database (``None``: it runs every table itself).
    share: Share | None = None
    #: Where computed figures (the tables' exact RTPs) are kept across restarts
    #: (``None``: in memory only).
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    #: Compute the tables' RTPs in the background as the server starts (``croupier
    #: serve`` does), so that the lobby has them at once.
    rtp_at_start: bool = False
    #: Table sockets one client address may hold at once, every table together (each
    #: socket has its own rate limit, so their number bounds what one address can make
    #: the server do).  Behind a proxy, trust it (``FORWARDED_ALLOW_IPS``) so that each
    #: client's own address counts.
    sockets_per_address: int = 64
    #: Threads that write the tables' inputs to PostgreSQL at once (SQLite has one
    #: writer, whatever this says): see :data:`~croupier.server.threads.WRITE_THREADS`.
    write_threads: int = WRITE_THREADS

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **given: Any) -> Settings:
        """The settings of the environment (``os.environ`` unless given), with the
        values ``given`` over them: a variable whose setting is given is not read.

        Raises:
            SettingError: a variable's value cannot be used; the message names it.
        """
        found = read_environment(os.environ if environ is None else environ, skip=given)
        return cls(**{**found, **given})


@dataclass(frozen=True)
class Variable:
    """An environment variable that sets one of the :class:`Settings`."""

    #: Its name.
    name: str
    #: The setting it gives (a field of :class:`Settings`).
    setting: str
    #: ``croupier serve``'s flag for the same setting.
    flag: str
    #: What it is, for the help and the README.
    meaning: str


#: The variables a server reads, in the order ``croupier serve --help`` lists their flags.
ENVIRONMENT = (
    Variable(
        "CROUPIER_DB_URL",
        "url",
        "--db",
        "Database URL (default sqlite:///croupier.db; postgresql://... for PostgreSQL).",
    ),
    Variable("CROUPIER_HOST", "host", "--host", "Address to listen on."),
    Variable("CROUPIER_PORT", "port", "--port", "Port to listen on."),
    Variable(
        "CROUPIER_TABLES",
        "tables",
        "--tables",
        "A TOML file of tables (default: one table per preset).",
    ),
    Variable(
        "CROUPIER_PLAY_MONEY",
        "play_money",
        "--play-money",
        'Chips a new account gets; "none" for a wallet funded elsewhere.',
    ),
    Variable(
        "CROUPIER_LOG",
        "log",
        "--log",
        "The server's log on stderr: JSON lines (requests, commands, money movements), "
        "plain text, or warnings only.",
    ),
    Variable(
        "CROUPIER_STANDBY",
        "standby",
        "--standby",
        "While another croupier process runs these tables on this database, wait (not "
        "listening yet), and take them over the moment it stops or dies, recovering their "
        "rounds (RWS v5 5.4).",
    ),
    Variable(
        "CROUPIER_WORKERS",
        "workers",
        "--workers",
        "Server processes on this address sharing the tables (PostgreSQL only): each "
        "runs its share of the tables, serves every table to its players and takes over "
        "the tables of one that dies; one that dies is started again.",
    ),
    Variable(
        "CROUPIER_SOCKETS_PER_ADDRESS",
        "sockets_per_address",
        "--sockets-per-address",
        "Table sockets one client address may hold at once (default 64); behind a proxy, "
        "set FORWARDED_ALLOW_IPS so that each client's own address counts.",
    ),
    Variable(
        "CROUPIER_WRITE_THREADS",
        "write_threads",
        "--write-threads",
        "Threads writing the tables' inputs to PostgreSQL at once: more only wait for "
        "Python's lock with the others, unless the database is several milliseconds away.",
    ),
    Variable(
        "CROUPIER_SHARE",
        "share",
        "--share",
        "I/N: run as server I of N sharing these tables on one PostgreSQL database "
        "(several machines behind a load balancer): this one runs tables I, I+N, ... "
        "first, serves every table to its players and takes over those of any that dies.",
    ),
)

_PORT = re.compile(r"[0-9]{1,5}")
# ASCII digits only ("٣".isdigit() holds, and int() would read it).
_COUNT = re.compile(r"[0-9]{1,7}")
_TRUE = ("1", "true", "yes", "on", "t", "y")
_FALSE = ("0", "false", "no", "off", "f", "n")


def read_setting(setting: str, text: str) -> Any:
    """The value of ``setting`` written as ``text``, checked as its flag is.

    >>> read_setting("play_money", "250")
    Decimal('250.00')
    >>> read_setting("standby", "yes"), read_setting("log", "TEXT")
    (True, <LogFormat.TEXT: 'text'>)
    >>> try:
    ...     read_setting("play_money", "-5")
    ... except SettingError as error:
    ...     print(error)
    --play-money '-5' must be more than zero (or 'none' for no chips)

    Raises:
        SettingError: ``text`` is not a value of the setting; the message names its flag.
    """
    flag = next(variable.flag for variable in ENVIRONMENT if variable.setting == setting)
    if setting in ("url", "host"):
        if not text.strip():
            raise SettingError(f"{flag}: give a value, not {text!r}")
        return text
    if setting == "port":
        digits = text.strip()
        if _PORT.fullmatch(digits) is None or not 1 <= int(digits) <= 65535:
            raise SettingError(f"{flag} {text!r} is not a port number, 1 to 65535")
        return int(digits)
    if setting == "tables":
        from croupier.server.tables import TablesFileError, load_tables

        try:
            return load_tables(text)
        except TablesFileError as error:
            raise SettingError(str(error)) from None
    if setting == "play_money":
        if text.strip().lower() == "none":
            return None
        try:
            return parse_amount(text, Decimal("0.01"), what=flag)
        except BetError as error:
            raise SettingError(f"{error} (or 'none' for no chips)") from None
    if setting == "log":
        try:
            return LogFormat(text.strip().lower())
        except ValueError:
            choices = ", ".join(kind.value for kind in LogFormat)
            raise SettingError(f"{flag} {text!r} is not one of {choices}") from None
    if setting == "workers":
        digits = text.strip()
        if _COUNT.fullmatch(digits) is None or not 1 <= int(digits) <= 64:
            raise SettingError(f"{flag} {text!r} is not a number of processes, 1 to 64")
        return int(digits)
    if setting == "sockets_per_address":
        digits = text.strip()
        if _COUNT.fullmatch(digits) is None or not 1 <= int(digits) <= 1_000_000:
            raise SettingError(f"{flag} {text!r} is not a number of sockets, 1 to 1000000")
        return int(digits)
    if setting == "write_threads":
        digits = text.strip()
        if _COUNT.fullmatch(digits) is None or not 1 <= int(digits) <= 64:
            raise SettingError(f"{flag} {text!r} is not a number of threads, 1 to 64")
        return int(digits)
    if setting == "share":
        try:
            return Share.read(text)
        except ValueError as error:
            raise SettingError(f"{flag} {text}: {error}") from None
    if setting == "standby":
        word = text.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise SettingError(f"{flag} {text!r} is neither true nor false (1 or 0, yes or no)")
    raise SettingError(f"no setting {setting!r}")


def read_environment(environ: Mapping[str, str], *, skip: Collection[str] = ()) -> dict[str, Any]:
    """The settings the variables of :data:`ENVIRONMENT` give, by setting; a variable
    that is not set (or empty), or whose setting is in ``skip``, gives none.

    Raises:
        SettingError: ``VARIABLE: why``, the same words as for its flag.
    """
    found: dict[str, Any] = {}
    for variable in ENVIRONMENT:
        text = environ.get(variable.name)
        if not text or variable.setting in skip:
            continue
        try:
            found[variable.setting] = read_setting(variable.setting, text)
        except SettingError as error:
            raise SettingError(f"{variable.name}: {error}") from None
    return found
