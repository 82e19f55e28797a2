"""Tests for croupier.cli.play: the terminal game and the ``croupier play`` command.

The game itself is driven with scripted answers and a fixed card order, so that
every prompt and every amount is known; the command is driven through Click's
test runner with a fixed ``--seed``.  RWS v5 deals one card to each box, the
dealer's up card, then each box's second card; the dealer's second card comes
after the players (no hole card).
"""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from click.testing import CliRunner
from rich.console import Console

from croupier.cards import parse_card, parse_cards
from croupier.cli.play import TerminalGame, card_text, play, signed, total_text
from croupier.errors import CroupierError
from croupier.presets import PRESETS, find_rules
from croupier.round import Phase
from croupier.shoe import FixedOrder
from croupier.table import Table


class Script:
    """Answers prompts in order, then ends the input (EOFError); keeps every prompt."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


class Session:
    """A terminal game at a preset with a fixed card order and scripted answers."""

    def __init__(
        self,
        preset: str,
        cards: str,
        *answers: str,
        boxes: int = 1,
        bankroll: str = "1000.00",
        bet: str | None = None,
    ) -> None:
        self.script = Script(*answers)
        self.output = io.StringIO()
        self.game = TerminalGame(
            Table(find_rules(preset), source=FixedOrder(cards)),
            ask=self.script,
            console=Console(file=self.output, force_terminal=False, width=100),
            boxes=boxes,
            bankroll=Decimal(bankroll),
            bet=Decimal(bet) if bet is not None else None,
        )

    def run(self) -> Decimal:
        return self.game.run()

    @property
    def text(self) -> str:
        return self.output.getvalue()

    @property
    def prompts(self) -> list[str]:
        return self.script.prompts

    @property
    def unanswered(self) -> list[str]:
        return self.script.answers


# -- a full round ---------------------------------------------------------------------------------


def test_full_round_stand_and_win_updates_balance_exactly() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "25", "", "n", "s", "q")
    balance = session.run()
    assert balance == Decimal("1025.00")
    assert session.game.balance == Decimal("1025.00")
    assert session.game.nets == (Decimal("25.00"),)
    assert session.prompts == [
        "bet (Enter = 25.00): ",
        "side bets (e.g. player_pair=5 under_13=5, Enter for none): ",
        "surrender for half your bet back? (y/n): ",
        "your move (19): (h)it  (s)tand  (d)ouble: ",
        "Enter for the next round, q to quit: ",
    ]
    text = session.text
    assert "Balance: 1000.00" in text
    assert "dealer  7♠ 10♣   17" in text
    assert "+25.00" in text
    assert "balance 1025.00" in text
    assert "Final balance: 1025.00 (+25.00)" in text


def test_blackjack_pays_three_to_two_in_decimal() -> None:
    session = Session("rws-v5", "AH 7S KD", "25", "", "q")
    assert session.run() == Decimal("1037.50")
    assert "blackjack" in session.text
    assert "+37.50" in session.text


def test_enter_repeats_the_last_bet_and_rounds_follow_each_other() -> None:
    cards = "10H 7S 9D 10C " + "10H 7S 6D 10C"
    session = Session("rws-v5", cards, "30", "", "n", "s", "", "", "", "n", "s", "q")
    assert session.run() == Decimal("1000.00")  # +30.00, then -30.00
    assert session.prompts[5] == "bet (Enter = 30.00): "
    assert session.game.nets == (Decimal("30.00"), Decimal("-30.00"))
    assert "round 2" in session.text


def test_first_bet_default_comes_from_bet_option() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "", "", "n", "s", "q", bet="50")
    assert session.run() == Decimal("1050.00")
    assert session.prompts[0] == "bet (Enter = 50.00): "


def test_hand_totals_show_soft_and_bust() -> None:
    session = Session("rws-v5", "AH 7S 6D 9C 10C", "25", "", "n", "h", "q")
    session.run()
    assert "A♥ 6♦   soft 17" in session.text
    assert "your move (soft 17): " in session.prompts[3]
    assert "25 bust" not in session.text  # A 6 9 is a hard 16, not a bust
    assert "A♥ 6♦ 9♣   16" in session.text


# -- bets -----------------------------------------------------------------------------------------


def test_refused_bet_gets_a_message_and_is_asked_again() -> None:
    session = Session(
        "rws-v5", "10H 7S 9D 10C", "abc", "10", "6000", "25.005", "25", "", "n", "s", "q"
    )
    assert session.run() == Decimal("1025.00")
    assert session.prompts[:5] == ["bet (Enter = 25.00): "] * 5
    text = session.text
    assert "Main bet 'abc' is not a number" in text
    assert "The table minimum is 25.00 a box." in text
    assert "over the table maximum 5000.00" in text
    assert "finer than the currency unit" in text


def test_bet_over_the_balance_is_refused() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "200", "q", bankroll="100.00")
    assert session.run() == Decimal("100.00")
    assert "Not enough money: you have 100.00 left to bet." in session.text


def test_side_bet_is_settled_and_a_bad_one_asked_again() -> None:
    cards = "8H 5S 8D 10S 10D"
    answers = ("25", "foo=5", "player_pair", "player_pair=5", "n", "s", "q")
    session = Session("rws-v5", cards, *answers)
    # Player Pair 11 to 1 on 5.00, and the 16 wins against a dealer bust.
    assert session.run() == Decimal("1080.00")
    text = session.text
    assert "side bet 'foo' is not offered at rws-v5" in text
    assert "Write each side bet as name=amount" in text
    assert "side bet player_pair 5.00: pair +55.00" in text


def test_quit_at_the_bet_prompt_keeps_the_bankroll() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "q")
    assert session.run() == Decimal("1000.00")
    assert "Final balance: 1000.00 (+0.00)" in session.text


def test_several_boxes_and_no_bet_on_one() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "0", "0", "25", "", "0", "n", "s", "q", boxes=2)
    assert session.run() == Decimal("1025.00")
    assert session.prompts[0] == "box 1 bet (Enter = 25.00, 0 = no bet): "
    assert "Place a bet on at least one box." in session.text
    assert "box 1: surrender for half your bet back? (y/n): " in session.prompts


def test_two_boxes_are_played_in_turn() -> None:
    cards = "10H 9C 7S 9D 9H 10C"
    answers = ("25", "", "25", "", "n", "n", "s", "s", "q")
    session = Session("rws-v5", cards, *answers, boxes=2)
    assert session.run() == Decimal("1050.00")
    assert "box 1 (19): (h)it  (s)tand  (d)ouble: " in session.prompts
    assert "box 2 (18): (h)it  (s)tand  (d)ouble  s(p)lit: " in session.prompts


def test_boxes_out_of_range_are_refused() -> None:
    with pytest.raises(CroupierError, match="boxes must be from 1 to 3 at online-8deck"):
        TerminalGame(
            Table(find_rules("online-8deck"), seed=1),
            ask=Script(),
            console=Console(file=io.StringIO()),
            boxes=4,
        )


# -- decisions ------------------------------------------------------------------------------------


def test_unknown_key_is_refused_and_asked_again() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "25", "", "n", "x", "", "s", "q")
    assert session.run() == Decimal("1025.00")
    assert "'x' is not a key here: choose one of h, s, d." in session.text
    assert "Choose one of h, s, d." in session.text
    assert session.prompts.count("your move (19): (h)it  (s)tand  (d)ouble: ") == 3


def test_bad_yes_no_answer_is_asked_again() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "25", "", "maybe", "n", "s", "q")
    assert session.run() == Decimal("1025.00")
    assert "Please answer y or n." in session.text


def test_split_offered_only_for_a_pair() -> None:
    cards = "8H 5S 8D 10C 9C 10S 10D"
    answers = ("25", "", "n", "p", "s", "s", "q")
    session = Session("rws-v5", cards, *answers)
    assert session.run() == Decimal("1050.00")  # two hands of 25.00, dealer busts
    assert session.prompts[3] == "your move (16): (h)it  (s)tand  (d)ouble  s(p)lit: "
    assert "hand 1 (18): (h)it  (s)tand  (d)ouble: " in session.prompts
    assert "hand 2 (17): (h)it  (s)tand  (d)ouble: " in session.prompts


def test_split_refused_without_a_pair_with_the_engine_reason_in_the_players_words() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "25", "", "n", "p", "s", "q")
    assert session.run() == Decimal("1025.00")
    assert "s(p)lit" not in session.prompts[3]
    # The cards as the table shows them, and no phase.
    assert "You can't split: box 1 hand 1 holds 10♥ 9♦, not a pair" in session.text
    assert "phase" not in session.text


def test_double_offered_only_on_the_first_two_cards() -> None:
    # RWS v5: a hand under 12 must draw, so 7 and then 9 may not stand.
    cards = "4H 7S 3D 2C 10C 10S"
    session = Session("rws-v5", cards, "25", "", "n", "h", "d", "h", "s", "q")
    assert session.run() == Decimal("1025.00")  # 19 against the dealer's 17
    assert session.prompts[3] == "your move (7): (h)it  (d)ouble: "
    assert session.prompts[4] == "your move (9): (h)it: "
    assert session.prompts[6] == "your move (19): (h)it  (s)tand: "
    assert "You can't double: box 1 hand 1 has 3 cards" in session.text


def test_double_on_nine_to_eleven_only_at_casino_to_go() -> None:
    # Casino-To-Go: a hole card that stays down, doubles on 9, 10 or 11 only.
    cards = "10H 7S 6D 9C 10C 5H"
    session = Session("casino-to-go", cards, "10", "d", "s", "q")
    session.run()
    assert session.prompts[1] == "your move (16): (h)it  (s)tand  su(r)render: "
    assert "only 9, 10 or 11 may double" in session.text
    assert "dealer  7♠ ??   7" in session.text


def test_double_for_less_asks_the_amount() -> None:
    cards = "6H 5S 5D 10C 10S 10D"
    session = Session("rws-v5", cards, "25", "", "n", "d", "30", "10", "q")
    # 11 doubled for 10.00 takes a ten: 21 against a dealer bust, 35.00 won.
    assert session.run() == Decimal("1035.00")
    assert session.prompts[4] == "double amount (Enter = 25.00): "
    assert "more than the initial bet 25.00" in session.text


def test_double_for_the_full_bet_with_enter() -> None:
    cards = "6H 5S 5D 10C 10S 10D"
    session = Session("rws-v5", cards, "25", "", "n", "d", "", "q")
    assert session.run() == Decimal("1050.00")
    assert "doubled" in session.text


def test_double_not_offered_when_the_balance_cannot_cover_it() -> None:
    cards = "6H 9S 5D 10C 7D"
    session = Session("live", cards, "25", "", "d", "s", "q", bankroll="30.00")
    session.run()
    assert session.prompts[2] == "your move (11): (h)it  (s)tand: "
    assert "Not enough money to double: you have 5.00 left to stake" in session.text


def test_late_surrender_at_the_online_table() -> None:
    cards = "10H 9S 6D 8C"
    session = Session("online-8deck", cards, "10", "r", "q")
    assert session.run() == Decimal("995.00")
    assert session.prompts[1] == "your move (16): (h)it  (s)tand  (d)ouble  su(r)render: "


# -- offers ---------------------------------------------------------------------------------------


def test_rws_surrender_offer_returns_half_the_bet() -> None:
    session = Session("rws-v5", "10H 9S 6D", "25", "", "y", "q")
    assert session.run() == Decimal("987.50")
    assert "surrender" in session.text


def test_insurance_for_less_against_a_dealer_blackjack() -> None:
    cards = "10H AS 9D KC"
    session = Session("rws-v5", cards, "25", "", "y", "20", "5", "s", "q")
    # Insurance 5.00 wins 10.00; the dealer's blackjack takes the 25.00 bet.
    assert session.run() == Decimal("985.00")
    assert session.prompts[2] == "insurance for up to 12.50? (y/n): "
    assert session.prompts[3] == "insurance amount (Enter = 12.50): "
    assert "more than half the initial bet" in session.text
    assert "insurance 5.00" in session.text


def test_insurance_declined() -> None:
    session = Session("rws-v5", "10H AS 9D 8C", "25", "", "n", "s", "q")
    assert session.run() == Decimal("1000.00")  # 19 against the dealer's soft 19
    assert "stand off" in session.text


def test_even_money_for_a_blackjack_against_an_ace() -> None:
    session = Session("rws-v5", "AH AS KD", "25", "", "y", "q")
    assert session.run() == Decimal("1025.00")
    assert session.prompts[2] == "even money for your blackjack? (y/n): "


def test_exact_insurance_at_the_live_table() -> None:
    # Live: the hole card stays down; insurance is exactly half the bet.
    cards = "10H AS 9D 5C 10C 10S"
    session = Session("live", cards, "10", "", "y", "s", "q")
    # Insurance 5.00 is lost; 19 wins 10.00 against A 5 10 10, a bust.
    assert session.run() == Decimal("1005.00")
    assert session.prompts[2] == "insurance for 5.00? (y/n): "
    assert "dealer  A♠ ??   soft 11" in session.text
    assert "dealer  A♠ 5♣ 10♣ 10♠   26 bust" in session.text


# -- the end of a round, quitting -----------------------------------------------------------------


def test_void_round_shows_its_reason_and_returns_the_bets() -> None:
    session = Session("rws-v5", "10H 7S", "25", "", "q")
    assert session.run() == Decimal("1000.00")
    assert session.game.round is not None
    assert session.game.round.phase is Phase.VOID
    text = session.text
    assert "Round void: the shoe has no card left to complete the round" in text
    assert "Every bet of the round was returned." in text


def test_end_of_input_quits_cleanly_with_the_balance() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "25", "", "n", "s")
    assert session.run() == Decimal("1025.00")
    assert session.prompts[-1] == "Enter for the next round, q to quit: "
    assert "Final balance: 1025.00 (+25.00)" in session.text


def test_quit_in_the_middle_of_a_round_plays_the_hand_out() -> None:
    session = Session("rws-v5", "10H 7S 6D 10C", "25", "", "n", "q")
    # The 16 stands (12 or more) and loses to the dealer's 17.
    assert session.run() == Decimal("975.00")
    assert "You leave with bets in play" in session.text
    assert "Final balance: 975.00 (-25.00)" in session.text


def test_game_over_when_the_balance_cannot_cover_the_minimum() -> None:
    session = Session("rws-v5", "10H 7S 6D 10C", "25", "", "n", "s", bankroll="30.00")
    assert session.run() == Decimal("5.00")
    assert "can't cover the table minimum 25.00" in session.text
    assert "Enter for the next round, q to quit: " not in session.prompts


def test_keyboard_interrupt_quits_cleanly() -> None:
    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    game = TerminalGame(
        Table(find_rules("rws-v5"), seed=1),
        ask=interrupted,
        console=Console(file=io.StringIO()),
    )
    assert game.run() == Decimal("1000.00")


# -- rendering ------------------------------------------------------------------------------------


def test_red_suits_are_red() -> None:
    assert str(card_text(parse_card("QD")).style) == "bold red"
    assert str(card_text(parse_card("QS")).style) == "bold"


def test_totals_and_signs() -> None:
    assert total_text(parse_cards("AS 6D")) == "soft 17"
    assert total_text(parse_cards("10S 7D")) == "17"
    assert signed(Decimal("-12.50")) == "-12.50"


# -- the command ----------------------------------------------------------------------------------


def test_command_plays_a_seeded_round_to_settlement() -> None:
    # Seed 5 at rws-v5: A♦ K♥ against the dealer's 7♦, a blackjack paid at once.
    result = CliRunner().invoke(play, ["--seed", "5"], input="25\n\nq\n")
    assert result.exit_code == 0, result.output
    assert "A♦ K♥   blackjack" in result.output
    assert "balance 1037.50" in result.output
    assert "Final balance: 1037.50 (+37.50)" in result.output


def test_command_stand_and_lose_with_a_seed() -> None:
    # Seed 2 at rws-v5: 10♠ 9♥ against Q♦; the dealer draws 10♥ for 20.
    result = CliRunner().invoke(play, ["--seed", "2", "--bankroll", "500"], input="25\n\nn\ns\nq\n")
    assert result.exit_code == 0, result.output
    assert "10♠ 9♥   19" in result.output
    assert "dealer  Q♦ 10♥   20" in result.output
    assert "Final balance: 475.00 (-25.00)" in result.output


def test_command_same_seed_same_game() -> None:
    runs = [CliRunner().invoke(play, ["--seed", "9"], input="25\n\nn\ns\nq\n") for _ in range(2)]
    assert runs[0].output == runs[1].output


def test_command_q_quits_with_the_balance() -> None:
    result = CliRunner().invoke(play, ["--seed", "1", "--bankroll", "250.50"], input="q\n")
    assert result.exit_code == 0
    assert "Final balance: 250.50 (+0.00)" in result.output


def test_command_end_of_input_quits_cleanly() -> None:
    result = CliRunner().invoke(play, ["--seed", "2"], input="25\n\nn\n")
    assert result.exit_code == 0
    assert result.exception is None
    assert "Traceback" not in result.output
    assert "Final balance: 975.00" in result.output


def test_command_without_a_seed_uses_a_fresh_shuffle() -> None:
    result = CliRunner().invoke(play, [], input="")
    assert result.exit_code == 0
    assert "Final balance: 1000.00" in result.output


@pytest.mark.parametrize("boxes", ["0", "8"])
def test_command_boxes_out_of_range_exits_2(boxes: str) -> None:
    result = CliRunner().invoke(play, ["--boxes", boxes])
    assert result.exit_code == 2
    assert f"{boxes} is not from 1 to 7: rws-v5 has 7 boxes" in result.stderr


def test_command_boxes_follow_the_preset() -> None:
    result = CliRunner().invoke(play, ["--rules", "online-8deck", "--boxes", "4"])
    assert result.exit_code == 2
    assert "online-8deck has 3 boxes" in result.stderr


def test_command_unknown_rules_exit_2_listing_the_presets() -> None:
    result = CliRunner().invoke(play, ["--rules", "vegas"])
    assert result.exit_code == 2
    assert "Invalid value for '--rules': 'vegas' is not one of" in result.stderr
    for name in PRESETS:
        assert name in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--bankroll", "abc", "bankroll 'abc' is not a number"),
        ("--bankroll", "-5", "must be more than zero"),
        ("--bet", "3", "3.00 is not from 25.00 to 5000.00"),
    ],
)
def test_command_bad_amounts_exit_2(option: str, value: str, message: str) -> None:
    result = CliRunner().invoke(play, [option, value])
    assert result.exit_code == 2
    assert message in result.stderr


# -- speaking to the player -----------------------------------------------------------------------


def test_a_bet_over_the_maximum_is_refused_in_the_players_words() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "99999", "25", "", "n", "s", "q")
    assert session.run() == Decimal("1025.00")
    assert (
        "You can't place that bet: your bet of 99999.00 on box 1 is over the table maximum "
        "5000.00." in session.text
    )
    assert "you's" not in session.text


def test_at_a_hole_card_first_table_the_dealers_cards_stay_in_place() -> None:
    """Online rulebook: the dealer's first card is dealt face down, so the turned hole
    card shows where the ?? was, before the up card."""
    session = Session("online-8deck", "10H 9S 9D 7C 10S", "25", "s", "q")
    session.run()
    dealer = [line for line in session.text.splitlines() if line.startswith("dealer")]
    assert dealer[0].startswith("dealer  ?? 7♣")
    assert dealer[-1].startswith("dealer  9♠ 7♣ 10♠")


def test_results_are_listed_in_box_order() -> None:
    """Box by box, the hand before its side bet, though the side bet settles first."""
    cards = "10H 9S 7S 9D 8C 10C"
    answers = ("25", "under_13=5", "25", "", "n", "n", "s", "s", "q")
    session = Session("rws-v5", cards, *answers, boxes=2)
    assert session.run() == Decimal("1020.00")
    results = [line.strip() for line in session.text.splitlines() if line.startswith("  box")]
    assert [line.split("  ")[0] for line in results] == [
        "box 1 hand 1",
        "box 1 side bet under_13",
        "box 2 hand 1",
    ]
    assert results[2].endswith("stand off         +0.00")


def test_question_mark_gives_the_charts_play() -> None:
    session = Session("rws-v5", "10H 7S 9D 10C", "25", "", "n", "?", "s", "q")
    assert session.run() == Decimal("1025.00")
    # 19 against a 7: every basic strategy chart stands.
    assert "The chart says: (s)tand." in session.text
