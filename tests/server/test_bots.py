"""The load and crash tests' bots choose as a player at the table would."""

from __future__ import annotations

from typing import Any

from croupier.server.bots import _choose


def betting(bets: list[dict[str, Any]], seats: dict[str, str] | None = None) -> dict[str, Any]:
    return {"phase": "betting", "bets": bets, "seats": seats or {}, "minimum_bet": "25.00"}


def bet(player: str, box: int) -> dict[str, Any]:
    return {"player": player, "box": box, "bet": "main", "amount": "25.00"}


def test_a_bot_betting_behind_waits_for_the_box_to_open_rws_v5_1_26() -> None:
    """RWS v5 1.26: a player may bet behind a box another player plays. The bot bets
    behind only once someone else's bet opened the box, behind its holder if reserved,
    and once a round."""
    assert _choose(betting([]), "zed", 1, behind=True) is None
    assert _choose(betting([bet("ann", 2)]), "zed", 1, behind=True) is None
    assert _choose(betting([bet("ann", 1)]), "zed", 1, behind=True) == (
        "bet",
        {"box": 1, "amount": "25.00"},
    )
    # A reserved box opens with its holder's bet, not another's.
    reserved = {"1": "bob"}
    assert _choose(betting([bet("ann", 1)], reserved), "zed", 1, behind=True) is None
    assert _choose(betting([bet("bob", 1)], reserved), "zed", 1, behind=True) is not None
    assert _choose(betting([bet("ann", 1), bet("zed", 1)]), "zed", 1, behind=True) is None


def test_a_seated_bot_bets_on_its_own_box_unless_another_holds_it() -> None:
    assert _choose(betting([]), "ann", 1) == ("bet", {"box": 1, "amount": "25.00"})
    assert _choose(betting([], {"1": "bob"}), "ann", 1) is None
    assert _choose(betting([bet("ann", 1)]), "ann", 1) is None
