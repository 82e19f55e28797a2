"""The main game's exact math: the dealer's distribution and published expected returns."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from croupier.analysis.dealer import OUTCOMES, dealer_distribution, dealer_table
from croupier.analysis.game import analyze
from croupier.analysis.shoe import full_shoe
from croupier.rules import DealerBlackjackTakes, HoleCard, Rules, Surrender
from tests.published import PUBLISHED_EDGES, PublishedEdge, expected_return_of


def enumerate_dealer(counts: list[int], up: int, hits_soft_17: bool) -> list[Fraction]:
    """An independent enumeration: every card sequence the dealer can draw, in exact fractions."""
    out = [Fraction(0)] * OUTCOMES

    def draw(hard: int, ace: bool, cards: int, probability: Fraction, left: int) -> None:
        soft = ace and hard + 10 <= 21
        total = hard + 10 if soft else hard
        if hard > 21:
            out[5] += probability
            return
        if total > 17 or (total == 17 and not (soft and hits_soft_17)):
            out[6 if cards == 2 and total == 21 else total - 17] += probability
            return
        for rank in range(10):
            if counts[rank]:
                chance = Fraction(counts[rank], left)
                counts[rank] -= 1
                draw(hard + rank + 1, ace or rank == 0, cards + 1, probability * chance, left - 1)
                counts[rank] += 1

    draw(up + 1, up == 0, 1, Fraction(1), sum(counts))
    return out


@pytest.mark.parametrize("hits_soft_17", [False, True])
@pytest.mark.parametrize("up", range(10))
def test_dealer_distribution_matches_an_independent_enumeration(
    up: int, hits_soft_17: bool
) -> None:
    counts = full_shoe(1)
    counts[up] -= 1
    counts[3] -= 1  # a player's 4 and two tens removed too
    counts[9] -= 2
    expected = enumerate_dealer([int(n) for n in counts], up, hits_soft_17)
    assert sum(expected) == 1
    got = dealer_distribution(counts, dealer_table(up, hits_soft_17))
    assert np.allclose(got, [float(p) for p in expected], rtol=0, atol=1e-15)


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_dealer_distribution_of_a_full_shoe_sums_to_one(decks: int) -> None:
    for up in range(10):
        counts = full_shoe(decks)
        counts[up] -= 1
        total = dealer_distribution(counts, dealer_table(up, False)).sum()
        assert abs(total - 1.0) < 1e-12


def rules_of(edge: PublishedEdge) -> Rules:
    return Rules(
        decks=edge.decks,
        dealer_hits_soft_17=edge.dealer_hits_soft_17,
        hole_card=HoleCard.PEEK if edge.hole_card == "peek" else HoleCard.NONE,
        dealer_blackjack_takes=DealerBlackjackTakes(edge.dealer_blackjack_takes),
        double_after_split=edge.double_after_split,
        max_split_hands=edge.max_split_hands,
        resplit_aces=edge.resplit_aces,
        hit_split_aces=edge.hit_split_aces,
        blackjack_pays=Fraction(edge.blackjack_pays),
    )


APPENDIX_9 = [edge for edge in PUBLISHED_EDGES if "/blackjack/appendix/9/" in edge.url]


def test_at_least_eight_published_rule_sets_are_checked() -> None:
    assert len(APPENDIX_9) >= 8
    assert {edge.decks for edge in APPENDIX_9} >= {1, 2, 5, 6, 8}
    assert {edge.hole_card for edge in APPENDIX_9} == {"peek", "none"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "edge",
    APPENDIX_9,
    ids=[
        f"{e.decks}d-{'h17' if e.dealer_hits_soft_17 else 's17'}-{e.hole_card}-"
        f"{'das' if e.double_after_split else 'nodas'}"
        for e in APPENDIX_9
    ],
)
def test_wizard_of_odds_appendix_9_expected_return(edge: PublishedEdge) -> None:
    """Wizard of Odds, "Blackjack Appendix 9" (wizardofodds.com/games/blackjack/appendix/9/),
    the page for ``edge.decks`` decks and the soft-17 rule, "Expected return of game".

    Every page allows resplits to four hands, and its program "only considered how many
    hands the player had already split, but not the other cards drawn in those hands".
    croupier values resplit hands exactly instead (see the test below), which moves the
    return by up to 8.5e-6 of the initial bet at one deck and 3e-6 at five or more; the
    figures agree to within 1e-5 (the pages print 6-7 decimals).
    """
    published = float(expected_return_of(edge))
    computed = analyze(rules_of(edge)).ev
    assert computed == pytest.approx(published, abs=1e-5), edge.url


#: The overall expected value by E. Farmer's combinatorial analyzer (C++, version 7.6,
#: github.com/possibly-wrong/blackjack at a1f7dbb): ``BJPlayer`` for the rules, post-split
#: strategy CDP1, resplits (to four hands) whenever a pair card comes, as printed by
#: ``benchmarks/exact_anchor.py``'s driver.  Dealer peeks, 3:2, double any two cards.
#: Keys: decks, hits soft 17, double after split, most hands, late surrender, resplit Aces.
FARMER_CDP1 = {
    (8, False, True, 2, False, False): -0.004857803589473,
    (1, False, True, 2, False, False): 0.001540634024237,
    (8, False, True, 4, False, False): -0.004305806289704,
    (6, True, True, 4, True, False): -0.005271915469457,
    (1, False, True, 4, False, False): 0.001830733392016,
    (1, False, True, 4, False, True): 0.002146101546426,
    (2, True, False, 4, False, False): -0.005253953024134,
    (4, False, True, 4, True, True): -0.002158158926403,
    (6, False, True, 4, False, False): -0.004028643427670,
    (8, True, True, 4, True, True): -0.004828272883180,
}


@pytest.mark.slow
@pytest.mark.parametrize("key", list(FARMER_CDP1), ids=lambda key: "-".join(map(str, key)))
def test_resplits_are_exact_for_the_post_split_strategy(
    key: tuple[int, bool, bool, int, bool, bool],
) -> None:
    """The composition-dependent value, resplits included, equals the C++ analyzer's
    exact value (``FARMER_CDP1``) to 1e-12: split hands are played as is best with one
    other pair card out, and a hand's value counts the other hands' second cards by
    exchangeability (E. Farmer's method, sites.google.com/site/erfarmer/downloads/
    blackjack_split.pdf, as the analyzer's source cites it)."""
    decks, hits_soft_17, double_after_split, hands, surrender, resplit_aces = key
    rules = Rules(
        decks=decks,
        dealer_hits_soft_17=hits_soft_17,
        double_after_split=double_after_split,
        max_split_hands=hands,
        surrender=Surrender.LATE if surrender else Surrender.NONE,
        resplit_aces=resplit_aces,
    )
    assert analyze(rules, outcomes=False).ev == pytest.approx(FARMER_CDP1[key], abs=1e-12)


@pytest.mark.parametrize("name", ["rws-v5", "online-8deck", "casino-to-go", "live"])
def test_round_outcome_chances_sum_to_one(name: str) -> None:
    from croupier.presets import find_rules

    result = analyze(find_rules(name))
    assert result.win + result.push + result.loss == pytest.approx(1.0, abs=1e-12)
    assert sum(up.probability for up in result.per_up) == pytest.approx(1.0, abs=1e-15)
    for up in result.per_up:
        assert sum(d.probability for d in up.decisions) == pytest.approx(1.0, abs=1e-12)
    # A player blackjack: 2 x (4/52) x (16/51) in the limit of many decks, exactly from the shoe.
    assert 0.0470 < result.blackjack < 0.0480


def test_analyses_in_threads_share_the_dealer_batches_safely() -> None:
    """The server derives charts and reports in worker threads: analyses running at once
    share the dealer batches and agree exactly."""
    from concurrent.futures import ThreadPoolExecutor

    from croupier.presets import find_rules

    rules = find_rules("casino-to-go").replace(decks=3)
    with ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda _: analyze(rules).ev, range(4)))
    assert len(set(values)) == 1
