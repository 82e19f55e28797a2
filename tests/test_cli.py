"""The ``croupier`` command as a user meets it: exit statuses, one-line errors, JSON output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"


def croupier(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "croupier", *args],
        input=stdin,
        env=None if env is None else {**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


def assert_usage_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """A malformed command line: Click's usage and hint, then the error on one line."""
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("Usage: croupier ")
    # Click 8.1 names "-h" here, later versions "--help": either is the hint.
    assert lines[1].startswith("Try 'croupier ")
    assert lines[1].endswith(("--help' for help.", " -h' for help."))
    assert lines[-1].startswith("Error: ")
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[-1]


def test_round_prints_the_golden_report() -> None:
    script = GOLDEN / "rws_v5_standing_player_declines_split.round.json"
    result = croupier("round", str(script))
    assert result.returncode == 0, result.stderr
    expected = json.loads(
        script.with_name(script.name.replace(".round.", ".expected.")).read_text()
    )
    assert json.loads(result.stdout) == expected


def test_round_reads_stdin() -> None:
    script = (GOLDEN / "rws_v5_surrender_against_ten.round.json").read_text()
    result = croupier("round", "-", stdin=script)
    assert result.returncode == 0
    assert json.loads(result.stdout)["players"] == {"ann": "-50.00"}


def test_round_errors_are_one_line_with_status_2() -> None:
    assert_one_line_error(croupier("round", "-", stdin="{bad"), "not valid JSON", "line 1")
    assert_one_line_error(
        croupier("round", "-", stdin='{"rules": "rws-v5", "shoe": ["1X"], "bets": []}'),
        "shoe[0]",
        "unknown card '1X'",
    )
    assert_usage_error(croupier("round", "/no/such/file.json"), "No such file")
    script = json.loads((GOLDEN / "rws_v5_surrender_against_ten.round.json").read_text())
    script["decisions"] = {"ann": ["split"]}
    assert_one_line_error(croupier("round", "-", stdin=json.dumps(script)), "cannot split")
    script["decisions"] = {}
    assert_one_line_error(croupier("round", "-", stdin=json.dumps(script)), "ran out")


def test_a_voided_round_is_not_an_error() -> None:
    result = croupier("round", str(GOLDEN / "rws_v5_foreign_card_voids.round.json"))
    assert result.returncode == 0
    assert "5.5.1" in json.loads(result.stdout)["void"]


def test_rules_commands() -> None:
    listed = croupier("rules", "list")
    assert listed.returncode == 0
    for name in ("rws-v4", "rws-v5", "online-8deck", "casino-to-go", "live"):
        assert name in listed.stdout
    assert_one_line_error(croupier("rules", "show", "nope"), "unknown preset 'nope'")


def test_play_bad_option_keeps_the_usage_hint() -> None:
    assert_usage_error(croupier("play", "--boxes", "9"), "--boxes", "rws-v5 has 7 boxes")


def test_no_command_prints_help() -> None:
    result = croupier()
    assert result.returncode == 0
    assert "round" in result.stdout and "play" in result.stdout


@pytest.mark.slow
def test_serve_refuses_bad_play_money_before_starting(tmp_path: Path) -> None:
    """Play money is an amount: NaN, a negative one or another script's digits get one
    line and exit 2, and no database is made."""
    db = tmp_path / "never.db"
    for value, words in (
        ("NaN", ("--play-money", "'NaN'")),
        ("-100", ("--play-money", "more than zero")),
        ("٢٥", ("--play-money", "digits 0-9")),
    ):
        result = croupier("serve", "--db", f"sqlite:///{db}", "--play-money", value)
        assert_one_line_error(result, *words)
    assert not db.exists()


def test_serve_refuses_a_port_that_is_taken(tmp_path: Path) -> None:
    """A port another program listens on: one line and exit 2, not "serving" and exit 3."""
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = croupier("serve", "--db", f"sqlite:///{tmp_path / 'x.db'}", "--port", str(port))
    assert_one_line_error(result, f"127.0.0.1:{port}")
    assert "serving" not in result.stderr


def test_serve_reads_its_settings_from_the_environment_and_flags_override_them(
    tmp_path: Path,
) -> None:
    """CROUPIER_DB_URL, CROUPIER_PLAY_MONEY...: a setting from the environment is checked
    like its flag, and a flag given on the command line wins over it."""
    db = tmp_path / "never.db"
    env = {"CROUPIER_DB_URL": f"sqlite:///{db}", "CROUPIER_PLAY_MONEY": "NaN"}
    assert_one_line_error(croupier("serve", env=env), "--play-money", "'NaN'")
    overridden = croupier("serve", "--play-money", "-5", env=env)
    assert_one_line_error(overridden, "--play-money", "more than zero")
    assert not db.exists()


def test_serve_refuses_a_cluster_it_cannot_run(tmp_path: Path) -> None:
    """Servers share tables only on PostgreSQL: --workers or --share on a SQLite file, a
    share that is not I/N, or --workers with --share or --standby: one line, exit 2,
    nothing made."""
    db = tmp_path / "never.db"
    sqlite = ("--db", f"sqlite:///{db}")
    assert_one_line_error(croupier("serve", *sqlite, "--workers", "2"), "--workers 2", "PostgreSQL")
    assert_one_line_error(croupier("serve", *sqlite, "--share", "0/2"), "--share 0/2", "PostgreSQL")
    for share in ("2/2", "x", "1/0", "-1/2"):
        assert_one_line_error(croupier("serve", *sqlite, "--share", share), f"--share {share}")
    assert_one_line_error(
        croupier("serve", *sqlite, "--workers", "2", "--share", "0/2"), "--workers", "--share"
    )
    assert_one_line_error(croupier("serve", *sqlite, "--share", "0/2", "--standby"), "--standby")
    assert_usage_error(croupier("serve", *sqlite, "--workers", "0"), "--workers")
    assert not db.exists()


def test_serve_refuses_a_bad_setting_from_the_environment_in_one_line(tmp_path: Path) -> None:
    """A variable's value is checked as its flag's would be, and the error names both."""
    db = tmp_path / "never.db"
    for variable, value, words in (
        ("CROUPIER_PORT", "eighty", ("CROUPIER_PORT", "--port", "'eighty'")),
        ("CROUPIER_LOG", "xml", ("CROUPIER_LOG", "--log", "'xml'")),
        ("CROUPIER_STANDBY", "maybe", ("CROUPIER_STANDBY", "--standby")),
        ("CROUPIER_TABLES", str(tmp_path / "none.toml"), ("CROUPIER_TABLES", "none.toml")),
    ):
        env = {"CROUPIER_DB_URL": f"sqlite:///{db}", variable: value}
        assert_one_line_error(croupier("serve", env=env), *words)
    assert not db.exists()


def test_serve_listens_where_the_environment_says_unless_a_flag_says_otherwise(
    tmp_path: Path,
) -> None:
    """CROUPIER_HOST and CROUPIER_PORT are where the server listens (a port another
    program holds is refused); --port wins over a CROUPIER_PORT it never reads."""
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = str(holder.getsockname()[1])
        env = {
            "CROUPIER_DB_URL": f"sqlite:///{tmp_path / 'x.db'}",
            "CROUPIER_HOST": "127.0.0.1",
            "CROUPIER_PORT": port,
        }
        assert_one_line_error(croupier("serve", env=env), f"127.0.0.1:{port}")
        env["CROUPIER_PORT"] = "not a port"
        assert_one_line_error(croupier("serve", "--port", port, env=env), f"127.0.0.1:{port}")


def test_serve_believes_no_forwarded_address_unless_told_which_proxies_to_trust(
    tmp_path: Path,
) -> None:
    """The login throttle counts failures by address: a client's own X-Forwarded-For
    header must not choose it (uvicorn would believe it from loopback by default)."""
    import json
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "log"
    command = [sys.executable, "-m", "croupier", "serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"]
    command += ["--port", str(port), "--log", "json"]
    env = {key: value for key, value in os.environ.items() if key != "FORWARDED_ALLOW_IPS"}
    with log.open("w") as output:
        server = subprocess.Popen(command, stdout=output, stderr=output, env=env)
        try:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/health", headers={"X-Forwarded-For": "203.0.113.9"}
            )
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(request, timeout=5) as answer:
                        assert answer.status == 200
                        break
                except OSError:
                    assert time.monotonic() < deadline and server.poll() is None
                    time.sleep(0.2)
        finally:
            server.terminate()
            server.wait(timeout=30)
    clients = [
        json.loads(line).get("client")
        for line in log.read_text().splitlines()
        if line.startswith("{") and '"route": "/health"' in line
    ]
    assert clients and set(clients) == {"127.0.0.1"}


def test_serve_logs_a_frame_that_is_not_utf8_as_one_line(tmp_path: Path) -> None:
    """Text that is not UTF-8 is the client's fault: its socket is closed (1007) and the
    log gets one line, not a traceback per frame."""
    import socket
    import time

    from websockets.exceptions import ConnectionClosedError
    from websockets.sync.client import connect

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "log"
    command = [sys.executable, "-m", "croupier", "serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"]
    command += ["--port", str(port), "--log", "text"]
    with log.open("w") as output:
        server = subprocess.Popen(command, stdout=output, stderr=output)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket_ = connect(f"ws://127.0.0.1:{port}/ws/tables/rws-v5")
                    break
                except OSError:
                    assert time.monotonic() < deadline and server.poll() is None
                    time.sleep(0.2)
            with socket_:
                socket_.recv(timeout=10)  # the welcome
                socket_.send(b'{"type": "ping", "x": "\xff"}', text=True)
                try:
                    socket_.recv(timeout=10)
                    raise AssertionError("the socket stayed open")
                except ConnectionClosedError as closed:
                    assert closed.rcvd is not None and closed.rcvd.code == 1007
        finally:
            server.terminate()
            server.wait(timeout=30)
    text = log.read_text()
    assert "Invalid UTF-8" in text and "Traceback" not in text


@pytest.mark.parametrize(
    ("blocked", "flags", "said"),
    [
        ("matplotlib", ["--plot", "run.png"], "error: --plot needs matplotlib"),
        ("distributed", ["--cluster", "tcp://127.0.0.1:1"], "error: --cluster needs Dask"),
    ],
)
def test_a_missing_extra_is_named_once_with_its_flag(
    tmp_path: Path, blocked: str, flags: list[str], said: str
) -> None:
    """``error: --plot needs matplotlib``, not ``error: --plot --plot needs ...``."""
    program = (
        f"import sys; sys.modules[{blocked!r}] = None; from croupier.cli import main; "
        f"sys.argv = ['croupier', 'simulate', '--rounds', '10', *{flags!r}]; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(said) and done.stderr.count(flags[0]) == 1, done.stderr


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"[" * 100_000, "nested too deeply"),
        (b'\xff\xfe{"rules": "rws-v5"}', "not UTF-8 text (byte 0: 0xff)"),
    ],
)
def test_round_refuses_a_file_it_cannot_read_in_one_line(
    tmp_path: Path, content: bytes, said: str
) -> None:
    """Deeply nested JSON and bytes that are not UTF-8 once ended in a traceback."""
    script = tmp_path / "round.json"
    script.write_bytes(content)
    assert_one_line_error(croupier("round", str(script)), said)


@pytest.mark.parametrize(
    ("command", "setting", "said"),
    [
        ("edge", "currency_unit=0", "currency_unit must be more than zero"),
        ("strategy", "currency_unit=0", "currency_unit must be more than zero"),
        ("edge", "decks=\uff18", "is not an integer in digits 0-9"),
        ("edge", "minimum_bet=1e3", "is not an exact amount in digits 0-9"),
        ("edge", "blackjack_pays=\u0663/\u0662", "is not a ratio"),
    ],
)
def test_set_refuses_what_it_cannot_read_in_one_line(command: str, setting: str, said: str) -> None:
    """``decimal.InvalidOperation`` once escaped for a zero currency unit, and other
    scripts' digits were read (a full-width ``decks=8`` as 8)."""
    assert_one_line_error(croupier(command, "--rules", "rws-v5", "--set", setting), said)


def test_edge_takes_every_set_that_makes_a_valid_table() -> None:
    """The stated-RTP search once tried a neighbour the rules refuse (no hole card,
    dealt first) and failed the user's own valid ``--set``."""
    done = croupier("edge", "--rules", "online-8deck", "--set", "surrender=none", "--json")
    assert done.returncode == 0, done.stderr
    late = croupier("edge", "--rules", "online-8deck", "--json")
    without, with_late = (json.loads(run.stdout)["main"]["cd"]["rtp"] for run in (done, late))
    assert without < with_late  # late surrender is worth something to the player
