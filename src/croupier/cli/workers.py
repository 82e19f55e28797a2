"""``croupier serve --workers N``: N server processes on one address, kept running.

This process opens the address once and starts N workers, each ``croupier serve
--share I/N`` on that same listening socket (the kernel hands each new connection to
one of them).  The workers share the tables through the database (see
:mod:`croupier.server.cluster`).  A worker that dies is started again after a second;
its tables are meanwhile taken over by the others.  SIGTERM or Ctrl-C stops them all.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping

import click

from croupier.server.steering import STEER_DIR

__all__ = ["supervise"]

#: Seconds before a worker that died is started again.
RESTART_SECONDS = 1.0
#: Seconds the workers get to stop before they are killed (each first plays out its
#: rounds in play and hands its tables over: ``hub.DRAIN_SECONDS``).
STOP_SECONDS = 45.0


def _listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(address)
    listener.listen(2048)
    listener.set_inheritable(True)
    return listener


def supervise(host: str, port: int, workers: int, *, settings: Mapping[str, str]) -> int:
    """Run ``workers`` servers on ``host:port`` until told to stop; the exit status.

    ``settings`` are the serve options the workers take from the environment
    (``CROUPIER_DB_URL`` and so on).
    """
    listener = _listen(host, port)
    descriptor = listener.fileno()
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CROUPIER_WORKERS", "CROUPIER_SHARE", "CROUPIER_STANDBY")
    }
    environment.update(settings)
    # Where the workers hand each other their tables' sockets (croupier.server.steering):
    # a directory only this user may enter.
    steer = tempfile.mkdtemp(prefix="croupier-workers-")
    environment[STEER_DIR] = steer
    try:
        return _run(workers, descriptor, environment, listener, host, port)
    finally:
        shutil.rmtree(steer, ignore_errors=True)


def _run(
    workers: int,
    descriptor: int,
    environment: dict[str, str],
    listener: socket.socket,
    host: str,
    port: int,
) -> int:

    def start(index: int) -> subprocess.Popen[bytes]:
        command = [
            sys.executable,
            "-m",
            "croupier",
            "serve",
            "--share",
            f"{index}/{workers}",
            "--listen-fd",
            str(descriptor),
        ]
        return subprocess.Popen(command, env=environment, pass_fds=(descriptor,))

    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    children = {index: start(index) for index in range(workers)}
    click.echo(
        f"croupier serving on http://{host}:{port} with {workers} workers "
        f"(pids {', '.join(str(child.pid) for child in children.values())})",
        err=True,
    )
    died: dict[int, float] = {}
    while not stopping:
        time.sleep(0.2)
        now = time.monotonic()
        for index, child in children.items():
            code = child.poll()
            if code is None:
                continue
            if index not in died:
                click.echo(f"croupier worker {index} (pid {child.pid}) ended with {code}", err=True)
                died[index] = now
            elif now - died[index] >= RESTART_SECONDS and not stopping:
                children[index] = start(index)
                del died[index]
                click.echo(
                    f"croupier worker {index} started again (pid {children[index].pid})",
                    err=True,
                )
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for child in children.values():
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    listener.close()
    return 0
