"""Accounts: sign-up, login and logout, and the signed-in user."""

from __future__ import annotations

import re
from typing import Annotated

import sqlalchemy as sa
from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, Field, field_validator

from croupier.server import accounts, ledger
from croupier.server.dependencies import (
    CurrentUser,
    Database,
    LoginThrottle,
    ServerSettings,
    TableHub,
    as_utc,
    clear_session_cookie,
    request_token,
    set_session_cookie,
)
from croupier.server.errors import (
    AccountDisabled,
    AuthError,
    InvalidCredentials,
    NameTaken,
    PlayRefused,
)
from croupier.server.http_errors import ERRORS, ErrorOut, HttpError
from croupier.server.roles import Role

__all__ = ["AccountOut", "Credentials", "Registration", "SessionOut", "router"]

router = APIRouter(tags=["accounts"])


class Credentials(BaseModel):
    """A user name and password, to log in."""

    name: str = Field(min_length=1, max_length=40, examples=["ann"])
    password: str = Field(min_length=1, max_length=1024, examples=["correct horse battery"])


_ACCOUNT_NAME = re.compile(r"[A-Za-z0-9_.-]{3,40}")


class Registration(BaseModel):
    """A new account's name (3 to 40 of A-Z a-z 0-9 _ . -) and password (8 or more).

    A name or password that does not fit is refused in words a person reads:

    >>> from pydantic import ValidationError
    >>> try:
    ...     Registration(name="a b", password="correct horse")
    ... except ValidationError as error:
    ...     print(error.errors()[0]["msg"])
    Value error, A name may use only letters, digits and _ . - (not "a b").
    """

    # The limits are checked by the validators below (in words); the schema states them.
    name: str = Field(examples=["ann"], json_schema_extra={"pattern": f"^{_ACCOUNT_NAME.pattern}$"})
    password: str = Field(
        examples=["correct horse battery"],
        json_schema_extra={"minLength": 8, "maxLength": 1024},
    )

    @field_validator("name")
    @classmethod
    def _name_in_words(cls, name: str) -> str:
        if not 3 <= len(name) <= 40:
            raise ValueError(f"A name has 3 to 40 characters; {name!r} has {len(name)}.")
        if _ACCOUNT_NAME.fullmatch(name) is None:
            raise ValueError(f'A name may use only letters, digits and _ . - (not "{name}").')
        return name

    @field_validator("password")
    @classmethod
    def _password_in_words(cls, password: str) -> str:
        if len(password) < 8:
            raise ValueError(f"A password has at least 8 characters; this one has {len(password)}.")
        if len(password) > 1024:
            raise ValueError("A password has at most 1024 characters.")
        return password


class AccountOut(BaseModel):
    """A user and his balance (exact money as text)."""

    id: int
    name: str
    role: Role
    balance: str


class SessionOut(BaseModel):
    """A session token: send it as ``Authorization: Bearer TOKEN``.

    A browser need not: the login also sets the session cookie (HttpOnly,
    SameSite=Strict), which every request and table socket of the site then carries.
    """

    token: str
    idle_timeout_seconds: int


def account_out(database: sa.Engine, user: accounts.User) -> AccountOut:
    """A user as the API gives him: with his balance."""
    with database.begin() as conn:
        amount = ledger.balance(conn, user.id)
    return AccountOut(id=user.id, name=user.name, role=user.role, balance=str(amount))


@router.post(
    "/api/accounts",
    status_code=201,
    responses={400: {"model": ErrorOut}, 409: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)
def register(credentials: Registration, database: Database, settings: ServerSettings) -> AccountOut:
    """Open an account (play-money chips to start with, where the server gives them)."""
    try:
        # The password is hashed before the transaction: no write waits on it.
        account = accounts.prepare(credentials.name, credentials.password)
        with database.begin() as conn:
            user_id = accounts.create(conn, account)
            ledger.player_account(conn, user_id)
            if settings.play_money is not None:
                ledger.grant(
                    conn,
                    user_id,
                    settings.play_money,
                    idempotency_key=f"welcome:{user_id}",
                )
    except NameTaken as error:
        raise HttpError(409, "name_taken", str(error)) from None
    except InvalidCredentials as error:
        raise HttpError(400, "invalid_account", str(error)) from None
    return account_out(database, accounts.User(id=user_id, name=credentials.name, role=Role.PLAYER))


@router.post("/api/sessions", status_code=201, responses={**ERRORS, 403: {"model": ErrorOut}})
def sign_in(
    credentials: Credentials,
    request: Request,
    response: Response,
    database: Database,
    settings: ServerSettings,
    throttle: LoginThrottle,
) -> SessionOut:
    """Log in: a session token, which expires after 30 idle minutes, also set as
    the session cookie.

    Every refusal of the name or password is the same 401 ``login_failed``: an
    unknown name, a wrong password, a name or an address that must wait before
    trying again.  With the right password, 403 ``account_disabled``,
    ``on_break`` or ``self_excluded`` says why the account may not play now.
    """
    now = settings.clock()
    address = request.client.host if request.client is not None else "unknown"
    try:
        if not throttle.allows(address, now):
            accounts.refuse(credentials.password)  # not counted: the wait stays as it is
        try:
            token = accounts.sign_in(
                database, credentials.name, credentials.password, now=as_utc(now)
            )
        except AuthError:
            throttle.failed(address, now)
            raise
    except AccountDisabled as error:
        raise HttpError(403, "account_disabled", str(error)) from None
    except AuthError as error:
        raise HttpError(401, "login_failed", str(error)) from None
    except PlayRefused as error:
        raise HttpError(403, error.code, str(error)) from None
    set_session_cookie(request, response, token)
    return SessionOut(token=token, idle_timeout_seconds=int(accounts.IDLE.total_seconds()))


@router.delete("/api/sessions/current", status_code=204, responses=ERRORS)
def sign_out(
    request: Request,
    database: Database,
    hub: TableHub,
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    """Log out: the session ends and its cookie is cleared (an ended one too)."""
    token = request_token(request, authorization)
    if token:
        hub.sessions.forget(token)
        with database.begin() as conn:
            accounts.logout(conn, token)
    response = Response(status_code=204)
    clear_session_cookie(request, response)
    return response


@router.get("/api/me", responses=ERRORS)
def me(user: CurrentUser, database: Database) -> AccountOut:
    """The signed-in user and his balance."""
    return account_out(database, user)
