"""Earlier preset versions, kept so that a round recorded under one replays under the
rules it was played by: each is its file as it was, with only what later versions
added written in, at the value that version played by."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from croupier.errors import BetError, RulesError
from croupier.events import BetPlaced
from croupier.inputs import apply_input
from croupier.presets import (
    FIELDS_ADDED_AFTER,
    PRESET_NAMES,
    find_preset,
    find_preset_version,
    find_rules,
    rules_of_record,
)
from croupier.round import Round
from croupier.shoe import FixedOrder

#: Each preset's rules as version 2 wrote them into a round's record
#: (``Rules.to_json()`` of the code at version 2: no ``bets_behind`` yet).
RECORDED_V2 = json.loads(
    (Path(__file__).parent / "golden" / "preset_rules_values_v2.json").read_text()
)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_version_2_is_kept_with_the_rules_its_records_hold(name: str) -> None:
    earlier = find_preset_version(name, 2)
    assert (earlier.name, earlier.version) == (name, 2)
    values = earlier.rules.to_json()
    added = [field for field, last in FIELDS_ADDED_AFTER.items() if last >= 2]
    assert {key: value for key, value in values.items() if key not in added} == RECORDED_V2[name]


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_version_2_took_bets_behind_at_every_table(name: str) -> None:
    """Version 2 had no rule for bets behind (version 3 added it, RWS v5 1.26): its
    engine took an initial bet behind any seated player, so its kept file says so."""
    assert find_preset_version(name, 2).rules.bets_behind is True
    assert find_preset_version(name, 2).rules.replace(bets_behind=find_rules(name).bets_behind) == (
        find_rules(name)
    )


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_version_2_record_replays_under_version_2(name: str) -> None:
    record = {"round_id": "r1", "rules": name, "rules_version": 2}
    rules = rules_of_record({**record, "rules_values": RECORDED_V2[name]}, find_rules(name))
    assert rules == find_preset_version(name, 2).rules
    # The version as the database's text column holds it.
    text = {**record, "rules_version": "2", "rules_values": RECORDED_V2[name]}
    assert rules_of_record(text, find_rules(name)) == rules


def test_a_record_of_the_current_rules_or_none_replays_under_them() -> None:
    live = find_rules("live")
    assert rules_of_record({"rules_values": live.to_json()}, live) is live
    assert rules_of_record({}, live) is live


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rules_version": 1}, "version 1 is not kept"),
        ({"rules_version": 7}, "version 7 is not kept"),
        ({"rules_version": None}, "names no preset version"),
        ({"rules_version": True}, "names no preset version"),
        ({"rules": "vegas"}, "unknown preset 'vegas'"),
        ({"rules_values": {**RECORDED_V2["live"], "decks": 6}}, "than live version 2 has now"),
        ({"rules_values": find_rules("live").to_json() | {"decks": 6}}, "than live version 2"),
    ],
)
def test_a_record_no_kept_version_matches_is_refused(
    change: dict[str, object], message: str
) -> None:
    record = {"round_id": "r1", "rules": "live", "rules_version": 2} | {
        "rules_values": RECORDED_V2["live"]
    }
    with pytest.raises(RulesError, match="round r1 was played under other rules than") as caught:
        rules_of_record(record | change, find_rules("live"))
    assert message in str(caught.value)


def test_live_a_bet_behind_recorded_under_version_2_replays() -> None:
    """Live ("The Bet": each player on his own seat) takes no bet behind from version 3;
    a round recorded under version 2, which took one, replays with it."""
    inputs = [
        ("bet", "ann", {"box": 1, "amount": "100"}),
        ("bet", "bob", {"box": 1, "amount": "50"}),
        ("close_bets", None, {}),
    ]
    record = {"round_id": "r1", "rules": "live", "rules_version": 2}
    rules = rules_of_record({**record, "rules_values": RECORDED_V2["live"]}, find_rules("live"))
    game = Round(rules, FixedOrder("8S 6D 8H QD 7C"))
    for op, player, args in inputs:
        apply_input(game, op, player, args)
    placed = [(event.player, event.box) for event in game.events if isinstance(event, BetPlaced)]
    assert placed == [("ann", 1), ("bob", 1)]
    assert game.phase.value == "player-turns"
    now = Round(find_rules("live"), FixedOrder("8S 6D 8H QD 7C"))
    apply_input(now, *inputs[0])
    with pytest.raises(BetError, match="takes no bets behind"):
        apply_input(now, *inputs[1])


def test_the_current_version_is_the_preset_itself() -> None:
    for name in PRESET_NAMES:
        assert find_preset_version(name, find_preset(name).version) is find_preset(name)
