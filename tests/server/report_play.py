"""Known play for the report's tests: seeded players at real tables through the server's
table runtime, and the ledger's legs summed in Python, apart from the report's SQL."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from decimal import Decimal

import sqlalchemy

from croupier.round import Phase, Round
from croupier.server.runtime import TableRuntime
from croupier.server.schema import accounts, legs, rounds, transactions
from tests.server.tables import act

#: A player's bet for a round: given the runtime (its shoe, as a counter sees it) and a
#: random source; ``None`` sits the round out.
Bettor = Callable[[TableRuntime, random.Random], Decimal | None]


class SeededShuffles:
    """Stands in for the system's generator in the server's shoe
    (``monkeypatch.setattr(croupier.shoe, "secrets", SeededShuffles(seed))``):
    shuffles that a test can repeat."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def SystemRandom(self) -> random.Random:
        return self.random


def flat(amount: str) -> Bettor:
    """The same bet every round."""
    return lambda runtime, rng: Decimal(amount)


def scattered(*amounts: str) -> Bettor:
    """A bet drawn at random among ``amounts`` each round, whatever the cards."""
    return lambda runtime, rng: Decimal(rng.choice(amounts))


def true_count(runtime: TableRuntime) -> float:
    """The hi-lo true count of the cards dealt from the runtime's shoe so far."""
    from croupier.backoffice.advantage import true_counts

    shoe = runtime.shoe
    assert shoe is not None
    kept = shoe.snapshot()
    return true_counts(kept["order"], [kept["position"]])[0]


def counter(unit: str, top: int = 8) -> Bettor:
    """A hi-lo counter spreading 1 to ``top`` units: ``unit`` x (true count - 1),
    at least one unit."""

    def bet(runtime: TableRuntime, rng: random.Random) -> Decimal:
        units = min(max(int(true_count(runtime)) - 0, 1), top)
        return Decimal(unit) * units

    return bet


def play(
    runtime: TableRuntime,
    bettors: dict[str, Bettor],
    rounds_to_play: int,
    *,
    seed: int = 1,
    start: float = 1000.0,
    side_bets: dict[str, tuple[str, str]] | None = None,
    insurers: dict[str, float] | None = None,
    index_players: Collection[str] = (),
    boxes: dict[str, int] | None = None,
) -> float:
    """Play ``rounds_to_play`` rounds, each player on his own box (in the order given):
    seeded decisions (stand at 17 or more, else hit or stand at random; every offer
    declined, but insurance taken by each of ``insurers`` at his true count or more).  ``side_bets``
    gives a player a side bet (key, amount) every round.  ``index_players`` play the
    Illustrious 18 at the true count before the round wherever they apply (the index
    play at the index or above, the other below).  ``boxes`` gives a player several boxes
    side by side (one by default).  Returns the clock's time."""
    rng = random.Random(seed)
    now = start
    seats = [name for name in bettors for _ in range((boxes or {}).get(name, 1))]
    for _ in range(rounds_to_play):
        for box, name in enumerate(seats, start=1):
            amount = bettors[name](runtime, rng)
            if amount is None:
                continue
            act(runtime, "bet", name, {"box": box, "amount": str(amount)}, now=now)
            if side_bets and name in side_bets:
                key, side = side_bets[name]
                act(runtime, "bet", name, {"box": box, "amount": side, "bet": key}, now=now)
        counted = true_count(runtime) if runtime.shoe is not None else 0.0
        now += runtime.config.betting_seconds
        runtime.tick(now)
        game = runtime.round
        while game.phase not in (Phase.SETTLED, Phase.VOID):
            now += 1
            if game.offers:
                offer = game.offers[0]
                if (
                    offer.kind.value == "insurance"
                    and insurers is not None
                    and offer.player in insurers
                    and counted >= insurers[offer.player]
                ):
                    act(runtime, "insurance", offer.player, {"box": offer.box}, now=now)
                else:
                    act(
                        runtime,
                        "decline",
                        offer.player,
                        {"box": offer.box, "kind": offer.kind.value},
                        now=now,
                    )
            elif game.current_turn is not None:
                hand = game.current_hand
                assert hand is not None
                player = game.seated_player(game.current_turn[0])
                chosen = _index_decision(game, counted) if player in index_players else None
                if chosen is not None:
                    act(runtime, chosen, player, {}, now=now)
                elif hand.total >= 17 or not game.can_hit() or rng.random() < 0.3:
                    act(runtime, "stand", player, {}, now=now)
                else:
                    act(runtime, "hit", player, {}, now=now)
            else:
                raise AssertionError(f"round waits in phase {game.phase}")
            game = runtime.round
        now += runtime.config.pause_seconds + 1
        runtime.tick(now)
    return now


def _index_decision(game: Round, counted: float) -> str | None:
    """A counter's play where an index of the Illustrious 18 applies; ``None`` elsewhere."""
    from croupier.backoffice.deviations import card_value, index_play

    hand, up = game.current_hand, game.up_card
    if hand is None or up is None or len(hand.cards) != 2 or hand.from_split or hand.is_soft:
        return None
    values = [card_value(card.text) for card in hand.cards]
    tens = values == [10, 10]
    if values[0] == values[1] and not tens:
        return None
    found = index_play(sum(values), card_value(up.text), pair_of_tens=tens)
    if found is None:
        return None
    chosen = found.play if counted >= found.index else found.otherwise
    legal = {"double": game.can_double, "split": game.can_split, "hit": game.can_hit}
    if chosen in legal and not legal[chosen]():
        return None
    return chosen


def leg_sums(engine: sqlalchemy.Engine) -> dict[str, object]:
    """Every leg read row by row and summed in Python: per table the house's settle
    legs and the players' legs of settled rounds, per player (id) his legs in rounds."""
    with engine.connect() as conn:
        rows = conn.execute(
            sqlalchemy.select(
                rounds.c.table_id,
                rounds.c.status,
                transactions.c.kind,
                accounts.c.kind,
                accounts.c.owner,
                legs.c.amount,
            )
            .join(transactions, transactions.c.round_id == rounds.c.id)
            .join(legs, legs.c.transaction_id == transactions.c.id)
            .join(accounts, accounts.c.id == legs.c.account_id)
        ).all()
    house: dict[str, Decimal] = {}
    players: dict[int, Decimal] = {}
    staked: dict[str, Decimal] = {}
    for table, status, kind, account_kind, owner, amount in rows:
        money = Decimal(amount) / 100
        if account_kind == "house" and kind == "settle":
            house[table] = house.get(table, Decimal(0)) + money
        if account_kind == "player":
            players[int(owner)] = players.get(int(owner), Decimal(0)) + money
            if status == "settled" and kind in ("stake", "refund"):
                staked[table] = staked.get(table, Decimal(0)) - money
    return {"house": house, "players": players, "staked": staked}
