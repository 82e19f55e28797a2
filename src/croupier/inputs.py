"""A round's inputs as data: what a table records and what a replay applies.

Every input to a round (a bet, a decision, an answer to an offer, a card a dealer
entered, a clock that ran out, a void) is a plain record: an operation, the player
who made it (if any) and its arguments.  The table server records them in order; a
round script may list them (``"inputs"``) to replay a recorded round exactly, because
the engine is deterministic.

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
"""

from __future__ import annotations

from collections.abc import Mapping

from croupier.errors import CroupierError
from croupier.events import Event
from croupier.round import MAIN, OfferKind, Round

__all__ = ["INPUT_OPS", "InputError", "apply_input"]

#: Every operation, with the arguments it takes (``player`` aside).
INPUT_OPS: dict[str, tuple[str, ...]] = {
    "bet": ("box", "amount", "bet"),
    "withdraw": ("box", "bet"),
    "close_bets": (),
    "hit": (),
    "stand": (),
    "double": ("amount",),
    "split": (),
    "surrender": ("box",),
    "insurance": ("box", "amount"),
    "even_money": ("box",),
    "follow": ("box",),
    "decline": ("box", "kind"),
    "time_out": (),
    "walk_away": ("who",),
    "card": ("card",),
    "void": ("reason",),
    "interrupt": (),
}


class InputError(CroupierError):
    """An input that is not well formed: an unknown operation or a wrong argument."""


def _box(args: Mapping[str, object], op: str, *, required: bool = True) -> int | None:
    box = args.get("box")
    if box is None and not required:
        return None
    if isinstance(box, bool) or not isinstance(box, int):
        raise InputError(f"{op}: box must be a box number, not {box!r}")
    return box


def _text(args: Mapping[str, object], name: str, op: str, default: str | None = None) -> str:
    value = args.get(name, default)
    if not isinstance(value, str):
        raise InputError(f"{op}: {name} must be text, not {value!r}")
    return value


def _amount(args: Mapping[str, object], op: str) -> str | None:
    amount = args.get("amount")
    if amount is None:
        return None
    if not isinstance(amount, str):
        raise InputError(
            f'{op}: amount must be exact money written as text, such as "25.00", not {amount!r}'
        )
    return amount


def _player(player: str | None, op: str) -> str:
    if not isinstance(player, str) or not player:
        raise InputError(f"{op}: needs the player who makes it")
    return player


def apply_input(
    game: Round, op: str, player: str | None, args: Mapping[str, object]
) -> Event | None:
    """Apply one input to ``game``; returns the first event it caused.

    Raises:
        InputError: an unknown operation or argument; the message names it.
        CroupierError: the engine refused the input (its typed error says why);
            the round is unchanged.
    """
    if op not in INPUT_OPS:
        raise InputError(f"unknown input {op!r}; expected one of {', '.join(INPUT_OPS)}")
    extra = [name for name in args if name not in INPUT_OPS[op]]
    if extra:
        raise InputError(f"{op}: unknown argument {extra[0]!r}")
    if op == "bet":
        bet = _text(args, "bet", op, MAIN)
        amount = _amount(args, op)
        if amount is None:
            raise InputError("bet: needs an amount")
        return game.place_bet(_player(player, op), _box(args, op) or 0, amount, bet)
    if op == "withdraw":
        return game.withdraw_bet(
            _player(player, op), _box(args, op) or 0, _text(args, "bet", op, MAIN)
        )
    if op == "close_bets":
        return game.close_bets()
    if op == "hit":
        return game.hit(player)
    if op == "stand":
        return game.stand(player)
    if op == "double":
        return game.double_down(_amount(args, op), player)
    if op == "split":
        return game.split(player)
    if op == "surrender":
        return game.surrender(_box(args, op, required=False), player)
    if op == "insurance":
        return game.take_insurance(_player(player, op), _box(args, op) or 0, _amount(args, op))
    if op == "even_money":
        return game.take_even_money(_player(player, op), _box(args, op) or 0)
    if op == "follow":
        return game.follow(_player(player, op), _box(args, op) or 0)
    if op == "decline":
        kind_text = args.get("kind")
        kind: OfferKind | None = None
        if kind_text is not None:
            try:
                kind = OfferKind(str(kind_text))
            except ValueError:
                raise InputError(
                    f"decline: unknown offer {kind_text!r}; expected one of "
                    f"{', '.join(k.value for k in OfferKind)}"
                ) from None
        return game.decline(_player(player, op), _box(args, op) or 0, kind)
    if op == "time_out":
        return game.time_out()
    if op == "walk_away":
        return game.walk_away(_text(args, "who", op))
    if op == "card":
        return game.deal_card(_text(args, "card", op))
    if op == "void":
        return game.void(_text(args, "reason", op))
    return game.interrupt()
