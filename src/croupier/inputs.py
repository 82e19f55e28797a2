"""A round's inputs as data: what a table records and what a replay applies.

Every input to a round is a command (:mod:`croupier.commands`) recorded as JSON: an
operation, the player who made it (if any) and its arguments.  The table server
records them in order; a round script may list them (``"inputs"``) to replay a
recorded round exactly, because the engine is deterministic.

>>> from croupier.presets import find_rules
>>> from croupier.round import Round, Phase
>>> from croupier.shoe import FixedOrder
>>> game = Round(find_rules("rws-v5"), FixedOrder("9S KD 7H 7C"))
>>> for op, player, args in [("bet", "ann", {"box": 1, "amount": "100"}),
...                          ("close_bets", None, {}),
...                          ("decline", "ann", {"box": 1, "kind": "surrender"}),
...                          ("stand", "ann", {})]:
...     _ = apply_input(game, op, player, args)
>>> game.phase is Phase.SETTLED, game.net_by_player()
(True, {'ann': Decimal('-100.00')})

An input is recorded from its command (:func:`arguments`): the arguments its sender
gave, as JSON values, in the command's order; every one for an input of the table's own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from decimal import Decimal
from enum import StrEnum
from typing import Any

from croupier.commands import COMMANDS, Command, InputError, command_from_json
from croupier.events import Event
from croupier.round import Round

__all__ = ["INPUT_OPS", "InputError", "apply_input", "arguments"]

#: Every operation, with the arguments it takes (``player`` aside), read from the commands.
INPUT_OPS: dict[str, tuple[str, ...]] = {
    op: tuple(field.name for field in dataclasses.fields(cls) if field.name != "player")
    for op, cls in COMMANDS.items()
}


def apply_input(
    game: Round, op: str, player: str | None, args: Mapping[str, object]
) -> Event | None:
    """Apply one recorded input to ``game``; returns the first event it caused.

    Raises:
        InputError: an unknown operation or argument; the message names it.
        CroupierError: the engine refused the input (its typed error says why);
            the round is unchanged.
    """
    command = command_from_json({"op": op, "player": player, "args": dict(args)})
    events = game.apply(command)
    return events[0] if events else None


def arguments(command: Command, given: Collection[str] | None = None) -> dict[str, Any]:
    """The arguments of ``command`` (its player aside) as its record keeps them: those
    its sender ``given`` (``None``: every one it has, as :meth:`Command.to_json`
    gives them), in the command's order, money as exact text.

    A client's arguments are recorded as he sent them, an optional one he left out
    left out (its default is the engine's, not the record's).

    >>> from decimal import Decimal
    >>> from croupier.commands import PlaceBet
    >>> bet = PlaceBet("ann", 1, Decimal("25.00"))
    >>> arguments(bet)
    {'box': 1, 'amount': '25.00', 'bet': 'main'}
    >>> arguments(bet, given={"amount", "box"})
    {'box': 1, 'amount': '25.00'}
    """
    found: dict[str, Any] = {}
    for field in dataclasses.fields(command):
        name = field.name
        if name == "player" or (given is not None and name not in given):
            continue
        value = getattr(command, name)
        if value is None and given is None:
            continue
        if isinstance(value, StrEnum):
            value = value.value
        elif isinstance(value, Decimal):
            value = str(value)
        found[name] = value
    return found
