"""The ``croupier strategy`` command: the basic strategy chart of a preset, as text, HTML or SVG.

The chart is derived exactly for the preset's rules (a few seconds), with any rule
changed by ``--set FIELD=VALUE``.  On a terminal the text chart is coloured; into a
file or a pipe it is plain text.

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(strategy, ["--rules", "vegas"])
>>> result.exit_code, result.stderr  # doctest: +ELLIPSIS
(2, "error: unknown preset 'vegas'; the presets are: rws-v4, rws-v5, ..., live\\n")
>>> CliRunner().invoke(strategy, ["--rules", "live", "--set", "decks"]).stderr
'error: --set decks: expected FIELD=VALUE, such as --set decks=6\\n'
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console

from croupier.errors import CroupierError
from croupier.presets import find_preset
from croupier.rules import Rules, coerce_field

__all__ = ["FORMATS", "strategy"]

#: The chart's output formats.
FORMATS = ("text", "html", "svg")
#: Exit status for a user error (as Click uses for a usage error).
_EXIT_USER_ERROR = 2


def _fail(message: str) -> NoReturn:
    """One line on stderr and exit status 2, as ``croupier rules show`` does."""
    click.echo(f"error: {message}", err=True)
    raise click.exceptions.Exit(_EXIT_USER_ERROR)


def _changed_rules(rules: Rules, settings: tuple[str, ...]) -> Rules:
    """``rules`` with each ``FIELD=VALUE`` of ``settings`` applied, in order."""
    changes: dict[str, object] = {}
    for setting in settings:
        field, equals, value = setting.partition("=")
        field = field.strip()
        if not equals or not field:
            _fail(f"--set {setting}: expected FIELD=VALUE, such as --set decks=6")
        if field == "name":
            _fail(f"--set {setting}: the name is the preset's; choose the preset with --rules")
        try:
            changes[field] = coerce_field(field, value.strip())
        except CroupierError as error:
            _fail(f"--set {setting}: {error}")
    try:
        return rules.replace(**changes)
    except CroupierError as error:
        _fail(f"--set {' '.join(settings)}: {error}")


@click.command(name="strategy")
@click.option(
    "--rules",
    "rules_name",
    required=True,
    metavar="NAME",
    help="The preset whose chart to draw (see `croupier rules list`).",
)
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="FIELD=VALUE",
    help="Change one rule by its field name, e.g. --set decks=6 (repeatable).",
)
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
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Write the chart to FILE instead of standard output.",
)
def strategy(
    rules_name: str, settings: tuple[str, ...], output_format: str, output: Path | None
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
    rules = _changed_rules(preset.rules, settings)
    # The analysis loads NumPy and compiles its kernels: only this command pays for it.
    from croupier.analysis.chart import render_html, render_plain, render_svg, render_text
    from croupier.analysis.strategy import derive_strategy

    try:
        chart = derive_strategy(rules)
    except CroupierError as error:
        _fail(f"{rules.name}: {error}")
    if output_format == "html":
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
