"""A basic strategy chart read back from the text ``croupier strategy`` writes.

The text is :func:`~croupier.analysis.chart.render_plain`'s: a title, a line of rules,
then three sections (hard totals 5 to 20, soft totals A,2 to A,9, pairs 2,2 to A,A),
each a heading of up cards ``2 ... 10 A`` and one row of codes per hand.  Lines
outside the sections (the title, the rules, the legend) are not read, so a chart
may be edited by hand and played on other rules.

A chart cell is the play of a hand's first decision.  Past it (three cards or more,
where only hit and stand are left) a hand plays its total's cell without the double
or the surrender: ``Dh`` and ``Rh`` hit, ``Ds`` and ``Rs`` stand; hard 4 and soft 12
(only ever an unsplit pair) hit and 21 stands.

>>> from croupier.analysis.chart import render_plain
>>> from croupier.analysis.strategy import BasicStrategy, Play
>>> from croupier.presets import find_rules
>>> rules = find_rules("online-8deck")
>>> hands = [(s, t, up) for s in (False, True) for t in range(4, 22) for up in range(10)]
>>> drawn = {hand: Play.STAND if hand[1] >= 17 else Play.HIT for hand in hands}
>>> pairs = {(pair, up): Play.SPLIT for pair in range(10) for up in range(10)}
>>> text = render_plain(BasicStrategy(rules, {}, drawn, pairs))
>>> chart = parse_chart(text, rules)
>>> chart.cell("hard", 16, 9), chart.cell("pair", 8, 0), render_plain(chart) == text
('H', 'P', True)
>>> parse_chart(text.replace("A,8           S", "A,8           X"), rules)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
croupier.analysis.chart_file.ChartError: line 29: unknown code 'X' (the codes are H, S, Dh, ...)
"""

from __future__ import annotations

from pathlib import Path

from croupier.analysis.chart import (
    HARD_TOTALS,
    PAIR_POINTS,
    PLAY_STYLES,
    SECTION_TITLES,
    SOFT_TOTALS,
    UP_CARD_LABELS,
)
from croupier.analysis.strategy import UP_CARDS, BasicStrategy, Play
from croupier.errors import CroupierError
from croupier.rules import Rules

__all__ = ["ChartError", "parse_chart", "read_chart"]


class ChartError(CroupierError):
    """A chart text that is not a complete basic strategy chart."""


# What a first-decision cell plays once the hand has drawn: hit or stand.
_DRAWN = {
    Play.HIT: Play.HIT,
    Play.STAND: Play.STAND,
    Play.DOUBLE_OR_HIT: Play.HIT,
    Play.DOUBLE_OR_STAND: Play.STAND,
    Play.SURRENDER_OR_HIT: Play.HIT,
    Play.SURRENDER_OR_STAND: Play.STAND,
}
_SPLITS = (Play.SPLIT, Play.SURRENDER_OR_SPLIT)


def _rows(section: str) -> dict[str, int]:
    """Each row label of a section and its total (hard, soft) or pair points."""
    if section == "hard":
        return {str(total): total for total in HARD_TOTALS}
    if section == "soft":
        return {f"A,{total - 11}": total for total in SOFT_TOTALS}
    return {("A,A" if points == 1 else f"{points},{points}"): points for points in PAIR_POINTS}


def parse_chart(text: str, rules: Rules) -> BasicStrategy:
    """The chart in ``text`` as a strategy for ``rules``.

    Raises:
        ChartError: a section, a row or a cell is missing, repeated or not a chart
            code; the message names the line.
    """
    titles = {title: section for section, title in SECTION_TITLES.items()}
    cells: dict[str, dict[int, tuple[Play, ...]]] = {section: {} for section in SECTION_TITLES}
    section = ""
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            section = ""
            continue
        heading = next(
            (title for title in titles if words[: len(title.split())] == title.split()), ""
        )
        if heading:
            section = titles[heading]
            if tuple(words[len(heading.split()) :]) != UP_CARD_LABELS:
                raise ChartError(
                    f"line {number}: the up cards of {heading} must be {' '.join(UP_CARD_LABELS)}"
                )
            if cells[section]:
                raise ChartError(f"line {number}: {heading} appears twice")
            continue
        if not section:
            continue
        rows = _rows(section)
        label = words[0]
        if label not in rows:
            raise ChartError(
                f"line {number}: {label!r} is not a row of {SECTION_TITLES[section]} "
                f"(they are {', '.join(rows)})"
            )
        codes = words[1:]
        if len(codes) != len(UP_CARDS):
            raise ChartError(f"line {number}: {label} has {len(codes)} cells, not {len(UP_CARDS)}")
        found_plays: list[Play] = []
        for code in codes:
            if code not in PLAY_STYLES:
                raise ChartError(
                    f"line {number}: unknown code {code!r} (the codes are {', '.join(PLAY_STYLES)})"
                )
            play = Play(code)
            if section != "pair" and play in _SPLITS:
                raise ChartError(f"line {number}: {label} is not a pair and cannot split ({code})")
            found_plays.append(play)
        if rows[label] in cells[section]:
            raise ChartError(f"line {number}: row {label} appears twice")
        cells[section][rows[label]] = tuple(found_plays)
    for name, found in cells.items():
        missing = [label for label, row in _rows(name).items() if row not in found]
        if missing:
            raise ChartError(f"{SECTION_TITLES[name]}: missing rows {', '.join(missing)}")
    first: dict[tuple[bool, int, int], Play] = {}
    drawn: dict[tuple[bool, int, int], Play] = {}
    pairs: dict[tuple[int, int], Play] = {}
    for column, up in enumerate(UP_CARDS):
        for soft, name in ((False, "hard"), (True, "soft")):
            for total in range(4, 22):
                drawn[(soft, total, up)] = Play.STAND if total == 21 else Play.HIT
            for total, plays in cells[name].items():
                first[(soft, total, up)] = plays[column]
                drawn[(soft, total, up)] = _DRAWN[plays[column]]
        for points, plays in cells["pair"].items():
            play = plays[column]
            pairs[(points - 1, up)] = play
            # Two 2s (hard 4) and two Aces (soft 12) are in no other row.
            key = (points == 1, 12 if points == 1 else 4, up)
            if points in (1, 2) and play not in _SPLITS:
                first[key] = play
    return BasicStrategy(rules, first, drawn, pairs)


def read_chart(path: Path, rules: Rules) -> BasicStrategy:
    """The chart in the file ``path`` (see :func:`parse_chart`).

    Raises:
        ChartError: the file cannot be read or is not a chart; the message names it.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ChartError(f"cannot read the chart {path}: {reason}") from None
    try:
        return parse_chart(text, rules)
    except ChartError as error:
        raise ChartError(f"chart {path}: {error}") from None
