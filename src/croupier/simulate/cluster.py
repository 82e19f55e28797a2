"""A run's chunks played on a Dask distributed cluster.

Dask distributed (not Ray) because a run is a plain list of independent tasks, each
a small pickled value in and three small integer arrays out: Dask's scheduler, its
futures and its ``dask scheduler`` / ``dask worker`` commands (or its deployments
on Kubernetes, SLURM, PBS and the cloud) cover it whole, with no object store, actors
or cluster runtime to install; it is pure Python and installs with pip.

Each chunk is submitted as one task with the same seed it has on one machine, and the
tallies are merged by chunk index, so a cluster run equals a local run of the same
seed and chunking bit for bit.  Every worker needs croupier installed (the same
version) and compiles the kernel once, into its own disk cache.

>>> from distributed import Client, LocalCluster
>>> from croupier.presets import find_rules
>>> from croupier.simulate.run import simulate
>>> with LocalCluster(
...     processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0"
... ) as cluster:
...     with connect(cluster.scheduler_address) as client:
...         remote = simulate(
...             find_rules("live"), rounds=3_000, seed=5, chunk_rounds=1_000,
...             submit=submitter(client),
...         )
>>> remote == simulate(find_rules("live"), rounds=3_000, seed=5, chunk_rounds=1_000)
True
"""

from __future__ import annotations

import gc
import socket
import sys
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from croupier.errors import CroupierError
from croupier.simulate.run import Chunk, ChunkFuture, _Work, play_chunk

if TYPE_CHECKING:
    from distributed import Client  # type: ignore[import-not-found,unused-ignore]

__all__ = ["ClusterError", "connect", "submitter", "worker_threads"]

#: Seconds to wait for the scheduler before giving up.
CONNECT_SECONDS = 10.0


class ClusterError(CroupierError):
    """A cluster that cannot be reached or used."""


def connect(address: str, timeout: float | None = None) -> Client:
    """A client of the Dask scheduler at ``address`` (``tcp://host:8786``).

    Raises:
        ClusterError: Dask distributed is not installed, or the scheduler does not
            answer within ``timeout`` seconds (:data:`CONNECT_SECONDS` by default).
    """
    try:
        from distributed import Client  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ClusterError(
            "--cluster needs Dask distributed: pip install 'croupier[simulate]'"
        ) from None
    seconds = CONNECT_SECONDS if timeout is None else timeout
    reason = _unreachable(address, seconds)
    if reason is None:
        try:
            client: Client = Client(  # type: ignore[no-untyped-call,unused-ignore]
                address, timeout=f"{seconds}s", set_as_default=False
            )
        except Exception as error:  # Dask raises OSError, TimeoutError, ValueError...
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
    if reason is not None:
        _forget_failed_clients()
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {reason}")
    return client


def _unreachable(address: str, seconds: float) -> str | None:
    """Why a TCP scheduler address cannot be reached, found before any client is made
    (a client that fails to start complains again when it is collected); else ``None``."""
    from distributed.comm.addressing import (  # type: ignore[import-not-found,unused-ignore]
        get_address_host_port,
        parse_address,
    )

    try:
        scheme, _ = parse_address(address)
        if scheme not in ("tcp", "tls"):
            return None
        host, port = get_address_host_port(address)
        socket.create_connection((host, port), timeout=seconds).close()
    except (OSError, ValueError) as error:
        return str(error) or type(error).__name__
    return None


def _forget_failed_clients() -> None:
    """Collect a client that failed to start without its complaints on stderr."""
    hook = sys.unraisablehook
    sys.unraisablehook = lambda _: None
    try:
        gc.collect()
    finally:
        sys.unraisablehook = hook


def worker_threads(client: Client) -> int:
    """The threads of every worker of the cluster, together."""
    threads: dict[str, int] = client.nthreads()  # type: ignore[no-untyped-call,unused-ignore]
    return max(1, sum(threads.values()))


def submitter(client: Client) -> Callable[[_Work, Chunk], ChunkFuture]:
    """Submits each chunk as one task; the compiled game is sent to the workers once."""
    scattered: dict[int, Any] = {}
    run = uuid.uuid4().hex

    def submit(work: _Work, chunk: Chunk) -> ChunkFuture:
        if id(work) not in scattered:
            scattered.clear()
            scattered[id(work)] = client.scatter(  # type: ignore[no-untyped-call,unused-ignore]
                work, broadcast=True
            )
        future: ChunkFuture = client.submit(
            play_chunk,
            scattered[id(work)],
            chunk,
            pure=False,
            key=f"croupier-{run}-chunk-{chunk.index}",
        )
        return future

    return submit
