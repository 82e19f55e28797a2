"""Typed errors of the table server: every refusal it makes is one of these.

A refused operation changes nothing in the database.

>>> issubclass(LoginFailed, AuthError) and issubclass(AuthError, ServerError)
True
>>> issubclass(InvalidCredentials, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "AccountDisabled",
    "ActionRefused",
    "AuthError",
    "IdempotencyConflict",
    "InsufficientFunds",
    "InvalidAmount",
    "InvalidCredentials",
    "InvalidLimit",
    "LedgerError",
    "LoginFailed",
    "LossLimitReached",
    "NameTaken",
    "NotFound",
    "OnBreak",
    "PlayRefused",
    "RoundError",
    "SelfExcluded",
    "ServerError",
    "SessionExpired",
    "SessionTimeLimitReached",
    "TableUnavailable",
]


class ServerError(Exception):
    """Base of every error the table server raises on a refused request."""


class ActionRefused(ServerError):
    """An input or a seat the table does not take now; the message says why, the code
    names it for the client, and nothing changed."""

    def __init__(self, message: str, *, code: str = "refused") -> None:
        super().__init__(message)
        self.code = code


class InsufficientFunds(ServerError):
    """An account holds less than a movement would take from it."""


class IdempotencyConflict(ServerError):
    """An idempotency key already names a different request."""


class NotFound(ServerError):
    """A user, round or record that does not exist."""


class InvalidAmount(ServerError, ValueError):
    """An amount that is not positive, not a decimal, or not a whole number of units."""


class LedgerError(ServerError):
    """A money movement the books cannot accept (for example a void that does not refund)."""


class TableUnavailable(ServerError):
    """No process answers for the table now (it is being taken over, or this process
    lost it); the client sends again."""


class RoundError(ServerError):
    """A round record that cannot be stored as asked (duplicate, bad status, not JSON)."""


class AuthError(ServerError):
    """Base of the sign-up, login and session errors."""


class LoginFailed(AuthError):
    """Wrong name or password (the message never says which)."""


class SessionExpired(AuthError):
    """A session token that is unknown, logged out or idle for too long."""


class NameTaken(AuthError):
    """A user name that another user already has."""


class InvalidCredentials(AuthError, ValueError):
    """A user name, password or role that breaks the registration rules."""


class AccountDisabled(AuthError):
    """An account the operator has disabled: it cannot log in or play."""


class InvalidLimit(ServerError, ValueError):
    """A loss limit, session-time limit, reality-check interval, break or exclusion
    outside what the site accepts."""


class PlayRefused(ServerError):
    """Play the player's own limits or exclusions forbid; ``code`` names which.

    >>> LossLimitReached("x").code, issubclass(SelfExcluded, PlayRefused)
    ('loss_limit', True)
    """

    code = "play_refused"


class LossLimitReached(PlayRefused):
    """A stake that would take the session's loss past the player's loss limit."""

    code = "loss_limit"


class SessionTimeLimitReached(PlayRefused):
    """A new bet after the session has lasted as long as the player's time limit."""

    code = "session_time_limit"


class OnBreak(PlayRefused):
    """Login or play during a break the player chose (a time-out)."""

    code = "on_break"


class SelfExcluded(PlayRefused):
    """Login or play while the player is self-excluded."""

    code = "self_excluded"
