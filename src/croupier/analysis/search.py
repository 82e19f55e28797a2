"""The stated-RTP search: the single rule changes whose basic-strategy RTP rounds to the
figure a rulebook states (where the computed one does not), and, where no single
change does, the small sets of changes (two or three rules) nearest it
(:meth:`StatedRtpSearch.nearest_sets`).

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

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from croupier.analysis.helper import Helper, can_help
from croupier.analysis.strategy import derive_strategy
from croupier.errors import RulesError
from croupier.rules import DealerBlackjackTakes, HoleCard, Rules, Surrender

__all__ = ["RuleChange", "RuleSet", "StatedRtpSearch", "candidates", "rules_rtp"]

#: The split hands the search tries.
_SPLIT_HANDS = (2, 3, 4)

#: How close a change's RTP must come to the stated figure: it rounds to it (0.01 points).
TOLERANCE = 0.00005

#: The sets of rule changes :meth:`StatedRtpSearch.nearest_sets` values exactly.
SET_BUDGET = 8

#: A change whose RTP differs from the rules' by less than this changes nothing here.
_NO_EFFECT = 1e-9


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
        #: Every single change's basic-strategy RTP, once :meth:`matching` has run.
        self.single_rtps: dict[tuple[str, object], float] = {}
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
        self.single_rtps = {self.changes[index]: rtp for index, rtp in rtps.items()}
        return tuple(
            RuleChange(*self.changes[index], rtps[index])
            for index in sorted(rtps)
            if abs(rtps[index] - stated) < TOLERANCE
        )

    def nearest_sets(
        self,
        stated: float,
        rtp: float,
        step: Callable[[str], None] | None = None,
        *,
        budget: int = SET_BUDGET,
    ) -> tuple[RuleSet, ...]:
        """Small sets of rule changes (two or three rules) whose basic-strategy RTP comes
        nearest ``stated``, where no single change gives it.

        Call :meth:`matching` first: its single changes' RTPs estimate every set's
        (their differences from ``rtp``, the rules' own, added up); the ``budget`` sets
        estimated nearest are then valued exactly, each as an analysis of its own.  A
        change the rules refuse alone (late surrender without a peek) is tried with the
        one other change that makes it valid, valued exactly first.  Returns the sets
        valued, nearest first (fewer changes first among equals): those within
        :data:`TOLERANCE` round to the stated figure.
        """
        deltas: dict[tuple[tuple[str, object], ...], float] = {
            (change,): single - rtp
            for change, single in self.single_rtps.items()
            if abs(single - rtp) > _NO_EFFECT
        }
        exact: dict[tuple[tuple[str, object], ...], float] = {}
        for bundle in _bundles(self.rules, list(self.single_rtps)):
            if step is not None:
                step(f"the stated RTP: {_words(bundle)}")
            exact[bundle] = rules_rtp(self.rules, bundle)
            deltas[bundle] = exact[bundle] - rtp
        units = list(deltas)
        estimates: list[tuple[float, tuple[tuple[str, object], ...]]] = []
        for size in (2, 3):
            for group in itertools.combinations(units, size):
                merged = tuple(change for unit in group for change in unit)
                if len(merged) > 3 or not _meaningful(self.rules, merged):
                    continue
                estimate = rtp + sum(deltas[unit] for unit in group)
                estimates.append((abs(estimate - stated), tuple(sorted(merged, key=_order))))
        for bundle in exact:
            estimates.append((abs(exact[bundle] - stated), bundle))
        estimates.sort(key=lambda item: (item[0], len(item[1])))
        chosen: list[tuple[tuple[str, object], ...]] = []
        for _, changes in estimates:
            if changes not in chosen:
                chosen.append(changes)
            if len(chosen) == budget:
                break
        found: list[RuleSet] = []
        for number, changes in enumerate(chosen, 1):
            if changes not in exact:
                if step is not None:
                    step(f"the stated RTP: set of rule changes {number} of {len(chosen)}")
                exact[changes] = rules_rtp(self.rules, changes)
            found.append(RuleSet(changes, exact[changes]))
        found.sort(key=lambda found_set: (abs(found_set.rtp - stated), len(found_set.changes)))
        return tuple(found)


@dataclass(frozen=True)
class RuleSet:
    """A small set of rule changes, as (field, value) pairs, and its basic-strategy RTP."""

    changes: tuple[tuple[str, object], ...]
    rtp: float

    def words(self) -> str:
        """The changes as ``field = value``, joined by commas.

        >>> RuleSet((("hole_card", HoleCard.PEEK), ("double_after_split", True)), 0.99).words()
        'hole_card = peek, double_after_split = true'
        """
        return _words(self.changes)


def _words(changes: tuple[tuple[str, object], ...]) -> str:
    parts = []
    for field, value in changes:
        shown = getattr(value, "value", value)
        if isinstance(shown, bool):
            shown = "true" if shown else "false"
        parts.append(f"{field} = {shown}")
    return ", ".join(parts)


def rules_rtp(rules: Rules, changes: tuple[tuple[str, object], ...]) -> float:
    """The basic-strategy RTP of ``rules`` with several rules changed."""
    return derive_strategy(rules.replace(**dict(changes))).evaluate(outcomes=False).rtp


def _alternatives(rules: Rules) -> list[tuple[str, object]]:
    """Every other value of the rules the search changes, valid alone or not."""
    changes: list[tuple[str, object]] = []
    for surrender in Surrender:
        if surrender is not rules.surrender:
            changes.append(("surrender", surrender))
    for hole in HoleCard:
        if hole is not rules.hole_card:
            changes.append(("hole_card", hole))
    return changes


def _bundles(
    rules: Rules, singles: list[tuple[str, object]]
) -> list[tuple[tuple[str, object], ...]]:
    """Each change the rules refuse alone, with the one single change that makes it valid."""
    bundles: list[tuple[tuple[str, object], ...]] = []
    for change in _alternatives(rules):
        if _valid(rules, change):
            continue
        for other in singles:
            if other[0] == change[0]:
                continue
            pair = tuple(sorted((change, other), key=_order))
            if _valid_set(rules, pair) and _meaningful(rules, pair):
                bundles.append(pair)
    return bundles


def _valid_set(rules: Rules, changes: tuple[tuple[str, object], ...]) -> bool:
    try:
        rules.replace(**dict(changes))
    except RulesError:
        return False
    return True


def _meaningful(rules: Rules, changes: tuple[tuple[str, object], ...]) -> bool:
    """A set changing each rule once, valid, and with no change the others make moot
    (what a dealer blackjack takes after the players acted, where the dealer peeks)."""
    fields = [field for field, _ in changes]
    if len(set(fields)) < len(fields) or not _valid_set(rules, changes):
        return False
    changed = rules.replace(**dict(changes))
    return not ("dealer_blackjack_takes" in fields and changed.hole_card is HoleCard.PEEK)


def _order(change: tuple[str, object]) -> int:
    """Changes in the order of the rules' fields."""
    return _FIELDS.index(change[0])


_FIELDS = tuple(f.name for f in dataclasses.fields(Rules))


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
