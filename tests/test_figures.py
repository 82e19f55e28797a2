"""The manual's performance figures: every one written by ``scripts/figures.py``.

Each benchmark a page cites is run by a group of the script; each group's file in
``docs/figures/`` carries its stamp (or says that it was carried over from an earlier
manual, from which commit, and which command replaces it); the pages that show a group
include its file; and no page types a table of timings of its own.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIGURES = DOCS / "figures"
#: The manual's own pages, the generated files aside.
PAGES = sorted(page for page in DOCS.rglob("*.md") if FIGURES not in page.parents)


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("figures_script", ROOT / "scripts" / "figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


figures = _script()
GROUPS: tuple[Any, ...] = figures.GROUPS

#: A benchmark named in a page.
CITED = re.compile(r"\bbenchmarks/(\w+\.py)")
#: A page's line that includes a file of docs/figures (pymdownx.snippets).
INCLUDE = re.compile(r'^--8<-- "([\w.-]+)"$', re.MULTILINE)
#: A table cell that is a measured time or rate: "0.33 s", "4.70 ms", "59.4 µs", "15.18M".
TIMING = re.compile(r"^[~≈]?\d[\d.,]*(?:\s?(?:s|ms|µs|us|ns)\b|[Mk]\b)")


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_every_benchmark_the_manual_cites_is_run_by_a_group() -> None:
    run = {Path(script).name for group in GROUPS for script in group.benchmarks}
    for page in [ROOT / "README.md", *PAGES]:
        for script in CITED.findall(page.read_text(encoding="utf-8")):
            assert script in run, f"{_name(page)} cites benchmarks/{script}: no group runs it"


def test_every_group_runs_a_benchmark_that_is_there() -> None:
    assert len({group.name for group in GROUPS}) == len(GROUPS)
    for group in GROUPS:
        assert group.benchmarks, group.name
        for script in group.benchmarks:
            assert (ROOT / script).is_file(), f"{group.name}: {script}"


@pytest.mark.parametrize("group", GROUPS, ids=lambda group: group.name)
def test_a_groups_file_is_stamped_or_says_where_it_came_from(group: Any) -> None:
    name = group.name
    text = group.path.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    if first.startswith(figures.CARRIED):
        assert f"python scripts/figures.py --only {name}`" in first
        assert "Not measured by `scripts/figures.py` yet" in text
        assert re.search(r"commits? `[0-9a-f]{7}", text), "the commit that wrote them"
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", text), "the date"
    else:
        assert first == figures.WRITTEN.format(name=name)
        stamp = text.splitlines()[2]
        assert re.match(r"Measured on 20\d\d-\d\d-\d\d from \d\d:\d\d UTC, at commit `", stamp)
        assert " cores" in stamp and stamp.count(", ") >= 6, stamp
        assert "load average (1, 5, 15 min)" in stamp and " at the end." in stamp
        for command in group.commands:
            assert f"`{figures.shown(command[:1])}" in text, command


@pytest.mark.parametrize("group", GROUPS, ids=lambda group: group.name)
def test_the_pages_of_a_group_include_its_file(group: Any) -> None:
    for page in group.pages:
        text = (DOCS / page).read_text(encoding="utf-8")
        assert f"{group.name}.md" in INCLUDE.findall(text), page


def test_every_file_of_figures_is_a_groups_and_every_one_included_is_there() -> None:
    names = {f"{group.name}.md" for group in GROUPS}
    assert {path.name for path in FIGURES.glob("*.md")} == names
    for page in PAGES:
        for included in INCLUDE.findall(page.read_text(encoding="utf-8")):
            assert included in names, f"{_name(page)}: {included}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_page_types_a_table_of_timings(page: Path) -> None:
    """A measured time or rate in a table comes from a file of docs/figures."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        timed = [cell for cell in cells if TIMING.match(cell)]
        assert not timed, f"{_name(page)}: a figure typed by hand: {line}"


def test_the_testing_page_names_every_groups_command() -> None:
    text = (DOCS / "testing.md").read_text(encoding="utf-8")
    for group in GROUPS:
        assert f"`python scripts/figures.py --only {group.name}`" in text, group.name


def test_a_measured_file_stamps_the_run_and_keeps_what_the_command_printed() -> None:
    group = figures.Group(
        "example",
        "a command that prints a table",
        (("-c", "print('| a | b |'); print('|---|---|'); print('| 1 | 2 |')"),),
        (),
        minutes=0,
        markdown=True,
    )
    text = figures.measure(group, "postgresql://user:secret@localhost/bench")
    lines = text.splitlines()
    assert lines[0] == figures.WRITTEN.format(name="example")
    assert lines[2].startswith("Measured on ") and lines[2].count("load average") == 1
    assert text.endswith("| a | b |\n|---|---|\n| 1 | 2 |\n")


def test_a_database_password_is_not_shown() -> None:
    shown = figures.shown(["benchmarks/load.py", "--db", "postgresql://user:secret@host/db"])
    assert shown == "python benchmarks/load.py --db postgresql://user:***@host/db"
