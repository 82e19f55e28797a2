"""The README and the manual (``docs/``): what they show is what croupier does.

Their Python examples are doctests, collected by pytest itself (``--doctest-glob=*.md``
in ``pyproject.toml``); here every Python example is held to be one, the terminal
transcripts are played again and compared line by line, every ``croupier`` command
line is parsed by the command itself, and the links between the pages hold.
"""

from __future__ import annotations

import ast
import doctest
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from croupier.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]

#: A fenced block: its language and its text.
FENCE = re.compile(r"^```([\w+-]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
#: A transcript: the answers typed, then a block whose first line is the command.
TRANSCRIPT = re.compile(r"^<!-- transcript input: (.*?) -->\n```\n\$ (.*?)\n(.*?)^```", re.M | re.S)
#: A Markdown link or image to a file of the project (not a site, not an anchor alone).
LINK = re.compile(r"\]\((?!https?://|mailto:|#)([^)\s]+)\)")

#: The two commands CI and users run as they stand.
START_COMMANDS = (
    "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/croupier play",
    "python3 -m venv .venv && .venv/bin/pip install -q -r requirements/test.lock"
    " && .venv/bin/pip install -q --no-deps -e . && .venv/bin/pytest"
    " && .venv/bin/ruff check . && .venv/bin/ruff format --check && .venv/bin/mypy",
)


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _command_lines() -> list[tuple[str, str]]:
    """Every ``croupier`` command line in a shell block of a page: (page, line)."""
    found = []
    for page in PAGES:
        for language, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if language not in ("", "sh", "console"):
                continue
            for line in body.splitlines():
                line = line.removeprefix("$ ")
                if line.startswith("croupier "):
                    found.append((_name(page), line))
    return found


def test_the_readme_fits_on_a_screen_or_four() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("page", [README, DOCS / "commands.md"], ids=_name)
def test_the_two_commands_to_start_with_are_as_ci_runs_them(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for command in START_COMMANDS:
        assert f"```sh\n{command}\n```" in text


def test_ci_runs_the_readmes_test_command_as_it_stands() -> None:
    """CI (``.ci/run``) runs the README's test command word for word, its own line."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert f"{START_COMMANDS[1]} || exit 1" in lines


def test_the_readme_and_the_manual_give_the_same_install_table() -> None:
    def table(page: Path) -> list[str]:
        lines = page.read_text(encoding="utf-8").splitlines()
        return [line for line in lines if line.startswith("| `pip install ")]

    assert table(README) and table(README) == table(DOCS / "commands.md")


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_python_example_is_a_doctest(page: Path) -> None:
    for language, body in FENCE.findall(page.read_text(encoding="utf-8")):
        if language in ("python", "py", "pycon"):
            assert body.lstrip().startswith(">>>"), f"{_name(page)}: not a doctest:\n{body}"


def test_the_pages_with_doctests_are_collected_by_pytest() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    settings = options["ini_options"]
    assert "--doctest-glob=*.md" in settings["addopts"].split()
    assert {"README.md", "docs"} <= set(settings["testpaths"])


TRANSCRIPTS = [
    (_name(page), match)
    for page in PAGES
    for match in TRANSCRIPT.findall(page.read_text(encoding="utf-8"))
]


@pytest.mark.parametrize(
    ("page", "transcript"), TRANSCRIPTS, ids=[f"{page}: {t[1]}" for page, t in TRANSCRIPTS]
)
def test_a_transcript_is_what_the_command_prints(
    page: str, transcript: tuple[str, str, str]
) -> None:
    answers, command, expected = transcript
    arguments = shlex.split(command)
    assert arguments[0] == "croupier", page
    typed = "".join(f"{answer.strip()}\n" for answer in answers.split("|"))
    environment = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    played = subprocess.run(
        [sys.executable, "-m", "croupier", *arguments[1:]],
        input=typed,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environment,
        timeout=120,
        check=True,
    )
    printed = [line.rstrip() for line in played.stdout.rstrip("\n").splitlines()]
    assert printed == expected.rstrip("\n").splitlines()


@pytest.mark.parametrize(("page", "line"), _command_lines(), ids=lambda value: str(value))
def test_every_command_line_shown_is_one_croupier_takes(page: str, line: str) -> None:
    """The command and every option it names exist (``--help`` stops before it runs)."""
    words = shlex.split(line, comments=True)
    for stop in (">", "|", "&&", ";", "<"):
        if stop in words:
            words = words[: words.index(stop)]
    result = CliRunner().invoke(cli, [*words[1:], "--help"])
    assert result.exit_code == 0, f"{page}: {line}\n{result.output}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_link_to_a_file_leads_to_one(page: Path) -> None:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        path = target.split("#")[0]
        assert (page.parent / path).exists(), f"{_name(page)}: {target}"


def test_the_test_extra_has_the_test_and_lint_groups() -> None:
    """``.[test]`` (the README's test command) and the dependency groups stay one list."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    groups = project["dependency-groups"]
    extra = project["project"]["optional-dependencies"]["test"]
    assert extra == ["croupier[all]", *groups["test"], *groups["lint"]]


def test_the_lock_satisfies_pyproject_and_a_raised_bound_is_caught() -> None:
    """``requirements/test.lock`` (what CI installs) against ``pyproject.toml``, as
    ``scripts/check_lock.py`` holds it in CI."""
    spec = importlib.util.spec_from_file_location(
        "check_lock_script", ROOT / "scripts" / "check_lock.py"
    )
    assert spec is not None and spec.loader is not None
    check_lock = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = check_lock
    spec.loader.exec_module(check_lock)
    pyproject = (ROOT / "pyproject.toml").read_text()
    lock = (ROOT / "requirements" / "test.lock").read_text()
    assert check_lock.check(pyproject, lock) == []
    raised = pyproject.replace('"pytest>=8",', '"pytest>=999",', 1)
    assert [problem.split(" (")[0] for problem in check_lock.check(raised, lock)] == ["pytest>=999"]


@pytest.mark.parametrize("path", sorted((DOCS / "hooks").glob("*.py")), ids=_name)
def test_the_sites_own_code_does_what_its_examples_say(path: Path) -> None:
    """The hooks of ``mkdocs.yml`` (kept out of pytest's collection: the Griffe
    extension needs the docs group)."""
    if "griffe" in path.read_text(encoding="utf-8"):
        pytest.importorskip("griffe", reason="the docs group is not installed")
    spec = importlib.util.spec_from_file_location(f"docs_hooks_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    failed, tried = doctest.testmod(module)
    assert tried and not failed


def test_the_round_script_shown_is_the_one_its_example_plays_and_croupier_round_takes() -> None:
    text = (DOCS / "round-script.md").read_text(encoding="utf-8")
    shown = json.loads(next(body for language, body in FENCE.findall(text) if language == "json"))
    played = subprocess.run(
        [sys.executable, "-m", "croupier", "round", "-"],
        input=json.dumps(shown),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(played.stdout)
    said = (report["dealer"], report["players"], report["house_net"])
    # The doctest beside it plays the same script, and prints the same.
    examples = doctest.DocTestParser().get_examples(text)
    call = next(example.source for example in examples if "play_script(" in example.source)
    statement = ast.parse(call).body[0]
    assert isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)
    assert ast.literal_eval(statement.value.args[0]) == shown
    assert any(example.want.strip() == repr(said) for example in examples)


#: A file or folder of the project named in a page: a script, a benchmark, a test.
PROJECT_PATH = re.compile(r"\b((?:scripts|benchmarks|tests|src/croupier|frontend)/[\w./*-]*\w/?)")


#: A module named by its path in the package (``server/hub.py``, ``cli/shared.py``).
PACKAGE_PATH = re.compile(r"`((?:server|cli|analysis|simulate|presets)/[\w/]+\.py)`")


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_script_test_and_module_named_is_there(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for path in PROJECT_PATH.findall(text):
        assert any(ROOT.glob(path.rstrip("/"))), f"{_name(page)}: {path}"
    for path in PACKAGE_PATH.findall(text):
        assert (ROOT / "src" / "croupier" / path).is_file(), f"{_name(page)}: {path}"
