"""The stated-RTP search: the single rule changes whose basic-strategy RTP rounds to the
figure a rulebook states (where the computed one does not), and, where no single
change does, the small sets of changes (two or three rules) nearest it
(:meth:`StatedRtpSearch.nearest_sets`).

Each rule set the search tries is valued as the report values the rules: up card by
up card, a chart column derived (:func:`~.strategy.chart_cells`), then played
(:func:`~.game.up_card_result`).  The work rule sets share is done once
(:class:`_Valuer`):

* an up card's result is kept and read again for every rule set valued alike against
  it (:meth:`_Valuer._alike`: the analysis reads of the hole card only whether the
  dealer peeks, and against the up cards 2 to 9, under which the dealer cannot hold a
  blackjack, neither it nor what a dealer blackjack takes, and every surrender offered
  gives half the bet back); the rules' own results are the report's
  (:meth:`StatedRtpSearch.own`).  ``tests/test_analysis_search.py`` holds this to the
  analysis itself;
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

from croupier.analysis.game import (
    MainGameResult,
    UpCardResult,
    combine,
    sharing_valuations,
    up_card_result,
)
from croupier.analysis.helper import TwoEnds, can_help
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
#: A rule set against one up card (:meth:`_Valuer.piece`), and its chance and value.
Piece = tuple[Changes, int]
Figures = tuple[float, float]

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
        self._alikes: dict[Changes, list[Rules]] = {}
        self._rules: dict[Changes, Rules] = {}
        self._blocks: dict[tuple[int, bool, bool], contextvars.Context] = {}
        self._leave: list[Callable[[], object]] = []
        # Left when the valuer goes, should no one close it.
        weakref.finalize(self, _leave_blocks, self._leave)

    def rtp(self, changes: Changes) -> float:
        """The basic-strategy RTP of the rules with ``changes``."""
        changed = self._changed(changes)
        return combine(changed, [self._result(changes, up) for up in range(RANKS)]).rtp

    def piece(self, changes: Changes, up: int) -> Figures:
        """The rules with ``changes`` against the up card ``up``: its chance and the
        expected value of a round given it (all :func:`~.game.combine` reads)."""
        result = self._result(changes, up)
        return result.probability, result.ev

    def key(self, changes: Changes, up: int) -> tuple[Rules, int]:
        """What a :meth:`piece` is kept under: the same for rule sets valued alike."""
        return self._alike(changes)[up], up

    def known(self, changes: Changes, up: int) -> bool:
        """Whether :meth:`piece` reads a result already made."""
        return self.key(changes, up) in self._results

    def keep(self, changes: Changes, up: int, piece: Figures) -> None:
        """Keep a :meth:`piece` made by another process."""
        probability, ev = piece
        self._results.setdefault(
            (self._alike(changes)[up], up), UpCardResult(up, probability, ev, ())
        )

    def own(self, per_up: tuple[UpCardResult, ...]) -> None:
        """Keep the rules' own basic-strategy results by up card (the report's), to be
        read for the rule sets valued alike."""
        for up, (valued, result) in enumerate(zip(self._alike(()), per_up, strict=True)):
            self._results.setdefault((valued, up), result)

    def close(self) -> None:
        """Leave the sharing blocks (their valuations are let go)."""
        _leave_blocks(self._leave)
        self._blocks.clear()

    def _changed(self, changes: Changes) -> Rules:
        found = self._rules.get(changes)
        if found is None:
            found = self._rules[changes] = self.rules.replace(**dict(changes))
        return found

    def _result(self, changes: Changes, up: int) -> UpCardResult:
        valued = self._alike(changes)[up]
        found = self._results.get((valued, up))
        if found is None:
            valuing = _valuing(valued)
            if valuing == _valuing(self.rules):
                found = _up_card(valued, up)
            else:
                found = self._block(valuing, valued).run(_up_card, valued, up)
            self._results[(valued, up)] = found
        return found

    def _alike(self, changes: Changes) -> list[Rules]:
        """For each up card, a rule set valued against it as the rules with ``changes``
        are, the same for every rule set valued alike (where the rules allow such a set;
        else the rules with ``changes`` themselves).

        Against every up card, the analysis reads of the hole card only whether the
        dealer peeks; with a peek, nothing of what a dealer blackjack takes after the
        players acted; with two split hands at most, nothing of resplitting aces.
        Against the up cards under which the dealer cannot hold a blackjack (2 to 9),
        nothing of the hole card or the dealer blackjack rule, and every surrender
        offered gives half the bet back.
        """
        found = self._alikes.get(changes)
        if found is not None:
            return found
        rules = self.rules
        changed = self._changed(changes)
        fields = dict(changes)
        if changed.hole_card is HoleCard.NONE:
            fields["hole_card"] = HoleCard.NO_PEEK
        if changed.hole_card is HoleCard.PEEK:
            fields["dealer_blackjack_takes"] = rules.dealer_blackjack_takes
        if changed.max_split_hands <= 2:
            fields["resplit_aces"] = rules.resplit_aces
        with_blackjack = _replaced(rules, fields) or changed
        kept = {
            field: value
            for field, value in fields.items()
            if field not in ("hole_card", "dealer_blackjack_takes", "surrender")
        }
        if changed.surrender is Surrender.NONE:
            surrenders = [Surrender.NONE]
        else:
            offered = [rules.surrender, *Surrender]
            surrenders = [surrender for surrender in offered if surrender is not Surrender.NONE]
        without_blackjack = next(
            (
                valid
                for surrender in surrenders
                if (valid := _replaced(rules, {**kept, "surrender": surrender})) is not None
            ),
            changed,
        )
        found = [with_blackjack if up in (ACE, TEN) else without_blackjack for up in range(RANKS)]
        self._alikes[changes] = found
        return found

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


def _up_card(rules: Rules, up: int) -> UpCardResult:
    """The basic-strategy result of ``rules`` against one up card, as the report's."""
    return up_card_result(rules, up, chart_cells(rules, up), outcomes=False)


def _replaced(rules: Rules, fields: dict[str, object]) -> Rules | None:
    """``rules`` with ``fields`` changed, or None where the rules refuse that."""
    try:
        return rules.replace(**fields)
    except RulesError:
        return None


def _leave_blocks(leave: list[Callable[[], object]]) -> None:
    while leave:
        leave.pop()()


def _valuing(rules: Rules) -> tuple[int, bool, bool]:
    """The rules whose change changes every valuation (as :func:`~.game.sharing_valuations`
    shares them)."""
    return (rules.decks, rules.dealer_hits_soft_17, rules.must_draw_to_12)


class _Worker:
    """A forked process valuing rule sets for the search beside this one.

    First the single changes, each place of one queue a few pieces of them
    (:meth:`_Valuer.piece`, a rule set against one up card) valued together: the worker
    takes places from the front (no more than the first ``front``) and this process
    from the back (:meth:`take_back`) until the two meet, as :class:`~.helper.Helper`
    does.  Then, on request (:meth:`value`), the pieces of sets of changes given it.
    The figures are sent back as they are made; a place the worker took but never sent
    (it died) is the caller's to compute.
    """

    def __init__(self, valuer: _Valuer, queue: list[list[Piece]], *, front: int) -> None:
        context = multiprocessing.get_context("fork")
        self._ends = TwoEnds(context, len(queue), front=front)
        #: The next place of the queue from the back (None when the two ends have met),
        #: and the places taken (those before the first, and from the second on).
        self.take_back, self.taken = self._ends.take_back, self._ends.taken
        self._parent = os.getpid()
        self._connection, theirs = context.Pipe()
        self._process: ForkProcess = context.Process(
            target=self._work, args=(theirs, valuer, queue), daemon=True
        )
        self._process.start()
        theirs.close()

    def value(self, pieces: list[Piece]) -> None:
        """Have the worker value ``pieces`` (:meth:`results` gives their figures)."""
        with contextlib.suppress(OSError):
            self._connection.send(pieces)

    def results(self) -> list[tuple[int, list[Figures]]]:
        """The (place, figures) the worker made of its present work, once it is done
        (fewer if it died)."""
        received: list[tuple[int, list[Figures]]] = []
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

    def _work(self, connection: Connection, valuer: _Valuer, queue: list[list[Piece]]) -> None:
        """The worker's work, in the forked process."""
        self._connection.close()
        # The parent's standard streams are not the worker's to write or flush.
        devnull = open(os.devnull, "w")  # noqa: SIM115 - open for the process's life
        sys.stdout = sys.stderr = devnull
        # A parent that died is not waited for beyond the piece under way.
        while os.getppid() == self._parent and (place := self._ends.take_front()) is not None:
            connection.send((place, [valuer.piece(*piece) for piece in queue[place]]))
        connection.send(None)
        while True:
            try:
                pieces: list[Piece] = connection.recv()
            except (EOFError, OSError):
                return
            for place, piece in enumerate(pieces):
                connection.send((place, [valuer.piece(*piece)]))
            connection.send(None)


class StatedRtpSearch:
    """The search for one rule set, made before the rules' own analysis.

    The single changes wait in one queue, up card by up card: those that share nothing
    with the rules' analysis (other decks, the other soft 17) at its front, then the
    changes to more split hands (against each up card together, the most hands first:
    their dealer distributions serve the fewer's), the others, whole, at its back.  With
    ``helper`` true and a second core free, a forked worker process starts at once on
    the front, while this one works on the rules' own analysis; :meth:`matching` then
    takes changes from the back (the split hands share the rules' valuations here)
    until the two meet.  The worker takes none of the shared changes (it would value
    them from nothing); :meth:`nearest_sets` gives it the pieces of the sets of changes
    that share its work (other decks, say).  Use it as a context manager: leaving it
    stops a worker still running and lets the shared work go.
    """

    def __init__(self, rules: Rules, *, helper: bool = True) -> None:
        self.rules = rules
        self.changes = candidates(rules)
        # More split hands first: their dealer batches serve the fewer hands' (shared work).
        ordered = sorted(
            range(len(self.changes)), key=lambda index: _split_hands_first(self.changes[index])
        )
        apart = [index for index in ordered if _apart(rules, self.changes[index])]
        more_hands = [index for index in ordered if _more_hands(rules, self.changes[index])]
        shared = [
            index
            for index in ordered
            if not _apart(rules, self.changes[index])
            and not _more_hands(rules, self.changes[index])
        ]
        # Up card by up card (the pieces of work even out between the two processes),
        # the split hands' changes together; the shared changes whole.  The back is
        # taken last first: the shared changes in their order, then the split hands,
        # then what the worker has not reached.
        front: list[list[Piece]] = [
            [((self.changes[index],), up)] for index in apart for up in range(RANKS)
        ]
        if more_hands:
            front += [[((self.changes[index],), up) for index in more_hands] for up in range(RANKS)]
        back: list[list[Piece]] = [
            [((self.changes[index],), up) for up in range(RANKS)] for index in shared
        ]
        self._queue = front + back[::-1]
        # Alone, this process takes the changes in order, the most split hands first
        # (and the single changes' figures are kept in that order, whoever made them).
        self._alone = ordered
        #: Every single change's basic-strategy RTP, once :meth:`matching` has run.
        self.single_rtps: dict[Change, float] = {}
        self._valuer = _Valuer(rules)
        # The single changes the worker valued, and against which up card: the pieces
        # of sets of changes that share their work go to it.
        self._theirs: set[tuple[Change, int]] = set()
        # Whether the worker's single changes are in (asked again, none is waited for).
        self._singles_shared = False
        self._helper: _Worker | None = None
        if helper and apart and can_help():
            self._helper = _Worker(self._valuer, self._queue, front=len(front))

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

    def own(self, result: MainGameResult) -> None:
        """Read the rules' own basic-strategy result (the report's, up card by up card)
        for the rule sets valued alike, rather than value them again."""
        self._valuer.own(result.per_up)

    def matching(
        self, stated: float, step: Callable[[str], None] | None = None
    ) -> tuple[RuleChange, ...]:
        """The changes whose basic-strategy RTP is within :data:`TOLERANCE` of ``stated``,
        in the order of :func:`candidates`.

        ``step`` is told each change this process starts, as "rule change K of N" with K
        counting those the worker started too, then what is left to the worker.
        """
        count = len(self.changes)
        valuer = self._valuer
        helper = self._helper
        if helper is not None and not self._singles_shared:
            announced = 0
            while (place := helper.take_back()) is not None:
                if step is not None:
                    first, last = helper.taken()
                    taken = [*self._queue[:first], *self._queue[last:]]
                    started = len({changes for pieces in taken for changes, _ in pieces})
                    if started > announced:
                        announced = started
                        step(f"the stated RTP: rule change {started} of {count}")
                for piece in self._queue[place]:
                    valuer.piece(*piece)
            if step is not None:
                step("the stated RTP: the rule changes left to the second process")
            for place, figures in helper.results():
                for (changes, up), made in zip(self._queue[place], figures, strict=True):
                    valuer.keep(changes, up, made)
                    self._theirs.add((changes[0], up))
            self._singles_shared = True
        rtps: dict[int, float] = {}
        for number, index in enumerate(self._alone, 1):
            if step is not None and helper is None:
                step(f"the stated RTP: rule change {number} of {count}")
            # (With a worker, only what one that died never sent is valued here.)
            rtps[index] = valuer.rtp((self.changes[index],))
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
        """Value the ``chosen`` sets not yet in ``exact``, up card by up card: the pieces
        that share the worker's work (a change it valued against that up card) in the
        worker, the others here."""
        valuer = self._valuer
        helper = self._helper
        pending = [
            (number, changes) for number, changes in enumerate(chosen, 1) if changes not in exact
        ]
        theirs: list[Piece] = []
        mine: list[tuple[int, Piece]] = []
        seen: set[tuple[Rules, int]] = set()
        for number, changes in pending:
            for up in range(RANKS):
                key = valuer.key(changes, up)
                if key in seen or valuer.known(changes, up):
                    continue
                seen.add(key)
                if helper is not None and any((change, up) in self._theirs for change in changes):
                    theirs.append((changes, up))
                else:
                    mine.append((number, (changes, up)))
        if helper is not None and theirs:
            helper.value(theirs)
        announced = 0
        for number, piece in mine:
            if step is not None and number > announced:
                announced = number
                step(f"the stated RTP: set of rule changes {number} of {len(chosen)}")
            valuer.piece(*piece)
        if helper is not None and theirs:
            if step is not None:
                step("the stated RTP: the sets of rule changes left to the second process")
            for place, figures in helper.results():
                valuer.keep(*theirs[place], figures[0])
        for _, changes in pending:
            # (Any piece a worker that died never sent is valued here.)
            exact[changes] = valuer.rtp(changes)


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
    (other decks, the other soft 17)."""
    return change[0] in ("decks", "dealer_hits_soft_17")


def _more_hands(rules: Rules, change: Change) -> bool:
    """Whether a change splits to more hands than ``rules`` (it needs many new dealer
    distributions and valuations; those of the most hands serve the fewer's, so they go
    together)."""
    name, value = change
    return name == "max_split_hands" and isinstance(value, int) and value > rules.max_split_hands


def _split_hands_first(change: Change) -> int:
    """Sorts rule changes to more split hands first, the others after in their order."""
    name, value = change
    return -value if name == "max_split_hands" and isinstance(value, int) else 0
