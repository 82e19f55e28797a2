"""The test session's one-time work: the simulator's kernels compiled before any test.

A first run with an empty cache compiles the simulator's kernels (about a minute of one
core, more on a loaded machine).  Done inside a test, that minute counted against the
test's own time limit, and a fresh clone's first run once failed there.  When the
session collected tests that simulate, both kernels (the plain one and the counter's)
are compiled here, after collection and before the first test, under no test's limit.
"""

from __future__ import annotations

import importlib.util
import sys
import time

import pytest

#: Test modules that run the simulator (the kernels are compiled before them).
SIMULATING = (
    "test_analysis_simulation",
    "test_chart_file",
    "test_cli",
    "test_cli_shared",
    "test_simulate_",
)


def pytest_collection_finish(session: pytest.Session) -> None:
    names = {item.path.stem for item in session.items}
    if not any(name.startswith(SIMULATING) for name in names):
        return
    if importlib.util.find_spec("numba") is None:
        return
    from croupier.presets import find_rules
    from croupier.simulate.run import simulate

    rules = find_rules("rws-v5")
    started = time.perf_counter()
    told = False

    def compiling() -> None:
        nonlocal told
        if not told:
            sys.stderr.write("\ncompiling the simulator's kernels for the tests (once) ...\n")
            told = True

    for spread in (None, (1, 8)):
        simulate(rules, rounds=1, spread=spread, compiling=compiling)
    if told:
        sys.stderr.write(f"compiled in {time.perf_counter() - started:.0f} s\n")
