"""The claims loop of a process, with the database's leases played by a fake."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import sqlalchemy

from croupier.server.cluster import Claims
from croupier.server.settings import Share


class Leases:
    """Leases as the database keeps them; ``up`` False: the database is down."""

    def __init__(self, held_elsewhere: set[str]) -> None:
        self.elsewhere = held_elsewhere
        self.held: dict[str, int] = {}
        self.epochs: dict[str, int] = {}
        self.up = True
        self.owner = "here:2:y"
        self.renewing: Callable[[set[str]], None] | None = None

    def claim(self, table: str) -> int | None:
        if not self.up:
            raise sqlalchemy.exc.OperationalError("SELECT", {}, Exception("down"))
        if table in self.elsewhere or table in self.held:
            return None
        self.epochs[table] = self.epochs.get(table, 0) + 1
        self.held[table] = self.epochs[table]
        return self.held[table]

    def let_go(self, table: str) -> None:
        self.held.pop(table, None)

    def forget(self, table: str) -> None:
        self.held.pop(table, None)

    def survey(self) -> tuple[set[str], dict[str, str]]:
        if not self.up:
            raise sqlalchemy.exc.OperationalError("SELECT", {}, Exception("down"))
        return {"gone"}, {table: "elsewhere:1:x" for table in self.elsewhere}

    def start_renewing(self, on_lost: Callable[[set[str]], None]) -> None:
        self.renewing = on_lost

    def stop_renewing(self) -> None:
        self.renewing = None


def test_a_process_claims_its_share_first_then_what_a_dead_one_left() -> None:
    leases = Leases(held_elsewhere={"b"})
    running: list[tuple[str, int]] = []

    async def run(table: str, epoch: int) -> None:
        running.append((table, epoch))

    async def stop(table: str) -> None:
        raise AssertionError(f"{table} was never lost")

    claims = Claims(leases, ["a", "b", "c", "d"], Share(0, 2), run=run, stop=stop)  # type: ignore[arg-type]

    async def scenario() -> None:
        await claims.look(everything=False, preferred=Share(0, 2).prefers(claims.tables))
        assert running == [("a", 1), ("c", 1)]  # its share: tables 0 and 2
        # Who runs each table: "b" is not asked for, its owner living.
        assert claims.owners == {"a": "here:2:y", "b": "elsewhere:1:x", "c": "here:2:y"}
        await claims.look(everything=True, preferred=[])
        assert running[-1] == ("d", 1)  # past the grace: the free one too, not "b"
        leases.elsewhere.clear()  # b's owner died: its lease ran out
        await claims.look(everything=True, preferred=[])
        assert running[-1] == ("b", 1) and claims.held == {"a", "b", "c", "d"}
        # A table whose owner is gone is known at each look: it is answered at once.
        assert claims.vacant == {"gone"}
        assert set(claims.owners.values()) == {"here:2:y"}  # every table runs here now

    asyncio.run(scenario())


def test_a_process_running_every_table_does_not_ask_who_runs_what() -> None:
    """A single server runs every table: its looks ask the database nothing (the survey
    was most of an idle server's CPU) until a table is lost; then it looks again."""
    leases = Leases(held_elsewhere=set())
    surveys = 0
    survey = leases.survey

    def counted() -> tuple[set[str], dict[str, str]]:
        nonlocal surveys
        surveys += 1
        return survey()

    leases.survey = counted  # type: ignore[method-assign]
    stopped: list[str] = []

    async def run(table: str, epoch: int) -> None:
        pass

    async def stop(table: str) -> None:
        stopped.append(table)

    claims = Claims(leases, ["a", "b"], Share(0, 1), run=run, stop=stop)  # type: ignore[arg-type]

    async def scenario() -> None:
        await claims.look(everything=False, preferred=["a", "b"])
        assert (claims.held, surveys) == ({"a", "b"}, 1)
        for _ in range(3):
            await claims.look(everything=True, preferred=[])
        assert surveys == 1
        assert (claims.vacant, claims.owners) == (set(), {"a": "here:2:y", "b": "here:2:y"})
        leases.elsewhere.add("b")  # taken over while this process was stopped
        leases.held.pop("b")
        claims.lose({"b"})
        await claims.look(everything=True, preferred=[])
        assert stopped == ["b"] and surveys == 2
        assert claims.owners == {"a": "here:2:y", "b": "elsewhere:1:x"}

    asyncio.run(scenario())


def test_a_lost_table_stops_at_once_and_is_claimed_again_once_free() -> None:
    """A renewal that finds a table gone (another process claimed it) stops it here at
    the next look; when it is free again, it is claimed under a new epoch."""
    leases = Leases(held_elsewhere=set())
    running: dict[str, int] = {}
    stopped: list[str] = []

    async def run(table: str, epoch: int) -> None:
        running[table] = epoch

    async def stop(table: str) -> None:
        stopped.append(table)
        running.pop(table)

    claims = Claims(leases, ["a", "b"], Share(), run=run, stop=stop, claim_seconds=0.01)  # type: ignore[arg-type]

    async def scenario() -> None:
        claims.start()
        await asyncio.sleep(0.05)
        assert running == {"a": 1, "b": 1}
        assert leases.renewing is not None
        leases.elsewhere.add("a")  # another process claimed "a"
        leases.renewing({"a"})  # from the renewals' thread
        await asyncio.sleep(0.05)
        assert stopped == ["a"] and running == {"b": 1} and "a" not in claims.held
        leases.elsewhere.clear()  # its new owner died
        await asyncio.sleep(0.05)
        assert running == {"a": 2, "b": 1}  # claimed again, under a new epoch
        await claims.stop()
        assert leases.renewing is None

    asyncio.run(scenario())


def test_a_database_down_keeps_the_loop_trying() -> None:
    leases = Leases(held_elsewhere=set())
    leases.up = False
    running: dict[str, int] = {}

    async def run(table: str, epoch: int) -> None:
        running[table] = epoch

    async def stop(table: str) -> None:
        running.pop(table)

    claims = Claims(leases, ["a"], Share(), run=run, stop=stop, claim_seconds=0.01)  # type: ignore[arg-type]

    async def scenario() -> None:
        claims.start()
        await asyncio.sleep(0.05)
        assert running == {}
        leases.up = True
        await asyncio.sleep(0.05)
        assert running == {"a": 1}
        await claims.stop()

    asyncio.run(scenario())
