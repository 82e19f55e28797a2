"""The server's settings from the environment: each variable checked as its flag is, a
given value over the variable's."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from croupier.server.settings import (
    ENVIRONMENT,
    LogFormat,
    SettingError,
    Settings,
    read_environment,
)
from croupier.server.threads import WRITE_THREADS

TABLES = """
[[table]]
id = "one"
preset = "rws-v5"
"""


def test_every_variable_sets_its_setting(tmp_path: Path) -> None:
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    settings = Settings.from_environment(
        {
            "CROUPIER_DB_URL": "postgresql://croupier@db/croupier",
            "CROUPIER_HOST": "0.0.0.0",
            "CROUPIER_PORT": "8080",
            "CROUPIER_TABLES": str(tables),
            "CROUPIER_PLAY_MONEY": "250",
            "CROUPIER_LOG": "text",
            "CROUPIER_STANDBY": "true",
            "CROUPIER_WRITE_THREADS": "8",
        }
    )
    assert settings.url == "postgresql://croupier@db/croupier"
    assert (settings.host, settings.port) == ("0.0.0.0", 8080)
    assert [table.id for table in settings.tables] == ["one"]
    assert settings.play_money == Decimal("250.00")
    assert settings.log is LogFormat.TEXT
    assert settings.standby is True
    assert settings.write_threads == 8
    assert {variable.setting for variable in ENVIRONMENT} <= set(Settings.__dataclass_fields__)


def test_no_variable_or_an_empty_one_leaves_the_default() -> None:
    assert Settings.from_environment({}) == Settings.from_environment({"CROUPIER_PORT": ""})
    settings = Settings.from_environment({"UNRELATED": "1"})
    assert (settings.url, settings.host, settings.port) == (None, "127.0.0.1", 8000)
    assert settings.play_money == Decimal("1000.00") and settings.log is LogFormat.JSON
    assert settings.standby is False and len(settings.tables) == 5
    assert settings.write_threads == WRITE_THREADS == 2


def test_a_given_value_wins_and_its_variable_is_not_even_read() -> None:
    settings = Settings.from_environment(
        {"CROUPIER_PORT": "not a port", "CROUPIER_HOST": "::1"}, port=9000, play_money=None
    )
    assert (settings.host, settings.port, settings.play_money) == ("::1", 9000, None)


@pytest.mark.parametrize(
    ("variable", "value", "words"),
    [
        ("CROUPIER_PORT", "0", "--port '0' is not a port number, 1 to 65535"),
        ("CROUPIER_PORT", "٨٠٨٠", "--port '٨٠٨٠' is not a port number"),
        ("CROUPIER_PLAY_MONEY", "NaN", "--play-money 'NaN' is not a number in digits 0-9"),
        ("CROUPIER_PLAY_MONEY", "-5", "--play-money '-5' must be more than zero"),
        ("CROUPIER_LOG", "xml", "--log 'xml' is not one of json, text, none"),
        ("CROUPIER_STANDBY", "maybe", "--standby 'maybe' is neither true nor false"),
        ("CROUPIER_TABLES", "/nowhere/tables.toml", "/nowhere/tables.toml"),
        ("CROUPIER_HOST", " ", "--host: give a value"),
        ("CROUPIER_WRITE_THREADS", "0", "--write-threads '0' is not a number of threads, 1 to 64"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable_and_its_flag(
    variable: str, value: str, words: str
) -> None:
    with pytest.raises(SettingError) as refused:
        read_environment({variable: value})
    assert str(refused.value).startswith(f"{variable}: ")
    assert words in str(refused.value)


@pytest.mark.parametrize(("word", "meaning"), [("1", True), ("Yes", True), ("off", False)])
def test_standby_reads_the_usual_words_for_true_and_false(word: str, meaning: bool) -> None:
    assert Settings.from_environment({"CROUPIER_STANDBY": word}).standby is meaning


def test_an_application_made_without_settings_reads_them_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``uvicorn --factory croupier.server.app:create_app`` makes it."""
    from fastapi.testclient import TestClient

    from croupier.server.app import create_app

    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    monkeypatch.setenv("CROUPIER_DB_URL", f"sqlite:///{tmp_path / 'site.db'}")
    monkeypatch.setenv("CROUPIER_TABLES", str(tables))
    monkeypatch.setenv("CROUPIER_PLAY_MONEY", "none")
    with TestClient(create_app()) as client:
        assert [table["id"] for table in client.get("/api/tables").json()] == ["one"]
        made = client.post("/api/accounts", json={"name": "ann", "password": "a long password"})
        assert made.status_code == 201 and made.json()["balance"] == "0.00"
    assert (tmp_path / "site.db").exists()


def test_the_manual_lists_every_variable_with_its_flag() -> None:
    manual = (Path(__file__).parents[2] / "docs" / "server.md").read_text(encoding="utf-8")
    rows = {
        line.split("|")[1].strip(" `"): line
        for line in manual.splitlines()
        if "| `CROUPIER_" in line
    }
    for variable in ENVIRONMENT:
        assert variable.name in rows, variable.name
        assert f"`{variable.flag}`" in rows[variable.name]
