"""The bus between server processes: PostgreSQL LISTEN/NOTIFY, requests and announcements."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from croupier.server.bus import PAYLOAD_BYTES, Bus, TableUnavailable, decode, encode


def test_a_long_message_is_compressed_then_chunked_and_comes_back_whole() -> None:
    letters = [chr(code) for code in range(33, 123) if chr(code) not in '"\\']
    text = "".join(random.Random(1).choices(letters, k=60_000))  # hardly compressible
    message = {"table": "rws", "text": text}
    chunks = encode(message)
    assert len(chunks) > 2 and all(len(chunk) <= PAYLOAD_BYTES for chunk in chunks)
    pending: dict[str, list[str]] = {}
    heard = [decode(chunk, pending) for chunk in chunks]
    assert heard[:-1] == [[]] * (len(chunks) - 1) and heard[-1] == [message]
    assert pending == {}
    # A chunk missed (a reconnect in between) drops that message, not the next one.
    pending = {}
    assert [decode(chunk, pending) for chunk in chunks[1:]] == [[]] * (len(chunks) - 1)
    assert decode(encode({"n": 1})[0], pending) == [{"n": 1}]


@pytest.mark.postgres
def test_requests_reach_the_tables_owner_and_announcements_every_other_process(
    postgres: Any,
) -> None:
    postgres.require()
    url = postgres.url.render_as_string(hide_password=False)

    async def scenario() -> None:
        owner, other = Bus(url), Bus(url)
        await owner.start()
        await other.start()
        heard: list[tuple[str, dict[str, Any]]] = []
        said: list[dict[str, Any]] = []

        async def serve(table: str, body: dict[str, Any], reply: Any) -> dict[str, Any]:
            await reply({"result": body["n"] * 2})  # the reply goes before the announcement
            await owner.announce(table, {"after": body["n"], "big": "x" * 20_000})
            return {"result": "never sent: the reply went already"}

        async def listen(table: str, body: dict[str, Any]) -> None:
            heard.append((table, body))

        other.listen(listen)
        owner.listen(listen)  # a process does not hear its own announcements
        try:
            await owner.serve("rws", serve)
            reply = await other.request("rws", {"n": 21}, first=said.append)
            assert reply == {"result": 42}
            for _ in range(100):
                if heard:
                    break
                await asyncio.sleep(0.02)
            assert said == [{"result": 42}]
            assert heard == [("rws", {"after": 21, "big": "x" * 20_000})]
            # Nobody runs another table: the request says so once its time is up.
            with pytest.raises(TableUnavailable, match="'online'"):
                await other.request("online", {"n": 1}, timeout=0.3)
            await owner.unserve("rws")
            with pytest.raises(TableUnavailable, match="'rws'"):
                await other.request("rws", {"n": 1}, timeout=0.3)
        finally:
            await owner.stop()
            await other.stop()

    asyncio.run(scenario())
