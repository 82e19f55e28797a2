"""A random but legal player for property tests: every call it makes is recorded for replay."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from croupier.round import OfferKind, Phase, Round

PLAYERS = ("ann", "bob", "cy")
AMOUNTS = ("25", "50", "100", "333", "1000.01", "27.35")
CALLS: dict[str, Callable[..., object]] = {
    "place_bet": Round.place_bet,
    "close_bets": Round.close_bets,
    "hit": Round.hit,
    "stand": Round.stand,
    "double_down": Round.double_down,
    "split": Round.split,
    "surrender": Round.surrender,
    "take_insurance": Round.take_insurance,
    "take_even_money": Round.take_even_money,
    "follow": Round.follow,
    "decline": Round.decline,
    "time_out": Round.time_out,
}


@dataclass
class Recording:
    """The calls made on a round, in order, to replay them on another."""

    calls: list[tuple[str, tuple[object, ...]]] = field(default_factory=list)

    def call(self, game: Round, name: str, *args: object) -> object:
        self.calls.append((name, args))
        return CALLS[name](game, *args)

    def replay(self, game: Round) -> None:
        for name, args in self.calls:
            CALLS[name](game, *args)


def place_random_bets(game: Round, rng: random.Random, recording: Recording) -> None:
    """Bets on one to three boxes by one to three players, some side bets, within limits."""
    rules = game.rules
    boxes = rng.sample(range(1, rules.boxes + 1), rng.randint(1, min(3, rules.boxes)))
    recording.call(game, "place_bet", rng.choice(PLAYERS), boxes[0], str(rules.minimum_bet))
    for box in boxes:
        total = Decimal(0) if box != boxes[0] else rules.minimum_bet
        for player in rng.sample(PLAYERS, rng.randint(1, 3)):
            amount = rng.choice(AMOUNTS)
            if total == 0 and Decimal(amount) < rules.minimum_bet:
                amount = str(rules.minimum_bet)
            if game.can_place_bet(player, box, amount):
                recording.call(game, "place_bet", player, box, amount)
                total += Decimal(amount)
            for side_bet in rules.side_bets_offered():
                if rng.random() < 0.3 and game.can_place_bet(player, box, "5", side_bet.value):
                    recording.call(game, "place_bet", player, box, "5", side_bet.value)


def play_random_round(
    game: Round, rng: random.Random, recording: Recording, *, stop_after: int | None = None
) -> None:
    """Bet, close, and answer every question at random until the round ends (or, with
    ``stop_after``, until that many answers and decisions have been given)."""
    place_random_bets(game, rng, recording)
    recording.call(game, "close_bets")
    steps = 0
    while game.phase not in (Phase.SETTLED, Phase.VOID):
        if stop_after is not None and steps >= stop_after:
            return
        steps += 1
        if game.offers:
            offer = game.offers[0]
            choice = rng.random()
            if choice < 0.4:
                recording.call(game, "decline", offer.player, offer.box, offer.kind)
            elif choice < 0.45:
                recording.call(game, "time_out")
            elif offer.kind is OfferKind.INSURANCE:
                recording.call(game, "take_insurance", offer.player, offer.box)
            elif offer.kind is OfferKind.EVEN_MONEY:
                recording.call(game, "take_even_money", offer.player, offer.box)
            elif offer.kind is OfferKind.SURRENDER:
                recording.call(game, "surrender", offer.box)
            else:
                recording.call(game, "follow", offer.player, offer.box)
            continue
        actions = game.legal_actions()
        assert actions, f"no legal action in phase {game.phase}"
        if rng.random() < 0.05:
            recording.call(game, "time_out")
            continue
        action = rng.choice(actions).value
        name = {"double": "double_down"}.get(action, action)
        recording.call(game, name)
