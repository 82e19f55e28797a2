"""Tests for croupier.describe: each preset's rules in plain words, as players read them.

Each test is named after the rulebook and clause whose rule the sentence states
(``rws_v4``, ``rws_v5``, ``online``, ``casino_to_go``, ``live``); the preset files cite
the clause beside each rule.  Rulebooks without numbered clauses are cited by heading.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from fractions import Fraction

import pytest

from croupier.describe import SIDE_BET_NAMES, describe_rules, ratio_text
from croupier.money import PayoutRounding
from croupier.presets import PRESET_NAMES, find_rules
from croupier.rules import Rules, SideBet


def sentences(name: str, **changes: object) -> list[str]:
    rules = find_rules(name)
    return describe_rules(rules.replace(**changes) if changes else rules)


# --- Every preset -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_sentence_is_short_plain_text_ending_with_a_full_stop(name: str) -> None:
    described = sentences(name)
    assert described and len(set(described)) == len(described)
    for sentence in described:
        assert sentence[0].isupper() or sentence[0].isdigit(), sentence
        assert sentence.endswith(".") and len(sentence) <= 160, sentence
        assert "None" not in sentence and "Fraction" not in sentence, sentence


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_names_its_shoe_dealer_payouts_limits_and_rounding(name: str) -> None:
    rules = find_rules(name)
    text = " ".join(describe_rules(rules))
    assert f"{rules.decks} decks" in text
    assert f"Blackjack pays {ratio_text(rules.blackjack_pays)}" in text
    assert f"Bets from {rules.minimum_bet} to {rules.maximum_bet} a box." in text
    assert f"units of {rules.currency_unit}, rounded {rules.payout_rounding.value}" in text


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_ends_with_its_interruption_rule_citing_its_clause(name: str) -> None:
    rules = find_rules(name)
    described = sentences(name)
    tail = described[-2:] if rules.dealing_error_return else described[-1:]
    assert tail[0].startswith(("A technical interruption", "A malfunction"))
    assert tail[0].endswith(f"({rules.cite_interruption}).")
    assert described[-len(tail) - 1].startswith("Payouts are paid in units of")


def test_describing_is_deterministic_and_changes_nothing() -> None:
    rules = find_rules("live")
    before = dataclasses.asdict(rules)
    assert describe_rules(rules) == describe_rules(rules)
    assert dataclasses.asdict(rules) == before


# --- RWS Version 4 ------------------------------------------------------------------------------


def test_rws_v4_3_6_no_hole_card() -> None:
    """RWS v4 3.6: the dealer deals himself one card face up and no second card."""
    assert (
        "The dealer takes no hole card: his second card is dealt after the players have played."
        in sentences("rws-v4")
    )


def test_rws_v4_2_1_1_b_ii_and_3_18_dealer_stands_on_all_17s() -> None:
    """RWS v4 2.1.1 b ii, 3.18: "Dealer must stand on 17 and must draw to 16"."""
    assert "The dealer stands on all 17s." in sentences("rws-v4")


def test_rws_v4_3_3_side_bet_rides_on_the_players_own_initial_bet() -> None:
    """RWS v4 3.3: "All Players must place an initial bet ... Thereafter ... the Player may
    choose to place a wager on Player Pair and/or Under/Over 13"."""
    assert (
        "A side bet is at most 500.00 a player on a box, and needs that player's own initial "
        "bet on the box." in sentences("rws-v4")
    )


def test_rws_v4_3_17_must_draw_to_12() -> None:
    """RWS v4 3.17: a hand of less than 12, not doubled, "shall be required to draw"."""
    assert "A hand under 12 must draw, unless it has doubled." in sentences("rws-v4")


def test_rws_v4_3_8_1_even_money_for_a_blackjack() -> None:
    """RWS v4 3.8.1: a blackjack may ask for even money; it is not insured (silent)."""
    assert (
        "A blackjack against an Ace cannot be insured, but may take even money: paid 1 to 1 "
        "at once." in sentences("rws-v4")
    )


def test_rws_v4_silent_interruption_voids_unless_an_outcome_as_rws_v5_5_4() -> None:
    """RWS v4 is silent on interruptions; chosen as RWS v5 5.4, cited as such."""
    described = sentences("rws-v4")
    assert (
        "A technical interruption voids the round unless a bet has already won or lost; then the "
        "round is played to its end (RWS v4 silent; as RWS v5 5.4.2)." in described
    )


def test_rws_v4_5_1_2_no_player_takes_his_bet_back_after_a_dealing_error() -> None:
    """RWS v4 5.1.2 voids a misdeal that cannot be reconstructed; no player alone chooses."""
    assert not any("dealing error" in s for s in sentences("rws-v4"))


# --- RWS Version 5 ------------------------------------------------------------------------------


def test_rws_v5_3_21_3_and_3_22_2_dealer_blackjack_takes_busted_hands_and_initial_bet() -> None:
    """RWS v5 3.21.3, 3.22.2: busted hands lose every bet; from the others a dealer blackjack
    takes "an amount equal to the Player's Initial Bet"."""
    assert (
        "A dealer blackjack takes busted hands in full, and from the hands still standing only "
        "the initial bet; the rest is returned." in sentences("rws-v5")
    )


def test_rws_v5_3_14_2_insurance_pays_2_to_1_up_to_half_the_initial_bet() -> None:
    """RWS v5 3.14.2: "Insurance Pays 2 to 1"; "half or less than half the Initial Bet"."""
    assert (
        "Insurance pays 2 to 1: offered when the dealer's up card is an Ace, for up to half the "
        "initial bet." in sentences("rws-v5")
    )


def test_rws_v5_3_22_double_any_two_for_less_split_hands_but_not_aces_or_soft_21() -> None:
    """RWS v5 3.22: double the first two cards for "an additional Bet equal to or less than
    his Initial Bet", or a Split Hand's "except for a pair of Aces", never a Soft 21."""
    described = sentences("rws-v5")
    assert "Double on any first two cards, for any amount up to the initial bet." in described
    assert "Split hands may be doubled, except split Aces and a two-card 21." in described


def test_rws_v5_3_21_and_3_21_2_split_by_value_to_four_hands_aces_once() -> None:
    """RWS v5 3.21: "Any initial two cards of identical value can be Split"; 3.21.2: "No Hand
    can be Split more than thrice into more than four Hands", Aces once, one card each."""
    described = sentences("rws-v5")
    assert (
        "Split to 4 hands; a pair is two cards of the same value (a ten and a King make one)."
        in described
    )
    assert "Split Aces take one card each and cannot be split again." in described


def test_rws_v5_3_16_surrender_not_against_an_ace() -> None:
    """RWS v5 3.16: "If the Dealer's first card is not an Ace, a Player may Surrender his Hand
    by giving up half of his Initial Bet"."""
    (surrender,) = [s for s in sentences("rws-v5") if s.startswith("Surrender")]
    assert "half the initial bet" in surrender and "not against a dealer Ace" in surrender


def test_rws_v5_3_9_side_bet_on_any_box_with_an_initial_bet() -> None:
    """RWS v5 3.9: "Once a Player has placed an Initial Bet on a betting box, any Player may
    choose to place a Bet on Player Pair and/or Under 13 and/or Over 13 of that betting box"."""
    described = sentences("rws-v5")
    assert (
        "Side bets: Player Pair (pays 11 to 1), Under 13 (pays 1 to 1) and Over 13 "
        "(pays 1 to 1)." in described
    )
    assert (
        "A side bet is at most 500.00 a player on a box, and needs an initial bet on the box by "
        "any player." in described
    )


def test_rws_v5_3_13_2_under_and_over_13_held_to_the_initial_bet_13_loses_both() -> None:
    """RWS v5 3.13.2: Under/Over 13 bets "shall not exceed the Initial Bet"; 13 loses both."""
    assert (
        "Under 13 and Over 13 are at most the box's initial bet; a total of exactly 13 loses "
        "both." in sentences("rws-v5")
    )


def test_rws_v5_3_4_and_3_5_table_limits() -> None:
    """RWS v5 3.4, 3.5: the limits displayed at the table (the preset's 25.00 and 5000.00)."""
    assert "Bets from 25.00 to 5000.00 a box." in sentences("rws-v5")


def test_rws_v5_5_4_technical_interruption_voids_unless_an_outcome_is_established() -> None:
    """RWS v5 5.4: play continues if "any of the available Bets has conclusively won or lost",
    else the Round of play is Voided."""
    assert (
        "A technical interruption voids the round unless a bet has already won or lost; then the "
        "round is played to its end (RWS v5 5.4.2)." in sentences("rws-v5")
    )


def test_rws_v5_5_7_3_dealing_error_bet_returned_and_hand_invalidated() -> None:
    """RWS v5 5.7.3: a player may "have their Bet returned and the Hand invalidated"."""
    assert sentences("rws-v5")[-1] == (
        "After a dealing error a player may have his bets returned and his hand invalidated "
        "(RWS v5 5.7.3)."
    )


# --- Online 8-deck table ------------------------------------------------------------------------


def test_online_blackjack_rules_8_decks_shuffled_every_round() -> None:
    """Online, BLACKJACK RULES / ABOUT BLACKJACK: "8 regular decks", "shuffled by the dealer
    (operator) after every hand"."""
    assert sentences("online-8deck")[0] == "8 decks, shuffled before every round."


def test_online_hole_card_game_with_a_peek() -> None:
    """Online, BLACKJACK RULES / ABOUT BLACKJACK: "This is a hole card game"; on an Ace or
    10-valued up card the dealer "must look at their face down card"."""
    described = sentences("online-8deck")
    assert (
        "The dealer takes a hole card and checks it for blackjack when his up card is an Ace or "
        "a ten: a dealer blackjack ends the round at once." in described
    )
    assert (
        "The dealer's hole card is dealt in the first pass, his up card in the second." in described
    )
    # With the peek a dealer blackjack never meets a split or double: nothing to say.
    assert not any(s.startswith("A dealer blackjack takes") for s in described)


def test_online_insurance_exactly_half_and_no_even_money() -> None:
    """Online, Insurance: "A bet of half the amount of the player's opening wager"."""
    described = sentences("online-8deck")
    assert (
        "Insurance pays 2 to 1: offered when the dealer's up card is an Ace, for exactly half "
        "the initial bet." in described
    )
    assert "A blackjack may be insured too; there is no even money." in described


def test_online_splitting_pairs_identical_cards_once_no_resplit_or_hit_aces() -> None:
    """Online, Splitting Pairs: "two identical cards"; BLACKJACK RULES: "Split only once to
    make two hands", "Player cannot hit split aces"."""
    described = sentences("online-8deck")
    assert (
        "Split to 2 hands; a pair is two cards of the same rank (a ten and a King do not make "
        "one)." in described
    )
    assert "Split Aces take one card each." in described


def test_online_late_surrender() -> None:
    """Online, BLACKJACK RULES: "Late surrender is allowed"."""
    (surrender,) = [s for s in sentences("online-8deck") if s.startswith("Surrender")]
    assert "(late surrender)" in surrender and "after the dealer has checked" in surrender


def test_online_no_side_bets() -> None:
    """Online, BLACKJACK RULES: the rules name no side bets."""
    described = sentences("online-8deck")
    assert "No side bets." in described
    assert not any("13" in s for s in described if "side bet" in s.lower())


def test_online_final_line_malfunctions_void_all_plays_and_pays() -> None:
    """Online, the final line: "MALFUNCTIONS VOID ALL PLAYS AND PAYS."."""
    described = sentences("online-8deck")
    assert described[-1] == (
        "A malfunction voids all plays and pays: every bet of the round is returned, wins "
        "already paid included (online rules: malfunctions void all plays and pays)."
    )
    assert not any("dealing error" in s for s in described)


# --- Casino-To-Go -------------------------------------------------------------------------------


def test_casino_to_go_blackjack_dealer_blackjack_takes_only_the_original_wager() -> None:
    """Casino-To-Go, BLACKJACK: "the Player can only lose his original wager; split and double
    down bets are returned to the Player"."""
    described = sentences("casino-to-go")
    assert (
        "The dealer takes a hole card but does not check it for blackjack: it stays face down "
        "until the players have played." in described
    )
    assert (
        "A dealer blackjack takes only the original bet: split and double bets are returned."
        in described
    )


def test_casino_to_go_doubling_down_on_9_10_or_11_for_less() -> None:
    """Casino-To-Go, DOUBLING DOWN: "if they total 9, 10 or 11 you may decide to double-down",
    "an amount up to your original bet"."""
    described = sentences("casino-to-go")
    assert (
        "Double on first two cards totalling 9, 10 or 11 only, for any amount up to the initial "
        "bet." in described
    )
    # A two-card 21 is never 9, 10 or 11: no word of it.
    assert "Split hands may be doubled, except split Aces." in described


def test_casino_to_go_splitting_pairs_twice_for_three_hands() -> None:
    """Casino-To-Go, SPLITTING PAIRS: "split pairs twice (for a total of three hands) on a
    seven player table"; split Aces get one card each."""
    described = sentences("casino-to-go")
    assert any(s.startswith("Split to 3 hands;") for s in described)
    assert "Split Aces take one card each and cannot be split again." in described


def test_casino_to_go_surrender_blackjack_takes_the_whole_wager() -> None:
    """Casino-To-Go, SURRENDER BLACKJACK: against an Ace or ten a Dealer Blackjack collects
    "the Player's entire wager"."""
    assert (
        "Surrender: give up half the initial bet as the hand's first decision, not after a split; "
        "against an Ace or a ten, a dealer blackjack still takes the whole bet."
        in sentences("casino-to-go")
    )


def test_casino_to_go_insurance_up_to_half_blackjack_may_insure() -> None:
    """Casino-To-Go, INSURANCE: "a separate bet, of up to one-half of your original bet"."""
    described = sentences("casino-to-go")
    assert any(s.endswith("for up to half the initial bet.") for s in described)
    assert "A blackjack may be insured too; there is no even money." in described


def test_casino_to_go_silent_interruption_voids_unless_an_outcome_as_rws_v5_5_4() -> None:
    """Casino-To-Go is silent on interruptions; chosen as RWS v5 5.4, cited as such."""
    assert sentences("casino-to-go")[-1] == (
        "A technical interruption voids the round unless a bet has already won or lost; then the "
        "round is played to its end (Casino-To-Go silent; as RWS v5 5.4.2)."
    )


# --- Live ---------------------------------------------------------------------------------------


def test_live_the_house_strategy_stand_on_17_or_more() -> None:
    """Live, The House Strategy: "Hit on a count of 16 or less; Stand on 17 or more"."""
    assert "The dealer stands on all 17s." in sentences("live")


def test_live_the_play_croupier_blackjack_beats_every_bet() -> None:
    """Live, The Play; Splitting Pairs; Payouts: no refund of split or double bets."""
    assert "A dealer blackjack takes every bet, split and doubled bets included." in sentences(
        "live"
    )


def test_live_insurance_half_the_bet_even_with_blackjack() -> None:
    """Live, Insurance: "a sum equal to one half of your original bet"; "You may obtain
    insurance even if you have Blackjack"."""
    described = sentences("live")
    assert any(s.endswith("for exactly half the initial bet.") for s in described)
    assert "A blackjack may be insured too; there is no even money." in described


def test_live_doubling_down_full_bet_not_after_splitting() -> None:
    """Live, Doubling Down: "an additional amount equal to your original bet"; "you aren't
    allowed double down after splitting a pair"."""
    described = sentences("live")
    assert "Double on any first two cards, for an amount equal to the initial bet." in described
    assert "Split hands may not be doubled." in described


def test_live_player_options_no_surrender() -> None:
    """Live, Player Options: splitting pairs, doubling down and insurance; no surrender."""
    assert "No surrender." in sentences("live")


def test_live_side_bets_perfect_pairs_and_21_plus_3_need_a_blackjack_wager() -> None:
    """Live, Perfect Pair Side Bet; 21+3 Side bet: Perfect Pair pays 25 to 1, Suited Trips 100
    to 1; "Players must make a primary Blackjack wager and cannot make a 21+3 wager only"."""
    described = sentences("live")
    assert (
        "Side bets: Perfect Pairs (pays up to 25 to 1) and 21+3 (pays up to 100 to 1)." in described
    )
    assert (
        "A side bet is at most 500.00 a player on a box, and needs that player's own initial "
        "bet on the box." in described
    )
    assert not any("Under 13" in s for s in described)


def test_live_the_house_strategy_mistakes_push_the_hand_malfunction_voids_all() -> None:
    """Live, The House Strategy: "If there are any mistakes between hands, we will push the
    hand."; the interruption rule is silent and chosen as void all plays and pays."""
    assert sentences("live")[-1] == (
        "A malfunction voids all plays and pays: every bet of the round is returned, wins "
        "already paid included (live rules: mistakes push the hand)."
    )


# --- Rules changed from a preset read as they play ----------------------------------------------


def test_a_changed_rule_reads_as_it_plays() -> None:
    described = sentences(
        "rws-v5",
        decks=1,
        dealer_hits_soft_17=True,
        blackjack_pays="6/5",
        insurance=False,
        even_money=False,
        max_split_hands=1,
        surrender="none",
        must_draw_to_12=False,
        player_pair_pays="none",
        under_13_pays="none",
        side_bet_maximum="none",
        payout_rounding="half-even",
    )
    assert (
        described[0]
        == "1 deck, shuffled when the cut card comes out (about 3/4 of the shoe dealt)."
    )
    assert "The dealer hits a soft 17 and stands on hard 17s." in described
    assert "Blackjack pays 6 to 5; any other winning hand pays 1 to 1." in described
    assert "No insurance." in described and "No splitting." in described
    assert not any(s.startswith("Split") or "under 12" in s for s in described)
    assert "Side bets: Over 13 (pays 1 to 1)." in described
    assert any(s.startswith("A side bet has no maximum of its own, and needs") for s in described)
    assert (
        "Payouts are paid in units of 0.01, rounded to the nearest unit, a half to the even unit."
        in described
    )


def test_a_changed_interruption_rule_reads_as_it_plays() -> None:
    described = sentences(
        "rws-v5",
        interruption="void-all-plays-and-pays",
        dealing_error_return=False,
        cite_interruption="house rule 7",
    )
    assert described[-1] == (
        "A malfunction voids all plays and pays: every bet of the round is returned, wins "
        "already paid included (house rule 7)."
    )
    assert not any("dealing error" in s for s in described)
    described = sentences("live", interruption="void-unless-outcome-established")
    assert described[-1].startswith("A technical interruption voids the round unless")
    described = sentences("online-8deck", dealing_error_return=True, cite_dealing_error="7.3")
    assert described[-1].endswith("have his bets returned and his hand invalidated (7.3).")


def test_hole_card_peek_and_resplit_and_hit_split_aces() -> None:
    rules = Rules(
        max_split_hands=4,
        resplit_aces=True,
        hit_split_aces=True,
        double_on_21=False,
        blackjack_paid_immediately=False,
        insurance_with_blackjack=False,
        payout_rounding=PayoutRounding.HALF_UP,
        minimum_bet=Decimal("10"),
        maximum_bet=Decimal("1E+3"),
    )
    described = describe_rules(rules)
    assert "Split Aces may draw more cards and may be split again." in described
    assert "A blackjack is paid when the round is settled." in described
    assert "A blackjack cannot be insured, and there is no even money." in described
    assert "Bets from 10.00 to 1000.00 a box." in described
    assert "Payouts are paid in units of 0.01, rounded to the nearest unit, a half up." in described


def test_side_bet_names_cover_every_side_bet_and_ratios_read_exactly() -> None:
    assert set(SIDE_BET_NAMES) == set(SideBet)
    assert ratio_text(Fraction(25, 2)) == "25 to 2"
