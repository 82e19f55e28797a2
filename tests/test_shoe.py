"""Card sources and the composition check (RWS v5 5.5.1-5.5.3, Casino-To-Go shuffling)."""

from __future__ import annotations

import pickle
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.cards import Card, ForeignCard, Rank, Suit, full_deck, parse_card
from croupier.errors import CardError, CroupierError, RulesError
from croupier.rules import Rules
from croupier.shoe import (
    CardSource,
    CompositionCheck,
    DealerEntry,
    ExcessCardFound,
    FixedOrder,
    ForeignCardFound,
    ShoeExhausted,
    ShuffledShoe,
)


def deal_all(shoe: ShuffledShoe) -> list[Card]:
    return [shoe.draw() for _ in range(shoe.remaining)]


# --- ShuffledShoe: order -------------------------------------------------------------


def test_seeded_shoe_is_reproducible() -> None:
    assert deal_all(ShuffledShoe(6, seed=1234)) == deal_all(ShuffledShoe(6, seed=1234))


def test_seeded_shoe_reshuffles_reproducibly() -> None:
    first, second = ShuffledShoe(2, seed=99), ShuffledShoe(2, seed=99)
    for shoe in (first, second):
        for _ in range(30):
            shoe.draw()
        shoe.shuffle()
    assert deal_all(first) == deal_all(second)


def test_seeded_order_is_pinned() -> None:
    # Recorded games and simulations are replayed from their seed: the order a seed
    # gives must never change from one release to the next.
    shoe = ShuffledShoe(1, seed=42)
    assert [str(shoe.draw()) for _ in range(8)] == ["10S", "JH", "KH", "4S", "9H", "KD", "4H", "AC"]
    shoe.shuffle()
    assert [str(shoe.draw()) for _ in range(8)] == ["4D", "7S", "5C", "QS", "QC", "3H", "JH", "10S"]


def test_seed_zero_is_a_seed() -> None:
    assert deal_all(ShuffledShoe(1, seed=0)) == deal_all(ShuffledShoe(1, seed=0))


def test_different_seeds_give_different_orders() -> None:
    assert deal_all(ShuffledShoe(6, seed=1)) != deal_all(ShuffledShoe(6, seed=2))


def test_a_reshuffle_gives_a_new_order() -> None:
    shoe = ShuffledShoe(6, seed=5)
    first = deal_all(shoe)
    shoe.shuffle()
    assert deal_all(shoe) != first


def test_unseeded_shoes_differ() -> None:
    # Two 8-deck shoes from the cryptographic generator: equal with a probability
    # far below one in 10**800.
    assert deal_all(ShuffledShoe(8)) != deal_all(ShuffledShoe(8))


def test_shoe_is_shuffled_on_construction() -> None:
    # RWS v5 5.5.4: a round never starts from cards that were not shuffled.
    shoe = ShuffledShoe(8, seed=3)
    assert shoe.shuffles == 1
    assert deal_all(shoe) != full_deck() * 8


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_full_shoe_holds_each_card_decks_times(decks: int) -> None:
    cards = deal_all(ShuffledShoe(decks, seed=decks))
    assert len(cards) == 52 * decks
    counts = Counter(cards)
    assert set(counts) == set(full_deck())
    assert set(counts.values()) == {decks}


def test_shuffle_gathers_every_card_back() -> None:
    shoe = ShuffledShoe(2, seed=11)
    for _ in range(70):
        shoe.draw()
    shoe.shuffle()
    assert Counter(deal_all(shoe)) == Counter(full_deck() * 2)


def test_eight_deck_stream_passes_the_composition_check() -> None:
    shoe = ShuffledShoe(8)
    check = CompositionCheck(8)
    for _ in range(416):
        check.take(shoe.draw())
    assert check.taken == 416
    assert all(check.count(card) == 8 for card in full_deck())


def test_reshuffled_stream_passes_after_reset() -> None:
    shoe = ShuffledShoe(1, seed=8)
    check = CompositionCheck(1)
    for _ in range(3):
        for _ in range(52):
            check.take(shoe.draw())
        shoe.shuffle()
        check.reset()


# --- ShuffledShoe: cut card and shuffling ----------------------------------------------


def test_casino_to_go_cut_card_a_third_from_the_bottom() -> None:
    # Casino-To-Go, "Card Shuffling and Cutting": the cut card goes "somewhere around a
    # third up from the bottom", and the game goes on "until the cut card is about to be
    # dealt".  Six decks: 312 cards, the cut card after 208.
    shoe = ShuffledShoe(6, penetration=Fraction(2, 3), seed=1)
    assert shoe.remaining == 312
    assert shoe.cut_card_position == 208
    for _ in range(207):
        shoe.draw()
    assert not shoe.needs_shuffle
    shoe.draw()
    assert shoe.needs_shuffle
    assert shoe.remaining == 104


@pytest.mark.parametrize(
    ("decks", "penetration", "position"),
    [
        (8, Fraction(3, 4), 312),
        (1, Fraction(1, 2), 26),
        (1, Fraction(1, 3), 17),  # 52 / 3 = 17.33: the whole cards only
        (1, Fraction(1, 100), 1),  # never before the first card
        (2, Fraction(1), 104),
    ],
)
def test_cut_card_position(decks: int, penetration: Fraction, position: int) -> None:
    assert ShuffledShoe(decks, penetration=penetration, seed=0).cut_card_position == position


def test_round_in_progress_finishes_behind_the_cut_card() -> None:
    shoe = ShuffledShoe(1, penetration=Fraction(1, 2), seed=4)
    for _ in range(26):
        shoe.draw()
    assert shoe.needs_shuffle
    for _ in range(26):
        shoe.draw()
    assert shoe.remaining == 0
    assert shoe.needs_shuffle


def test_shuffle_resets_the_cut_card() -> None:
    shoe = ShuffledShoe(1, penetration=Fraction(1, 2), seed=4)
    for _ in range(30):
        shoe.draw()
    shoe.shuffle()
    assert not shoe.needs_shuffle
    assert (shoe.remaining, shoe.dealt, shoe.shuffles) == (52, 0, 2)


def test_shuffle_every_round() -> None:
    shoe = ShuffledShoe(8, seed=6, shuffle_every_round=True)
    assert not shoe.needs_shuffle
    shoe.draw()
    assert shoe.needs_shuffle
    shoe.shuffle()
    assert not shoe.needs_shuffle
    assert shoe.remaining == 416


def test_from_rules() -> None:
    rules = Rules(decks=6, penetration=Fraction(2, 3), shuffle_every_round=True)
    shoe = ShuffledShoe.from_rules(rules, seed=10)
    assert (shoe.decks, shoe.remaining, shoe.cut_card_position) == (6, 312, 208)
    shoe.draw()
    assert shoe.needs_shuffle
    assert deal_all(ShuffledShoe.from_rules(rules, seed=10)) == deal_all(
        ShuffledShoe(6, penetration=Fraction(2, 3), seed=10)
    )


def test_rws_v5_5_5_3_shoe_exhausted_when_every_card_is_gone() -> None:
    shoe = ShuffledShoe(1, seed=2)
    deal_all(shoe)
    with pytest.raises(
        ShoeExhausted, match=r"no card left to complete the round \(RWS v5 5\.5\.3\)"
    ):
        shoe.draw()
    assert shoe.dealt == 52  # the refused draw changed nothing
    assert issubclass(ShoeExhausted, CroupierError)


@pytest.mark.parametrize("decks", [0, -1, True, "6"])
def test_shoe_refuses_a_bad_deck_count(decks: object) -> None:
    with pytest.raises(RulesError, match="decks"):
        ShuffledShoe(decks, seed=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("penetration", [Fraction(0), Fraction(5, 4), Fraction(-1, 2), 0.75])
def test_shoe_refuses_a_bad_penetration(penetration: object) -> None:
    with pytest.raises(RulesError, match="penetration"):
        ShuffledShoe(6, penetration=penetration, seed=1)  # type: ignore[arg-type]


def test_repr_hides_the_seed_and_the_order() -> None:
    shoe = ShuffledShoe(6, seed=987654321)
    next_card = str(ShuffledShoe(6, seed=987654321).draw())
    shoe.draw()
    for text in (repr(shoe), str(shoe)):
        assert text == "ShuffledShoe(decks=6, remaining=311, dealt=1)"
        assert "987654321" not in text
        assert next_card not in text


# --- FixedOrder ------------------------------------------------------------------------


def test_fixed_order_deals_in_the_order_given() -> None:
    cards = [parse_card(text) for text in ("AS", "10H", "KD", "2C")]
    order = FixedOrder(cards)
    assert [order.draw() for _ in range(4)] == cards
    assert (order.remaining, order.dealt) == (0, 4)


def test_fixed_order_parses_texts() -> None:
    order = FixedOrder(["as", "TH", parse_card("KD"), " 9c "])
    assert [str(order.draw()) for _ in range(4)] == ["AS", "10H", "KD", "9C"]


def test_fixed_order_reads_one_text() -> None:
    assert [str(card) for card in FixedOrder("AS 10H, KD").cards] == ["AS", "10H", "KD"]


def test_fixed_order_joker_is_a_foreign_card() -> None:
    order = FixedOrder(["AS", "JK"])
    order.draw()
    assert order.draw() == ForeignCard("JK")


def test_fixed_order_unknown_text_names_it_and_its_position() -> None:
    with pytest.raises(CardError, match=r"card 3 of the fixed order: unknown card '1S'"):
        FixedOrder(["AS", "KD", "1S"])


def test_fixed_order_exhausted() -> None:
    order = FixedOrder(["AS"])
    order.draw()
    with pytest.raises(ShoeExhausted, match=r"RWS v5 5\.5\.3"):
        order.draw()
    assert order.dealt == 1


def test_fixed_order_never_shuffles() -> None:
    order = FixedOrder(["AS", "KD"])
    order.draw()
    assert not order.needs_shuffle
    order.shuffle()
    assert str(order.draw()) == "KD"


# --- DealerEntry -----------------------------------------------------------------------


def test_dealer_entry_queues_in_order() -> None:
    entry = DealerEntry()
    assert entry.draw() is None
    entry.enter("AS")
    entry.enter(parse_card("10h"))
    entry.enter("JK")
    assert entry.queued == 3
    assert entry.draw() == parse_card("AS")
    assert entry.draw() == parse_card("10H")
    assert entry.draw() == ForeignCard("JK")
    assert entry.draw() is None
    assert entry.queued == 0


def test_dealer_entry_refuses_unknown_text() -> None:
    entry = DealerEntry()
    with pytest.raises(CardError, match="'1S'"):
        entry.enter("1S")
    assert entry.queued == 0


def test_dealer_entry_cut_card_mark() -> None:
    entry = DealerEntry()
    assert not entry.needs_shuffle
    entry.mark_cut_card()
    assert entry.needs_shuffle
    entry.shuffle()
    assert not entry.needs_shuffle


# --- CompositionCheck ------------------------------------------------------------------


def test_rws_v5_5_5_1_foreign_card_is_detected() -> None:
    check = CompositionCheck(6)
    check.take(parse_card("AS"))
    with pytest.raises(ForeignCardFound) as raised:
        check.take(ForeignCard("JK"))
    assert raised.value.card == ForeignCard("JK")
    assert str(raised.value) == "foreign card JK found: it is not part of the set (RWS v5 5.5.1)"
    assert isinstance(raised.value, CardError)
    assert check.taken == 1


def test_rws_v5_5_5_2_excess_card_is_detected() -> None:
    check = CompositionCheck(2)
    ace = Card(Rank.ACE, Suit.SPADES)
    assert check.take(ace) is ace
    assert check.take(ace) is ace
    with pytest.raises(ExcessCardFound) as raised:
        check.take(ace)
    assert raised.value.card == ace
    assert str(raised.value) == (
        "excess card AS: the 2-deck shoe holds 2 and this is the 3rd (RWS v5 5.5.2)"
    )
    assert isinstance(raised.value, CardError)
    assert (check.count(ace), check.taken) == (2, 2)  # the refused card is not counted


@pytest.mark.parametrize(
    ("decks", "ordinal"), [(1, "2nd"), (6, "7th"), (8, "9th"), (10, "11th"), (20, "21st")]
)
def test_excess_card_message_counts_the_copy(decks: int, ordinal: str) -> None:
    message = str(ExcessCardFound(parse_card("7D"), decks))
    assert f"the {decks}-deck shoe holds {decks} and this is the {ordinal} " in message


def test_composition_check_reset_clears() -> None:
    check = CompositionCheck(1)
    ace = parse_card("AS")
    check.take(ace)
    check.reset()
    assert (check.count(ace), check.taken) == (0, 0)
    assert check.take(ace) == ace


def test_composition_check_refuses_what_is_not_a_card() -> None:
    with pytest.raises(CardError, match="not a card"):
        CompositionCheck(1).take("AS")  # type: ignore[arg-type]


def test_composition_check_refuses_a_bad_deck_count() -> None:
    with pytest.raises(RulesError, match="decks"):
        CompositionCheck(0)


def test_errors_survive_pickling() -> None:
    # Simulations run on several processes and send their errors back.
    for error in (
        ForeignCardFound(ForeignCard("JK")),
        ExcessCardFound(parse_card("AS"), 6),
        ShoeExhausted(),
    ):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert str(copy) == str(error)


# --- the protocol ----------------------------------------------------------------------


def test_every_source_is_a_card_source() -> None:
    sources: list[CardSource] = [ShuffledShoe(1, seed=1), FixedOrder(["AS"]), DealerEntry()]
    for source in sources:
        assert isinstance(source, CardSource)


@settings(max_examples=50, deadline=None)
@given(
    decks=st.integers(min_value=1, max_value=8),
    numerator=st.integers(min_value=1, max_value=99),
    seed=st.integers(min_value=0, max_value=2**64),
)
def test_any_shoe_deals_its_composition_and_cuts_where_it_says(
    decks: int, numerator: int, seed: int
) -> None:
    penetration = Fraction(numerator, 100)
    shoe = ShuffledShoe(decks, penetration=penetration, seed=seed)
    check = CompositionCheck(decks)
    total = 52 * decks
    for dealt in range(1, total + 1):
        check.take(shoe.draw())
        assert shoe.needs_shuffle == (dealt >= shoe.cut_card_position)
    assert shoe.cut_card_position == max(1, total * numerator // 100)
    assert check.taken == total


def test_a_kept_shoe_comes_back_card_for_card_and_only_as_whole_decks() -> None:
    """A table server keeps each round's shoe (its snapshot) and deals it again after a
    restart: the restored shoe deals the same cards; a snapshot whose cards are not
    whole decks (a card twice, one missing, a card spelled otherwise but the same) is
    judged by the cards it names, not by their spelling."""
    shoe = ShuffledShoe(2, seed=11)
    for _ in range(5):
        shoe.draw()
    kept = shoe.snapshot()
    again = ShuffledShoe.restore(kept)
    assert [again.draw() for _ in range(50)] == [shoe.draw() for _ in range(50)]
    # Spelled in lower case, the cards are the same cards.
    lower = {**kept, "order": [text.lower() for text in kept["order"]]}
    assert ShuffledShoe.restore(lower).snapshot() == kept
    order = list(kept["order"])
    other = next(text for text in order if text != order[0])
    swapped = [order[0] if text == other else text for text in order]  # one card 4 times
    for damaged in (swapped, [*order[:-1], order[0]], order[:-1]):
        with pytest.raises(RulesError, match="not 2 whole decks"):
            ShuffledShoe.restore({**kept, "order": damaged})
    with pytest.raises(RulesError, match="not part of the set"):
        ShuffledShoe.restore({**kept, "order": [*order[:-1], "JK"]})
    with pytest.raises(RulesError, match="not 2 whole decks"):
        ShuffledShoe.restore({**kept, "order": order + order[:52]})
