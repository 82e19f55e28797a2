"""The few statistics the reports need, with the standard library alone.

z-scores, correlations and p-values are ``float`` (they are not money).

>>> round(chi_square_p_value(12.0, 12), 4)
0.4457
>>> round(chi_square_p_value(30.0, 10), 5)
0.00086
>>> verdict(-3.4)
'unusual: z = -3.40'
>>> verdict(1.2)
'within expectation'
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = [
    "UNUSUAL_Z",
    "chi_square",
    "chi_square_p_value",
    "normal_upper_tail",
    "verdict",
]

#: How many standard deviations from the expectation a result must be to be called
#: unusual (two-sided, about 1 chance in 370 for a result that is only luck).
UNUSUAL_Z = 3.0

_EPSILON = 1e-15
_ITERATIONS = 10_000


def verdict(z: float | None) -> str:
    """A plain verdict on a z-score: "within expectation" or "unusual: z = ..."."""
    if z is None:
        return "no play"
    if abs(z) < UNUSUAL_Z:
        return "within expectation"
    return f"unusual: z = {z:.2f}"


def normal_upper_tail(z: float) -> float:
    """The chance that a standard normal value exceeds ``z``.

    >>> round(normal_upper_tail(1.959964), 4)
    0.025
    """
    return 0.5 * math.erfc(z / math.sqrt(2))


def chi_square(observed: Sequence[float], expected: Sequence[float]) -> float:
    """Pearson's statistic, sum of (observed - expected)^2 / expected (cells whose
    expectation is zero must be empty, and add nothing).

    >>> chi_square([10, 20], [15, 15])
    3.3333333333333335
    """
    total = 0.0
    for seen, wanted in zip(observed, expected, strict=True):
        if wanted > 0:
            total += (seen - wanted) ** 2 / wanted
    return total


def chi_square_p_value(statistic: float, degrees: int) -> float:
    """The chance of a chi-square value at least ``statistic`` with ``degrees`` degrees
    of freedom: the regularized upper incomplete gamma function Q(k/2, x/2)."""
    if degrees < 1:
        raise ValueError(f"a chi-square test needs at least 1 degree of freedom, not {degrees}")
    if statistic <= 0:
        return 1.0
    return _upper_gamma(degrees / 2, statistic / 2)


def _upper_gamma(a: float, x: float) -> float:
    """Q(a, x), by its series below a + 1 and its continued fraction above
    (Numerical Recipes, 6.2)."""
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        denominator = a
        for _ in range(_ITERATIONS):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * _EPSILON:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for step in range(1, _ITERATIONS):
        an = -step * (step - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPSILON:
            break
    return min(1.0, math.exp(log_front) * h)
