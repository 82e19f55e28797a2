"""The stated-RTP search and the work its rule changes share.

The figures are the same bitwise however the work is shared or split: valuations kept
across rule sets (:func:`croupier.analysis.game.sharing_valuations`), a helper process
computing some rule changes, a helper that dies.  The rulebook figure is the online
table's "RTP: 99.64%" (``docs/rulebooks``); its explanation (3 or 4 split hands) is
checked against the figures themselves, computed afresh.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from croupier.analysis import game
from croupier.analysis.game import analyze, sharing_valuations, up_card_analysis
from croupier.analysis.search import (
    SET_BUDGET,
    TOLERANCE,
    RuleSet,
    StatedRtpSearch,
    _bundles,
    _meaningful,
    _order,
    _Valuer,
    candidates,
    change_rtp,
    rules_rtp,
)
from croupier.analysis.shoe import ACE, RANKS
from croupier.analysis.strategy import derive_strategy
from croupier.presets import find_rules
from croupier.rules import DoubleOn, Rules, Surrender

# Online rulebook, "RTP: 99.64%", on 6 decks: a rule set the search runs on whose
# figures are quick to compute afresh.
ONLINE_6 = find_rules("online-8deck").replace(decks=6)


def _fresh_rtps(rules: Rules) -> dict[tuple[str, object], float]:
    """Every rule change's basic-strategy RTP, each computed alone (nothing shared)."""
    rtps = {}
    for change in candidates(rules):
        game._dealer_batch.cache_clear()
        derive_strategy.cache_clear()
        rtps[change] = change_rtp(rules, change)
    return rtps


@pytest.fixture(scope="module")
def fresh() -> dict[tuple[str, object], float]:
    return _fresh_rtps(ONLINE_6)


def _expected(fresh: dict[tuple[str, object], float], stated: float) -> list[tuple[object, ...]]:
    return [
        (name, value, rtp) for (name, value), rtp in fresh.items() if abs(rtp - stated) < 0.00005
    ]


def _found(search: StatedRtpSearch, stated: float) -> list[tuple[object, ...]]:
    return [(change.field, change.value, change.rtp) for change in search.matching(stated)]


@pytest.mark.parametrize("helper", [False, True])
def test_the_search_finds_what_each_change_alone_gives_with_or_without_a_helper(
    fresh: dict[tuple[str, object], float], helper: bool
) -> None:
    """The rule changes found are those whose RTP, computed alone, rounds to the stated
    figure, with the same RTP to the last bit, whether a second process computes some
    of them and while the rules' valuations are shared (the stated figure here is the
    one hitting split aces gives, rounded to 0.01 points)."""
    stated = round(fresh[("hit_split_aces", True)], 4)
    derive_strategy.cache_clear()
    with sharing_valuations(ONLINE_6), StatedRtpSearch(ONLINE_6, helper=helper) as search:
        derive_strategy(ONLINE_6).evaluate()
        found = _found(search, stated)
    assert found == _expected(fresh, stated)
    assert ("hit_split_aces", True) in [(name, value) for name, value, _ in found]


def test_a_stated_figure_no_change_gives_finds_nothing() -> None:
    with StatedRtpSearch(ONLINE_6) as search:
        assert search.matching(0.5) == ()


def test_a_helper_that_dies_loses_nothing(fresh: dict[tuple[str, object], float]) -> None:
    """The changes a dead helper took and never sent are computed here."""
    stated = round(fresh[("decks", 1)], 4)
    with StatedRtpSearch(ONLINE_6) as search:
        helper = search._helper
        if helper is None:
            pytest.skip("no helper here: one core, or not Linux")
        helper._process.kill()
        helper._process.join()
        found = _found(search, stated)
    assert found == _expected(fresh, stated)


def test_leaving_the_search_stops_its_helper() -> None:
    """A search whose figures are not needed (the computed RTP matches the stated one)
    leaves no process behind."""
    with StatedRtpSearch(ONLINE_6) as search:
        helper = search._helper
        if helper is None:
            pytest.skip("no helper here: one core, or not Linux")
        process = helper._process
        assert process.is_alive()
    assert not process.is_alive()


@pytest.mark.parametrize("name", ["live", "casino-to-go", "rws-v5"])
def test_shared_valuations_change_no_figure(name: str) -> None:
    """Both strategies' figures, and a rule change's, are the same bitwise computed
    within one sharing block as each alone."""
    rules = find_rules(name).replace(decks=4)
    changed = rules.replace(max_split_hands=2 if rules.max_split_hands > 2 else 3)

    def figures() -> tuple[object, ...]:
        cd = analyze(rules)
        td = derive_strategy(rules).evaluate()
        return (
            cd.ev,
            cd.sd,
            td.ev,
            td.sd,
            td.round_win,
            change_rtp(rules, ("surrender", Surrender.NONE)),
            derive_strategy(changed).evaluate(outcomes=False).ev,
        )

    game._dealer_batch.cache_clear()
    derive_strategy.cache_clear()
    alone = figures()
    game._dealer_batch.cache_clear()
    derive_strategy.cache_clear()
    with sharing_valuations(rules):
        shared = figures()
    assert shared == alone


def test_a_chart_derived_in_a_sharing_block_reads_the_composition_dependent_analysis() -> None:
    rules = find_rules("casino-to-go")
    with sharing_valuations(rules):
        assert up_card_analysis(rules, 5) is up_card_analysis(rules, 5)
    assert up_card_analysis(rules, 5) is not up_card_analysis(rules, 5)


def _post_split_reference(
    analysis: game._UpCardAnalysis, pair: int, out: int
) -> tuple[list[str], list[float]]:
    """A split hand's first play, option by option, as the rules and the best value
    (with one other pair card out, the first that is best of hit, stand, double) pick."""
    rules = analysis.rules
    graph = analysis.graph
    valuation = analysis._split_valuation(pair, out)
    deciding = analysis._split_valuation(pair, 1) if out >= 2 else valuation
    actions, values = [], []
    for card in range(RANKS):
        node = int(graph.child[graph.index_of((pair,)), card])
        total = int(graph.total[node])
        soft = bool(graph.soft[node])
        if (pair == ACE and not rules.hit_split_aces) or total == 21:
            actions.append("stand")
            values.append(float(valuation.stand[node]))
            continue
        names = ["hit"]
        if not (rules.must_draw_to_12 and total < 12):
            names.append("stand")
        doubles = rules.double_after_split and pair != ACE
        if rules.double_on is DoubleOn.NINE_TO_ELEVEN and (soft or total not in (9, 10, 11)):
            doubles = False
        if total == 21 and not rules.double_on_21:
            doubles = False
        if doubles:
            names.append("double")
        best = names[0]
        for name in names[1:]:
            if float(getattr(deciding, name)[node]) > float(getattr(deciding, best)[node]):
                best = name
        actions.append(best)
        values.append(float(getattr(valuation, best)[node]))
    return actions, values


@pytest.mark.parametrize(
    "rules",
    [
        find_rules("rws-v5"),
        find_rules("casino-to-go").replace(hit_split_aces=True, resplit_aces=True),
        find_rules("online-8deck").replace(must_draw_to_12=True, max_split_hands=4),
        find_rules("live").replace(double_after_split=False, double_on_21=False),
    ],
    ids=["rws-v5", "casino-to-go-hsa", "online-draw-to-12", "live-no-das"],
)
def test_split_hands_play_by_their_options(rules: Rules) -> None:
    """The split hands' first plays, worked out for every second card at once, are the
    plays the rules allow that are best, ties to hit, then stand (``max`` over them)."""
    for up in (0, 5, 9):
        analysis = up_card_analysis(rules, up)
        most = rules.max_split_hands
        for pair in range(RANKS):
            resplits = pair != ACE or rules.resplit_aces
            for out in range(1, 2 * most - 2 if resplits else 2):
                actions, values = analysis._post_split(pair, out)
                expected = _post_split_reference(analysis, pair, out)
                assert (actions, values) == expected, (up, pair, out)
                assert np.isfinite(values).all()


def test_a_helper_and_this_process_take_every_place_once() -> None:
    """The two ends of the queue meet: each place is computed once, by one of them,
    and the helper takes none beyond its front."""
    from croupier.analysis.helper import Helper, can_help

    if not can_help():
        pytest.skip("no helper here: one core, or not Linux")
    with Helper(lambda place: place * 10, 8, front=5) as helper:
        mine = []
        while (place := helper.take_back()) is not None:
            mine.append(place)
        theirs = helper.results()
    assert all(place < 5 and result == place * 10 for place, result in theirs)
    assert sorted(mine + [place for place, _ in theirs]) == list(range(8))
    assert mine == sorted(mine, reverse=True)


@pytest.mark.parametrize("name", ["rws-v4", "casino-to-go"])
def test_the_report_by_up_card_with_a_helper_is_the_analysis_itself(name: str) -> None:
    """The report's main game, computed up card by up card and partly in a helper
    process, is bitwise the composition-dependent analysis, the derived chart and its
    value computed whole (the chart cell by cell, in the same order)."""
    from croupier.analysis.report import _main_game

    rules = find_rules(name).replace(decks=4)
    with sharing_valuations(rules):
        cd, strategy, td = _main_game(rules, helped=True)
    derive_strategy.cache_clear()
    whole = derive_strategy(rules)
    assert list(strategy.first.items()) == list(whole.first.items())
    assert list(strategy.drawn.items()) == list(whole.drawn.items())
    assert list(strategy.pairs.items()) == list(whole.pairs.items())
    alone = analyze(rules, outcomes=False)
    assert (cd.ev, [up.ev for up in cd.per_up]) == (alone.ev, [up.ev for up in alone.per_up])
    valued = whole.evaluate()
    assert (td.ev, td.sd, td.round_win, td.win, td.blackjack) == (
        valued.ev,
        valued.sd,
        valued.round_win,
        valued.win,
        valued.blackjack,
    )


@pytest.mark.slow
def test_the_nearest_sets_are_valued_exactly_and_try_a_change_valid_only_with_another() -> None:
    """Live: late surrender needs a peek (the rules refuse it alone), so it is tried
    with ``hole_card = peek``; each set's figure is the analysis of its rules."""
    rules = find_rules("live")
    own = derive_strategy(rules).evaluate(outcomes=False).rtp
    steps: list[str] = []
    with StatedRtpSearch(rules, helper=False) as search:
        assert search.matching(0.9959) == ()
        sets = search.nearest_sets(0.9959, own, steps.append)
    assert "the stated RTP: hole_card = peek, surrender = late" in steps
    assert len(sets) == SET_BUDGET
    for found in sets:
        assert found.rtp == rules_rtp(rules, found.changes)
        assert rules.replace(**dict(found.changes)) != rules
    fields = [field for found in sets for field, _ in found.changes]
    assert "name" not in fields
    assert abs(sets[0].rtp - 0.9959) < TOLERANCE


def _valued_alone(rules: Rules, changes: tuple[tuple[str, object], ...]) -> float:
    """A rule set's basic-strategy RTP computed whole, from nothing."""
    game._dealer_batch.cache_clear()
    derive_strategy.cache_clear()
    return rules_rtp(rules, changes)


@pytest.mark.parametrize("name", ["live", "rws-v5", "online-8deck"])
def test_every_rule_set_the_search_values_is_its_whole_analysis(name: str) -> None:
    """The search values rule sets up card by up card, reading again what rule sets
    valued alike share (against the up cards 2 to 9, where the dealer cannot hold a
    blackjack, the hole card, what a dealer blackjack takes and which surrender is
    offered change nothing); every single change, every change valid only with
    another, and sets of them, come out bitwise as each rule set's whole analysis (of
    the other decks, one alone: they are valued as the soft 17's change is)."""
    rules = find_rules(name).replace(decks=2)
    singles = [(change,) for change in candidates(rules) if change[0] != "decks" or change[1] == 1]
    bundles = _bundles(rules, candidates(rules))
    sets = [
        tuple(sorted(group, key=_order))
        for group in itertools.combinations(candidates(rules), 2)
        if _meaningful(rules, group)
        and {field for field, _ in group} & {"hole_card", "surrender", "dealer_blackjack_takes"}
    ][::5]
    valuer = _Valuer(rules)
    with sharing_valuations(rules):
        # The rules' own results, as the report gives them (StatedRtpSearch.own).
        valuer.own(derive_strategy(rules).evaluate().per_up)
        searched = {changes: valuer.rtp(changes) for changes in [*singles, *bundles, *sets]}
    valuer.close()
    assert searched == {changes: _valued_alone(rules, changes) for changes in searched}


def test_the_sets_found_are_the_same_with_or_without_a_worker() -> None:
    """Where no single change gives the figure (the online rulebook's 99.64% on 6
    decks), the sets of changes, their figures and their order are the same whichever
    process valued each single change and set."""

    def nearest(helper: bool) -> tuple[tuple[object, ...], tuple[RuleSet, ...]]:
        game._dealer_batch.cache_clear()
        derive_strategy.cache_clear()
        with sharing_valuations(ONLINE_6), StatedRtpSearch(ONLINE_6, helper=helper) as search:
            own = derive_strategy(ONLINE_6).evaluate(outcomes=False).rtp
            assert search.matching(0.9964) == ()
            return tuple(search.single_rtps.items()), search.nearest_sets(0.9964, own)

    alone = nearest(False)
    assert nearest(True) == alone
    for found in alone[1]:
        assert found.rtp == _valued_alone(ONLINE_6, found.changes)
