"""``croupier serve``: the table server.

Every setting comes from the environment (``CROUPIER_*``, see
:data:`croupier.server.settings.ENVIRONMENT`) or from its flag, which wins; either is
checked before anything starts, and a bad one gets one line and exit status 2.
"""

from __future__ import annotations

import gc
import logging
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields
from typing import Any, TypeVar, cast

import click
from click.core import ParameterSource

from croupier.cli.shared import FilePath, UserError, require_extra
from croupier.server.settings import (
    ENVIRONMENT,
    LogFormat,
    SettingError,
    Settings,
    read_setting,
)

__all__ = ["connect_database", "proxy_options", "serve"]

_Command = TypeVar("_Command", bound=Callable[..., Any])
_DEFAULTS = {item.name: item.default for item in fields(Settings)}


def connect_database(url: str | None, *, read_only: bool = False) -> object:
    """The database at ``url`` (SQLite's ``croupier.db`` by default), migrated.

    ``read_only`` (a check, a listing): nothing is written, the database not migrated;
    one at another schema than this version's is refused in one line.
    """
    import sqlalchemy

    from croupier.server.db import connect, current_revision, head_revision, migrate

    where = url or "sqlite:///croupier.db"
    if read_only:
        _check_sqlite_file(where)
    try:
        engine = connect(url, read_only=read_only)
        if not read_only:
            migrate(engine)
        elif (found := current_revision(engine)) != head_revision():
            if found is None:
                raise UserError(
                    f"database {where} holds no croupier tables: `croupier serve` or "
                    "`croupier accounts create` makes them"
                )
            raise UserError(
                f"database {where} is at schema {found}, this croupier reads {head_revision()}: "
                "start `croupier serve` on it once to migrate it"
            )
    except ModuleNotFoundError as error:
        if error.name != "psycopg":
            raise
        require_extra("postgres", f"database {url}")
    except (ValueError, sqlalchemy.exc.SQLAlchemyError) as error:
        raise UserError(f"database {url or 'sqlite:///croupier.db'}: {error}") from None
    return engine


def _check_sqlite_file(url: str) -> None:
    """A SQLite database to be read must exist (reading never makes one)."""
    scheme, _, path = url.partition(":///")
    if scheme.split("+")[0].lower() != "sqlite" or not path or path.startswith(":memory:"):
        return
    if not os.path.exists(path.split("?")[0]):
        raise UserError(f"database {url}: no such file; `croupier serve` makes it")


def _setting_option(setting: str, **kinds: Any) -> Callable[[_Command], _Command]:
    """The flag of ``setting``, with its help and variable from ENVIRONMENT and the
    Settings' own default.  A flag not given leaves its setting to the environment."""
    variable = next(item for item in ENVIRONMENT if item.setting == setting)
    default = _DEFAULTS[setting]
    shown = ""
    if isinstance(default, LogFormat):
        shown = f"; default: {default.value}"
    elif default is not None and not isinstance(default, bool | type(MISSING)):
        shown = f"; default: {default}"
    declarations = [variable.flag, setting]
    if kinds.get("is_flag"):
        declarations[0] = f"{variable.flag}/--no-{variable.flag.removeprefix('--')}"
    return click.option(
        *declarations,
        default=None,
        help=f"{variable.meaning}  [env var: {variable.name}{shown}]",
        **kinds,
    )


@click.command()
@_setting_option("url")
@_setting_option("host")
@_setting_option("port", type=click.IntRange(1, 65535))
@_setting_option("tables", type=FilePath(dir_okay=False), metavar="FILE")
@_setting_option("play_money")
@_setting_option("log", type=click.Choice([kind.value for kind in LogFormat]))
@_setting_option("standby", is_flag=True)
@_setting_option("workers", type=click.IntRange(1, 64))
@_setting_option("share", metavar="I/N")
@_setting_option("sockets_per_address", type=click.IntRange(1, 1_000_000))
@_setting_option("write_threads", type=click.IntRange(1, 64))
@click.option("--listen-fd", type=int, default=None, hidden=True)
@click.pass_context
def serve(context: click.Context, /, listen_fd: int | None, **flags: Any) -> None:
    """Run the live table server: accounts and wallet over HTTP, tables over WebSockets."""
    import uvicorn

    from croupier.server.app import create_app
    from croupier.server.metrics import log_json_lines
    from croupier.server.ownership import TableOwned

    given: dict[str, Any] = {}
    for setting, value in flags.items():
        if context.get_parameter_source(setting) is not ParameterSource.COMMANDLINE:
            continue
        try:
            given[setting] = read_setting(setting, value) if isinstance(value, str) else value
        except SettingError as error:
            raise UserError(str(error)) from None

    def waiting(owned: Exception) -> None:
        click.echo(f"croupier standing by: {owned}; taking over when it stops", err=True)

    try:
        settings = Settings.from_environment(
            os.environ,
            **given,
            on_standby=waiting,
            rtp_at_start=True,  # the lobby's figures, worked out (or read back) at once
        )
    except SettingError as error:
        raise UserError(str(error)) from None
    _check_cluster(settings)
    if listen_fd is None:  # a worker of --workers listens where its supervisor does
        _check_port(settings.host, settings.port)
    connect_database(settings.url)
    if settings.workers > 1:
        from croupier.cli.workers import supervise

        tables = flags.get("tables") or os.environ.get("CROUPIER_TABLES")
        passed = {
            "CROUPIER_DB_URL": settings.url or "",
            "CROUPIER_PLAY_MONEY": str(settings.play_money or "none"),
            "CROUPIER_LOG": settings.log.value,
            "CROUPIER_SOCKETS_PER_ADDRESS": str(settings.sockets_per_address),
            "CROUPIER_WRITE_THREADS": str(settings.write_threads),
        }
        if tables:
            passed["CROUPIER_TABLES"] = os.path.abspath(tables)
        raise SystemExit(supervise(settings.host, settings.port, settings.workers, settings=passed))
    try:
        app = create_app(settings)
    except TableOwned as error:
        raise UserError(f"{error} (--standby waits and takes over when it stops)") from None
    listener = None
    # What no line shows is not gathered at every record (a line a command): the
    # caller's source line, the thread's and the process's names (the logging HOWTO's
    # "Optimization").
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None
    if settings.log is LogFormat.JSON:
        listener = log_json_lines()
    elif settings.log is LogFormat.TEXT:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    click.echo(
        f"croupier serving {len(settings.tables)} tables on http://{settings.host}:{settings.port}",
        err=True,
    )
    # No permessage-deflate: a table's messages are a few kilobytes, and compressing each
    # one for each socket (every player's view differs) cost the server more CPU than
    # anything but its database writes, and each socket's compressor about 300 kB of
    # memory besides (a table of 5,000 watchers).
    options: dict[str, Any] = {
        "log_level": "warning",
        "ws_max_size": 65536,
        "ws_per_message_deflate": False,
        **proxy_options(os.environ),
    }
    settle_collector()
    steering = None
    if listen_fd is not None:
        steering = _steering(app.state.hub, options)
    try:
        if listen_fd is not None:  # the address is open already
            config = uvicorn.Config(app, **options)
            server = draining_server(config, app.state.hub, steering)
            quiet_client_faults()
            server.run(sockets=[socket.socket(fileno=listen_fd)])
        else:
            config = uvicorn.Config(app, host=settings.host, port=settings.port, **options)
            quiet_client_faults()
            draining_server(config, app.state.hub).run()
    finally:
        if listener is not None:
            listener.stop()  # the log's last lines written out


#: Allocations between two collections of the cyclic garbage collector's youngest
#: generation in a serving process (Python's default is 700).
YOUNG_COLLECTED_EVERY = 20_000


def settle_collector() -> None:
    """Keep what the server holds from its start out of the cyclic garbage collector's
    way, and collect its youngest objects less often.

    The server's code, rules, charts and tables live as long as it does, and every
    collection of the older generations walked them all again; a table's work makes
    thousands of short-lived objects a second (messages, views, rows), nearly none of
    them in cycles, and a collection every 700 of them cost the serving thread about a
    sixth of its CPU (sampled with ``py-spy --native`` under ``benchmarks/load.py``).
    So what exists now is frozen (:func:`gc.freeze`: never walked again) and the young
    generation is collected every :data:`YOUNG_COLLECTED_EVERY` allocations.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> settle_collector()
    >>> gc.get_threshold()[0] == YOUNG_COLLECTED_EVERY and gc.get_freeze_count() > 0
    True
    >>> gc.unfreeze(); gc.set_threshold(*before)
    """
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTED_EVERY, older * 2, oldest * 10)


def _steering(hub: Any, options: dict[str, Any]) -> Any:
    """A worker of ``--workers N``: its table sockets handed to the worker that runs
    their table (:mod:`croupier.server.steering`), where the supervisor made the
    directory for it; ``options`` then name the HTTP protocol that does it."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    from croupier.server.steering import Steering, directory_from, steered_protocol

    directory = directory_from(os.environ)
    if directory is None:
        return None
    steering = Steering(directory, hub.worker_running)
    options["http"] = steered_protocol(AutoHTTPProtocol, steering)
    return steering


def draining_server(config: Any, hub: Any, steering: Any = None) -> Any:
    """A uvicorn server whose first SIGTERM (or Ctrl-C) drains the tables before it
    stops: no new round is dealt, the rounds in play are played out with their players
    still connected, and each table is handed over as soon as it can be
    (:meth:`~croupier.server.hub.Hub.drain`).  A second signal stops at once.

    With ``steering`` (a worker of ``--workers N``), it also serves the connections
    the other workers hand to it, once it has started, until it stops."""
    import asyncio
    import functools

    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class DrainingServer(uvicorn.Server):
        draining: asyncio.Task[Any] | None = None
        drain_asked = False
        loop: asyncio.AbstractEventLoop | None = None

        async def serve(self, sockets: Any = None) -> None:
            self.loop = asyncio.get_running_loop()
            await super().serve(sockets=sockets)

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if steering is not None and not self.should_exit:
                steering.start(
                    functools.partial(
                        cast(Any, AutoHTTPProtocol),
                        config=self.config,
                        server_state=self.server_state,
                        app_state=self.lifespan.state,
                    )
                )

        async def shutdown(self, sockets: Any = None) -> None:
            if steering is not None:
                steering.stop()
            await super().shutdown(sockets=sockets)

        def handle_exit(self, sig: int, frame: Any) -> None:
            loop = self.loop
            if self.drain_asked or loop is None or not self.started:
                super().handle_exit(sig, frame)
                return
            self.drain_asked = True
            click.echo("croupier stopping: handing the tables over", err=True)
            loop.call_soon_threadsafe(self._drain)

        def _drain(self) -> None:
            async def drain() -> None:
                try:
                    left = await hub.drain()
                    if left:
                        click.echo(f"croupier: rounds still in play at {', '.join(left)}", err=True)
                finally:
                    self.should_exit = True

            assert self.loop is not None
            self.draining = self.loop.create_task(drain())

    return DrainingServer(config)


class _ClientFault(logging.Filter):
    """A client's malformed frame (text that is not UTF-8) is the client's fault: uvicorn
    logs it with a traceback, which this makes one warning line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info is not None and isinstance(record.exc_info[1], UnicodeDecodeError):
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_client_faults() -> None:
    """Log a client's malformed frame as one line (call once uvicorn's logging is set)."""
    error_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(kept, _ClientFault) for kept in error_log.filters):
        error_log.addFilter(_ClientFault())


def proxy_options(environ: Mapping[str, str]) -> dict[str, Any]:
    """uvicorn's proxy settings: ``X-Forwarded-For`` is believed only from the proxies
    ``FORWARDED_ALLOW_IPS`` names (uvicorn's own variable), never by default.

    The login throttle counts failures by the client's address; a header any client can
    write must not choose that address.

    >>> proxy_options({})
    {'proxy_headers': False}
    >>> proxy_options({"FORWARDED_ALLOW_IPS": "10.0.0.5"})
    {'proxy_headers': True, 'forwarded_allow_ips': '10.0.0.5'}
    """
    trusted = environ.get("FORWARDED_ALLOW_IPS", "").strip()
    if not trusted:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": trusted}


def _check_cluster(settings: Settings) -> None:
    """Refuse, before anything starts, a cluster the settings cannot run."""
    if settings.workers > 1 and settings.share is not None:
        raise UserError("--workers and --share exclude each other: --workers shares by itself")
    if settings.workers == 1 and settings.share is None:
        return
    share = settings.share
    flag = f"--workers {settings.workers}"
    if share is not None:
        flag = f"--share {share.index}/{share.workers}"
    if settings.standby:
        raise UserError(f"{flag} with --standby: in a cluster every server takes over")
    from croupier.server.db import normalize_url

    try:
        scheme = normalize_url(settings.url).split(":", 1)[0]
    except ValueError as error:
        raise UserError(f"--db {settings.url}: {error}") from None
    if not scheme.startswith("postgresql"):
        raise UserError(
            f"{flag}: servers share tables only on PostgreSQL (--db postgresql://...); "
            "a SQLite file has one server"
        )


def _check_port(host: str, port: int) -> None:
    """Refuse, before anything starts, an address the server could not listen on."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise UserError(f"--host {host}: {error.strerror or error}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise UserError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
