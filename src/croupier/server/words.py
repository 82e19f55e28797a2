"""The engine's refusals in a player's words, the rule they cite kept apart.

The engine says why it refuses an input for whoever reads a round's record: the
command, the reason, the clause and the round's phase, as in ``cannot stand: no hand
is waiting for a decision (phase=dealer-turn)``.  A player at the table is told the
reason in plain words; the clause goes with it separately (the page writes it in the
table's log) and the phase, which is the engine's own name, not at all.

>>> in_words("cannot place a bet: no more bets (RWS v5 5.1) (phase=player-turns)")
('Betting is closed.', 'RWS v5 5.1')
>>> in_words("cannot stand: no hand is waiting for a decision (phase=dealer-turn)")
('It is not your turn.', None)
>>> in_words("cannot stand: box 2 is decided by its seated player ann, not bob (RWS v5 3.8)")
('It is not your turn: box 2 is decided by its seated player ann, not bob.', 'RWS v5 3.8')
>>> in_words("cannot stand: box 1 hand 1 totals 11; a hand under 12 must draw "
...          "(RWS v5 3.19) (phase=player-turns)")
('Cannot stand: box 1 hand 1 totals 11; a hand under 12 must draw.', 'RWS v5 3.19')
>>> in_words("cannot double: doubling is on 9-11 only (live rules silent; as RWS v5 5.8)")
('Cannot double: doubling is on 9-11 only.', 'live rules silent; as RWS v5 5.8')
"""

from __future__ import annotations

import re

__all__ = ["in_words"]

#: A parenthesis naming the phase (the engine's word) or citing a rule.
_ASIDE = re.compile(r"\s*\((phase=[^()]*|[^()]*(?:RWS|rules silent|§|\b\d+\.\d+)[^()]*)\)")
_NO_MORE_BETS = re.compile(r"^cannot [^:]+: no more bets\b")
_NO_TURN = re.compile(r"^cannot [^:]+: no hand is waiting for a decision\b")
_NOT_YOURS = re.compile(r"^cannot [^:]+: (box \d+ is decided by its seated player .*)$")


def in_words(message: str) -> tuple[str, str | None]:
    """The refusal ``message`` in a player's words, and the rule it cites (``None``
    when it cites none)."""
    cited = [aside for aside in _ASIDE.findall(message) if not aside.startswith("phase=")]
    plain = _ASIDE.sub("", message).strip()
    clause = "; ".join(cited) or None
    if _NO_MORE_BETS.match(plain):
        return "Betting is closed.", clause
    if _NO_TURN.match(plain):
        return "It is not your turn.", clause
    found = _NOT_YOURS.match(plain)
    if found:
        plain = f"it is not your turn: {found.group(1)}"
    plain = plain[:1].upper() + plain[1:]
    if plain and plain[-1] not in ".!?":
        plain += "."
    return plain, clause
