"""The round script contract: golden rounds, the report's fields, and every kind of bad input."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from croupier.script import ScriptError, play_script

GOLDEN = Path(__file__).parent / "golden"
SCRIPTS = sorted(GOLDEN.glob("*.round.json"))


def run(script: Any) -> Any:
    """Play a script; the report is read as plain JSON values."""
    return play_script(script)


ISSUE_EXAMPLE: dict[str, Any] = {
    "rules": "rws-v5",
    "overrides": {"decks": 6},
    "shoe": ["9S", "KD", "AH", "7C", "5D", "10C"],
    "bets": [
        {"box": 1, "player": "ann", "main": "100", "player_pair": "10", "under_13": "5"},
        {"box": 1, "player": "bob", "main": "50"},
    ],
    "decisions": {"ann": ["hit", "stand"], "bob": ["decline"]},
}


@pytest.mark.parametrize("script_path", SCRIPTS, ids=lambda path: path.name.split(".")[0])
def test_golden_round_matches_its_expected_report(script_path: Path) -> None:
    expected_path = script_path.with_name(script_path.name.replace(".round.", ".expected."))
    script = json.loads(script_path.read_text(encoding="utf-8"))
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    assert run(script) == expected


def test_golden_rounds_exist_for_every_preset() -> None:
    names = {json.loads(path.read_text())["rules"] for path in SCRIPTS}
    assert names == {"rws-v4", "rws-v5", "online-8deck", "casino-to-go", "live"}


@pytest.mark.parametrize("script_path", SCRIPTS, ids=lambda path: path.name.split(".")[0])
def test_golden_round_balances(script_path: Path) -> None:
    report = run(json.loads(script_path.read_text(encoding="utf-8")))
    players = sum((Decimal(net) for net in report["players"].values()), Decimal(0))
    assert players + Decimal(report["house_net"]) == 0
    results = sum((Decimal(row["net"]) for row in report["results"]), Decimal(0))
    assert results == players


def test_replay_gives_identical_events() -> None:
    first = run(copy.deepcopy(ISSUE_EXAMPLE))
    second = run(copy.deepcopy(ISSUE_EXAMPLE))
    assert first["events"] == second["events"]
    assert first == second


def test_report_has_the_contract_fields() -> None:
    report = run(copy.deepcopy(ISSUE_EXAMPLE))
    assert set(report) >= {
        "dealer",
        "boxes",
        "results",
        "players",
        "house_net",
        "void",
        "events",
    }
    assert set(report["dealer"]) >= {"cards", "total"}
    box = report["boxes"][0]
    assert box["box"] == 1 and box["seated"] == "ann"
    assert set(box["hands"][0]) >= {"cards", "total", "stake"}
    for row in report["results"]:
        assert set(row) >= {"player", "box", "hand", "bet", "stake", "net"}
        assert isinstance(row["net"], str) and isinstance(row["stake"], str)
    assert all("type" in event for event in report["events"])


def test_issue_example_settles_side_bets_and_main_bets() -> None:
    report = run(copy.deepcopy(ISSUE_EXAMPLE))
    rows = {(row["player"], row["bet"]): row for row in report["results"]}
    # 9S AH: Under 13 wins 1:1 (RWS v5 3.13.2: aces count 1, 10 points), not a pair.
    assert rows[("ann", "under_13")]["net"] == "5.00"
    assert rows[("ann", "player_pair")]["net"] == "-10.00"
    # ann hits soft 20 to hard 17; the dealer draws KD 5D 10C = 25 and busts.
    assert report["dealer"] == {"cards": ["KD", "5D", "10C"], "total": 25}
    assert rows[("ann", "main")]["net"] == "100.00"
    assert rows[("bob", "main")]["net"] == "50.00"
    assert report["players"] == {"ann": "95.00", "bob": "50.00"}
    assert report["house_net"] == "-145.00"
    assert report["void"] is False


def test_too_few_cards_voids_and_returns_every_bet() -> None:
    script = copy.deepcopy(ISSUE_EXAMPLE)
    script["shoe"] = ["9S", "KD", "AH", "7C"]
    report = run(script)
    assert "5.5.3" in report["void"]
    assert all(row["net"] == "0.00" for row in report["results"])
    assert report["house_net"] == "0.00"


def test_unknown_offer_answer_is_declined_and_list_left_alone() -> None:
    # bob's list holds "stand", not an answer to insurance: the offer is declined.
    script = {
        "rules": "rws-v5",
        "shoe": ["9S", "AD", "9H", "8C", "QS"],
        "bets": [{"box": 1, "player": "bob", "main": "100"}],
        "decisions": {"bob": ["stand"]},
    }
    report = run(script)
    declined = [event for event in report["events"] if event["type"] == "offer_declined"]
    assert declined and declined[0]["offer"] == "insurance"
    assert report["unused_decisions"] == {}


def bad(script: dict[str, Any], message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        run(script)


def with_changes(**changes: Any) -> dict[str, Any]:
    script = copy.deepcopy(ISSUE_EXAMPLE)
    script.update(changes)
    return script


def test_malformed_scripts_name_what_and_where() -> None:
    bad([], "JSON object")  # type: ignore[arg-type]
    bad(with_changes(deck=[]), "unknown key 'deck'")
    bad(with_changes(rules="nope"), "rules: .*nope")
    bad(with_changes(overrides={"decks": 12}), "overrides: decks must be from 1 to 8")
    bad(with_changes(overrides={"colour": "red"}), "overrides: unknown rule 'colour'")
    bad(with_changes(shoe="9S KD"), "shoe: must be a list")
    bad(with_changes(shoe=["9S", "1X"]), r"shoe\[1\]: unknown card '1X'")
    bad(with_changes(bets=[]), "bets: must be a non-empty list")
    bad(with_changes(bets=[{"box": 1, "player": "ann", "mian": "5"}]), r"bets\[0\]: unknown key")
    bad(with_changes(bets=[{"box": 1, "player": "ann", "main": 10.5}]), r"bets\[0\].main: .*float")
    bad(with_changes(bets=[{"box": 1, "player": "ann", "main": "5"}]), "under the table minimum")
    bad(with_changes(bets=[{"box": 9, "player": "ann", "main": "50"}]), "box 9 is not on")
    bad(with_changes(decisions={"ann": ["fold"]}), r"decisions.ann\[0\]: unknown decision 'fold'")
    bad(with_changes(decisions={"ann": "hit"}), "decisions.ann: must be a list")


def test_illegal_decision_names_the_rule() -> None:
    bad(with_changes(decisions={"ann": ["split"]}), r"decisions.ann\[0\]: cannot split")


def test_decisions_that_run_out_are_an_error() -> None:
    bad(with_changes(decisions={"ann": ["hit"]}), "decisions.ann: ran out")


_SHOE = ["TS", "6D", "2H", "5C", "TC"]


@pytest.mark.parametrize(
    ("bet", "message"),
    [
        ({"box": 1, "player": "ann", "main": 100}, "exact money written as text"),
        ({"box": 1, "player": "ann", "main": True}, "exact money written as text"),
        ({"box": True, "player": "ann", "main": "100"}, 'needs a "player" name and a "box"'),
        ({"box": 1, "player": "ann", "main": "\u0661\u0660\u0660"}, "not a number in digits 0-9"),
    ],
)
def test_a_bet_is_money_written_as_text_in_ascii_digits(bet: dict[str, Any], message: str) -> None:
    """A JSON number, a boolean, or other scripts' digits where an amount is due are
    refused with the bet named (they were read as amounts)."""
    script = {"rules": "rws-v5", "shoe": _SHOE, "bets": [bet], "decisions": {"ann": ["stand"]}}
    with pytest.raises(ScriptError, match=message):
        play_script(script)


def test_an_input_amount_in_other_digits_is_refused() -> None:
    inputs = [{"op": "bet", "player": "ann", "args": {"box": 1, "amount": "\u0661\u0660"}}]
    with pytest.raises(ScriptError, match="not a number in digits 0-9"):
        play_script({"rules": "rws-v5", "shoe": _SHOE, "inputs": inputs})
