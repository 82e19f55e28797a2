"""The stated-RTP search's answer kept on disk, one file per rule set, so that a later
report of the same rules (``croupier edge`` as a new process) reads it rather than
valuing a dozen or more rule changes again.

The answer is what :class:`~croupier.analysis.search.StatedRtpSearch` found: the
single changes that round to the stated figure and, where none does, the sets of
changes nearest it, each with its exact basic-strategy RTP.  It is kept in
``CROUPIER_CACHE_DIR/stated-rtp/`` (:func:`croupier.cache.cache_dir`), under a key
made of the rules (every field), the stated figure, the source of the exact math and
the rules, Python, NumPy and the processor: any change to what computes a figure
searches afresh.  The entry also holds the rules' own computed RTP, and is used only
where the report computes the very same one, bit for bit; an entry that cannot be read
whole is ignored (and written again).  Nothing here computes a figure: an entry holds
figures the search computed, read back exactly (JSON writes a float's shortest exact
form).

>>> import os, tempfile
>>> from fractions import Fraction
>>> from croupier.analysis.search import RuleChange
>>> from croupier.presets import find_rules
>>> before = os.environ.get("CROUPIER_CACHE_DIR")
>>> os.environ["CROUPIER_CACHE_DIR"] = tempfile.mkdtemp()
>>> rules, stated = find_rules("online-8deck"), Fraction(9964, 10000)
>>> load(rules, stated) is None
True
>>> found = (RuleChange("max_split_hands", 4, 0.9964434356969899),)
>>> store(rules, stated, Answer(0.9958914584616365, found, ()))
>>> load(rules, stated) == Answer(0.9958914584616365, found, ())
True
>>> if before is None:
...     del os.environ["CROUPIER_CACHE_DIR"]
... else:
...     os.environ["CROUPIER_CACHE_DIR"] = before
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import platform
import sys
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from croupier.analysis.search import RuleChange, RuleSet
from croupier.cache import cache_dir
from croupier.errors import RulesError
from croupier.rules import Rules, coerce_field, json_value

__all__ = ["Answer", "entry_path", "load", "store"]

#: The sources whose code decides a figure: the exact math and the rules.
_SOURCES = (
    *sorted((Path(__file__).parent).glob("*.py")),
    Path(__file__).parent.parent / "rules.py",
)

#: The entries' format: a change of it reads every older entry as missing.
_FORMAT = 1


@dataclass(frozen=True)
class Answer:
    """The search's answer for one rule set, beside the rules' own basic-strategy RTP
    it was searched for."""

    rtp: float
    explanations: tuple[RuleChange, ...]
    nearest_sets: tuple[RuleSet, ...]


@functools.cache
def _code_digest() -> str:
    digest = hashlib.sha256()
    for source in _SOURCES:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    import numpy as np

    for part in (sys.version, np.__version__, platform.machine(), _processor()):
        digest.update(part.encode())
    return digest.hexdigest()


def _processor() -> str:
    from croupier.analysis.native import _processor as processor

    return processor()


def entry_path(rules: Rules, stated: Fraction) -> Path:
    """The file that holds the answer for ``rules`` and the ``stated`` figure."""
    digest = hashlib.sha256()
    digest.update(f"{_FORMAT}\n{_code_digest()}\n{stated}\n".encode())
    digest.update(json.dumps(rules.to_json(), sort_keys=True).encode())
    return cache_dir() / "stated-rtp" / f"{digest.hexdigest()[:32]}.json"


def load(rules: Rules, stated: Fraction) -> Answer | None:
    """The answer kept for ``rules`` and ``stated``; None where there is none, or it
    cannot be read whole."""
    try:
        kept = json.loads(entry_path(rules, stated).read_text(encoding="utf-8"))
        if kept["format"] != _FORMAT or kept["stated"] != str(stated):
            return None
        explanations = tuple(
            RuleChange(field, coerce_field(field, value), _float(rtp))
            for field, value, rtp in kept["rule_changes_matching"]
        )
        nearest = tuple(
            RuleSet(
                tuple((field, coerce_field(field, value)) for field, value in changes),
                _float(rtp),
            )
            for changes, rtp in kept["rule_sets_nearest"]
        )
        return Answer(_float(kept["computed_rtp"]), explanations, nearest)
    except (OSError, ValueError, KeyError, TypeError, RulesError):
        return None


def _float(value: object) -> float:
    if type(value) is not float:
        raise TypeError(f"{value!r} is not a float")
    return value


def store(rules: Rules, stated: Fraction, answer: Answer) -> None:
    """Keep ``answer`` for ``rules`` and ``stated`` (written whole, then renamed into
    place); a cache that cannot be written is left as it is."""
    kept = {
        "format": _FORMAT,
        "rules": rules.to_json(),
        "stated": str(stated),
        "computed_rtp": answer.rtp,
        "rule_changes_matching": [
            [change.field, json_value(change.value), change.rtp] for change in answer.explanations
        ],
        "rule_sets_nearest": [
            [[[field, json_value(value)] for field, value in found.changes], found.rtp]
            for found in answer.nearest_sets
        ],
    }
    path = entry_path(rules, stated)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".entry-", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as output:
                json.dump(kept, output, indent=1)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
