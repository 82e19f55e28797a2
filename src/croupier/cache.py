"""Where croupier keeps what it can compute again: one folder a user can write.

>>> import os
>>> before = os.environ.get("CROUPIER_CACHE_DIR")
>>> os.environ["CROUPIER_CACHE_DIR"] = "/tmp/croupier-cache"
>>> cache_dir()
PosixPath('/tmp/croupier-cache')
>>> if before is None:
...     del os.environ["CROUPIER_CACHE_DIR"]
... else:
...     os.environ["CROUPIER_CACHE_DIR"] = before
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """``CROUPIER_CACHE_DIR``, else ``croupier`` in the user's cache folder
    (``XDG_CACHE_HOME``, else ``~/.cache``)."""
    chosen = os.environ.get("CROUPIER_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "croupier"
