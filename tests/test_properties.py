"""Properties of the engine on every preset: money balances, queries agree with actions, replay."""

from __future__ import annotations

import random
from collections.abc import Callable
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.errors import BetError, IllegalActionError
from croupier.events import CardDealt
from croupier.presets import PRESETS, find_rules
from croupier.round import Action, Phase, Round
from croupier.round_state import PlacedBet, PlacedBets
from croupier.shoe import CompositionCheck, FixedOrder, ShuffledShoe
from croupier.table import Table
from tests.drive import Recording, play_random_round

PRESET_NAMES = list(PRESETS)


def assert_balanced(game: Round) -> None:
    """Players' net plus the house's net is zero; every stake is settled exactly once."""
    players = sum(game.net_by_player().values(), Decimal(0))
    assert players + game.house_net == 0
    # Every bet a player put on the table comes back through exactly one result, so a
    # wallet that took staked_by_player() pays back the sum of stake plus net.
    staked: dict[str, Decimal] = {}
    for result in game.results:
        staked[result.player] = staked.get(result.player, Decimal(0)) + result.stake
    assert staked == {p: a for p, a in game.staked_by_player().items() if a or p in staked}
    assert sum((result.net for result in game.results), Decimal(0)) == players
    if game.phase is Phase.SETTLED:
        for box in game.boxes:
            for hand in box.hands:
                for player, stake in hand.stakes:
                    rows = [
                        result
                        for result in game.results
                        if (result.player, result.box, result.hand, result.bet)
                        == (player, box.number, hand.number, "main")
                    ]
                    assert len(rows) == 1 and rows[0].stake == stake
    else:
        assert all(result.net == 0 for result in game.results)


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_legal_play_always_balances(name: str, seed: int) -> None:
    rng = random.Random(seed)
    rules = find_rules(name)
    game = Round(rules, ShuffledShoe.from_rules(rules, seed=seed))
    play_random_round(game, rng, Recording())
    assert game.phase in (Phase.SETTLED, Phase.VOID)
    assert_balanced(game)


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_replay_from_card_order_and_decisions_gives_identical_events(name: str, seed: int) -> None:
    rules = find_rules(name)
    game = Round(rules, ShuffledShoe.from_rules(rules, seed=seed))
    recording = Recording()
    play_random_round(game, random.Random(seed), recording)
    dealt = [event.card for event in game.events if isinstance(event, CardDealt)]
    replayed = Round(rules, FixedOrder(dealt))
    recording.replay(replayed)
    assert replayed.events == game.events
    assert replayed.results == game.results


QUERIES: dict[Action, tuple[Callable[[Round], bool], Callable[[Round], object]]] = {
    Action.HIT: (Round.can_hit, Round.hit),
    Action.STAND: (Round.can_stand, Round.stand),
    Action.DOUBLE: (Round.can_double, Round.double_down),
    Action.SPLIT: (Round.can_split, Round.split),
    Action.SURRENDER: (Round.can_surrender, Round.surrender),
}


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_can_x_agrees_with_whether_x_is_accepted(name: str, seed: int) -> None:
    """At every decision, each query agrees with its action; a refusal changes nothing."""
    rules = find_rules(name)
    rng = random.Random(seed)
    game = Round(rules, ShuffledShoe.from_rules(rules, seed=seed))
    recording = Recording()
    game.place_bet("ann", 1, str(rules.minimum_bet * 4))
    game.close_bets()
    while game.phase not in (Phase.SETTLED, Phase.VOID):
        if game.offers:
            offer = game.offers[0]
            game.decline(offer.player, offer.box, offer.kind)
            continue
        legal = set(game.legal_actions())
        for action, (query, act) in QUERIES.items():
            allowed = query(game)
            assert allowed == (action in legal)
            if not allowed:
                before = game.events
                with pytest.raises((IllegalActionError, BetError), match="cannot"):
                    act(game)
                assert game.events == before
        action = rng.choice(sorted(legal))
        recording.call(game, {"double": "double_down"}.get(action.value, action.value))
    assert_balanced(game)


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_plays_10000_random_rounds_without_an_error(name: str) -> None:
    rules = find_rules(name)
    table = Table(rules, seed=2024)
    rng = random.Random(name)
    voids = 0
    for _ in range(10_000):
        game = table.new_round()
        play_random_round(game, rng, Recording())
        assert_balanced(game)
        voids += game.phase is Phase.VOID
    # A shuffled shoe never runs out mid-round nor holds a foreign card.
    assert voids == 0


def test_composition_check_spans_the_rounds_of_a_shoe() -> None:
    rules = find_rules("rws-v5").replace(decks=1)
    check = CompositionCheck(1)
    first = Round(rules, FixedOrder(["AS", "KD", "9H", "7C", "10S"]), check=check)
    first.place_bet("ann", 1, "25")
    first.close_bets()
    # The same shoe deals the AS again in the next round: one copy too many (RWS v5 5.5.2).
    second = Round(rules, FixedOrder(["AS", "KD", "9H", "7C"]), check=check)
    second.place_bet("ann", 1, "25")
    second.close_bets()
    assert second.phase is Phase.VOID and "5.5.2" in (second.void_reason or "")


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            st.booleans(),
            st.sampled_from(["ann", "bob", "cy"]),
            st.integers(min_value=1, max_value=3),
            st.sampled_from(["main", "perfect_pairs"]),
            st.integers(min_value=1, max_value=500),
        ),
        max_size=60,
    )
)
def test_the_layouts_index_answers_as_a_pass_over_its_bets_would(
    steps: list[tuple[bool, str, int, str, int]],
) -> None:
    """RWS v5 1.26 (bets behind a box): the layout's bets found by key, each player's
    bets and each box's initial total, kept as bets are placed, raised and withdrawn,
    agree with a plain list of the bets in the order placed."""
    bets = PlacedBets()
    plain: list[PlacedBet] = []
    for withdraw, player, box, bet, cents in steps:
        found = next((p for p in plain if (p.player, p.box, p.bet) == (player, box, bet)), None)
        if withdraw:
            if found is not None:
                plain.remove(found)
                placed = bets.find(player, box, bet)
                assert placed is not None
                bets.remove(placed)
            continue
        amount = Decimal(cents) / 100
        if found is None:
            plain.append(PlacedBet(player, box, bet, amount))
        else:
            found.amount += amount
        bets.add(player, box, bet, amount)
        assert [(p.player, p.box, p.bet, p.amount) for p in bets] == [
            (p.player, p.box, p.bet, p.amount) for p in plain
        ]
        for number in (1, 2, 3):
            initial = sum(
                (p.amount for p in plain if p.box == number and p.bet == "main"), Decimal(0)
            )
            assert bets.initial_on(number) == initial
        for name in ("ann", "bob", "cy"):
            assert [p.amount for p in bets.of(name)] == [
                p.amount for p in plain if p.player == name
            ]
    assert {name for name in ("ann", "bob", "cy") if bets.of(name)} == {p.player for p in plain}
    totals: dict[int, Decimal] = {}
    for p in plain:
        if p.bet == "main":
            totals[p.box] = totals.get(p.box, Decimal(0)) + p.amount
    assert bets.initial_totals() == totals
    assert PlacedBets(PlacedBet(p.player, p.box, p.bet, p.amount) for p in plain) == bets
