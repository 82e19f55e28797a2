"""Benchmark: ``croupier report`` over many recorded rounds.

Fills a database with rounds recorded as the table server records them (the round's
record with its shoe, one row per input, the stakes and the settlement in the
double-entry ledger, each player's balance before and after, and the columns the back
office sums, worked out by the functions the server calls: each bet that played, the
shoe's position, true count and order, each round's and each player's money), then
times the report.

The rounds are played through the engine with bots' decisions: at one table, ``--pool``
rounds from the server's own CSPRNG shoe (six bots: flat bettors, a bettor at random,
a hi-lo counter spreading 1 to 8, one with a side bet; each stands on 17 or more,
hits below, declines every offer).  To reach a million rounds fast, each other table
replays that table's rounds with its own round ids, players and times (the same
cards and decisions), written in bulk: COPY on PostgreSQL, executemany on SQLite.

Usage::

    python benchmarks/report.py                                  # 20,000 rounds, SQLite
    python benchmarks/report.py --db postgresql://postgres@localhost/bench --rounds 1000000

The database named by ``--db`` is emptied first (its croupier tables); by default a
temporary SQLite file is used.  Prints the rounds written, the time to write them, the
time of the report (every section) and its main figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import sqlalchemy  # noqa: E402

from croupier.backoffice.advantage import true_counts  # noqa: E402
from croupier.backoffice.columns import (  # noqa: E402
    ShoeColumns,
    irregular_inputs,
    placed_bets,
    shoe_columns,
)
from croupier.backoffice.report import SECTIONS, build_report  # noqa: E402
from croupier.inputs import apply_input  # noqa: E402
from croupier.presets import find_preset  # noqa: E402
from croupier.round import Phase, Round  # noqa: E402
from croupier.server import db  # noqa: E402
from croupier.server.schema import metadata  # noqa: E402
from croupier.shoe import CompositionCheck, ShuffledShoe  # noqa: E402

PRESET = "live"
BOTS = 6
SIDE_BET = "21+3"


@dataclass
class PooledRound:
    """One round played through the engine, its rows to be written once per table."""

    header: str  # the record's JSON, with @@ marks for what each copy changes
    inputs: list[str]  # each input's JSON, with BOT#<n> for the bot's name
    stakes: list[tuple[int, int, int, str]]  # (seq, bot, units, op)
    returns: dict[int, int]  # each bot's return at settlement, units
    held: int  # what the round's account held at settlement
    shoe: ShoeColumns  # the shoe's columns, as the server writes them
    bets: list[tuple[int, int, int, str, int | None]]  # (seq, bot, box, kind, units)
    irregular: int  # irregular inputs


@dataclass
class Ids:
    """The next id of each table with an integer key."""

    transaction: int = 1
    leg: int = 1
    account: int = 1
    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)


def _bet(bot: int, shoe: ShuffledShoe, rng: random.Random) -> int:
    """A bot's main bet, units of 0.01."""
    if bot == 0:
        kept = shoe.snapshot()
        count = true_counts(kept["order"], [kept["position"]])[0]
        return 1000 * min(max(int(count), 1), 8)  # the counter: 1 to 8 units of 10
    if bot == 1:
        return rng.choice((1000, 2000, 5000))
    return 1000 * (1 + bot % 3)


class _Recorder:
    """A round's inputs as the table records them, and each stake as the ledger takes it
    (what a player's money on the table grew by, after each input)."""

    def __init__(self, game: Round, names: list[str]) -> None:
        self.game = game
        self.names = names
        self.inputs: list[tuple[str, str | None, dict[str, Any]]] = []
        self.staked: dict[str, Decimal] = {}
        self.stakes: list[tuple[int, int, int, str]] = []

    def do(self, op: str, player: str | None, args: dict[str, Any]) -> None:
        apply_input(self.game, op, player, args)
        seq = len(self.inputs)
        self.inputs.append((op, player, args))
        now = self.game.staked_by_player()
        for name, amount in now.items():
            delta = amount - self.staked.get(name, Decimal(0))
            if delta > 0:
                self.stakes.append((seq, self.names.index(name), int(delta * 100), op))
        self.staked = dict(now)


def play_pool(rounds: int, seed: int) -> list[PooledRound]:
    """``rounds`` rounds at one table, played through the engine."""
    preset = find_preset(PRESET)
    rules = preset.rules
    rng = random.Random(seed)
    shoe = ShuffledShoe.from_rules(rules)
    check = CompositionCheck(rules.decks)
    pool: list[PooledRound] = []
    rules_values = rules.to_json()
    names = [f"BOT#{bot}" for bot in range(BOTS)]
    for _ in range(rounds):
        if shoe.needs_shuffle:
            shoe.shuffle()
            check.reset()
        opened = shoe.snapshot()
        game = Round(rules, shoe, check=check)
        recorder = _Recorder(game, names)
        do = recorder.do
        for bot in range(BOTS):
            units = _bet(bot, shoe, rng)
            do(
                "bet",
                names[bot],
                {"amount": str(Decimal(units) / 100), "bet": "main", "box": bot + 1},
            )
            if bot == BOTS - 1:
                do("bet", names[bot], {"amount": "5", "bet": SIDE_BET, "box": bot + 1})
        do("close_bets", None, {})
        while game.phase not in (Phase.SETTLED, Phase.VOID):
            if game.offers:
                offer = game.offers[0]
                do("decline", offer.player, {"box": offer.box, "kind": offer.kind.value})
                continue
            turn = game.current_turn
            hand = game.current_hand
            assert turn is not None and hand is not None
            player = game.seated_player(turn[0])
            do("stand" if hand.total >= 17 or not game.can_hit() else "hit", player, {})
        inputs, stakes = recorder.inputs, recorder.stakes
        returns: dict[int, int] = {}
        for result in game.results:
            bot = names.index(result.player)
            returns[bot] = returns.get(bot, 0) + int((result.stake + result.net) * 100)
        header = {
            "closed_at": "@@CLOSED@@",
            "dealt": "rng",
            "number": 0,
            "opened_at": "@@OPENED@@",
            "round_id": "@@RID@@",
            "rules": preset.name,
            "rules_version": str(preset.version),
            "rules_values": rules_values,
            "shoe": opened,
            "shoe_after": shoe.snapshot(),
            "table": "@@TABLE@@",
        }
        text = json.dumps(header, sort_keys=True, separators=(",", ":"))
        entries = [{"op": op, "player": player, "args": args} for op, player, args in inputs]
        bets = [
            (bet.seq, names.index(bet.player), bet.box, bet.kind, bet.units)
            for bet in placed_bets(entries)
        ]
        pool.append(
            PooledRound(
                header=text.replace('"number":0', '"number":@@NUMBER@@'),
                inputs=[
                    json.dumps(
                        {"args": args, "at": "@@AT@@", "key": None, "op": op, "player": player},
                        sort_keys=True,
                        separators=(",", ":"),
                    )
                    for op, player, args in inputs
                ],
                stakes=stakes,
                returns=returns,
                held=sum(units for _, _, units, _ in stakes),
                shoe=shoe_columns(opened),
                bets=bets,
                irregular=irregular_inputs(entries),
            )
        )
    return pool


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _batch() -> dict[str, list[tuple[Any, ...]]]:
    return {name: [] for name in ORDER}


def rows_for(
    pool: list[PooledRound], tables: int, start: datetime, span: timedelta
) -> Iterator[dict[str, list[tuple[Any, ...]]]]:
    """Every row of every table's copy of the pool: the users and their chips first, then
    one batch per table, then the accounts with their balances (a table's rows at a
    time: a million rounds never sit in memory at once)."""
    rows = _batch()
    accounts = rows["accounts"]
    ids = Ids()
    house_of: dict[int, int] = {}
    player_account: dict[tuple[int, int], int] = {}
    user_of: dict[tuple[int, int], int] = {}
    balances: dict[int, int] = {}
    chips = 10_000_000_00
    made = start - timedelta(days=1)
    issuer = ids.account
    accounts.append((issuer, "issuer", "", 0))
    ids.account += 1
    step = span / max(len(pool), 1)
    for table in range(tables):
        name = f"t{table:03d}"
        house_of[table] = ids.account
        accounts.append((ids.account, "house", name, 0))
        ids.account += 1
        for bot in range(BOTS):
            user = table * BOTS + bot + 1
            user_of[table, bot] = user
            rows["users"].append((user, f"bot-{table:03d}-{bot}", "x", "player", 0, made))
            player_account[table, bot] = ids.account
            accounts.append((ids.account, "player", str(user), 0))
            ids.account += 1
            # The chips granted: a grant transaction from the issuer.
            key = f"chips:{user}"
            rows["transactions"].append((ids.transaction, key, "grant", None, _hash(key), "", made))
            rows["legs"].append((ids.leg, ids.transaction, issuer, -chips))
            rows["legs"].append((ids.leg + 1, ids.transaction, player_account[table, bot], chips))
            ids.leg += 2
            ids.transaction += 1
            balances[player_account[table, bot]] = chips
        balances[house_of[table]] = 0
    balances[issuer] = -chips * BOTS * tables
    yield rows
    for table in range(tables):
        name = f"t{table:03d}"
        rows = _batch()
        accounts = rows["accounts"]
        for number, pooled in enumerate(pool, start=1):
            opened = start + step * (number - 1)
            closed = opened + timedelta(seconds=20)
            opened_text, closed_text = opened.isoformat(), closed.isoformat()
            round_id = f"{table:03d}-{number:08d}"
            version = pooled.header.split('"rules_version":"')[1].split('"')[0]
            paid_out = sum(pooled.returns.values())
            header = (
                pooled.header.replace("@@RID@@", round_id)
                .replace("@@TABLE@@", name)
                .replace("@@NUMBER@@", str(number))
                .replace("@@OPENED@@", opened_text)
                .replace("@@CLOSED@@", closed_text)
            )
            rows["rounds"].append(
                (
                    round_id,
                    name,
                    number,
                    PRESET,
                    version,
                    "settled",
                    header,
                    opened,
                    closed,
                    pooled.shoe.position,
                    pooled.shoe.true_count,
                    pooled.shoe.ranks,
                    pooled.irregular,
                    pooled.held - paid_out,
                    pooled.held,
                )
            )
            prefix = f"bot-{table:03d}-"
            for seq, bot, box, kind, units in pooled.bets:
                rows["round_bets"].append(
                    (
                        round_id,
                        seq,
                        name,
                        PRESET,
                        version,
                        opened,
                        "settled",
                        f"{prefix}{bot}",
                        box,
                        kind,
                        units,
                        pooled.shoe.true_count,
                    )
                )
            for seq, text in enumerate(pooled.inputs):
                rows["round_inputs"].append(
                    (round_id, seq, text.replace("BOT#", prefix).replace("@@AT@@", opened_text))
                )
            round_account = ids.account
            accounts.append((round_account, "round", round_id, 0))
            ids.account += 1
            joined: dict[int, int] = {}
            staked_by: dict[int, int] = {}
            for seq, bot, units, op in pooled.stakes:
                staked_by[bot] = staked_by.get(bot, 0) + units
                account = player_account[table, bot]
                if bot not in joined:
                    joined[bot] = balances[account]
                key = f"{round_id}:{seq}:{user_of[table, bot]}"
                rows["transactions"].append(
                    (
                        ids.transaction,
                        key,
                        "stake",
                        round_id,
                        _hash(key),
                        f"round {number} at {name}: {op}",
                        opened,
                    )
                )
                rows["legs"].append((ids.leg, ids.transaction, account, -units))
                rows["legs"].append((ids.leg + 1, ids.transaction, round_account, units))
                ids.leg += 2
                ids.transaction += 1
                balances[account] -= units
            key = f"{round_id}:close"
            rows["transactions"].append(
                (
                    ids.transaction,
                    key,
                    "settle",
                    round_id,
                    _hash(key),
                    f"settle round {round_id}",
                    closed,
                )
            )
            rows["legs"].append((ids.leg, ids.transaction, round_account, -pooled.held))
            ids.leg += 1
            paid = 0
            for bot, units in sorted(pooled.returns.items()):
                if units:
                    account = player_account[table, bot]
                    rows["legs"].append((ids.leg, ids.transaction, account, units))
                    ids.leg += 1
                    balances[account] += units
                    paid += units
            rows["legs"].append((ids.leg, ids.transaction, house_of[table], pooled.held - paid))
            ids.leg += 1
            balances[house_of[table]] += pooled.held - paid
            ids.transaction += 1
            for bot, before in joined.items():
                rows["round_players"].append(
                    (
                        round_id,
                        user_of[table, bot],
                        before,
                        balances[player_account[table, bot]],
                        name,
                        opened,
                        "settled",
                        pooled.returns.get(bot, 0) - staked_by[bot],
                        staked_by[bot],
                    )
                )
        yield rows
    # The accounts' cached balances: their legs' sums (a round's account ends empty).
    rows = _batch()
    rows["balances"] = [(units, account) for account, units in balances.items() if units]
    yield rows


COLUMNS = {
    "users": ("id", "name", "password_hash", "role", "failed_logins", "created_at"),
    "accounts": ("id", "kind", "owner", "balance"),
    "rounds": (
        "id",
        "table_id",
        "number",
        "rules_name",
        "rules_version",
        "status",
        "record",
        "created_at",
        "updated_at",
        "shoe_position",
        "true_count",
        "shoe_ranks",
        "irregular_inputs",
        "house_win",
        "staked",
    ),
    "round_inputs": ("round_id", "seq", "input"),
    "round_bets": (
        "round_id",
        "seq",
        "table_id",
        "rules_name",
        "rules_version",
        "opened_at",
        "status",
        "player",
        "box",
        "kind",
        "units",
        "true_count",
    ),
    "round_players": (
        "round_id",
        "user_id",
        "balance_before",
        "balance_after",
        "table_id",
        "opened_at",
        "status",
        "net",
        "staked",
    ),
    "transactions": (
        "id",
        "idempotency_key",
        "kind",
        "round_id",
        "request_hash",
        "memo",
        "created_at",
    ),
    "legs": ("id", "transaction_id", "account_id", "amount"),
}
ORDER = (
    "users",
    "accounts",
    "rounds",
    "round_inputs",
    "round_bets",
    "round_players",
    "transactions",
    "legs",
)


def empty(engine: sqlalchemy.Engine) -> None:
    """Every croupier table emptied (the schema stays)."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            names = ", ".join(table.name for table in metadata.sorted_tables)
            conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
        else:
            for table in reversed(metadata.sorted_tables):
                conn.execute(table.delete())


def write(
    engine: sqlalchemy.Engine, batches: Iterator[dict[str, list[tuple[Any, ...]]]]
) -> dict[str, int]:
    """All the rows, in bulk, a batch at a time; how many of each table."""
    written = dict.fromkeys(ORDER, 0)
    if engine.dialect.name == "postgresql":
        raw = engine.raw_connection()
        try:
            cursor = raw.cursor()
            # The server's own limits are for play: rows are made between the COPYs.
            cursor.execute("SET statement_timeout = 0")
            cursor.execute("SET idle_in_transaction_session_timeout = 0")
            try:
                # The rows are whole and consistent: no foreign-key check per row (a
                # superuser's setting; without it the load is only slower).
                cursor.execute("SET session_replication_role = replica")
            except Exception:  # not allowed: the checks run
                raw.rollback()
                cursor.execute("SET statement_timeout = 0")
                cursor.execute("SET idle_in_transaction_session_timeout = 0")
            balances: list[tuple[Any, ...]] = []
            for rows in batches:
                balances += rows.get("balances", [])
                for name in ORDER:
                    if not rows[name]:
                        continue
                    columns = ", ".join(COLUMNS[name])
                    with cursor.copy(f"COPY {name} ({columns}) FROM STDIN") as copy:
                        for row in rows[name]:
                            copy.write_row(row)
                    written[name] += len(rows[name])
            for name in ("users", "accounts", "transactions", "legs"):
                cursor.execute(
                    f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                    f"(SELECT max(id) FROM {name}))"
                )
            cursor.executemany("UPDATE accounts SET balance = %s WHERE id = %s", balances)
            raw.commit()
            cursor.execute("ANALYZE")
            raw.commit()
        finally:
            raw.close()
        return written
    with engine.begin() as conn:
        for rows in batches:
            for name in ORDER:
                if not rows[name]:
                    continue
                table = metadata.tables[name]
                names = COLUMNS[name]
                conn.execute(
                    table.insert(), [dict(zip(names, row, strict=True)) for row in rows[name]]
                )
                written[name] += len(rows[name])
            for units, account in rows.get("balances", []):
                conn.execute(
                    metadata.tables["accounts"]
                    .update()
                    .where(metadata.tables["accounts"].c.id == account)
                    .values(balance=units)
                )
        conn.exec_driver_sql("ANALYZE")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="database URL (default: a temporary SQLite)")
    parser.add_argument("--rounds", type=int, default=20_000, help="rounds in all")
    parser.add_argument("--tables", type=int, default=20, help="tables they are played at")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2, help="reports timed")
    parser.add_argument(
        "--no-fill", action="store_true", help="time the report over the rounds already there"
    )
    arguments = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="croupier-report-bench-")
    url = arguments.db or f"sqlite:///{folder}/bench.db"
    engine = db.connect(url)
    db.migrate(engine)
    now = datetime.now(UTC)
    if arguments.no_fill:
        with engine.connect() as conn:
            total = int(conn.exec_driver_sql("SELECT count(*) FROM rounds").scalar_one())
            first = conn.exec_driver_sql("SELECT min(created_at) FROM rounds").scalar_one()
        now = (first if first.tzinfo else first.replace(tzinfo=UTC)) + timedelta(hours=23)
        print(f"{engine.dialect.name}: {total:,} rounds already there")
    else:
        empty(engine)
        per_table = max(arguments.rounds // arguments.tables, 1)
        started = time.perf_counter()
        pool = play_pool(per_table, arguments.seed)
        played = time.perf_counter() - started
        started = time.perf_counter()
        batches = rows_for(pool, arguments.tables, now - timedelta(hours=23), timedelta(hours=22))
        counted = write(engine, batches)
        written = time.perf_counter() - started
        total = per_table * arguments.tables
        print(
            f"{engine.dialect.name}: {total:,} rounds at {arguments.tables} tables "
            f"({counted['round_inputs']:,} inputs, {counted['legs']:,} legs); engine "
            f"{played:.1f} s for {per_table:,} rounds, rows made and written {written:.1f} s"
        )
    with engine.connect() as conn:
        # The exact edges once (cached), outside the timing.
        build_report(conn, since=now - timedelta(hours=24), until=now, table="t000")
    for attempt in range(arguments.repeat):
        started = time.perf_counter()
        with engine.connect() as conn:
            report = build_report(conn, since=now - timedelta(hours=24), until=now)
        seconds = time.perf_counter() - started
        print(f"report {attempt + 1}: {seconds:.2f} s (every section, {total:,} rounds)")
    for section in SECTIONS:
        started = time.perf_counter()
        with engine.connect() as conn:
            build_report(conn, since=now - timedelta(hours=24), until=now, sections={section})
        print(f"  {section}: {time.perf_counter() - started:.2f} s alone")
    handle = sum((entry.total_handle for entry in report.tables), Decimal(0))
    won = sum((entry.house_win for entry in report.tables), Decimal(0))
    theory = sum((entry.theoretical_win for entry in report.tables), Decimal(0))
    flagged = [entry.player for entry in report.advantage if entry.flagged]
    print(
        f"tables {len(report.tables)}, players {len(report.players)}, handle {handle}, "
        f"house win {won}, theoretical win {theory}; flagged as counting: {len(flagged)} of "
        f"{len(report.advantage)} ({', '.join(flagged[:3])}...); shuffle: "
        f"{sum(1 for entry in report.shuffle if entry.passed)} of {len(report.shuffle)} random"
    )
    engine.dispose()


if __name__ == "__main__":
    main()
