"""The table protocol: every WebSocket message, as Pydantic models (``docs/protocol.md``).

A client's message is one JSON object with a ``type``: :data:`ClientMessage` is their
union, discriminated by it.  An ``action`` carries one of the engine's commands
(:mod:`croupier.commands`), discriminated by its ``op``: one model per command class,
made from it (:data:`ACTIONS`), its ``args`` the command's fields but the player, who
is always the signed-in user.  So the vocabulary is written once, in the engine.

Anything else (text that is not JSON, an unknown type or op, a missing or extra field,
an amount that is not exact money written as text) is refused with a
:class:`ProtocolError` whose ``code`` and message say what was wrong; the table is not
touched.

>>> action = parse_message('{"type": "action", "op": "bet", "args": {"box": 1, "amount": "25"}}')
>>> type(action).__name__, action.op, action.arguments(), action.command.__name__
('PlaceBetAction', 'bet', {'box': 1, 'amount': '25'}, 'PlaceBet')
>>> bad = '{"type": "action", "op": "bet", "args": {"box": 1, "amount": 25.5}}'
>>> parse_message(bad)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
croupier.server.protocol.ProtocolError: numbers with a fraction are not taken: ...
>>> try:  # doctest: +ELLIPSIS
...     parse_message('{"type": "action", "op": "decline", "args": {"box": 1, "kind": "pass"}}')
... except ProtocolError as error:
...     print(error.code, error)
invalid decline: unknown kind 'pass'; expected one of insurance, even-money, surrender, ...

The server's messages are :data:`ServerMessage`, discriminated by ``type`` as well.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import json
import operator
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    create_model,
)

from croupier.commands import COMMANDS, Command, Issuer

__all__ = [
    "ACTIONS",
    "CLIENT_MESSAGES",
    "MAX_MESSAGE_BYTES",
    "SERVER_MESSAGES",
    "Ack",
    "Action",
    "Auth",
    "Balance",
    "BetsConfirmed",
    "ClientMessage",
    "ConfirmBets",
    "CutCardAction",
    "Error",
    "Events",
    "EventsSince",
    "LeaveBox",
    "Message",
    "Ping",
    "Pong",
    "ProtocolError",
    "RateLimiter",
    "ServerMessage",
    "State",
    "TakeBox",
    "Welcome",
    "message_schema",
    "parse_message",
    "read_server_message",
    "server_message_schema",
]

#: The largest message a client may send.
MAX_MESSAGE_BYTES = 4096
#: The longest text an action's argument may be.
MAX_TEXT = 200
# ASCII digits only: Decimal would also read other scripts' digits ("٢٥" as 25).
_MONEY = re.compile(r"[0-9]{1,12}(\.[0-9]{1,8})?")


class ProtocolError(ValueError):
    """A message the server cannot take; ``code`` names the kind of problem."""

    def __init__(self, message: str, *, code: str = "invalid") -> None:
        super().__init__(message)
        self.code = code


class Message(BaseModel):
    """Every message of the protocol: a frozen JSON object whose fields are all known."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# -- a client's messages ----------------------------------------------------------------------


class Auth(Message):
    """Sign this connection in with a session token, or without one with the session
    cookie the browser sent when it opened the socket."""

    type: Literal["auth"]
    token: str | None = Field(default=None, min_length=1, max_length=200)


class Ping(Message):
    """Keep the connection alive; answered by ``pong``."""

    type: Literal["ping"]


class TakeBox(Message):
    """Reserve a box: others may bet behind once its player has bet."""

    type: Literal["take_box"]
    box: int = Field(ge=1, le=9, strict=True)


class LeaveBox(Message):
    """Give a reserved box back."""

    type: Literal["leave_box"]
    box: int = Field(ge=1, le=9, strict=True)


class ConfirmBets(Message):
    """Say that one's bets are made: answered by ``bets_confirmed`` with their total; the
    deal starts as soon as every player with a bet on the layout has confirmed."""

    type: Literal["confirm_bets"]


class EventsSince(Message):
    """Ask for the events of the round at the table from the ``first``-th on (after an
    ``events`` message whose ``first`` is past what the client has: it missed some)."""

    type: Literal["events_since"]
    round: str = Field(min_length=1, max_length=64)
    first: int = Field(ge=0, le=1_000_000)


class _Arguments(Message):
    """An action's arguments (none)."""


class Action(Message):
    """An input to the round: a bet, a decision, an answer, or a dealer's entry.

    One subclass per command (:data:`ACTIONS`), whose ``op`` and ``args`` it fixes.
    A ``key`` makes the action idempotent within its round.
    """

    type: Literal["action"]
    op: str
    args: _Arguments = _Arguments()
    key: str | None = Field(default=None, min_length=1, max_length=100)

    #: The engine's command it carries (``None``: the server's own cut card mark).
    command: ClassVar[builtins.type[Command] | None] = None
    #: Who may send it: a player, for himself; a dealer; or nobody (the table's own).
    issuer: ClassVar[Issuer] = Issuer.TABLE
    #: The arguments it must have.
    required: ClassVar[tuple[str, ...]] = ()

    def arguments(self) -> dict[str, Any]:
        """The arguments as the client gave them (those left out stay out), as the
        table records them."""
        return self.args.model_dump(mode="json", exclude_unset=True)


class _NoArguments(_Arguments):
    """No arguments."""


class CutCardAction(Action):
    """The cut card came out: the shoe is shuffled after this round (a table dealt by
    hand; the server's mark, not an engine command)."""

    model_config = ConfigDict(title="CutCard", json_schema_extra={"x-issuer": "dealer"})

    op: Literal["cut_card"]
    args: _NoArguments = _NoArguments()

    issuer: ClassVar[Issuer] = Issuer.DEALER


def _money(value: object, info: ValidationInfo) -> object:
    if not isinstance(value, str) or _MONEY.fullmatch(value) is None:
        raise ValueError(
            f'{info.field_name} must be exact money written as text, such as "25.00", not {value!r}'
        )
    return value


def _box(value: object, info: ValidationInfo) -> object:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{info.field_name} must be a box number, not {value!r}")
    return value


def _text(value: object, info: ValidationInfo) -> object:
    if not isinstance(value, str):
        raise ValueError(f"{info.field_name} must be text, not {value!r}")
    if len(value) > MAX_TEXT:
        raise ValueError(f"{info.field_name} is too long (at most {MAX_TEXT} characters)")
    return value


def _choice(kind: type[StrEnum]) -> Any:
    def check(value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str) or value not in {member.value for member in kind}:
            choices = ", ".join(member.value for member in kind)
            raise ValueError(f"unknown {info.field_name} {value!r}; expected one of {choices}")
        return kind(value)

    return BeforeValidator(check)


#: Money as exact text (``"25.00"``), never a JSON number.
Money = Annotated[
    str,
    BeforeValidator(_money),
    Field(json_schema_extra={"pattern": f"^{_MONEY.pattern}$"}),
]
#: A box's number.
BoxNumber = Annotated[int, BeforeValidator(_box), Field(ge=1)]
#: Text of at most :data:`MAX_TEXT` characters.
Text = Annotated[str, BeforeValidator(_text), Field(json_schema_extra={"maxLength": MAX_TEXT})]


def _argument_type(hint: Any) -> Any:
    """The protocol's type of a command field's type (``X | None`` stays optional)."""
    arguments = typing.get_args(hint)
    base = next((arg for arg in arguments if arg is not type(None)), hint)
    if base is Decimal:
        kind: Any = Money
    elif base is int:
        kind = BoxNumber
    elif base is str:
        kind = Text
    elif isinstance(base, type) and issubclass(base, StrEnum):
        kind = Annotated[base, _choice(base)]
    else:  # pragma: no cover - a new kind of field needs its protocol type here
        raise TypeError(f"no protocol type for a command field of type {hint!r}")
    return kind | None if type(None) in arguments else kind


def _action(command: type[Command]) -> type[Action]:
    """The action model of one command: its op, and its fields but the player."""
    hints = typing.get_type_hints(command)
    fields: dict[str, Any] = {}
    for item in dataclasses.fields(command):
        if item.name == "player":
            continue
        default = ... if item.default is dataclasses.MISSING else item.default
        fields[item.name] = (_argument_type(hints[item.name]), default)
    name = command.__name__
    op: Any = Literal[command.op]
    description = (command.__doc__ or "").strip()
    arguments: type[_Arguments] = create_model(
        f"{name}Arguments",
        __base__=_Arguments,
        __doc__=f"The arguments of {command.op}.",
        **fields,
    )
    required = any(default is ... for _, default in fields.values())
    model: type[Action] = create_model(
        f"{name}Action",
        __base__=Action,
        __doc__=description,
        __cls_kwargs__={"title": name, "json_schema_extra": {"x-issuer": command.issuer.value}},
        op=(op, ...),
        args=(arguments, ... if required else arguments()),
    )
    model.command = command
    model.required = tuple(argument for argument, (_, default) in fields.items() if default is ...)
    model.issuer = command.issuer
    return model


#: Every action a client may send, one per engine command (those the table issues
#: itself too: a client that sends one is refused as ``forbidden``), and the cut card.
ACTIONS: tuple[type[Action], ...] = (
    *(_action(command) for command in COMMANDS.values()),
    CutCardAction,
)
#: Every other message a client may send.
CLIENT_MESSAGES: tuple[type[Message], ...] = (
    Auth,
    Ping,
    TakeBox,
    LeaveBox,
    ConfirmBets,
    EventsSince,
)

_ACTION: Any = Annotated[functools.reduce(operator.or_, ACTIONS), Field(discriminator="op")]
_CLIENT: Any = functools.reduce(operator.or_, CLIENT_MESSAGES)
#: A client's message: one of :data:`CLIENT_MESSAGES` or of :data:`ACTIONS`.
ClientMessage: Any = Annotated[_CLIENT | _ACTION, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Auth | Ping | TakeBox | LeaveBox | ConfirmBets | EventsSince | Action] = (
    TypeAdapter(ClientMessage)
)
_KINDS: list[type[Message]] = [*CLIENT_MESSAGES, Action]
_TYPES: tuple[str, ...] = tuple(
    typing.get_args(model.model_fields["type"].annotation)[0] for model in _KINDS
)
_BY_OP: dict[str, type[Action]] = {
    typing.get_args(model.model_fields["op"].annotation)[0]: model for model in ACTIONS
}
_OPS = tuple(_BY_OP)


def message_schema() -> dict[str, Any]:
    """A JSON Schema of every client message; each action by its command.

    >>> schema = message_schema()
    >>> schema["$defs"]["ReturnBetsAction"]["properties"]["args"]["$ref"]
    '#/$defs/ReturnBetsArguments'
    >>> returning = schema["$defs"]["ReturnBetsAction"]
    >>> returning["title"], returning["x-issuer"], returning["required"]
    ('ReturnBets', 'dealer', ['type', 'op', 'args'])
    """
    schema = _ADAPTER.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "croupier table protocol: client messages"
    return schema


def parse_message(
    text: str,
) -> Auth | Ping | TakeBox | LeaveBox | ConfirmBets | EventsSince | Action:
    """One client message, validated.

    Raises:
        ProtocolError: ``malformed`` (not a JSON object), ``unknown_type``, or
            ``invalid`` (an unknown action, or a field missing, extra or wrong); the
            message says which.
    """
    try:
        data = _DECODER.decode(text)
    except ProtocolError:
        raise
    except ValueError as error:
        raise ProtocolError(f"not JSON: {error}", code="malformed") from None
    except RecursionError:
        raise ProtocolError("not a message: JSON nested too deeply", code="malformed") from None
    if not isinstance(data, dict):
        raise ProtocolError('a message is a JSON object with a "type"', code="malformed")
    kind = data.get("type")
    if kind not in _TYPES:
        raise ProtocolError(
            f"unknown message type {kind!r}; expected one of {', '.join(_TYPES)}",
            code="unknown_type",
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as error:
        raise ProtocolError(_in_words(data, error.errors()[0]), code="invalid") from None


def _in_words(data: dict[str, Any], problem: Any) -> str:
    """A validation problem as one sentence naming the field."""
    kind = problem["type"]
    where = [str(part) for part in problem["loc"][1:]]  # the message's type comes first
    if kind == "union_tag_invalid":
        return f"unknown action {data.get('op')!r}; expected one of {', '.join(_OPS)}"
    if kind == "union_tag_not_found":
        return f'an action needs an "op": one of {", ".join(_OPS)}'
    reason = str(problem["msg"]).removeprefix("Value error, ")
    if data.get("type") == "action" and where:
        op, where = where[0], where[1:]
        if where[:1] == ["args"] and len(where) == 2:
            name = where[1]
            if kind == "extra_forbidden":
                return f"{op}: unknown argument {name!r}"
            if kind == "missing":
                return f"{op}: needs {name}"
            return f"{op}: {reason}" if kind == "value_error" else f"{op}: {name}: {reason}"
        if where == ["args"]:
            return f'{op}: "args" must be an object with {", ".join(_BY_OP[op].required)}'
    return f"{'.'.join(where) or 'message'}: {reason}"


def _no_float(text: str) -> object:
    """JSON numbers with a fraction or exponent are refused where money is concerned."""
    raise ProtocolError(
        f'numbers with a fraction are not taken: write money as text, such as "25.00", not {text}',
        code="invalid",
    )


def _no_constant(text: str) -> object:
    raise ProtocolError(f"{text} is not a JSON value", code="malformed")


#: The messages' JSON reader: made once (``json.loads`` with hooks makes one a call).
_DECODER = json.JSONDecoder(parse_float=_no_float, parse_constant=_no_constant)


# -- the server's messages --------------------------------------------------------------------


class Welcome(Message):
    """The table as this connection sees it: on connecting (``you`` null) and after
    ``auth`` (``you``: the player's name)."""

    type: Literal["welcome"]
    table: str
    you: str | None
    state: dict[str, Any]


class State(Message):
    """The table as this connection sees it, after every change."""

    type: Literal["state"]
    state: dict[str, Any]


class Events(Message):
    """The events a change caused, in order, as this connection may see them."""

    type: Literal["events"]
    round: str
    #: The place of the first of ``events`` in the round's events (0: the round's first).
    first: int
    events: list[dict[str, Any]]


class Ack(Message):
    """An action was accepted: ``seq`` is its place in the round's record; ``retried``
    an action whose key was already taken (nothing happened twice)."""

    type: Literal["ack"]
    op: str
    seq: int
    retried: bool
    key: str | None = None


class BetsConfirmed(Message):
    """A ``confirm_bets`` was taken: the total of the player's bets on the layout."""

    type: Literal["bets_confirmed"]
    total: Money


class Balance(Message):
    """The player's balance, after it changed."""

    type: Literal["balance"]
    balance: Money


class Error(Message):
    """A message refused: ``code`` names the kind, ``message`` says what was wrong in
    the player's words, ``key`` is the refused action's, and ``clause`` names the rule
    the refusal rests on, where it rests on one."""

    type: Literal["error"]
    code: str
    message: str
    key: str | None = None
    clause: str | None = None


class Pong(Message):
    """The answer to ``ping``."""

    type: Literal["pong"]


#: Every message the server sends.
SERVER_MESSAGES: tuple[type[Message], ...] = (
    Welcome,
    State,
    Events,
    Ack,
    BetsConfirmed,
    Balance,
    Error,
    Pong,
)
#: A message of the server's: one of :data:`SERVER_MESSAGES`.
ServerMessage: Any = Annotated[
    functools.reduce(operator.or_, SERVER_MESSAGES), Field(discriminator="type")
]
_SERVER_ADAPTER: TypeAdapter[Message] = TypeAdapter(ServerMessage)


def server_message_schema() -> dict[str, Any]:
    """A JSON Schema of every message the server sends.

    >>> sorted(server_message_schema()["discriminator"]["mapping"])[:3]
    ['ack', 'balance', 'bets_confirmed']
    """
    schema = _SERVER_ADAPTER.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "croupier table protocol: server messages"
    return schema


def read_server_message(message: str | Mapping[str, Any]) -> Message:
    """One of the server's messages (its JSON text, or the object), read back and
    validated: for clients and tests.

    >>> read_server_message('{"type": "balance", "balance": "975.00"}')
    Balance(type='balance', balance='975.00')

    Raises:
        pydantic.ValidationError: not a message the server sends, or a field missing,
            extra or wrong.
    """
    if isinstance(message, str):
        return _SERVER_ADAPTER.validate_json(message)
    return _SERVER_ADAPTER.validate_python(message)


@dataclass
class RateLimiter:
    """A token bucket: ``rate`` messages a second, bursts up to ``burst``.

    >>> limiter = RateLimiter(rate=1, burst=2)
    >>> [limiter.allow(0.0), limiter.allow(0.0), limiter.allow(0.0), limiter.allow(1.0)]
    [True, True, False, True]
    """

    rate: float = 20.0
    burst: float = 40.0
    _tokens: float | None = field(default=None, repr=False)
    _last: float = field(default=0.0, repr=False)

    def allow(self, now: float) -> bool:
        """Take a token if one is left at ``now`` (seconds)."""
        tokens = self.burst if self._tokens is None else self._tokens
        tokens = min(self.burst, tokens + (now - self._last) * self.rate)
        self._last = now
        if tokens < 1:
            self._tokens = tokens
            return False
        self._tokens = tokens - 1
        return True
