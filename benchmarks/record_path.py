"""Benchmark: the table's record path alone, in one process (no sockets, no event loop).

What a table spends on an input between the engine and the database: the engine's
command, the round's record, the stakes in the ledger and the commit.  This is the part
of the server's CPU per action that the tables' own work costs; ``benchmarks/load.py``
measures the whole server (sockets, frames, views) as clients see it.

Two phases, each printing CPU (process time) per input:

* **seated**: 7 players at an rws-v5 table play ``--rounds`` rounds (bet, no more bets,
  each decision: hit below 17, decline every offer);
* **behind**: 7 seated players and ``--behind`` players betting behind their boxes
  (RWS v5 1.26), every bet applied one by one, then the same crowd's bets run together
  in batches of ``--batch`` (one transaction each), then the settlement's commit.

Each line also gives the wall time an input: on loopback, mostly the database's own
work; with ``--delay MS`` (PostgreSQL), every byte between the table and the database
is held at least ``MS`` milliseconds each way by a relay in a process of its own, as a
database on another machine is, so that the wall time counts the round trips an input
makes (the relay's timers keep whole milliseconds: the round trip it makes is printed).
``--anchor REV`` first plays the same with the code of a git revision, for a figure
beside the one it is compared with, measured in the same run.

Usage::

    python benchmarks/record_path.py                      # SQLite in a temporary file
    python benchmarks/record_path.py --db postgresql://postgres@localhost/bench
    python benchmarks/record_path.py --db postgresql://... --delay 0.5 --rounds 20
    python benchmarks/record_path.py --db postgresql://... --delay 0.5 --anchor 04a02b2
    python benchmarks/record_path.py --profile seated     # cProfile's top functions

The database named by ``--db`` is emptied first (its croupier tables).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import multiprocessing
import os
import pstats
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_ANCHOR_ROOT = "CROUPIER_RECORD_PATH_ROOT"
#: The checkout whose code runs: this one, or an anchor's worktree (``--anchor``).
ROOT = Path(os.environ.get(_ANCHOR_ROOT) or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import sqlalchemy  # noqa: E402

from croupier.cards import hand_total  # noqa: E402
from croupier.round import Phase  # noqa: E402
from croupier.server import db  # noqa: E402
from croupier.server.commits import for_engine  # noqa: E402
from croupier.server.runtime import TableRuntime  # noqa: E402
from croupier.server.schema import metadata  # noqa: E402
from tests.server.tables import act, make_crowd, table  # noqa: E402

SEATED = [f"seat{box}" for box in range(1, 8)]


def fresh(url: str | None) -> sqlalchemy.Engine:
    """An engine on an empty, migrated database."""
    if url is None:
        url = f"sqlite:///{tempfile.mkdtemp()}/record.db"
    engine = db.connect(url)
    db.migrate(engine)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            names = ", ".join(t.name for t in metadata.sorted_tables)
            conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
        else:
            for t in reversed(metadata.sorted_tables):
                conn.execute(t.delete())
    return engine


@contextmanager
def cpu(label: str, count: Callable[[], int], profile: bool) -> Iterator[None]:
    """Print the process time and the wall time per unit spent inside the block."""
    profiler = cProfile.Profile() if profile else None
    start, started = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    yield
    if profiler:
        profiler.disable()
    spent, took = time.process_time() - start, time.perf_counter() - started
    n = max(count(), 1)
    print(
        f"  {label:<34} {n:>6} inputs  {spent * 1e3 / n:7.3f} ms CPU an input"
        f"  {took * 1e3 / n:7.3f} ms wall"
    )
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def play_out(runtime: TableRuntime, now: float) -> tuple[int, float]:
    """Play the round to its end as the bots do; the inputs applied and the clock."""
    inputs = 0
    while runtime.round.phase not in (Phase.SETTLED, Phase.VOID):
        game = runtime.round
        now += 1
        if game.offers:
            offer = game.offers[0]
            args = {"box": offer.box, "kind": offer.kind.value}
            act(runtime, "decline", offer.player, args, now=now)
        else:
            assert game.current_turn is not None
            box, hand = game.current_turn
            total = hand_total(game.boxes[box - 1].hands[hand - 1].cards).total
            op = "hit" if total < 17 else "stand"
            act(runtime, op, SEATED[box - 1], {}, now=now)
        inputs += 1
    return inputs, now


def seated(engine: sqlalchemy.Engine, rounds: int, profile: bool) -> None:
    ids = make_crowd(engine, *SEATED, chips="100000.00")
    runtime = table(engine, ids, "rws-v5", commits=for_engine(engine))
    now, inputs = 1.0, 0

    def counted() -> int:
        return inputs

    with cpu(f"seated, {rounds} rounds", counted, profile):
        for _ in range(rounds):
            for box, name in enumerate(SEATED, start=1):
                act(runtime, "bet", name, {"box": box, "amount": "25"}, now=now)
            inputs += len(SEATED)
            runtime.tick(now=now + runtime.config.betting_seconds)
            now += runtime.config.betting_seconds
            inputs += 1
            played, now = play_out(runtime, now)
            inputs += played
            now += runtime.config.pause_seconds + 1
            runtime.tick(now=now)


def behind(engine: sqlalchemy.Engine, crowd: int, batch: int, profile: bool) -> None:
    names = [f"back{n:05d}" for n in range(2 * crowd)]
    ids = make_crowd(engine, *SEATED, *names, chips="100000.00")
    runtime = table(engine, ids, "rws-v5", commits=for_engine(engine))
    now = 1.0
    for box, name in enumerate(SEATED, start=1):
        act(runtime, "bet", name, {"box": box, "amount": "25"}, now=now)
    first, second = names[:crowd], names[crowd:]
    with cpu(f"{crowd} behind, one by one", lambda: crowd, profile):
        for n, name in enumerate(first):
            act(runtime, "bet", name, {"box": n % 7 + 1, "amount": "5"}, now=now)

    def bet(name: str, box: int) -> Callable[[], object]:
        return lambda: act(runtime, "bet", name, {"box": box, "amount": "5"}, now=now)

    with cpu(f"{crowd} more behind, {batch} together", lambda: crowd, profile):
        for start in range(0, crowd, batch):
            runs = [bet(name, n % 7 + 1) for n, name in enumerate(second[start : start + batch])]
            for _, error in asyncio.run(runtime.run_together(runs)):
                assert error is None, error
    runtime.tick(now=now + runtime.config.betting_seconds)
    _, now = play_out(runtime, now + runtime.config.betting_seconds)
    print(
        f"  settlement of {len(SEATED) + 2 * crowd} players' money: "
        f"{(runtime._close_seconds or 0) * 1e3:.0f} ms wall to commit"
    )


async def _relay(listen: socket.socket, host: str, port: int, delay: float) -> None:
    """Relay each connection accepted on ``listen`` to ``host:port``, every chunk of
    bytes held ``delay`` seconds, in order, each way."""

    async def carry(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def out() -> None:
            while True:
                due, chunk = await queue.get()
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                if not chunk:
                    writer.close()
                    return
                writer.write(chunk)

        sending = asyncio.create_task(out())
        while chunk := await reader.read(65536):
            queue.put_nowait((time.monotonic() + delay, chunk))
        queue.put_nowait((time.monotonic() + delay, b""))
        await sending

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        with contextlib.suppress(OSError):
            await asyncio.gather(carry(reader, upstream_writer), carry(upstream_reader, writer))

    server = await asyncio.start_server(accepted, sock=listen)
    await server.serve_forever()


def _relaying(listen: socket.socket, host: str, port: int, delay: float) -> None:
    asyncio.run(_relay(listen, host, port, delay))


def delayed(url: str, delay_ms: float) -> tuple[str, multiprocessing.Process]:
    """``url`` reached through a relay that holds every byte ``delay_ms`` milliseconds
    each way (a process of its own, so that its work is not this one's CPU)."""
    target = sqlalchemy.engine.make_url(db.normalize_url(url))
    listen = socket.create_server(("127.0.0.1", 0))
    relay = multiprocessing.Process(
        target=_relaying,
        args=(listen, target.host or "localhost", target.port or 5432, delay_ms / 1000),
        daemon=True,
    )
    relay.start()
    port = listen.getsockname()[1]
    listen.close()
    return target.set(host="127.0.0.1", port=port).render_as_string(False), relay


def round_trip(url: str) -> float:
    """Seconds a statement's round trip to the database at ``url`` takes (the median
    of 30 ``SELECT 1``)."""
    engine = db.connect(url)
    with engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1")
        took = []
        for _ in range(30):
            started = time.perf_counter()
            conn.exec_driver_sql("SELECT 1")
            took.append(time.perf_counter() - started)
    engine.dispose()
    return sorted(took)[len(took) // 2]


def anchored(revision: str, arguments: list[str]) -> None:
    """Run this benchmark with ``arguments`` on the code of ``revision`` (its ``src`` and
    its tests' helpers, in a git worktree removed after), before this checkout's."""
    from load import worktree  # the load benchmark's worktree of a revision

    with tempfile.TemporaryDirectory() as directory, worktree(revision, directory) as tree:
        print(f"anchor {revision}:", flush=True)
        env = {**os.environ, _ANCHOR_ROOT: str(tree)}
        subprocess.run([sys.executable, __file__, *arguments], env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--behind", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--profile", choices=["seated", "behind"])
    parser.add_argument(
        "--delay",
        type=float,
        default=0.0,
        help="milliseconds each way between the table and PostgreSQL (a relay)",
    )
    parser.add_argument(
        "--anchor",
        metavar="REV",
        help="first play the same with the code of this git revision (a worktree)",
    )
    args = parser.parse_args()
    if args.anchor:
        anchored(args.anchor, [a for a in sys.argv[1:] if a not in ("--anchor", args.anchor)])
        print("current:")
    if args.delay:
        if args.db is None:
            parser.error("--delay needs a PostgreSQL --db")
        args.db, _ = delayed(args.db, args.delay)
        print(
            f"(every byte to and from the database held {args.delay:g} ms each way: "
            f"a round trip {round_trip(args.db) * 1e3:.2f} ms)"
        )
    engine = fresh(args.db)
    print(f"record path on {engine.dialect.name}:")
    seated(engine, args.rounds, args.profile == "seated")
    behind(fresh(args.db), args.behind, args.batch, args.profile == "behind")


if __name__ == "__main__":
    main()
