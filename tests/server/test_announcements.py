"""What a table announces while it takes bets: a burst of bets goes out as one
announcement, with every bet's events in order and the layout as it then stands."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from croupier.commands import Decline, PlaceBet
from croupier.round import Phase
from croupier.server import hub as hub_module
from croupier.server.accounts import User
from croupier.server.connections import Connection
from croupier.server.db import connect, migrate
from croupier.server.hub import BETS_ANNOUNCED_EVERY, Hub
from croupier.server.operations import Apply, ConfirmBets, TakeBox, View
from croupier.server.roles import Role
from croupier.server.runtime import TableConfig
from croupier.server.settings import Settings
from croupier.server.wire import Wire
from croupier.shoe import ShuffledShoe
from tests.server.tables import books, make_crowd
from tests.server.test_wire import _Open, _Transport


def test_rws_v5_1_26_a_burst_of_bets_behind_is_announced_once(tmp_path: Path) -> None:
    """Seven seated players and 40 behind them bet at once (RWS v5 1.26: players may
    bet behind a seated player's box).  Every bet is taken; a watcher gets fewer states
    than bets (one announcement for what was queued together, not one a bet), the
    bets' events all and in order, and a last state showing the seated players' bets
    and the bets behind each box as one total: no player behind by name, so that a
    state's size does not grow with the crowd.  A player behind finds his own bet in
    his state's ``mine``."""
    seated = [f"seat{box}" for box in range(1, 8)]
    behind = [f"back{n:02d}" for n in range(40)]
    engine, hub, ids = _rws_table(tmp_path, *seated, *behind)
    watcher = _Transport()
    backer = _Transport()

    async def play() -> None:
        await hub.start()
        try:
            _watch(hub, watcher)
            _watch(hub, backer, User(id=ids["back03"], name="back03", role=Role.PLAYER))
            for box, name in enumerate(seated, start=1):
                await hub.call("rws", TakeBox(name, box))
            await asyncio.gather(
                *(_bet(hub, ids, name, box) for box, name in enumerate(seated, start=1))
            )
            await asyncio.gather(
                *(_bet(hub, ids, name, n % 7 + 1) for n, name in enumerate(behind))
            )
            # The last announcement waits out the least time between two of them.
            await asyncio.sleep(2 * BETS_ANNOUNCED_EVERY)
            await hub.call("rws", View(viewer=None, dealer=False))  # after the last
        finally:
            await hub.stop()

    asyncio.run(play())
    messages = [json.loads(text) for text in _texts(b"".join(watcher.frames))]
    states = [m["state"] for m in messages if m["type"] == "state"]
    events = [m for m in messages if m["type"] == "events"]
    placed = [e for m in events for e in m["events"] if e["type"] == "bet_placed"]
    assert len(placed) == len(seated) + len(behind)
    assert [m["first"] for m in events] == [
        sum(len(m["events"]) for m in events[:i]) for i in range(len(events))
    ]  # each announcement starts where the one before ended: nothing missed
    assert len(states) < len(placed) / 2
    last = states[-1]
    assert [(bet["player"], bet["box"]) for bet in last["bets"]] == [
        (name, box) for box, name in enumerate(seated, start=1)
    ]
    assert [(total["box"], total["players"], total["amount"]) for total in last["behind"]] == [
        (box, 6 if box <= 5 else 5, "150.00" if box <= 5 else "125.00") for box in range(1, 8)
    ]
    assert last["mine"] is None
    assert not any(
        name.encode() in text
        for text in _texts(b"".join(watcher.frames))
        if b'"type":"state"' in text
        for name in behind
    )
    received = [json.loads(text) for text in _texts(b"".join(backer.frames))]
    own = [message["state"] for message in received if message["type"] == "state"]
    assert own[-1]["mine"] == {
        "bets": [{"player": "back03", "box": 4, "bet": "main", "amount": "25.00"}],
        "stakes": [],
        "confirmed": False,
        "results": [],
    }
    assert {k: v for k, v in own[-1].items() if k != "mine"} == {
        k: v for k, v in last.items() if k != "mine"
    }  # the rest is the public state, the same for everyone
    assert books(engine) == []
    engine.dispose()


def test_a_lone_bet_is_announced_at_once(tmp_path: Path) -> None:
    """Announcements of bets are spaced out only for a stream of them: the first bet at
    a table goes out in turn, before the work queued after it (here a view)."""
    engine, hub, ids = _rws_table(tmp_path, "ann")
    watcher = _Transport()

    async def play() -> None:
        await hub.start()
        try:
            _watch(hub, watcher)
            await _bet(hub, ids, "ann", 1)
            await hub.call("rws", View(viewer=None, dealer=False))
        finally:
            await hub.stop()

    asyncio.run(play())
    messages = [json.loads(text) for text in _texts(b"".join(watcher.frames))]
    states = [m["state"] for m in messages if m["type"] == "state"]
    assert [bet["player"] for bet in states[-1]["bets"]] == ["ann"]
    engine.dispose()


def test_rws_v5_1_26_a_player_behind_leaving_is_not_announced_a_seated_one_is(
    tmp_path: Path,
) -> None:
    """RWS v5 1.26: bob bets behind ann's box.  A state names no player behind a box,
    so bob's last socket closing changes nothing a watcher sees and sends him nothing;
    ann's closing is announced, with her name in the state's ``away``."""
    engine, hub, ids = _rws_table(tmp_path, "ann", "bob")
    watcher = _Transport()
    seen: list[int] = []

    async def play() -> None:
        await hub.start()
        try:
            await _bet(hub, ids, "ann", 1)
            await _bet(hub, ids, "bob", 1)
            await hub.call("rws", View(viewer=None, dealer=False))  # the bets are out
            _watch(hub, watcher)
            hub.disconnected("rws", "bob", hub.now())
            await hub.call("rws", View(viewer=None, dealer=False))  # after his leaving
            seen.append(len(watcher.frames))
            hub.disconnected("rws", "ann", hub.now())
            await hub.call("rws", View(viewer=None, dealer=False))
        finally:
            await hub.stop()

    asyncio.run(play())
    assert seen == [0]
    messages = [json.loads(text) for text in _texts(b"".join(watcher.frames))]
    (state,) = [m["state"] for m in messages if m["type"] == "state"]
    assert [gone["player"] for gone in state["away"]] == ["ann"]
    engine.dispose()


def _rws_table(
    tmp_path: Path, *names: str, cards: str | None = None
) -> tuple[sqlalchemy.Engine, Hub, dict[str, int]]:
    """A hub running one rws-v5 table ("rws", a minute to bet, a minute for an offer)
    on a new SQLite database, its shoe starting with ``cards`` if given, and the ids of
    ``names``, each with chips."""
    tmp_path.mkdir(exist_ok=True)
    url = f"sqlite:///{tmp_path / 'table.db'}"
    engine = connect(url)
    migrate(engine)
    ids = make_crowd(engine, *names)
    table = TableConfig(id="rws", preset="rws-v5", betting_seconds=60, offer_seconds=60)
    shoes = {} if cards is None else {"rws": ShuffledShoe.stacked(cards)}
    settings = Settings(url=url, tables=(table,), cache_dir=None, shoes=shoes)
    return engine, Hub(engine, settings), ids


#: Two boxes and the dealer's Ace: 9 9 for box 1, 7 7 for box 2 (RWS v5 deals each box,
#: the dealer's one card, then each box again).
_ACE_UP = "9C 7C AS 9D 7D 5H 6H 4S 8S"


def _insurance_declined(
    tmp_path: Path, behind: int, watchers: int, *, at_once: bool = True
) -> tuple[list[dict[str, Any]], int, list[str]]:
    """ann and bob seated on boxes 1 and 2, ``behind`` players behind them; all bet, the
    dealer shows an Ace, and every one of them declines insurance, all at once or one
    after the other, watched by ``watchers`` sockets.  What the first watcher was sent
    from the deal on, how many declined, and the books' problems."""
    crowd = [f"back{n:02d}" for n in range(behind)]
    players = ["ann", "bob", *crowd]
    engine, hub, ids = _rws_table(tmp_path, *players, cards=_ACE_UP)
    seen = [_Transport() for _ in range(watchers)]
    start: list[int] = []

    async def play() -> None:
        await hub.start()
        try:
            for transport in seen:
                _watch(hub, transport)
            await hub.call("rws", TakeBox("ann", 1))
            await hub.call("rws", TakeBox("bob", 2))
            await _bet(hub, ids, "ann", 1)
            await _bet(hub, ids, "bob", 2)
            await asyncio.gather(*(_bet(hub, ids, name, n % 2 + 1) for n, name in enumerate(crowd)))
            for name in players:
                await hub.call("rws", ConfirmBets(name, hub.now()))
            offers = hub.runtimes["rws"].round.offers
            assert len(offers) == len(players)  # each one's insurance, behind too
            await asyncio.sleep(2 * BETS_ANNOUNCED_EVERY)
            start.append(len(seen[0].frames))
            declines = [
                Apply(
                    Decline(offer.player, offer.box, offer.kind),
                    now=hub.now(),
                    user=ids[offer.player],
                    key=f"no-{offer.player}",
                    given=frozenset({"box", "kind"}),
                )
                for offer in offers
            ]
            if at_once:
                await asyncio.gather(*(hub.call("rws", decline) for decline in declines))
            else:
                for decline in declines:
                    await hub.call("rws", decline)
                    await hub.call("rws", View(viewer=None, dealer=False))  # its state is out
            await hub.call("rws", View(viewer=None, dealer=False))  # after the last
            assert hub.runtimes["rws"].round.phase is Phase.PLAYER_TURNS
        finally:
            await hub.stop()

    asyncio.run(play())
    messages = [json.loads(text) for text in _texts(b"".join(seen[0].frames[start[0] :]))]
    problems = books(engine)
    engine.dispose()
    return messages, len(players), problems


def test_rws_v5_1_26_a_crowds_declines_of_insurance_are_announced_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RWS v5 1.26 (bets behind a box) and 3.8 (insurance, offered to each player when
    the dealer's card is an Ace): before a crowd, what the declines did goes out in a few
    announcements, not a state to every socket a decline, whether they come together
    (one commit) or one by one; every decline's events come, in order, and the last
    state is the players' turns."""
    for at_once in (True, False):
        monkeypatch.setattr(hub_module, "OFFERS_HELD_FROM", 3)
        _crowd_declines(tmp_path / str(at_once), at_once=at_once)


def _crowd_declines(tmp_path: Path, *, at_once: bool) -> None:
    messages, declined, problems = _insurance_declined(
        tmp_path, behind=30, watchers=3, at_once=at_once
    )
    states = [m["state"] for m in messages if m["type"] == "state"]
    events = [m for m in messages if m["type"] == "events"]
    answered = [e for m in events for e in m["events"] if e["type"] == "offer_declined"]
    assert len(answered) == declined == 32
    assert [m["first"] for m in events[1:]] == [
        m["first"] + len(m["events"]) for m in events[:-1]
    ]  # each announcement starts where the one before ended: nothing missed
    assert len(states) < declined / 2
    assert states[-1]["phase"] == "player-turns" and states[-1]["offers"] == []
    assert problems == []


def test_rws_v5_3_8_each_decline_at_a_table_of_a_few_is_announced_at_once(
    tmp_path: Path,
) -> None:
    """RWS v5 3.8: at a table watched by fewer than ``OFFERS_HELD_FROM`` sockets, each
    answer to an offer is a decision, and its state goes out at once (before the work
    queued after it); answers committed together go out as one state."""
    messages, declined, problems = _insurance_declined(
        tmp_path / "apart", behind=0, watchers=1, at_once=False
    )
    states = [m["state"] for m in messages if m["type"] == "state"]
    assert declined == 2 and [len(state["offers"]) for state in states] == [1, 0]
    assert problems == []
    messages, declined, problems = _insurance_declined(
        tmp_path / "together", behind=0, watchers=1, at_once=True
    )
    states = [m["state"] for m in messages if m["type"] == "state"]
    events = [e for m in messages if m["type"] == "events" for e in m["events"]]
    assert [e["type"] for e in events].count("offer_declined") == declined == 2
    assert len(states) <= 2 and states[-1]["offers"] == []
    assert problems == []


def _watch(hub: Hub, transport: _Transport, user: User | None = None) -> None:
    """A watcher at the table (or ``user``) whose socket writes into ``transport``."""
    connection = Connection(socket=None, table="rws", wire=Wire(_Open(), transport))  # type: ignore[arg-type]
    connection.user = user
    hub.connections["rws"].add(connection)


async def _bet(hub: Hub, ids: dict[str, int], name: str, box: int) -> None:
    """``name`` bets 25 on ``box`` (his name is the command's key)."""
    bet = PlaceBet(name, box, Decimal("25"))
    given = frozenset({"box", "amount"})
    await hub.call("rws", Apply(bet, now=hub.now(), user=ids[name], key=name, given=given))


def _texts(stream: bytes) -> list[bytes]:
    """The texts of the server's (unmasked) WebSocket frames written to a socket, in
    order (RFC 6455 5.2: a frame's length is in 7 bits, or in the 2 or 8 bytes after)."""
    texts = []
    while stream:
        length, start = stream[1] & 0x7F, 2
        if length in (126, 127):
            size = 2 if length == 126 else 8
            length, start = int.from_bytes(stream[2 : 2 + size], "big"), 2 + size
        texts.append(stream[start : start + length])
        stream = stream[start + length :]
    return texts


class _Bus:
    """The bus between processes, as a table's owner uses it: what it announced."""

    def __init__(self) -> None:
        self.announced: list[str] = []

    async def announce(self, table: str, body: object) -> None:
        self.announced.append(table)


def test_an_owner_announces_to_the_other_processes_only_while_one_has_sockets_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a cluster each table's sockets are at its owner (handed over by steering), so
    what a table announces crosses the bus only while another process said it has
    sockets there, until that word is older than ``AUDIENCE_SECONDS``, and for as long
    after the owner began to run the table (before the others could say so)."""
    monkeypatch.setattr(hub_module, "AUDIENCE_SECONDS", 0.2)
    _, hub, _ = _rws_table(tmp_path, "ann")
    bus = _Bus()

    async def play() -> None:
        await hub.start()
        hub.bus = bus  # type: ignore[assignment]
        try:
            await hub.broadcast("rws", None)
            assert bus.announced == []  # nobody elsewhere
            hub._heard_audience("other:1:x", ["rws", "online"])
            await hub.broadcast("rws", None)
            assert bus.announced == ["rws"]
            await asyncio.sleep(0.3)  # the other process said nothing since
            await hub.broadcast("rws", None)
            assert bus.announced == ["rws"]
            hub._began["rws"] = asyncio.get_running_loop().time()  # just taken over
            await hub.broadcast("rws", None)
            assert bus.announced == ["rws", "rws"]
        finally:
            hub.bus = None
            await hub.stop()

    asyncio.run(play())
