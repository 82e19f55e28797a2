"""What every ``croupier`` command shares: the preset option, ``--set``, ``--json``, errors.

A user error is a :class:`UserError`: one line on stderr, exit status 2.  Click's own
usage errors (an unknown option, a bad choice) keep Click's usage hint.

>>> from croupier.presets import find_rules
>>> apply_changes(find_rules("rws-v5"), ("decks=8", "hit_split_aces=true")).decks
8
>>> apply_changes(find_rules("rws-v5"), ("decks",))
Traceback (most recent call last):
...
croupier.cli.shared.UserError: --set decks: expected FIELD=VALUE, such as --set decks=6
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from croupier.presets import PRESET_NAMES

if TYPE_CHECKING:
    from croupier.rules import Rules

__all__ = [
    "DEFAULT_PRESET",
    "EXTRAS",
    "FilePath",
    "TextFile",
    "UserError",
    "apply_changes",
    "echo_json",
    "echo_timing",
    "json_option",
    "preset_option",
    "require_extra",
    "set_option",
]

#: The preset every command plays or reports on when ``--rules`` is not given.
DEFAULT_PRESET = "rws-v5"

#: Each optional part of croupier: the modules it installs, and what they are.
EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "math": (("numpy", "numba"), "NumPy and Numba"),
    "server": (
        ("fastapi", "uvicorn", "sqlalchemy", "alembic", "argon2", "websockets"),
        "the table server's packages",
    ),
    "postgres": (("psycopg",), "the PostgreSQL driver"),
}

_Command = TypeVar("_Command", bound=Callable[..., Any])


class UserError(click.ClickException):
    """A user error: ``error: <what and where>`` on stderr, exit status 2, no traceback."""

    exit_code = 2

    def show(self, file: object = None) -> None:
        """Print the one line."""
        click.echo(f"error: {self.format_message()}", err=True)


class FilePath(click.Path):
    """A ``click.Path`` that refuses a name holding a NUL character as a usage error
    (the system cannot name such a file; ``os.stat`` raises ``ValueError``).

    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @click.argument("name", type=FilePath())
    ... def show(name: str) -> None:
    ...     click.echo(name)
    >>> result = CliRunner().invoke(show, ["a" + chr(0) + "b"])
    >>> result.exit_code, "NUL" in result.output
    (2, True)
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path, or a usage error for a name with a NUL character."""
        if isinstance(value, str) and "\x00" in value:
            self.fail(f"{value!r}: a file name cannot hold a NUL character", param, ctx)
        return super().convert(value, param, ctx)


class TextFile(click.File):
    """A ``click.File`` that refuses a name holding a NUL character as a usage error."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The open file, or a usage error for a name with a NUL character."""
        if isinstance(value, str) and "\x00" in value:
            self.fail(f"{value!r}: a file name cannot hold a NUL character", param, ctx)
        return super().convert(value, param, ctx)


def require_extra(extra: str, command: str) -> None:
    """Refuse, in one line, a command whose extra is not installed.

    >>> require_extra("math", "croupier edge") is None
    True
    """
    modules, what = EXTRAS[extra]
    missing = [module for module in modules if importlib.util.find_spec(module) is None]
    if missing:
        raise UserError(
            f"{command} needs {what} ({', '.join(missing)} missing): "
            f"pip install 'croupier[{extra}]'"
        )


def preset_option(function: _Command) -> _Command:
    """``--rules NAME``: one of the presets (so shells complete it), ``rws-v5`` by default."""
    option = click.option(
        "--rules",
        "rules_name",
        type=click.Choice(PRESET_NAMES, case_sensitive=False),
        default=DEFAULT_PRESET,
        show_default=True,
        help="The preset (see `croupier rules list`).",
    )
    return option(function)


def set_option(function: _Command) -> _Command:
    """``--set FIELD=VALUE``, repeatable: a rule changed by its field name."""
    option = click.option(
        "--set",
        "settings",
        multiple=True,
        metavar="FIELD=VALUE",
        help="Change one rule by its field name, e.g. --set decks=6 (repeatable); "
        "the fields as `croupier rules show --json` names them.",
    )
    return option(function)


def json_option(function: _Command) -> _Command:
    """``--json``: print the report as JSON instead of a table."""
    return click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")(
        function
    )


def db_option(function: _Command) -> _Command:
    """``--db URL`` (or ``CROUPIER_DB_URL``): the server's database."""
    return click.option(
        "--db",
        "url",
        default=None,
        envvar="CROUPIER_DB_URL",
        show_envvar=True,
        help="Database URL (default sqlite:///croupier.db; postgresql://... for PostgreSQL).",
    )(function)


def apply_changes(rules: Rules, settings: tuple[str, ...]) -> Rules:
    """``rules`` with each ``FIELD=VALUE`` of ``settings`` applied, or a :class:`UserError`.

    The preset's name stays: a changed rule set is still reported under its preset,
    and a rule its rulebook ties to the number of boxes follows them
    (:meth:`~croupier.presets.Preset.replace`).

    >>> from croupier.presets import find_rules
    >>> apply_changes(find_rules("casino-to-go"), ("boxes=6",)).max_split_hands
    4
    """
    from croupier.errors import CroupierError
    from croupier.rules import coerce_field

    changes: dict[str, object] = {}
    for setting in settings:
        field, equals, value = setting.partition("=")
        field = field.strip()
        if not equals or not field:
            raise UserError(f"--set {setting}: expected FIELD=VALUE, such as --set decks=6")
        if field == "name":
            raise UserError(
                f"--set {setting}: the name is the preset's; choose the preset with --rules"
            )
        try:
            changes[field] = coerce_field(field, value.strip())
        except CroupierError as error:
            raise UserError(f"--set {setting}: {error}") from None
    from croupier.presets import PRESETS

    preset = PRESETS.get(rules.name)
    try:
        if preset is not None and preset.rules == rules:
            # The preset keeps the rules its rulebook ties to the number of boxes.
            return preset.replace(**changes)
        return rules.replace(**changes)
    except CroupierError as error:
        raise UserError(f"--set {' '.join(settings)}: {error}") from None


def echo_json(data: object) -> None:
    """Print ``data`` as JSON, indented, keys in their order, text as it is.

    >>> echo_json({"rtp": "0.99", "name": "rws-v5"})
    {
      "rtp": "0.99",
      "name": "rws-v5"
    }
    """
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def echo_timing(text: str) -> None:
    """A timing, on stderr: it differs from run to run, so it stays out of the report."""
    click.echo(text, err=True)


def compiled_math() -> None:
    """Run the exact math on its ahead-of-time build (:mod:`croupier.analysis.native`),
    which a new process loads without Numba; the first time, say on stderr that it is
    being compiled.  Where it cannot be built, Numba's build runs (the same figures)."""
    from croupier.analysis.native import use_compiled

    def show(step: str) -> None:
        click.echo(f"croupier: {step} ...", err=True)

    use_compiled(show)
