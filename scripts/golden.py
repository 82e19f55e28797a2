"""Regenerate (or check) the golden rounds in tests/golden.

Each ``NAME.round.json`` is a round script; ``NAME.expected.json`` is what
``croupier round`` prints for it.  Run after a deliberate change of behaviour and
review the diff:

    python scripts/golden.py          # rewrite every expected file
    python scripts/golden.py --check  # exit 1 when any differs
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from croupier.script import play_script

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"


def render(script_path: Path) -> str:
    """The expected JSON text for one round script."""
    report = play_script(json.loads(script_path.read_text(encoding="utf-8")))
    return json.dumps(report, indent=2) + "\n"


def main(argv: list[str]) -> int:
    """Rewrite the expected files, or with ``--check`` report those that differ."""
    check = "--check" in argv
    differing = []
    for script_path in sorted(GOLDEN.glob("*.round.json")):
        expected_path = script_path.with_name(script_path.name.replace(".round.", ".expected."))
        text = render(script_path)
        if check:
            if not expected_path.exists() or expected_path.read_text(encoding="utf-8") != text:
                differing.append(expected_path.name)
        else:
            expected_path.write_text(text, encoding="utf-8")
    for name in differing:
        print(f"differs: {name}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
