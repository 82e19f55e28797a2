"""What the commands share: the preset option, ``--set``, ``--json``, extras, lazy loading."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from croupier.cli import COMMANDS, cli
from croupier.cli.shared import DEFAULT_PRESET, require_extra
from croupier.presets import PRESET_NAMES, PRESETS


def croupier(
    *arguments: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "croupier", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_every_listed_command_loads_under_its_name() -> None:
    for name, entry in COMMANDS.items():
        command = cli.get_command(click.Context(cli), name)
        assert isinstance(command, click.Command) and command.name == name, entry.module


@pytest.mark.parametrize("command", ["play", "edge", "strategy", "simulate", "rules show"])
def test_one_preset_option_with_one_default(command: str) -> None:
    """``--rules`` is the same choice of presets everywhere, rws-v5 when not given."""
    group: click.Group = cli
    context = click.Context(cli)
    found: click.Command | None = None
    for word in command.split():
        found = group.get_command(context, word)
        if isinstance(found, click.Group):
            group = found
    assert found is not None
    (option,) = [p for p in found.params if p.name == "rules_name"]
    assert isinstance(option.type, click.Choice)
    assert tuple(option.type.choices) == PRESET_NAMES
    assert option.default == DEFAULT_PRESET


@pytest.mark.parametrize("command", ["edge", "strategy", "simulate"])
def test_shells_complete_the_preset_names(command: str) -> None:
    result = croupier(
        env={
            "_CROUPIER_COMPLETE": "bash_complete",
            "COMP_WORDS": f"croupier {command} --rules rws",
            "COMP_CWORD": "3",
        }
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["plain,rws-v4", "plain,rws-v5"]


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("decks", "error: --set decks: expected FIELD=VALUE, such as --set decks=6"),
        ("name=mine", "error: --set name=mine: the name is the preset's; choose the preset"),
        ("colour=red", "error: --set colour=red: unknown rule 'colour'"),
        ("decks=12", "error: --set decks=12: decks must be from 1 to 8"),
    ],
)
def test_set_reads_and_fails_the_same_everywhere(setting: str, message: str) -> None:
    errors = set()
    for command in ("edge", "strategy", "simulate"):
        result = CliRunner().invoke(cli, [command, "--rules", "live", "--set", setting])
        assert result.exit_code == 2, (command, result.output)
        assert result.stdout == ""
        errors.add(result.stderr)
    (error,) = errors
    assert error.startswith(message) and error.count("\n") == 1


def test_rules_list_json_names_every_preset() -> None:
    result = CliRunner().invoke(cli, ["rules", "list", "--json"])
    assert result.exit_code == 0
    listed = json.loads(result.stdout)
    assert [preset["name"] for preset in listed] == list(PRESET_NAMES)
    assert listed[1]["rulebook"] == PRESETS["rws-v5"].rulebook


def test_rules_show_takes_the_preset_option_or_a_name() -> None:
    by_option = CliRunner().invoke(cli, ["rules", "show", "--rules", "live", "--json"])
    by_name = CliRunner().invoke(cli, ["rules", "show", "live", "--json"])
    assert by_option.exit_code == by_name.exit_code == 0
    assert by_option.stdout == by_name.stdout
    assert json.loads(by_option.stdout)["name"] == "live"
    both = CliRunner().invoke(cli, ["rules", "show", "live", "--rules", "rws-v4"])
    assert both.exit_code == 2
    assert both.stderr.splitlines()[-1] == "Error: give the preset once: NAME or --rules NAME"


def test_strategy_json_is_the_chart_by_rows() -> None:
    result = CliRunner().invoke(cli, ["strategy", "--rules", "online-8deck", "--json"])
    assert result.exit_code == 0, result.output
    chart = json.loads(result.stdout)
    assert chart["up_cards"][0] == "2" and len(chart["up_cards"]) == 10
    rows = {f"{row['section']} {row['label']}": row["codes"] for row in chart["rows"]}
    # Hard 16 stands against a 6 and hard 5 hits it, in every basic strategy.
    assert (rows["hard 16"][4], rows["hard 5"][4]) == ("S", "H")
    assert all(len(codes) == 10 for codes in rows.values())


def test_ledger_check_json_on_an_empty_database(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    from croupier.server import db

    url = f"sqlite:///{tmp_path / 'books.db'}"
    engine = db.connect(url)
    db.migrate(engine)  # as `croupier serve` leaves a new database: the check writes nothing
    engine.dispose()
    result = CliRunner().invoke(cli, ["ledger", "check", "--db", url, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "transactions": 0,
        "rounds": 0,
        "balanced": True,
        "problems": [],
    }


def test_a_missing_extra_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "numba" else real(name, *rest),
    )
    result = CliRunner().invoke(cli, ["edge", "--rules", "live"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: croupier edge needs NumPy and Numba (numba missing): pip install 'croupier[math]'\n"
    )
    with pytest.raises(click.ClickException, match=r"croupier\[server\]"):
        monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None)
        require_extra("server", "croupier serve")


@pytest.mark.parametrize("arguments", [["--help"], ["rules", "list"], ["rules", "show"]])
def test_the_light_commands_load_no_heavy_package(arguments: list[str]) -> None:
    """``croupier --help`` and ``rules`` load neither NumPy, Numba nor FastAPI."""
    probe = (
        "import sys\n"
        "from croupier.cli import cli\n"
        f"try:\n    cli.main({arguments!r}, prog_name='croupier')\n"
        "except SystemExit:\n    pass\n"
        "heavy = {'numpy', 'numba', 'fastapi', 'sqlalchemy'} & set(sys.modules)\n"
        "print(sorted(heavy), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.stderr.strip().splitlines()[-1] == "[]", result.stderr


def test_a_postgresql_url_without_the_driver_names_the_postgres_extra() -> None:
    pytest.importorskip("sqlalchemy")
    probe = (
        "import sys\n"
        "sys.modules['psycopg'] = None  # as if croupier[postgres] were not installed\n"
        "from croupier.cli import cli\n"
        "cli.main(['ledger', 'check', '--db', 'postgresql://nobody@localhost/none'],"
        " prog_name='croupier')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert result.stderr == (
        "error: database postgresql://nobody@localhost/none needs the PostgreSQL driver "
        "(psycopg missing): pip install 'croupier[postgres]'\n"
    )
