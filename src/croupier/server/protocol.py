"""The table protocol's client messages, validated (see ``docs/protocol.md``).

Every message is one JSON object with a ``type``.  Anything else (text that is not
JSON, an unknown type, a missing or extra field, an amount that is not exact money
written as text) is refused with a :class:`ProtocolError` whose ``code`` and message
say what was wrong; the table is not touched.

>>> parse_message('{"type": "action", "op": "bet", "args": {"box": 1, "amount": "25"}}').op
'bet'
>>> bad = '{"type": "action", "op": "bet", "args": {"box": 1, "amount": 25.5}}'
>>> parse_message(bad)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
croupier.server.protocol.ProtocolError: numbers with a fraction are not taken: ...
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from croupier.inputs import INPUT_OPS

__all__ = [
    "MAX_MESSAGE_BYTES",
    "Action",
    "Auth",
    "ClientMessage",
    "ConfirmBets",
    "LeaveBox",
    "Ping",
    "ProtocolError",
    "RateLimiter",
    "TakeBox",
    "message_schema",
    "parse_message",
]

#: The largest message a client may send.
MAX_MESSAGE_BYTES = 4096
_MONEY = re.compile(r"\d{1,12}(\.\d{1,8})?")


class ProtocolError(ValueError):
    """A message the server cannot take; ``code`` names the kind of problem."""

    def __init__(self, message: str, *, code: str = "invalid") -> None:
        super().__init__(message)
        self.code = code


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Auth(_Message):
    """Sign this connection in with a session token, or without one with the session
    cookie the browser sent when it opened the socket."""

    type: Literal["auth"]
    token: str | None = Field(default=None, min_length=1, max_length=200)


class Ping(_Message):
    """Keep the connection alive; answered by ``pong``."""

    type: Literal["ping"]


class TakeBox(_Message):
    """Reserve a box: others may bet behind once its player has bet."""

    type: Literal["take_box"]
    box: int = Field(ge=1, le=9)


class LeaveBox(_Message):
    """Give a reserved box back."""

    type: Literal["leave_box"]
    box: int = Field(ge=1, le=9)


class ConfirmBets(_Message):
    """Say that one's bets are made: answered by ``bets_confirmed`` with their total; the
    deal starts as soon as every player with a bet on the layout has confirmed."""

    type: Literal["confirm_bets"]


class Action(_Message):
    """An input to the round: a bet, a decision, an answer, or a dealer's entry."""

    type: Literal["action"]
    op: str = Field(json_schema_extra={"enum": [*INPUT_OPS, "cut_card"]})
    args: dict[str, Any] = Field(default_factory=dict)
    key: str | None = Field(default=None, min_length=1, max_length=100)

    @field_validator("op")
    @classmethod
    def _known(cls, op: str) -> str:
        if op not in INPUT_OPS and op != "cut_card":
            raise ValueError(f"unknown action {op!r}")
        return op

    @field_validator("args")
    @classmethod
    def _exact(cls, args: dict[str, Any]) -> dict[str, Any]:
        for name, value in args.items():
            if name == "amount" and value is not None:
                if not isinstance(value, str) or _MONEY.fullmatch(value) is None:
                    raise ValueError(
                        'amount must be exact money written as text, such as "25.00", '
                        f"not {value!r}"
                    )
            elif name == "box" and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"box must be a box number, not {value!r}")
            elif name not in ("amount", "box") and not isinstance(value, str):
                raise ValueError(f"{name} must be text, not {value!r}")
            if isinstance(value, str) and len(value) > 200:
                raise ValueError(f"{name} is too long (at most 200 characters)")
        return args


_Any = Auth | Ping | TakeBox | LeaveBox | ConfirmBets | Action
ClientMessage = Annotated[_Any, Field(discriminator="type")]
_ADAPTER: TypeAdapter[_Any] = TypeAdapter(ClientMessage)
_TYPES = ("auth", "ping", "take_box", "leave_box", "confirm_bets", "action")


def message_schema() -> dict[str, Any]:
    """A JSON Schema of every client message; an action's ``op`` is one of the commands.

    >>> schema = message_schema()
    >>> "return_bets" in schema["$defs"]["Action"]["properties"]["op"]["enum"]
    True
    """
    schema = _ADAPTER.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "croupier table protocol: client messages"
    return schema


def parse_message(text: str) -> _Any:
    """One client message, validated.

    Raises:
        ProtocolError: ``malformed`` (not a JSON object), ``unknown_type``, or
            ``invalid`` (a field is missing, extra or wrong); the message says which.
    """
    try:
        data = json.loads(text, parse_float=_no_float, parse_constant=_no_constant)
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
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        reason = str(first["msg"]).removeprefix("Value error, ")
        raise ProtocolError(
            reason if where in ("op", "args") else f"{where}: {reason}", code="invalid"
        ) from None


def _no_float(text: str) -> object:
    """JSON numbers with a fraction or exponent are refused where money is concerned."""
    raise ProtocolError(
        f'numbers with a fraction are not taken: write money as text, such as "25.00", not {text}',
        code="invalid",
    )


def _no_constant(text: str) -> object:
    raise ProtocolError(f"{text} is not a JSON value", code="malformed")


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
