"""The ``croupier strategy`` command: the basic strategy chart of a preset, as text, HTML or SVG.

The chart is derived exactly for the preset's rules (a few seconds), with any rule
changed by ``--set FIELD=VALUE``.  On a terminal the text chart is coloured; into a
file or a pipe it is plain text; ``--json`` gives its rows of codes.

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(strategy, ["--rules", "vegas"])
>>> result.exit_code, result.stderr.splitlines()[-1]  # doctest: +ELLIPSIS
(2, "Error: Invalid value for '--rules': 'vegas' is not one of 'rws-v4', 'rws-v5', ...")
>>> CliRunner().invoke(strategy, ["--rules", "live", "--set", "decks"]).stderr
'error: --set decks: expected FIELD=VALUE, such as --set decks=6\\n'
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NoReturn

import click

from croupier.cli.shared import (
    FilePath,
    UserError,
    apply_changes,
    compiled_math,
    echo_json,
    json_option,
    preset_option,
    set_option,
)
from croupier.errors import CroupierError
from croupier.presets import find_preset

__all__ = ["FORMATS", "strategy"]

#: The chart's output formats.
FORMATS = ("text", "html", "svg")


def _fail(message: str) -> NoReturn:
    raise UserError(message)


@click.command(name="strategy")
@preset_option
@set_option
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Text (coloured on a terminal), an HTML page or an SVG image.",
)
@click.option(
    "--output",
    type=FilePath(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Write the chart to FILE instead of standard output.",
)
@json_option
def strategy(
    rules_name: str,
    settings: tuple[str, ...],
    output_format: str,
    output: Path | None,
    as_json: bool,
) -> None:
    """Draw the basic strategy chart of preset NAME: hard totals, soft totals, pairs.

    Each cell is the play for the hand against the dealer's up card: H hit, S stand,
    Dh double (otherwise hit), Ds double (otherwise stand), P split, Rh Rs Rp
    surrender (otherwise hit, stand or split).  The title names the preset and the
    rules the chart is for.
    """
    try:
        preset = find_preset(rules_name)
    except CroupierError as error:
        _fail(str(error))
    rules = apply_changes(preset.rules, settings)
    if as_json:
        output_format = "json"
    # The analysis loads NumPy and compiles its kernels: only this command pays for it.
    from rich.console import Console

    from croupier.analysis.chart import render_html, render_plain, render_svg, render_text
    from croupier.analysis.strategy import derive_strategy

    # A file that cannot be written is refused before the chart is computed.
    if output is not None and not output.parent.is_dir():
        _fail(f"cannot write {output}: no folder {output.parent}")
    if output is not None and not os.access(output.parent, os.W_OK):
        _fail(f"cannot write {output}: the folder {output.parent} is not writable")
    compiled_math()
    try:
        chart = derive_strategy(rules)
    except CroupierError as error:
        _fail(f"{rules.name}: {error}")
    if output_format == "json":
        from croupier.analysis.chart import UP_CARD_LABELS, chart_rows, chart_title

        document = {
            "title": chart_title(rules),
            "up_cards": list(UP_CARD_LABELS),
            "rows": [
                {"section": row.section, "label": row.label, "codes": list(row.codes)}
                for row in chart_rows(chart)
            ],
        }
        if output is None:
            echo_json(document)
            return
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    elif output_format == "html":
        text = render_html(chart)
    elif output_format == "svg":
        text = render_svg(chart)
    else:
        console = Console(highlight=False)
        if output is None and console.is_terminal:
            console.print(render_text(chart))
            return
        text = render_plain(chart)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        _fail(f"cannot write {output}: {error.strerror or error}")
