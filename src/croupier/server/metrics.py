"""What an operator watches: Prometheus metrics and structured (JSON lines) logs.

Each application has its own registry (several servers in one process, as tests run
them, never mix their figures).  ``GET /metrics`` renders it in Prometheus' text format.

>>> metrics = Metrics()
>>> metrics.actions.labels(table="rws", op="stand", result="ok").inc()
>>> body, content_type = metrics.render()
>>> 'croupier_actions_total{op="stand",result="ok",table="rws"} 1.0' in body.decode()
True
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import TextIO

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from pythonjsonlogger.json import JsonFormatter

__all__ = ["LOGGERS", "LOG_FLUSH_SECONDS", "LogWriter", "Metrics", "log_json_lines"]

#: The server's loggers: requests, table commands, money movements, everything else.
LOGGERS = ("croupier.access", "croupier.commands", "croupier.money", "croupier.server")

#: Latency buckets in seconds, from a millisecond to ten seconds.
_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """The server's counters, gauges and latency histograms."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.actions = Counter(
            "croupier_actions",
            "Commands at the tables, by table, operation and result (ok or an error code).",
            ["table", "op", "result"],
            registry=registry,
        )
        self.action_seconds = Histogram(
            "croupier_action_seconds",
            "From a command's arrival to its events queued for every watcher.",
            ["table"],
            buckets=_SECONDS,
            registry=registry,
        )
        self.round_close_seconds = Histogram(
            "croupier_round_close_seconds",
            "The transaction that settles or voids a round, every player's money in it.",
            ["table"],
            registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
        )
        self.rounds = Counter(
            "croupier_rounds",
            "Rounds that ended (settled or void), by table.",
            ["table"],
            registry=registry,
        )
        self.requests = Histogram(
            "croupier_http_request_seconds",
            "HTTP requests by method, route and status, with their duration.",
            ["method", "route", "status"],
            buckets=_SECONDS,
            registry=registry,
        )
        self.connections = Gauge(
            "croupier_connections",
            "Open WebSockets at each table (players and watchers).",
            ["table"],
            registry=registry,
        )
        self.players = Gauge(
            "croupier_players",
            "Signed-in users connected at each table.",
            ["table"],
            registry=registry,
        )
        self.lag = Gauge(
            "croupier_table_lag_seconds",
            "How long the table's last piece of work waited in its queue.",
            ["table"],
            registry=registry,
        )
        self.queue = Gauge(
            "croupier_table_queue",
            "Pieces of work waiting in each table's queue.",
            ["table"],
            registry=registry,
        )
        self.commits = Gauge(
            "croupier_commits",
            "Transactions the group commit has committed since the process started.",
            registry=registry,
        )
        self.commit_inputs = Gauge(
            "croupier_commit_inputs",
            "The tables' inputs those transactions carried.",
            registry=registry,
        )
        self._commands: dict[tuple[str, str, str], Counter] = {}
        self._timers: dict[str, Histogram] = {}
        self.session_checks = Gauge(
            "croupier_session_checks",
            "Transactions that confirmed sockets' sessions since the process started: "
            "those commands waited for (waited), those that marked sessions in use in "
            "the background (renewed), those that read idle sockets' sessions (kept).",
            ["how"],
            registry=registry,
        )

    def command(self, table: str, op: str, result: str, seconds: float | None) -> None:
        """Count a command at ``table`` (``seconds``: its time, where it is timed).

        Each table's, operation's and result's series is looked up once and kept: a
        command costs its count, not the registry's lookup of its labels.

        >>> metrics = Metrics()
        >>> metrics.command("rws", "stand", "ok", 0.002)
        >>> metrics.actions.labels(table="rws", op="stand", result="ok")._value.get()
        1.0
        """
        key = (table, op, result)
        counter = self._commands.get(key)
        if counter is None:
            counter = self._commands[key] = self.actions.labels(table=table, op=op, result=result)
        counter.inc()
        if seconds is not None:
            timer = self._timers.get(table)
            if timer is None:
                timer = self._timers[table] = self.action_seconds.labels(table=table)
            timer.observe(seconds)

    def watch_table(
        self,
        table: str,
        *,
        connections: Callable[[], float],
        players: Callable[[], float],
        lag: Callable[[], float],
        queue: Callable[[], float],
    ) -> None:
        """Read a table's gauges from these functions whenever metrics are scraped."""
        self.connections.labels(table=table).set_function(connections)
        self.players.labels(table=table).set_function(players)
        self.lag.labels(table=table).set_function(lag)
        self.queue.labels(table=table).set_function(queue)

    def watch_commits(self, commits: Callable[[], float], inputs: Callable[[], float]) -> None:
        """Read the group commit's counts from these functions when metrics are scraped."""
        self.commits.set_function(commits)
        self.commit_inputs.set_function(inputs)

    def watch_sessions(
        self,
        *,
        waited: Callable[[], float],
        renewed: Callable[[], float],
        kept: Callable[[], float],
    ) -> None:
        """Read the counts of the sessions' transactions from these functions when
        metrics are scraped."""
        self.session_checks.labels(how="waited").set_function(waited)
        self.session_checks.labels(how="renewed").set_function(renewed)
        self.session_checks.labels(how="kept").set_function(kept)

    def render(self) -> tuple[bytes, str]:
        """The metrics in Prometheus' text format, and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


#: Seconds between two writes of the log: the records of that time go out in one write.
LOG_FLUSH_SECONDS = 0.1


class LogWriter(logging.Handler):
    """Keeps each record as it comes, never waiting and waking no one; a thread of its
    own formats the records of every :data:`LOG_FLUSH_SECONDS` and writes them to the
    stream in one write.  (Handing records one by one to a waiting thread cost the
    server a thread switch per log line: about a sixth of its CPU under load.)

    >>> import io
    >>> stream = io.StringIO()
    >>> writer = LogWriter(stream, logging.Formatter("%(name)s %(message)s"))
    >>> writer.start()
    >>> writer.handle(logging.makeLogRecord({"name": "croupier.money", "msg": "paid"}))
    True
    >>> writer.stop()
    >>> stream.getvalue()
    'croupier.money paid\\n'
    """

    def __init__(self, stream: TextIO, formatter: logging.Formatter) -> None:
        super().__init__()
        self.stream = stream
        self.setFormatter(formatter)
        self._records: deque[logging.LogRecord] = deque()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="croupier log", daemon=True)

    def emit(self, record: logging.LogRecord) -> None:
        self._records.append(record)

    def start(self) -> None:
        """Start writing, every :data:`LOG_FLUSH_SECONDS`."""
        self._thread.start()

    def stop(self) -> None:
        """Write out what is kept, and stop."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
        self._write()

    def _run(self) -> None:
        while not self._stopping.wait(LOG_FLUSH_SECONDS):
            self._write()

    def _write(self) -> None:
        records = self._records
        lines = []
        while records:
            record = records.popleft()
            try:
                lines.append(self.format(record))
            except Exception:
                self.handleError(record)
        if lines:
            try:
                self.stream.write("\n".join(lines) + "\n")
                self.stream.flush()
            except (OSError, ValueError):
                # The stream is gone (a closed pipe or file): its lines go with it, as
                # there is nowhere left to tell.
                return


def log_json_lines(level: int = logging.INFO) -> LogWriter:
    """Send the server's logs to stderr as JSON lines (one object per record).

    Each record carries its time, level, logger and message, and the fields the server
    adds (``table``, ``user``, ``op``, ``result``, ``ms``, ``amount``...).  The lines
    are formatted and written by a thread of their own, a tenth of a second's at a
    time (:class:`LogWriter`): a command never waits for its log line, and a process
    killed outright may lose the last tenth of a second of them (the ledger, not the
    log, is the record of money).  Returns the writer: stopping it writes out what is
    kept.
    """
    writer = LogWriter(
        sys.stderr,
        JsonFormatter(
            "{asctime}{levelname}{name}{message}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        ),
    )
    writer.start()
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [writer]
        logger.setLevel(level)
        logger.propagate = False
    return writer
