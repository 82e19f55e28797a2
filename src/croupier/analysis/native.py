"""Which build of the exact math's kernels runs: Numba's, or the same code compiled
ahead of time into an extension module that loads without Numba.

A process that runs the kernels through Numba pays about half a second before the
first figure, even with every function in Numba's cache: importing Numba, setting up
its compiler and loading each cached function.  For a command that computes one report
(``croupier edge``, ``croupier strategy``) that is most of its time.  So such a command
calls :func:`use_compiled`: the kernels of :mod:`croupier.analysis.kernel`, compiled
once by Numba's ahead-of-time compiler (``numba.pycc``, which needs a C compiler and
setuptools) into the user's cache folder (:func:`croupier.cache.cache_dir`), are loaded
as a plain extension module.  The folder is keyed by the kernels' source, Python,
NumPy and the processor, so a change to any of them builds afresh.  Where the build
cannot be made (no C compiler, a Numba without ``pycc``) the reason is kept beside
it and Numba's kernels run, with the same figures.

The two builds give the same figures, bitwise: the same code compiled by the same
compiler for the same processor.  Numba's own build stays the default: it releases the
GIL and spreads the dealer's distributions over the cores, which the server (computing
in worker threads beside its event loop) needs.

>>> kernels().name in ("numba", "compiled")
True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.machinery
import importlib.util
import itertools
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from croupier.analysis.columns import LANES
from croupier.cache import cache_dir

__all__ = ["Kernels", "compiled_folder", "kernels", "use_compiled"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The extension module's name.
MODULE = "croupier_kernels"

_I1, _I2 = "int64[::1]", "int64[:, ::1]"
_F1, _F2, _F4 = "float64[::1]", "float64[:, ::1]", "float64[:, :, :, ::1]"
_B1 = "boolean[::1]"
_HAND = f"{_I1}, {_I2}, {_I1}, {_I2}, {_B1}"

#: Each kernel the analysis calls, with the one signature it is called with.
EXPORTS: dict[str, str] = {
    "value_hands": f"void({_HAND}, {_I1}, {_F2}, {_I1}, int64, {_F1}, boolean, "
    + ", ".join([_F1] * 6)
    + ")",
    "busts_with_blackjack": f"void({_HAND}, {_B1}, int64, {_F1}, {_F1}, {_F1})",
    "hand_outcomes": f"void({_HAND}, {_I1}, {_F2}, {_B1}, int64, {_F1}, {_F2})",
    "conditional_means": f"void({_HAND}, {_B1}, {_F1}, {_F2})",
    "conditional_results": f"void({_HAND}, {_B1}, {_F1}, {_F4})",
    "distributions": f"void({_I2}, {_I1}, {_I1}, {_I1}, {_I1}, {_F1}, {_I1}, int64, {_F2})",
}

_HERE = Path(__file__).parent
#: The sources whose code the build holds.
_SOURCES = (_HERE / "kernel.py", _HERE / "columns.py", _HERE / "dealer.py", Path(__file__))
#: The dealer's tables, made by the build beside the kernels (a new process then need
#: not make them: about 0.06 s).
_TABLES = "dealer_tables.npz"


@dataclass(frozen=True)
class Kernels:
    """The kernels that run: ``name`` is ``"numba"`` or ``"compiled"``."""

    name: str
    value_hands: Any
    busts_with_blackjack: Any
    hand_outcomes: Any
    conditional_means: Any
    conditional_results: Any
    #: ``distributions(shoes, ranks, multiplicities, parents, sizes, orders, outcomes,
    #: leaves, out)``: see :func:`croupier.analysis.kernel.distributions`.
    distributions: Callable[..., None]


_lock = threading.Lock()
_chosen: Kernels | None = None


def kernels() -> Kernels:
    """The kernels this process runs (Numba's unless :func:`use_compiled` chose the
    compiled build)."""
    global _chosen
    with _lock:
        if _chosen is None:
            _chosen = _numba_kernels()
        return _chosen


def _numba_kernels() -> Kernels:
    from croupier.analysis import kernel

    return Kernels(
        "numba",
        kernel.value_hands,
        kernel.busts_with_blackjack,
        kernel.hand_outcomes,
        kernel.conditional_means,
        kernel.conditional_results,
        _spread(kernel.distributions),
    )


def _compiled_kernels(module: ModuleType) -> Kernels:
    return Kernels(
        "compiled",
        module.value_hands,
        module.busts_with_blackjack,
        module.hand_outcomes,
        module.conditional_means,
        module.conditional_results,
        _spread(module.distributions),
    )


#: The fewest blocks of shoes worth a thread of their own.
_BLOCKS_A_THREAD = 8


def threads() -> int:
    """Threads for the dealer's distributions: ``NUMBA_NUM_THREADS`` as Numba reads it,
    else every core this process may use."""
    chosen = os.environ.get("NUMBA_NUM_THREADS", "")
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max(1, threads() - 1), thread_name_prefix="croupier-dealer")


# A forked child (the stated-RTP search's helper) has none of the pool's threads.
os.register_at_fork(after_in_child=_pool.cache_clear)


def _spread(distributions: Callable[..., None]) -> Callable[..., None]:
    """``distributions`` with the shoes split among threads in whole blocks of
    ``LANES`` (the kernel releases the GIL; each shoe's figures are the same wherever
    it is computed)."""

    def spread(
        shoes: IntArray,
        ranks: IntArray,
        multiplicities: IntArray,
        parents: IntArray,
        sizes: IntArray,
        orders: FloatArray,
        outcomes: IntArray,
        leaves: int,
        out: FloatArray,
    ) -> None:
        trie = (ranks, multiplicities, parents, sizes, orders, outcomes, leaves)
        blocks = -(-shoes.shape[0] // LANES)
        parts = max(1, min(threads(), blocks // _BLOCKS_A_THREAD))
        if parts == 1:
            distributions(shoes, *trie, out)
            return
        bounds = [blocks * part // parts * LANES for part in range(parts + 1)]
        pending = [
            _pool().submit(distributions, shoes[start:end], *trie, out[start:end])
            for start, end in itertools.pairwise(bounds[1:])
        ]
        distributions(shoes[: bounds[1]], *trie, out[: bounds[1]])
        for done in pending:
            done.result()

    return spread


def use_compiled(progress: Callable[[str], None] | None = None) -> bool:
    """Run the compiled build from now on, building it first if the cache lacks it
    (``progress`` is told when a build starts: it takes about half a minute).

    Returns whether the compiled build runs; where it cannot be built, Numba's does
    (the reason is in ``failed.txt`` of :func:`compiled_folder`).
    """
    global _chosen
    folder = compiled_folder()
    module = _load(folder)
    if module is None and not (folder / "failed.txt").exists():
        if progress is not None:
            progress("compiling the exact math's kernels (once, about half a minute)")
        _build(folder)
        module = _load(folder)
    if module is None:
        return False
    from croupier.analysis.dealer import load_tables

    load_tables(folder / _TABLES)
    with _lock:
        _chosen = _compiled_kernels(module)
    return True


def compiled_folder() -> Path:
    """The cache folder of the compiled build for this source, Python, NumPy and
    processor."""
    digest = hashlib.sha256()
    for source in _SOURCES:
        digest.update(source.read_bytes())
    for part in (sys.version, np.__version__, platform.machine(), _processor()):
        digest.update(part.encode())
    return cache_dir() / "kernels" / digest.hexdigest()[:20]


def _processor() -> str:
    """What the build is compiled for: the processor's model and features."""
    with contextlib.suppress(OSError):
        described = Path("/proc/cpuinfo").read_text()
        named = ("model name", "flags")
        return "\n".join([line for line in described.splitlines() if line.startswith(named)][:2])
    return platform.processor()


def _extension(folder: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"{MODULE}{suffix}"
        if path.exists():
            return path
    return None


def _load(folder: Path) -> ModuleType | None:
    path = _extension(folder)
    if path is None:
        return None
    try:
        spec = importlib.util.spec_from_file_location(MODULE, path)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError:
        return None
    return module


def _build(folder: Path) -> None:
    """Build into ``folder`` in a child process (the compiler writes to its output);
    the module appears whole or not at all, and a failure leaves its reason."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=folder.parent))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "croupier.analysis.native", str(work)],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        built = _extension(work)
        if done.returncode != 0 or built is None:
            folder.mkdir(exist_ok=True)
            reason = (done.stderr or done.stdout).strip().splitlines()[-20:]
            (folder / "failed.txt").write_text("\n".join(reason) + "\n")
            return
        folder.mkdir(exist_ok=True)
        with contextlib.suppress(OSError):
            os.replace(work / _TABLES, folder / _TABLES)
        os.replace(built, folder / built.name)
    except (OSError, subprocess.SubprocessError) as error:
        with contextlib.suppress(OSError):
            folder.mkdir(exist_ok=True)
            (folder / "failed.txt").write_text(f"{error}\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _compile(output: Path) -> None:
    """Compile :data:`EXPORTS` into ``output`` (run in the child process)."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pycc: Any = importlib.import_module("numba.pycc")
        module_compiler: Any = importlib.import_module("numba.pycc.compiler")

    from croupier.analysis import kernel

    class Flags(module_compiler.Flags):  # type: ignore[misc]
        """pycc's compile flags, with the GIL released while a kernel runs (as
        Numba's build does: ``nogil=True``), so that threads share the work."""

        def __init__(self, *arguments: object, **options: object) -> None:
            super().__init__(*arguments, **options)
            self.release_gil = True

    module_compiler.Flags = Flags
    # pycc compiles for the processor's model alone, with every feature LLVM knows that
    # model by: a virtual machine may lack some of them (a Zen 4 whose AVX-512 is not
    # passed through: the build died on an illegal instruction).  The features the
    # processor reports instead, as Numba's own JIT build is given.
    codegen: Any = importlib.import_module("numba.core.codegen")
    aot = codegen.AOTCPUCodegen
    if hasattr(aot, "_get_host_cpu_features"):
        aot._customize_tm_features = lambda self: self._get_host_cpu_features()
    build = pycc.CC(MODULE)
    build.output_dir = str(output)
    # For this processor, as Numba compiles its own build: the same code, bitwise.
    build.target_cpu = "host"
    build.verbose = False
    for name, signature in EXPORTS.items():
        build.export(name, signature)(getattr(kernel, name).py_func)
    build.compile()
    from croupier.analysis.dealer import save_tables

    save_tables(output / _TABLES)


if __name__ == "__main__":
    _compile(Path(sys.argv[1]))
