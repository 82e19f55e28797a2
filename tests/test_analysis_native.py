"""The exact math's kernels compiled ahead of time (``croupier.analysis.native``): built
once into the user's cache folder, loaded without Numba, the same figures bitwise as
Numba's build, and Numba's build wherever the compiled one cannot be made."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from croupier.analysis import game, native
from croupier.analysis.dealer import dealer_table
from croupier.analysis.shoe import full_shoe

_CHILD = """
import json, sys
from croupier.analysis import native
compiled = native.use_compiled(lambda step: print("progress:", step, file=sys.stderr))
from croupier.analysis.report import par_sheet
from croupier.presets import find_rules
sheet = par_sheet(find_rules(sys.argv[1]))
report = sheet.to_json()
report.pop("seconds")
print(json.dumps({"compiled": compiled, "numba": "numba" in sys.modules, "report": report}))
"""


def _report(cache: Path, preset: str) -> tuple[dict[str, object], str]:
    """A new process's PAR sheet, with ``cache`` as its cache folder."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, preset],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, CROUPIER_CACHE_DIR=str(cache)),
        timeout=900,
    )
    return json.loads(done.stdout), done.stderr


def _numba_only(cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder where the compiled build is known not to build: Numba's runs."""
    with monkeypatch.context() as patched:
        patched.setenv("CROUPIER_CACHE_DIR", str(cache))
        folder = native.compiled_folder()
    folder.mkdir(parents=True)
    (folder / "failed.txt").write_text("no build, for the test\n")
    return cache


@pytest.mark.slow
def test_compiled_build_is_made_once_loads_without_numba_and_gives_numbas_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first process builds (and says so on stderr), the next loads the build;
    neither imports Numba, and every figure of the report (the live preset: main game,
    per up card, standard deviation, side bets, the stated RTP's search) equals Numba's
    build bitwise."""
    built, first_stderr = _report(tmp_path / "cache", "live")
    assert "progress: compiling the exact math's kernels" in first_stderr
    again, second_stderr = _report(tmp_path / "cache", "live")
    assert "progress" not in second_stderr
    assert built["compiled"] is True and again["compiled"] is True
    assert built["numba"] is False and again["numba"] is False
    numba, _ = _report(_numba_only(tmp_path / "numba-cache", monkeypatch), "live")
    assert numba["compiled"] is False and numba["numba"] is True
    assert json.dumps(built["report"]) == json.dumps(numba["report"])
    assert json.dumps(again["report"]) == json.dumps(numba["report"])


def test_a_build_that_fails_leaves_its_reason_and_is_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROUPIER_CACHE_DIR", str(tmp_path))
    # A Python that cannot run the compiler: the child exits non-zero.
    monkeypatch.setattr(sys, "executable", "/bin/false")
    told: list[str] = []
    before = native.kernels()
    assert native.use_compiled(told.append) is False
    assert native.kernels() is before  # nothing changed
    assert len(told) == 1
    failed = native.compiled_folder() / "failed.txt"
    assert failed.exists()

    def no_build(*_: object, **__: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(subprocess, "run", no_build)
    assert native.use_compiled(told.append) is False
    assert len(told) == 1


def test_the_cache_folder_is_keyed_by_the_kernels_and_follows_croupier_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROUPIER_CACHE_DIR", str(tmp_path))
    folder = native.compiled_folder()
    assert folder.parent == tmp_path / "kernels"
    assert folder == native.compiled_folder()
    monkeypatch.setattr(native, "_processor", lambda: "another processor")
    assert native.compiled_folder() != folder


def test_dealer_distributions_spread_over_threads_are_the_same_bitwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shoes split among threads in whole blocks give every figure of one call."""
    plan = tuple((pair, out) for pair in range(10) for out in range(1, 6))
    removed, _ = game._batch_rows(plan)
    shoe = full_shoe(8)
    shoe[0] -= 1
    shoes = np.ascontiguousarray(shoe[None, :] - removed)
    table = dealer_table(0, True)
    trie = (
        table.ranks,
        table.multiplicities,
        table.parents,
        table.sizes,
        table.orders,
        table.outcomes,
        table.leaves,
    )
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    whole = np.zeros((shoes.shape[0], 7))
    native.kernels().distributions(shoes, *trie, whole)  # one call, on this thread
    for threads in ("2", "3", "4"):
        monkeypatch.setenv("NUMBA_NUM_THREADS", threads)
        spread = np.zeros_like(whole)
        native.kernels().distributions(shoes, *trie, spread)
        assert np.array_equal(spread, whole)
    assert np.allclose(whole.sum(axis=1), 1.0)


def test_dealer_tables_kept_beside_the_build_read_back_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from croupier.analysis import dealer

    dealer.save_tables(tmp_path / "tables.npz")
    monkeypatch.setattr(dealer, "_tables", {})
    assert dealer.load_tables(tmp_path / "tables.npz")
    for soft in (False, True):
        for up in range(10):
            loaded, made = dealer.dealer_table(up, soft), dealer._make_table(up, soft)
            assert loaded.up == made.up == up and loaded.leaves == made.leaves
            for name in ("ranks", "multiplicities", "parents", "sizes", "orders", "outcomes"):
                assert np.array_equal(getattr(loaded, name), getattr(made, name)), name
                assert getattr(loaded, name).flags.c_contiguous
    monkeypatch.setattr(dealer, "_tables", {})
    (tmp_path / "broken.npz").write_text("not a table")
    assert not dealer.load_tables(tmp_path / "broken.npz")
    assert not dealer.load_tables(tmp_path / "missing.npz")
    assert dealer._tables == {}
