"""What is asked of the process that runs a table: one frozen class per operation.

A table socket, a route or another process of the cluster asks a table for its view,
a seat, its log, or to apply an input, through :meth:`Hub.call
<croupier.server.hub.Hub.call>`: each as one of the classes here, which the hub runs
on the table's actor by its type.  An input travels as the engine's own command
(:class:`Apply`), read once where it came in and never parsed again.  JSON is for
the bus between processes only (:mod:`croupier.server.bus`): :meth:`Operation.to_json`
on the asking side, :func:`from_json` once on the serving side, in the shape the
processes have always sent.

>>> from decimal import Decimal
>>> from croupier.commands import PlaceBet
>>> bet = Apply(PlaceBet("ann", 1, Decimal("25")), now=2.0, user=7, key="k1",
...             given=frozenset({"box", "amount"}))
>>> bet.to_json()  # doctest: +NORMALIZE_WHITESPACE
{'op': 'apply', 'args': {'op': 'bet', 'player': 'ann', 'args': {'box': 1, 'amount': '25'},
 'now': 2.0, 'key': 'k1', 'user': 7, 'by': None}}
>>> from_json(bet.to_json()) == bet
True
>>> from_json(TakeBox("ann", 3).to_json())
TakeBox(player='ann', box=3)
>>> from_json({"op": "dance", "args": {}})
Traceback (most recent call last):
...
croupier.server.operations.MalformedOperation: no table operation 'dance'
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from croupier.commands import InputError, command_from_json
from croupier.inputs import arguments
from croupier.server.errors import ServerError
from croupier.server.runtime import CutCard, Input, player_of

__all__ = [
    "Apply",
    "ConfirmBets",
    "Disconnected",
    "EventsSince",
    "LeaveBox",
    "Log",
    "MalformedOperation",
    "Operation",
    "Summary",
    "TableOperation",
    "TakeBox",
    "View",
    "Welcome",
    "from_json",
]


class MalformedOperation(ServerError, ValueError):
    """A request from another process that is not a table operation; the message says
    what is wrong."""


@dataclass(frozen=True, slots=True)
class Operation:
    """Base of every table operation."""

    #: The operation's name in JSON.
    name: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """The operation as the bus carries it: its ``op`` and its ``args``."""
        args = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        return {"op": self.name, "args": args}


@dataclass(frozen=True, slots=True)
class View(Operation):
    """The table as ``viewer`` (``None``: a watcher) or its dealer sees it."""

    name: ClassVar[str] = "view"
    viewer: str | None
    dealer: bool


@dataclass(frozen=True, slots=True)
class Welcome(Operation):
    """A signed-in user arrives (or comes back): the table as he sees it."""

    name: ClassVar[str] = "welcome"
    viewer: str
    dealer: bool


@dataclass(frozen=True, slots=True)
class Summary(Operation):
    """The table's summary for the lobby; ``watching``: the sockets at it elsewhere."""

    name: ClassVar[str] = "summary"
    watching: int


@dataclass(frozen=True, slots=True)
class EventsSince(Operation):
    """The events of round ``round`` from the ``first``-th on, as a watcher (or the
    ``dealer``) sees them."""

    name: ClassVar[str] = "events_since"
    round: str
    first: int
    dealer: bool


@dataclass(frozen=True, slots=True)
class Log(Operation):
    """The table's log: its last ``rounds`` finished rounds and the round at the table."""

    name: ClassVar[str] = "log"
    rounds: int


@dataclass(frozen=True, slots=True)
class TakeBox(Operation):
    """Reserve a box for ``player``."""

    name: ClassVar[str] = "take_box"
    player: str
    box: int


@dataclass(frozen=True, slots=True)
class LeaveBox(Operation):
    """Give ``player``'s reserved box back."""

    name: ClassVar[str] = "leave_box"
    player: str
    box: int


@dataclass(frozen=True, slots=True)
class Disconnected(Operation):
    """``player``'s last socket at the table closed (at ``now``)."""

    name: ClassVar[str] = "disconnected"
    player: str
    now: float


@dataclass(frozen=True, slots=True)
class ConfirmBets(Operation):
    """``player`` says his bets are made (at ``now``)."""

    name: ClassVar[str] = "confirm_bets"
    player: str
    now: float


@dataclass(frozen=True, slots=True)
class Apply(Operation):
    """An input to the round: the engine's ``command`` (or the dealer's cut card mark),
    checked already for who may issue it, sent at ``now`` by user ``user``, with the
    client's idempotency ``key``; ``by``: the dealer account that entered a dealer's
    input; ``given``: the arguments the client gave, which the record keeps as he sent
    them (``None``: every one)."""

    name: ClassVar[str] = "apply"
    command: Input
    now: float
    user: int
    key: str | None = None
    by: str | None = None
    given: frozenset[str] | None = None

    @property
    def player(self) -> str | None:
        """The player who issues the command (``None``: a dealer's input)."""
        return player_of(self.command)

    def to_json(self) -> dict[str, Any]:
        """As the bus carries it: the command as the client sent it (its ``op``, its
        ``player``, the arguments he gave), and who sent it when."""
        command = self.command
        args = {} if isinstance(command, CutCard) else arguments(command, self.given)
        return {
            "op": self.name,
            "args": {
                "op": command.op,
                "player": self.player,
                "args": args,
                "now": self.now,
                "key": self.key,
                "user": self.user,
                "by": self.by,
            },
        }


#: Every table operation.
TableOperation = (
    View
    | Welcome
    | Summary
    | EventsSince
    | Log
    | TakeBox
    | LeaveBox
    | Disconnected
    | ConfirmBets
    | Apply
)

_O = TypeVar("_O", bound=Operation)


def _reading(cls: type[_O]) -> tuple[Callable[..., _O], dict[str, Any]]:
    """How to make ``cls`` from its JSON: the class, and each field's type."""
    hints = typing.get_type_hints(cls)
    return cls, {field.name: hints[field.name] for field in dataclasses.fields(cls)}


#: Every operation but :class:`Apply`, by name: its class and its fields' types.
_READ: dict[str, tuple[Callable[..., TableOperation], dict[str, Any]]] = {
    View.name: _reading(View),
    Welcome.name: _reading(Welcome),
    Summary.name: _reading(Summary),
    EventsSince.name: _reading(EventsSince),
    Log.name: _reading(Log),
    TakeBox.name: _reading(TakeBox),
    LeaveBox.name: _reading(LeaveBox),
    Disconnected.name: _reading(Disconnected),
    ConfirmBets.name: _reading(ConfirmBets),
}


def _value(name: str, field: str, hint: Any, value: object) -> Any:
    """``value`` of the operation ``name``'s ``field`` if it is of its type (``hint``;
    a float may be written as an integer)."""
    kinds = typing.get_args(hint) or (hint,)
    if value is None and type(None) in kinds:
        return None
    if float in kinds and type(value) is int:
        return float(value)
    if any(kind is not type(None) and type(value) is kind for kind in kinds):
        return value
    raise MalformedOperation(f"{name}: {field} is {type(value).__name__}, not {hint}")


def from_json(body: object) -> TableOperation:
    """The operation a request from another process carries (:meth:`Operation.to_json`).

    Raises:
        MalformedOperation: not a table operation, or a field missing or of the wrong
            type; the message says which.
        InputError: an input that is not one of the engine's commands.
    """
    if not isinstance(body, dict) or not isinstance(body.get("args"), dict):
        raise MalformedOperation('a table operation is an object with an "op" and "args"')
    name, args = body.get("op"), body["args"]
    if name == Apply.name:
        return _apply(args)
    reading = _READ.get(name) if isinstance(name, str) else None
    if reading is None:
        raise MalformedOperation(f"no table operation {name!r}")
    make, fields = reading
    values = {}
    for field, hint in fields.items():
        if field not in args:
            raise MalformedOperation(f"{name}: {field} is missing")
        values[field] = _value(str(name), field, hint, args[field])
    return make(**values)


def _apply(args: dict[str, Any]) -> Apply:
    given = args.get("args")
    if not isinstance(given, dict):
        raise MalformedOperation('apply: "args" must be an object')
    command: Input
    if args.get("op") == CutCard.op:
        if given:
            raise InputError(f"cut_card: unknown argument {next(iter(given))!r}")
        command = CutCard()
    else:
        command = command_from_json(
            {"op": args.get("op"), "player": args.get("player"), "args": given}
        )
    return Apply(
        command,
        now=_value("apply", "now", float, args.get("now")),
        user=_value("apply", "user", int, args.get("user")),
        key=_value("apply", "key", str | None, args.get("key")),
        by=_value("apply", "by", str | None, args.get("by")),
        given=frozenset(given),
    )
