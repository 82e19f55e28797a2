"""Reads asked for at one moment go in one call: a crowd signing in costs a few
balance reads, not one each."""

from __future__ import annotations

import asyncio
import threading

import pytest

from croupier.server.together import ReadTogether


def test_a_burst_is_one_read_and_those_asked_meanwhile_the_next() -> None:
    calls: list[list[int]] = []
    reading = threading.Event()
    go_on = threading.Event()

    def read(keys: set[int]) -> dict[int, str]:
        calls.append(sorted(keys))
        if len(calls) == 1:
            reading.set()
            go_on.wait(5)
        return {key: f"v{key}" for key in keys}

    async def scenario() -> list[str]:
        together: ReadTogether[int, str] = ReadTogether(read)
        first = [asyncio.ensure_future(together.get(key)) for key in (3, 1, 2)]
        await asyncio.to_thread(reading.wait, 5)
        # Asked while the first read runs: read after it, together.
        later = [asyncio.ensure_future(together.get(key)) for key in (4, 1)]
        await asyncio.sleep(0.01)
        go_on.set()
        return await asyncio.gather(*first, *later)

    assert asyncio.run(scenario()) == ["v3", "v1", "v2", "v4", "v1"]
    assert calls == [[1, 2, 3], [1, 4]]


def test_a_failed_read_answers_each_of_its_keys_and_the_next_read_goes_on() -> None:
    def read(keys: set[int]) -> dict[int, int]:
        if 13 in keys:
            raise RuntimeError("the database went away")
        return {key: key for key in keys if key != 7}

    async def scenario() -> None:
        together: ReadTogether[int, int] = ReadTogether(read)
        results = await asyncio.gather(together.get(13), together.get(1), return_exceptions=True)
        assert [type(result) for result in results] == [RuntimeError, RuntimeError]
        assert await together.get(2) == 2
        with pytest.raises(KeyError):
            await together.get(7)  # not in what the read answered

    asyncio.run(scenario())


def test_a_socket_that_goes_away_leaves_the_others_their_answers() -> None:
    def read(keys: set[int]) -> dict[int, int]:
        return {key: -key for key in keys}

    async def scenario() -> int:
        together: ReadTogether[int, int] = ReadTogether(read)
        gone = asyncio.ensure_future(together.get(5))
        stays = asyncio.ensure_future(together.get(5))
        await asyncio.sleep(0)
        gone.cancel()
        return await stays

    assert asyncio.run(scenario()) == -5
