"""The back office's report: every figure against the ledger's legs summed apart, the
theory against ``croupier edge``, irregularities with their clauses, bad input."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from click.testing import CliRunner

from croupier import shoe as shoes
from croupier.backoffice.edges import edges_for
from croupier.backoffice.errors import ReportError
from croupier.backoffice.report import build_report
from croupier.cli import cli
from croupier.presets import find_rules
from croupier.server import db
from croupier.server.runtime import TableRuntime
from croupier.server.schema import play_sessions, users
from tests.server.report_play import Bettor, SeededShuffles, flat, leg_sums, play, scattered
from tests.server.tables import act, make_users, table

CENT = Decimal("0.01")


@pytest.fixture(autouse=True)
def repeatable_shuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's shoes shuffled from a seed: the same rounds every run."""
    monkeypatch.setattr(shoes, "secrets", SeededShuffles(4))


def _window() -> tuple[datetime, datetime]:
    now = datetime.now(UTC)
    return now - timedelta(hours=1), now + timedelta(minutes=1)


def _played(engine: sqlalchemy.Engine) -> dict[str, dict[str, Decimal]]:
    """Three players at a live table for 30 rounds (one with a 21+3 side bet every
    round), a bet withdrawn before "No more bets", then a round the dealer voids.
    Returns the initial bets each player made, by bet, as the players made them."""
    ids = make_users(engine, "ann", "bob", "cat", chips="100000.00")
    runtime = table(engine, ids, "live")
    bettors = {"ann": flat("10"), "bob": scattered("10", "20", "50"), "cat": flat("25")}
    made: dict[str, dict[str, Decimal]] = {name: {} for name in bettors}

    def note(name: str, bet: str, amount: Decimal) -> None:
        made[name][bet] = made[name].get(bet, Decimal(0)) + amount

    # Each bet noted as the player makes it.
    def tracked(name: str, inner: Bettor) -> Bettor:
        def bet(at: TableRuntime, source: random.Random) -> Decimal | None:
            amount = inner(at, source)
            assert amount is not None
            note(name, "main", amount)
            if name == "ann":
                note(name, "21+3", Decimal("5"))
            return amount

        return bet

    now = play(
        runtime,
        {name: tracked(name, bettor) for name, bettor in bettors.items()},
        30,
        seed=3,
        side_bets={"ann": ("21+3", "5")},
    )
    # A bet placed and withdrawn: no handle.
    act(runtime, "bet", "bob", {"box": 2, "amount": "40"}, now=now)
    act(runtime, "withdraw", "bob", {"box": 2}, now=now + 1)
    act(runtime, "bet", "ann", {"box": 1, "amount": "30"}, now=now + 2)
    runtime.tick(now + 2 + runtime.config.betting_seconds)
    act(runtime, "void", None, {"reason": "dealing error: two cards stuck"}, now=now + 40)
    return made


def test_every_figure_agrees_with_the_ledger_and_the_exact_math(
    engine: sqlalchemy.Engine,
) -> None:
    made = _played(engine)
    since, until = _window()
    with engine.connect() as conn:
        report = build_report(conn, since=since, until=until)
        again = build_report(conn, since=since, until=until)
    assert json.dumps(report.to_json()) == json.dumps(again.to_json())
    sums = leg_sums(engine)
    [live] = report.tables
    assert (live.table, live.rules, live.rounds, live.void_rounds) == ("live-test", "live", 30, 1)
    house = sums["house"]
    assert isinstance(house, dict)
    assert live.house_win == house["live-test"]
    staked = sums["staked"]
    assert isinstance(staked, dict)
    assert live.staked == staked["live-test"]
    # Handle: the initial bets the players made (the withdrawn and voided ones aside).
    main = sum((bets["main"] for bets in made.values()), Decimal(0))
    assert live.handle == {"main": main, "21+3": made["ann"]["21+3"]}
    assert live.hold == Fraction(live.house_win) / Fraction(main + made["ann"]["21+3"])
    # Theory: each bet by its own exact edge, the one `croupier edge` prints.
    edges = edges_for(find_rules("live"))
    printed = CliRunner().invoke(cli, ["edge", "--rules", "live", "--json"])
    assert printed.exit_code == 0, printed.output
    sheet = json.loads(printed.stdout)
    assert float(edges.main_edge) == -sheet["main"]["td"]["ev"]
    assert float(edges.edge("21+3")) == pytest.approx(-sheet["side_bets"]["21+3"]["ev"])
    expected = Fraction(main) * edges.main_edge + Fraction(made["ann"]["21+3"]) * edges.edge("21+3")
    assert live.theoretical_win == (
        Decimal(expected.numerator) / Decimal(expected.denominator)
    ).quantize(CENT)
    assert live.z is not None
    assert live.z == pytest.approx(
        float(Fraction(live.house_win) - expected) / float(live.sd), rel=1e-3
    )
    # Players: their net is their legs; their theoretical loss their bets' edges.
    players = sums["players"]
    assert isinstance(players, dict)
    for person in report.players:
        assert person.rounds == 30
        assert person.net == players[person.user_id]
        bets = made[person.player]
        theory = sum(
            (Fraction(amount) * edges.edge(bet) for bet, amount in bets.items()), Fraction(0)
        )
        assert person.theoretical_loss == (
            Decimal(theory.numerator) / Decimal(theory.denominator)
        ).quantize(CENT)
        assert person.handle == sum(bets.values(), Decimal(0))
        assert person.average_bet == (bets["main"] / 30).quantize(CENT)
    assert sum(person.net for person in report.players) == -live.house_win
    # The void: its clause, and the money it gave back (ann's 30).
    [void] = report.irregularities
    assert (void.kind, void.clause, void.status) == ("void", find_rules("live").cite_void, "void")
    assert void.detail == "dealing error: two cards stuck"
    assert void.returned == Decimal("30.00")


def test_one_player_and_one_table(engine: sqlalchemy.Engine) -> None:
    made = _played(engine)
    since, until = _window()
    with engine.begin() as conn:
        bob = conn.execute(sqlalchemy.select(users.c.id).where(users.c.name == "bob")).scalar()
        # His sessions of play: 30 minutes in the period, one that ended before it.
        for started, minutes in (
            (since + timedelta(minutes=5), 30),
            (since - timedelta(hours=3), 60),
        ):
            conn.execute(
                play_sessions.insert().values(
                    user_id=bob,
                    started_at=started,
                    last_active_at=started + timedelta(minutes=minutes),
                    reality_check_at=started,
                )
            )
    with engine.connect() as conn:
        report = build_report(conn, since=since, until=until, table="live-test", player="bob")
    [bob_figures] = report.players
    assert bob_figures.hours == Decimal("0.50")
    [live] = report.tables
    assert live.handle == {"main": made["bob"]["main"]}
    assert live.house_win == -bob_figures.net


def _cli(*arguments: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["report", *arguments])
    return done.exit_code, done.stderr


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'report.db'}"
    engine = db.connect(url)
    db.migrate(engine)
    ids = make_users(engine, "ann", chips="1000.00")
    play(table(engine, ids, "live"), {"ann": flat("10")}, 2)
    engine.dispose()
    assert _cli("--db", url, "--json")[0] == 0
    for arguments, said in [
        (("--table", "nowhere"), "error: no table 'nowhere' in the records"),
        (("--player", "nobody"), "error: no player 'nobody'"),
        (("--since", "2020-01-01", "--until", "2020-01-02"), "error: no rounds between"),
        (("--since", "2030-01-02", "--until", "2030-01-01"), "error: the period is empty"),
        (("--since", "last week"), "error: --since 'last week' is not an ISO 8601"),
    ]:
        code, stderr = _cli("--db", url, *arguments)
        assert code == 2, arguments
        assert stderr.startswith(said) and len(stderr.strip().splitlines()) == 1, stderr
    bare = tmp_path / "bare.db"
    sqlalchemy.create_engine(f"sqlite:///{bare}").connect().close()
    code, stderr = _cli("--db", f"sqlite:///{bare}")
    assert code == 2 and "holds no croupier tables" in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_json_and_csv_say_the_same(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'report.db'}"
    engine = db.connect(url)
    db.migrate(engine)
    ids = make_users(engine, "ann", "bob", chips="1000.00")
    play(table(engine, ids, "live"), {"ann": flat("10"), "bob": flat("20")}, 3)
    engine.dispose()
    done = CliRunner().invoke(
        cli, ["report", "--db", url, "--json", "--csv", str(tmp_path / "out")]
    )
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    written = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert written == [
        "advantage_play.csv",
        "irregularities.csv",
        "players.csv",
        "shuffle_health.csv",
        "tables.csv",
    ]
    lines = (tmp_path / "out" / "players.csv").read_text().splitlines()
    assert len(lines) == 1 + len(data["players"]) == 3
    assert [row["net"] for row in data["players"]] == [
        line.split(",")[list(data["players"][0]).index("net")] for line in lines[1:]
    ]
    shown = CliRunner().invoke(cli, ["report", "--db", url])
    assert shown.exit_code == 0 and "Tables" in shown.stdout and "Shuffle health" in shown.stdout


def test_the_report_error_names_what_was_wrong(engine: sqlalchemy.Engine) -> None:
    since, until = _window()
    with engine.connect() as conn, pytest.raises(ReportError, match="no rounds between"):
        build_report(conn, since=since, until=until)


def test_the_migration_fills_the_columns_as_the_server_writes_them(fresh_db_url: str) -> None:
    """Revision 0006 over rounds stored before it: the columns it fills from the records
    and the ledger are those the server wrote as it played, so the report is the same."""
    from alembic import command

    from croupier.server.schema import round_bets, round_players, rounds

    engine = db.connect(fresh_db_url)
    try:
        db.migrate(engine)
        _played(engine)
        since, until = _window()

        def read() -> tuple[dict[str, object], list[Any], list[Any], list[Any]]:
            with engine.connect() as conn:
                report = build_report(conn, since=since, until=until).to_json()
                bets = conn.execute(
                    sqlalchemy.select(round_bets).order_by(round_bets.c.round_id, round_bets.c.seq)
                ).all()
                money = conn.execute(
                    sqlalchemy.select(
                        rounds.c.id,
                        rounds.c.shoe_position,
                        rounds.c.true_count,
                        rounds.c.shoe_ranks,
                        rounds.c.irregular_inputs,
                        rounds.c.house_win,
                        rounds.c.staked,
                    ).order_by(rounds.c.id)
                ).all()
                players = conn.execute(
                    sqlalchemy.select(round_players).order_by(
                        round_players.c.round_id, round_players.c.user_id
                    )
                ).all()
            return report, list(bets), list(money), list(players)

        written = read()
        _, bets, money, _ = written
        assert len(bets) == 30 * 4 + 1  # three main bets and ann's side bet a round; the void's
        assert any(row.shoe_ranks is not None for row in money)
        with engine.begin() as conn:
            command.downgrade(db.alembic_config(conn), "0005")
        db.migrate(engine)
        assert read() == written
    finally:
        engine.dispose()
