"""Exact money: :class:`~decimal.Decimal` amounts and :class:`~fractions.Fraction` ratios.

>>> from decimal import Decimal
>>> from fractions import Fraction
>>> payout(Decimal("5.00"), Fraction(3, 2), Decimal("0.01"), PayoutRounding.DOWN)
Decimal('7.50')
>>> payout(Decimal("5.01"), Fraction(3, 2), Decimal("0.01"), PayoutRounding.DOWN)
Decimal('7.51')
>>> payout(Decimal("5.01"), Fraction(3, 2), Decimal("0.01"), PayoutRounding.HALF_UP)
Decimal('7.52')
"""

from __future__ import annotations

import decimal
import re
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction

from croupier.errors import BetError

__all__ = ["PayoutRounding", "parse_amount", "payout", "quantize"]


class PayoutRounding(StrEnum):
    """How a payout finer than the currency's smallest unit is rounded (a table setting)."""

    DOWN = "down"
    HALF_UP = "half-up"
    HALF_EVEN = "half-even"
    UP = "up"

    @property
    def decimal_mode(self) -> str:
        """The :mod:`decimal` rounding constant."""
        return _MODES[self]


_MODES = {
    PayoutRounding.DOWN: decimal.ROUND_DOWN,
    PayoutRounding.HALF_UP: decimal.ROUND_HALF_UP,
    PayoutRounding.HALF_EVEN: decimal.ROUND_HALF_EVEN,
    PayoutRounding.UP: decimal.ROUND_UP,
}


def quantize(amount: Decimal, unit: Decimal, rounding: PayoutRounding) -> Decimal:
    """Round an amount to the currency's unit.

    >>> quantize(Decimal("2.505"), Decimal("0.01"), PayoutRounding.DOWN)
    Decimal('2.50')
    """
    return amount.quantize(unit, rounding=_MODES[rounding])


def payout(stake: Decimal, ratio: Fraction, unit: Decimal, rounding: PayoutRounding) -> Decimal:
    """What a winning stake is paid at ``ratio`` to 1, rounded to the unit.

    >>> payout(Decimal("10.01"), Fraction(6, 5), Decimal("0.01"), PayoutRounding.DOWN)
    Decimal('12.01')
    >>> payout(Decimal("10.00"), Fraction(4, 3), Decimal("0.01"), PayoutRounding.UP)
    Decimal('13.34')
    """
    numerator = ratio.numerator
    denominator = ratio.denominator
    mode = _MODES[rounding]
    if denominator == 1:
        return (stake * numerator).quantize(unit, rounding=mode)
    if _TERMINATES.get(denominator, False) and stake.adjusted() < 12:
        # A denominator of 2s and 5s divides a money amount exactly in 28 digits.
        return (stake * numerator / denominator).quantize(unit, rounding=mode)
    exact = Fraction(stake) * ratio
    with decimal.localcontext() as context:
        context.prec = 50
        amount = Decimal(exact.numerator) / Decimal(exact.denominator)
    return amount.quantize(unit, rounding=mode)


# Denominators made of 2s and 5s only, up to 1000: a division by one of them terminates.
_TERMINATES = {
    2**twos * 5**fives: True
    for twos in range(10)
    for fives in range(5)
    if 2**twos * 5**fives <= 1000
}


# An amount as people write it: ASCII digits, at most one decimal point, no exponent,
# underscores or other scripts' digits (which Decimal would read).
_PLAIN_AMOUNT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)


def parse_amount(value: object, unit: Decimal, *, what: str = "amount") -> Decimal:
    """Read an exact, positive amount in whole units of the currency.

    Floats are refused: they cannot carry money exactly.

    >>> parse_amount("12.50", Decimal("0.01"))
    Decimal('12.50')
    >>> parse_amount("0.005", Decimal("0.01"))
    Traceback (most recent call last):
    ...
    croupier.errors.BetError: amount '0.005' is finer than the currency unit 0.01
    >>> parse_amount("٢٥", Decimal("0.01"))
    Traceback (most recent call last):
    ...
    croupier.errors.BetError: amount '٢٥' is not a number in digits 0-9
    >>> parse_amount(1.5, Decimal("0.01"))
    Traceback (most recent call last):
    ...
    croupier.errors.BetError: amount 1.5 is a float; give money as a decimal string such as '1.50'
    """
    if type(value) is Decimal and value.is_finite() and value > 0:
        quantized = value.quantize(unit)
        if quantized == value:
            return quantized
    if isinstance(value, bool | float):
        raise BetError(
            f"{what} {value!r} is a float; give money as a decimal string such as '1.50'"
        )
    if isinstance(value, Decimal | int):
        amount = Decimal(value)
    elif isinstance(value, str):
        text = value.strip()
        if _PLAIN_AMOUNT.fullmatch(text) is None:
            raise BetError(f"{what} {value!r} is not a number in digits 0-9")
        amount = Decimal(text)
    else:
        raise BetError(f"{what} {value!r} is not a number")
    if not amount.is_finite():
        raise BetError(f"{what} {value!r} is not a finite number")
    if amount <= 0:
        raise BetError(f"{what} {value!r} must be more than zero")
    if amount != amount.quantize(unit, rounding=decimal.ROUND_DOWN):
        raise BetError(f"{what} {value!r} is finer than the currency unit {unit}")
    return amount.quantize(unit)
