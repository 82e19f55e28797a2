"""The back office's JSON under /api/admin/: the report's figures, for admins only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from croupier import shoe as shoes
from croupier.backoffice.report import build_report
from croupier.server import accounts, db
from croupier.server.app import create_app
from croupier.server.runtime import TableConfig
from croupier.server.settings import Settings
from tests.server.report_play import SeededShuffles, flat, play, scattered
from tests.server.tables import PASSWORD, make_users, table

PATHS = (
    "/api/admin/report",
    "/api/admin/tables",
    "/api/admin/players",
    "/api/admin/irregularities",
    "/api/admin/hold?table=live-test",
)


@pytest.fixture(autouse=True)
def repeatable_shuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's shoes shuffled from a seed: the same rounds every run."""
    monkeypatch.setattr(shoes, "secrets", SeededShuffles(4))


def _login(client: TestClient, name: str) -> dict[str, str]:
    answer = client.post("/api/sessions", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    client.cookies.clear()
    return {"Authorization": f"Bearer {answer.json()['token']}"}


@pytest.fixture
def client(db_url: str) -> TestClient:
    engine = db.connect(db_url)
    ids = make_users(engine, "ann", "bob", chips="10000.00")
    play(table(engine, ids, "live"), {"ann": flat("10"), "bob": scattered("10", "20")}, 6)
    with engine.begin() as conn:
        accounts.register(conn, "dealer-1", PASSWORD, role="dealer")
        accounts.register(conn, "boss", PASSWORD, role="admin")
    engine.dispose()
    tables = (TableConfig(id="rws", preset="rws-v5"),)
    settings = Settings(url=db_url, tables=tables, tick_seconds=0.01, rtp_at_start=False)
    return TestClient(create_app(settings))


def test_only_admins_are_answered(client: TestClient) -> None:
    with client:
        player, dealer = _login(client, "ann"), _login(client, "dealer-1")
        for path in PATHS:
            anonymous = client.get(path)
            assert anonymous.status_code == 401, (path, anonymous.text)
            for headers in (player, dealer):
                refused = client.get(path, headers=headers)
                assert refused.status_code == 403, (path, refused.text)
                assert refused.json()["error"] == "forbidden"
        boss = _login(client, "boss")
        for path in PATHS:
            assert client.get(path, headers=boss).status_code == 200, path


def test_the_answers_are_the_reports_figures(client: TestClient, db_url: str) -> None:
    with client:
        boss = _login(client, "boss")
        since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
        until = (datetime.now(UTC) + timedelta(minutes=1)).isoformat()
        period = {"since": since, "until": until}
        whole = client.get("/api/admin/report", params=period, headers=boss).json()
        engine = db.connect(db_url)
        with engine.connect() as conn:
            made = build_report(
                conn, since=datetime.fromisoformat(since), until=datetime.fromisoformat(until)
            )
        engine.dispose()
        assert whole == made.to_json()
        tables = client.get("/api/admin/tables", params=period, headers=boss).json()
        assert tables == whole["tables"] and tables[0]["rounds"] == 6
        players = client.get(
            "/api/admin/players", params={**period, "player": "bob"}, headers=boss
        ).json()
        assert [entry["player"] for entry in players] == ["bob"]
        assert players == [entry for entry in whole["players"] if entry["player"] == "bob"]
        hold = client.get(
            "/api/admin/hold", params={**period, "table": "live-test", "steps": 3}, headers=boss
        ).json()
        assert len(hold) == 3
        assert sum(point["rounds"] for point in hold) == 6
        won = sum(float(point.get("house_win", 0)) for point in hold)
        assert won == pytest.approx(float(whole["tables"][0]["house_win"]))
        for point in hold:
            if point["rounds"]:
                assert float(point["band_low"]) <= float(point["theoretical_win"])
                assert float(point["theoretical_win"]) <= float(point["band_high"])
        unknown = client.get("/api/admin/tables", params={"table": "nowhere"}, headers=boss)
        assert unknown.status_code == 404 and "no table 'nowhere'" in unknown.json()["message"]
        nobody = client.get("/api/admin/players", params={"player": "nobody"}, headers=boss)
        assert nobody.status_code == 404
        empty = client.get(
            "/api/admin/report", params={"since": until, "until": since}, headers=boss
        )
        assert empty.status_code == 422 and "the period is empty" in empty.json()["message"]
        early = client.get(
            "/api/admin/tables", params={"since": "0001-01-01T00:00:00+05:00"}, headers=boss
        )
        assert early.status_code == 422 and "out of range" in early.json()["message"]


def test_a_dealers_void_names_his_account_among_the_irregularities(db_url: str) -> None:
    """The dealer console's session names the account that entered a dealer's input;
    the irregularities say who voided (RWS v5 5.17), and a player's inputs name none."""
    from tests.server.test_app import Clock, receive_until, seat, sign_up, wait_for

    clock = Clock()
    tables = (TableConfig(id="pit", preset="rws-v5", dealt="dealer", betting_seconds=5),)
    app = create_app(Settings(url=db_url, tables=tables, clock=clock, tick_seconds=0.01))
    with TestClient(app) as client:
        ann = sign_up(client, "ann")
        engine = app.state.hub.engine
        with engine.begin() as conn:
            accounts.register(conn, "dealer-7", PASSWORD, role="dealer")
        dealer = client.post(
            "/api/sessions", json={"name": "dealer-7", "password": PASSWORD}
        ).json()["token"]
        player_gen, dealer_gen = seat(client, "pit", ann), seat(client, "pit", dealer)
        player, console = next(player_gen), next(dealer_gen)
        player.send_json({"type": "action", "op": "bet", "args": {"box": 1, "amount": "100"}})
        receive_until(player, "ack")
        clock.now += 6
        wait_for(lambda: client.get("/api/tables/pit").json()["awaiting_card"])
        reason = {"reason": "dealing error: card exposed"}
        console.send_json({"type": "action", "op": "void", "args": reason, "key": "v"})
        receive_until(console, "ack", key="v")
        wait_for(lambda: client.get("/api/tables/pit").json()["phase"] == "void")
        player_gen.close()
        dealer_gen.close()
        with engine.connect() as conn:
            at = datetime.now(UTC)  # rounds are stamped by the database's writer's clock
            report = build_report(
                conn, since=at - timedelta(hours=1), until=at + timedelta(hours=1)
            )
    [void] = report.irregularities
    assert (void.kind, void.dealer, void.detail) == ("void", "dealer-7", reason["reason"])
    assert void.returned == Decimal("100.00")
