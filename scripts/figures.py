"""Measure every performance figure of the manual again, each stamped with where it ran.

    python scripts/figures.py                   # every group, one after another (hours)
    python scripts/figures.py --only edge       # one group (--only again for more)
    python scripts/figures.py --list            # the groups, their commands and pages

A group is one benchmark as the manual runs it. Its commands run in turn, from the
repository's root with this Python; where the manual compares with an anchor (an earlier
revision's server or engine, a C++ analyzer, other packages), the command runs the anchor
itself, in the same run, so that a ratio is of two things measured side by side. What each
command prints goes, unchanged, into ``docs/figures/NAME.md``, under a header that stamps
the date and time (UTC), the commit (and whether the tree had uncommitted changes), the
CPU model, the core count and the load average (1, 5 and 15 minutes) at the start and at
the end. The pages include these files (``--8<-- "NAME.md"``, pymdownx.snippets in
``mkdocs.yml``); no figure in them is typed by hand. A command that fails leaves the file
as it was, and the script exits with status 1.

The load average says how much else the machine was doing: on a shared machine an absolute
figure moves with the day, a ratio measured in one run holds.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"
#: The first line of a file this script writes; a file carried over from an earlier
#: manual, measured before this script, starts with CARRIED instead.
WRITTEN = (
    "<!-- Written by `python scripts/figures.py --only {name}`: run it again, do not edit. -->"
)
CARRIED = "<!-- Carried over: "
#: Where a command names the PostgreSQL database (replaced by --postgres).
POSTGRES = "POSTGRES_URL"


@dataclass(frozen=True)
class Group:
    """One benchmark as the manual runs it: its commands, and the pages that show it."""

    name: str
    title: str
    #: Each command's arguments after ``python``, run in turn.
    commands: tuple[tuple[str, ...], ...]
    #: The pages (under docs/) that include ``figures/NAME.md``.
    pages: tuple[str, ...]
    #: About how long the group runs on a quiet 2-core machine.
    minutes: float
    #: What must be there before it runs, beyond ``.[test]``.
    needs: str = ""
    #: The commands print Markdown (a table), shown as it is rather than as text.
    markdown: bool = False

    @property
    def path(self) -> Path:
        return FIGURES / f"{self.name}.md"

    @property
    def benchmarks(self) -> set[str]:
        """The benchmark scripts the group runs (``benchmarks/NAME.py``)."""
        return {command[0] for command in self.commands if command[0].startswith("benchmarks/")}


GROUPS = (
    Group(
        "cli_startup",
        "how fast the light commands start",
        (("benchmarks/cli_startup.py",),),
        ("commands.md",),
        minutes=0.2,
    ),
    Group(
        "edge",
        "croupier edge's speed",
        (("benchmarks/edge.py",),),
        ("exact-math.md",),
        minutes=3,
    ),
    Group(
        "exact_anchor",
        "the exact math beside a C++ combinatorial analyzer",
        (("benchmarks/exact_anchor.py", "--repeats", "5"),),
        ("exact-math.md",),
        minutes=2,
        needs="a checkout of the analyzer (--anchor, see the script) and g++",
    ),
    Group(
        "simulate_agreement",
        "the engine against the exact value",
        (("benchmarks/simulate_agreement.py", "--rounds", "300000"),),
        ("exact-math.md",),
        minutes=10,
        markdown=True,
    ),
    Group(
        "engine_speed",
        "the engine's speed",
        (("benchmarks/engine_speed.py",),),
        ("tour.md",),
        minutes=15,
        needs="the engine before (e6546bc) in a git worktree and three PyPI packages in "
        ".peers-venv, both made by the script",
    ),
    Group(
        "simulate_speed",
        "the simulator's speed",
        (("benchmarks/simulate_speed.py", "2000000"),),
        ("simulation.md",),
        minutes=10,
    ),
    Group(
        "simulate_vs_c",
        "the simulator's kernel beside a plain C simulator of the same game",
        (("benchmarks/simulate_vs_c.py",),),
        ("simulation.md",),
        minutes=4,
        needs="gcc",
    ),
    Group(
        "simulate_scaling",
        "workers and a cluster",
        (("benchmarks/simulate_scaling.py", "200000000"),),
        ("simulation.md",),
        minutes=3,
    ),
    Group(
        "simulate_billion",
        "a billion rounds",
        (("benchmarks/simulate_billion.py", "rws-v5"),),
        ("simulation.md",),
        minutes=3,
    ),
    Group(
        "load",
        "the server under load, beside the second edition's server",
        tuple(
            (
                "benchmarks/load.py",
                *("--bots", "280", "--seconds", "10", "--warmup", "5", "--watchers", "1000"),
                *("--bot-processes", "2", "--anchor", "c2d3d03", *database),
            )
            for database in ((), ("--db", POSTGRES))
        ),
        ("server.md",),
        minutes=10,
        needs="PostgreSQL (--postgres)",
    ),
    Group(
        "load_bots",
        "500 and 1,000 bots on PostgreSQL, each acting once a second, then as fast as "
        "allowed, beside the second edition's server",
        tuple(
            (
                "benchmarks/load.py",
                *("--bots", str(bots), "--seconds", "10", "--warmup", "5"),
                *("--bot-processes", "2", "--anchor", "c2d3d03", "--db", POSTGRES),
            )
            for bots in (500, 1000)
        ),
        ("server.md",),
        minutes=12,
        needs="PostgreSQL (--postgres)",
    ),
    Group(
        "load_watchers",
        "1,000 watchers at one table of seven players, and 5,000 in the watchers' own "
        "processes, beside the second edition's server",
        (
            (
                "benchmarks/load.py",
                *("--bots", "7", "--seconds", "10", "--warmup", "5", "--watchers", "1000"),
                *("--bot-processes", "2", "--anchor", "c2d3d03"),
            ),
            (
                "benchmarks/load.py",
                *("--bots", "7", "--seconds", "10", "--warmup", "5", "--watchers", "5000"),
                *("--bot-processes", "2"),
            ),
        ),
        ("server.md",),
        minutes=6,
    ),
    Group(
        "load_behind",
        "1,000 players betting behind one box, all at once beside the server before who is "
        "present was kept as the sockets come and go, then through a 15 s window beside "
        "the server before a crowd's sign-ins were read together",
        (
            (
                "benchmarks/load.py",
                *("--bots", "7", "--behind", "1000", "--seconds", "10", "--warmup", "5"),
                *("--bot-processes", "2", "--anchor", "af4ddf8"),
            ),
            (
                "benchmarks/load.py",
                *("--bots", "7", "--behind", "1000", "--seconds", "20", "--warmup", "5"),
                *("--bot-processes", "2", "--behind-spread", "--anchor", "bbd0504"),
            ),
        ),
        ("server.md",),
        minutes=10,
    ),
    Group(
        "load_generator",
        "the bots' own CPU an action, beside the bots and server before the bots read "
        "their sockets themselves",
        (
            (
                "benchmarks/load.py",
                *("--bots", "280", "--seconds", "10", "--warmup", "5"),
                *("--bot-processes", "2", "--anchor", "bbd0504", "--anchor-bots"),
            ),
        ),
        ("server.md",),
        minutes=4,
    ),
    Group(
        "load_processes",
        "one, two and three server processes on one PostgreSQL database",
        tuple(
            (
                "benchmarks/load.py",
                *("--bots", "280", "--seconds", "10", "--warmup", "5"),
                *("--bot-processes", "2", "--db", POSTGRES, "--workers", str(workers)),
            )
            for workers in (1, 2, 3)
        ),
        ("server.md",),
        minutes=8,
        needs="PostgreSQL (--postgres)",
    ),
    Group(
        "record_path",
        "a table's record path alone, in one process; then with the database 0.5 ms "
        "away each way, beside the server at the start of this edition's last change",
        (
            ("benchmarks/record_path.py",),
            ("benchmarks/record_path.py", "--db", POSTGRES),
            (
                "benchmarks/record_path.py",
                *("--db", POSTGRES, "--delay", "0.5", "--rounds", "20", "--behind", "200"),
                *("--anchor", "04a02b2"),
            ),
        ),
        ("server.md",),
        minutes=5,
        needs="PostgreSQL (--postgres)",
    ),
    Group(
        "wakeups",
        "what a thread's sleep and wake-up costs on the machine, beside plain work",
        (("benchmarks/wakeups.py",),),
        ("server.md",),
        minutes=1,
    ),
    Group(
        "report",
        "the back office report's speed",
        (
            ("benchmarks/report.py",),
            ("benchmarks/report.py", "--db", POSTGRES, "--rounds", "200000", "--tables", "40"),
            ("benchmarks/report.py", "--db", POSTGRES, "--rounds", "1000000", "--tables", "20"),
        ),
        ("report.md",),
        minutes=30,
        needs="PostgreSQL (--postgres)",
    ),
)
BY_NAME = {group.name: group for group in GROUPS}


def shown(arguments: Sequence[str]) -> str:
    """A command as the file shows it: ``python ...``, a database password hidden."""
    words = []
    for word in arguments:
        url = urllib.parse.urlsplit(word)
        if url.scheme.startswith("postgres") and url.password:
            word = word.replace(f":{url.password}@", ":***@")
        words.append(word)
    return " ".join(["python", *words])


def cpu_model() -> str:
    """The processor's name, as the kernel gives it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cores() -> str:
    total = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else total
    return f"{total} cores" if usable == total else f"{total} cores ({usable} usable)"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def git(*arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit() -> str:
    """The commit measured, and whether tracked files differed from it (the figures
    themselves aside: a run of several groups writes each group's before the next)."""
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/figures")
    return f"`{git('rev-parse', '--short', 'HEAD')}`" + (
        " (with uncommitted changes)" if changed else ""
    )


def duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def run(arguments: Sequence[str]) -> tuple[str, float]:
    """Run one command; its output, echoed as it comes (stderr passes through)."""
    print(f"figures: {shown(arguments)}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, *arguments], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        sys.stderr.write(line)
        lines.append(line)
    if process.wait():
        raise subprocess.CalledProcessError(process.returncode, shown(arguments))
    return "".join(lines).rstrip("\n"), time.perf_counter() - start


def measure(group: Group, postgres: str) -> str:
    """Run a group's commands; the Markdown of its file."""
    started = datetime.datetime.now(datetime.UTC)
    load_before, revision = load_average(), commit()
    outputs = []
    for command in group.commands:
        arguments = [postgres if word == POSTGRES else word for word in command]
        output, seconds = run(arguments)
        outputs.append((shown(arguments), output, seconds))
    stamp = (
        f"Measured on {started:%Y-%m-%d} from {started:%H:%M} UTC, at commit {revision}, "
        f"on {cpu_model()}, {cores()}; load average (1, 5, 15 min) {load_before} at the "
        f"start and {load_average()} at the end."
    )
    parts = [WRITTEN.format(name=group.name), "", stamp]
    for line, output, seconds in outputs:
        parts += ["", f"`{line}` ({duration(seconds)}):", ""]
        parts += [output] if group.markdown else ["```text", output, "```"]
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--only",
        action="append",
        choices=list(BY_NAME),
        metavar="NAME",
        help="run this group only (again for more): " + ", ".join(BY_NAME),
    )
    parser.add_argument("--list", action="store_true", help="list the groups and stop")
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "CROUPIER_BENCH_POSTGRES_URL", "postgresql://postgres@localhost/bench"
        ),
        help="the PostgreSQL database of the load and report groups (default: %(default)s, "
        "or CROUPIER_BENCH_POSTGRES_URL)",
    )
    options = parser.parse_args(argv)
    groups = [BY_NAME[name] for name in options.only] if options.only else list(GROUPS)
    if options.list:
        for group in groups:
            print(
                f"{group.name}: {group.title} (about {group.minutes:g} min; docs/"
                + ", docs/".join(group.pages)
                + ")"
            )
            for command in group.commands:
                print(f"    {shown(command)}")
            if group.needs:
                print(f"    needs {group.needs}")
        return 0
    failed = []
    for group in groups:
        try:
            text = measure(group, options.postgres)
        except (OSError, subprocess.CalledProcessError) as error:
            print(
                f"figures: {group.name} failed, its file is left as it was: {error}",
                file=sys.stderr,
            )
            failed.append(group.name)
            continue
        FIGURES.mkdir(exist_ok=True)
        group.path.write_text(text, encoding="utf-8")
        print(f"figures: wrote {group.path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
