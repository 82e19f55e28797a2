"""The presets: one TOML file per rulebook, every rule with the clause it comes from.

Each preset file sets every field of :class:`~croupier.rules.Rules` (except
``name``, which is the preset's name) under ``[rules.<field>]`` with its ``value``
and its ``clause``.  Where the rulebook is silent the clause reads ``silent`` and
a ``note`` says what was chosen and why.  A preset never changes meaning in
place: any change bumps its ``version``, and the version before is kept in
``history/NAME-vN.toml`` (:func:`find_preset_version`), so that a round recorded under
it replays under the rules it was played by (:func:`rules_of_record`).

>>> list(PRESETS)
['rws-v4', 'rws-v5', 'online-8deck', 'casino-to-go', 'live']
>>> find_rules("rws-v5").surrender
<Surrender.RWS: 'rws'>
>>> find_rules("RWS-V5").name
'rws-v5'
>>> citation = find_preset("live").citation("double_after_split")
>>> citation.value, citation.clause
(False, 'Doubling Down')
>>> find_preset("casino-to-go").citation("decks").clause
'silent'
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from types import MappingProxyType

from croupier.errors import RulesError
from croupier.rules import Rules, coerce_field, json_value, rule_fields

__all__ = [
    "FIELDS_ADDED_AFTER",
    "PRESETS",
    "PRESET_NAMES",
    "SILENT",
    "Preset",
    "RuleCitation",
    "find_preset",
    "find_preset_version",
    "find_rules",
    "load_preset_text",
    "rules_of_record",
]

#: The clause written where the rulebook does not say; such a rule must carry a note.
SILENT = "silent"

#: The built-in presets, in the order of their rulebooks.
PRESET_NAMES = ("rws-v4", "rws-v5", "online-8deck", "casino-to-go", "live")

_PRESET_KEYS = ("name", "title", "rulebook", "version")
_CITATION_KEYS = ("value", "clause", "note", "by_boxes")


@dataclass(frozen=True, slots=True)
class RuleCitation:
    """One rule of a preset: its value and the rulebook clause it comes from.

    ``value`` is the rule's value as :class:`~croupier.rules.Rules` holds it (an
    enum, a ``Fraction``, a ``Decimal``...).  ``clause`` is the rulebook's clause
    number(s), or its section heading where the rulebook does not number clauses,
    or ``silent``.  ``note`` quotes the deciding words, or, for a silent rule, says
    what was chosen and why.

    >>> citation = find_preset("rws-v4").citation("max_split_hands")
    >>> citation.value, citation.clause, citation.is_silent
    (4, '3.13', False)
    """

    field: str
    value: object
    clause: str
    note: str = ""
    #: Where the rulebook ties the rule to the number of boxes: ``(boxes, value)``
    #: pairs; a table with other boxes is not one the rulebook describes.
    by_boxes: tuple[tuple[int, object], ...] = ()

    @property
    def is_silent(self) -> bool:
        """The rulebook does not state this rule; the note says what was chosen.

        >>> find_preset("live").citation("decks").is_silent
        True
        """
        return self.clause == SILENT


@dataclass(frozen=True, slots=True)
class Preset:
    """A named rule set read from a preset file, with a citation for every rule.

    >>> preset = find_preset("online-8deck")
    >>> preset.title, preset.rulebook, preset.version
    ('Blackjack Rules, online 8-deck table', '002_3da4452be13ecf55.txt', 3)
    >>> preset.rules.max_split_hands
    2
    """

    name: str
    title: str
    rulebook: str
    version: int
    rules: Rules
    citations: tuple[RuleCitation, ...]

    def citation(self, field: str) -> RuleCitation:
        """The citation of one rule.

        Raises:
            RulesError: ``field`` is not a rule a preset sets.

        >>> find_preset("rws-v5").citation("max_split_hands").clause
        '3.21.2'
        >>> find_preset("rws-v5").citation("splits")
        Traceback (most recent call last):
        ...
        croupier.errors.RulesError: preset rws-v5 has no rule 'splits'
        """
        for citation in self.citations:
            if citation.field == field:
                return citation
        raise RulesError(f"preset {self.name} has no rule {field!r}")

    def replace(self, **changes: object) -> Rules:
        """The preset's rules with some fields changed, as :meth:`Rules.replace` reads
        them, keeping the rules the rulebook ties to the number of boxes.

        Casino-To-Go splits to three hands "on a seven player table" and to four "on a
        six player table": its split limit follows ``boxes``, and a pair of values the
        guide does not give is refused.

        >>> find_preset("casino-to-go").replace(boxes=6).max_split_hands
        4
        >>> find_preset("casino-to-go").replace(boxes=6, max_split_hands=3)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        croupier.errors.RulesError: casino-to-go: max_split_hands is 4 at 6 boxes, not 3 (...)
        >>> find_preset("casino-to-go").replace(boxes=5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        croupier.errors.RulesError: casino-to-go: the rulebook gives max_split_hands for 6 or 7 ...

        Raises:
            RulesError: a value is not valid, or breaks a rule tied to the boxes.
        """
        rules = self.rules.replace(**changes)
        for citation in self.citations:
            if not citation.by_boxes:
                continue
            table = dict(citation.by_boxes)
            field = citation.field
            if rules.boxes not in table:
                counts = " or ".join(str(boxes) for boxes in table)
                raise RulesError(
                    f"{self.name}: the rulebook gives {field} for {counts} boxes, "
                    f"not {rules.boxes} ({citation.clause})"
                )
            wanted = table[rules.boxes]
            if getattr(rules, field) == wanted:
                continue
            if field in changes:
                raise RulesError(
                    f"{self.name}: {field} is {wanted} at {rules.boxes} boxes, "
                    f"not {getattr(rules, field)} ({citation.clause})"
                )
            rules = rules.replace(**{field: wanted})
        return rules

    def to_json(self) -> dict[str, object]:
        """The preset as JSON values: its rules and, for each rule, value, clause and note.

        >>> data = find_preset("live").to_json()
        >>> data["rules"]["perfect_pairs_pays"]
        ['25', '12', '6']
        >>> data["citations"]["surrender"]["clause"]
        'Player Options'
        """
        rules_json = self.rules.to_json()
        return {
            "name": self.name,
            "title": self.title,
            "rulebook": self.rulebook,
            "version": self.version,
            "rules": rules_json,
            "citations": {
                citation.field: {
                    "value": rules_json[citation.field],
                    "clause": citation.clause,
                    "note": citation.note,
                    **(
                        {
                            "by_boxes": {
                                str(boxes): json_value(value) for boxes, value in citation.by_boxes
                            }
                        }
                        if citation.by_boxes
                        else {}
                    ),
                }
                for citation in self.citations
            },
        }


def load_preset_text(text: str, *, origin: str) -> Preset:
    """Read and check a preset file's text.

    Args:
        text: The TOML text of a preset file.
        origin: Where the text came from (a file name), named in every error.

    Returns:
        The preset, its ``rules.name`` set to the preset's name.

    Raises:
        RulesError: The text is not TOML; a ``[preset]`` key is missing or wrong; a
            rule is not a field of ``Rules`` or a field of ``Rules`` is missing; a
            rule has no ``value`` or no ``clause``; a ``silent`` clause has no
            note; or a value is not valid.  The message names the origin and the
            rule.

    A house variant is a copy of a preset file with its name and values changed:

    >>> text = resources.files("croupier.presets").joinpath("rws-v5.toml").read_text("utf-8")
    >>> text = text.replace('name = "rws-v5"', 'name = "rws-v5-six-decks"')
    >>> text = text.replace("value = 8", "value = 6", 1)
    >>> variant = load_preset_text(text, origin="rws-v5-six-decks.toml")
    >>> variant.rules.name, variant.rules.decks
    ('rws-v5-six-decks', 6)
    >>> load_preset_text(text.replace("value = 6", "value = 9", 1), origin="nine.toml")
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: nine.toml: decks must be from 1 to 8, not 9
    >>> load_preset_text('[preset]\\nname = "x"\\n', origin="x.toml")
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: x.toml: [preset] is missing title, rulebook, version
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{origin}: not valid TOML: {exc}") from exc
    unknown_tables = sorted(set(document) - {"preset", "rules"})
    if unknown_tables:
        raise RulesError(
            f"{origin}: unknown table(s) {', '.join(unknown_tables)}; "
            "a preset file has only [preset] and [rules.<field>]"
        )
    name, title, rulebook, version = _read_header(document.get("preset"), origin)
    table = document.get("rules")
    if not isinstance(table, dict):
        raise RulesError(f"{origin}: no [rules.<field>] tables")
    values: dict[str, object] = {}
    citations: dict[str, tuple[str, str]] = {}
    tied: dict[str, tuple[tuple[int, object], ...]] = {}
    for field, entry in table.items():
        value, clause, note = _read_rule(field, entry, origin)
        values[field] = value
        citations[field] = (clause, note)
        if "by_boxes" in entry:
            tied[field] = _read_by_boxes(field, entry["by_boxes"], origin)
    missing = [field for field in rule_fields() if field != "name" and field not in values]
    if missing:
        raise RulesError(f"{origin}: rule(s) missing: {', '.join(missing)}")
    try:
        rules = Rules.from_mapping({**values, "name": name})
    except RulesError as exc:
        raise RulesError(f"{origin}: {exc}") from exc
    for field, pairs in tied.items():
        for boxes, value in pairs:
            try:
                rules.replace(boxes=boxes, **{field: value})
            except RulesError as exc:
                raise RulesError(f"{origin}: rule {field}: by_boxes: {exc}") from exc
        wanted = dict(pairs).get(rules.boxes)
        if wanted != getattr(rules, field):
            raise RulesError(
                f"{origin}: rule {field}: its value {getattr(rules, field)!r} is not the one "
                f"by_boxes gives for boxes = {rules.boxes} ({wanted!r})"
            )
    return Preset(
        name=name,
        title=title,
        rulebook=rulebook,
        version=version,
        rules=rules,
        citations=tuple(
            RuleCitation(field, getattr(rules, field), *citations[field], tied.get(field, ()))
            for field in rule_fields()
            if field != "name"
        ),
    )


def _read_by_boxes(field: str, table: object, origin: str) -> tuple[tuple[int, object], ...]:
    """A rule's values by the number of boxes: ``by_boxes = { 6 = 4, 7 = 3 }``."""
    if field == "boxes" or not isinstance(table, dict) or not table:
        raise RulesError(
            f"{origin}: rule {field}: by_boxes must be a table of box counts and values, "
            "such as { 6 = 4, 7 = 3 }, on a rule other than boxes"
        )
    pairs: list[tuple[int, object]] = []
    for key, value in table.items():
        try:
            boxes = coerce_field("boxes", key)
            assert isinstance(boxes, int)
            pairs.append((boxes, coerce_field(field, value)))
        except RulesError as exc:
            raise RulesError(f"{origin}: rule {field}: by_boxes: {exc}") from exc
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


def _read_header(header: object, origin: str) -> tuple[str, str, str, int]:
    if not isinstance(header, dict):
        raise RulesError(f"{origin}: no [preset] table with {', '.join(_PRESET_KEYS)}")
    missing = [key for key in _PRESET_KEYS if key not in header]
    if missing:
        raise RulesError(f"{origin}: [preset] is missing {', '.join(missing)}")
    unknown = sorted(set(header) - set(_PRESET_KEYS))
    if unknown:
        raise RulesError(
            f"{origin}: [preset] has unknown key(s) {', '.join(unknown)}; "
            f"the keys are {', '.join(_PRESET_KEYS)}"
        )
    texts: list[str] = []
    for key in ("name", "title", "rulebook"):
        value = header[key]
        if not isinstance(value, str) or not value.strip():
            raise RulesError(f"{origin}: [preset] {key} must be a non-empty text, not {value!r}")
        texts.append(value.strip())
    version = header["version"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise RulesError(
            f"{origin}: [preset] version must be a whole number from 1, not {version!r}"
        )
    name, title, rulebook = texts
    return name, title, rulebook, version


def _read_rule(field: str, entry: object, origin: str) -> tuple[object, str, str]:
    if field == "name":
        raise RulesError(f"{origin}: [rules.name] is not allowed: the name is [preset] name")
    if field not in rule_fields():
        raise RulesError(
            f"{origin}: rule {field!r} is not a field of Rules; "
            f"the fields are: {', '.join(rule_fields()[1:])}"
        )
    if not isinstance(entry, dict):
        raise RulesError(
            f"{origin}: rule {field} must be a table [rules.{field}] with value and clause"
        )
    unknown = sorted(set(entry) - set(_CITATION_KEYS))
    if unknown:
        raise RulesError(
            f"{origin}: rule {field} has unknown key(s) {', '.join(unknown)}; "
            f"the keys are {', '.join(_CITATION_KEYS)}"
        )
    if "value" not in entry:
        raise RulesError(f"{origin}: rule {field} has no value")
    clause = entry.get("clause")
    if not isinstance(clause, str) or not clause.strip():
        raise RulesError(
            f"{origin}: rule {field} has no clause: give the rulebook's clause, "
            f"or {SILENT!r} with a note"
        )
    note = entry.get("note", "")
    if not isinstance(note, str):
        raise RulesError(f"{origin}: rule {field}: note must be a text, not {note!r}")
    if clause.strip() == SILENT and not note.strip():
        raise RulesError(
            f"{origin}: rule {field}: the rulebook is silent, so a note must say "
            "what was chosen and why"
        )
    try:
        value = coerce_field(field, entry["value"])
    except RulesError as exc:
        raise RulesError(f"{origin}: {exc}") from exc
    if isinstance(value, Decimal) and not value.is_finite():
        raise RulesError(f"{origin}: rule {field}: {entry['value']!r} is not a finite amount")
    return value, clause.strip(), note.strip()


def _load_builtin(name: str) -> Preset:
    origin = f"croupier/presets/{name}.toml"
    text = resources.files(__name__).joinpath(f"{name}.toml").read_text(encoding="utf-8")
    preset = load_preset_text(text, origin=origin)
    if preset.name != name:
        raise RulesError(f"{origin}: [preset] name is {preset.name!r}, not {name!r}")
    return preset


#: Every built-in preset by name, loaded once, in the order of :data:`PRESET_NAMES`.
PRESETS: Mapping[str, Preset] = MappingProxyType(
    {name: _load_builtin(name) for name in PRESET_NAMES}
)


def find_preset(name: str) -> Preset:
    """A built-in preset by name, case-insensitively.

    Raises:
        RulesError: No preset has this name; the message lists the names.

    >>> find_preset(" Casino-To-Go ").rules.double_on
    <DoubleOn.NINE_TO_ELEVEN: '9-11'>
    >>> find_preset("vegas")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: unknown preset 'vegas'; the presets are: rws-v4, rws-v5, ..., live
    """
    preset = PRESETS.get(name.strip().lower())
    if preset is None:
        raise RulesError(f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}")
    return preset


def find_rules(name: str) -> Rules:
    """The rules of a built-in preset by name, case-insensitively.

    Raises:
        RulesError: No preset has this name; the message lists the names.

    >>> rules = find_rules("online-8deck")
    >>> rules.hole_card, rules.surrender, rules.split_match
    (<HoleCard.PEEK: 'peek'>, <Surrender.LATE: 'late'>, <SplitMatch.RANK: 'rank'>)
    >>> find_rules("live").twenty_one_plus_three_pays
    (Fraction(100, 1), Fraction(40, 1), Fraction(30, 1), Fraction(10, 1), Fraction(5, 1))
    """
    return find_preset(name).rules


#: Each rule field added to :class:`~croupier.rules.Rules` since the first recorded
#: rules, with the last preset version whose records lack it (the value that version
#: played by is written into its file in ``history/``).
FIELDS_ADDED_AFTER: Mapping[str, int] = MappingProxyType({"bets_behind": 2})


def find_preset_version(name: str, version: int) -> Preset:
    """A built-in preset as it was at ``version``: the preset itself at its current
    version, else the earlier version kept in ``history/NAME-vN.toml`` (the file as it
    was, with the rules added since written in at the value that version played by).

    Raises:
        RulesError: No preset has this name, or no such version of it is kept.

    >>> find_preset_version("live", 3) is find_preset("live")
    True
    >>> earlier = find_preset_version("live", 2)
    >>> earlier.version, earlier.rules.bets_behind, find_rules("live").bets_behind
    (2, True, False)
    >>> find_preset_version("live", 1)
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: preset live: version 1 is not kept (kept: 2, 3)
    """
    current = find_preset(name)
    if version == current.version:
        return current
    return _kept_version(current.name, version)


@functools.cache
def _kept_version(name: str, version: int) -> Preset:
    folder = resources.files(__name__).joinpath("history")
    path = folder.joinpath(f"{name}-v{version}.toml")
    if not path.is_file():
        kept = sorted(
            int(entry.name[len(name) + 2 : -5])
            for entry in folder.iterdir()
            if entry.name.startswith(f"{name}-v") and entry.name.endswith(".toml")
        )
        versions = ", ".join(str(number) for number in [*kept, PRESETS[name].version])
        raise RulesError(f"preset {name}: version {version} is not kept (kept: {versions})")
    origin = f"croupier/presets/history/{name}-v{version}.toml"
    preset = load_preset_text(path.read_text(encoding="utf-8"), origin=origin)
    if (preset.name, preset.version) != (name, version):
        raise RulesError(f"{origin}: [preset] is {preset.name} version {preset.version}")
    return preset


def rules_of_record(record: Mapping[str, object], current: Rules) -> Rules:
    """The rules a recorded round replays under: ``current`` (the preset's rules now)
    where the record's ``rules_values`` are theirs or it has none, else the preset's
    version it names (``rules``, ``rules_version``) as kept, held to those values
    (without the fields added after that version).

    Raises:
        RulesError: The round was played under other rules, and no kept version of its
            preset is those rules: it is not replayed under different rules.

    A round recorded at the live table under version 2, which took bets behind:

    >>> v2 = find_preset_version("live", 2).rules.to_json()
    >>> del v2["bets_behind"]  # not a rule yet at version 2
    >>> record = {"round_id": "r1", "rules": "live", "rules_version": 2, "rules_values": v2}
    >>> rules_of_record(record, find_rules("live")).bets_behind
    True
    >>> rules_of_record({**record, "rules_version": 3}, find_rules("live"))
    Traceback (most recent call last):
    ...
    croupier.errors.RulesError: round r1 was played under other rules than live version 3 has now
    """
    values = record.get("rules_values")
    if values is None or values == current.to_json():
        return current
    name, version = record.get("rules"), record.get("rules_version")
    if isinstance(version, str) and version.isascii() and version.isdigit():
        version = int(version)
    where = f"round {record.get('round_id')} was played under other rules than"
    if not isinstance(name, str) or isinstance(version, bool) or not isinstance(version, int):
        raise RulesError(f"{where} {current.name} has now, and names no preset version")
    try:
        preset = find_preset_version(name, version)
    except RulesError as error:
        raise RulesError(f"{where} {current.name} has now: {error}") from error
    lacking = {field for field, last in FIELDS_ADDED_AFTER.items() if version <= last}
    kept = {key: value for key, value in preset.rules.to_json().items() if key not in lacking}
    if values != kept:
        raise RulesError(f"{where} {name} version {version} has now")
    return preset.rules
