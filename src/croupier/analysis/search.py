"""The stated-RTP search: the single rule changes whose basic-strategy RTP rounds to the
figure a rulebook states (where the computed one does not), and, where no single
change does, the small sets of changes (two or three rules) nearest it
(:meth:`StatedRtpSearch.nearest_sets`).

Each rule set the search tries is valued as the report values the rules: up card by
up card, a chart column derived (:func:`~.strategy.chart_cells`), then played
(:func:`~.game.up_card_result`).  The work rule sets share is done once
(:class:`_Valuer`):

* an up card's result is kept and read again for every rule set valued alike against
  it.  Against the up cards under which the dealer cannot hold a blackjack (2 to 9) a
  rule set is valued as one with the rules' own hole card and dealer blackjack rule,
  and any surrender offered counts alike (half the bet back: no dealer blackjack to
  take a share); ``tests/test_analysis_search.py`` holds this to the analysis itself;
* the changes of split, double, surrender and dealer blackjack rules value many hands
  as the rules do and share the rules' valuations (:func:`~.game.sharing_valuations`:
  the report holds them for the search); the rule sets of other decks or of the other
  soft 17 share theirs with one another, a block of their own for each.

Where a second core is free (on Linux, where a process can be forked safely), a worker
process values the costliest changes (other decks, the other soft 17, more split
hands) from the moment the report starts, beside the rules' own analysis, and later
the sets of changes that share its work.  Which process values a rule set, and in
what order, changes no figure.

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

import contextlib
import contextvars
import dataclasses
import itertools
import multiprocessing
import os
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from types import TracebackType
from typing import TYPE_CHECKING

from croupier.analysis.game import UpCardResult, combine, sharing_valuations, up_card_result
from croupier.analysis.helper import can_help
from croupier.analysis.shoe import ACE, RANKS, TEN
from croupier.analysis.strategy import chart_cells, derive_strategy
from croupier.errors import RulesError
from croupier.rules import DealerBlackjackTakes, HoleCard, Rules, Surrender

if TYPE_CHECKING:
    from multiprocessing.context import ForkProcess

__all__ = ["RuleChange", "RuleSet", "StatedRtpSearch", "candidates", "rules_rtp"]

#: A rule change as (field, value); a set of them, in the order of the rules' fields.
Change = tuple[str, object]
Changes = tuple[Change, ...]

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


def candidates(rules: Rules) -> list[Change]:
    """The single rule changes the search tries, as (field, value)."""
    changes: list[Change] = []
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
    return [change for change in changes if _valid_set(rules, (change,))]


def change_rtp(rules: Rules, change: Change) -> float:
    """The basic-strategy RTP of ``rules`` with one rule changed, valued whole and alone
    (the search values it as :class:`_Valuer` does: the same figure, bitwise)."""
    name, value = change
    changed = rules.replace(**{name: value})
    return derive_strategy(changed).evaluate(outcomes=False).rtp


def rules_rtp(rules: Rules, changes: Changes) -> float:
    """The basic-strategy RTP of ``rules`` with several rules changed, valued whole and
    alone (as :func:`change_rtp`)."""
    return derive_strategy(rules.replace(**dict(changes))).evaluate(outcomes=False).rtp


class _Valuer:
    """The basic-strategy RTPs of rule sets near ``rules``, with the work they share
    done once (see the module docstring).

    A rule set is valued up card by up card as the report values one
    (:func:`~.strategy.chart_cells`, then :func:`~.game.up_card_result`, the results
    combined by :func:`~.game.combine`): the figure of
    ``derive_strategy(changed).evaluate(outcomes=False)``, bitwise.  The rule sets of
    the rules' decks and soft 17 are valued in the caller's context (where the report's
    :func:`~.game.sharing_valuations` block holds the rules' own valuations); the
    others in a sharing block of their own for each decks and soft 17, left by
    :meth:`close`.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._results: dict[tuple[Rules, int], UpCardResult] = {}
        self._blocks: dict[tuple[int, bool, bool], contextvars.Context] = {}
        self._leave: list[Callable[[], object]] = []
        # Left when the valuer goes, should no one close it.
        weakref.finalize(self, _leave_blocks, self._leave)

    def rtp(self, changes: Changes) -> float:
        """The basic-strategy RTP of the rules with ``changes``."""
        changed = self.rules.replace(**dict(changes))
        alike = self._without_blackjack(changes, changed)
        valuing = _valuing(changed)
        if valuing == _valuing(self.rules):
            per_up = self._per_up(changed, alike)
        else:
            per_up = self._block(valuing, changed).run(self._per_up, changed, alike)
        return combine(changed, per_up).rtp

    def close(self) -> None:
        """Leave the sharing blocks (their valuations are let go)."""
        _leave_blocks(self._leave)
        self._blocks.clear()

    def _per_up(self, changed: Rules, alike: Rules) -> list[UpCardResult]:
        results = []
        for up in range(RANKS):
            valued = changed if up in (ACE, TEN) else alike
            found = self._results.get((valued, up))
            if found is None:
                found = up_card_result(valued, up, chart_cells(valued, up), outcomes=False)
                self._results[(valued, up)] = found
            results.append(found)
        return results

    def _without_blackjack(self, changes: Changes, changed: Rules) -> Rules:
        """A rule set valued as ``changed`` against the up cards under which the dealer
        cannot hold a blackjack: the rules' own hole card and dealer blackjack rule, and
        one surrender for all that offer one (where the rules allow such a set; else
        ``changed`` itself)."""
        kept = {
            field: value
            for field, value in changes
            if field not in ("hole_card", "dealer_blackjack_takes", "surrender")
        }
        if changed.surrender is Surrender.NONE:
            surrenders = [Surrender.NONE]
        else:
            offered = [self.rules.surrender, *Surrender]
            surrenders = [surrender for surrender in offered if surrender is not Surrender.NONE]
        for surrender in surrenders:
            with contextlib.suppress(RulesError):
                return self.rules.replace(**kept, surrender=surrender)
        return changed

    def _block(self, valuing: tuple[int, bool, bool], changed: Rules) -> contextvars.Context:
        """The context whose sharing block serves the rule sets valued as ``changed``."""
        context = self._blocks.get(valuing)
        if context is None:
            context = contextvars.copy_context()
            block = sharing_valuations(changed)
            context.run(block.__enter__)
            self._leave.append(lambda: context.run(block.__exit__, None, None, None))
            self._blocks[valuing] = context
        return context


def _leave_blocks(leave: list[Callable[[], object]]) -> None:
    while leave:
        leave.pop()()


def _valuing(rules: Rules) -> tuple[int, bool, bool]:
    """The rules whose change changes every valuation (as :func:`~.game.sharing_valuations`
    shares them)."""
    return (rules.decks, rules.dealer_hits_soft_17, rules.must_draw_to_12)


class _Worker:
    """A forked process valuing rule sets for the search beside this one.

    First the single changes: they wait in one queue, of which the worker takes places
    from the front (no more than the first ``front``) and this process from the back
    (:meth:`take_back`) until the two meet, as :class:`~.helper.Helper` does.  Then, on
    request (:meth:`value`), the sets of changes given it.  Each figure is sent back as
    it is made; a place the worker took but never sent (it died) is the caller's to
    compute.
    """

    def __init__(self, valuer: _Valuer, queue: list[Changes], *, front: int) -> None:
        context = multiprocessing.get_context("fork")
        self._front = front
        self._size = len(queue)
        self._parent = os.getpid()
        # The next place at the front, and one past the last place left at the back.
        self._ends = context.RawArray("i", [0, len(queue)])
        self._lock = context.Lock()
        self._connection, theirs = context.Pipe()
        self._process: ForkProcess = context.Process(
            target=self._work, args=(theirs, valuer, queue), daemon=True
        )
        self._process.start()
        theirs.close()

    def take_back(self) -> int | None:
        """The next place of the queue from the back, or None when the two ends have met."""
        with self._lock:
            first, last = int(self._ends[0]), int(self._ends[1])
            if first >= last:
                return None
            self._ends[1] = last - 1
            return last - 1

    def started(self) -> int:
        """How many places of the queue the two processes have taken."""
        with self._lock:
            return int(self._ends[0]) + self._size - int(self._ends[1])

    def value(self, sets: list[Changes]) -> None:
        """Have the worker value ``sets`` (:meth:`results` gives their figures)."""
        with contextlib.suppress(OSError):
            self._connection.send(sets)

    def results(self) -> list[tuple[int, float]]:
        """The (place, RTP) the worker made of its present work, once it is done (fewer
        if it died)."""
        received: list[tuple[int, float]] = []
        while True:
            try:
                message = self._connection.recv()
            except (EOFError, OSError):
                return received
            if message is None:
                return received
            received.append(message)

    def stop(self) -> None:
        """End the worker (at once, if it still runs)."""
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._connection.close()

    def _take_front(self) -> int | None:
        with self._lock:
            first, last = int(self._ends[0]), int(self._ends[1])
            if first >= min(last, self._front):
                return None
            self._ends[0] = first + 1
            return first

    def _work(self, connection: Connection, valuer: _Valuer, queue: list[Changes]) -> None:
        """The worker's work, in the forked process."""
        self._connection.close()
        # The parent's standard streams are not the worker's to write or flush.
        devnull = open(os.devnull, "w")  # noqa: SIM115 - open for the process's life
        sys.stdout = sys.stderr = devnull
        # A parent that died is not waited for beyond the piece under way.
        while os.getppid() == self._parent and (place := self._take_front()) is not None:
            connection.send((place, valuer.rtp(queue[place])))
        connection.send(None)
        while True:
            try:
                sets: list[Changes] = connection.recv()
            except (EOFError, OSError):
                return
            for place, changes in enumerate(sets):
                connection.send((place, valuer.rtp(changes)))
            connection.send(None)


class StatedRtpSearch:
    """The search for one rule set, made before the rules' own analysis.

    The single changes wait in one queue: those that share little with the rules'
    analysis (:func:`_apart`) at its front, the others at its back.  With ``helper``
    true and a second core free, a forked worker process starts at once on the front,
    while this one works on the rules' own analysis; :meth:`matching` then takes
    changes from the back until the two meet.  The worker takes none of the shared
    changes (it would value them from nothing); :meth:`nearest_sets` gives it the sets
    of changes that share its work (other decks, say).  Use it as a context manager:
    leaving it stops a worker still running and lets the shared work go.
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
        # The worker takes the longest first (the most split hands); the back is taken
        # last first: the shared changes in their order, then what the worker has not
        # reached.
        self._queue = apart + shared[::-1]
        # Alone, this process takes them in that order.
        self._alone = ordered
        #: Every single change's basic-strategy RTP, once :meth:`matching` has run.
        self.single_rtps: dict[Change, float] = {}
        self._valuer = _Valuer(rules)
        # The single changes the worker valued: the sets that share their work go to it.
        self._theirs: set[Change] = set()
        self._helper: _Worker | None = None
        if helper and apart and can_help():
            queue: list[Changes] = [(self.changes[index],) for index in self._queue]
            self._helper = _Worker(self._valuer, queue, front=len(apart))

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
        """Stop the worker, if it still runs (its work is not needed), and let the
        shared work go."""
        if self._helper is not None:
            self._helper.stop()
            self._helper = None
        self._valuer.close()

    def matching(
        self, stated: float, step: Callable[[str], None] | None = None
    ) -> tuple[RuleChange, ...]:
        """The changes whose basic-strategy RTP is within :data:`TOLERANCE` of ``stated``,
        in the order of :func:`candidates`.

        ``step`` is told each change this process starts, as "rule change K of N" with K
        counting those the worker started too, then what is left to the worker.
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
            rtps[index] = self._valuer.rtp((self.changes[index],))
        if helper is not None:
            if step is not None:
                step("the stated RTP: the rule changes left to the second process")
            for place, rtp in helper.results():
                index = self._queue[place]
                rtps[index] = rtp
                self._theirs.add(self.changes[index])
        for index in self._alone:
            if index not in rtps:
                # Taken by a worker that died before it sent the figure: valued here.
                rtps[index] = self._valuer.rtp((self.changes[index],))
        # In one order however the work was shared: the sets' estimates are made in it.
        self.single_rtps = {self.changes[index]: rtps[index] for index in self._alone}
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
        deltas: dict[Changes, float] = {
            (change,): single - rtp
            for change, single in self.single_rtps.items()
            if abs(single - rtp) > _NO_EFFECT
        }
        exact: dict[Changes, float] = {}
        for bundle in _bundles(self.rules, list(self.single_rtps)):
            if step is not None:
                step(f"the stated RTP: {_words(bundle)}")
            exact[bundle] = self._valuer.rtp(bundle)
            deltas[bundle] = exact[bundle] - rtp
        units = list(deltas)
        estimates: list[tuple[float, Changes]] = []
        for size in (2, 3):
            for group in itertools.combinations(units, size):
                merged = tuple(change for unit in group for change in unit)
                if len(merged) > 3 or len({field for field, _ in merged}) < len(merged):
                    continue
                estimate = rtp + sum(deltas[unit] for unit in group)
                estimates.append((abs(estimate - stated), tuple(sorted(merged, key=_order))))
        for bundle in exact:
            estimates.append((abs(exact[bundle] - stated), bundle))
        estimates.sort(key=lambda item: (item[0], len(item[1])))
        chosen: list[Changes] = []
        for _, changes in estimates:
            # Whether the rules allow the set is asked of the nearest alone (in their
            # order, the sets they refuse left out, as if never estimated).
            if changes in chosen or (changes not in exact and not _meaningful(self.rules, changes)):
                continue
            chosen.append(changes)
            if len(chosen) == budget:
                break
        self._value_sets(chosen, exact, step)
        found = [RuleSet(changes, exact[changes]) for changes in chosen]
        found.sort(key=lambda found_set: (abs(found_set.rtp - stated), len(found_set.changes)))
        return tuple(found)

    def _value_sets(
        self, chosen: list[Changes], exact: dict[Changes, float], step: Callable[[str], None] | None
    ) -> None:
        """Value the ``chosen`` sets not yet in ``exact``: those that share the worker's
        work (a change it valued) in the worker, the others here."""
        pending = [
            (number, changes) for number, changes in enumerate(chosen, 1) if changes not in exact
        ]
        helper = self._helper
        theirs = [
            (number, changes)
            for number, changes in pending
            if helper is not None and any(change in self._theirs for change in changes)
        ]
        if helper is not None and theirs:
            helper.value([changes for _, changes in theirs])
        for number, changes in pending:
            if (number, changes) in theirs:
                continue
            if step is not None:
                step(f"the stated RTP: set of rule changes {number} of {len(chosen)}")
            exact[changes] = self._valuer.rtp(changes)
        if helper is not None and theirs:
            if step is not None:
                step("the stated RTP: the sets of rule changes left to the second process")
            for place, value in helper.results():
                exact[theirs[place][1]] = value
        for _, changes in theirs:
            if changes not in exact:
                # Given a worker that died before it sent the figure: valued here.
                exact[changes] = self._valuer.rtp(changes)


@dataclass(frozen=True)
class RuleSet:
    """A small set of rule changes, as (field, value) pairs, and its basic-strategy RTP."""

    changes: Changes
    rtp: float

    def words(self) -> str:
        """The changes as ``field = value``, joined by commas.

        >>> RuleSet((("hole_card", HoleCard.PEEK), ("double_after_split", True)), 0.99).words()
        'hole_card = peek, double_after_split = true'
        """
        return _words(self.changes)


def _words(changes: Changes) -> str:
    parts = []
    for field, value in changes:
        shown = getattr(value, "value", value)
        if isinstance(shown, bool):
            shown = "true" if shown else "false"
        parts.append(f"{field} = {shown}")
    return ", ".join(parts)


def _alternatives(rules: Rules) -> list[Change]:
    """Every other value of the rules the search changes, valid alone or not."""
    changes: list[Change] = []
    for surrender in Surrender:
        if surrender is not rules.surrender:
            changes.append(("surrender", surrender))
    for hole in HoleCard:
        if hole is not rules.hole_card:
            changes.append(("hole_card", hole))
    return changes


def _bundles(rules: Rules, singles: list[Change]) -> list[Changes]:
    """Each change the rules refuse alone, with the one single change that makes it valid."""
    bundles: list[Changes] = []
    for change in _alternatives(rules):
        if _valid_set(rules, (change,)):
            continue
        for other in singles:
            if other[0] == change[0]:
                continue
            pair = tuple(sorted((change, other), key=_order))
            if _meaningful(rules, pair):
                bundles.append(pair)
    return bundles


def _valid_set(rules: Rules, changes: Changes) -> bool:
    try:
        rules.replace(**dict(changes))
    except RulesError:
        return False
    return True


def _meaningful(rules: Rules, changes: Changes) -> bool:
    """A set changing each rule once, valid, and with no change the others make moot
    (what a dealer blackjack takes after the players acted, where the dealer peeks)."""
    fields = [field for field, _ in changes]
    if len(set(fields)) < len(fields):
        return False
    try:
        changed = rules.replace(**dict(changes))
    except RulesError:
        return False
    return not ("dealer_blackjack_takes" in fields and changed.hole_card is HoleCard.PEEK)


def _order(change: Change) -> int:
    """Changes in the order of the rules' fields."""
    return _FIELDS.index(change[0])


_FIELDS = tuple(f.name for f in dataclasses.fields(Rules))


def _apart(rules: Rules, change: Change) -> bool:
    """Whether a change shares no dealer distributions or valuations with ``rules``
    (other decks, the other soft 17), or needs many new ones (more split hands: those
    of the most hands serve the fewer's, so they go together)."""
    name, value = change
    if name in ("decks", "dealer_hits_soft_17"):
        return True
    return name == "max_split_hands" and isinstance(value, int) and value > rules.max_split_hands


def _split_hands_first(change: Change) -> int:
    """Sorts rule changes to more split hands first, the others after in their order."""
    name, value = change
    return -value if name == "max_split_hands" and isinstance(value, int) else 0
