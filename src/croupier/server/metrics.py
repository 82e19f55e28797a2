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
import logging.handlers
import queue
import sys
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from pythonjsonlogger.json import JsonFormatter

__all__ = ["LOGGERS", "Metrics", "log_json_lines"]

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

    def render(self) -> tuple[bytes, str]:
        """The metrics in Prometheus' text format, and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class _HandOver(logging.handlers.QueueHandler):
    """Hands each record over as it is, to be formatted and written by the listener's
    thread (the event loop never waits on the log)."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record


def log_json_lines(level: int = logging.INFO) -> logging.handlers.QueueListener:
    """Send the server's logs to stderr as JSON lines (one object per record).

    Each record carries its time, level, logger and message, and the fields the server
    adds (``table``, ``user``, ``op``, ``result``, ``ms``, ``amount``...).  The lines
    are formatted and written by a thread of their own: a command never waits for its
    log line, and a process killed outright may lose the last few milliseconds of them
    (the ledger, not the log, is the record of money).  Returns the listener: stopping
    it writes out what is queued.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter(
            "{asctime}{levelname}{name}{message}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    )
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    listener = logging.handlers.QueueListener(records, handler)
    listener.start()
    handing = _HandOver(records)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handing]
        logger.setLevel(level)
        logger.propagate = False
    return listener
