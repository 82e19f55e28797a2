"""The exact math of splits: ties, the box against a dealer blackjack, resplits."""

from __future__ import annotations

import pytest

from croupier.analysis.game import analyze
from croupier.analysis.shoe import TEN
from croupier.presets import find_rules
from croupier.rules import SplitMatch


def test_online_splitting_pairs_identical_tens_never_split_on_a_floating_tie() -> None:
    """Online rulebook, "Splitting Pairs": "When a player receives two identical cards, they
    are considered a pair", so only tens of one rank split (``split_match = rank``).

    Where splitting two tens is worth less than standing, the split option of a ten-ten is
    worth exactly the stand (the tens of two ranks stand); that tie must not choose the
    split.  The tens are then never split, and the rank rule changes nothing: the whole
    game reads the same as with any two tens splitting (``split_match = value``), which
    never splits them either.
    """
    rules = find_rules("online-8deck").replace(decks=6)
    assert rules.split_match is SplitMatch.RANK
    by_rank = analyze(rules)
    by_value = analyze(rules.replace(split_match=SplitMatch.VALUE))
    for up in by_rank.per_up:
        tens = next(d for d in up.decisions if d.cards == (TEN, TEN))
        assert tens.action == "stand", up.up
        assert tens.options["split"] == tens.options["stand"]
    assert by_rank.ev == pytest.approx(by_value.ev, abs=1e-15)
    assert by_rank.sd == pytest.approx(by_value.sd, abs=1e-12)
    assert by_rank.win == pytest.approx(by_value.win, abs=1e-12)
    assert by_rank.push == pytest.approx(by_value.push, abs=1e-12)
    assert by_rank.loss == pytest.approx(by_value.loss, abs=1e-12)
