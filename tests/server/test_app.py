"""The server over HTTP and WebSockets: several clients at a table, bad input, recall."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import re
import threading
import time
from collections.abc import Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from croupier.cli import cli
from croupier.script import play_script
from croupier.server import accounts
from croupier.server import connections as connections_module
from croupier.server import hub as hub_module
from croupier.server import sessions as sessions_module
from croupier.server.app import Settings, create_app
from croupier.server.connections import OUTBOX_MESSAGES, Connection
from croupier.server.errors import SessionExpired
from croupier.server.metrics import LOGGERS, log_json_lines
from croupier.server.ownership import TableOwned
from croupier.server.protocol import read_server_message
from croupier.server.runtime import TableConfig
from croupier.server.schema import sessions, users
from croupier.shoe import ShuffledShoe
from tests.server.tables import PASSWORD


@dataclass
class Clock:
    """A clock the test moves."""

    now: float = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def server(db_url: str, clock: Clock, shoes: dict[str, str] | None = None) -> TestClient:
    tables = (
        TableConfig(id="rws", preset="rws-v5", betting_seconds=5, decision_seconds=10),
        TableConfig(id="online", preset="online-8deck", betting_seconds=5),
    )
    decks = {"rws": 8, "online": 8}
    settings = Settings(
        url=db_url,
        tables=tables,
        clock=clock,
        tick_seconds=0.01,
        shoes={
            table: ShuffledShoe.stacked(cards, decks=decks[table])
            for table, cards in (shoes or {}).items()
        },
    )
    return TestClient(create_app(settings))


@pytest.fixture
def clock() -> Clock:
    return Clock()


def sign_up(client: TestClient, name: str) -> str:
    response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    token = client.post("/api/sessions", json={"name": name, "password": PASSWORD}).json()["token"]
    assert isinstance(token, str)
    return token


def receive(socket: WebSocketTestSession) -> dict[str, Any]:
    """The next message, held to the protocol's models of the server's messages."""
    message: dict[str, Any] = socket.receive_json()
    read_server_message(message)
    return message


def receive_until(socket: WebSocketTestSession, kind: str, **fields: Any) -> dict[str, Any]:
    """The next message of ``kind`` (whose fields match), skipping others."""
    for _ in range(200):
        message = receive(socket)
        if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
            return message
    raise AssertionError(f"no {kind} message")


def seat(client: TestClient, table: str, token: str) -> Generator[WebSocketTestSession, None, None]:
    with client.websocket_connect(f"/ws/tables/{table}") as socket:
        receive_until(socket, "welcome")
        socket.send_json({"type": "auth", "token": token})
        welcome = receive_until(socket, "welcome")
        assert welcome["you"] is not None
        receive_until(socket, "balance")
        yield socket


def wait_for(predicate: Any, seconds: float = 5.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting")


@pytest.mark.slow
def test_accounts_sessions_and_lockout(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        me = client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()
        assert me["name"] == "ann" and me["balance"] == "1000.00"  # play-money chips
        client.cookies.clear()  # the login's session cookie: a request without it
        assert client.get("/api/me").status_code == 401
        refusals = [
            client.post("/api/sessions", json={"name": name, "password": "nope-nope"})
            for name in ("ann",) * 5 + ("nobody", "x\x00y")
        ]
        # A wrong password, an unknown name, an impossible one, a name that must wait:
        # one status, one code, one message.
        assert {(r.status_code, r.json()["error"]) for r in refusals} == {(401, "login_failed")}
        assert len({r.json()["message"] for r in refusals}) == 1
        waiting = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        assert waiting.status_code == 401 and waiting.json()["error"] == "login_failed"
        clock.now += 30  # a name never waits longer than 30 seconds
        assert client.post("/api/sessions", json={"name": "ann", "password": PASSWORD}).is_success
        clock.now += 31 * 60  # a session idles out after 30 minutes
        expired = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert expired.status_code == 401 and expired.json()["error"] == "session_expired"
        paths = client.get("/openapi.json").json()["paths"]
        assert {"/api/accounts", "/api/sessions", "/api/me", "/api/rounds/{round_id}"} <= set(paths)


def test_every_bad_message_gets_a_clear_error_and_changes_nothing(
    db_url: str, clock: Clock
) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        with client.websocket_connect("/ws/tables/rws") as socket:
            receive_until(socket, "welcome")
            socket.send_json({"type": "action", "op": "bet", "args": {"box": 1, "amount": "25"}})
            assert receive_until(socket, "error")["code"] == "unauthenticated"
            socket.send_json({"type": "auth", "token": token})
            receive_until(socket, "balance")
            cases = [
                ("{not json", "malformed"),
                ("[1, 2]", "malformed"),
                ('{"type": "dance"}', "unknown_type"),
                ('{"type": "action", "op": "bet", "args": {"box": 1, "amount": 25.5}}', "invalid"),
                ('{"type": "action", "op": "bet", "args": {"box": 1, "amount": "1e3"}}', "invalid"),
                ('{"type": "action", "op": "fly", "args": {}}', "invalid"),
                ('{"type": "action", "op": "bet", "args": {"box": 1}, "x": 1}', "invalid"),
                (
                    '{"type": "action", "op": "bet", "args": {"box": 1, "amount": "9000"}}',
                    "illegal",
                ),
                (
                    '{"type": "action", "op": "bet", "args": {"box": 1, "amount": "2000"}}',
                    "insufficient_funds",
                ),
                ('{"type": "action", "op": "hit", "args": {}}', "illegal"),
                ('{"type": "action", "op": "void", "args": {"reason": "x"}}', "forbidden"),
                ('{"type": "action", "op": "close_bets", "args": {}}', "forbidden"),
                ('{"type": "ping", "pad": "' + "x" * 5000 + '"}', "too_large"),
            ]
            for text, code in cases:
                socket.send_text(text)
                error = receive_until(socket, "error")
                assert error["code"] == code, (text, error)
                assert error["message"]
        me = client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()
        assert me["balance"] == "1000.00"
        state = client.get("/api/tables/rws").json()
        assert state["bets"] == [] and state["phase"] == "betting"


def test_a_connection_sending_too_fast_is_rate_limited(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client, client.websocket_connect("/ws/tables/rws") as socket:
        receive_until(socket, "welcome")
        for _ in range(60):
            socket.send_json({"type": "ping"})
        codes = [receive(socket) for _ in range(60)]
        assert sum(m["type"] == "pong" for m in codes) == 40  # the burst
        assert all(m.get("code") == "rate_limited" for m in codes if m["type"] != "pong")
        # An action refused for its rate names its key: the client knows what to resend.
        socket.send_json({"type": "action", "op": "bet", "args": {}, "key": "k-late"})
        refused = receive_until(socket, "error")
        assert refused["code"] == "rate_limited" and refused["key"] == "k-late"


def test_a_second_player_and_a_watcher_who_never_sees_the_hole_card(
    db_url: str, clock: Clock
) -> None:
    """online-8deck deals a hole card first (peek): ann 9, hole QS, ann 7, up 5.  Bob
    may not bet behind ann's box there (only RWS v5 1.26 has standing players) nor
    decide her hand."""
    with server(db_url, clock, {"online": "9C QS 7D 5H 8C 9H"}) as client:
        ann, bob = sign_up(client, "ann"), sign_up(client, "bob")
        with client.websocket_connect("/ws/tables/online") as watcher:
            receive_until(watcher, "welcome")
            ann_socket = seat(client, "online", ann)
            bob_socket = seat(client, "online", bob)
            a, b = next(ann_socket), next(bob_socket)
            a.send_json(
                {"type": "action", "op": "bet", "args": {"box": 1, "amount": "10"}, "key": "a1"}
            )
            assert receive_until(a, "ack", key="a1")["retried"] is False
            b.send_json(
                {"type": "action", "op": "bet", "args": {"box": 1, "amount": "5"}, "key": "b1"}
            )
            behind = receive_until(b, "error", key="b1")
            assert behind["code"] == "illegal" and "no bets behind" in behind["message"]
            clock.now += 6  # the betting countdown runs out: no more bets
            state = receive_until(watcher, "state")
            while state["state"]["phase"] == "betting":
                state = receive_until(watcher, "state")
            b.send_json({"type": "action", "op": "stand", "args": {}})
            refused = receive_until(b, "error")
            # In the player's words: bob has no hand to decide.
            assert refused["code"] == "illegal"
            assert refused["message"].startswith("It is not your turn"), refused
            a.send_json({"type": "action", "op": "stand", "args": {}, "key": "a2"})
            receive_until(a, "ack", key="a2")
            revealed = False
            shown = [state]
            while not (shown[-1]["type"] == "state" and shown[-1]["state"]["phase"] == "settled"):
                shown.append(receive(watcher))
            for message in shown:
                text = json.dumps(message)
                revealed = revealed or "hole_card_revealed" in text
                assert '"QS"' not in text or revealed, text
            assert revealed
            assert receive_until(a, "balance")["balance"] == "1010.00"  # 16 v 5+Q+8: dealer busts
            for generator in (ann_socket, bob_socket):
                generator.close()


def test_a_restarted_server_closes_the_bets_of_players_not_back_yet(
    db_url: str, clock: Clock
) -> None:
    """RWS v5 5.4 (a round cut off goes on): a server restarted while its table takes
    bets closes them when its clock runs out, though no player has come back yet.  The
    players' ids are then read inside the table's own write, in a transaction that only
    reads: on SQLite a lookup that took the write lock waited for that write, its own,
    until SQLite gave up, and the bets never closed."""
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        socket_gen = seat(client, "rws", token)
        socket = next(socket_gen)
        socket.send_json({"type": "action", "op": "bet", "args": {"box": 2, "amount": "100"}})
        receive_until(socket, "ack")
        socket_gen.close()
    with server(db_url, clock) as client:
        assert client.get("/api/tables/rws").json()["phase"] == "betting"
        clock.now += 6  # the betting countdown runs out: no more bets
        wait_for(lambda: client.get("/api/tables/rws").json()["phase"] != "betting", 20)


def test_recall_replays_the_round_exactly(db_url: str, clock: Clock, tmp_path: Path) -> None:
    with server(db_url, clock, {"rws": "10S 6D 7H 9C KD"}) as client:
        token = sign_up(client, "ann")
        headers = {"Authorization": f"Bearer {token}"}
        socket_gen = seat(client, "rws", token)
        socket = next(socket_gen)
        socket.send_json({"type": "action", "op": "bet", "args": {"box": 2, "amount": "100"}})
        receive_until(socket, "ack")
        clock.now += 6
        wait_for(lambda: client.get("/api/tables/rws").json()["phase"] == "offers")
        # RWS v5 3.16: surrender is offered first; ann declines, then stands on 17.
        decline = {"box": 2, "kind": "surrender"}
        socket.send_json({"type": "action", "op": "decline", "args": decline, "key": "d"})
        receive_until(socket, "ack", key="d")
        socket.send_json({"type": "action", "op": "stand", "args": {}, "key": "s"})
        receive_until(socket, "ack", key="s")
        wait_for(lambda: client.get("/api/tables/rws").json()["phase"] == "settled")
        socket_gen.close()
        # The clock's "No more bets" and the decline, each row the whole of its write,
        # were written from the event loop (loop_writes on PostgreSQL, sqlite_writes on
        # a SQLite file whose group commit had nothing in hand); the bet and the stand,
        # which pays, were not.
        on_loop = client.app.state.hub.commits.on_loop  # type: ignore[attr-defined]
        assert on_loop.rows == 2
        rounds = client.get("/api/rounds", headers=headers).json()
        assert len(rounds) == 1 and rounds[0]["status"] == "settled"
        assert (rounds[0]["balance_before"], rounds[0]["balance_after"]) == ("1000.00", "1100.00")
        record = client.get(f"/api/rounds/{rounds[0]['round']}", headers=headers).json()
        assert record["rules"] == "rws-v5" and record["rules_version"] == 3
        assert record["shoe"] == ["10S", "6D", "7H", "9C", "KD"]
        assert [d["op"] for d in record["recall"]["decisions"]] == ["bet", "decline", "stand"]
        assert all(d["at"] for d in record["recall"]["decisions"])
        replayed = play_script(record)
        assert replayed["players"] == {"ann": "100.00"}
        recall_file = tmp_path / "recall.json"
        recall_file.write_text(json.dumps(record))
        command = CliRunner().invoke(cli, ["round", str(recall_file)])
        assert command.exit_code == 0 and json.loads(command.output)["players"] == {"ann": "100.00"}
        assert record["recall"]["bets"][0]["net"] == "100.00"
        other = sign_up(client, "bob")
        hidden = client.get(
            f"/api/rounds/{rounds[0]['round']}", headers={"Authorization": f"Bearer {other}"}
        )
        assert hidden.status_code == 404


def test_concurrent_bets_cannot_overdraw_one_account(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        first, second = seat(client, "rws", token), seat(client, "online", token)
        a, b = next(first), next(second)
        a.send_json(
            {"type": "action", "op": "bet", "args": {"box": 1, "amount": "600"}, "key": "x"}
        )
        b.send_json(
            {"type": "action", "op": "bet", "args": {"box": 1, "amount": "300"}, "key": "y"}
        )
        b.send_json(
            {"type": "action", "op": "bet", "args": {"box": 2, "amount": "300"}, "key": "z"}
        )
        answers: dict[str, str] = {}
        for socket, keys in ((a, ("x",)), (b, ("y", "z"))):
            for _ in keys:
                message = receive(socket)
                while message["type"] not in ("ack", "error"):
                    message = receive(socket)
                answers[message["key"]] = (
                    message["type"] if message["type"] == "ack" else message["code"]
                )
        assert sorted(answers.values()) == ["ack", "ack", "insufficient_funds"]
        accepted = sum(
            Decimal({"x": 600, "y": 300, "z": 300}[key])
            for key, code in answers.items()
            if code == "ack"
        )
        me = client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json()
        assert Decimal(me["balance"]) == Decimal("1000") - accepted >= 0
        first.close()
        second.close()


def test_the_rules_panel_reads_the_live_tables_summary_and_pay_tables(
    db_url: str, clock: Clock
) -> None:
    """Live, Perfect Pair Side Bet: perfect 25, coloured 12, mixed 6 to 1; 21+3 Side bet:
    suited trips 100, straight flush 40, three of a kind 30, straight 10, flush 5 to 1;
    Doubling Down: "you aren't allowed double down after splitting a pair".  Ratios are
    text, never floats."""
    tables = (TableConfig(id="studio", preset="live", betting_seconds=5),)
    app = create_app(Settings(url=db_url, tables=tables, clock=clock, tick_seconds=0.01))
    with TestClient(app) as client:
        rules = client.get("/api/tables/studio/rules").json()
        assert rules["name"] == "live" and rules["rules"]["perfect_pairs_pays"] == ["25", "12", "6"]
        assert "Split hands may not be doubled." in rules["summary"]
        assert all(isinstance(sentence, str) for sentence in rules["summary"])
        assert list(rules["pay_tables"]) == ["perfect_pairs", "21+3"]
        assert rules["pay_tables"]["perfect_pairs"] == [
            {
                "outcome": "perfect-pair",
                "description": "Perfect pair: same rank and suit",
                "pays": "25",
            },
            {
                "outcome": "coloured-pair",
                "description": "Coloured pair: same rank and colour, different suits",
                "pays": "12",
            },
            {
                "outcome": "mixed-pair",
                "description": "Mixed pair: same rank, one red card and one black",
                "pays": "6",
            },
        ]
        twenty_one_plus_three = rules["pay_tables"]["21+3"]
        assert [(line["outcome"], line["pays"]) for line in twenty_one_plus_three] == [
            ("suited-trips", "100"),
            ("straight-flush", "40"),
            ("three-of-a-kind", "30"),
            ("straight", "10"),
            ("flush", "5"),
        ]
        assert all(line["description"] for line in twenty_one_plus_three)


def test_the_dealer_console_deals_by_hand_and_only_a_dealer_may(db_url: str, clock: Clock) -> None:
    """A physical-shoe table: a dealer account enters the cards and voids with a reason
    (RWS v5 5.17: every bet returned); a player cannot do either."""
    tables = (TableConfig(id="pit", preset="rws-v5", dealt="dealer", betting_seconds=5),)
    app = create_app(Settings(url=db_url, tables=tables, clock=clock, tick_seconds=0.01))
    with TestClient(app) as client:
        ann = sign_up(client, "ann")
        engine = app.state.hub.engine
        with engine.begin() as conn:
            accounts.register(conn, "dealer-1", PASSWORD, role="dealer")
        dealer = client.post(
            "/api/sessions", json={"name": "dealer-1", "password": PASSWORD}
        ).json()["token"]
        player_gen, dealer_gen = seat(client, "pit", ann), seat(client, "pit", dealer)
        player, console = next(player_gen), next(dealer_gen)
        player.send_json({"type": "action", "op": "bet", "args": {"box": 1, "amount": "100"}})
        receive_until(player, "ack")
        clock.now += 6
        wait_for(lambda: client.get("/api/tables/pit").json()["awaiting_card"])
        player.send_json({"type": "action", "op": "card", "args": {"card": "AS"}})
        assert receive_until(player, "error")["code"] == "forbidden"
        console.send_json({"type": "action", "op": "card", "args": {"card": "9S"}, "key": "c1"})
        receive_until(console, "ack", key="c1")
        console.send_json({"type": "action", "op": "card", "args": {"card": "ZZ"}, "key": "c2"})
        assert "Unknown card 'ZZ'" in receive_until(console, "error", key="c2")["message"]
        reason = {"reason": "dealing error: card exposed"}
        console.send_json({"type": "action", "op": "void", "args": reason, "key": "v"})
        receive_until(console, "ack", key="v")
        wait_for(lambda: client.get("/api/tables/pit").json()["phase"] == "void")
        me = client.get("/api/me", headers={"Authorization": f"Bearer {ann}"}).json()
        assert me["balance"] == "1000.00"
        player_gen.close()
        dealer_gen.close()


@pytest.mark.slow
def test_the_page_and_what_it_reads_about_a_table(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        page = client.get("/")
        assert page.status_code == 200
        # The bundle's name carries its hash: read it from the page.
        script = re.search(r'<script type="module"[^>]* src="(/static/[^"]+\.js)"', page.text)
        assert script is not None, page.text
        assert client.get(script.group(1)).status_code == 200
        rules = client.get("/api/tables/rws/rules").json()
        assert rules["name"] == "rws-v5" and rules["citations"]["max_split_hands"]["clause"]
        assert "The dealer stands on all 17s." in rules["summary"]
        assert set(rules["pay_tables"]) == {"player_pair", "under_13", "over_13"}
        assert client.get("/api/tables/online/rules").json()["pay_tables"] == {}
        chart = client.get("/api/tables/rws/strategy").json()
        assert sorted(chart["up_cards"]) == sorted(["A", *map(str, range(2, 11))])
        assert {row["section"] for row in chart["rows"]} == {"hard", "soft", "pair"}
        assert "<svg" in chart["svg"] and chart["title"]
        rtp = client.get("/api/tables/rws/rtp").json()
        assert abs(rtp["main"] - 0.998089) < 1e-5  # the README's basic-strategy RTP, rws-v5
        assert set(rtp["side_bets"]) == {"player_pair", "under_13", "over_13"}
        assert client.get("/api/tables/nope/rules").json()["error"] == "no_table"


def test_a_socket_opened_before_logout_can_do_nothing_after_it(db_url: str, clock: Clock) -> None:
    """Every command is held to a live session: logging out elsewhere ends the rights of
    a socket that authenticated before."""
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        with client.websocket_connect("/ws/tables/rws") as socket:
            receive_until(socket, "welcome")
            socket.send_json({"type": "auth", "token": token})
            receive_until(socket, "balance")
            gone = client.delete(
                "/api/sessions/current", headers={"Authorization": f"Bearer {token}"}
            )
            assert gone.status_code == 204
            socket.send_json(
                {"type": "action", "op": "bet", "args": {"box": 1, "amount": "25"}, "key": "b1"}
            )
            refused = receive_until(socket, "error")
            assert refused["code"] == "session_expired" and refused["key"] == "b1"
            socket.send_json({"type": "action", "op": "bet", "args": {"box": 1, "amount": "25"}})
            assert receive_until(socket, "error")["code"] == "unauthenticated"
        assert client.get("/api/tables/rws").json()["bets"] == []


def _command(socket: WebSocketTestSession) -> None:
    """A command held to the session, then a ping: once the pong is back (a socket's
    messages are handled in order), the command's session check is done."""
    socket.send_json({"type": "take_box", "box": 1})
    socket.send_json({"type": "ping"})
    receive_until(socket, "pong")


def _counted(
    trust: sessions_module.Sessions, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], list[set[str]]]:
    """What ``trust`` asks the database from now on: the tokens confirmed one by one,
    and the sets confirmed together."""
    asked: list[str] = []
    batches: list[set[str]] = []
    confirm, confirm_all = trust.confirm, trust.confirm_all

    def one(token: str, now: float) -> int:
        asked.append(token)
        return confirm(token, now)

    def many(tokens: set[str], now: float) -> set[str]:
        batches.append(set(tokens))
        return confirm_all(tokens, now)

    monkeypatch.setattr(trust, "confirm", one)
    monkeypatch.setattr(trust, "confirm_all", many)
    return asked, batches


def test_a_session_in_use_is_confirmed_again_in_the_background_never_waited_for(
    db_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket's sign-in reads its session, and its commands are taken on that word;
    past SESSION_RENEW_SECONDS a command is taken on the trust it has, and the session
    is confirmed again (marked as used) behind it, in one transaction with every other
    one due: a socket in play never waits for the database's word."""
    monkeypatch.setattr(sessions_module, "SESSIONS_RENEWED_EVERY", 0.05)
    with server(db_url, clock) as client:
        hub: hub_module.Hub = client.app.state.hub  # type: ignore[attr-defined]
        trust = hub.sessions
        asked, batches = _counted(trust, monkeypatch)
        token = sign_up(client, "ann")
        socket = next(seated := seat(client, "rws", token))
        _command(socket)
        # Signing in read the session: the first command is taken on that word.
        assert asked == [] and batches == []
        first = clock.now
        clock.now = first + sessions_module.SESSION_RENEW_SECONDS + 1
        _command(socket)  # taken on the trust it has, and confirmed again behind it
        wait_for(lambda: batches == [{token}])
        assert asked == []
        renewed = clock.now
        wait_for(lambda: trust.trusted_since(token) == renewed)
        with hub.engine.connect() as conn:
            seen = conn.execute(
                sa.select(sessions.c.last_seen).where(
                    sessions.c.token_hash == accounts.hash_token(token)
                )
            ).scalar_one()
        assert seen.replace(tzinfo=UTC).timestamp() == renewed  # marked as used then
        # Past the first word's trust, on the renewal's word: still no wait.
        clock.now = first + sessions_module.SESSION_RECHECK_SECONDS + 2
        _command(socket)
        assert asked == []
        seated.close()


def _last_seen(hub: hub_module.Hub, token: str) -> float:
    with hub.engine.connect() as conn:
        seen: datetime = conn.execute(
            sa.select(sessions.c.last_seen).where(
                sessions.c.token_hash == accounts.hash_token(token)
            )
        ).scalar_one()
    return seen.replace(tzinfo=UTC).timestamp()


def test_an_idle_sockets_session_is_read_again_in_the_background_not_marked_as_used(
    db_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player who acts once a round, more than SESSION_RECHECK_SECONDS apart, never
    waits for the database either: every second the server reads again the sessions of
    its sockets confirmed SESSION_RENEW_SECONDS ago, in one transaction, without marking
    them as used (a player who only watches is not using his session).  His command is
    taken on that word and marks the session as used behind it.  An account disabled
    from the command line meanwhile loses its trust at that read: its next command is
    refused, with why."""
    monkeypatch.setattr(sessions_module, "SESSIONS_RENEWED_EVERY", 0.05)
    monkeypatch.setattr(hub_module, "SWEEP_SECONDS", 0.05)
    with server(db_url, clock) as client:
        hub: hub_module.Hub = client.app.state.hub  # type: ignore[attr-defined]
        trust = hub.sessions
        ann = sign_up(client, "ann")
        with client.websocket_connect("/ws/tables/rws") as socket:
            receive_until(socket, "welcome")
            socket.send_json({"type": "auth", "token": ann})
            receive_until(socket, "balance")
            signed_in = clock.now
            asked, batches = _counted(trust, monkeypatch)
            kept = trust.kept
            # Idle: read again once its trust is SESSION_RENEW_SECONDS old, not marked.
            clock.now = signed_in + sessions_module.SESSION_RENEW_SECONDS + 1
            read = clock.now
            wait_for(lambda: trust.trusted_since(ann) == read)
            assert trust.kept > kept and asked == [] and batches == []
            assert _last_seen(hub, ann) == signed_in
            # Past the sign-in's trust, on the read's: the command waits for nothing,
            # and marks the session as used behind it.
            clock.now = signed_in + sessions_module.SESSION_RECHECK_SECONDS + 2
            _command(socket)
            assert asked == [] and trust.waited == 0
            wait_for(lambda: batches == [{ann}])
            # Marked once its transaction commits (the batch is counted as it is sent).
            marked = clock.now
            wait_for(lambda: _last_seen(hub, ann) == marked)
            # Disabled while idle: the next read takes the trust away.
            with hub.engine.begin() as conn:
                conn.execute(
                    sa.update(users)
                    .where(users.c.name == "ann")
                    .values(disabled_at=datetime.fromtimestamp(clock.now, UTC))
                )
            clock.now += sessions_module.SESSION_RENEW_SECONDS + 1
            wait_for(lambda: trust.trusted_since(ann) is None)
            socket.send_json({"type": "take_box", "box": 2})
            refused = receive_until(socket, "error")
            assert refused["code"] == "session_expired" and "disabled" in refused["message"]
        page = client.get("/metrics").text
        assert 'croupier_session_checks{how="kept"}' in page


def test_commands_waiting_for_their_sessions_together_wait_for_one_transaction(
    db_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sockets whose trust ran out, commanding at one moment (a crowd betting behind a
    box at once), wait for one transaction together, not one each; a session the
    database no longer holds among them is refused alone, with why, and the others go
    on."""
    with server(db_url, clock) as client:
        hub: hub_module.Hub = client.app.state.hub  # type: ignore[attr-defined]
        trust = hub.sessions
        names = [f"player{n}" for n in range(6)]
        tokens = [sign_up(client, name) for name in names]
        asked, batches = _counted(trust, monkeypatch)
        with hub.engine.begin() as conn:  # player5 disabled from the command line
            conn.execute(
                sa.update(users)
                .where(users.c.name == "player5")
                .values(disabled_at=datetime.fromtimestamp(clock.now, UTC))
            )

        async def together() -> list[BaseException | None]:
            return await asyncio.gather(
                *(trust.check(token, clock.now) for token in tokens), return_exceptions=True
            )

        answers = asyncio.run(together())
        assert answers[:5] == [None] * 5
        assert isinstance(answers[5], SessionExpired) and "disabled" in str(answers[5])
        assert batches == [set(tokens)]  # one transaction for the six
        assert asked == [tokens[5]]  # and player5 asked alone, for why
        assert all(trust.trusted_since(token) == clock.now for token in tokens[:5])
        assert trust.trusted_since(tokens[5]) is None


def test_a_session_ended_while_it_is_confirmed_again_stays_ended(db_url: str, clock: Clock) -> None:
    """A logout while the background confirmation is under way is not undone by its
    answer, and a session the database no longer holds (an account disabled from the
    command line) loses its trust at once: its next command is refused."""
    with server(db_url, clock) as client:
        hub: hub_module.Hub = client.app.state.hub  # type: ignore[attr-defined]
        ann, bob = sign_up(client, "ann"), sign_up(client, "bob")
        now = clock.now
        trust = hub.sessions
        asyncio.run(trust.check(ann, now))
        asyncio.run(trust.check(bob, now))
        trust.forget(ann)  # a logout, after the confirmation read ann's session
        with hub.engine.begin() as conn:
            conn.execute(
                sa.update(users)
                .where(users.c.name == "bob")
                .values(disabled_at=datetime.fromtimestamp(now, UTC))
            )
        asyncio.run(trust.renew({ann, bob}))
        assert trust.trusted_since(ann) is None and trust.trusted_since(bob) is None


def test_binary_frames_and_deeply_nested_json_get_typed_errors(db_url: str, clock: Clock) -> None:
    """Garbage costs only its sender a typed error; the socket stays up."""
    with server(db_url, clock) as client, client.websocket_connect("/ws/tables/rws") as socket:
        receive_until(socket, "welcome")
        socket.send_bytes(b"\x00\xff\xfe")
        error = receive_until(socket, "error")
        assert error["code"] == "malformed" and "binary" in error["message"]
        socket.send_text("[" * 1500 + "]" * 1500)
        error = receive_until(socket, "error")
        assert error["code"] == "malformed"
        socket.send_json({"type": "ping"})
        assert receive_until(socket, "pong") == {"type": "pong"}


def test_the_rate_limit_is_per_player_not_per_socket(db_url: str, clock: Clock) -> None:
    """Two sockets of one player share his rate: together they get one burst."""
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        with (
            client.websocket_connect("/ws/tables/rws") as first,
            client.websocket_connect("/ws/tables/online") as second,
        ):
            for socket in (first, second):
                receive_until(socket, "welcome")
                socket.send_json({"type": "auth", "token": token})
                receive_until(socket, "balance")
            answers = []
            for socket in (first, second):
                for _ in range(30):
                    socket.send_json({"type": "ping"})
                answers += [receive(socket) for _ in range(30)]
            pongs = sum(message["type"] == "pong" for message in answers)
            limited = sum(message.get("code") == "rate_limited" for message in answers)
            assert pongs + limited == 60
            # One burst of 40 between both (the clock stands still); each socket alone
            # would have had all of its 30 answered.
            assert pongs == 40


class _SlowSocket:
    """A socket whose ``stall``-th send never finishes (the client stopped reading;
    ``stall=0``: every send goes out)."""

    def __init__(self, stall: int) -> None:
        self.texts: list[str] = []
        self.stall = stall

    async def send_text(self, text: str) -> None:
        if len(self.texts) + 1 == self.stall:
            await asyncio.Event().wait()
        self.texts.append(text)


class _Transport:
    """A network transport that says whether it was aborted."""

    aborted = False

    def abort(self) -> None:
        self.aborted = True


def test_a_client_that_stops_reading_is_dropped_and_never_waited_on() -> None:
    """One stalled socket must not hold up its table (or, through the clocks, others):
    sends are queued per connection, and a full queue drops that connection alone."""

    async def scenario() -> None:
        handler = asyncio.create_task(asyncio.Event().wait())  # stands for its receive loop
        slow = _SlowSocket(stall=1)
        stalled = Connection(slow, "rws", handler=handler, transport=_Transport())  # type: ignore[arg-type]
        stalled.writer = asyncio.create_task(stalled.write())
        await asyncio.sleep(0)
        started = time.monotonic()
        for number in range(OUTBOX_MESSAGES + 2):
            stalled.push(f"message {number}")  # never awaits
        assert time.monotonic() - started < 1.0
        assert stalled.dropped is not None and "not reading" in stalled.dropped
        assert stalled.transport.aborted  # its buffers and descriptor go at once
        await asyncio.sleep(0)
        assert handler.cancelled()
        stalled.writer.cancel()

    asyncio.run(scenario())


def test_queued_messages_go_out_in_order_with_no_task_per_message() -> None:
    """A table's fan-out is most of what a server sends: the writer sends what waits in
    the outbox one after the other under one timer, making no task per message."""

    async def scenario() -> list[str]:
        loop = asyncio.get_running_loop()
        socket = _SlowSocket(stall=0)
        connection = Connection(socket, "rws")  # type: ignore[arg-type]
        connection.writer = asyncio.create_task(connection.write())
        await asyncio.sleep(0)
        made: list[object] = []

        def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
            made.append(coro)
            return asyncio.Task(coro, loop=loop, **kwargs)

        loop.set_task_factory(factory)
        for number in range(100):
            connection.push(f"message {number}")
        for _ in range(10):
            await asyncio.sleep(0)
        loop.set_task_factory(None)
        assert made == []
        connection.writer.cancel()
        return socket.texts

    assert asyncio.run(scenario()) == [f"message {number}" for number in range(100)]


def test_a_send_that_takes_too_long_drops_the_client_even_in_a_run_of_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each message has its own time limit, the third of a run as much as the first."""
    monkeypatch.setattr(connections_module, "SEND_SECONDS", 0.05)

    async def scenario() -> Connection:
        handler = asyncio.create_task(asyncio.Event().wait())
        slow: Any = _SlowSocket(stall=3)
        connection = Connection(slow, "rws", handler=handler, transport=_Transport())
        connection.writer = asyncio.create_task(connection.write())
        for number in range(5):
            connection.push(f"message {number}")
        await asyncio.wait_for(connection.writer, 30)
        await asyncio.sleep(0)
        assert handler.cancelled()
        return connection

    connection = asyncio.run(scenario())
    assert connection.dropped == "a message took over 0.05 s to send"
    assert connection.transport.aborted
    assert connection.socket.texts == ["message 0", "message 1"]  # type: ignore[attr-defined]


@pytest.mark.slow
def test_failed_logins_from_one_address_slow_that_address_alone(db_url: str, clock: Clock) -> None:
    """Throttled per address too: twenty failures from one address (on any names) make
    it wait, with the same refusal, and it may try again a few seconds later."""
    with server(db_url, clock) as client:
        sign_up(client, "ann")
        for number in range(20):
            body = {"name": f"guess{number}", "password": "nope-nope"}
            assert client.post("/api/sessions", json=body).status_code == 401
        right = {"name": "ann", "password": PASSWORD}
        waiting = client.post("/api/sessions", json=right)
        assert waiting.status_code == 401 and waiting.json()["error"] == "login_failed"
        clock.now += 3
        assert client.post("/api/sessions", json=right).is_success


def test_a_round_id_with_a_nul_byte_is_not_found(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        answer = client.get("/api/rounds/ab%00cd", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 404 and answer.json()["error"] == "no_round"


def test_a_second_server_on_the_same_database_leaves_the_first_ones_round_alone(
    db_url: str, clock: Clock
) -> None:
    """A table runs in one process at a time: a second server on the database is
    refused before it reads anything, so it never records an interruption of (and
    voids) a round that is alive in the first; once the first stops, it may start."""
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        socket_gen = seat(client, "rws", token)
        socket = next(socket_gen)
        socket.send_json({"type": "action", "op": "bet", "args": {"box": 1, "amount": "100"}})
        receive_until(socket, "ack")
        with pytest.raises(TableOwned, match="another croupier process"):
            create_app(Settings(url=db_url, tables=(TableConfig(id="rws", preset="rws-v5"),)))
        assert client.get("/api/tables/rws").json()["bets"] != []
        socket.send_json({"type": "ping"})
        assert receive_until(socket, "pong") == {"type": "pong"}
        socket_gen.close()
    again = create_app(Settings(url=db_url, tables=(TableConfig(id="rws", preset="rws-v5"),)))
    with TestClient(again) as client:
        assert client.get("/api/tables/rws").json()["phase"] == "betting"


def test_json_log_lines_are_written_by_a_thread_of_their_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``croupier serve --log json`` writes one JSON object per record, with the fields
    the server adds, from a thread of its own (a command never waits on its log line);
    stopping the listener writes out what is queued."""
    loggers = {name: logging.getLogger(name) for name in LOGGERS}
    saved = {name: (lg.handlers, lg.level, lg.propagate) for name, lg in loggers.items()}
    try:
        listener = log_json_lines()
        logging.getLogger("croupier.money").info(
            "stake", extra={"kind": "stake", "amount": "25.00", "table": "rws"}
        )
        logging.getLogger("croupier.commands").debug("not at INFO")
        listener.stop()
    finally:
        for name, (handlers, level, propagate) in saved.items():
            loggers[name].handlers, loggers[name].level = handlers, level
            loggers[name].propagate = propagate
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert len(lines) == 1
    (line,) = lines
    assert (line["logger"], line["level"], line["message"]) == ("croupier.money", "INFO", "stake")
    assert (line["kind"], line["amount"], line["table"]) == ("stake", "25.00", "rws")
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", line["time"])


def test_the_operator_sees_metrics_health_and_every_money_movement_logged(
    db_url: str, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """/metrics in Prometheus' text format counts commands, rounds and requests; /health
    reaches the database; each committed ledger transaction is one ``croupier.money``
    record, and each command one ``croupier.commands`` record."""
    caplog.set_level(logging.INFO, logger="croupier")
    with server(db_url, clock, {"online": "9C QS 7D 5H 8C 9H"}) as client:
        ann = sign_up(client, "ann")
        seated = seat(client, "online", ann)
        socket = next(seated)
        socket.send_json(
            {"type": "action", "op": "bet", "args": {"box": 1, "amount": "10"}, "key": "k1"}
        )
        receive_until(socket, "ack", key="k1")
        socket.send_json({"type": "action", "op": "stand", "args": {}})
        refused = receive_until(socket, "error")  # still betting
        assert (refused["code"], refused["message"]) == ("illegal", "It is not your turn.")
        assert "phase" not in refused["message"] and "clause" not in refused
        clock.now += 6  # no more bets: the cards are dealt
        state = receive_until(socket, "state")
        while state["state"]["phase"] == "betting":
            state = receive_until(socket, "state")
        socket.send_json({"type": "action", "op": "stand", "args": {}, "key": "k2"})
        receive_until(socket, "ack", key="k2")
        assert receive_until(socket, "balance")["balance"] == "1010.00"
        seated.close()

        health = client.get("/health").json()
        assert health["status"] == "ok" and health["database"] == "ok"
        assert set(health["tables"]) == {"rws", "online"}
        assert health["figures"] == "ready"  # nothing being worked out at start
        # While the tables' figures are worked out at start, /health says so (a load
        # test waits for it: a core's worth of work on a machine with an empty cache).
        working = threading.Event()
        client.app.state.warming = [threading.Thread(target=working.wait)]  # type: ignore[attr-defined]
        client.app.state.warming[0].start()  # type: ignore[attr-defined]
        assert client.get("/health").json()["figures"] == "warming"
        working.set()
        client.app.state.warming[0].join()  # type: ignore[attr-defined]
        assert client.get("/health").json()["figures"] == "ready"
        metrics = client.get("/metrics")
        assert metrics.headers["content-type"].startswith("text/plain")
        text = metrics.text
        for line in (
            'croupier_actions_total{op="bet",result="ok",table="online"} 1.0',
            'croupier_actions_total{op="stand",result="illegal",table="online"} 1.0',
            'croupier_actions_total{op="stand",result="ok",table="online"} 1.0',
            'croupier_rounds_total{table="online"} 1.0',
            'croupier_round_close_seconds_count{table="online"} 1.0',
            'croupier_action_seconds_count{table="online"} 2.0',
            'croupier_http_request_seconds_count{method="POST",route="/api/accounts",'
            'status="201"} 1.0',
        ):
            assert line in text, line
        assert 'croupier_table_lag_seconds{table="online"}' in text

    money = [r for r in caplog.records if r.name == "croupier.money"]
    # The welcome chips, the stake, the round's settlement: each once, after it committed.
    assert [r.__dict__["kind"] for r in money] == ["grant", "stake", "settle"]
    for record in money:
        legs = record.__dict__["legs"]
        assert sum(Decimal(amount) for amount in legs.values()) == 0  # double entry
    commands = [r for r in caplog.records if r.name == "croupier.commands"]
    played = [r for r in commands if r.__dict__["op"] != "auth"]
    assert [(r.__dict__["op"], r.__dict__["result"]) for r in played] == [
        ("bet", "ok"),
        ("stand", "illegal"),
        ("stand", "ok"),
    ]
    assert {r.__dict__["user"] for r in played} == {"ann"}


def test_rws_v5_5_8_a_player_alone_confirms_and_the_deal_starts_at_once(
    db_url: str, clock: Clock
) -> None:
    """RWS v5 5.8: once every player with a bet on the layout has confirmed, "No more
    bets" comes without waiting for the clock; the player hears his bets' total."""
    with server(db_url, clock, {"rws": "10S 6D 7H 9C KD"}) as client:
        token = sign_up(client, "ann")
        ann = seat(client, "rws", token)
        socket = next(ann)
        try:
            socket.send_json({"type": "confirm_bets"})
            assert receive_until(socket, "error")["code"] == "no_bets"
            for key, chip in (("c1", "25"), ("c2", "10")):  # each chip sent as it lands
                socket.send_json(
                    {"type": "action", "op": "bet", "args": {"box": 1, "amount": chip}, "key": key}
                )
                receive_until(socket, "ack", key=key)
            socket.send_json({"type": "confirm_bets"})
            assert receive_until(socket, "bets_confirmed")["total"] == "35.00"
            state = receive_until(socket, "state")
            while state["state"]["phase"] == "betting":
                state = receive_until(socket, "state")
            assert state["state"]["phase"] == "offers"  # surrender (RWS v5 3.16): dealt
            assert state["state"]["offers"][0]["then"] == ["hit", "stand", "double"]
        finally:
            ann.close()
        log = client.get("/api/tables/rws/log").json()
        assert [entry["number"] for entry in log] == [1]
        assert [e["type"] for e in log[0]["events"]][:3] == ["bet_placed"] * 2 + ["bets_closed"]
        assert client.get("/api/tables/nope/log").json()["error"] == "no_table"


def test_sign_up_errors_are_said_in_words(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        answers = [
            client.post("/api/accounts", json={"name": name, "password": password})
            for name, password in [("a b", PASSWORD), ("al", PASSWORD), ("ann", "short")]
        ]
        assert [answer.status_code for answer in answers] == [422] * 3
        assert [answer.json() for answer in answers] == [
            {
                "error": "invalid_account",
                "message": 'A name may use only letters, digits and _ . - (not "a b").',
            },
            {"error": "invalid_account", "message": "A name has 3 to 40 characters; 'al' has 2."},
            {
                "error": "invalid_account",
                "message": "A password has at least 8 characters; this one has 5.",
            },
        ]
        missing = client.post("/api/accounts", json={"name": "ann"}).json()
        assert missing == {"error": "invalid_account", "message": "Give a password."}
        # Elsewhere the same shape, naming the field.
        elsewhere = client.post("/api/sessions", json={}).json()
        assert elsewhere == {"error": "invalid", "message": "body name: Field required"}


def test_the_page_goes_out_compressed_and_cached_by_its_hashed_names(
    db_url: str, clock: Clock
) -> None:
    with server(db_url, clock) as client:
        page = client.get("/", headers={"Accept-Encoding": "gzip"})
        assert page.headers["cache-control"] == "no-cache"
        script = re.search(r'src="(/static/assets/[^"]+\.js)"', page.text)
        assert script is not None
        with client.stream("GET", script.group(1), headers={"Accept-Encoding": "gzip"}) as bundle:
            sent = b"".join(bundle.iter_raw())
        assert bundle.headers["content-encoding"] == "gzip"
        assert bundle.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert len(sent) < len(gzip.decompress(sent)) / 2  # the bundle compresses well
        index = client.get("/static/index.html")
        assert index.headers["cache-control"] == "no-cache"


def test_the_server_extra_alone_serves_sqlite_without_postgresqls_driver(tmp_path: Path) -> None:
    """``pip install 'croupier[server]'`` has no PostgreSQL driver: a server on SQLite
    (the README's default) starts and answers without importing it."""
    program = f"""
import sys
sys.modules["psycopg"] = None  # as if the postgres extra were not installed
from fastapi.testclient import TestClient
from croupier.server.app import Settings, create_app
from croupier.server.runtime import TableConfig
app = create_app(Settings(url="sqlite:///{tmp_path / "alone.db"}",
                          tables=(TableConfig(id="rws", preset="rws-v5"),)))
with TestClient(app) as client:
    answer = client.get("/health")
    print(answer.status_code, sorted(answer.json()["tables"]))
print("psycopg" in sys.modules and sys.modules["psycopg"] is not None)
"""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["200 ['rws']", "False"]


def test_events_say_their_place_in_the_round_and_a_client_asks_for_what_it_missed(
    db_url: str, clock: Clock
) -> None:
    """Each ``events`` message says where its events start in the round (``first``),
    so a client sees a gap (a failover) and asks ``events_since``: it gets the round's
    events from there, the hole card still hidden from a watcher."""
    with server(db_url, clock, {"online": "9C QS 7D 5H 8C 9H"}) as client:
        ann = sign_up(client, "ann")
        with client.websocket_connect("/ws/tables/online") as watcher:
            welcome = receive_until(watcher, "welcome")
            round_id = welcome["state"]["round"]
            players = seat(client, "online", ann)
            a = next(players)
            a.send_json({"type": "action", "op": "bet", "args": {"box": 1, "amount": "10"}})
            seen: list[dict[str, Any]] = []
            first = receive_until(watcher, "events")
            assert first["first"] == 0 and first["round"] == round_id
            seen += first["events"]
            clock.now += 6  # no more bets: the deal
            dealt = receive_until(watcher, "events")
            assert dealt["first"] == len(seen)  # follows on from what came before
            seen += dealt["events"]
            watcher.send_json({"type": "events_since", "round": round_id, "first": 1})
            again = receive_until(watcher, "events", first=1)
            assert again["events"] == seen[1:]
            assert '"QS"' not in json.dumps(again)  # the hole card, face down
            watcher.send_json({"type": "events_since", "round": "gone", "first": 0})
            assert receive_until(watcher, "error")["code"] == "round_over"
            watcher.send_json({"type": "events_since", "round": round_id, "first": -1})
            assert receive_until(watcher, "error")["code"] == "invalid"
            players.close()


def test_every_request_that_does_not_validate_gets_the_one_error_shape(
    db_url: str, clock: Clock
) -> None:
    """A login without a password, a history with ``limit=abc``: ``{"error",
    "message"}`` as every other refusal, and so described in the OpenAPI document."""
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        headers = {"Authorization": f"Bearer {token}"}
        answers = [
            client.post("/api/sessions", json={"name": "ann"}),
            client.get("/api/wallet/history?limit=abc", headers=headers),
            client.get("/api/rounds?limit=0", headers=headers),
        ]
        for answer in answers:
            assert answer.status_code == 422
            assert (
                set(answer.json()) == {"error", "message"} and answer.json()["error"] == "invalid"
            )
        assert "password" in answers[0].json()["message"]
        assert "limit" in answers[1].json()["message"]
        described = client.get("/openapi.json").json()
        invalid = [
            operation["responses"]["422"]
            for item in described["paths"].values()
            for operation in item.values()
            if "422" in operation.get("responses", {})
        ]
        assert invalid and all(
            answer["content"]["application/json"]["schema"]["$ref"]
            == "#/components/schemas/ErrorOut"
            for answer in invalid
        )
        assert "HTTPValidationError" not in described["components"]["schemas"]


def test_a_throttled_address_is_refused_without_a_password_hash(
    db_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past its burst of failed logins, an address gets the same 401 as any failure,
    after as long as a hash takes, but no hash is computed for it (a flood of logins
    from one address once raised every table's latency sevenfold)."""
    hashes: list[str] = []
    hasher = accounts._hasher

    class Counting:
        def verify(self, password_hash: str, password: str) -> bool:
            hashes.append(password)
            return bool(hasher.verify(password_hash, password))

        def __getattr__(self, name: str) -> Any:
            return getattr(hasher, name)

    with server(db_url, clock) as client:
        sign_up(client, "ann")
        monkeypatch.setattr(accounts, "_hasher", Counting())
        failures = [
            client.post("/api/sessions", json={"name": "ann", "password": f"wrong-{n:04}"})
            for n in range(20)  # the address's burst
        ]
        assert len(hashes) == 20
        throttled = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        assert len(hashes) == 20  # refused before any hash
        assert throttled.status_code == 401 and throttled.json() == failures[0].json()


def test_a_throttled_address_stays_throttled_after_a_restart(db_url: str, clock: Clock) -> None:
    """The address's failed logins are kept in the database: a restarted server (or
    another process on the same database) refuses the address as the first one did."""
    with server(db_url, clock) as client:
        sign_up(client, "ann")
        for n in range(20):  # the address's burst
            client.post("/api/sessions", json={"name": "ann", "password": f"wrong-{n:04}"})
    with server(db_url, clock) as client:
        throttled = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        assert throttled.status_code == 401
        clock.now += 3  # one failure's room again
        assert client.post("/api/sessions", json={"name": "ann", "password": PASSWORD}).is_success


def test_one_address_holds_a_bounded_number_of_table_sockets(db_url: str, clock: Clock) -> None:
    """Each socket has its own rate limit, so their number from one address is bounded
    (200 anonymous sockets once made 8,000 pongs in 3 s); one closed frees its place."""
    import dataclasses

    from starlette.websockets import WebSocketDisconnect

    with server(db_url, clock) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        hub.settings = dataclasses.replace(hub.settings, sockets_per_address=2)
        with client.websocket_connect("/ws/tables/rws") as first:
            receive_until(first, "welcome")
            with client.websocket_connect("/ws/tables/online") as second:
                receive_until(second, "welcome")
                with client.websocket_connect("/ws/tables/rws") as third:
                    refused = third.receive_json()
                    assert refused["code"] == "too_many_connections"
                    with pytest.raises(WebSocketDisconnect) as closed:
                        third.receive_json()
                    assert closed.value.code == 1008
            with client.websocket_connect("/ws/tables/rws") as again:  # a place is free
                assert receive_until(again, "welcome")["table"] == "rws"


def test_a_page_of_another_site_changes_nothing_and_opens_no_table_socket(
    db_url: str, clock: Clock
) -> None:
    """A foreign ``Origin`` once got ``PUT /api/limits`` answered 200 and a signed-in
    table socket; the site's own pages, and programs that send no ``Origin``, go on."""
    from starlette.websockets import WebSocketDisconnect

    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        headers = {"Authorization": f"Bearer {token}"}
        foreign = {**headers, "Origin": "https://evil.example"}
        change = {"loss_limit": "100.00", "session_minutes": None, "reality_check_minutes": 60}
        refused = client.put("/api/limits", json=change, headers=foreign)
        assert refused.status_code == 403 and refused.json()["error"] == "foreign_origin"
        assert client.get("/api/limits", headers=headers).json()["loss_limit"] is None
        assert client.get("/api/me", headers=foreign).status_code == 200  # reading is fine
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            client.websocket_connect("/ws/tables/rws", headers=foreign) as socket,
        ):
            socket.receive_json()
        assert closed.value.code == 4403
        own = {**headers, "Origin": "http://testserver"}
        assert client.put("/api/limits", json=change, headers=own).status_code == 200
        with client.websocket_connect("/ws/tables/rws", headers=own) as socket:
            assert receive_until(socket, "welcome")["table"] == "rws"


def test_a_table_socket_knows_its_transport_under_uvicorn(tmp_path: Path) -> None:
    """Under the server that ``croupier serve`` runs (uvicorn), each table socket holds
    its network transport, so that a client dropped for not reading is cut off."""
    import socket as sockets
    import threading

    import uvicorn
    from websockets.sync.client import connect

    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(
        url=f"sqlite:///{tmp_path / 'u.db'}", tables=(TableConfig(id="rws", preset="rws-v5"),)
    )
    app = create_app(settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, seconds=30)
        with connect(f"ws://127.0.0.1:{port}/ws/tables/rws") as client:
            client.recv(timeout=10)
            (connection,) = app.state.hub.connections["rws"]
            assert callable(connection.transport.abort)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_a_side_bet_returned_at_no_more_bets_is_back_in_the_balance_at_once(
    db_url: str, clock: Clock
) -> None:
    """RWS v5: a side bet on a box with no initial bet does not play; at "No more bets"
    it comes back, and the player's balance shows it then, not at the end of the round
    (the page once showed the money as lost for the whole round)."""
    # Ann's box is dealt 10 and 6 against the dealer's 9: the round waits for her.
    with server(db_url, clock, shoes={"rws": "TC 9D 6H 5S"}) as client:
        token = sign_up(client, "ann")
        with client.websocket_connect("/ws/tables/rws") as socket:
            receive_until(socket, "welcome")
            socket.send_json({"type": "auth", "token": token})
            receive_until(socket, "balance")
            for key, args in (
                ("main", {"box": 1, "amount": "25"}),
                ("pair", {"box": 2, "amount": "5", "bet": "player_pair"}),
            ):
                socket.send_json({"type": "action", "op": "bet", "args": args, "key": key})
                receive_until(socket, "ack", key=key)
            assert receive_until(socket, "balance")["balance"] == "970.00"
            clock.now += 6  # no more bets: the side bet on box 2 comes back
            returned = receive_until(socket, "events")
            while not any(e["type"] == "bet_returned" for e in returned["events"]):
                returned = receive_until(socket, "events")
            (event,) = [e for e in returned["events"] if e["type"] == "bet_returned"]
            assert (event["player"], event["box"], event["bet"]) == ("ann", 2, "player_pair")
            balance = receive_until(socket, "balance")
            assert balance["balance"] == "975.00"
            assert client.get("/api/tables/rws").json()["phase"] != "settled"
