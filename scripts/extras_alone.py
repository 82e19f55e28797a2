"""Every extra installed alone, in an environment of its own, and every command run there.

``pip install croupier`` with one extra (or none) must run the commands that extra
serves, and refuse the others in one line naming the extra to install (``croupier
serve`` once failed on SQLite for want of PostgreSQL's driver, because no extra had
ever been tried alone).  Which command needs which extra is read from one place,
:data:`croupier.cli.COMMANDS`; every command must have a run below.

Usage: ``python scripts/extras_alone.py [ENVIRONMENT ...]`` (default: all of them).
PostgreSQL is used where ``CROUPIER_TEST_POSTGRES_URL`` names a server.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from croupier.cli import COMMANDS  # noqa: E402 (the source tree's, before installing)

#: Each environment: what is installed, and the extras that gives.
ENVIRONMENTS: dict[str, tuple[str, set[str]]] = {
    "base": (".", set()),
    "math": (".[math]", {"math"}),
    "server": (".[server]", {"server", "math"}),
    "server+postgres": (".[server,postgres]", {"server", "math", "postgres"}),
    "simulate": (".[simulate]", {"simulate", "math"}),
}

GOLDEN = str(ROOT / "tests/golden/live_side_bets_and_blackjack.round.json")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def run(croupier: str, *arguments: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [croupier, *arguments], input=stdin, capture_output=True, text=True, timeout=900
    )


def serve(croupier: str, url: str) -> subprocess.CompletedProcess[str]:
    """``croupier serve`` until its /health answers 200 (then stopped), or its failure."""
    port = free_port()
    server = subprocess.Popen(
        [croupier, "serve", "--db", url, "--port", str(port), "--log", "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            out, err = server.communicate()
            return subprocess.CompletedProcess(server.args, server.returncode, out, err)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:
            time.sleep(0.2)
    else:
        server.kill()
        raise SystemExit("croupier serve did not answer /health within 120 s")
    server.terminate()
    out, err = server.communicate(timeout=60)
    return subprocess.CompletedProcess(server.args, 0, out, err)


def check(environment: str, installed: set[str], venv: Path, work: Path) -> list[str]:
    """Run every command in ``venv``; the problems found."""
    croupier = str(venv / "bin" / "croupier")
    database = f"sqlite:///{work / 'smoke.db'}"
    postgres = os.environ.get("CROUPIER_TEST_POSTGRES_URL")
    runs = {
        "play": lambda: run(croupier, "play", "--seed", "1", stdin="q\n"),
        "rules": lambda: run(croupier, "rules", "show", "--rules", "live", "--json"),
        "round": lambda: run(croupier, "round", GOLDEN),
        "schema": lambda: run(croupier, "schema", "commands"),
        "edge": lambda: run(croupier, "edge", "--rules", "online-8deck", "--json"),
        "strategy": lambda: run(croupier, "strategy", "--rules", "rws-v5"),
        "simulate": lambda: run(
            croupier, "simulate", "--rounds", "20000", "--workers", "1", "--json"
        ),
        "serve": lambda: serve(croupier, database),
        "ledger": lambda: run(croupier, "ledger", "check", "--db", database),
        "accounts": lambda: run(
            croupier,
            "accounts",
            "create",
            "dee",
            "--role",
            "dealer",
            "--db",
            database,
            stdin="a dealer password\n",
        ),
        # An empty database: no rounds in the period is refused in one line (exit 2).
        "report": lambda: _report_refused(croupier, database),
    }
    missing = sorted(set(COMMANDS) - set(runs))
    if missing:
        return [f"no run for the command(s) {', '.join(missing)}: add one here"]
    problems = []
    for name, entry in COMMANDS.items():
        expected = entry.extra is None or entry.extra in installed
        done = runs[name]()
        line = f"[{environment}] croupier {name}"
        if expected and done.returncode != 0:
            problems.append(f"{line} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
        elif not expected:
            said = done.stderr.strip()
            if done.returncode != 2 or f"pip install 'croupier[{entry.extra}]'" not in said:
                problems.append(f"{line} should refuse in one line naming its extra: {said}")
            elif len(said.splitlines()) != 1 or "Traceback" in said:
                problems.append(f"{line} refused in more than one line: {said}")
        print(f"{line}: {'ok' if expected else 'refused'} ({done.returncode})", flush=True)
    if "server" in installed:
        # The protocol's schema needs the server's models.
        done = run(croupier, "schema", "protocol")
        if done.returncode != 0:
            problems.append(f"[{environment}] croupier schema protocol failed: {done.stderr}")
    if "postgres" in installed and postgres:
        problems += _on_postgres(environment, croupier, postgres, venv)
    elif "server" in installed and "postgres" not in installed and postgres:
        done = run(croupier, "ledger", "check", "--db", postgres)
        if done.returncode != 2 or "pip install 'croupier[postgres]'" not in done.stderr:
            problems.append(
                f"[{environment}] a PostgreSQL URL without the driver should name the "
                f"postgres extra: {done.stderr.strip()}"
            )
    return problems


def _report_refused(croupier: str, database: str) -> subprocess.CompletedProcess[str]:
    """``croupier report`` on a database without rounds: refused in one line, exit 2
    (where the extra is installed, that refusal is the command working)."""
    done = run(croupier, "report", "--db", database)
    if done.returncode == 2 and "no rounds" in done.stderr:
        return subprocess.CompletedProcess(done.args, 0, done.stdout, done.stderr)
    return done


def _on_postgres(environment: str, croupier: str, url: str, venv: Path) -> list[str]:
    """``serve`` and ``ledger check`` on a database of their own on that server."""
    name = f"croupier_extras_{secrets.token_hex(4)}"
    admin = [str(venv / "bin" / "python"), "-c"]
    make = (
        "import sys, psycopg; c = psycopg.connect(sys.argv[1], autocommit=True); "
        "c.execute(f'{sys.argv[2]} DATABASE \"{sys.argv[3]}\"' + sys.argv[4])"
    )
    base = url.rsplit("/", 1)[0]
    subprocess.run([*admin, make, url, "CREATE", name, ""], check=True)
    try:
        problems = []
        for done in (
            serve(croupier, f"{base}/{name}"),
            run(croupier, "ledger", "check", "--db", f"{base}/{name}"),
        ):
            if done.returncode != 0:
                problems.append(f"[{environment}] on PostgreSQL: {done.stderr.strip()[-500:]}")
        print(f"[{environment}] serve and ledger check on PostgreSQL: done", flush=True)
        return problems
    finally:
        subprocess.run([*admin, make, url, "DROP", name, " WITH (FORCE)"], check=True)


def main() -> int:
    chosen = sys.argv[1:] or list(ENVIRONMENTS)
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="croupier-extras-") as folder:
        for environment in chosen:
            target, installed = ENVIRONMENTS[environment]
            venv = Path(folder) / environment.replace("+", "-")
            work = Path(folder) / f"{venv.name}-work"
            work.mkdir()
            print(f"== {environment}: pip install -e '{target}'", flush=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run(
                [str(venv / "bin" / "pip"), "install", "-q", "-e", target], cwd=ROOT, check=True
            )
            problems += check(environment, installed, venv, work)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
