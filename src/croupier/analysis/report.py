"""The PAR sheet of a rule set: the main game's return under both strategies, each side
bet's return and hit frequencies, the return by up card, and the standard deviation.

Where a rulebook states an RTP it is printed beside the computed one; when they
differ, the single rule changes that would produce the stated figure are searched
for and named.  The math is never tuned to a stated figure.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction

from croupier.analysis import stated_cache
from croupier.analysis.game import (
    MainGameResult,
    UpCardResult,
    combine,
    sharing_valuations,
    up_card_result,
)
from croupier.analysis.helper import Helper, can_help
from croupier.analysis.search import TOLERANCE, RuleChange, RuleSet, StatedRtpSearch
from croupier.analysis.shoe import RANKS
from croupier.analysis.sidebets import SideBetAnalysis, analyze_side_bets
from croupier.analysis.strategy import BasicStrategy, chart_cells, joined
from croupier.rules import Rules

__all__ = ["STATED_RTP", "ParSheet", "RuleChange", "par_sheet", "reporting_progress"]

_PROGRESS: ContextVar[Callable[[str], None] | None] = ContextVar("progress", default=None)


@contextlib.contextmanager
def reporting_progress(callback: Callable[[str], None]) -> Iterator[None]:
    """Within the block, :func:`par_sheet` tells ``callback`` each step it starts (a
    sheet already computed, and cached, has none).

    >>> from croupier.presets import find_rules
    >>> steps = []
    >>> with reporting_progress(steps.append):
    ...     _ = par_sheet(find_rules("casino-to-go").replace(decks=5))
    >>> steps[-1]
    'side bets'
    """
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def _step(text: str) -> None:
    callback = _PROGRESS.get()
    if callback is not None:
        callback(text)


#: The RTP a rulebook states, with its words.
STATED_RTP: dict[str, tuple[Fraction, str]] = {
    "online-8deck": (Fraction(9964, 10000), '"RTP: 99.64%"'),
    "live": (
        Fraction(9959, 10000),
        '"RTP (playing main game, perfect basic strategy) Blackjack = 99.59%"',
    ),
}

#: How split hands are valued, as the report says.
SPLIT_CONVENTION = (
    "Split hands are played as is best with one other pair card out (the CDP1 "
    "post-split strategy), resplitting whenever a pair card comes and the rules allow; "
    "their value is exact for that play (E. Farmer's method: a hand counts the other "
    "hands' second cards by how many were pair cards). A dealer blackjack found after "
    "the players acted takes money by "
    "the box, as the rules say: one initial bet for the whole box where it takes only the "
    "original bet; every busted hand's wager and one initial bet unless every hand busted "
    "where it takes busted hands and the initial bet (the chance that all bust taken with "
    "the hands' draws independent given the dealer's blackjack). The round_win, round_push "
    "and round_loss chances count a round by its total result, a split round's hands "
    "taken as independent given the dealer's final outcome; win, push and loss count a "
    "split round as one of its hands. The "
    "standard deviation counts the expected number of split hands and of pairs of them, "
    "resplits included; two hands are correlated through the dealer's one hand, taken "
    "over the dealer's final outcome with their own draws independent, and a dealer "
    "blackjack that takes a split box's initial bet counts as the loss of one bet."
)

#: What the standard deviation approximates where a box may hold more than two split
#: hands (a simulation of every round from a full shoe, 8,000,000 rounds, SD 0.0002).
SD_NOTE = (
    "The standard deviation is not exact: two hands of a split are taken as independent "
    "given the dealer's final outcome, every hand of a resplit is counted as a hand of the "
    "first split, and the number of hands as independent of their results. With two "
    "split hands at most it agrees with simulation (rws-v5 at 2 hands: 1.12398 against "
    "1.12375); with resplits it comes out low by about 0.0009 (rws-v5, 4 hands: 1.13037 "
    "against 1.13126) and 0.0008 (casino-to-go, 3 hands: 1.11586 against 1.11668)."
)

_UP_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")


@dataclass(frozen=True)
class ParSheet:
    """Everything the report prints (see the module docstring).

    ``cd`` holds the composition-dependent expected values alone (the report prints no
    other figure of it: its win, stand-off and loss chances and deviation read zero);
    ``td``, the chart's, holds every figure.
    """

    rules: Rules
    cd: MainGameResult
    td: MainGameResult
    strategy: BasicStrategy
    side_bets: dict[str, SideBetAnalysis]
    stated_rtp: Fraction | None
    stated_words: str | None
    explanations: tuple[RuleChange, ...] = ()
    #: Where no single rule change gives the stated RTP: the small sets of changes
    #: valued, nearest first (:meth:`~.search.StatedRtpSearch.nearest_sets`).
    nearest_sets: tuple[RuleSet, ...] = ()
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """The report as JSON values; a contract for tools: extended, never changed."""
        td = self.td
        stated: object = None
        comparison: object = None
        if self.stated_rtp is not None:
            stated = float(self.stated_rtp)
            comparison = {
                "stated": self.stated_words,
                "computed_rtp": td.rtp,
                "difference": td.rtp - float(self.stated_rtp),
                "rule_changes_matching": [
                    {"field": change.field, "value": _plain(change.value), "rtp": change.rtp}
                    for change in self.explanations
                ],
                "rule_sets_nearest": [
                    {
                        "changes": {field: _plain(value) for field, value in found.changes},
                        "rtp": found.rtp,
                        "rounds_to_stated": abs(found.rtp - float(self.stated_rtp)) < TOLERANCE,
                    }
                    for found in self.nearest_sets
                ],
            }
        return {
            "rules": self.rules.name,
            "decks": self.rules.decks,
            "main": {
                "cd": {"ev": self.cd.ev, "rtp": self.cd.rtp},
                "td": {"ev": td.ev, "rtp": td.rtp},
                "sd": td.sd,
                "win": td.win,
                "push": td.push,
                "loss": td.loss,
                "round_win": td.round_win,
                "round_push": td.round_push,
                "round_loss": td.round_loss,
                "blackjack": td.blackjack,
                "per_up": {
                    _UP_NAMES[up.up]: {
                        "probability": up.probability,
                        "cd_ev": cd_up.ev,
                        "td_ev": up.ev,
                    }
                    for up, cd_up in zip(td.per_up, self.cd.per_up, strict=True)
                },
                "split_convention": SPLIT_CONVENTION,
                "sd_exact": False,
                "sd_note": SD_NOTE,
            },
            "stated_rtp": stated,
            "stated_comparison": comparison,
            "side_bets": {key: bet.to_json() for key, bet in self.side_bets.items()},
            "seconds": self.seconds,
        }


def _plain(value: object) -> object:
    if isinstance(value, Fraction):
        return str(value)
    if hasattr(value, "value"):
        return value.value
    return value


@functools.lru_cache(maxsize=32)
def par_sheet(rules: Rules, *, explain: bool = True) -> ParSheet:
    """Compute the PAR sheet of ``rules`` (see the module docstring).

    With ``explain`` (the command's report), a helper process is forked where a second
    core is free (:mod:`~croupier.analysis.helper`): it computes the stated-RTP search's
    costliest rule changes, or, with no search, some of the main game's up cards.  The
    search's answer is kept on disk (:mod:`~croupier.analysis.stated_cache`): a later
    report of the same rules reads it, where it computes the same RTP, and searches
    nothing.
    """
    # Both strategies' analyses and the search's rule changes value many hands alike.
    with sharing_valuations(rules):
        if not explain:
            return _par_sheet(rules, None, helped=False)
        if rules.name not in STATED_RTP:
            # A helper process (where a second core is free) takes some up cards.
            return _par_sheet(rules, None, helped=True)
        stated = STATED_RTP[rules.name][0]
        known = stated_cache.load(rules, stated)
        if known is not None:
            # The search's answer for these rules, kept on disk by an earlier report:
            # used only where the rules' own figure is the one it was searched for.
            sheet = _par_sheet(rules, None, helped=True)
            if sheet.td.rtp == known.rtp:
                return dataclasses.replace(
                    sheet, explanations=known.explanations, nearest_sets=known.nearest_sets
                )
        # A helper process starts on the search now, beside the rules' own analysis.
        with StatedRtpSearch(rules) as search:
            sheet = _par_sheet(rules, search, helped=False)
        stated_cache.store(
            rules, stated, stated_cache.Answer(sheet.td.rtp, sheet.explanations, sheet.nearest_sets)
        )
        return sheet


def _up_card(rules: Rules, up: int) -> tuple[UpCardResult, BasicStrategy, UpCardResult]:
    """Against one up card: the composition-dependent result, the chart's column, and
    the chart's result (the chart's column is all it reads)."""
    cd = up_card_result(rules, up, outcomes=False)
    column = chart_cells(rules, up)
    return cd, column, up_card_result(rules, up, column)


def _main_game(
    rules: Rules, *, helped: bool
) -> tuple[MainGameResult, BasicStrategy, MainGameResult]:
    """The main game under both strategies, and the chart, computed up card by up card;
    with ``helped``, a helper process takes up cards from the other end
    (:mod:`~croupier.analysis.helper`, where a second core is free)."""
    pieces: dict[int, tuple[UpCardResult, BasicStrategy, UpCardResult]] = {}
    helper = (
        Helper(lambda up: _up_card(rules, up), RANKS, front=RANKS)
        if helped and can_help()
        else None
    )
    with helper or contextlib.nullcontext():
        while True:
            up = (RANKS - 1 - len(pieces)) if helper is None else helper.take_back()
            if up is None or up < 0:
                break
            _step(f"main game, both strategies: up card {RANKS - up} of {RANKS}")
            pieces[up] = _up_card(rules, up)
        if helper is not None:
            pieces.update(helper.results())
    for up in range(RANKS):
        if up not in pieces:
            # Taken by a helper that died before it sent the figures: computed here.
            pieces[up] = _up_card(rules, up)
    cd = combine(rules, [pieces[up][0] for up in range(RANKS)])
    strategy = joined(rules, [pieces[up][1] for up in range(RANKS)])
    td = combine(rules, [pieces[up][2] for up in range(RANKS)])
    return cd, strategy, td


def _par_sheet(rules: Rules, search: StatedRtpSearch | None, *, helped: bool) -> ParSheet:
    start = time.perf_counter()
    timings: dict[str, float] = {}
    mark = time.perf_counter()
    cd, strategy, td = _main_game(rules, helped=helped)
    timings["main"] = time.perf_counter() - mark
    mark = time.perf_counter()
    _step("side bets")
    side_bets = analyze_side_bets(rules)
    timings["side_bets"] = time.perf_counter() - mark
    stated_rtp, words = STATED_RTP.get(rules.name, (None, None))
    explanations: tuple[RuleChange, ...] = ()
    nearest_sets: tuple[RuleSet, ...] = ()
    differs = stated_rtp is not None and abs(td.rtp - float(stated_rtp)) >= TOLERANCE
    if search is not None and stated_rtp is not None and differs:
        mark = time.perf_counter()
        search.own(td)
        explanations = search.matching(float(stated_rtp), _step)
        if not explanations:
            nearest_sets = search.nearest_sets(float(stated_rtp), td.rtp, _step)
        timings["explain"] = time.perf_counter() - mark
    return ParSheet(
        rules=rules,
        cd=cd,
        td=td,
        strategy=strategy,
        side_bets=side_bets,
        stated_rtp=stated_rtp,
        stated_words=words,
        explanations=explanations,
        nearest_sets=nearest_sets,
        seconds=time.perf_counter() - start,
        timings=timings,
    )
