"""A round you can hold: copy, pickle, snapshot and restore, automations, and the cursor."""

from __future__ import annotations

import copy
import json
import pickle
import random
from decimal import Decimal

import pytest

from croupier.commands import (
    CloseBets,
    Command,
    DealCard,
    Decline,
    Hit,
    PlaceBet,
    Settle,
    Split,
    Stand,
)
from croupier.decisions import legal_actions, refusal
from croupier.errors import CroupierError, IllegalActionError
from croupier.presets import PRESETS, find_rules
from croupier.round import Action, Automation, Awaiting, Phase, Round
from croupier.shoe import FixedOrder, ShuffledShoe
from croupier.snapshot import SnapshotError
from tests.drive import Recording, play_random_round

PRESET_NAMES = list(PRESETS)


def waits(game: Round) -> Awaiting:
    """What the round waits for (read afresh: every command changes it)."""
    return game.awaiting


def _split_round() -> tuple[Round, list[Command]]:
    """RWS v5: ann splits her eights behind which bob bets; a round with every kind of step."""
    game = Round(find_rules("rws-v5"), FixedOrder("8S 6D 8H 10C 9D 9H 7S"))
    commands: list[Command] = [
        PlaceBet("ann", 1, Decimal("100")),
        PlaceBet("bob", 1, Decimal("50")),
        CloseBets(),
        Decline("ann", 1),
        Split(),
        Decline("bob", 1),
        Stand(),
        Stand(),
    ]
    return game, commands


@pytest.mark.parametrize("at", range(9))
def test_restore_at_every_step_gives_the_same_events(at: int) -> None:
    whole, commands = _split_round()
    for command in commands:
        whole.apply(command)
    game, _ = _split_round()
    for command in commands[:at]:
        game.apply(command)
    source = game.state.source
    assert isinstance(source, FixedOrder)
    saved = json.loads(json.dumps(game.snapshot()))  # plain JSON values
    rest = FixedOrder(list(source.cards[source.dealt :]))
    again = Round.restore(saved, find_rules("rws-v5"), rest)
    assert again.snapshot() == game.snapshot()
    for command in commands[at:]:
        again.apply(command)
    assert [event.to_json() for event in again.events] == [
        event.to_json() for event in whole.events
    ]
    assert again.results == whole.results
    assert again.net_by_player() == {"ann": Decimal("200.00"), "bob": Decimal("50.00")}


def test_a_copy_is_independent_and_draws_the_same_cards() -> None:
    game, commands = _split_round()
    for command in commands[:4]:
        game.apply(command)
    what_if = game.copy()
    assert what_if.apply(Hit())[1].card == "10C"  # type: ignore[attr-defined]
    assert game.awaiting is Awaiting.DECISION and len(game.boxes[0].hands[0].cards) == 2
    assert game.apply(Hit())[1].card == "10C"  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_round_pickles_and_deep_copies_at_any_point(name: str) -> None:
    rules = find_rules(name)
    rng = random.Random(7)
    for seed in range(5):
        game = Round(rules, ShuffledShoe.from_rules(rules, seed=seed))
        play_random_round(game, rng, Recording(), stop_after=rng.randint(1, 6))
        for held in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game), game.copy()):
            assert held.snapshot() == game.snapshot()


def test_a_shoe_from_the_system_generator_copies_and_pickles() -> None:
    rules = find_rules("online-8deck")
    game = Round(rules, ShuffledShoe.from_rules(rules, lazy=True))
    game.place_bet("ann", 1, "10")
    game.close_bets()
    assert pickle.loads(pickle.dumps(game)).events == game.events
    assert game.copy().events == game.events


def test_restore_is_refused_under_other_rules_or_from_a_damaged_snapshot() -> None:
    game, commands = _split_round()
    for command in commands[:3]:
        game.apply(command)
    saved = game.snapshot()
    with pytest.raises(SnapshotError, match="other rules: decks"):
        Round.restore(saved, find_rules("rws-v5").replace(decks=6), None)
    damaged = {**saved, "cursor": {"step": "nowhere"}}
    with pytest.raises(SnapshotError, match="damaged round snapshot"):
        Round.restore(damaged, find_rules("rws-v5"), None)
    assert saved["bets"]
    twice = {**saved, "bets": [*saved["bets"], saved["bets"][0]]}
    with pytest.raises(SnapshotError, match=r"damaged round snapshot: .* has two main bets"):
        Round.restore(twice, find_rules("rws-v5"), None)
    with pytest.raises(SnapshotError, match="not a round snapshot"):
        Round.restore([], find_rules("rws-v5"), None)
    assert isinstance(SnapshotError("x"), CroupierError)


def test_a_dealers_console_enters_every_card_and_settles_on_his_word() -> None:
    rules = find_rules("live")
    game = Round(rules, None, automation=Automation.NONE)
    game.place_bet("ann", 1, "10")
    game.close_bets()
    assert waits(game) is Awaiting.CARD and game.phase is Phase.DEALING
    for card in ("10S", "6D", "9H", "7C"):  # ann, the dealer, ann, the hole card
        game.deal_card(card)
    assert waits(game) is Awaiting.DECISION
    game.stand()
    assert waits(game) is Awaiting.CARD  # the dealer's 16 draws
    game.apply(DealCard("KS"))
    assert waits(game) is Awaiting.SETTLEMENT and game.phase.value == "dealer-turn"
    assert game.results == ()
    with pytest.raises(IllegalActionError, match="not waiting for one"):
        game.deal_card("2C")
    game.apply(Settle())
    assert game.phase.value == "settled" and game.net_by_player() == {"ann": Decimal("10.00")}
    assert waits(game) is Awaiting.NOTHING


def test_settle_is_refused_where_settlement_is_automatic() -> None:
    game, commands = _split_round()
    for command in commands:
        game.apply(command)
    with pytest.raises(IllegalActionError, match="not waiting for settlement"):
        game.settle()


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_legal_actions_are_those_refusal_allows(name: str) -> None:
    """The cursor's legal actions are worked out apart from ``refusal`` for speed: held equal."""
    rules = find_rules(name)
    rng = random.Random(name)
    checked = 0
    for seed in range(300):
        game = Round(rules, ShuffledShoe.from_rules(rules, seed=seed))
        play_random_round(game, rng, Recording(), stop_after=rng.randint(2, 12))
        current = game.state.current()
        if current is None:
            continue
        box, hand = current
        expected = tuple(a for a in Action if refusal(game.state, a, box, hand, None) is None)
        assert legal_actions(game.state, box, hand) == expected == game.legal_actions()
        checked += 1
    assert checked > 10


def test_a_snapshot_damaged_inside_is_refused_on_restore_not_at_its_next_command() -> None:
    """A NaN amount, an emptied hand list under the turn: each once restored, then
    failed untyped at the next command; now the restore refuses it, naming what."""
    game, commands = _split_round()
    for command in commands:
        game.apply(command)
        if game.awaiting is Awaiting.DECISION:
            break
    assert game.awaiting is Awaiting.DECISION
    saved = game.snapshot()
    rules = find_rules("rws-v5")
    Round.restore(copy.deepcopy(saved), rules, None)  # whole, it restores

    nan = copy.deepcopy(saved)
    nan["bets"][0]["amount"] = "NaN"
    with pytest.raises(SnapshotError, match="'NaN' is not an amount"):
        Round.restore(nan, rules, None)

    emptied = copy.deepcopy(saved)
    box = emptied["cursor"]["box"]
    emptied["boxes"][box]["hands"] = []
    with pytest.raises(SnapshotError, match="the hand whose turn it is"):
        Round.restore(emptied, rules, None)

    renumbered = copy.deepcopy(saved)
    renumbered["boxes"][box]["hands"][0]["number"] = 7
    with pytest.raises(SnapshotError, match="holds hands \\[7"):
        Round.restore(renumbered, rules, None)


@pytest.mark.parametrize("amount", ["25", Decimal("25")])
def test_place_bet_checks_a_bet_once(monkeypatch: pytest.MonkeyPatch, amount: object) -> None:
    """``Round.place_bet`` checks the bet once, as ``apply(PlaceBet(...))`` does, and
    places the same bet."""
    from croupier import betting

    calls: list[object] = []
    check = betting.verify_place_bet

    def counted(*arguments: object) -> Decimal:
        calls.append(arguments)
        return check(*arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(betting, "verify_place_bet", counted)
    game = Round(find_rules("rws-v5"), FixedOrder(""))
    event = game.place_bet("ann", 1, amount)
    assert len(calls) == 1
    by_command = Round(find_rules("rws-v5"), FixedOrder(""))
    assert by_command.apply(PlaceBet("ann", 1, Decimal("25"))) == (event,)
    assert len(calls) == 2
