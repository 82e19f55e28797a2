"""The exact math of splits: ties, the box against a dealer blackjack, resplits."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import pytest

from croupier.analysis.game import analyze, up_card_analysis
from croupier.analysis.shoe import ACE, TEN, full_shoe
from croupier.analysis.strategy import Play, derive_strategy
from croupier.presets import find_rules
from croupier.rules import DealerBlackjackTakes, Rules, SplitMatch

EIGHT = 7
Cards = tuple[int, ...]


def test_online_splitting_pairs_identical_tens_never_split_on_a_floating_tie() -> None:
    """Online rulebook, "Splitting Pairs": "When a player receives two identical cards, they
    are considered a pair", so only tens of one rank split (``split_match = rank``).

    Where splitting two tens is worth less than standing, the split option of a ten-ten is
    worth exactly the stand (the tens of two ranks stand); that tie must not choose the
    split.  The tens are then never split, and the rank rule changes nothing: the whole
    game reads the same as with any two tens splitting (``split_match = value``), which
    never splits them either.
    """
    rules = find_rules("online-8deck").replace(decks=6)
    assert rules.split_match is SplitMatch.RANK
    by_rank = analyze(rules)
    by_value = analyze(rules.replace(split_match=SplitMatch.VALUE))
    for up in by_rank.per_up:
        tens = next(d for d in up.decisions if d.cards == (TEN, TEN))
        assert tens.action == "stand", up.up
        assert tens.options["split"] == tens.options["stand"]
    assert by_rank.ev == pytest.approx(by_value.ev, abs=1e-15)
    assert by_rank.sd == pytest.approx(by_value.sd, abs=1e-12)
    assert by_rank.win == pytest.approx(by_value.win, abs=1e-12)
    assert by_rank.push == pytest.approx(by_value.push, abs=1e-12)
    assert by_rank.loss == pytest.approx(by_value.loss, abs=1e-12)


# -- a split box against a dealer blackjack, by an exact brute force -----------------------------


def _total(cards: Cards) -> int:
    hard = sum((rank + 1) * count for rank, count in enumerate(cards))
    return hard + 10 if cards[ACE] and hard + 10 <= 21 else hard


@functools.cache
def _dealer(shoe: Cards, up: int) -> tuple[float, ...]:
    """The dealer's (S17) outcomes from ``shoe``: 17 to 21, bust, blackjack."""
    chances = [0.0] * 7

    def draw(shoe: Cards, cards: Cards, chance: float) -> None:
        total = _total(cards)
        if sum(cards) == 2 and total == 21:
            chances[6] += chance
        elif total > 21:
            chances[5] += chance
        elif total >= 17:
            chances[total - 17] += chance
        else:
            remaining = sum(shoe)
            for rank, left in enumerate(shoe):
                if left:
                    draw(_less(shoe, rank), _plus(cards, rank), chance * left / remaining)

    draw(shoe, _plus((0,) * 10, up), 1.0)
    return tuple(chances)


def _less(shoe: Cards, rank: int) -> Cards:
    return tuple(count - (index == rank) for index, count in enumerate(shoe))


def _plus(cards: Cards, rank: int) -> Cards:
    return tuple(count + (index == rank) for index, count in enumerate(cards))


def _split_box_by_brute_force(
    rules: Rules, up: int, pair: int, play: Callable[[Cards, bool], str]
) -> tuple[float, float, float, float]:
    """The exact value of a box that splits ``pair`` into two hands against ``up``, and
    the chances that the round's total is a win, a stand-off, a loss.

    Every card is dealt from the shoe in order: the first hand's second card and draws,
    the second hand's, then the dealer's hand (no hole card: his second card comes last).
    Each hand plays ``play(cards, two_cards)``; the box is settled as a whole, as the
    rules take it against a dealer blackjack.
    """
    shoe = full_shoe(rules.decks)
    shoe[up] -= 1
    shoe[pair] -= 2

    def finished(
        shoe: Cards, cards: Cards, first: bool, chance: float, wager: int
    ) -> Iterator[tuple[Cards, Cards, int, float]]:
        action = "stand" if _total(cards) > 21 else play(cards, first)
        if action == "stand":
            yield shoe, cards, wager, chance
            return
        remaining = sum(shoe)
        for rank, left in enumerate(shoe):
            if not left:
                continue
            after, grown = _less(shoe, rank), _plus(cards, rank)
            if action == "double":
                yield after, grown, 2 * wager, chance * left / remaining
            else:
                yield from finished(after, grown, False, chance * left / remaining, wager)

    def hand(shoe: Cards, chance: float) -> Iterator[tuple[Cards, Cards, int, float]]:
        remaining = sum(shoe)
        for rank, left in enumerate(shoe):
            if left:
                cards = _plus(_plus((0,) * 10, pair), rank)
                yield from finished(_less(shoe, rank), cards, True, chance * left / remaining, 1)

    value = win = push = loss = 0.0
    for after_first, first, first_wager, first_chance in hand(tuple(int(n) for n in shoe), 1.0):
        for after, second, second_wager, chance in hand(after_first, first_chance):
            hands = [(_total(first), first_wager), (_total(second), second_wager)]
            busted = -sum(wager for total, wager in hands if total > 21)
            standing = [(total, wager) for total, wager in hands if total <= 21]
            if rules.dealer_blackjack_takes is DealerBlackjackTakes.ORIGINAL_BET:
                against_blackjack = -1.0
            else:
                against_blackjack = busted - (1.0 if standing else 0.0)
            dealer = _dealer(after, up)
            value += chance * dealer[6] * against_blackjack
            loss += chance * dealer[6]
            for outcome in range(6):
                net = float(busted)
                for total, wager in standing:
                    if outcome == 5 or total > 17 + outcome:
                        net += wager
                    elif total < 17 + outcome:
                        net -= wager
                value += chance * dealer[outcome] * net
                if net > 0:
                    win += chance * dealer[outcome]
                elif net == 0:
                    push += chance * dealer[outcome]
                else:
                    loss += chance * dealer[outcome]
    return value, win, push, loss


def _analysis_and_brute_force(
    rules: Rules, up: int, pair: int
) -> tuple[float, float, tuple[float, ...], tuple[float, ...]]:
    """The analysis's split value and the brute force's for the analysis's own play, and
    both's chances of a round won, stood off and lost."""
    analysis = up_card_analysis(rules, up)
    value = analysis.split_value(pair)
    chance = float(analysis.main.blackjack[analysis.graph.index_of((pair, pair))])
    rounds = tuple(
        float(x) for x in analysis._with_box_blackjack(analysis._split_rounds(pair), chance)[:3]
    )
    valuation = analysis._split_valuation(pair, 1)
    stands = analysis._stands(valuation)
    index = analysis.graph._index
    # The split hands' first plays, by their second card.
    firsts = analysis._post_split(pair, 1)[0]

    def play(cards: Cards, first: bool) -> str:
        if first:
            # ``cards`` counts each rank: the pair card and one more.
            rest = list(cards)
            rest[pair] -= 1
            return firsts[next(rank for rank, count in enumerate(rest) if count)]
        return "stand" if stands[index[cards]] else "hit"

    exact, *exact_rounds = _split_box_by_brute_force(rules, up, pair, play)
    return value, exact, rounds, tuple(exact_rounds)


def test_casino_to_go_blackjack_a_split_box_loses_only_the_original_wager() -> None:
    """Casino-To-Go, "Blackjack": "In the event that the Dealer has Blackjack, the Player
    can only lose his original wager; split and double down bets are returned".

    However many hands the box split into, a dealer blackjack takes one initial bet (not
    half a bet a hand).  The value of splitting 8s, one deck, S17, double after split,
    split once, no hole card, against a ten, equals to 1e-12 an exact brute force of the
    split box over every order of the cards, playing each hand as the analysis plays it
    (against an Ace it agrees as closely, -0.551280 for Casino-To-Go's rules, but the
    brute force takes a minute).
    """
    rules = find_rules("rws-v4").replace(
        decks=1, max_split_hands=2, dealer_blackjack_takes=DealerBlackjackTakes.ORIGINAL_BET
    )
    value, exact, _, _ = _analysis_and_brute_force(rules, TEN, EIGHT)
    assert value == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("up", [ACE, TEN])
def test_rws_v4_3_13_a_split_box_loses_its_busted_hands_and_one_initial_bet(up: int) -> None:
    """RWS v4 3.13 (v5 3.21.3): "The Dealer shall collect all the wagers on hands that bust
    after splitting.  For wagers on hands that have not bust after splitting, if the Dealer
    obtains a Blackjack, the Dealer shall only collect an amount equal to the Player's
    initial bet."

    The value of splitting 8s (rws-v4 rules, one deck, split once) agrees with an exact
    brute force of the box within 1e-4 of a bet: the busted hands are counted exactly, and
    the chance that both hands bust (when no initial bet is taken beside them) with the
    hands' draws independent given the dealer's blackjack, which is off by 5.5e-5 against
    an Ace and 3.6e-5 against a ten at one deck.
    """
    rules = find_rules("rws-v4").replace(decks=1, max_split_hands=2)
    value, exact, _, _ = _analysis_and_brute_force(rules, up, EIGHT)
    assert value == pytest.approx(exact, abs=1e-4)


@pytest.mark.parametrize("up", [ACE, TEN])
def test_a_split_round_is_won_stood_off_or_lost_by_its_total(up: int) -> None:
    """A split round's win, stand-off and loss chances count the round's total result
    (RWS v4 3.13 for the box against a dealer blackjack).  For 8s split once, one deck,
    rws-v4 rules, they agree within 0.003 with an exact brute force of the box (0.0025
    at most, the win against an Ace): the analysis takes the two hands as independent
    given the dealer's final outcome, and their draws as independent of his.
    """
    rules = find_rules("rws-v4").replace(decks=1, max_split_hands=2)
    _, _, rounds, exact = _analysis_and_brute_force(rules, up, EIGHT)
    assert sum(rounds) == pytest.approx(1.0, abs=1e-12)
    assert rounds == pytest.approx(exact, abs=3e-3)


def test_rws_v4_3_13_eights_against_an_ace_hit_rather_than_split() -> None:
    """RWS v4 3.13 and v5 3.21.3 (the box against a dealer blackjack, as above), 8 decks.

    8,8 against an Ace, valued with the box's take: split to two hands -0.69015 (an exact
    brute force of the analysis's play of the two hands gives -0.690161), resplit to four
    hands -0.677143 (resplits valued exactly), hit -0.66494.  Hitting is best, and the rws
    charts say hit: charged half a bet a hand the split read -0.65060 and the chart said
    split.
    """
    rules = find_rules("rws-v4")
    decisions = up_card_analysis(rules, ACE).decisions()
    eights = next(d for d in decisions if d.cards == (EIGHT, EIGHT))
    assert eights.options["hit"] == pytest.approx(-0.664938, abs=1e-6)
    assert eights.options["split"] == pytest.approx(-0.677143, abs=1e-6)
    assert eights.action == "hit"
    once = up_card_analysis(rules.replace(max_split_hands=2), ACE).split_value(EIGHT)
    assert once == pytest.approx(-0.690161, abs=2e-5)
    for name in ("rws-v4", "rws-v5"):
        assert derive_strategy(find_rules(name)).pairs[(EIGHT, ACE)] is Play.HIT


def test_casino_to_go_return_counts_one_original_wager_a_split_box() -> None:
    """Casino-To-Go, "Blackjack" (the box loses only its original wager): the game's
    composition-dependent return is 99.566173% (it read 99.564812% with half a bet charged
    per split hand), and rws-v4's 99.809379% (99.810146% before); resplit hands valued
    exactly (with the Appendix 9 convention they read 99.566314% and 99.809509%)."""
    assert 1 + analyze(find_rules("casino-to-go")).ev == pytest.approx(0.99566173, abs=1e-8)
    assert 1 + analyze(find_rules("rws-v4")).ev == pytest.approx(0.99809379, abs=1e-8)


def test_casino_to_go_eights_against_an_ace_are_resplit() -> None:
    """Casino-To-Go, "Splitting Pairs" ("split pairs twice (for a total of three hands)")
    and "Blackjack" (the box loses only its original wager): a third hand costs nothing
    more against a dealer blackjack, so 8s split against an Ace are resplit; charged half
    a bet a hand they never were.  The split is worth -0.563864 (8 decks, resplits valued
    exactly), and ends in three hands 13.7% of the time."""
    analysis = up_card_analysis(find_rules("casino-to-go"), ACE)
    assert analysis.split_value(EIGHT) == pytest.approx(-0.563864, abs=1e-6)
    hands = analysis._hand_count_distribution(EIGHT)
    assert hands[3] == pytest.approx(0.137326, abs=1e-6)
