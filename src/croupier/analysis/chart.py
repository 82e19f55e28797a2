"""The basic strategy chart drawn for people: as text, a Rich table, an HTML page, an SVG.

A chart has three sections as printed charts have them: hard totals 5 to 20, soft
totals A,2 to A,9, and the pairs 2,2 to 10,10 and A,A; one column per dealer up
card, 2 to 10 then the Ace.  Each cell holds the play's code (see
:class:`~croupier.analysis.strategy.Play`) on the colour players know: hit white,
stand yellow, double green (light when the fallback is a hit, dark when it is a
stand), split blue, surrender red, surrender-or-split grey.  Every rendering names
the rule set in its title, lists the rules the chart depends on, and ends with a
legend of the codes.

The functions here only draw; :func:`~croupier.analysis.strategy.derive_strategy`
derives the chart.  Here a hand-made chart (hit to 16, stand from 17, split every
pair) stands in for a derived one:

>>> from croupier.analysis.strategy import BasicStrategy, Play
>>> from croupier.presets import find_rules
>>> hands = [(s, t, up) for s in (False, True) for t in range(4, 22) for up in range(10)]
>>> drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
>>> pairs = {(pair, up): Play.SPLIT for pair in range(10) for up in range(10)}
>>> strategy = BasicStrategy(find_rules("online-8deck"), {}, drawn, pairs)
>>> print(render_plain(strategy).splitlines()[0])
Basic strategy: online-8deck (Blackjack Rules, online 8-deck table)
>>> chart_rows(strategy)[11]
ChartRow(section='hard', label='16', codes=('H', 'H', 'H', 'H', 'H', 'H', 'H', 'H', 'H', 'H'))
>>> '<td class="play-S" data-cell="hard 17 v A"' in render_html(strategy)
True
>>> import xml.etree.ElementTree as ElementTree
>>> ElementTree.fromstring(render_svg(strategy)).tag
'{http://www.w3.org/2000/svg}svg'
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import NamedTuple

from rich import box
from rich.console import Group
from rich.style import Style
from rich.table import Table
from rich.text import Text

from croupier.analysis.strategy import UP_CARDS, BasicStrategy
from croupier.presets import PRESETS
from croupier.rules import DealerBlackjackTakes, DoubleOn, HoleCard, Rules, Surrender

__all__ = [
    "HARD_TOTALS",
    "PAIR_POINTS",
    "PLAY_STYLES",
    "SECTION_TITLES",
    "SOFT_TOTALS",
    "UP_CARD_LABELS",
    "ChartRow",
    "PlayStyle",
    "cell_name",
    "chart_rows",
    "chart_title",
    "render_html",
    "render_plain",
    "render_svg",
    "render_text",
    "rules_summary",
]

#: The hard totals a chart shows, one row each.
HARD_TOTALS = tuple(range(5, 21))
#: The soft totals a chart shows (A,2 is soft 13 ... A,9 is soft 20).
SOFT_TOTALS = tuple(range(13, 21))
#: The pairs a chart shows by their points, in chart order: 2,2 ... 10,10, then A,A (1).
PAIR_POINTS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
#: The column headings: the dealer's up cards in the order of :data:`UP_CARDS`.
UP_CARD_LABELS = tuple("A" if up == 0 else str(up + 1) for up in UP_CARDS)
#: The chart's sections, keyed as :meth:`BasicStrategy.cell` names its tables.
SECTION_TITLES: Mapping[str, str] = MappingProxyType(
    {"hard": "Hard totals", "soft": "Soft totals", "pair": "Pairs"}
)


class PlayStyle(NamedTuple):
    """How a chart code reads and looks: its meaning and its colours (CSS hex)."""

    meaning: str
    background: str
    foreground: str


#: Every chart code in legend order, with its meaning and colours.
PLAY_STYLES: Mapping[str, PlayStyle] = MappingProxyType(
    {
        "H": PlayStyle("hit", "#ffffff", "#000000"),
        "S": PlayStyle("stand", "#f6d13a", "#000000"),
        "Dh": PlayStyle("double, otherwise hit", "#a5dd9b", "#000000"),
        "Ds": PlayStyle("double, otherwise stand", "#2e7d32", "#ffffff"),
        "P": PlayStyle("split", "#3f7fd1", "#ffffff"),
        "Rh": PlayStyle("surrender, otherwise hit", "#e05a5a", "#ffffff"),
        "Rs": PlayStyle("surrender, otherwise stand", "#a82020", "#ffffff"),
        "Rp": PlayStyle("surrender, otherwise split", "#9e9e9e", "#000000"),
    }
)


class ChartRow(NamedTuple):
    """One row of the chart: its section (hard, soft or pair), its label and its codes.

    ``codes`` has one code per dealer up card, in the order of :data:`UP_CARD_LABELS`.
    """

    section: str
    label: str
    codes: tuple[str, ...]


def _pair_label(points: int) -> str:
    card = "A" if points == 1 else str(points)
    return f"{card},{card}"


def chart_rows(strategy: BasicStrategy) -> list[ChartRow]:
    """The chart's rows in printed order: hard 5 to 20, soft A,2 to A,9, pairs 2,2 to A,A.

    The example chart of the module docstring stands on soft 17 (A,6) and splits Aces:

    >>> from croupier.analysis.strategy import BasicStrategy, Play
    >>> from croupier.rules import Rules
    >>> hands = [(s, t, up) for s in (False, True) for t in range(4, 22) for up in range(10)]
    >>> drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
    >>> pairs = {(pair, up): Play.SPLIT for pair in range(10) for up in range(10)}
    >>> rows = chart_rows(BasicStrategy(Rules(), {}, drawn, pairs))
    >>> len(rows), rows[0].label, rows[20].label, rows[-1].label
    (34, '5', 'A,6', 'A,A')
    >>> rows[20].codes[:3], rows[-1].codes[-1]
    (('S', 'S', 'S'), 'P')
    """
    rows = [
        ChartRow("hard", str(total), tuple(strategy.cell("hard", total, up) for up in UP_CARDS))
        for total in HARD_TOTALS
    ]
    rows += [
        ChartRow(
            "soft", f"A,{total - 11}", tuple(strategy.cell("soft", total, up) for up in UP_CARDS)
        )
        for total in SOFT_TOTALS
    ]
    rows += [
        ChartRow(
            "pair", _pair_label(points), tuple(strategy.cell("pair", points, up) for up in UP_CARDS)
        )
        for points in PAIR_POINTS
    ]
    return rows


def cell_name(section: str, label: str, up_label: str) -> str:
    """The name a cell carries in the HTML and SVG charts (their ``data-cell`` attribute).

    >>> cell_name("hard", "16", "10"), cell_name("pair", "A,A", "A")
    ('hard 16 v 10', 'pair A,A v A')
    """
    return f"{section} {label} v {up_label}"


def _ratio(value: Fraction) -> str:
    return f"{value.numerator}:{value.denominator}"


def rules_summary(rules: Rules) -> str:
    """The rules a basic strategy chart depends on, in one line.

    >>> from croupier.presets import find_rules
    >>> rules_summary(find_rules("online-8deck"))  # doctest: +NORMALIZE_WHITESPACE
    '8 decks, S17, dealer peeks, double any two, DAS, split to 2 hands, late surrender,
     blackjack pays 3:2'
    >>> rules_summary(find_rules("casino-to-go"))  # doctest: +NORMALIZE_WHITESPACE
    '6 decks, S17, no peek (original bet only), double 9-11 only, DAS,
     split to 3 hands, surrender (lost to a dealer blackjack), blackjack pays 3:2'
    >>> rules_summary(find_rules("rws-v5"))  # doctest: +NORMALIZE_WHITESPACE
    '8 decks, S17, no hole card (busted hands and initial bets), double any two, DAS,
     split to 4 hands, surrender (not against an Ace), must draw to 12, blackjack pays 3:2'
    """
    parts = [
        f"{rules.decks} deck{'s' if rules.decks != 1 else ''}",
        "H17" if rules.dealer_hits_soft_17 else "S17",
    ]
    hole_card = {
        HoleCard.PEEK: "dealer peeks",
        HoleCard.NO_PEEK: "no peek",
        HoleCard.NONE: "no hole card",
    }[rules.hole_card]
    # With the peek a dealer blackjack ends the round before any split or double.
    if rules.hole_card is not HoleCard.PEEK:
        takes = {
            DealerBlackjackTakes.ALL: "",
            DealerBlackjackTakes.ORIGINAL_BET: " (original bet only)",
            DealerBlackjackTakes.BUSTED_AND_INITIAL_BET: " (busted hands and initial bets)",
        }[rules.dealer_blackjack_takes]
        hole_card += takes
    parts.append(hole_card)
    parts.append("double any two" if rules.double_on is DoubleOn.ANY_TWO else "double 9-11 only")
    parts.append("DAS" if rules.double_after_split else "no DAS")
    if rules.max_split_hands == 1:
        parts.append("no splits")
    else:
        parts.append(f"split to {rules.max_split_hands} hands")
    if rules.resplit_aces:
        parts.append("resplit Aces")
    if rules.hit_split_aces:
        parts.append("hit split Aces")
    parts.append(
        {
            Surrender.NONE: "no surrender",
            Surrender.LATE: "late surrender",
            Surrender.RWS: "surrender (not against an Ace)",
            Surrender.CASINO_TO_GO: "surrender (lost to a dealer blackjack)",
        }[rules.surrender]
    )
    if rules.must_draw_to_12:
        parts.append("must draw to 12")
    parts.append(f"blackjack pays {_ratio(rules.blackjack_pays)}")
    if rules.win_pays != 1:
        parts.append(f"wins pay {_ratio(rules.win_pays)}")
    return ", ".join(parts)


def _display(value: object) -> str:
    """A rule's JSON value as a preset file or ``--set`` writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(_display(item) for item in value)
    return str(value)


def chart_title(rules: Rules) -> str:
    """The chart's title: the preset by name and title, and any rule changed from it.

    >>> from croupier.presets import find_rules
    >>> chart_title(find_rules("online-8deck"))
    'Basic strategy: online-8deck (Blackjack Rules, online 8-deck table)'
    >>> chart_title(find_rules("live").replace(decks=6, dealer_hits_soft_17=True))
    'Basic strategy: live (Live Blackjack Game Rules) with decks=6, dealer_hits_soft_17=true'
    >>> chart_title(Rules())
    'Basic strategy: custom rules'
    """
    preset = PRESETS.get(rules.name)
    if preset is None:
        return f"Basic strategy: {rules.name} rules"
    title = f"Basic strategy: {preset.name} ({preset.title})"
    ours, theirs = rules.to_json(), preset.rules.to_json()
    changes = [f"{field}={_display(ours[field])}" for field in ours if ours[field] != theirs[field]]
    if changes:
        title += " with " + ", ".join(changes)
    return title


# -- text ------------------------------------------------------------------------------------------

_LABEL_WIDTH = 12
_PLAIN_CELL_WIDTH = 3


def render_plain(strategy: BasicStrategy) -> str:
    """The chart as plain text without colour: title, rules, three sections, legend.

    Each code is right-aligned under its up card; the legend lists every code.

    >>> from croupier.analysis.strategy import BasicStrategy, Play
    >>> from croupier.rules import Rules
    >>> hands = [(s, t, up) for s in (False, True) for t in range(4, 22) for up in range(10)]
    >>> drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
    >>> pairs = {(pair, up): Play.SPLIT for pair in range(10) for up in range(10)}
    >>> lines = render_plain(BasicStrategy(Rules(), {}, drawn, pairs)).splitlines()
    >>> print("\\n".join(lines[3:5] + lines[16:17]))
    Hard totals   2  3  4  5  6  7  8  9 10  A
    5             H  H  H  H  H  H  H  H  H  H
    17            S  S  S  S  S  S  S  S  S  S
    >>> lines[-8:-6]
    ['  H   hit', '  S   stand']
    """
    rules = strategy.rules
    lines = [chart_title(rules), rules_summary(rules)]
    section = ""
    for row in chart_rows(strategy):
        if row.section != section:
            section = row.section
            header = "".join(f"{label:>{_PLAIN_CELL_WIDTH}}" for label in UP_CARD_LABELS)
            lines += ["", f"{SECTION_TITLES[section]:<{_LABEL_WIDTH}}{header}"]
        cells = "".join(f"{code:>{_PLAIN_CELL_WIDTH}}" for code in row.codes)
        lines.append(f"{row.label:<{_LABEL_WIDTH}}{cells}")
    lines += ["", "Legend"]
    lines += [f"  {code:<3} {style.meaning}" for code, style in PLAY_STYLES.items()]
    return "\n".join(lines) + "\n"


#: The width of a coloured cell in the terminal chart.
_RICH_CELL_WIDTH = 4


def _rich_cell(text: str) -> str:
    """A code or heading one space in, filling its cell so that its colour fills it too."""
    return f" {text:<{_RICH_CELL_WIDTH - 1}}"


def _rich_style(code: str) -> Style:
    style = PLAY_STYLES[code]
    return Style(color=style.foreground, bgcolor=style.background, bold=True)


def render_text(strategy: BasicStrategy) -> Group:
    """The chart as Rich renderables for a terminal: each cell on its play's colour.

    :func:`render_plain` is the same chart without colour, for a file or a pipe.

    >>> import io
    >>> from rich.console import Console
    >>> from croupier.analysis.strategy import BasicStrategy, Play
    >>> from croupier.rules import Rules
    >>> hands = [(s, t, up) for s in (False, True) for t in range(4, 22) for up in range(10)]
    >>> drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
    >>> pairs = {(pair, up): Play.SPLIT for pair in range(10) for up in range(10)}
    >>> console = Console(file=io.StringIO(), width=100, color_system=None)
    >>> console.print(render_text(BasicStrategy(Rules(), {}, drawn, pairs)))
    >>> shown = console.file.getvalue()
    >>> "Basic strategy: custom rules" in shown, "Soft totals" in shown, "A,A" in shown
    (True, True, True)
    """
    rules = strategy.rules
    rows = chart_rows(strategy)
    parts: list[Text | Table] = [
        Text(chart_title(rules), style="bold"),
        Text(rules_summary(rules)),
    ]
    table: Table | None = None
    section = ""
    for row in rows:
        if table is None or row.section != section:
            section = row.section
            table = Table(box=box.SQUARE, padding=0)
            table.add_column(
                Text(f" {SECTION_TITLES[section]}", style="bold"),
                min_width=_LABEL_WIDTH + 1,
                no_wrap=True,
            )
            for label in UP_CARD_LABELS:
                table.add_column(Text(_rich_cell(label), style="bold"), width=_RICH_CELL_WIDTH)
            parts.append(table)
        table.add_row(
            Text(f" {row.label}"),
            *(Text(_rich_cell(code), style=_rich_style(code)) for code in row.codes),
        )
    legend = Table.grid(padding=(0, 1))
    codes = list(PLAY_STYLES)
    for first, second in zip(codes[::2], codes[1::2], strict=True):
        legend.add_row(
            Text(_rich_cell(first), style=_rich_style(first)),
            Text(f"{PLAY_STYLES[first].meaning:<27}"),
            Text(_rich_cell(second), style=_rich_style(second)),
            Text(PLAY_STYLES[second].meaning),
        )
    parts += [Text(), legend]
    return Group(*parts)


# -- HTML ------------------------------------------------------------------------------------------

_HTML_STYLE = """\
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 2em; color: #1a1a1a; background: #fafafa; }
h1 { font-size: 1.3em; margin-bottom: 0.2em; }
p.rules { margin-top: 0; color: #444; }
table.chart { border-collapse: collapse; margin: 0 0 1.5em 0; }
table.chart th, table.chart td { border: 1px solid #777; text-align: center;
       width: 2.8em; height: 1.7em; padding: 0; }
table.chart th { background: #e8e8e8; }
table.chart th.section { width: 7em; text-align: left; padding: 0 0.5em; }
table.chart th[scope=row] { text-align: left; padding: 0 0.5em; }
table.chart td { font-weight: bold; }
ul.legend { list-style: none; padding: 0; }
ul.legend li { margin: 0.25em 0; }
ul.legend span.code { display: inline-block; width: 2.4em; text-align: center;
       border: 1px solid #777; font-weight: bold; margin-right: 0.5em; }
"""


def _css_class(code: str) -> str:
    return f"play-{code}"


def render_html(strategy: BasicStrategy) -> str:
    """The chart as a self-contained HTML page: inline CSS, no scripts, nothing fetched.

    Each cell is a ``td`` whose class is ``play-`` and its code and whose ``data-cell``
    is its :func:`cell_name`; its ``title`` says the play in words.

    >>> from croupier.analysis.strategy import BasicStrategy, Play
    >>> from croupier.rules import Rules
    >>> hands = [(s, t, up) for s in (False, True) for t in range(4, 22) for up in range(10)]
    >>> drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
    >>> pairs = {(pair, up): Play.SPLIT for pair in range(10) for up in range(10)}
    >>> page = render_html(BasicStrategy(Rules(name="<b>"), {}, drawn, pairs))
    >>> page.startswith("<!DOCTYPE html>"), "<b>" in page, "&lt;b&gt; rules" in page
    (True, False, True)
    >>> '<td class="play-P" data-cell="pair 8,8 v 6" title="8,8 against 6: split">P</td>' in page
    True
    """
    rules = strategy.rules
    title = html.escape(chart_title(rules))
    summary = html.escape(rules_summary(rules))
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{title}</title>",
        "<style>",
        _HTML_STYLE.rstrip("\n"),
    ]
    for code, style in PLAY_STYLES.items():
        out.append(
            f".{_css_class(code)} {{ background: {style.background}; color: {style.foreground}; }}"
        )
    out += ["</style>", "</head>", "<body>", f"<h1>{title}</h1>", f'<p class="rules">{summary}</p>']
    section = ""
    for row in chart_rows(strategy):
        if row.section != section:
            if section:
                out += ["</tbody>", "</table>"]
            section = row.section
            heading = html.escape(SECTION_TITLES[section])
            up_headings = "".join(
                f'<th scope="col">{html.escape(label)}</th>' for label in UP_CARD_LABELS
            )
            out += [
                f'<table class="chart" id="{section}">',
                f'<thead><tr><th class="section" scope="col">{heading}</th>'
                f"{up_headings}</tr></thead>",
                "<tbody>",
            ]
        cells = []
        for up_label, code in zip(UP_CARD_LABELS, row.codes, strict=True):
            name = html.escape(cell_name(row.section, row.label, up_label))
            words = html.escape(f"{row.label} against {up_label}: {PLAY_STYLES[code].meaning}")
            cells.append(
                f'<td class="{_css_class(code)}" data-cell="{name}" title="{words}">'
                f"{html.escape(code)}</td>"
            )
        out.append(f'<tr><th scope="row">{html.escape(row.label)}</th>{"".join(cells)}</tr>')
    out += ["</tbody>", "</table>", '<ul class="legend">']
    for code, style in PLAY_STYLES.items():
        out.append(
            f'<li><span class="code {_css_class(code)}">{html.escape(code)}</span>'
            f"{html.escape(style.meaning)}</li>"
        )
    out += ["</ul>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


# -- SVG -------------------------------------------------------------------------------------------

_MARGIN = 16
_LABEL_COLUMN = 88
_CELL_WIDTH = 38
_CELL_HEIGHT = 22
_SECTION_GAP = 14
_TITLE_SIZE = 16
_TEXT_SIZE = 12
#: A generous average advance of a sans-serif character, as a share of the font size.
_CHARACTER_WIDTH = 0.62


def _attributes(values: Mapping[str, object]) -> str:
    """XML attributes, escaped; ``font_size`` is written ``font-size``."""
    return " ".join(
        f'{name.replace("_", "-")}="{html.escape(str(value))}"' for name, value in values.items()
    )


def _svg_rect(x: float, y: float, width: float, fill: str) -> str:
    values = {"x": x, "y": y, "width": width, "height": _CELL_HEIGHT, "fill": fill}
    return f'<rect {_attributes(values)} stroke="#777777"/>'


def _svg_text(x: float, y: float, text: str, **attributes: object) -> str:
    """A line of text whose middle sits at ``y``."""
    values = {"x": x, "y": y, "dominant_baseline": "central", **attributes}
    return f"<text {_attributes(values)}>{html.escape(text)}</text>"


def _svg_code(x: float, y: float, code: str) -> str:
    """A code centred on its colour in a cell whose top left corner is ``(x, y)``."""
    style = PLAY_STYLES[code]
    return _svg_rect(x, y, _CELL_WIDTH, style.background) + _svg_text(
        x + _CELL_WIDTH / 2,
        y + _CELL_HEIGHT / 2,
        code,
        fill=style.foreground,
        font_weight="bold",
        text_anchor="middle",
    )


def render_svg(strategy: BasicStrategy) -> str:
    """The chart as a self-contained SVG image: a ``rect`` and a ``text`` per cell.

    Each cell is a ``g`` group whose ``data-cell`` is its :func:`cell_name`, holding a
    ``title`` (the play in words), the coloured ``rect`` and the code.

    >>> import xml.etree.ElementTree as ElementTree
    >>> from croupier.analysis.strategy import BasicStrategy, Play
    >>> from croupier.rules import Rules
    >>> hands = [(s, t, up) for s in (False, True) for t in range(4, 22) for up in range(10)]
    >>> drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
    >>> pairs = {(pair, up): Play.SPLIT for pair in range(10) for up in range(10)}
    >>> root = ElementTree.fromstring(render_svg(BasicStrategy(Rules(), {}, drawn, pairs)))
    >>> svg = "{http://www.w3.org/2000/svg}"
    >>> cells = {g.get("data-cell"): g for g in root.iter(svg + "g")}
    >>> len(cells), cells["hard 17 v 2"].find(svg + "text").text
    (340, 'S')
    >>> cells["hard 17 v 2"].find(svg + "rect").get("fill")
    '#f6d13a'
    """
    rules = strategy.rules
    title = chart_title(rules)
    summary = rules_summary(rules)
    grid_width = _LABEL_COLUMN + _CELL_WIDTH * len(UP_CARD_LABELS)
    text_width = _CHARACTER_WIDTH * max(len(title) * _TITLE_SIZE, len(summary) * _TEXT_SIZE)
    width = round(2 * _MARGIN + max(grid_width, text_width))
    body = [
        _svg_text(_MARGIN, _MARGIN + 8, title, font_size=_TITLE_SIZE, font_weight="bold"),
        _svg_text(_MARGIN, _MARGIN + 30, summary, fill="#444444"),
    ]
    y = _MARGIN + 40  # the top of the next line
    section = ""
    for row in chart_rows(strategy):
        if row.section != section:
            section = row.section
            y += _SECTION_GAP
            middle = y + _CELL_HEIGHT / 2
            body.append(_svg_rect(_MARGIN, y, grid_width, "#e8e8e8"))
            body.append(_svg_text(_MARGIN + 6, middle, SECTION_TITLES[section], font_weight="bold"))
            for column, label in enumerate(UP_CARD_LABELS):
                x = _MARGIN + _LABEL_COLUMN + (column + 0.5) * _CELL_WIDTH
                body.append(_svg_text(x, middle, label, font_weight="bold", text_anchor="middle"))
            y += _CELL_HEIGHT
        body.append(_svg_rect(_MARGIN, y, _LABEL_COLUMN, "#f4f4f4"))
        body.append(_svg_text(_MARGIN + 6, y + _CELL_HEIGHT / 2, row.label))
        for column, (up_label, code) in enumerate(zip(UP_CARD_LABELS, row.codes, strict=True)):
            x = _MARGIN + _LABEL_COLUMN + column * _CELL_WIDTH
            name = cell_name(row.section, row.label, up_label)
            words = f"{row.label} against {up_label}: {PLAY_STYLES[code].meaning}"
            body.append(
                f"<g {_attributes({'class': _css_class(code), 'data-cell': name})}>"
                f"<title>{html.escape(words)}</title>{_svg_code(x, y, code)}</g>"
            )
        y += _CELL_HEIGHT
    y += _SECTION_GAP
    for code, style in PLAY_STYLES.items():
        body.append(_svg_code(_MARGIN, y, code))
        body.append(_svg_text(_MARGIN + _CELL_WIDTH + 8, y + _CELL_HEIGHT / 2, style.meaning))
        y += _CELL_HEIGHT + 4
    height = round(y + _MARGIN)
    root = {
        "xmlns": "http://www.w3.org/2000/svg",
        "width": width,
        "height": height,
        "viewBox": f"0 0 {width} {height}",
        "font_family": "Helvetica, Arial, sans-serif",
        "font_size": _TEXT_SIZE,
    }
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<svg {_attributes(root)}>",
        f"<title>{html.escape(title)}</title>",
        f"<desc>{html.escape(summary)}</desc>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    return "\n".join([*head, *body, "</svg>"]) + "\n"
