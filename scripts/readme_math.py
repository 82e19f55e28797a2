"""Print the table of returns in docs/exact-math.md: ``croupier edge --json`` for each preset.

python scripts/readme_math.py
"""

from __future__ import annotations

import json
import subprocess
import sys

PRESETS = ("rws-v4", "online-8deck", "casino-to-go", "live")
LABELS = {"rws-v4": "rws-v4, rws-v5"}


def main() -> None:
    """Run the command for each preset and print the Markdown rows."""
    print("| preset | composition-dependent RTP | basic strategy RTP | stated by the rulebook |")
    print("|---|---|---|---|")
    for name in PRESETS:
        command = [sys.executable, "-m", "croupier", "edge", "--rules", name, "--json"]
        report = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
        main_game = report["main"]
        stated = report["stated_rtp"]
        stated_text = "none" if stated is None else f"{100 * stated:.2f}%"
        print(
            f"| {LABELS.get(name, name)} | {100 * main_game['cd']['rtp']:.4f}% "
            f"| {100 * main_game['td']['rtp']:.4f}% | {stated_text} |"
        )


if __name__ == "__main__":
    main()
