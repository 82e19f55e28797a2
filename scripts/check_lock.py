"""Hold requirements/test.lock to pyproject.toml, or write it again.

The lock pins, with their hashes, every package of the environment CI tests in: croupier's
``test`` extra (every extra, the test tools, the checkers) and the ``docs`` dependency group.
It is resolved for every platform and every Python that ``requires-python`` allows, from
PyPI, and names no index, link or local path, so it installs the same anywhere:

    pip install -r requirements/test.lock && pip install -e . --no-deps

``python scripts/check_lock.py`` exits 1 naming each requirement of ``pyproject.toml`` that the
lock leaves out or pins outside its range, and each line that is not a hashed pin from an
index. ``python scripts/check_lock.py --update`` writes the lock again with uv (``pip install
uv``), keeping every pin that still satisfies ``pyproject.toml``; ``--update --upgrade`` takes
the newest versions allowed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "test.lock"
PROJECT = "croupier"
# What the lock holds: the extra and the dependency group CI installs.
EXTRA = "test"
GROUP = "docs"
UPDATE_COMMAND = "python scripts/check_lock.py --update"


def compile_command(upgrade: bool) -> list[str]:
    """The uv command that writes the lock (run in the repository's root)."""
    command = [
        "uv",
        "pip",
        "compile",
        "pyproject.toml",
        "--extra",
        EXTRA,
        "--group",
        GROUP,
        # Every platform and every Python from requires-python's lowest: the markers say
        # which pin is for which.
        "--universal",
        "--python-version",
        "3.11",
        "--generate-hashes",
        "--custom-compile-command",
        UPDATE_COMMAND,
        "--quiet",
        "--output-file",
        str(LOCK.relative_to(ROOT)),
    ]
    if upgrade:
        command.append("--upgrade")
    return command


@dataclass(frozen=True)
class Pin:
    """One pinned line of the lock."""

    line: int
    requirement: Requirement

    @property
    def version(self) -> Version:
        (specifier,) = self.requirement.specifier
        return Version(specifier.version)


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lock's lines with their continuations joined and comments dropped, numbered."""
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = "" if raw.lstrip().startswith("#") else raw.split(" #", 1)[0].rstrip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1].strip())
            continue
        pending.append(line.strip())
        joined = " ".join(part for part in pending if part)
        pending = []
        if joined:
            yield start, joined


def read_lock(text: str) -> tuple[dict[str, list[Pin]], list[str]]:
    """The lock's pins by package name, and what is wrong with its lines."""
    pins: dict[str, list[Pin]] = {}
    problems: list[str] = []
    for number, line in logical_lines(text):
        where = f"{LOCK.name}:{number}"
        if line.startswith("-"):
            problems.append(f"{where}: an option ({line.split()[0]}): the lock names no index")
            continue
        words = line.split(" --hash=")
        requirement_text, hashes = words[0], words[1:]
        try:
            requirement = Requirement(requirement_text)
        except InvalidRequirement as error:
            problems.append(f"{where}: not a requirement: {error}")
            continue
        specifiers = list(requirement.specifier)
        if requirement.url is not None:
            problems.append(f"{where}: {requirement.name} from a URL, not an index")
        elif len(specifiers) != 1 or specifiers[0].operator != "==":
            problems.append(f"{where}: {requirement.name} is not pinned with ==")
        elif not hashes:
            problems.append(f"{where}: {requirement.name} has no hash")
        else:
            pins.setdefault(canonicalize_name(requirement.name), []).append(
                Pin(number, requirement)
            )
    return pins, problems


def extra_requirements(
    optional: Mapping[str, Sequence[str]], extra: str, seen: set[str]
) -> Iterator[Requirement]:
    """An extra's requirements, croupier's own extras it names expanded."""
    if extra in seen:
        return
    seen.add(extra)
    for text in optional[extra]:
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) == PROJECT:
            for inner in sorted(requirement.extras):
                yield from extra_requirements(optional, inner, seen)
        else:
            yield requirement


def group_requirements(
    groups: Mapping[str, Sequence[str | Mapping[str, str]]], group: str
) -> Iterator[Requirement]:
    """A dependency group's requirements (PEP 735), included groups expanded."""
    for item in groups[group]:
        if isinstance(item, str):
            yield Requirement(item)
        else:
            yield from group_requirements(groups, item["include-group"])


def locked_requirements(pyproject: Mapping[str, object]) -> list[Requirement]:
    """Every requirement that the lock must satisfy: the base, the extra, the group."""
    project = pyproject["project"]
    groups = pyproject["dependency-groups"]
    assert isinstance(project, dict) and isinstance(groups, dict)
    requirements = [Requirement(text) for text in project["dependencies"]]
    requirements += extra_requirements(project["optional-dependencies"], EXTRA, set())
    requirements += group_requirements(groups, GROUP)
    return requirements


def check(pyproject_text: str, lock_text: str) -> list[str]:
    """What keeps the lock from satisfying pyproject.toml; empty when it does."""
    pins, problems = read_lock(lock_text)
    for requirement in locked_requirements(tomllib.loads(pyproject_text)):
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{requirement} (pyproject.toml): not in the lock")
            continue
        for pin in pins[name]:
            if not requirement.specifier.contains(pin.version, prereleases=True):
                problems.append(
                    f"{requirement} (pyproject.toml): the lock pins {pin.version}"
                    f" ({LOCK.name}:{pin.line})"
                )
        # An extra's packages come with the pins of the package itself: uv resolved them.
    return problems


def update(upgrade: bool) -> int:
    if shutil.which("uv") is None:
        print("check_lock: --update needs uv: pip install uv", file=sys.stderr)
        return 2
    LOCK.parent.mkdir(exist_ok=True)
    return subprocess.run(compile_command(upgrade), cwd=ROOT, check=False).returncode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--update", action="store_true", help="write the lock again with uv")
    parser.add_argument(
        "--upgrade", action="store_true", help="with --update: the newest versions allowed"
    )
    arguments = parser.parse_args(argv)
    if arguments.upgrade and not arguments.update:
        parser.error("--upgrade goes with --update")
    if arguments.update:
        status = update(arguments.upgrade)
        if status:
            return status
    if not LOCK.exists():
        print(f"check_lock: {LOCK.relative_to(ROOT)} is missing: {UPDATE_COMMAND}")
        return 1
    problems = check((ROOT / "pyproject.toml").read_text(), LOCK.read_text())
    for problem in problems:
        print(f"check_lock: {problem}")
    if problems:
        print(f"check_lock: write the lock again: {UPDATE_COMMAND}")
        return 1
    print(f"check_lock: {LOCK.relative_to(ROOT)} satisfies pyproject.toml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
