"""Rounds for the rulebook tests: a preset, a card order, bets, and the money they end with.

The card order is the dealing order: the first pass to each box from box 1, the
dealer's first card, the second pass, then the dealer's hole card where the rules
have one (online deals the face-down card in the first pass instead).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TypeVar

import pytest

from croupier.errors import BetError, CroupierError
from croupier.events import BetResult, Event
from croupier.presets import find_preset
from croupier.round import Round
from croupier.shoe import FixedOrder

__all__ = [
    "Bet",
    "Row",
    "assert_money",
    "assert_refused",
    "deal",
    "events_of",
    "new_round",
    "results_of",
]

#: An initial bet ``(player, box, amount)`` or a side bet ``(player, box, amount, bet)``.
Bet = tuple[str, int, str] | tuple[str, int, str, str]
E = TypeVar("E", bound=Event)
#: One expected result: ``(player, box, hand, bet, outcome, net)``.
Row = tuple[str, int, int | None, str, str, str]


def new_round(preset: str, cards: str, *bets: Bet, **changes: object) -> Round:
    """A round of ``preset`` (with rule ``changes``, as the preset ties them) on
    ``cards``, its bets placed, still open."""
    rules = find_preset(preset).replace(**changes)
    game = Round(rules, FixedOrder(cards))
    for bet in bets:
        game.place_bet(*bet)
    return game


def deal(preset: str, cards: str, *bets: Bet, **changes: object) -> Round:
    """As :func:`new_round`, then "No more bets": the cards are dealt."""
    game = new_round(preset, cards, *bets, **changes)
    game.close_bets()
    return game


def results_of(game: Round, *, bet: str | None = None) -> list[BetResult]:
    """The round's results, or those of one kind of bet."""
    return [result for result in game.results if bet is None or result.bet == bet]


def events_of(game: Round, kind: type[E]) -> list[E]:
    """The round's events of one kind, oldest first."""
    return [event for event in game.events if isinstance(event, kind)]


def assert_money(game: Round, rows: Iterable[Row], players: Mapping[str, str]) -> None:
    """Every result in order, each player's net, and the house's net balancing them."""
    got = [
        (result.player, result.box, result.hand, result.bet, result.outcome, result.net)
        for result in game.results
    ]
    want = [
        (player, box, hand, bet, outcome, Decimal(net))
        for player, box, hand, bet, outcome, net in rows
    ]
    assert got == want, _difference("results", got, want)
    for result in game.results:
        assert result.net == result.net.quantize(game.rules.currency_unit)
    nets = game.net_by_player()
    expected = {player: Decimal(net) for player, net in players.items()}
    assert nets == expected, f"net by player: got {nets}, want {expected}"
    assert sum(nets.values(), Decimal(0)) + game.house_net == 0
    assert game.house_net == -sum((result.net for result in game.results), Decimal(0))


def _difference(what: str, got: Sequence[object], want: Sequence[object]) -> str:
    lines = [f"{what} differ:"]
    lines += [f"  got  {row}" for row in got]
    lines += [f"  want {row}" for row in want]
    return "\n".join(lines)


def assert_refused(
    game: Round, attempt: Callable[[], object], error: type[CroupierError], *words: str
) -> str:
    """``attempt`` raises ``error`` whose message holds ``words``, and the round is unchanged."""
    events, phase, offers, turn = game.events, game.phase, game.offers, game.current_turn
    with pytest.raises(error) as caught:
        attempt()
    message = str(caught.value)
    for word in words:
        assert word in message, message
    assert (game.events, game.phase, game.offers, game.current_turn) == (
        events,
        phase,
        offers,
        turn,
    )
    return message


def refuses_a_bet_behind(preset: str) -> None:
    """At ``preset``, which has no standing players, bob's initial bet on ann's box is
    refused and changes nothing, while his own box and ann's raise are taken; the same
    bet behind is taken once the rules say ``bets_behind``."""
    game = new_round(preset, "", ("ann", 1, "100"))
    assert not game.rules.bets_behind
    assert not game.can_place_bet("bob", 1, "50")
    assert_refused(
        game,
        lambda: game.place_bet("bob", 1, "50"),
        BetError,
        f"box 1 is ann's; {preset} takes no bets behind a seated player",
    )
    game.place_bet("bob", 2, "50")  # a box of his own
    game.place_bet("ann", 1, "50")  # ann raises her own bet
    assert new_round(preset, "", ("ann", 1, "100"), ("bob", 1, "50"), bets_behind=True)
