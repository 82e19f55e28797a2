"""The claims loop of a cluster's process, with the database's locks played by a fake."""

from __future__ import annotations

import asyncio

import pytest

from croupier.server.cluster import Claims
from croupier.server.settings import Share


class Locks:
    """Advisory locks as the database keeps them; ``up`` False: the database is down."""

    def __init__(self, held_elsewhere: set[str]) -> None:
        self.elsewhere = held_elsewhere
        self.mine: set[str] = set()
        self.connected = True
        self.up = True
        self.reconnects = 0

    def alive(self) -> bool:
        return self.connected and self.up

    def try_claim(self, table: str) -> bool:
        if not self.alive() or table in self.elsewhere or table in self.mine:
            return False
        self.mine.add(table)
        return True

    def let_go(self, table: str) -> None:
        self.mine.discard(table)

    def reconnect(self) -> None:
        self.reconnects += 1
        self.mine.clear()  # the old connection's locks went with it
        self.connected = self.up
        if not self.up:
            raise ConnectionError("the database does not answer")


def test_a_process_claims_its_share_first_then_what_a_dead_one_left() -> None:
    locks = Locks(held_elsewhere={"b"})
    running: list[str] = []

    async def run(table: str) -> None:
        running.append(table)

    async def stop_all() -> None:
        running.clear()

    claims = Claims(locks, ["a", "b", "c", "d"], Share(0, 2), run=run, stop_all=stop_all)  # type: ignore[arg-type]

    async def scenario() -> None:
        await claims.look(everything=False, preferred=Share(0, 2).prefers(claims.tables))
        assert running == ["a", "c"]  # its share: tables 0 and 2
        await claims.look(everything=True, preferred=[])
        assert running == ["a", "c", "d"]  # past the grace: the free one too, not "b"
        locks.elsewhere.clear()  # b's process died: its lock went with it
        await claims.look(everything=True, preferred=[])
        assert running == ["a", "c", "d", "b"]

    asyncio.run(scenario())


def test_a_lost_connection_stops_every_table_and_claims_again_once_it_is_back() -> None:
    locks = Locks(held_elsewhere=set())
    running: list[str] = []
    stopped: list[int] = []

    async def run(table: str) -> None:
        running.append(table)

    async def stop_all() -> None:
        stopped.append(len(running))
        running.clear()

    claims = Claims(locks, ["a"], Share(0, 1), run=run, stop_all=stop_all)  # type: ignore[arg-type]

    async def scenario() -> None:
        await claims.look(everything=True, preferred=["a"])
        assert running == ["a"] and claims.held == {"a"}
        locks.up = False  # the database goes away: another process may run "a" now
        with pytest.raises(ConnectionError):  # the loop logs it and looks again
            await claims.look(everything=True, preferred=["a"])
        assert running == [] and stopped == [1] and claims.held == set()
        with pytest.raises(ConnectionError):  # still down: it tries again, runs nothing
            await claims.look(everything=True, preferred=["a"])
        assert running == [] and locks.reconnects == 2
        locks.up = True
        await claims.look(everything=True, preferred=["a"])  # reconnects
        await claims.look(everything=True, preferred=["a"])  # claims afresh
        assert running == ["a"] and locks.reconnects == 3

    asyncio.run(scenario())
