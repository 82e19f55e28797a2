"""The player's session cookie, his session of play and his own limits, at the server.

Each rule is held by the server itself: a bet over the loss limit is refused with its
message and changes nothing; a raised limit waits out its cooling-off period; a break
and self-exclusion refuse logins and bets; the session of play survives a new login.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy
from fastapi.testclient import TestClient

from croupier.server import accounts, ledger, limits, play_sessions
from croupier.server.dependencies import SESSION_COOKIE
from croupier.server.driver import trace
from croupier.server.errors import (
    InvalidLimit,
    LossLimitReached,
    OnBreak,
    SelfExcluded,
    SessionTimeLimitReached,
)
from tests.server.tables import PASSWORD
from tests.server.test_app import Clock, receive_until, server, sign_up


@pytest.fixture
def clock() -> Clock:
    return Clock()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def log_in(client: TestClient, name: str) -> str:
    response = client.post("/api/sessions", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


def bet(socket: Any, box: int, amount: str, key: str) -> None:
    socket.send_json(
        {"type": "action", "op": "bet", "args": {"box": box, "amount": amount}, "key": key}
    )


@contextmanager
def authenticated(client: TestClient, table: str, token: str) -> Iterator[Any]:
    """A socket at ``table`` signed in by ``token``."""
    with client.websocket_connect(f"/ws/tables/{table}") as socket:
        receive_until(socket, "welcome")
        socket.send_json({"type": "auth", "token": token})
        assert receive_until(socket, "welcome")["you"] is not None
        receive_until(socket, "balance")
        yield socket


# -- the session cookie -----------------------------------------------------------------------


def test_the_login_sets_an_httponly_strict_cookie_that_a_new_tab_uses_without_the_token(
    db_url: str, clock: Clock
) -> None:
    with server(db_url, clock) as client:
        client.post("/api/accounts", json={"name": "ann", "password": PASSWORD})
        login = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        cookie = login.headers["set-cookie"]
        assert cookie.startswith(f"{SESSION_COOKIE}={login.json()['token']};")
        attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
        assert {"httponly", "samesite=strict", "path=/"} <= attributes
        assert "secure" not in attributes  # served over plain http here
        assert not any(part.startswith(("max-age", "expires")) for part in attributes)

        # A new tab: no token of its own, only the browser's cookie.
        client.cookies.clear()
        tab = {"cookie": f"{SESSION_COOKIE}={login.json()['token']}"}
        assert client.get("/api/me").status_code == 401
        me = client.get("/api/me", headers=tab)
        assert me.status_code == 200 and me.json()["name"] == "ann"
        with client.websocket_connect("/ws/tables/rws", headers=tab) as socket:
            assert receive_until(socket, "welcome")["you"] is None  # watching until auth
            socket.send_json({"type": "auth"})
            assert receive_until(socket, "welcome")["you"] == "ann"
            assert receive_until(socket, "balance")["balance"] == "1000.00"

        # Logging out through the cookie ends the session and clears the cookie.
        out = client.delete("/api/sessions/current", headers=tab)
        assert out.status_code == 204
        assert out.headers["set-cookie"].startswith(f'{SESSION_COOKIE}="";')
        assert "max-age=0" in out.headers["set-cookie"].lower()
        assert client.get("/api/me", headers=tab).status_code == 401
        with client.websocket_connect("/ws/tables/rws", headers=tab) as socket:
            receive_until(socket, "welcome")
            socket.send_json({"type": "auth"})
            assert receive_until(socket, "error")["code"] == "session_expired"


def test_the_cookie_is_secure_over_https(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        client.post("/api/accounts", json={"name": "ann", "password": PASSWORD})
        login = client.post(
            "https://testserver/api/sessions", json={"name": "ann", "password": PASSWORD}
        )
        attributes = {p.strip().lower() for p in login.headers["set-cookie"].split(";")[1:]}
        assert {"secure", "httponly", "samesite=strict"} <= attributes


# -- the session of play ----------------------------------------------------------------------


def test_the_session_of_play_survives_a_new_login_and_ends_after_half_an_hour_away(
    db_url: str, clock: Clock
) -> None:
    # ann stands on 17 (the decision timer's rule) and loses to the dealer's 19: whenever
    # the table settles the round, in the old session of play or the new, nothing comes
    # back to either.
    with server(db_url, clock, {"rws": "10S 9D 7H QC"}) as client:
        token = sign_up(client, "ann")
        started = client.get("/api/play-session", headers=bearer(token)).json()
        assert (started["net"], started["wagered"]) == ("0.00", "0.00")
        with authenticated(client, "rws", token) as socket:
            bet(socket, 1, "25", "b1")
            receive_until(socket, "ack", key="b1")

        clock.now += 60
        assert client.delete("/api/sessions/current", headers=bearer(token)).status_code == 204
        clock.now += 60
        again = log_in(client, "ann")
        stats = client.get("/api/play-session", headers=bearer(again)).json()
        assert stats["started_at"] == started["started_at"]
        assert (stats["net"], stats["wagered"]) == ("-25.00", "25.00")
        assert stats["reality_check"] == started["reality_check"]
        assert stats["now"] == datetime.fromtimestamp(clock.now, UTC).isoformat()

        clock.now += 31 * 60  # away longer than a login lives: the next one starts anew
        fresh = client.get("/api/play-session", headers=bearer(log_in(client, "ann"))).json()
        assert fresh["started_at"] == datetime.fromtimestamp(clock.now, UTC).isoformat()
        assert (fresh["net"], fresh["wagered"]) == ("0.00", "0.00")


def test_the_reality_check_is_due_after_the_chosen_interval_and_restarts_when_read(
    db_url: str, clock: Clock
) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        start = datetime.fromtimestamp(clock.now, UTC)
        chosen = {"loss_limit": None, "session_minutes": None, "reality_check_minutes": 20}
        assert client.put("/api/limits", json=chosen, headers=bearer(token)).is_success
        check = client.get("/api/play-session", headers=bearer(token)).json()["reality_check"]
        assert check == {
            "interval_minutes": 20,
            "since": start.isoformat(),
            "due_at": (start + timedelta(minutes=20)).isoformat(),
        }
        clock.now += 21 * 60
        read = client.post("/api/play-session/reality-check", headers=bearer(token)).json()
        assert read["reality_check"]["due_at"] == (start + timedelta(minutes=40)).isoformat()


# -- limits -----------------------------------------------------------------------------------


def test_a_bet_over_the_loss_limit_is_refused_with_its_message_and_changes_nothing(
    db_url: str, clock: Clock
) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        wanted = {"loss_limit": "30", "session_minutes": None, "reality_check_minutes": 60}
        set_to = client.put("/api/limits", json=wanted, headers=bearer(token)).json()
        assert set_to["loss_limit"] == "30.00" and set_to["pending_loss_limit"] is None
        with authenticated(client, "rws", token) as socket:
            bet(socket, 1, "25", "b1")
            receive_until(socket, "ack", key="b1")
            bet(socket, 2, "25", "b2")
            refused = receive_until(socket, "error")
        assert refused["code"] == "loss_limit" and refused["key"] == "b2"
        assert refused["message"] == (
            "bet of 25.00 refused: it would take your loss this session to 50.00, past your "
            "loss limit of 30.00; you may stake up to 5.00 more this session"
        )
        assert client.get("/api/me", headers=bearer(token)).json()["balance"] == "975.00"
        table = client.get("/api/tables/rws").json()
        assert [(b["box"], b["amount"]) for b in table["bets"]] == [(1, "25.00")]
        stats = client.get("/api/play-session", headers=bearer(token)).json()
        assert (stats["net"], stats["wagered"]) == ("-25.00", "25.00")


def test_a_raised_limit_waits_a_day_and_a_confirmation_a_lowered_one_holds_at_once(
    db_url: str, clock: Clock
) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")

        def put(loss: str | None, minutes: int | None = 60) -> dict[str, Any]:
            body = {"loss_limit": loss, "session_minutes": minutes, "reality_check_minutes": 60}
            response = client.put("/api/limits", json=body, headers=bearer(token))
            assert response.status_code == 200, response.text
            found: dict[str, Any] = response.json()
            return found

        assert put("100")["loss_limit"] == "100.00"  # none before: a limit is lower
        raised = put("200", minutes=None)
        assert (raised["loss_limit"], raised["session_minutes"]) == ("100.00", 60)
        day = datetime.fromtimestamp(clock.now, UTC) + timedelta(hours=24)
        assert raised["pending_loss_limit"] == {
            "value": "200.00",
            "confirmable_from": day.isoformat(),
            "confirmable": False,
        }
        assert raised["pending_session_minutes"]["value"] is None  # no limit, after a day
        early = client.post("/api/limits/confirm", headers=bearer(token))
        assert early.status_code == 409 and early.json()["error"] == "not_confirmable"
        assert "from " in early.json()["message"]

        clock.now += 12 * 3600  # asking again does not start the cooling-off again
        token = log_in(client, "ann")
        assert put("200", minutes=None)["pending_loss_limit"]["confirmable_from"] == (
            day.isoformat()
        )
        clock.now += 12 * 3600
        token = log_in(client, "ann")
        waiting = client.get("/api/limits", headers=bearer(token)).json()
        assert waiting["loss_limit"] == "100.00"  # not before the player confirms
        assert waiting["pending_loss_limit"]["confirmable"] is True
        confirmed = client.post("/api/limits/confirm", headers=bearer(token)).json()
        assert (confirmed["loss_limit"], confirmed["session_minutes"]) == ("200.00", None)
        assert confirmed["pending_loss_limit"] is None

        lowered = put("50", minutes=30)
        assert (lowered["loss_limit"], lowered["session_minutes"]) == ("50.00", 30)
        bad = {"loss_limit": "0.5", "session_minutes": None, "reality_check_minutes": 60}
        refused = client.put("/api/limits", json=bad, headers=bearer(token))
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_limit"
        assert client.get("/api/limits", headers=bearer(token)).json()["loss_limit"] == "50.00"


def test_a_break_refuses_logins_and_bets_until_it_ends(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        with authenticated(client, "rws", token) as socket:
            taken = client.post("/api/limits/break", json={"days": 2}, headers=bearer(token))
            bet(socket, 1, "25", "b1")
            refused_bet = receive_until(socket, "error")
        assert taken.status_code == 200
        until = datetime.fromtimestamp(clock.now, UTC) + timedelta(days=2)
        assert taken.json()["break_until"] == until.isoformat()
        assert "max-age=0" in taken.headers["set-cookie"].lower()
        assert refused_bet["code"] == "session_expired"
        assert client.get("/api/me", headers=bearer(token)).status_code == 401
        refused = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        assert refused.status_code == 403 and refused.json()["error"] == "on_break"
        assert "break from play until" in refused.json()["message"]
        assert "set-cookie" not in refused.headers
        clock.now += 2 * 86400 + 1
        token = log_in(client, "ann")
        with authenticated(client, "rws", token) as socket:
            bet(socket, 1, "25", "b2")
            receive_until(socket, "ack", key="b2")


def test_self_exclusion_lasts_six_months_at_least_and_the_player_cannot_undo_it(
    db_url: str, clock: Clock
) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        short = client.post("/api/limits/self-exclusion", json={"months": 3}, headers=bearer(token))
        assert short.status_code == 400 and "6 to 60 months" in short.json()["message"]
        excluded = client.post(
            "/api/limits/self-exclusion", json={"months": 6}, headers=bearer(token)
        )
        assert excluded.status_code == 200
        assert client.get("/api/limits", headers=bearer(token)).status_code == 401
        clock.now += 180 * 86400  # a day or two short of six calendar months
        refused = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        assert refused.status_code == 403 and refused.json()["error"] == "self_excluded"
        assert "cannot be lifted" in refused.json()["message"]
        wrong = client.post("/api/sessions", json={"name": "ann", "password": "not-it-at-all"})
        assert wrong.status_code == 401  # a wrong password says nothing of the exclusion
        clock.now += 5 * 86400
        log_in(client, "ann")


def test_past_the_session_time_limit_the_table_refuses_new_bets(db_url: str, clock: Clock) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        wanted = {"loss_limit": None, "session_minutes": 5, "reality_check_minutes": 60}
        assert client.put("/api/limits", json=wanted, headers=bearer(token)).is_success
        clock.now += 4 * 60
        with authenticated(client, "rws", token) as socket:
            clock.now += 61
            bet(socket, 1, "25", "b1")
            refused = receive_until(socket, "error")
        assert refused["code"] == "session_time_limit" and refused["key"] == "b1"
        assert refused["message"] == (
            "bet refused: this session has lasted 0 h 05 min, and your session-time limit "
            "is 5 minutes; a new session starts after 30 minutes away"
        )
        assert client.get("/api/me", headers=bearer(token)).json()["balance"] == "1000.00"
        assert client.get("/api/tables/rws").json()["bets"] == []


def test_a_disabled_account_is_told_so_only_with_the_right_password(
    db_url: str, clock: Clock, engine: sqlalchemy.Engine
) -> None:
    with server(db_url, clock) as client:
        token = sign_up(client, "ann")
        with engine.begin() as conn:
            assert accounts.disable(conn, "ann", now=datetime.fromtimestamp(clock.now, UTC))
        assert client.get("/api/me", headers=bearer(token)).status_code == 401
        refused = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        assert refused.status_code == 403 and refused.json()["error"] == "account_disabled"
        wrong = client.post("/api/sessions", json={"name": "ann", "password": "not-it-at-all"})
        assert wrong.status_code == 401 and wrong.json()["error"] == "login_failed"


# -- the rules, one by one, on the database ---------------------------------------------------


@pytest.fixture
def ann(engine: sqlalchemy.Engine) -> int:
    with engine.begin() as conn:
        user = accounts.register(conn, "ann", PASSWORD)
        ledger.grant(conn, user, Decimal("1000.00"), idempotency_key="chips")
    return user


NOON = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def test_the_loss_limit_counts_money_on_the_table_and_every_kind_of_stake(
    engine: sqlalchemy.Engine, ann: int
) -> None:
    with engine.begin() as conn:
        play_sessions.touch(conn, ann, NOON)
        limits.change(
            conn,
            ann,
            NOON,
            loss_limit=Decimal("40"),
            session_minutes=None,
            reality_check_minutes=60,
        )
        ledger.stake(conn, ann, "r1", Decimal("30"), idempotency_key="s1", memo="bet")
        limits.check_stake(conn, ann, Decimal("10"), new_bet=False, now=NOON)  # a double: 40
        with pytest.raises(LossLimitReached, match=r"up to 10\.00 more"):
            limits.check_stake(conn, ann, Decimal("10.01"), new_bet=False, now=NOON)
        ledger.close_round(conn, "r1", {ann: Decimal("60")}, idempotency_key="c1", void=False)
        limits.check_stake(conn, ann, Decimal("70"), new_bet=True, now=NOON)


def test_the_session_time_limit_refuses_new_bets_only(engine: sqlalchemy.Engine, ann: int) -> None:
    with engine.begin() as conn:
        play_sessions.touch(conn, ann, NOON)
        limits.change(
            conn, ann, NOON, loss_limit=None, session_minutes=60, reality_check_minutes=60
        )
        for minutes in (20, 40, 59):
            later = NOON + timedelta(minutes=minutes)
            play_sessions.touch(conn, ann, later)
            limits.check_stake(conn, ann, Decimal("25"), new_bet=True, now=later)
        hour = NOON + timedelta(minutes=60)
        play_sessions.touch(conn, ann, hour)
        with pytest.raises(SessionTimeLimitReached, match="lasted 1 h 00 min"):
            limits.check_stake(conn, ann, Decimal("25"), new_bet=True, now=hour)
        limits.check_stake(conn, ann, Decimal("25"), new_bet=False, now=hour)  # a double


def test_a_session_of_play_goes_on_in_one_statement_until_thirty_minutes_away(
    engine: sqlalchemy.Engine, ann: int
) -> None:
    """The player is seen at every command: his session of play goes on (one statement,
    never moved back by an earlier time), and a new one starts after AWAY."""
    with engine.begin() as conn:
        first = play_sessions.touch(conn, ann, NOON)
        statements = trace(conn)
        later = NOON + play_sessions.AWAY
        going_on = play_sessions.touch(conn, ann, later)
        assert len(statements) == 1
        assert (going_on.id, going_on.started_at, going_on.last_active_at) == (
            first.id,
            NOON,
            later,
        )
        assert play_sessions.touch(conn, ann, NOON).last_active_at == later
        back = later + play_sessions.AWAY + timedelta(seconds=1)
        again = play_sessions.touch(conn, ann, back)
        assert again.id != first.id and again.started_at == back


def test_a_limit_removed_is_a_raise_and_the_same_value_withdraws_a_raise(
    engine: sqlalchemy.Engine, ann: int
) -> None:
    with engine.begin() as conn:

        def change(loss: Decimal | None) -> limits.Limits:
            return limits.change(
                conn, ann, NOON, loss_limit=loss, session_minutes=None, reality_check_minutes=60
            )

        change(Decimal("100"))
        removed = change(None)
        assert removed.loss_limit == Decimal("100.00")
        assert removed.pending_loss_limit == limits.Pending(None, NOON + limits.COOLING_OFF)
        kept = change(Decimal("100"))
        assert kept.pending_loss_limit is None
        with pytest.raises(InvalidLimit, match="no raised limit"):
            limits.confirm(conn, ann, NOON + timedelta(days=2))
        with pytest.raises(InvalidLimit, match="interval must be from 5 to 240"):
            limits.change(
                conn, ann, NOON, loss_limit=None, session_minutes=None, reality_check_minutes=1
            )


def test_breaks_and_exclusions_only_ever_grow(engine: sqlalchemy.Engine, ann: int) -> None:
    with engine.begin() as conn:
        long = limits.take_break(conn, ann, 30, NOON)
        assert limits.take_break(conn, ann, 1, NOON).break_until == long.break_until
        with pytest.raises(OnBreak):
            limits.check_stake(conn, ann, Decimal("25"), new_bet=True, now=NOON)
        until = limits.self_exclude(conn, ann, 12, NOON).excluded_until
        assert until == datetime(2027, 6, 1, 12, 0, tzinfo=UTC)
        assert limits.self_exclude(conn, ann, 6, NOON).excluded_until == until
        with pytest.raises(SelfExcluded):
            limits.check_access(conn, ann, NOON + timedelta(days=300))
        limits.check_access(conn, ann, until)
