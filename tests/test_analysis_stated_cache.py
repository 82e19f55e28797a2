"""The stated-RTP search's answer kept on disk: read back exactly, keyed by the rules,
used only for the figure it was searched for."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from croupier.analysis import stated_cache
from croupier.analysis.report import par_sheet
from croupier.analysis.search import RuleChange, RuleSet
from croupier.analysis.stated_cache import Answer, entry_path, load, store
from croupier.presets import find_rules
from croupier.rules import DealerBlackjackTakes, HoleCard, Surrender

LIVE = Fraction(9959, 10000)


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CROUPIER_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_an_answer_reads_back_exactly_with_every_kind_of_value() -> None:
    rules = find_rules("live")
    answer = Answer(
        0.9928412345678901,
        (RuleChange("max_split_hands", 4, 0.1 + 0.2), RuleChange("resplit_aces", True, 1 / 3)),
        (
            RuleSet(
                (
                    ("hole_card", HoleCard.PEEK),
                    ("double_after_split", True),
                    ("surrender", Surrender.LATE),
                ),
                0.9958912345678912,
            ),
            RuleSet(
                (("decks", 4), ("dealer_blackjack_takes", DealerBlackjackTakes.ORIGINAL_BET)),
                0.99591,
            ),
        ),
    )
    store(rules, LIVE, answer)
    assert load(rules, LIVE) == answer


def test_the_entry_is_keyed_by_every_rule_and_the_stated_figure() -> None:
    rules = find_rules("live")
    store(rules, LIVE, Answer(0.99, (), ()))
    assert load(rules, LIVE) == Answer(0.99, (), ())
    assert load(rules.replace(decks=6), LIVE) is None
    assert load(rules.replace(minimum_bet="10"), LIVE) is None
    assert load(rules, Fraction(9960, 10000)) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],
        lambda text: text.replace('"format": 1', '"format": 0'),
        lambda text: text.replace("0.5", '"0.5"'),
        lambda text: text.replace('"max_split_hands"', '"no_such_rule"'),
        lambda text: "[]",
    ],
)
def test_an_entry_that_cannot_be_read_whole_is_none(damage: object) -> None:
    rules = find_rules("live")
    store(rules, LIVE, Answer(0.5, (RuleChange("max_split_hands", 4, 0.5),), ()))
    path = entry_path(rules, LIVE)
    assert callable(damage)
    path.write_text(damage(path.read_text()))
    assert load(rules, LIVE) is None


def test_a_cache_that_cannot_be_written_changes_nothing(cache: Path) -> None:
    rules = find_rules("live")
    (cache / "stated-rtp").write_text("a file where the folder would be")
    store(rules, LIVE, Answer(0.5, (), ()))
    assert load(rules, LIVE) is None


@pytest.mark.slow
def test_the_report_reads_the_kept_answer_only_for_its_own_figure() -> None:
    """The online table's "RTP: 99.64%": searched once, kept, read back the same; an
    entry kept for another computed figure is searched again, never taken."""
    rules = find_rules("online-8deck")
    stated = Fraction(9964, 10000)
    par_sheet.cache_clear()
    searched = par_sheet(rules)
    assert [(c.field, c.value) for c in searched.explanations] == [
        ("max_split_hands", 3),
        ("max_split_hands", 4),
    ]
    kept = load(rules, stated)
    assert kept == Answer(searched.td.rtp, searched.explanations, searched.nearest_sets)
    par_sheet.cache_clear()
    read = par_sheet(rules)
    assert read.to_json() | {"seconds": 0} == searched.to_json() | {"seconds": 0}
    # An entry for another computed figure (other code, say): not taken.
    path = entry_path(rules, stated)
    entry = json.loads(path.read_text())
    entry["computed_rtp"] = 0.5
    entry["rule_changes_matching"] = [["decks", 1, 0.9964]]
    path.write_text(json.dumps(entry))
    par_sheet.cache_clear()
    again = par_sheet(rules)
    assert again.explanations == searched.explanations
    assert load(rules, stated) == kept
    par_sheet.cache_clear()


def test_the_key_covers_the_exact_math_source() -> None:
    names = {source.name for source in stated_cache._SOURCES}
    assert {"game.py", "kernel.py", "search.py", "strategy.py", "rules.py"} <= names
