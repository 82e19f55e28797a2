"""What each install weighs: every extra installed alone in a fresh virtual environment.

Prints the size and package count columns of the README's install table: ``du -sh``
of the environment's ``site-packages`` (pip and setuptools included, as ``python3 -m
venv`` makes them) and the number of distributions installed, croupier included, pip
and setuptools not; first the size of an empty environment, for comparison.

Usage: ``python scripts/install_weights.py [INSTALL ...]`` (default: all of them),
where an install is ``base`` or the extras as pip writes them (``server,postgres``).
"""

from __future__ import annotations

import datetime
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The installs of the README's table, in its order.
INSTALLS = ("base", "math", "server", "server,postgres", "simulate", "all")
#: What ``python3 -m venv`` brings, not counted as installed.
BROUGHT = ("pip", "setuptools")


def _site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python*/site-packages"))
    if not found:
        raise SystemExit(f"no site-packages in {venv}")
    return found[0]


def _size(path: Path) -> str:
    return subprocess.run(
        ["du", "-sh", str(path)], check=True, capture_output=True, text=True
    ).stdout.split()[0]


def _venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return where


def weigh(install: str, scratch: Path) -> tuple[str, int]:
    """The size of ``site-packages`` and the packages installed, for one install."""
    venv = _venv(scratch / install.replace(",", "+"))
    target = str(ROOT) if install == "base" else f"{ROOT}[{install}]"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "-q", target], check=True)
    frozen = subprocess.run(
        [*pip, "list", "--format=freeze"], check=True, capture_output=True, text=True
    ).stdout.split()
    installed = [line for line in frozen if line.split("==")[0].lower() not in BROUGHT]
    return _size(_site_packages(venv)), len(installed)


def main() -> None:
    """Weigh each install asked for (all by default) and print one row each."""
    installs = sys.argv[1:] or list(INSTALLS)
    python = platform.python_version()
    print(f"{datetime.date.today()}, Python {python}, {platform.system()} {platform.machine()}")
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        empty = _size(_site_packages(_venv(scratch / "empty")))
        print(f"an empty environment's site-packages: {empty}")
        print("| install | size | packages |")
        print("|---|---:|---:|")
        for install in installs:
            size, count = weigh(install, scratch)
            print(f"| {install} | {size[:-1]} {size[-1]}iB | {count} |")


if __name__ == "__main__":
    main()
