"""The basic strategy chart as drawn: text, Rich, HTML, SVG, and the ``croupier strategy`` command.

The well-known cells are those of the published 8-deck, S17, DAS, late-surrender
basic strategy (as charted by Wizard of Odds and every casino-game book): they are
read back from every rendering, so that what a player sees is what was derived.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from croupier.analysis.chart import (
    PLAY_STYLES,
    SECTION_TITLES,
    UP_CARD_LABELS,
    cell_name,
    chart_rows,
    chart_title,
    render_html,
    render_plain,
    render_svg,
    render_text,
    rules_summary,
)
from croupier.analysis.strategy import UP_CARDS, BasicStrategy, Play, derive_strategy
from croupier.cli import cli
from croupier.presets import find_preset, find_rules
from croupier.rules import Rules

SVG = "{http://www.w3.org/2000/svg}"
UP_INDEX = dict(zip(UP_CARD_LABELS, UP_CARDS, strict=True))

#: (section, row label, row as ``BasicStrategy.cell`` takes it, up card, play) for
#: 8 decks, S17, DAS, late surrender.
WELL_KNOWN_CELLS = [
    ("hard", "16", 16, "10", "Rh"),
    ("hard", "16", 16, "9", "Rh"),
    ("hard", "16", 16, "A", "Rh"),
    ("hard", "15", 15, "10", "Rh"),
    ("hard", "16", 16, "7", "H"),
    ("hard", "11", 11, "6", "Dh"),
    ("hard", "11", 11, "A", "H"),
    ("hard", "10", 10, "10", "H"),
    ("hard", "9", 9, "2", "H"),
    ("hard", "9", 9, "3", "Dh"),
    ("hard", "12", 12, "2", "H"),
    ("hard", "12", 12, "3", "H"),
    ("hard", "12", 12, "4", "S"),
    ("hard", "13", 13, "2", "S"),
    ("hard", "17", 17, "A", "S"),
    ("soft", "A,7", 18, "3", "Ds"),
    ("soft", "A,7", 18, "2", "S"),
    ("soft", "A,7", 18, "9", "H"),
    ("soft", "A,2", 13, "5", "Dh"),
    ("soft", "A,8", 19, "6", "S"),
    ("pair", "8,8", 8, "6", "P"),
    ("pair", "8,8", 8, "A", "P"),
    ("pair", "10,10", 10, "6", "S"),
    ("pair", "9,9", 9, "7", "S"),
    ("pair", "9,9", 9, "8", "P"),
    ("pair", "5,5", 5, "9", "Dh"),
    ("pair", "4,4", 4, "5", "P"),
    ("pair", "2,2", 2, "2", "P"),
    ("pair", "6,6", 6, "2", "P"),
    ("pair", "7,7", 7, "8", "H"),
    *[("pair", "A,A", 1, up, "P") for up in UP_CARD_LABELS],
]
CELL_IDS = [f"{section} {label} v {up}" for section, label, _, up, _ in WELL_KNOWN_CELLS]


@pytest.fixture(scope="module")
def online() -> BasicStrategy:
    return derive_strategy(find_rules("online-8deck"))


@pytest.fixture(scope="module")
def casino_to_go() -> BasicStrategy:
    return derive_strategy(find_rules("casino-to-go"))


@pytest.fixture(scope="module")
def rws_v5() -> BasicStrategy:
    return derive_strategy(find_rules("rws-v5"))


def mimic_the_dealer(rules: Rules) -> BasicStrategy:
    """A hand-made chart: hit to 16, stand from 17, never double, split or surrender."""
    hands = [
        (soft, total, up) for soft in (False, True) for total in range(4, 22) for up in UP_CARDS
    ]
    drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
    pairs = {(pair, up): Play.HIT for pair in range(10) for up in UP_CARDS}
    return BasicStrategy(rules, {}, drawn, pairs)


# -- reading a rendering back into cells -------------------------------------------------------


def plain_cells(text: str) -> dict[str, str]:
    """Cell name to code, read from :func:`render_plain` text."""
    sections = {title: key for key, title in SECTION_TITLES.items()}
    cells: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        heading = next((title for title in sections if line.startswith(title)), None)
        if heading is not None:
            section = sections[heading]
            assert line[len(heading) :].split() == list(UP_CARD_LABELS)
            continue
        words = line.split()
        if section and len(words) == len(UP_CARD_LABELS) + 1:
            for up, code in zip(UP_CARD_LABELS, words[1:], strict=True):
                cells[cell_name(section, words[0], up)] = code
        elif not words:
            section = ""
    return cells


def rich_cells(text: str) -> dict[str, str]:
    """Cell name to code, read from a Rich table as a console shows it."""
    sections = {title: key for key, title in SECTION_TITLES.items()}
    cells: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        columns = [column.strip() for column in line.split("│")[1:-1]]
        if len(columns) != len(UP_CARD_LABELS) + 1:
            continue
        if columns[0] in sections:
            section = sections[columns[0]]
            assert columns[1:] == list(UP_CARD_LABELS)
            continue
        for up, code in zip(UP_CARD_LABELS, columns[1:], strict=True):
            cells[cell_name(section, columns[0], up)] = code
    return cells


def html_cells(page: str) -> dict[str, str]:
    """Cell name to code, read from the ``td`` elements of :func:`render_html`."""
    cells: dict[str, str] = {}
    for css, name, code in re.findall(
        r'<td class="play-(\w+)" data-cell="([^"]+)" title="[^"]*">(\w+)</td>', page
    ):
        assert css == code, name
        cells[name] = code
    return cells


def svg_cells(image: str) -> dict[str, tuple[str, str]]:
    """Cell name to (code, fill colour), read from the ``g`` elements of :func:`render_svg`."""
    root = ElementTree.fromstring(image)
    cells: dict[str, tuple[str, str]] = {}
    for group in root.iter(f"{SVG}g"):
        text = group.find(f"{SVG}text")
        rect = group.find(f"{SVG}rect")
        assert text is not None and rect is not None
        cells[str(group.get("data-cell"))] = (str(text.text), str(rect.get("fill")))
    return cells


# -- the online 8-deck chart -----------------------------------------------------------------


@pytest.mark.parametrize(("section", "label", "row", "up", "play"), WELL_KNOWN_CELLS, ids=CELL_IDS)
def test_online_8deck_well_known_cells(
    online: BasicStrategy, section: str, label: str, row: int, up: str, play: str
) -> None:
    assert online.cell(section, row, UP_INDEX[up]) == play
    rows = {
        (chart_row.section, chart_row.label): chart_row.codes for chart_row in chart_rows(online)
    }
    assert rows[(section, label)][UP_CARD_LABELS.index(up)] == play


def test_online_8deck_every_rendering_shows_the_well_known_cells(online: BasicStrategy) -> None:
    plain = plain_cells(render_plain(online))
    page = html_cells(render_html(online))
    image = svg_cells(render_svg(online))
    console = Console(width=120, record=True, force_terminal=True, color_system="truecolor")
    console.print(render_text(online))
    terminal = rich_cells(console.export_text())
    for (section, label, _, up, play), name in zip(WELL_KNOWN_CELLS, CELL_IDS, strict=True):
        assert name == cell_name(section, label, up)
        assert plain[name] == play, name
        assert terminal[name] == play, name
        assert page[name] == play, name
        assert image[name] == (play, PLAY_STYLES[play].background), name


def test_every_rendering_has_every_cell_of_the_chart(online: BasicStrategy) -> None:
    expected = {
        cell_name(row.section, row.label, up): code
        for row in chart_rows(online)
        for up, code in zip(UP_CARD_LABELS, row.codes, strict=True)
    }
    assert len(expected) == (16 + 8 + 10) * 10
    assert plain_cells(render_plain(online)) == expected
    assert html_cells(render_html(online)) == expected
    assert {name: code for name, (code, _) in svg_cells(render_svg(online)).items()} == expected


def test_chart_rows_in_printed_order(online: BasicStrategy) -> None:
    rows = chart_rows(online)
    assert [row.label for row in rows if row.section == "hard"] == [str(t) for t in range(5, 21)]
    assert [row.label for row in rows if row.section == "soft"] == [f"A,{n}" for n in range(2, 10)]
    assert [row.label for row in rows if row.section == "pair"] == [
        *(f"{n},{n}" for n in range(2, 11)),
        "A,A",
    ]
    assert all(len(row.codes) == 10 and set(row.codes) <= set(PLAY_STYLES) for row in rows)


def test_online_8deck_title_and_rules(online: BasicStrategy) -> None:
    title = "Basic strategy: online-8deck (Blackjack Rules, online 8-deck table)"
    summary = (
        "8 decks, S17, dealer peeks, double any two, DAS, split to 2 hands, late surrender, "
        "blackjack pays 3:2"
    )
    assert chart_title(online.rules) == title
    assert rules_summary(online.rules) == summary
    page = render_html(online)
    assert f"<title>{title}</title>" in page
    assert f"<h1>{title}</h1>" in page
    assert f'<p class="rules">{summary}</p>' in page
    assert render_plain(online).splitlines()[:2] == [title, summary]
    root = ElementTree.fromstring(render_svg(online))
    assert root.findtext(f"{SVG}title") == title
    assert root.findtext(f"{SVG}desc") == summary
    shown = [element.text for element in root.iter(f"{SVG}text")]
    assert title in shown
    assert summary in shown


def test_every_rendering_has_a_legend_of_the_codes(online: BasicStrategy) -> None:
    page = render_html(online)
    plain = render_plain(online)
    shown = [element.text for element in ElementTree.fromstring(render_svg(online)).iter()]
    for code, style in PLAY_STYLES.items():
        assert f'<span class="code play-{code}">{code}</span>{style.meaning}</li>' in page
        assert f"\n  {code:<3} {style.meaning}\n" in plain
        assert style.meaning in shown
    assert "surrender, otherwise hit" in PLAY_STYLES["Rh"].meaning


def test_colours_follow_the_usual_chart_convention() -> None:
    colours = {code: style.background for code, style in PLAY_STYLES.items()}
    assert colours["H"] == "#ffffff"
    assert len(set(colours.values())) == len(colours)
    red, green, blue = (int(colours["S"][i : i + 2], 16) for i in (1, 3, 5))
    assert red > 200 and green > 180 and blue < 100  # stand: yellow
    for code in ("Dh", "Ds"):
        red, green, blue = (int(colours[code][i : i + 2], 16) for i in (1, 3, 5))
        assert green > red and green > blue  # double: green
    assert sum(int(colours["Ds"][i : i + 2], 16) for i in (1, 3, 5)) < sum(
        int(colours["Dh"][i : i + 2], 16) for i in (1, 3, 5)
    )  # double-or-stand darker than double-or-hit
    red, green, blue = (int(colours["P"][i : i + 2], 16) for i in (1, 3, 5))
    assert blue > red and blue > green  # split: blue
    red, green, blue = (int(colours["Rh"][i : i + 2], 16) for i in (1, 3, 5))
    assert red > green and red > blue  # surrender: red


def test_the_terminal_chart_is_coloured(online: BasicStrategy) -> None:
    console = Console(width=120, record=True, force_terminal=True, color_system="truecolor")
    console.print(render_text(online))
    styled = console.export_html(inline_styles=True)
    for code in ("H", "S", "Dh", "Ds", "P", "Rh"):
        assert f"background-color: {PLAY_STYLES[code].background}" in styled, code


def test_html_is_self_contained_and_escaped() -> None:
    page = render_html(mimic_the_dealer(Rules(name='<script>alert("x")</script>')))
    assert page.startswith("<!DOCTYPE html>\n")
    assert page.rstrip().endswith("</html>")
    assert "<script" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    for external in ("http", "src=", "href=", "url(", "@import"):
        assert external not in page
    assert len(html_cells(page)) == 340


def test_svg_is_self_contained_and_escaped() -> None:
    image = render_svg(mimic_the_dealer(Rules(name="A & B <house>")))
    assert "href" not in image
    root = ElementTree.fromstring(image)
    assert root.tag == f"{SVG}svg"
    assert root.findtext(f"{SVG}title") == "Basic strategy: A & B <house> rules"
    assert len(root.findall(f".//{SVG}rect")) > 340


def test_title_names_changed_rules() -> None:
    rules = find_rules("online-8deck").replace(decks=6, surrender="none")
    assert chart_title(rules) == (
        "Basic strategy: online-8deck (Blackjack Rules, online 8-deck table) "
        "with decks=6, surrender=none"
    )
    assert rules_summary(rules).startswith("6 decks, S17, dealer peeks,")
    assert "no surrender" in rules_summary(rules)


# -- what a rulebook clause makes visible in the chart -----------------------------------------


def test_online_blackjack_rules_late_surrender_shows_in_its_cells(online: BasicStrategy) -> None:
    surrendered = {
        cell_name(row.section, row.label, up)
        for row in chart_rows(online)
        for up, code in zip(UP_CARD_LABELS, row.codes, strict=True)
        if code.startswith("R")
    }
    assert surrendered == {"hard 15 v 10", "hard 16 v 9", "hard 16 v 10", "hard 16 v A"}


def test_casino_to_go_double_only_9_to_11_in_the_chart(casino_to_go: BasicStrategy) -> None:
    for row in chart_rows(casino_to_go):
        doubles = [code for code in row.codes if code.startswith("D")]
        if (row.section, row.label) in (
            ("hard", "9"),
            ("hard", "10"),
            ("hard", "11"),
            ("pair", "5,5"),
        ):
            assert doubles, row
        else:
            assert not doubles, row
    page = html_cells(render_html(casino_to_go))
    assert not [name for name, code in page.items() if code.startswith("D") and "soft" in name]
    assert page["hard 11 v 6"] == "Dh"
    assert page["soft A,7 v 3"] == "S"  # Ds where a soft hand may double


def test_rws_v5_3_19_chart_never_stands_below_12(rws_v5: BasicStrategy) -> None:
    below_12 = {"hard": range(5, 12), "pair": (2, 3, 4, 5)}
    for section, rows in below_12.items():
        for row in rows:
            for up in UP_CARDS:
                assert rws_v5.cell(section, row, up) not in ("S", "Ds", "Rs"), (section, row, up)
    plain = plain_cells(render_plain(rws_v5))
    for name, code in plain.items():
        section, label = name.split()[:2]
        if section == "hard" and int(label) < 12:
            assert code in ("H", "Dh", "Rh"), name


def test_rws_v5_3_16_chart_never_surrenders_against_an_ace(rws_v5: BasicStrategy) -> None:
    image = svg_cells(render_svg(rws_v5))
    against_ace = [code for name, (code, _) in image.items() if name.endswith(" v A")]
    assert against_ace and not any(code.startswith("R") for code in against_ace)
    assert image["hard 16 v 10"][0] == "Rh"
    assert image["pair 8,8 v 10"][0] == "Rp"


# -- the command ---------------------------------------------------------------------------------


@functools.cache
def _kernels_built() -> None:
    """The compiled kernels built before a command runs: the first build says so on
    stderr (once), which the tests of a command's output leave out."""
    from croupier.analysis.native import use_compiled

    use_compiled()


def invoke(*arguments: str) -> tuple[int, str, str]:
    _kernels_built()
    result = CliRunner().invoke(cli, ["strategy", *arguments])
    return result.exit_code, result.stdout, result.stderr


def croupier(*arguments: str) -> subprocess.CompletedProcess[str]:
    _kernels_built()
    return subprocess.run(
        [sys.executable, "-m", "croupier", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_command_prints_the_text_chart(online: BasicStrategy) -> None:
    status, out, err = invoke("--rules", "online-8deck")
    assert (status, err) == (0, "")
    assert out == render_plain(online)
    assert plain_cells(out)["hard 16 v 10"] == "Rh"


def test_command_prints_html(online: BasicStrategy) -> None:
    status, out, err = invoke("--rules", "Online-8Deck", "--format", "html")
    assert (status, err) == (0, "")
    assert out == render_html(online)
    assert html_cells(out)["pair 10,10 v 6"] == "S"


def test_command_prints_svg(online: BasicStrategy) -> None:
    status, out, err = invoke("--rules", "online-8deck", "--format", "svg")
    assert (status, err) == (0, "")
    assert svg_cells(out)["soft A,7 v 3"] == ("Ds", PLAY_STYLES["Ds"].background)


@pytest.mark.parametrize("output_format", ["text", "html", "svg"])
def test_command_writes_the_output_file(
    online: BasicStrategy, tmp_path: Path, output_format: str
) -> None:
    target = tmp_path / f"chart.{output_format}"
    status, out, err = invoke(
        "--rules", "online-8deck", "--format", output_format, "--output", str(target)
    )
    assert (status, out, err) == (0, "", "")
    render = {"text": render_plain, "html": render_html, "svg": render_svg}[output_format]
    assert target.read_text(encoding="utf-8") == render(online)


def test_command_set_changes_a_rule() -> None:
    status, out, err = invoke("--rules", "online-8deck", "--set", "decks=6", "--format", "html")
    assert (status, err) == (0, "")
    rules = find_rules("online-8deck").replace(decks=6)
    assert out == render_html(derive_strategy(rules))
    assert "with decks=6" in out
    assert "6 decks, S17, dealer peeks" in out
    assert html_cells(out)["hard 16 v 10"] == "Rh"


def test_command_is_listed_in_the_help() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert "strategy" in result.stdout
    result = CliRunner().invoke(cli, ["strategy", "--help"])
    for option in ("--rules", "--set", "--format", "--output"):
        assert option in result.stdout


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--rules", "live", "--set", "decks"], ["--set decks", "FIELD=VALUE"]),
        (["--rules", "live", "--set", "=6"], ["FIELD=VALUE"]),
        (["--rules", "live", "--set", "decks=nine"], ["decks=nine", "not an integer"]),
        (["--rules", "live", "--set", "decks=9"], ["decks must be from 1 to 8"]),
        (["--rules", "live", "--set", "deck=6"], ["unknown rule 'deck'"]),
        (["--rules", "live", "--set", "surrender=late"], ["surrender=late", "peek"]),
        (["--rules", "live", "--set", "name=mine"], ["name"]),
        (["--rules", "live", "--output", "/nonexistent/chart.txt"], ["cannot write"]),
    ],
)
def test_bad_input_is_one_line_with_status_2(arguments: list[str], words: list[str]) -> None:
    result = croupier("strategy", *arguments)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--rules", "nope"], ["'--rules'", "'nope' is not one of", "'online-8deck'"]),
        (["--rules", "live", "--format", "pdf"], ["'--format'", "'pdf' is not one of"]),
    ],
)
def test_a_malformed_command_line_keeps_the_usage_hint(
    arguments: list[str], words: list[str]
) -> None:
    result = croupier("strategy", *arguments)
    assert result.returncode == 2
    assert result.stderr.startswith("Usage: croupier strategy [OPTIONS]\n")
    for word in words:
        assert word in result.stderr.splitlines()[-1]


def test_unknown_preset_reads_as_rules_show_does() -> None:
    shown = croupier("rules", "show", "--rules", "nope")
    drawn = croupier("strategy", "--rules", "nope")
    assert drawn.returncode == shown.returncode == 2
    assert drawn.stderr.splitlines()[-1] == shown.stderr.splitlines()[-1]
    assert find_preset("online-8deck").title in chart_title(find_rules("online-8deck"))
