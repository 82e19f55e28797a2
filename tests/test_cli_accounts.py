"""``croupier accounts``: dealer and admin accounts made from the command line."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy
from click.testing import CliRunner

from croupier.cli import accounts as command
from croupier.cli import cli
from croupier.server import accounts, db, ledger
from croupier.server.errors import AccountDisabled, SessionExpired
from croupier.server.schema import ROLES, users

PASSWORD = "correct horse battery"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'site.db'}"


def test_the_roles_are_the_servers() -> None:
    assert command.ROLES == ROLES


def test_a_dealer_made_from_stdin_logs_in_and_is_listed(url: str) -> None:
    made = CliRunner().invoke(
        cli, ["accounts", "create", "dee", "--role", "dealer", "--db", url], input=f"{PASSWORD}\n"
    )
    assert made.exit_code == 0, made.output
    assert made.stdout == "created dealer account 'dee' (id 1)\n"
    engine = db.connect(url)
    try:
        with engine.begin() as conn:
            token = accounts.login(conn, "dee", PASSWORD, now=db.utcnow())
            assert accounts.authenticate(conn, token, now=db.utcnow()).role == "dealer"
    finally:
        engine.dispose()
    listed = CliRunner().invoke(cli, ["accounts", "list", "--db", url, "--json"])
    assert listed.exit_code == 0
    (row,) = json.loads(listed.stdout)
    assert (row["id"], row["name"], row["role"], row["disabled_at"]) == (1, "dee", "dealer", None)


def test_the_database_comes_from_the_environment_and_a_player_may_get_chips(url: str) -> None:
    made = CliRunner().invoke(
        cli,
        ["accounts", "create", "ann", "--chips", "250.00", "--json"],
        input=f"{PASSWORD}\n",
        env={"CROUPIER_DB_URL": url},
    )
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout) == {"id": 1, "name": "ann", "role": "player"}
    engine = db.connect(url)
    try:
        with engine.begin() as conn:
            assert ledger.balance(conn, 1) == Decimal("250.00")
    finally:
        engine.dispose()


def test_on_a_terminal_the_password_is_asked_twice(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command, "stdin_is_terminal", lambda: True)
    differ = CliRunner().invoke(
        cli,
        ["accounts", "create", "root", "--role", "admin", "--db", url],
        input=f"{PASSWORD}\nsomething else\n{PASSWORD}\n{PASSWORD}\n",
    )
    assert differ.exit_code == 0, differ.output
    assert "Error: The two entered values do not match." in differ.output
    assert PASSWORD not in differ.output  # never echoed
    assert "created admin account 'root'" in differ.output


@pytest.mark.parametrize(
    ("arguments", "stdin", "message"),
    [
        (["create", "ann"], "short\n", "password must have at least 8 characters"),
        (["create", "a b"], f"{PASSWORD}\n", "user name 'a b' must be 3 to 40"),
        (["create", "ann"], "", "no password on stdin"),
        (["create", "dee", "--role", "dealer", "--chips", "5"], "", "only a player's account"),
        (["create", "ann", "--chips", "five"], "", "--chips 'five' is not a number in digits"),
        (["create", "ann", "--chips", "1e3"], "", "--chips '1e3' is not a number in digits"),
        (["create", "ann", "--chips", "٢٥"], "", "--chips '٢٥' is not a number in digits 0-9"),
        (["create", "ann", "--chips", "1_000"], "", "--chips '1_000' is not a number in digits"),
        (["create", "ann", "--chips", "0"], "", "--chips"),
        (["create", "ann", "--role", "boss"], "", "Invalid value for '--role'"),
        (["disable", "nobody"], "", "no account named 'nobody'"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(
    url: str, arguments: list[str], stdin: str, message: str
) -> None:
    result = CliRunner().invoke(cli, ["accounts", *arguments, "--db", url], input=stdin)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_a_name_is_taken_once(url: str) -> None:
    for _ in range(2):
        result = CliRunner().invoke(
            cli, ["accounts", "create", "ann", "--db", url], input=f"{PASSWORD}\n"
        )
    assert result.exit_code == 2
    assert result.stderr == "error: user name 'ann' is taken\n"


def test_a_disabled_account_can_no_longer_log_in_and_its_logins_end(url: str) -> None:
    CliRunner().invoke(cli, ["accounts", "create", "ann", "--db", url], input=f"{PASSWORD}\n")
    engine = db.connect(url)
    try:
        with engine.begin() as conn:
            token = accounts.login(conn, "ann", PASSWORD, now=db.utcnow())
        result = CliRunner().invoke(cli, ["accounts", "disable", "ann", "--db", url])
        assert result.exit_code == 0
        assert result.stdout == "disabled account 'ann': its logins have ended\n"
        again = CliRunner().invoke(cli, ["accounts", "disable", "ann", "--db", url])
        assert again.stdout == "account 'ann' was already disabled\n"
        with engine.begin() as conn, pytest.raises(SessionExpired):
            accounts.authenticate(conn, token, now=db.utcnow())
        with engine.begin() as conn, pytest.raises(AccountDisabled, match="disabled"):
            accounts.login(conn, "ann", PASSWORD, now=db.utcnow())
        with engine.begin() as conn:
            disabled = conn.execute(sqlalchemy.select(users.c.disabled_at)).scalar_one()
        assert disabled is not None
    finally:
        engine.dispose()
    listed = CliRunner().invoke(cli, ["accounts", "list", "--db", url])
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["id", "name", "role", "created", "status"]
    assert lines[1].split()[:3] == ["1", "ann", "player"]
    assert "disabled" in lines[1]
