"""The presets: every rule set, every rule cited, each value checked against its rulebook.

The rule tests are named after the rulebook and the clause they check; they check the
preset's values (the engine's behaviour under them is tested elsewhere).  The rulebooks
that do not number their clauses are cited by section heading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType

import pytest

from croupier.errors import CroupierError, RulesError
from croupier.money import PayoutRounding
from croupier.presets import (
    PRESET_NAMES,
    PRESETS,
    SILENT,
    Preset,
    RuleCitation,
    find_preset,
    find_rules,
    load_preset_text,
)
from croupier.rules import (
    DealerBlackjackTakes,
    DoubleOn,
    HoleCard,
    Interruption,
    Rules,
    SideBet,
    SplitMatch,
    Surrender,
    rule_fields,
)

RULEBOOKS = {
    "rws-v4": "000_a29c150467b5bf4a.txt",
    "rws-v5": "001_6130f5c0c88ed314.txt",
    "online-8deck": "002_3da4452be13ecf55.txt",
    "casino-to-go": "003_2831acbadac5637d.txt",
    "live": "004_fc8581d4eecaf77f.txt",
}
#: Every field a preset file sets: all of Rules but its name.
CITED_FIELDS = tuple(field for field in rule_fields() if field != "name")


def cited(preset_name: str, field: str, clause: str) -> object:
    """The value of one rule, after checking that it cites ``clause``."""
    citation = find_preset(preset_name).citation(field)
    assert clause in citation.clause, f"{preset_name} {field} cites {citation.clause!r}"
    return citation.value


def ratios(*values: int) -> tuple[Fraction, ...]:
    return tuple(Fraction(value) for value in values)


#: The fields naming the clause an irregularity's event or error cites.
CITE_FIELDS = tuple(field for field in CITED_FIELDS if field.startswith("cite_"))


def cites(preset_name: str) -> dict[str, str]:
    """The clause each irregularity cites at a preset's table, by field."""
    rules = find_rules(preset_name)
    return {field: getattr(rules, field) for field in CITE_FIELDS}


# --- every preset -------------------------------------------------------------------------


def test_presets_are_the_five_rulebooks_in_order() -> None:
    assert tuple(PRESETS) == PRESET_NAMES == tuple(RULEBOOKS)


def test_presets_cannot_be_changed() -> None:
    assert isinstance(PRESETS, MappingProxyType)
    with pytest.raises(TypeError):
        PRESETS["house"] = PRESETS["live"]  # type: ignore[index]


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_loads_with_its_name_and_rulebook(name: str) -> None:
    preset = PRESETS[name]
    assert isinstance(preset, Preset)
    assert isinstance(preset.rules, Rules)
    assert preset.name == preset.rules.name == name
    assert preset.rulebook == RULEBOOKS[name]
    assert preset.title
    assert preset.version >= 1


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_cites_every_field_in_order(name: str) -> None:
    citations = PRESETS[name].citations
    assert tuple(citation.field for citation in citations) == CITED_FIELDS
    for citation in citations:
        assert isinstance(citation, RuleCitation)
        assert citation.clause.strip()
        assert citation.value == getattr(PRESETS[name].rules, citation.field)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_silent_rule_says_what_was_chosen(name: str) -> None:
    for citation in PRESETS[name].citations:
        if citation.is_silent:
            assert len(citation.note) > 20, f"{name} {citation.field}: silent without a note"


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_clauses_are_numbers_or_headings_as_the_rulebook_writes_them(name: str) -> None:
    numbered = name.startswith("rws")
    for citation in PRESETS[name].citations:
        if citation.is_silent:
            continue
        starts_with_number = re.match(r"\d+(\.\d+)*", citation.clause) is not None
        if numbered:
            assert starts_with_number, f"{name} {citation.field}: {citation.clause!r}"
        elif citation.field != "twenty_one_plus_three_pays":  # heading "21+3 Side bet"
            assert not starts_with_number, f"{name} {citation.field}: {citation.clause!r}"


#: The rulebook texts, the specification, kept in the repository.
RULEBOOK_FOLDER = Path(__file__).resolve().parents[1] / "docs" / "rulebooks"
#: Words the text extraction damaged, as the rulebooks' README reads them ("l1to1l" is 1 to 1).
EXTRACTION_REPAIRS = {"l1to1l": "1 to 1", "1to1l": "1 to 1", "ltol": "1 to 1"}


def comparable(text: str) -> str:
    words = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
    return " ".join(EXTRACTION_REPAIRS.get(word, word) for word in words).replace(" ", "")


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_quote_in_a_note_is_in_the_rulebook(name: str) -> None:
    path = RULEBOOK_FOLDER / PRESETS[name].rulebook
    rulebook = comparable(path.read_text(encoding="utf-8"))
    for citation in PRESETS[name].citations:
        for quote in re.findall(r'"([^"]+)"', citation.note):
            for part in quote.split("..."):
                assert comparable(part) in rulebook, f"{name} {citation.field}: {part!r}"


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_preset_json_names_every_rule(name: str) -> None:
    data = PRESETS[name].to_json()
    assert data["rules"] == PRESETS[name].rules.to_json()
    citations = data["citations"]
    assert isinstance(citations, dict)
    assert tuple(citations) == CITED_FIELDS
    json.dumps(data)


#: How each preset's citations begin: the rulebook, named so a player can find it.
CITE_PREFIXES = {
    "rws-v4": "RWS v4 ",
    "rws-v5": "RWS v5 ",
    "online-8deck": "online rules",
    "casino-to-go": "Casino-To-Go ",
    "live": "live rules",
}


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_cite_is_short_and_names_its_rulebook(name: str) -> None:
    for field, cite in cites(name).items():
        assert cite.startswith(CITE_PREFIXES[name]), f"{name} {field}: {cite!r}"
        assert len(cite) <= 60 and cite == cite.strip(), f"{name} {field}: {cite!r}"


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_is_at_version_3_with_its_rule_on_bets_behind(name: str) -> None:
    """Version 2 added the interruption policy, the dealing-error option and the
    citations; version 3 bets behind only where the rulebook has standing players (RWS
    v5 1.26), the box maximum taking or rejecting a bet whole (RWS v5 5.1) and the
    Casino-To-Go split limit by the number of boxes."""
    assert PRESETS[name].version == 3
    assert PRESETS[name].rules.bets_behind is (name == "rws-v5")


@pytest.mark.parametrize("field", ["cite_void", "cite_no_more_bets", "cite_interruption"])
@pytest.mark.parametrize("blank", ["", "   "])
def test_an_empty_citation_is_refused_naming_the_field(field: str, blank: str) -> None:
    with pytest.raises(RulesError, match=rf"^{field} must name the clause the table cites$"):
        Rules(**{field: blank})  # type: ignore[arg-type]
    with pytest.raises(RulesError, match=rf"^{field} must name the clause"):
        find_rules("rws-v5").replace(**{field: blank})


@pytest.mark.parametrize("name", ["rws-v5", "RWS-V5", "  Rws-V5 "])
def test_find_preset_ignores_case_and_spaces(name: str) -> None:
    assert find_preset(name) is PRESETS["rws-v5"]
    assert find_rules(name) is PRESETS["rws-v5"].rules


def test_find_preset_unknown_name_lists_the_presets() -> None:
    with pytest.raises(RulesError) as caught:
        find_rules("atlantic-city")
    message = str(caught.value)
    assert "'atlantic-city'" in message
    for name in PRESET_NAMES:
        assert name in message
    assert isinstance(caught.value, CroupierError | ValueError)


def test_citation_of_an_unknown_rule() -> None:
    with pytest.raises(RulesError, match="no rule 'name'"):
        PRESETS["live"].citation("name")


# --- RWS Version 4 (000) -------------------------------------------------------------------


def test_rws_v4_2_2_1_eight_decks_of_four_to_eight() -> None:
    assert cited("rws-v4", "decks", "2.2.1") == 8
    assert "four to eight" in find_preset("rws-v4").citation("decks").note


def test_rws_v4_2_1_1_b_ii_3_18_dealer_stands_on_every_17() -> None:
    assert cited("rws-v4", "dealer_hits_soft_17", "3.18") is False
    assert cited("rws-v4", "dealer_hits_soft_17", "2.1.1 b ii") is False


def test_rws_v4_3_6_dealer_takes_no_hole_card() -> None:
    assert cited("rws-v4", "hole_card", "3.6") is HoleCard.NONE
    assert cited("rws-v4", "hole_card_dealt_first", "3.6") is False


def test_rws_v4_3_8_1_even_money_for_a_blackjack() -> None:
    assert cited("rws-v4", "even_money", "3.8.1") is True
    assert cited("rws-v4", "insurance_with_blackjack", SILENT) is False
    assert "Even Money" in find_preset("rws-v4").citation("insurance_with_blackjack").note


def test_rws_v4_3_8_2_insurance_half_or_less_pays_2_to_1() -> None:
    assert cited("rws-v4", "insurance", "3.8.2") is True
    assert cited("rws-v4", "insurance_for_less", "3.8.2") is True
    assert cited("rws-v4", "insurance_pays", "4.1") == 2


def test_rws_v4_3_9_blackjack_paid_immediately() -> None:
    assert cited("rws-v4", "blackjack_paid_immediately", "3.9") is True


def test_rws_v4_3_10_surrender_unless_dealer_shows_an_ace() -> None:
    assert cited("rws-v4", "surrender", "3.10") is Surrender.RWS


def test_rws_v4_3_13_split_identical_value_to_four_hands() -> None:
    assert cited("rws-v4", "split_match", "3.13") is SplitMatch.VALUE
    assert cited("rws-v4", "max_split_hands", "3.13") == 4


def test_rws_v4_3_13_split_aces_once_one_card_each() -> None:
    assert cited("rws-v4", "resplit_aces", "3.13") is False
    assert cited("rws-v4", "hit_split_aces", "3.13") is False


def test_rws_v4_3_13_3_14_dealer_blackjack_takes_busted_hands_and_the_initial_bet() -> None:
    takes = cited("rws-v4", "dealer_blackjack_takes", "3.13, 3.14")
    assert takes is DealerBlackjackTakes.BUSTED_AND_INITIAL_BET


def test_rws_v4_3_14_double_any_two_for_less_and_after_split() -> None:
    assert cited("rws-v4", "double_on", "3.14") is DoubleOn.ANY_TWO
    assert cited("rws-v4", "double_for_less", "3.14") is True
    assert cited("rws-v4", "double_after_split", "3.14") is True


def test_rws_v4_3_14_no_double_on_soft_21() -> None:
    assert cited("rws-v4", "double_on_21", "3.14") is False


def test_rws_v4_3_17_must_draw_to_12() -> None:
    assert cited("rws-v4", "must_draw_to_12", "3.17") is True


def test_rws_v4_4_1_pay_table() -> None:
    assert cited("rws-v4", "blackjack_pays", "4.1") == Fraction(3, 2)
    assert cited("rws-v4", "win_pays", "4.1") == 1
    assert cited("rws-v4", "player_pair_pays", "4.1") == 11
    assert cited("rws-v4", "under_13_pays", "4.1") == 1
    assert cited("rws-v4", "over_13_pays", "4.1") == 1


def test_rws_v4_3_3_side_bets_player_pair_and_under_over_13() -> None:
    assert find_rules("rws-v4").side_bets_offered() == (
        SideBet.PLAYER_PAIR,
        SideBet.UNDER_13,
        SideBet.OVER_13,
    )
    assert cited("rws-v4", "perfect_pairs_pays", "3.3") is None


def test_rws_v4_3_7_2_d_under_over_13_held_to_the_initial_bet_is_noted() -> None:
    assert cited("rws-v4", "side_bet_maximum", SILENT) == Decimal("500.00")
    assert "3.7.2 d" in find_preset("rws-v4").citation("side_bet_maximum").note


def test_rws_v4_silent_table_settings() -> None:
    assert cited("rws-v4", "penetration", SILENT) == Fraction(3, 4)
    assert cited("rws-v4", "shuffle_every_round", SILENT) is False
    assert cited("rws-v4", "boxes", SILENT) == 7
    assert cited("rws-v4", "minimum_bet", SILENT) == Decimal("25.00")
    assert cited("rws-v4", "maximum_bet", SILENT) == Decimal("5000.00")
    assert cited("rws-v4", "currency_unit", SILENT) == Decimal("0.01")
    assert cited("rws-v4", "payout_rounding", SILENT) is PayoutRounding.DOWN


def test_rws_v4_silent_on_interruption_chosen_as_rws_v5_5_4() -> None:
    interruption = cited("rws-v4", "interruption", SILENT)
    assert interruption is Interruption.VOID_UNLESS_OUTCOME
    note = find_preset("rws-v4").citation("interruption").note
    assert "RWS v5 5.4" in note and "5.1.2" in note


def test_rws_v4_5_1_2_misdeal_voids_the_round_no_bet_returned_alone() -> None:
    assert cited("rws-v4", "dealing_error_return", "5.1.2") is False
    assert cited("rws-v4", "cite_dealing_error", "5.1.2") == "RWS v4 5.1.2"


def test_rws_v4_5_1_and_5_1_1_foreign_card_voids_the_round() -> None:
    assert cited("rws-v4", "cite_void", "5.1") == "RWS v4 5.1"
    assert cited("rws-v4", "cite_foreign_card", "5.1.1") == "RWS v4 5.1.1"
    assert "RWS v5 5.17" in find_preset("rws-v4").citation("cite_void").note


def test_rws_v4_5_2_no_more_bets() -> None:
    assert cited("rws-v4", "cite_no_more_bets", "5.2") == "RWS v4 5.2"


def test_rws_v4_silent_irregularities_cite_rws_v5() -> None:
    expected = {
        "cite_interruption": "5.4.2",
        "cite_excess_card": "5.5.2",
        "cite_shoe_exhausted": "5.5.3",
        "cite_absent_player": "5.3",
        "cite_box_maximum": "5.1",
        "cite_box_minimum": "5.2",
        "cite_side_bet_alone": "5.15",
    }
    for field, clause in expected.items():
        assert cited("rws-v4", field, SILENT) == f"RWS v4 silent; as RWS v5 {clause}", field


# --- RWS Version 5 (001) -------------------------------------------------------------------


def test_rws_v5_2_2_1_eight_decks_of_four_to_eight() -> None:
    assert cited("rws-v5", "decks", "2.2.1") == 8


def test_rws_v5_3_4_limits_displayed_at_the_table() -> None:
    assert cited("rws-v5", "minimum_bet", "3.4") == Decimal("25.00")
    assert cited("rws-v5", "maximum_bet", "3.4") == Decimal("5000.00")


def test_rws_v5_3_11_dealer_takes_no_hole_card() -> None:
    assert cited("rws-v5", "hole_card", "3.11") is HoleCard.NONE
    assert cited("rws-v5", "hole_card_dealt_first", "3.11") is False


def test_rws_v5_3_13_side_bets_player_pair_11_to_1_under_over_13_evens() -> None:
    assert cited("rws-v5", "player_pair_pays", "3.13.1") == 11
    assert cited("rws-v5", "under_13_pays", "3.13.2") == 1
    assert cited("rws-v5", "over_13_pays", "3.13.2") == 1
    assert cited("rws-v5", "twenty_one_plus_three_pays", "3.9") is None


def test_rws_v5_3_14_1_even_money_for_a_blackjack() -> None:
    assert cited("rws-v5", "even_money", "3.14.1") is True
    assert cited("rws-v5", "insurance_with_blackjack", SILENT) is False


def test_rws_v5_3_14_2_insurance_half_or_less_pays_2_to_1() -> None:
    assert cited("rws-v5", "insurance", "3.14.2") is True
    assert cited("rws-v5", "insurance_for_less", "3.14.2") is True
    assert cited("rws-v5", "insurance_pays", "4.1.1") == 2


def test_rws_v5_3_15_blackjack_paid_at_interim_settlement() -> None:
    assert cited("rws-v5", "blackjack_paid_immediately", "3.15") is True


def test_rws_v5_3_16_surrender_unless_dealer_shows_an_ace() -> None:
    assert cited("rws-v5", "surrender", "3.16") is Surrender.RWS


def test_rws_v5_3_19_must_draw_to_12() -> None:
    assert cited("rws-v5", "must_draw_to_12", "3.19") is True


def test_rws_v5_3_21_split_identical_value() -> None:
    assert cited("rws-v5", "split_match", "3.21") is SplitMatch.VALUE


def test_rws_v5_3_21_2_split_to_four_hands() -> None:
    assert cited("rws-v5", "max_split_hands", "3.21.2") == 4


def test_rws_v5_3_21_2_split_aces_once_one_card_each() -> None:
    assert cited("rws-v5", "resplit_aces", "3.21.2") is False
    assert cited("rws-v5", "hit_split_aces", "3.21.2") is False


def test_rws_v5_3_21_3_3_22_2_dealer_blackjack_takes_busted_hands_and_the_initial_bet() -> None:
    takes = cited("rws-v5", "dealer_blackjack_takes", "3.21.3, 3.22.2")
    assert takes is DealerBlackjackTakes.BUSTED_AND_INITIAL_BET


def test_rws_v5_3_22_double_any_two_for_less_and_after_split() -> None:
    assert cited("rws-v5", "double_on", "3.22") is DoubleOn.ANY_TWO
    assert cited("rws-v5", "double_for_less", "3.22") is True
    assert cited("rws-v5", "double_after_split", "3.22") is True


def test_rws_v5_3_22_no_double_on_soft_21() -> None:
    assert cited("rws-v5", "double_on_21", "3.22") is False


def test_rws_v5_3_23_dealer_stands_on_every_17() -> None:
    assert cited("rws-v5", "dealer_hits_soft_17", "3.23") is False


def test_rws_v5_4_1_1_pay_table() -> None:
    assert cited("rws-v5", "blackjack_pays", "4.1.1") == Fraction(3, 2)
    assert cited("rws-v5", "win_pays", "4.1.1") == 1


def test_rws_v5_silent_table_settings() -> None:
    assert cited("rws-v5", "penetration", SILENT) == Fraction(3, 4)
    assert cited("rws-v5", "shuffle_every_round", SILENT) is False
    assert cited("rws-v5", "boxes", SILENT) == 7
    assert cited("rws-v5", "side_bet_maximum", SILENT) == Decimal("500.00")
    assert cited("rws-v5", "payout_rounding", SILENT) is PayoutRounding.DOWN


def test_rws_v5_5_4_technical_interruption_voids_unless_an_outcome_is_established() -> None:
    interruption = cited("rws-v5", "interruption", "5.4")
    assert interruption is Interruption.VOID_UNLESS_OUTCOME
    assert cited("rws-v5", "cite_interruption", "5.4.2") == "RWS v5 5.4.2"
    assert "conclusively won or lost" in find_preset("rws-v5").citation("interruption").note


def test_rws_v5_5_7_3_dealing_error_bet_returned_and_hand_invalidated() -> None:
    assert cited("rws-v5", "dealing_error_return", "5.7.3") is True
    assert cited("rws-v5", "cite_dealing_error", "5.7.3") == "RWS v5 5.7.3"


def test_rws_v5_section_5_each_irregularity_cites_its_clause() -> None:
    expected = {
        "cite_interruption": "5.4.2",
        "cite_void": "5.17",
        "cite_foreign_card": "5.5.1",
        "cite_excess_card": "5.5.2",
        "cite_shoe_exhausted": "5.5.3",
        "cite_dealing_error": "5.7.3",
        "cite_absent_player": "5.3",
        "cite_box_maximum": "5.1",
        "cite_box_minimum": "5.2",
        "cite_side_bet_alone": "5.15",
        "cite_no_more_bets": "5.8",
    }
    assert cites("rws-v5") == {field: f"RWS v5 {clause}" for field, clause in expected.items()}
    for field, clause in expected.items():
        assert find_preset("rws-v5").citation(field).clause.startswith(clause), field


def test_rws_v5_citations_are_the_rules_defaults() -> None:
    assert cites("rws-v5") == {field: getattr(Rules(), field) for field in CITE_FIELDS}


# --- online 8-deck table (002) -------------------------------------------------------------


def test_online_played_with_8_decks() -> None:
    assert cited("online-8deck", "decks", "BLACKJACK RULES") == 8


def test_online_shuffled_after_every_hand() -> None:
    assert cited("online-8deck", "shuffle_every_round", "ABOUT BLACKJACK") is True


def test_online_dealer_stands_on_soft_17() -> None:
    assert cited("online-8deck", "dealer_hits_soft_17", "BLACKJACK RULES") is False


def test_online_hole_card_game_with_peek() -> None:
    assert cited("online-8deck", "hole_card", "BLACKJACK RULES") is HoleCard.PEEK


def test_online_hole_card_dealt_in_the_first_pass() -> None:
    assert cited("online-8deck", "hole_card_dealt_first", "ABOUT BLACKJACK") is True


def test_online_player_loses_only_original_bet_to_dealer_blackjack() -> None:
    takes = cited("online-8deck", "dealer_blackjack_takes", "BLACKJACK RULES")
    assert takes is DealerBlackjackTakes.ORIGINAL_BET


def test_online_blackjack_pays_3_to_2_immediately() -> None:
    assert cited("online-8deck", "blackjack_pays", "BLACKJACK RULES") == Fraction(3, 2)
    assert cited("online-8deck", "blackjack_paid_immediately", "ABOUT BLACKJACK") is True
    assert cited("online-8deck", "win_pays", "ABOUT BLACKJACK") == 1


def test_online_insurance_half_the_opening_wager_pays_2_to_1() -> None:
    assert cited("online-8deck", "insurance", "Insurance") is True
    assert cited("online-8deck", "insurance_pays", "Insurance") == 2
    assert cited("online-8deck", "insurance_for_less", "Insurance") is False


def test_online_insurance_with_blackjack_and_no_even_money_are_noted_choices() -> None:
    assert cited("online-8deck", "insurance_with_blackjack", SILENT) is True
    assert cited("online-8deck", "even_money", SILENT) is False


def test_online_double_on_any_two_for_the_original_bet() -> None:
    assert cited("online-8deck", "double_on", "Doubling Down") is DoubleOn.ANY_TWO
    assert cited("online-8deck", "double_for_less", "Doubling Down") is False


def test_online_double_after_split() -> None:
    assert cited("online-8deck", "double_after_split", "BLACKJACK RULES") is True


def test_online_split_identical_cards() -> None:
    assert cited("online-8deck", "split_match", "Splitting Pairs") is SplitMatch.RANK


def test_online_split_only_once() -> None:
    assert cited("online-8deck", "max_split_hands", "BLACKJACK RULES") == 2


def test_online_no_resplit_or_hit_of_split_aces() -> None:
    assert cited("online-8deck", "resplit_aces", "BLACKJACK RULES") is False
    assert cited("online-8deck", "hit_split_aces", "BLACKJACK RULES") is False


def test_online_late_surrender() -> None:
    assert cited("online-8deck", "surrender", "Surrender") is Surrender.LATE


def test_online_no_forced_draw() -> None:
    assert cited("online-8deck", "must_draw_to_12", "ABOUT BLACKJACK") is False


def test_online_no_side_bets() -> None:
    assert find_rules("online-8deck").side_bets_offered() == ()
    assert cited("online-8deck", "side_bet_maximum", "BLACKJACK RULES") is None


def test_online_silent_table_settings() -> None:
    assert cited("online-8deck", "boxes", SILENT) == 3
    assert cited("online-8deck", "penetration", SILENT) == Fraction(1, 2)
    assert cited("online-8deck", "minimum_bet", SILENT) == Decimal("1.00")
    assert cited("online-8deck", "maximum_bet", SILENT) == Decimal("500.00")


MALFUNCTIONS = "online rules: malfunctions void all plays and pays"


def test_online_final_line_malfunctions_void_all_plays_and_pays() -> None:
    interruption = cited("online-8deck", "interruption", "final line")
    assert interruption is Interruption.VOID_ALL
    assert "MALFUNCTIONS VOID ALL PLAYS AND PAYS" in (
        find_preset("online-8deck").citation("interruption").note
    )
    assert cited("online-8deck", "cite_interruption", "final line") == MALFUNCTIONS
    assert cited("online-8deck", "cite_void", "final line") == MALFUNCTIONS


def test_online_about_blackjack_eight_decks_no_jokers_a_stray_card_is_a_malfunction() -> None:
    assert cited("online-8deck", "cite_foreign_card", "ABOUT BLACKJACK") == MALFUNCTIONS
    assert cited("online-8deck", "cite_excess_card", "ABOUT BLACKJACK") == MALFUNCTIONS
    assert cited("online-8deck", "cite_shoe_exhausted", SILENT) == MALFUNCTIONS


def test_online_no_dealing_error_clause_a_misdeal_is_a_malfunction() -> None:
    assert cited("online-8deck", "dealing_error_return", SILENT) is False
    assert cited("online-8deck", "cite_dealing_error", SILENT) == MALFUNCTIONS


def test_online_silent_betting_irregularities_cite_rws_v5() -> None:
    expected = {
        "cite_absent_player": "5.3",
        "cite_box_maximum": "5.1",
        "cite_box_minimum": "5.2",
        "cite_side_bet_alone": "5.15",
        "cite_no_more_bets": "5.8",
    }
    for field, clause in expected.items():
        assert cited("online-8deck", field, SILENT) == f"online rules silent; as RWS v5 {clause}"


# --- Casino-To-Go (003) --------------------------------------------------------------------


def test_casino_to_go_cut_card_a_third_from_bottom() -> None:
    penetration = cited("casino-to-go", "penetration", "Card Shuffling and Cutting")
    assert penetration == Fraction(2, 3)
    assert cited("casino-to-go", "shuffle_every_round", "Dealing") is False


def test_casino_to_go_deck_count_is_a_noted_choice() -> None:
    assert cited("casino-to-go", "decks", SILENT) == 6


def test_casino_to_go_dealer_hits_16_stands_on_17() -> None:
    assert cited("casino-to-go", "dealer_hits_soft_17", "THE BASICS") is False


def test_casino_to_go_hole_card_and_dealer_acts_on_all_hands() -> None:
    assert cited("casino-to-go", "hole_card", "THE BASICS") is HoleCard.NO_PEEK
    assert cited("casino-to-go", "hole_card_dealt_first", SILENT) is False


def test_casino_to_go_dealer_blackjack_takes_only_the_original_wager() -> None:
    takes = cited("casino-to-go", "dealer_blackjack_takes", "BLACKJACK")
    assert takes is DealerBlackjackTakes.ORIGINAL_BET


def test_casino_to_go_blackjack_paid_3_to_2_before_other_hands() -> None:
    assert cited("casino-to-go", "blackjack_pays", "ODDS") == Fraction(3, 2)
    assert cited("casino-to-go", "blackjack_paid_immediately", "BLACKJACK") is True
    assert cited("casino-to-go", "win_pays", "ODDS") == 1


def test_casino_to_go_insurance_up_to_half_pays_2_to_1() -> None:
    assert cited("casino-to-go", "insurance", "INSURANCE") is True
    assert cited("casino-to-go", "insurance_for_less", "INSURANCE") is True
    assert cited("casino-to-go", "insurance_pays", "INSURANCE") == 2


def test_casino_to_go_double_on_9_10_or_11_for_up_to_the_bet() -> None:
    assert cited("casino-to-go", "double_on", "DOUBLING DOWN") is DoubleOn.NINE_TO_ELEVEN
    assert cited("casino-to-go", "double_for_less", "DOUBLING DOWN") is True


def test_casino_to_go_double_down_on_split_hands() -> None:
    assert cited("casino-to-go", "double_after_split", "SPLITTING PAIRS") is True


def test_casino_to_go_split_same_point_value() -> None:
    assert cited("casino-to-go", "split_match", "SPLITTING PAIRS") is SplitMatch.VALUE


def test_casino_to_go_split_to_three_hands_on_a_seven_player_table() -> None:
    assert cited("casino-to-go", "boxes", "SPLITTING PAIRS") == 7
    assert cited("casino-to-go", "max_split_hands", "SPLITTING PAIRS") == 3


def test_casino_to_go_six_player_table_splits_to_four_hands() -> None:
    assert "six-player table" in find_preset("casino-to-go").citation("boxes").note
    citation = find_preset("casino-to-go").citation("max_split_hands")
    assert citation.by_boxes == ((6, 4), (7, 3))
    six_boxes = find_preset("casino-to-go").replace(boxes=6)
    assert (six_boxes.boxes, six_boxes.max_split_hands) == (6, 4)


def test_a_rule_by_boxes_must_agree_with_the_value_and_is_never_on_boxes() -> None:
    rules = entries_of("casino-to-go")
    rules["max_split_hands"]["by_boxes"] = {"6": 4, "7": 2}
    with pytest.raises(RulesError, match=r"^house\.toml: rule max_split_hands: its value 3 "):
        load(header_of("casino-to-go"), rules)
    rules = entries_of("casino-to-go")
    rules["boxes"]["by_boxes"] = {"6": 6}
    with pytest.raises(RulesError, match=r"^house\.toml: rule boxes: by_boxes must be a table"):
        load(header_of("casino-to-go"), rules)
    rules = entries_of("casino-to-go")
    rules["max_split_hands"]["by_boxes"] = {"6": 4, "7": 3, "12": 1}
    with pytest.raises(RulesError, match=r"by_boxes: boxes must be from 1 to 9, not 12"):
        load(header_of("casino-to-go"), rules)


def test_casino_to_go_split_aces_one_card_each() -> None:
    assert cited("casino-to-go", "hit_split_aces", "SPLITTING PAIRS") is False
    assert cited("casino-to-go", "resplit_aces", "SPLITTING PAIRS") is False


def test_casino_to_go_surrender_blackjack_variation() -> None:
    surrender = cited("casino-to-go", "surrender", "SURRENDER BLACKJACK")
    assert surrender is Surrender.CASINO_TO_GO


def test_casino_to_go_no_side_bets() -> None:
    assert find_rules("casino-to-go").side_bets_offered() == ()


def test_casino_to_go_silent_on_interruption_chosen_as_rws_v5_5_4() -> None:
    interruption = cited("casino-to-go", "interruption", SILENT)
    assert interruption is Interruption.VOID_UNLESS_OUTCOME
    assert "RWS v5 5.4" in find_preset("casino-to-go").citation("interruption").note


def test_casino_to_go_silent_on_dealing_errors_no_bet_returned_alone() -> None:
    assert cited("casino-to-go", "dealing_error_return", SILENT) is False
    assert cited("casino-to-go", "cite_dealing_error", SILENT) == (
        "Casino-To-Go silent; as RWS v4 5.1.2"
    )


def test_casino_to_go_card_shuffling_and_cutting_jokers_removed_remedy_silent() -> None:
    assert cited("casino-to-go", "cite_foreign_card", SILENT) == (
        "Casino-To-Go silent; as RWS v5 5.5.1"
    )
    assert (
        "Card Shuffling and Cutting"
        in find_preset("casino-to-go").citation("cite_foreign_card").note
    )


def test_casino_to_go_silent_irregularities_cite_rws_v5() -> None:
    expected = {
        "cite_interruption": "5.4.2",
        "cite_void": "5.17",
        "cite_excess_card": "5.5.2",
        "cite_shoe_exhausted": "5.5.3",
        "cite_absent_player": "5.3",
        "cite_box_maximum": "5.1",
        "cite_box_minimum": "5.2",
        "cite_side_bet_alone": "5.15",
        "cite_no_more_bets": "5.8",
    }
    for field, clause in expected.items():
        assert cited("casino-to-go", field, SILENT) == f"Casino-To-Go silent; as RWS v5 {clause}"


# --- live studio table (004) ---------------------------------------------------------------


def test_live_deck_count_is_a_noted_choice() -> None:
    assert cited("live", "decks", SILENT) == 8
    assert cited("live", "penetration", SILENT) == Fraction(1, 2)


def test_live_house_hits_16_stands_on_17() -> None:
    assert cited("live", "dealer_hits_soft_17", "The House Strategy") is False


def test_live_hidden_card_without_peek() -> None:
    assert cited("live", "hole_card", "The Play") is HoleCard.NO_PEEK


def test_live_hidden_card_dealt_in_the_second_pass() -> None:
    assert cited("live", "hole_card_dealt_first", "The Play") is False


def test_live_croupier_blackjack_beats_every_other_hand_in_full() -> None:
    assert cited("live", "dealer_blackjack_takes", "Payouts") is DealerBlackjackTakes.ALL


def test_live_blackjack_paid_3_to_2_at_the_start_of_the_turn() -> None:
    assert cited("live", "blackjack_pays", "Payouts") == Fraction(3, 2)
    assert cited("live", "blackjack_paid_immediately", "The Play") is True
    assert cited("live", "win_pays", "Payouts") == 1


def test_live_insurance_half_the_bet_even_with_blackjack() -> None:
    assert cited("live", "insurance", "Insurance") is True
    assert cited("live", "insurance_pays", "Insurance") == 2
    assert cited("live", "insurance_for_less", "Insurance") is False
    assert cited("live", "insurance_with_blackjack", "Insurance") is True
    assert cited("live", "even_money", SILENT) is False


def test_live_double_any_two_for_the_original_bet() -> None:
    assert cited("live", "double_on", "Doubling Down") is DoubleOn.ANY_TWO
    assert cited("live", "double_for_less", "Doubling Down") is False


def test_live_no_double_after_split() -> None:
    assert cited("live", "double_after_split", "Doubling Down") is False


def test_live_split_equal_value_into_two_subhands() -> None:
    assert cited("live", "split_match", "Splitting Pairs") is SplitMatch.VALUE
    assert cited("live", "max_split_hands", "Splitting Pairs") == 2


def test_live_split_aces_one_card_no_hit() -> None:
    assert cited("live", "hit_split_aces", "Splitting Pairs") is False
    assert cited("live", "resplit_aces", "Splitting Pairs") is False


def test_live_no_surrender() -> None:
    assert cited("live", "surrender", "Player Options") is Surrender.NONE


def test_live_perfect_pairs_25_12_6() -> None:
    assert cited("live", "perfect_pairs_pays", "Perfect Pair") == ratios(25, 12, 6)


def test_live_21_plus_3_100_40_30_10_5() -> None:
    assert cited("live", "twenty_one_plus_three_pays", "21+3") == ratios(100, 40, 30, 10, 5)


def test_live_side_bets_perfect_pairs_and_21_plus_3_only() -> None:
    assert find_rules("live").side_bets_offered() == (
        SideBet.PERFECT_PAIRS,
        SideBet.TWENTY_ONE_PLUS_THREE,
    )
    assert cited("live", "side_bet_maximum", SILENT) == Decimal("500.00")


def test_live_silent_limits() -> None:
    assert cited("live", "minimum_bet", SILENT) == Decimal("5.00")
    assert cited("live", "maximum_bet", SILENT) == Decimal("2500.00")


PUSH = "live rules: mistakes push the hand"


def test_live_silent_on_interruption_chosen_void_all_plays_and_pays() -> None:
    assert cited("live", "interruption", SILENT) is Interruption.VOID_ALL
    assert cited("live", "cite_interruption", SILENT) == PUSH


def test_live_the_house_strategy_mistakes_push_the_hand() -> None:
    assert cited("live", "cite_void", "The House Strategy") == PUSH
    assert cited("live", "dealing_error_return", "The House Strategy") is False
    assert cited("live", "cite_dealing_error", "The House Strategy") == PUSH
    note = find_preset("live").citation("cite_void").note
    assert "If there are any mistakes between hands, we will push the hand." in note


def test_live_a_stray_card_or_an_empty_shoe_is_a_mistake_that_pushes() -> None:
    for field in ("cite_foreign_card", "cite_excess_card", "cite_shoe_exhausted"):
        assert cited("live", field, SILENT) == PUSH, field


def test_live_silent_betting_irregularities_cite_rws_v5() -> None:
    expected = {
        "cite_absent_player": "5.3",
        "cite_box_maximum": "5.1",
        "cite_box_minimum": "5.2",
        "cite_side_bet_alone": "5.15",
        "cite_no_more_bets": "5.8",
    }
    for field, clause in expected.items():
        assert cited("live", field, SILENT) == f"live rules silent; as RWS v5 {clause}"


# --- reading preset files -------------------------------------------------------------------


@dataclass(frozen=True)
class Verbatim:
    """A TOML value written as is."""

    text: str


def toml_value(value: object) -> str:
    if isinstance(value, Verbatim):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if value is None:
        return '"none"'
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def preset_text(header: Mapping[str, object], rules: Mapping[str, Mapping[str, object]]) -> str:
    lines = ["[preset]", *(f"{key} = {toml_value(value)}" for key, value in header.items())]
    for field, entry in rules.items():
        lines += ["", f"[rules.{field}]"]
        lines += [f"{key} = {toml_value(value)}" for key, value in entry.items()]
    return "\n".join(lines) + "\n"


def header_of(name: str) -> dict[str, object]:
    preset = PRESETS[name]
    return {
        "name": preset.name,
        "title": preset.title,
        "rulebook": preset.rulebook,
        "version": preset.version,
    }


def entries_of(name: str) -> dict[str, dict[str, object]]:
    """A preset's rules as a preset file writes them."""
    preset = PRESETS[name]
    values = preset.rules.to_json()
    entries: dict[str, dict[str, object]] = {}
    for citation in preset.citations:
        entry: dict[str, object] = {"value": values[citation.field], "clause": citation.clause}
        if citation.note:
            entry["note"] = citation.note
        if citation.by_boxes:
            entry["by_boxes"] = {str(boxes): value for boxes, value in citation.by_boxes}
        entries[citation.field] = entry
    return entries


def load(header: Mapping[str, object], rules: Mapping[str, Mapping[str, object]]) -> Preset:
    return load_preset_text(preset_text(header, rules), origin="house.toml")


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_preset_written_out_reads_back_the_same(name: str) -> None:
    assert load(header_of(name), entries_of(name)) == PRESETS[name]


def test_a_rule_missing_is_named() -> None:
    rules = entries_of("live")
    del rules["boxes"], rules["surrender"]
    with pytest.raises(RulesError, match=r"^house\.toml: .*missing: boxes, surrender$"):
        load(header_of("live"), rules)


def test_a_rule_that_is_not_a_field_is_named() -> None:
    rules = entries_of("live") | {"jokers": {"value": 2, "clause": "silent", "note": "two"}}
    with pytest.raises(RulesError, match=r"^house\.toml: rule 'jokers' is not a field of Rules"):
        load(header_of("live"), rules)


def test_the_name_is_not_a_rule() -> None:
    rules = entries_of("live") | {"name": {"value": "other", "clause": "silent", "note": "x"}}
    with pytest.raises(RulesError, match=r"house\.toml: \[rules\.name\] is not allowed"):
        load(header_of("live"), rules)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("decks", "six", "rule decks: 'six' is not an integer"),
        ("decks", 9, "decks must be from 1 to 8, not 9"),
        ("hole_card", "peeking", "rule hole_card: 'peeking' is not one of"),
        ("blackjack_pays", "three to two", "rule blackjack_pays:"),
        ("blackjack_pays", Verbatim("1.5"), "rule blackjack_pays: 1.5 is not a ratio"),
        ("minimum_bet", Verbatim("5.0"), "rule minimum_bet: 5.0 is not an exact amount"),
        ("minimum_bet", "NaN", "rule minimum_bet: 'NaN' is not a finite amount"),
        ("side_bet_maximum", "Infinity", "rule side_bet_maximum: 'Infinity' is not a finite"),
        ("insurance", "sometimes", "rule insurance: 'sometimes' is not true or false"),
        ("perfect_pairs_pays", ["25", "12"], "perfect_pairs_pays needs 3 ratios"),
        ("surrender", "late", "late surrender comes after the dealer's peek"),
    ],
)
def test_a_bad_value_is_named(field: str, value: object, words: str) -> None:
    rules = entries_of("live")
    rules[field] = {**rules[field], "value": value}
    with pytest.raises(RulesError) as caught:
        load(header_of("live"), rules)
    assert str(caught.value).startswith("house.toml: ")
    assert words in str(caught.value)


def test_a_preset_file_with_an_empty_citation_is_named() -> None:
    rules = entries_of("live")
    rules["cite_void"] = {**rules["cite_void"], "value": ""}
    with pytest.raises(RulesError, match=r"^house\.toml: cite_void must name the clause"):
        load(header_of("live"), rules)


def test_an_unknown_interruption_policy_is_named() -> None:
    rules = entries_of("live")
    rules["interruption"] = {**rules["interruption"], "value": "carry-on"}
    with pytest.raises(RulesError, match=r"rule interruption: 'carry-on' is not one of void-"):
        load(header_of("live"), rules)


def test_a_rule_without_a_clause_is_named() -> None:
    rules = entries_of("rws-v5")
    del rules["max_split_hands"]["clause"]
    with pytest.raises(RulesError, match=r"^house\.toml: rule max_split_hands has no clause"):
        load(header_of("rws-v5"), rules)


def test_a_rule_with_an_empty_clause_is_named() -> None:
    rules = entries_of("rws-v5")
    rules["max_split_hands"]["clause"] = "  "
    with pytest.raises(RulesError, match=r"rule max_split_hands has no clause"):
        load(header_of("rws-v5"), rules)


def test_a_rule_without_a_value_is_named() -> None:
    rules = entries_of("rws-v5")
    del rules["decks"]["value"]
    with pytest.raises(RulesError, match=r"^house\.toml: rule decks has no value$"):
        load(header_of("rws-v5"), rules)


def test_a_silent_rule_without_a_note_is_named() -> None:
    rules = entries_of("live")
    del rules["decks"]["note"]
    with pytest.raises(RulesError, match=r"^house\.toml: rule decks: the rulebook is silent"):
        load(header_of("live"), rules)


def test_a_cited_rule_may_go_without_a_note() -> None:
    rules = entries_of("live")
    del rules["double_after_split"]["note"]
    assert load(header_of("live"), rules).citation("double_after_split").note == ""


def test_an_unknown_key_in_a_rule_is_named() -> None:
    rules = entries_of("live")
    rules["decks"]["notes"] = "typo"
    with pytest.raises(RulesError, match=r"rule decks has unknown key\(s\) notes"):
        load(header_of("live"), rules)


def test_a_rule_that_is_not_a_table_is_named() -> None:
    text = "rules = { decks = 8 }\n" + preset_text(header_of("live"), {})
    with pytest.raises(RulesError, match=r"^house\.toml: rule decks must be a table"):
        load_preset_text(text, origin="house.toml")


@pytest.mark.parametrize("key", ["name", "title", "rulebook", "version"])
def test_a_missing_preset_key_is_named(key: str) -> None:
    header = header_of("live")
    del header[key]
    with pytest.raises(RulesError, match=rf"^house\.toml: \[preset\] is missing {key}$"):
        load(header, entries_of("live"))


@pytest.mark.parametrize(
    ("key", "value"),
    [("version", 0), ("version", "1"), ("version", True), ("name", ""), ("title", 3)],
)
def test_a_bad_preset_key_is_named(key: str, value: object) -> None:
    header = header_of("live") | {key: value}
    with pytest.raises(RulesError, match=rf"^house\.toml: \[preset\] {key} must be"):
        load(header, entries_of("live"))


def test_an_unknown_preset_key_is_named() -> None:
    header = header_of("live") | {"author": "someone"}
    with pytest.raises(RulesError, match=r"\[preset\] has unknown key\(s\) author"):
        load(header, entries_of("live"))


def test_text_that_is_not_toml() -> None:
    with pytest.raises(RulesError, match=r"^broken\.toml: not valid TOML"):
        load_preset_text("[preset\nname = ", origin="broken.toml")


def test_an_unknown_table_is_named() -> None:
    text = preset_text(header_of("live"), entries_of("live")) + "\n[dealer]\nname = 'Sam'\n"
    with pytest.raises(RulesError, match=r"unknown table\(s\) dealer"):
        load_preset_text(text, origin="house.toml")


def test_a_file_without_rules() -> None:
    with pytest.raises(RulesError, match=r"^house\.toml: no \[rules\.<field>\] tables$"):
        load(header_of("live"), {})


def test_a_file_without_a_preset_table() -> None:
    text = preset_text(header_of("live"), entries_of("live")).replace("[preset]", "[prest]")
    with pytest.raises(RulesError, match=r"unknown table\(s\) prest"):
        load_preset_text(text, origin="house.toml")
    with pytest.raises(RulesError, match=r"^house\.toml: no \[preset\] table"):
        load_preset_text("[rules.decks]\nvalue = 8\n", origin="house.toml")


def test_a_house_variant_keeps_its_own_name() -> None:
    header = header_of("casino-to-go") | {"name": "casino-to-go-six-box", "version": 1}
    rules = entries_of("casino-to-go")
    rules["boxes"] = {"value": 6, "clause": "SPLITTING PAIRS", "note": "six player table"}
    rules["max_split_hands"] = {"value": 4, "clause": "SPLITTING PAIRS"}
    variant = load(header, rules)
    assert variant.rules.name == "casino-to-go-six-box"
    assert (variant.rules.boxes, variant.rules.max_split_hands) == (6, 4)
    assert variant.rules.replace(name="casino-to-go") != PRESETS["casino-to-go"].rules
