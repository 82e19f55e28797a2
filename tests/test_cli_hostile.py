"""Hostile input on the command line: any argument list, any file, for every command.

Each command is driven in-process (Click's runner) by Hypothesis with argument lists
made of its own options, values that are nearly right (other scripts' digits, huge
numbers, empty text, paths that are not there) and text of any kind.  Whatever comes
in, a command ends with status 0 or 2 (``ledger check`` also 1, its finding), one line
of error and never a traceback.  ``serve`` is only asked to check its flags: the
database step that would start a server is replaced by a stop.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from croupier.cli import cli
from croupier.presets import PRESET_NAMES
from croupier.rules import rule_fields

#: Text of any kind, short: a value, a path, a field's name.
ANY_TEXT = st.text(max_size=12)

#: Values that are nearly right: the edges of numbers, other scripts' digits, paths.
NEARLY = st.sampled_from(
    [
        "",
        " ",
        "0",
        "-1",
        "1",
        "2",
        "6",
        "3/2",
        "1/0",
        "0.5",
        "1e3",
        "1_000",
        "nan",
        "inf",
        "-inf",
        "\uff18",  # a full-width 8
        "٢٥",
        "true",
        "none",
        "9" * 40,
        "0." + "0" * 30 + "1",
        "/nonexistent/x",
        ".",
        "\x00",
        "=",
        "a=b=c",
    ]
)

VALUE = st.one_of(NEARLY, ANY_TEXT)

#: ``--set FIELD=VALUE``: a field of the rules or not, a value nearly right or any.
SETTING = st.builds(
    lambda field, value: f"{field}={value}",
    st.one_of(st.sampled_from(rule_fields()), ANY_TEXT),
    st.one_of(VALUE, st.sampled_from(["peek", "late", "9-11", "rank", "8", "0.01", "4"])),
)

PRESET = st.one_of(st.sampled_from(PRESET_NAMES), ANY_TEXT)

HOSTILE = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def arguments(
    pairs: dict[str, st.SearchStrategy[str]], flags: Sequence[str] = ()
) -> st.SearchStrategy[list[str]]:
    """Argument lists of options with values, flags, and stray text, in any order."""
    single = st.one_of(
        st.sampled_from([*flags, "--help"]).map(lambda flag: [flag]),
        ANY_TEXT.map(lambda text: [text]),
    )
    group = single
    if pairs:
        option = st.sampled_from(sorted(pairs)).flatmap(
            lambda name: pairs[name].map(lambda value: [name, value])
        )
        group = st.one_of(option, option, single)
    return st.lists(group, max_size=5).map(
        lambda groups: [token for group in groups for token in group]
    )


def check(result: Result, *, allowed: tuple[int, ...] = (0, 2)) -> None:
    """Status 0 or 2, no traceback, and an error in one line."""
    if currently_in_test_context():
        event(f"exit {result.exit_code}")
    if result.exit_code not in allowed or (
        result.exception is not None and not isinstance(result.exception, SystemExit)
    ):
        import traceback

        trace = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
        pytest.fail(f"exit {result.exit_code}:\n{result.output}\n{trace}")
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert result.stderr.strip(), "an error says what was wrong"


def invoke(args: Sequence[str], **kwargs: Any) -> Result:
    return CliRunner().invoke(cli, list(args), **kwargs)


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


@pytest.fixture(autouse=True)
def _in_folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command runs in a folder of its own: what a relative path or a default
    database (``croupier.db``) writes lands there."""
    monkeypatch.chdir(folder)


# -- round ---------------------------------------------------------------------------------------

JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), ANY_TEXT, NEARLY),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(ANY_TEXT, inner, max_size=4)
    ),
    max_leaves=12,
)
CARDS = st.lists(
    st.one_of(st.sampled_from(["AS", "KD", "10H", "9C", "7S", "2D", "5H", "8C"]), ANY_TEXT),
    max_size=10,
)
SCRIPT = st.fixed_dictionaries(
    {
        "rules": PRESET,
        "shoe": st.one_of(CARDS, JSON_VALUE),
    },
    optional={
        "bets": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "box": st.one_of(st.integers(-2, 10), JSON_VALUE),
                    "player": st.one_of(st.sampled_from(["ann", "bob"]), JSON_VALUE),
                    "main": st.one_of(st.sampled_from(["25", "100", "5000.01"]), VALUE),
                    "player_pair": VALUE,
                    "under_13": VALUE,
                },
            ),
            max_size=3,
        ),
        "decisions": st.dictionaries(
            st.sampled_from(["ann", "bob", ""]),
            st.lists(
                st.one_of(
                    st.sampled_from(["hit", "stand", "double", "split", "surrender", "decline"]),
                    ANY_TEXT,
                ),
                max_size=4,
            ),
            max_size=2,
        ),
        "overrides": st.dictionaries(st.sampled_from(rule_fields()), JSON_VALUE, max_size=2),
        "inputs": JSON_VALUE,
        "rules_version": JSON_VALUE,
    },
)
FILE_CONTENT = st.one_of(
    st.binary(max_size=200),
    ANY_TEXT.map(str.encode),
    JSON_VALUE.map(lambda value: json.dumps(value).encode()),
    SCRIPT.map(lambda script: json.dumps(script).encode()),
    st.integers(1, 100_000).map(lambda depth: b"[" * depth + b"]" * depth),
)


@HOSTILE
@given(content=FILE_CONTENT, args=arguments({"--indent": VALUE}))
def test_round_any_file_and_arguments(folder: Path, content: bytes, args: list[str]) -> None:
    path = folder / "round.json"
    path.write_bytes(content)
    check(invoke(["round", str(path), *args]))
    check(invoke(["round", "-", *args], input=content))


@HOSTILE
@given(args=st.lists(st.one_of(ANY_TEXT, NEARLY), max_size=4))
def test_round_any_arguments(args: list[str]) -> None:
    check(invoke(["round", *args], input=b""))


# -- rules, schema -------------------------------------------------------------------------------


@HOSTILE
@given(
    args=arguments(
        {"--rules": PRESET}, flags=["list", "show", "--json", *PRESET_NAMES, "--markdown"]
    )
)
def test_rules_any_arguments(args: list[str]) -> None:
    check(invoke(["rules", *args]))
    check(invoke(["rules", "show", *args]))


@HOSTILE
@given(args=arguments({}, flags=["commands", "script", "protocol", "--json"]))
def test_schema_any_arguments(args: list[str]) -> None:
    check(invoke(["schema", *args]))


# -- edge, strategy ------------------------------------------------------------------------------


@settings(HOSTILE, max_examples=25)
@given(args=arguments({"--rules": PRESET, "--set": SETTING}, flags=["--json"]))
def test_edge_any_arguments(args: list[str]) -> None:
    check(invoke(["edge", *args]))


@settings(HOSTILE, max_examples=25)
@given(
    args=arguments(
        {
            "--rules": PRESET,
            "--set": SETTING,
            "--format": st.one_of(st.sampled_from(["text", "html", "svg"]), VALUE),
            "--output": st.one_of(st.sampled_from(["/nonexistent/dir/chart.html", "."]), VALUE),
        },
        flags=["--json"],
    )
)
def test_strategy_any_arguments(args: list[str]) -> None:
    check(invoke(["strategy", *args]))


# -- simulate ------------------------------------------------------------------------------------

#: Runs stay short: a few thousand rounds on this process (the argument lists may
#: change both, only to values as small or smaller).
SHORT_RUN = ["--rounds", "2000", "--workers", "1"]


@settings(HOSTILE, max_examples=30)
@given(
    args=arguments(
        {
            "--rules": PRESET,
            "--set": SETTING,
            "--rounds": st.sampled_from(["0", "-5", "1", "1500", "1e3", "x", "\uff11\uff10", ""]),
            "--boxes": VALUE,
            "--strategy": st.one_of(st.sampled_from(["basic", "/nonexistent.json"]), VALUE),
            "--side-bets": st.one_of(
                st.sampled_from(["under_13", "over_13=0.5", "21+3=1/5", "player_pair=0"]),
                VALUE,
            ),
            "--count": st.one_of(st.just("hi-lo"), VALUE),
            "--spread": st.one_of(st.sampled_from(["1-8", "8-1", "1-1", "0-2"]), VALUE),
            "--bankroll": VALUE,
            "--seed": VALUE,
            "--workers": st.sampled_from(["0", "1", "-1", "x", ""]),
            "--plot": st.sampled_from(["/nonexistent/x.png", "x.txt", ""]),
        },
        flags=["--json", "--indices", "--timings"],
    )
)
def test_simulate_any_arguments(args: list[str]) -> None:
    check(invoke(["simulate", *SHORT_RUN, *args]))


# -- serve (its flags only) ----------------------------------------------------------------------


class _Started(Exception):
    """The flags passed: the server would start now."""


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier.cli import serve

    def stop(*args: object, **kwargs: object) -> None:
        raise _Started

    monkeypatch.setattr(serve, "connect_database", stop)
    monkeypatch.setattr(serve, "_check_port", lambda host, port: None)
    for name in list(os.environ):
        if name.startswith("CROUPIER_"):
            monkeypatch.delenv(name)


@HOSTILE
@given(
    args=arguments(
        {
            "--db": st.one_of(
                st.sampled_from(["sqlite:///x.db", "postgresql://u:p@127.0.0.1:1/x", "nope://"]),
                VALUE,
            ),
            "--host": VALUE,
            "--port": VALUE,
            "--tables": VALUE,
            "--play-money": VALUE,
            "--log": st.one_of(st.sampled_from(["json", "text", "none"]), VALUE),
            "--workers": VALUE,
            "--share": st.one_of(st.sampled_from(["1/2", "2/1", "0/0", "1/1"]), VALUE),
            "--sockets-per-address": VALUE,
            "--write-threads": VALUE,
        },
        flags=["--standby", "--no-standby"],
    ),
    tables=st.one_of(st.binary(max_size=120), JSON_VALUE.map(lambda v: json.dumps(v).encode())),
)
def test_serve_any_flags(no_server: None, folder: Path, args: list[str], tables: bytes) -> None:
    path = folder / "tables.toml"
    path.write_bytes(tables)
    for given_args in (args, [*args, "--tables", str(path)]):
        result = invoke(["serve", *given_args])
        if isinstance(result.exception, _Started):
            continue
        check(result)


# -- accounts, ledger, report (a database of their own) ------------------------------------------


@pytest.fixture(scope="module")
def database(folder: Path) -> str:
    url = f"sqlite:///{folder / 'croupier.db'}"
    made = invoke(
        ["accounts", "create", "ann", "--db", url, "--chips", "100"], input="secret-pass\n" * 2
    )
    assert made.exit_code == 0, made.output
    return url


@settings(HOSTILE, max_examples=30)
@given(
    args=arguments(
        {
            "--role": st.one_of(st.sampled_from(["player", "dealer", "admin"]), VALUE),
            "--chips": VALUE,
            "--db": VALUE,
        },
        flags=["create", "list", "disable", "--json", "ann", "bob"],
    ),
    password=ANY_TEXT,
    command=st.one_of(st.sampled_from(["create", "list", "disable"]), ANY_TEXT),
)
def test_accounts_any_arguments(
    database: str, args: list[str], password: str, command: str
) -> None:
    answers = f"{password}\n" * 2
    check(invoke(["accounts", command, *args, "--db", database], input=answers))
    check(invoke(["accounts", command, *args], input=answers, env={"CROUPIER_DB_URL": "x"}))


@settings(HOSTILE, max_examples=20)
@given(args=arguments({"--db": VALUE}, flags=["check", "--json"]))
def test_ledger_any_arguments(database: str, args: list[str]) -> None:
    check(invoke(["ledger", "check", *args, "--db", database]), allowed=(0, 1, 2))
    check(invoke(["ledger", *args]), allowed=(0, 1, 2))


@settings(HOSTILE, max_examples=20)
@given(
    args=arguments(
        {
            "--db": VALUE,
            "--since": st.one_of(st.sampled_from(["2026-01-01", "2026-13-40", "yesterday"]), VALUE),
            "--until": VALUE,
            "--table": VALUE,
            "--player": VALUE,
            "--csv": st.sampled_from(["/nonexistent/dir", ".", ""]),
        },
        flags=["--json"],
    )
)
def test_report_any_arguments(database: str, args: list[str]) -> None:
    check(invoke(["report", *args, "--db", database]))


@pytest.mark.parametrize(
    "args",
    [
        ["strategy", "--set", "currency_unit=0." + "0" * 27 + "1", "--json"],
        ["strategy", "--set", "maximum_bet=" + "9" * 32, "--json"],
        ["strategy", "--output", "chart" + chr(0) + ".html"],
        ["simulate", "--rounds", "1" + "0" * 29],
        ["simulate", "--plot", "x" + chr(0) + ".png", "--rounds", "10"],
        ["round", "script" + chr(0) + ".json"],
        ["serve", "--tables", "tables" + chr(0) + ".toml"],
        ["report", "--csv", "out" + chr(0)],
    ],
    ids=[
        "tiny-unit",
        "huge-maximum",
        "nul-output",
        "huge-rounds",
        "nul-plot",
        "nul-round",
        "nul-tables",
        "nul-csv",
    ],
)
def test_inputs_that_once_gave_a_traceback(args: list[str]) -> None:
    """Each of these once ended in a traceback: a remainder taken with too few digits
    (``decimal.InvalidOperation``), a plan of 10^29 rounds (``OverflowError``), a file
    name holding a NUL character (``ValueError``)."""
    check(invoke(args))


def test_a_tables_file_that_is_not_utf_8_is_one_line(no_server: None, folder: Path) -> None:
    path = folder / "latin.toml"
    path.write_bytes(b'[[table]]\nid = "caf\xe9"\npreset = "live"\n')
    result = invoke(["serve", "--tables", str(path)])
    check(result)
    assert result.exit_code == 2 and "latin.toml" in result.stderr
