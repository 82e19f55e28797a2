"""The ``croupier rules`` commands: list, show, show --json, and an unknown name."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from croupier.cli.rules import rules
from croupier.presets import PRESET_NAMES, PRESETS
from croupier.rules import rule_fields

CITED_FIELDS = tuple(field for field in rule_fields() if field != "name")


def invoke(*arguments: str, columns: int = 80) -> tuple[int, str, str]:
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(rules, list(arguments))
    return result.exit_code, result.stdout, result.stderr


def test_help_names_the_commands() -> None:
    status, out, _ = invoke("--help")
    assert status == 0
    assert "list" in out
    assert "show" in out


def test_list_gives_one_line_per_preset_in_order() -> None:
    status, out, err = invoke("list")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(PRESET_NAMES)
    for line, preset in zip(lines, PRESETS.values(), strict=True):
        assert preset.title in line
        assert preset.rulebook in line


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("columns", [80, 200])
def test_show_prints_every_rule_with_its_clause(name: str, columns: int) -> None:
    status, out, err = invoke("show", name, columns=columns)
    assert (status, err) == (0, "")
    preset = PRESETS[name]
    assert preset.title in out
    assert preset.rulebook in out
    for field in CITED_FIELDS:
        assert field in out
    words = set(out.split())
    for citation in preset.citations:
        assert set(citation.clause.split()) <= words, citation.field
    assert ("Clause and note" in out) is (columns < 120)


def test_show_rws_v5_values_and_clauses() -> None:
    _, out, _ = invoke("show", "rws-v5", columns=200)
    split_row = next(line for line in out.splitlines() if "max_split_hands" in line)
    assert "4" in split_row
    assert "3.21.2" in split_row
    assert "four" in split_row
    surrender_row = next(line for line in out.splitlines() if " surrender " in line)
    assert "rws" in surrender_row


def test_show_writes_values_as_the_preset_file_does() -> None:
    _, out, _ = invoke("show", "live", columns=200)
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("│")}
    assert "100 40 30 10 5" in rows["twenty_one_plus_three_pays"]
    assert "none" in rows["player_pair_pays"]
    assert "false" in rows["double_after_split"]
    assert "3/2" in rows["blackjack_pays"]


def test_show_name_ignores_case() -> None:
    status, out, _ = invoke("show", "Casino-To-Go")
    assert status == 0
    assert "casino-to-go" in out


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_show_json_names_every_field_with_its_citation(name: str) -> None:
    status, out, err = invoke("show", name, "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    preset = PRESETS[name]
    assert set(data) == {"name", "title", "rulebook", "version", "rules", "citations"}
    assert (data["name"], data["title"], data["rulebook"], data["version"]) == (
        preset.name,
        preset.title,
        preset.rulebook,
        preset.version,
    )
    assert tuple(data["rules"]) == rule_fields()
    assert data["rules"] == preset.rules.to_json()
    assert tuple(data["citations"]) == CITED_FIELDS
    for field, citation in data["citations"].items():
        tied = preset.citation(field).by_boxes
        assert set(citation) == {"value", "clause", "note"} | ({"by_boxes"} if tied else set())
        if tied:
            assert citation["by_boxes"] == {str(boxes): value for boxes, value in tied}
        assert citation["value"] == data["rules"][field]
        assert citation["clause"] == preset.citation(field).clause
        assert citation["note"] == preset.citation(field).note


def test_show_json_values_are_plain() -> None:
    _, out, _ = invoke("show", "rws-v4", "--json")
    data = json.loads(out)
    assert data["rules"]["blackjack_pays"] == "3/2"
    assert data["rules"]["minimum_bet"] == "25.00"
    assert data["rules"]["perfect_pairs_pays"] is None
    assert data["rules"]["must_draw_to_12"] is True
    assert data["citations"]["max_split_hands"] == {
        "value": 4,
        "clause": "3.13",
        "note": PRESETS["rws-v4"].citation("max_split_hands").note,
    }


@pytest.mark.parametrize("arguments", [("show", "vegas"), ("show", "vegas", "--json")])
def test_show_unknown_name_is_one_error_line_and_status_2(arguments: tuple[str, ...]) -> None:
    status, out, err = invoke(*arguments)
    assert status == 2
    assert out == ""
    assert err.startswith("error: unknown preset 'vegas'")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    for name in PRESET_NAMES:
        assert name in err
