"""The stated-RTP search: the single rule changes whose basic-strategy RTP rounds to the
figure a rulebook states (where the computed one does not).

Each rule change is an analysis of its own: a chart derived, then valued.  Most
changes (split, double, surrender and dealer-blackjack rules) value many hands as the
rules do and share the rules' valuations (:func:`~.game.sharing_valuations`: the
report holds them for the search).  The changes of the decks or of the dealer's soft
17 need their own dealer distributions and valuations, as do the changes to more
split hands: where a second core is free (on Linux, where a process can be forked
safely), a helper process computes them from the moment the report starts, beside the
rules' own analysis.  Which process computes a
change does not change a figure.

>>> from croupier.presets import find_rules
>>> rules = find_rules("online-8deck")
>>> [change for change in candidates(rules) if change[0] == "decks"]
[('decks', 1), ('decks', 2), ('decks', 4), ('decks', 6)]
>>> with StatedRtpSearch(rules, helper=False) as search:
...     found = search.matching(0.9964)
>>> [(change.field, change.value) for change in found]
[('max_split_hands', 3), ('max_split_hands', 4)]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from croupier.analysis.helper import Helper, can_help
from croupier.analysis.strategy import derive_strategy
from croupier.errors import RulesError
from croupier.rules import DealerBlackjackTakes, HoleCard, Rules, Surrender

__all__ = ["RuleChange", "StatedRtpSearch", "candidates"]

#: The split hands the search tries.
_SPLIT_HANDS = (2, 3, 4)

#: How close a change's RTP must come to the stated figure: it rounds to it (0.01 points).
TOLERANCE = 0.00005


@dataclass(frozen=True)
class RuleChange:
    """A single rule change and the basic-strategy RTP it gives."""

    field: str
    value: object
    rtp: float


def candidates(rules: Rules) -> list[tuple[str, object]]:
    """The single rule changes the search tries, as (field, value)."""
    changes: list[tuple[str, object]] = []
    for decks in (1, 2, 4, 6, 8):
        if decks != rules.decks:
            changes.append(("decks", decks))
    changes.append(("dealer_hits_soft_17", not rules.dealer_hits_soft_17))
    changes.append(("double_after_split", not rules.double_after_split))
    for hands in _SPLIT_HANDS:
        if hands != rules.max_split_hands:
            changes.append(("max_split_hands", hands))
    changes.append(("resplit_aces", not rules.resplit_aces))
    changes.append(("hit_split_aces", not rules.hit_split_aces))
    for surrender in Surrender:
        if surrender is not rules.surrender and not (
            surrender is Surrender.LATE and rules.hole_card is not HoleCard.PEEK
        ):
            changes.append(("surrender", surrender))
    for hole in HoleCard:
        if hole is not rules.hole_card and not (
            rules.surrender is Surrender.LATE and hole is not HoleCard.PEEK
        ):
            changes.append(("hole_card", hole))
    for takes in DealerBlackjackTakes:
        if takes is not rules.dealer_blackjack_takes and rules.hole_card is not HoleCard.PEEK:
            changes.append(("dealer_blackjack_takes", takes))
    # Only rule sets a table could have: a change the rules refuse with the user's other
    # rules (no hole card while the hole card is dealt first, say) is not tried.
    return [change for change in changes if _valid(rules, change)]


def _valid(rules: Rules, change: tuple[str, object]) -> bool:
    try:
        rules.replace(**{change[0]: change[1]})
    except RulesError:
        return False
    return True


def change_rtp(rules: Rules, change: tuple[str, object]) -> float:
    """The basic-strategy RTP of ``rules`` with one rule changed."""
    name, value = change
    changed = rules.replace(**{name: value})
    return derive_strategy(changed).evaluate(outcomes=False).rtp


class StatedRtpSearch:
    """The search for one rule set, made before the rules' own analysis.

    The changes wait in one queue: those that share little with the rules' analysis
    (:func:`_apart`) at its front, the others at its back.  With ``helper`` true and a
    second core free, a forked helper process starts at once on the front, while this
    one works on the rules' own analysis; :meth:`matching` then takes changes from the
    back until the two meet.  The helper takes none of the shared changes (it would
    compute them from nothing).  Use it as a context manager: leaving it stops a
    helper still running.
    """

    def __init__(self, rules: Rules, *, helper: bool = True) -> None:
        self.rules = rules
        self.changes = candidates(rules)
        # More split hands first: their dealer batches serve the fewer hands' (shared work).
        ordered = sorted(
            range(len(self.changes)), key=lambda index: _split_hands_first(self.changes[index])
        )
        apart = [index for index in ordered if _apart(rules, self.changes[index])]
        shared = [index for index in ordered if not _apart(rules, self.changes[index])]
        # The helper takes the longest first (the most split hands); the back is taken
        # last first: the shared changes in their order, then what the helper has not
        # reached.
        self._queue = apart + shared[::-1]
        # Alone, this process takes them in that order.
        self._alone = ordered
        self._helper: Helper[float] | None = None
        if helper and apart and can_help():
            changes = [self.changes[index] for index in self._queue]
            self._helper = Helper(
                lambda place: change_rtp(rules, changes[place]), len(changes), front=len(apart)
            )

    def __enter__(self) -> StatedRtpSearch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the helper, if it still runs (its work is not needed)."""
        if self._helper is not None:
            self._helper.stop()
            self._helper = None

    def matching(
        self, stated: float, step: Callable[[str], None] | None = None
    ) -> tuple[RuleChange, ...]:
        """The changes whose basic-strategy RTP is within :data:`TOLERANCE` of ``stated``,
        in the order of :func:`candidates`.

        ``step`` is told each change this process starts, as "rule change K of N" with K
        counting those the helper started too, then what is left to the helper.
        """
        count = len(self.changes)
        rtps: dict[int, float] = {}
        helper = self._helper
        while True:
            if helper is None:
                index = self._alone[len(rtps)] if len(rtps) < count else None
            else:
                place = helper.take_back()
                index = None if place is None else self._queue[place]
            if index is None:
                break
            if step is not None:
                started = len(rtps) + 1 if helper is None else helper.started()
                step(f"the stated RTP: rule change {started} of {count}")
            rtps[index] = change_rtp(self.rules, self.changes[index])
        if helper is not None:
            if step is not None:
                step("the stated RTP: the rule changes left to the second process")
            for place, rtp in helper.results():
                rtps[self._queue[place]] = rtp
            self.close()
        for index in self._queue:
            if index not in rtps:
                # Taken by a helper that died before it sent the figure: computed here.
                rtps[index] = change_rtp(self.rules, self.changes[index])
        return tuple(
            RuleChange(*self.changes[index], rtps[index])
            for index in sorted(rtps)
            if abs(rtps[index] - stated) < TOLERANCE
        )


def _apart(rules: Rules, change: tuple[str, object]) -> bool:
    """Whether a change shares no dealer distributions or valuations with ``rules``
    (other decks, the other soft 17), or needs many new ones (more split hands: those
    of the most hands serve the fewer's, so they go together)."""
    name, value = change
    if name in ("decks", "dealer_hits_soft_17"):
        return True
    return name == "max_split_hands" and isinstance(value, int) and value > rules.max_split_hands


def _split_hands_first(change: tuple[str, object]) -> int:
    """Sorts rule changes to more split hands first, the others after in their order."""
    name, value = change
    return -value if name == "max_split_hands" and isinstance(value, int) else 0
