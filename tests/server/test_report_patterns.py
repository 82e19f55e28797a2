"""The report's patterns: a card counter among flat bettors, a shuffle with a planted
bias among the server's own, and the thresholds held to simulations."""

from __future__ import annotations

import random
import statistics
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy

from croupier import shoe as shoes
from croupier.backoffice import advantage
from croupier.backoffice.advantage import FLAG_Z, CountedBet, assess, true_counts
from croupier.backoffice.deviations import ILLUSTRIOUS_18, Decision, IndexPlay, tally
from croupier.backoffice.report import build_report
from croupier.backoffice.shuffle import RANKS, shuffle_health
from croupier.server import rounds_store
from croupier.server.records import RoundRecord
from croupier.shoe import ShuffledShoe
from tests.server.report_play import SeededShuffles, counter, flat, play, scattered
from tests.server.tables import make_users, table

ROUNDS = 400


def _window() -> tuple[datetime, datetime]:
    now = datetime.now(UTC)
    return now - timedelta(hours=1), now + timedelta(minutes=1)


def _simulated_counts(rounds: int, rng: random.Random, decks: int = 6) -> list[float]:
    """The true count before each of ``rounds`` rounds dealt from real CSPRNG shoes,
    5 to 15 cards a round, reshuffled at three quarters."""
    counts: list[float] = []
    shoe = ShuffledShoe(decks)
    order = shoe.snapshot()["order"]
    position = 0
    while len(counts) < rounds:
        if position >= shoe.cut_card_position:
            shoe.shuffle()
            order, position = shoe.snapshot()["order"], 0
        counts.append(true_counts(order, [position])[0])
        position += rng.randint(5, 15)
    return counts


def test_flat_bettors_are_flagged_as_rarely_as_said_and_a_spread_counter_always(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The threshold's calibration: over simulated players on the server's shoes
    (shuffled from a seed: the same run every time), the z of a player whose bets ignore
    the count is a standard normal value (so the chance of a flag is
    FLAT_BETTOR_FLAGGED), and a 1-8 spread counter is flagged every time over 400 rounds
    (over 100, about four times in five: a six-deck count seldom rises)."""
    monkeypatch.setattr(shoes, "secrets", SeededShuffles(2026))
    rng = random.Random(2026)
    zs: list[float] = []
    counters_flagged = 0
    for _ in range(300):
        counts = _simulated_counts(advantage.FEWEST_ROUNDS, rng)
        flat_bets = [CountedBet(count, rng.choice((1000, 2000, 2500)), False) for count in counts]
        found = assess("flat", flat_bets)
        assert found.z is not None
        zs.append(found.z)
        longer = _simulated_counts(400, rng)
        spread = [CountedBet(count, 1000 * min(max(int(count), 1), 8), False) for count in longer]
        counters_flagged += assess("counter", spread).flagged
    assert abs(statistics.mean(zs)) < 0.2
    assert 0.85 < statistics.stdev(zs) < 1.15
    assert sum(z >= advantage.FLAG_Z for z in zs) == 0  # chance 3e-5 each
    assert counters_flagged == 300
    assert advantage.FLAT_BETTOR_FLAGGED < 1e-4


def test_a_seeded_counter_among_flat_bettors_is_flagged_and_they_are_not(
    engine: sqlalchemy.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six decks dealt to two thirds (casino-to-go), 400 rounds: the counter's bets
    follow the count, the flat bettor's and the random bettor's do not."""
    monkeypatch.setattr(shoes, "secrets", SeededShuffles(2026))
    ids = make_users(engine, "ann", "bob", "cyd", chips="1000000.00")
    runtime = table(engine, ids, "casino-to-go")
    play(
        runtime,
        {"ann": flat("10"), "bob": scattered("10", "20", "30"), "cyd": counter("10")},
        ROUNDS,
        seed=11,
        insurers={"cyd": 3},
    )
    since, until = _window()
    with engine.connect() as conn:
        report = build_report(conn, since=since, until=until)
    found = {entry.player: entry for entry in report.advantage}
    assert set(found) == {"ann", "bob", "cyd"}
    assert all(entry.rounds == ROUNDS for entry in found.values())
    assert found["cyd"].flagged
    assert found["cyd"].spread is not None and found["cyd"].spread >= 2
    assert not found["ann"].flagged and found["ann"].spread == 1
    assert not found["bob"].flagged
    assert found["cyd"].insured == found["cyd"].insured_at_index
    assert found["ann"].insured == found["bob"].insured == 0
    assert "bet follows the count" in found["cyd"].verdict
    assert found["bob"].verdict == "no sign of counting"


def _biased(rng: random.Random, decks: int = 6) -> list[str]:
    """A shuffled shoe with half its aces planted in its first eighth."""
    order = ShuffledShoe(decks).snapshot()["order"]
    aces = [card for card in order if card.startswith("A")]
    rest = [card for card in order if not card.startswith("A")]
    front = rest[: 52 * decks // 8 - len(aces) // 2] + aces[: len(aces) // 2]
    rng.shuffle(front)
    back = rest[len(front) - len(aces) // 2 :] + aces[len(aces) // 2 :]
    rng.shuffle(back)
    return front + back


def test_a_planted_bias_fails_the_shuffle_tests_and_the_servers_shoes_pass(
    engine: sqlalchemy.Engine,
) -> None:
    """Rounds written through the store, each dealt first from its own shoe."""
    rng = random.Random(5)
    with engine.begin() as conn:
        for index in range(80):
            for name, order in (
                ("fair", ShuffledShoe(6).snapshot()["order"]),
                ("biased", _biased(rng)),
            ):
                shoe = {"cut": 234, "decks": 6, "every_round": False, "order": order}
                round_id = f"{name}-{index}"
                record = RoundRecord(
                    round_id=round_id,
                    table=name,
                    number=index + 1,
                    rules="live",
                    rules_version=3,
                    dealt="rng",
                    shoe={**shoe, "position": 0},
                    opened_at=datetime.now(UTC).isoformat(),
                )
                rounds_store.create_round(
                    conn,
                    round_id=round_id,
                    table_id=name,
                    number=index + 1,
                    rules_name="live",
                    rules_version="3",
                    record=record,
                )
                record = record.closed(record.opened_at, {**shoe, "position": 0})
                rounds_store.save_round(conn, round_id, record=record, status="void")
    since, until = _window()
    with engine.connect() as conn:
        report = build_report(conn, since=since, until=until)
    health = {entry.table: entry for entry in report.shuffle}
    assert health["fair"].shoes == health["biased"].shoes == 80
    # The server's shoes are the CSPRNG's, not seeded: held to a p-value a fair shoe
    # falls under once in a million runs, not to the report's 0.001 (which a fair
    # table fails once in a thousand; the next test holds that rate).
    fair = health["fair"]
    assert fair.first_card_p_value > 1e-6 and fair.position_p_value > 1e-6, fair
    assert health["biased"].passed is False
    assert health["biased"].position_p_value < 1e-6
    assert health["biased"].verdict.startswith("not random")


def test_fair_shuffles_fail_about_as_often_as_the_threshold_says() -> None:
    """Over 200 tables of 80 fairly shuffled two-deck shoes each (seeded, so the test
    repeats), the tests (two per table, each failing a fair shuffle with chance 0.001)
    fail about 0.4 times: at most 3."""
    rng = random.Random(19)
    deck = ShuffledShoe(2).snapshot()["order"]
    failed = 0
    for index in range(200):
        orders = []
        for _ in range(80):
            order = list(deck)
            rng.shuffle(order)
            orders.append(order)
        failed += not shuffle_health(f"t{index}", orders).passed
    assert failed <= 3


def _situations(rng: random.Random, decisions: int) -> list[tuple[IndexPlay, float]]:
    """Index situations as play meets them: each of the Illustrious 18 at random, at a
    true count before the round from a seeded six-deck shoe dealt to three quarters."""
    counts: list[float] = []
    while len(counts) < decisions:
        order = [f"{rank}S" for rank in RANKS] * 24
        rng.shuffle(order)
        position = 0
        while position < len(order) * 3 // 4 and len(counts) < decisions:
            counts.append(true_counts(order, [position])[0])
            position += rng.randint(5, 15)
    return [(rng.choice(ILLUSTRIOUS_18), count) for count in counts]


def test_play_by_the_indices_is_flagged_and_play_blind_to_the_count_is_not() -> None:
    """The play-deviation threshold's calibration: over simulated players, the z of one
    whose play ignores the count (basic strategy, or a choice at random) is a standard
    normal value, so he is flagged as rarely as a flat bettor (FLAT_BETTOR_FLAGGED); a
    player of the Illustrious 18 (Schlesinger, Blackjack Attack, ch. 5) is flagged every
    time over 150 index decisions (some 1,300 rounds of one box), a basic strategy player
    never (he never departs from it)."""
    rng = random.Random(18)
    random_zs: list[float] = []
    counters_flagged = 0
    for _ in range(300):
        random_player = tally(
            Decision("blind", play, count >= play.index, rng.random() < 0.3)
            for play, count in _situations(rng, 200)
        )["blind"]
        assert random_player.z is not None
        random_zs.append(random_player.z)
        basic = tally(
            Decision("basic", play, count >= play.index, play.basic == play.play)
            for play, count in _situations(rng, 200)
        )["basic"]
        assert basic.z == 0.0  # the same play every time in each situation
        counter = tally(
            Decision("counter", play, count >= play.index, count >= play.index)
            for play, count in _situations(rng, 150)
        )["counter"]
        assert counter.z is not None
        counters_flagged += counter.z >= FLAG_Z
    # Each situation's share of the count is his own decisions' here: a little narrower
    # than a standard normal value, so a flag is rarer than FLAT_BETTOR_FLAGGED says.
    assert abs(statistics.mean(random_zs)) < 0.2
    assert 0.6 < statistics.stdev(random_zs) < 1.05
    assert sum(z >= FLAG_Z for z in random_zs) == 0  # chance 3e-5 each
    assert counters_flagged == 300


def test_a_seeded_index_player_is_flagged_by_his_play_and_the_others_are_not(
    engine: sqlalchemy.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six decks, 500 rounds, everyone betting flat: the player of the Illustrious 18, on
    three boxes (some 170 index decisions), is flagged by his play alone; the others,
    who hit or stand whatever the count, are not."""
    monkeypatch.setattr(shoes, "secrets", SeededShuffles(2027))
    ids = make_users(engine, "ann", "bob", "dee", chips="1000000.00")
    runtime = table(engine, ids, "casino-to-go")
    play(
        runtime,
        {"ann": flat("10"), "bob": flat("20"), "dee": flat("10")},
        500,
        seed=12,
        index_players={"dee"},
        boxes={"dee": 3},
    )
    since, until = _window()
    with engine.connect() as conn:
        report = build_report(conn, since=since, until=until)
    found = {entry.player: entry for entry in report.advantage}
    assert found["dee"].play_flagged and not found["dee"].bets_flagged
    assert "plays the count's indices" in found["dee"].verdict
    assert found["dee"].index_decisions >= 120 and found["dee"].index_plays > 0
    for name in ("ann", "bob"):
        assert not found[name].flagged, found[name]
        assert found[name].index_decisions >= 40
