"""Commands: every input a round takes, one frozen class each.

A command is plain data: who issues it (:class:`Issuer`: a player, the dealer, or
the table's own clock and seating), its arguments, and its JSON form.  A round
takes one with :meth:`Round.apply <croupier.round.Round.apply>` and returns the
events it caused; its methods (``hit()``, ``place_bet()``...) are shorthand for the
same.  The round script's inputs, the table server's records, its protocol and its
permissions are all read from these classes (:func:`command_schema`), so the
vocabulary is written once.

In JSON a command is ``{"op": ..., "player": ..., "args": {...}}``: the player who
issues it (where one does) and its other arguments, money as exact text.

>>> command = PlaceBet(player="ann", box=1, amount=Decimal("25"))
>>> command.to_json()
{'op': 'bet', 'player': 'ann', 'args': {'box': 1, 'amount': '25', 'bet': 'main'}}
>>> command_from_json(command.to_json()) == command
True
>>> command_from_json({"op": "hit", "player": "ann", "args": {}})
Hit(player='ann')
>>> Hit.issuer, DealCard.issuer, CloseBets.issuer
(<Issuer.PLAYER: 'player'>, <Issuer.DEALER: 'dealer'>, <Issuer.TABLE: 'table'>)
>>> command_from_json({"op": "bet", "player": "ann", "args": {"box": 1, "amount": 25.5}})
Traceback (most recent call last):
...
croupier.commands.InputError: bet: amount must be exact money written as text, such as ...
"""

from __future__ import annotations

import dataclasses
import decimal
import typing
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, ClassVar

from croupier._frozen import quick_init
from croupier.errors import CroupierError
from croupier.round_state import MAIN, OfferKind

__all__ = [
    "COMMANDS",
    "CloseBets",
    "Command",
    "DealCard",
    "Decline",
    "DoubleDown",
    "Follow",
    "Hit",
    "InputError",
    "Interrupt",
    "Issuer",
    "PlaceBet",
    "ReturnBets",
    "Settle",
    "Split",
    "Stand",
    "Surrender",
    "TakeEvenMoney",
    "TakeInsurance",
    "TimeOut",
    "Void",
    "WalkAway",
    "Withdraw",
    "command_from_json",
    "command_schema",
    "ops_for",
]


class InputError(CroupierError):
    """An input that is not well formed: an unknown operation or a wrong argument."""


class Issuer(StrEnum):
    """Who may issue a command."""

    #: A player, for himself: bets, decisions, answers to offers.
    PLAYER = "player"
    #: The dealer or the pit: cards entered, voids, interruptions, dealing errors.
    DEALER = "dealer"
    #: The table itself: its clocks close bets and time decisions out, its seating
    #: tells who walked away.
    TABLE = "table"


@dataclass(frozen=True, slots=True)
class Command:
    """Base of every command."""

    #: The command's name in JSON.
    op: ClassVar[str]
    #: Who may issue it.
    issuer: ClassVar[Issuer]
    #: The word for it in a round script's ``decisions``, where it has one.
    word: ClassVar[str | None] = None

    def to_json(self) -> dict[str, Any]:
        """The command as JSON values: ``op``, ``player`` and ``args``."""
        player = None
        args: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "player":
                player = value
            elif value is not None:
                args[field.name] = (
                    value.value
                    if isinstance(value, StrEnum)
                    else (str(value) if isinstance(value, Decimal) else value)
                )
        return {"op": self.op, "player": player, "args": args}


@dataclass(frozen=True, slots=True)
class PlaceBet(Command):
    """Place (or add to) a bet while bets are open; a side bet names its key."""

    op: ClassVar[str] = "bet"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    player: str
    box: int
    amount: Decimal
    bet: str = MAIN


@dataclass(frozen=True, slots=True)
class Withdraw(Command):
    """Take a bet back while bets are open."""

    op: ClassVar[str] = "withdraw"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    player: str
    box: int
    bet: str = MAIN


@dataclass(frozen=True, slots=True)
class CloseBets(Command):
    """ "No more bets": the deal starts (RWS v5 3.10)."""

    op: ClassVar[str] = "close_bets"
    issuer: ClassVar[Issuer] = Issuer.TABLE


@dataclass(frozen=True, slots=True)
class Hit(Command):
    """Draw a card to the hand whose turn it is (``player``: the seated player, if named)."""

    op: ClassVar[str] = "hit"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "hit"
    player: str | None = None


@dataclass(frozen=True, slots=True)
class Stand(Command):
    """Stand on the hand whose turn it is."""

    op: ClassVar[str] = "stand"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "stand"
    player: str | None = None


@dataclass(frozen=True, slots=True)
class DoubleDown(Command):
    """Double the hand whose turn it is (for ``amount``, where less is allowed)."""

    op: ClassVar[str] = "double"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "double"
    player: str | None = None
    amount: Decimal | None = None


@dataclass(frozen=True, slots=True)
class Split(Command):
    """Split the pair whose turn it is."""

    op: ClassVar[str] = "split"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "split"
    player: str | None = None


@dataclass(frozen=True, slots=True)
class Surrender(Command):
    """Surrender the hand whose turn it is, or accept a box's RWS surrender offer."""

    op: ClassVar[str] = "surrender"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "surrender"
    player: str | None = None
    box: int | None = None


@dataclass(frozen=True, slots=True)
class TakeInsurance(Command):
    """Insure a bet against a dealer blackjack (up to half the initial bet)."""

    op: ClassVar[str] = "insurance"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "insurance"
    player: str
    box: int
    amount: Decimal | None = None


@dataclass(frozen=True, slots=True)
class TakeEvenMoney(Command):
    """Take even money for a blackjack against a dealer Ace (RWS v5 3.14.1)."""

    op: ClassVar[str] = "even_money"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "even-money"
    player: str
    box: int


@dataclass(frozen=True, slots=True)
class Follow(Command):
    """Follow the seated player's split or double (RWS v5 3.21.1, 3.22.1)."""

    op: ClassVar[str] = "follow"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "follow"
    player: str
    box: int


@dataclass(frozen=True, slots=True)
class Decline(Command):
    """Decline an open offer (the first on the box when no kind is named)."""

    op: ClassVar[str] = "decline"
    issuer: ClassVar[Issuer] = Issuer.PLAYER
    word: ClassVar[str | None] = "decline"
    player: str
    box: int
    kind: OfferKind | None = None


@dataclass(frozen=True, slots=True)
class TimeOut(Command):
    """The time to decide ran out: offers are declined, a hand plays by RWS v5 5.3."""

    op: ClassVar[str] = "time_out"
    issuer: ClassVar[Issuer] = Issuer.TABLE


@dataclass(frozen=True, slots=True)
class WalkAway(Command):
    """A player left the table with bets in play (RWS v5 5.3)."""

    op: ClassVar[str] = "walk_away"
    issuer: ClassVar[Issuer] = Issuer.TABLE
    who: str


@dataclass(frozen=True, slots=True)
class ReturnBets(Command):
    """After a dealing error, the dealer returns a player's bets on a box (RWS v5 5.7.3)."""

    op: ClassVar[str] = "return_bets"
    issuer: ClassVar[Issuer] = Issuer.DEALER
    who: str
    box: int


@dataclass(frozen=True, slots=True)
class DealCard(Command):
    """The dealer enters the next card from a physical shoe."""

    op: ClassVar[str] = "card"
    issuer: ClassVar[Issuer] = Issuer.DEALER
    card: str


@dataclass(frozen=True, slots=True)
class Void(Command):
    """Void the round: every bet comes back (RWS v5 5.17)."""

    op: ClassVar[str] = "void"
    issuer: ClassVar[Issuer] = Issuer.DEALER
    reason: str


@dataclass(frozen=True, slots=True)
class Interrupt(Command):
    """A technical interruption or malfunction (RWS v5 5.4)."""

    op: ClassVar[str] = "interrupt"
    issuer: ClassVar[Issuer] = Issuer.DEALER


@dataclass(frozen=True, slots=True)
class Settle(Command):
    """The dealer settles the round (where settlement does not follow by itself)."""

    op: ClassVar[str] = "settle"
    issuer: ClassVar[Issuer] = Issuer.DEALER


#: Every command class by its ``op``.
COMMANDS: dict[str, type[Command]] = {
    cls.op: cls
    for cls in (
        PlaceBet,
        Withdraw,
        CloseBets,
        Hit,
        Stand,
        DoubleDown,
        Split,
        Surrender,
        TakeInsurance,
        TakeEvenMoney,
        Follow,
        Decline,
        TimeOut,
        WalkAway,
        ReturnBets,
        DealCard,
        Void,
        Interrupt,
        Settle,
    )
}


for _cls in COMMANDS.values():
    quick_init(_cls, kw_only=False)


def ops_for(issuer: Issuer) -> frozenset[str]:
    """The ops a given issuer may send.

    >>> sorted(ops_for(Issuer.TABLE))
    ['close_bets', 'time_out', 'walk_away']
    """
    return frozenset(op for op, cls in COMMANDS.items() if cls.issuer is issuer)


# -- reading commands ---------------------------------------------------------------------------


def _hints(cls: type[Command]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {field.name: hints[field.name] for field in dataclasses.fields(cls)}


_HINTS = {op: _hints(cls) for op, cls in COMMANDS.items()}


def _read(op: str, name: str, kind: tuple[type, bool], value: object) -> object:
    base, optional = kind
    if base is str and type(value) is str and value and not optional:
        return value
    if value is None:
        if optional:
            return None
        raise InputError(f"{op}: needs {'the player who makes it' if name == 'player' else name}")
    if base is Decimal:
        if not isinstance(value, str):
            raise InputError(
                f'{op}: {name} must be exact money written as text, such as "25.00", not {value!r}'
            )
        if not value.isascii():  # Decimal would read other scripts' digits ("٢٥" as 25)
            raise InputError(
                f'{op}: {name} {value!r} is not a number in digits 0-9, such as "25.00"'
            )
        try:
            return Decimal(value.strip())
        except decimal.InvalidOperation:
            raise InputError(f"{op}: {name} {value!r} is not a number") from None
    if base is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{op}: {name} must be a box number, not {value!r}")
        return value
    if base is OfferKind:
        try:
            return OfferKind(str(value))
        except ValueError:
            raise InputError(
                f"{op}: unknown offer {value!r}; expected one of "
                f"{', '.join(kind.value for kind in OfferKind)}"
            ) from None
    if not isinstance(value, str) or (name == "player" and not value):
        raise InputError(f"{op}: {name} must be text, not {value!r}")
    return value


def command_from_json(data: object) -> Command:
    """The command a JSON record describes (``op``, ``player``, ``args``).

    Raises:
        InputError: an unknown op, an unknown or missing argument, or a value of the
            wrong kind; the message names it.
    """
    if not isinstance(data, dict) or not isinstance(data.get("op"), str):
        raise InputError('an input must be an object with an "op"')
    op = data["op"]
    cls = COMMANDS.get(op)
    if cls is None:
        raise InputError(f"unknown input {op!r}; expected one of {', '.join(COMMANDS)}")
    args = data.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise InputError(f'{op}: "args" must be an object')
    fields = _FIELDS[op]
    for name in args:
        if name not in fields or name == "player":
            raise InputError(f"{op}: unknown argument {name!r}")
    values: dict[str, object] = {}
    for name, kind, has_default in fields.values():
        if name == "player":
            raw = data.get("player")
        elif name in args:
            raw = args[name]
        elif has_default:
            continue
        else:
            raw = None
        values[name] = _read(op, name, kind, raw)
    return cls(**values)


def _kind(hint: Any) -> tuple[type, bool]:
    arguments = typing.get_args(hint)
    base = next((arg for arg in arguments if arg is not type(None)), hint)
    return base, type(None) in arguments


# Each command's fields: name, (type, optional), whether it has a default.
_FIELDS = {
    op: {
        field.name: (
            field.name,
            _kind(_HINTS[op][field.name]),
            field.default is not dataclasses.MISSING,
        )
        for field in dataclasses.fields(cls)
    }
    for op, cls in COMMANDS.items()
}


# -- the schema ---------------------------------------------------------------------------------


def _schema_of(hint: Any) -> dict[str, Any]:
    args = typing.get_args(hint)
    base = next((arg for arg in args if arg is not type(None)), hint)
    if base is Decimal:
        schema: dict[str, Any] = {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*$"}
    elif base is int:
        schema = {"type": "integer", "minimum": 1}
    elif base is OfferKind:
        schema = {"enum": [kind.value for kind in OfferKind]}
    else:
        schema = {"type": "string", "minLength": 1}
    if type(None) in args:
        return {"anyOf": [schema, {"type": "null"}]}
    return schema


def _player_required(hints: dict[str, Any]) -> bool:
    return "player" in hints and type(None) not in typing.get_args(hints["player"])


def command_schema() -> dict[str, Any]:
    """A JSON Schema of every command as JSON, read from the command classes.

    >>> schema = command_schema()
    >>> len(schema["oneOf"]) == len(COMMANDS)
    True
    >>> bet = next(s for s in schema["oneOf"] if s["properties"]["op"]["const"] == "bet")
    >>> sorted(bet["properties"]["args"]["required"]), bet["x-issuer"]
    (['amount', 'box'], 'player')
    """
    variants = []
    for op, cls in COMMANDS.items():
        hints = _HINTS[op]
        args: dict[str, Any] = {}
        required: list[str] = []
        player: dict[str, Any] = {"type": "null"}
        for field in dataclasses.fields(cls):
            if field.name == "player":
                player = _schema_of(hints["player"])
                continue
            args[field.name] = _schema_of(hints[field.name])
            if field.default is dataclasses.MISSING:
                required.append(field.name)
        variant: dict[str, Any] = {
            "type": "object",
            "title": cls.__name__,
            "description": (cls.__doc__ or "").strip(),
            "x-issuer": cls.issuer.value,
            "properties": {
                "op": {"const": op},
                "player": player,
                "args": {
                    "type": "object",
                    "properties": args,
                    "required": required,
                    "additionalProperties": False,
                },
            },
            "required": ["op", "args", *(["player"] if _player_required(hints) else [])],
        }
        if cls.word is not None:
            variant["x-script-word"] = cls.word
        variants.append(variant)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://croupier.invalid/schema/command.json",
        "title": "croupier command",
        "oneOf": variants,
    }
