"""A round's record, typed: what the server keeps of each round, and its JSON.

A round's record says everything needed to play the round again: the rules it was
played under (the preset's name and version, and the rules' values), how its cards
came (``dealt``: the server's shoe as the round found it, or a dealer entering them),
when it opened and closed, the shoe as the round left it, and every input in order
(:class:`RecordedInput`).  The server holds a :class:`RoundRecord`; JSON is only for
the database (:mod:`croupier.server.rounds_store`), at the edge: :meth:`RoundRecord.to_json`
gives the record as it has always been stored, and :meth:`RoundRecord.from_json`
reads one back, refusing a malformed one with :class:`MalformedRecord`.

Whether the round is in the database yet is not part of its record: it says where the
record is, not what the round was, and is never stored (the runtime keeps it beside).

>>> record = RoundRecord(
...     round_id="r1", table="t1", number=1, rules="rws-v5", rules_version=1,
...     dealt="dealer", shoe=None, opened_at="2026-11-27T20:00:00+00:00",
... )
>>> bet = RecordedInput("bet", "ann", {"box": 1, "amount": "10"}, at="2026-11-27T20:00:01Z")
>>> record = record.with_input(bet)
>>> record.to_json()["inputs"]  # doctest: +NORMALIZE_WHITESPACE
[{'op': 'bet', 'player': 'ann', 'args': {'box': 1, 'amount': '10'},
  'at': '2026-11-27T20:00:01Z', 'key': None}]
>>> RoundRecord.from_json(record.to_json()) == record
True
>>> RoundRecord.from_json({**record.to_json(), "number": "1"})
Traceback (most recent call last):
...
croupier.server.records.MalformedRecord: record of round 'r1': number must be an integer, not str
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from croupier.presets import rules_of_record
from croupier.rules import Rules
from croupier.server.errors import RoundError

__all__ = ["MalformedRecord", "RecordedInput", "RoundRecord"]

#: How a round's cards came: the server's shoe, or a dealer entering the cards he deals.
DEALT = ("rng", "dealer")


class MalformedRecord(RoundError, ValueError):
    """A round record (or one of its inputs) that is not what a record holds; the
    message names the round and the field."""


def _where(round_id: object) -> str:
    return f"record of round {round_id!r}" if isinstance(round_id, str) else "a round record"


_KINDS: dict[type, str] = {str: "a string", int: "an integer", dict: "an object", list: "a list"}


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _field(
    where: str,
    value: Mapping[str, Any],
    name: str,
    kind: type,
    *,
    null: bool = False,
    absent: bool = False,
) -> Any:
    """``value[name]``, of type ``kind``: ``None`` where it may be null (``null``) or
    absent (``absent``: a field written only once it is known, never as null)."""
    if name not in value:
        if absent:
            return None
        raise MalformedRecord(f"{where}: {name} is missing")
    found = value[name]
    if found is None and null:
        return None
    if not isinstance(found, kind) or (kind is int and isinstance(found, bool)):
        expected = _KINDS[kind] + (" or null" if null else "")
        raise MalformedRecord(f"{where}: {name} must be {expected}, not {_kind(found)}")
    return found


def _only(where: str, value: Mapping[str, Any], known: frozenset[str]) -> None:
    unknown = sorted(str(name) for name in value if name not in known)
    if unknown:
        raise MalformedRecord(f"{where}: unknown field {unknown[0]!r}")


#: The fields of an input's JSON, and of a record's.
_INPUT_FIELDS = frozenset({"op", "player", "args", "at", "key", "by"})
_RECORD_FIELDS = frozenset(
    {
        "round_id",
        "table",
        "number",
        "rules",
        "rules_version",
        "rules_values",
        "dealt",
        "shoe",
        "opened_at",
        "inputs",
        "closed_at",
        "shoe_after",
    }
)
#: The mark the first records kept in their JSON: whether the round was in the
#: database (always true there).  Read and left out.
_LEGACY_FIELDS = frozenset({"stored"})


@dataclass(frozen=True, slots=True)
class RecordedInput:
    """One input to a round, as recorded: the operation, the player (``None`` for the
    table's own or a dealer's), its arguments, when it came (ISO 8601), the client's
    idempotency key, and the dealer account that entered it (``by``, a dealer's input)."""

    op: str
    player: str | None
    args: dict[str, Any]
    at: str
    key: str | None = None
    by: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The input as it is stored (``by`` only when a dealer entered it).

        >>> RecordedInput("card", None, {"card": "AS"}, "2026-11-27T20:00Z", by="dee").to_json()
        ... # doctest: +NORMALIZE_WHITESPACE
        {'op': 'card', 'player': None, 'args': {'card': 'AS'}, 'at': '2026-11-27T20:00Z',
         'key': None, 'by': 'dee'}
        """
        entry: dict[str, Any] = {
            "op": self.op,
            "player": self.player,
            "args": self.args,
            "at": self.at,
            "key": self.key,
        }
        if self.by is not None:
            entry["by"] = self.by
        return entry

    @classmethod
    def from_json(cls, value: object, *, round_id: object = None, seq: int = 0) -> RecordedInput:
        """An input read back from its JSON.

        Raises:
            MalformedRecord: ``value`` is not an input as :meth:`to_json` writes it
                (the message names the round, the input's place and the field).
        """
        where = f"{_where(round_id)}, input {seq}"
        if not isinstance(value, dict):
            raise MalformedRecord(f"{where} is {_kind(value)}, not an object")
        _only(where, value, _INPUT_FIELDS)
        return cls(
            op=_field(where, value, "op", str),
            player=_field(where, value, "player", str, null=True),
            args=_field(where, value, "args", dict),
            at=_field(where, value, "at", str),
            key=_field(where, value, "key", str, null=True),
            by=_field(where, value, "by", str, absent=True),
        )


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """What the server keeps of one round: enough to play it again, card for card.

    Attributes:
        round_id: the round's id.
        table: the id of the table it was played at.
        number: its number at that table (1 first).
        rules: the name of the preset it was played under.
        rules_version: that preset's version then.
        dealt: ``"rng"`` (the server's shoe) or ``"dealer"`` (cards a dealer enters).
        shoe: the server's shoe as the round found it (``ShuffledShoe.snapshot``:
            secret, the order of every card); ``None`` for cards a dealer enters.
        opened_at: when the round opened (ISO 8601).
        inputs: every input, in order.
        rules_values: the rules' values when it was played (``Rules.to_json``);
            ``None`` in the records written before they were kept.
        closed_at: when it ended (ISO 8601); ``None`` while it is open.
        shoe_after: the server's shoe as the round left it; ``None`` while it is
            open, and for cards a dealer enters.
    """

    round_id: str
    table: str
    number: int
    rules: str
    rules_version: int
    dealt: str
    shoe: dict[str, Any] | None
    opened_at: str
    inputs: tuple[RecordedInput, ...] = ()
    rules_values: dict[str, Any] | None = None
    closed_at: str | None = None
    shoe_after: dict[str, Any] | None = None

    def with_input(self, entry: RecordedInput) -> RoundRecord:
        """The record with ``entry`` appended to its inputs (made field by field: a
        table makes one at every input, and ``dataclasses.replace`` looks up every
        field's definition each time)."""
        return RoundRecord(
            self.round_id,
            self.table,
            self.number,
            self.rules,
            self.rules_version,
            self.dealt,
            self.shoe,
            self.opened_at,
            (*self.inputs, entry),
            self.rules_values,
            self.closed_at,
            self.shoe_after,
        )

    def closed(self, at: str, shoe_after: dict[str, Any] | None) -> RoundRecord:
        """The record of the round ended ``at``, the shoe as it left it (``None``: a
        dealer's cards)."""
        return replace(self, closed_at=at, shoe_after=shoe_after)

    def rules_under(self, current: Rules) -> Rules:
        """The rules the round replays under: ``current`` (its preset's rules now) where
        they are the rules it was played under, else its preset's version as kept
        (:func:`croupier.presets.rules_of_record`, whose ``RulesError`` says when
        none is)."""
        recorded = {
            "round_id": self.round_id,
            "rules": self.rules,
            "rules_version": self.rules_version,
            "rules_values": self.rules_values,
        }
        return rules_of_record(recorded, current)

    @property
    def dealer_entered(self) -> bool:
        """Whether a dealer entered the round's cards (no shoe of the server's)."""
        return self.dealt == "dealer"

    def header_json(self) -> dict[str, Any]:
        """The record without its inputs, as it is stored in the round's row (its inputs
        are stored one row each)."""
        header: dict[str, Any] = {
            "round_id": self.round_id,
            "table": self.table,
            "number": self.number,
            "rules": self.rules,
            "rules_version": self.rules_version,
        }
        if self.rules_values is not None:
            header["rules_values"] = self.rules_values
        header["dealt"] = self.dealt
        header["shoe"] = self.shoe
        header["opened_at"] = self.opened_at
        if self.closed_at is not None:
            header["closed_at"] = self.closed_at
        if self.shoe_after is not None:
            header["shoe_after"] = self.shoe_after
        return header

    def to_json(self) -> dict[str, Any]:
        """The whole record as JSON values: its header and its ``inputs``."""
        return {**self.header_json(), "inputs": [entry.to_json() for entry in self.inputs]}

    @classmethod
    def from_json(cls, value: object) -> RoundRecord:
        """A record read back from its JSON (:meth:`to_json`'s shape).

        The ``stored`` mark that the first records kept in their JSON (whether the
        round was in the database, always true there) is read and left out.

        Raises:
            MalformedRecord: ``value`` is not a round record: a field is missing, of
                the wrong type or unknown (the message names the round and the field).
        """
        if not isinstance(value, dict):
            raise MalformedRecord(f"a round record is {_kind(value)}, not an object")
        round_id = value.get("round_id")
        where = _where(round_id)
        _only(where, value, _RECORD_FIELDS | _LEGACY_FIELDS)
        dealt = _field(where, value, "dealt", str)
        if dealt not in DEALT:
            raise MalformedRecord(f"{where}: dealt must be 'rng' or 'dealer', not {dealt!r}")
        inputs: list[Any] = _field(where, value, "inputs", list)
        return cls(
            round_id=_field(where, value, "round_id", str),
            table=_field(where, value, "table", str),
            number=_field(where, value, "number", int),
            rules=_field(where, value, "rules", str),
            rules_version=_field(where, value, "rules_version", int),
            dealt=dealt,
            shoe=_field(where, value, "shoe", dict, null=True),
            opened_at=_field(where, value, "opened_at", str),
            inputs=tuple(
                RecordedInput.from_json(entry, round_id=round_id, seq=seq)
                for seq, entry in enumerate(inputs)
            ),
            rules_values=_field(where, value, "rules_values", dict, absent=True),
            closed_at=_field(where, value, "closed_at", str, absent=True),
            shoe_after=_field(where, value, "shoe_after", dict, absent=True),
        )
