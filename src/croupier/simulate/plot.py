"""A run drawn with matplotlib: the running mean closing on the exact value, and the
distributions of a round's and a session's result.

>>> import tempfile
>>> from pathlib import Path
>>> from croupier.presets import find_rules
>>> from croupier.simulate.run import simulate
>>> result = simulate(find_rules("live"), rounds=3_000, seed=1, chunk_rounds=1_000)
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "run.png"
...     plot_result(result, path)
...     path.read_bytes()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from croupier.errors import CroupierError
from croupier.simulate.run import Z95, SimulationResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes  # type: ignore[import-not-found,unused-ignore]

__all__ = ["PlotError", "check_plot_path", "plot_result"]


class PlotError(CroupierError):
    """A plot that cannot be drawn or written."""


def check_plot_path(path: Path) -> None:
    """Refuse, before a run, a plot it could not write.

    Raises:
        PlotError: the name does not end in ``.png``, its folder does not exist, or
            matplotlib is not installed.

    >>> check_plot_path(Path("run.svg"))
    Traceback (most recent call last):
    ...
    croupier.simulate.plot.PlotError: run.svg: the plot is a PNG file, FILE.png
    """
    if path.suffix.lower() != ".png":
        raise PlotError(f"{path}: the plot is a PNG file, FILE.png")
    if not path.parent.is_dir():
        raise PlotError(f"{path}: the folder {path.parent} does not exist")
    try:
        import matplotlib  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        raise PlotError("--plot needs matplotlib: pip install 'croupier[simulate]'") from None


def plot_result(result: SimulationResult, path: Path) -> None:
    """Draw ``result`` into the PNG file ``path``: the running mean per initial bet with
    its 95% band and the exact value, then how often each result of a box's round and
    of a session occurred.

    Raises:
        PlotError: matplotlib is missing or the file cannot be written.
    """
    check_plot_path(path)
    import matplotlib  # type: ignore[import-not-found,unused-ignore]

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found,unused-ignore]

    figure, (running, rounds, sessions) = plt.subplots(3, 1, figsize=(9, 11))
    figure.suptitle(f"{result.rules.name}: {result.played:,} rounds, {result.boxes} box(es)")
    points = [point for point in result.running if point[2] == point[2]]  # not NaN
    if points:
        played = [point[0] for point in points]
        means = [point[1] for point in points]
        low = [point[1] - Z95 * point[2] for point in points]
        high = [point[1] + Z95 * point[2] for point in points]
        running.fill_between(played, low, high, alpha=0.3, label="95% confidence band")
        running.plot(played, means, label="running mean")
        running.set_xscale("log")
    if result.exact is not None:
        running.axhline(result.exact, color="black", linestyle="--", label="exact (full shoe)")
    running.set_xlabel("rounds")
    running.set_ylabel("result per initial bet")
    running.legend()
    _bars(rounds, result.hand_histogram, result.unit, "a box's result in one round")
    _bars(sessions, result.session_histogram, 1, "a session's result (100 rounds)")
    figure.tight_layout()
    try:
        figure.savefig(path, format="png", dpi=100)
    except OSError as error:
        raise PlotError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        plt.close(figure)


def _bars(axes: Axes, counts: tuple[int, ...], unit: int, title: str) -> None:
    """The share of each result, in initial bets, of a centred histogram."""
    total = sum(counts) or 1
    middle = len(counts) // 2
    pairs = [((i - middle) / unit, count / total) for i, count in enumerate(counts) if count]
    values = [value for value, _ in pairs]
    shares = [share for _, share in pairs]
    axes.bar(values, shares, width=0.8 / unit if unit > 1 else 0.8)
    axes.set_yscale("log")
    axes.set_xlabel("initial bets")
    axes.set_ylabel("share")
    axes.set_title(title)
