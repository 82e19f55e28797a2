"""The HTTP API's errors: one shape, ``{"error": CODE, "message": SENTENCE}``, for every
refusal, whether a route raised it, the request did not validate, or no route matched."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

__all__ = ["ERRORS", "ErrorOut", "HttpError", "add_error_handlers"]


class ErrorOut(BaseModel):
    """An error: a code and a sentence naming what was wrong."""

    error: str
    message: str


#: The errors most routes may answer, for the OpenAPI description.
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut},
    401: {"model": ErrorOut},
    404: {"model": ErrorOut},
}


class HttpError(Exception):
    """An HTTP error answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def add_error_handlers(app: FastAPI) -> None:
    """Answer every error of ``app`` in the shape of :class:`ErrorOut` (a sign-up's
    invalid name or password in a person's words)."""
    app.add_exception_handler(RequestValidationError, _invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(HttpError, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _starlette_error)  # type: ignore[arg-type]


async def _invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
    if request.url.path != "/api/accounts":
        return await request_validation_exception_handler(request, error)
    # A sign-up: the first problem in a person's words, in the shape of our errors.
    problems = error.errors()
    first = problems[0] if problems else {}
    where = [str(part) for part in first.get("loc", ()) if part != "body"]
    reason = str(first.get("msg", "the request is not valid")).removeprefix("Value error, ")
    if first.get("type") == "missing":
        reason = f"Give a {where[-1] if where else 'name and password'}."
    elif not reason[:1].isupper():
        reason = f"{' '.join(where).capitalize() or 'The request'}: {reason}."
    return JSONResponse(status_code=422, content={"error": "invalid_account", "message": reason})


async def _http_error(request: Request, error: HttpError) -> JSONResponse:
    return JSONResponse(
        status_code=error.status, content={"error": error.code, "message": error.message}
    )


async def _starlette_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
    # A body that is not even text, an unknown path: the same error shape as ours.
    code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
        error.status_code, "error"
    )
    headers = dict(getattr(error, "headers", None) or {})
    if error.status_code == 405:
        # Starlette names the methods of the first route on the path; a path with a
        # route per method (GET and PUT /api/limits) allows them all.
        headers["Allow"] = ", ".join(_allowed_methods(request.app, request.url.path))
    return JSONResponse(
        status_code=error.status_code,
        content={"error": code, "message": str(error.detail)},
        headers=headers or None,
    )


def _allowed_methods(app: FastAPI, path: str) -> list[str]:
    methods: set[str] = set()
    for route in app.routes:
        if isinstance(route, APIRoute) and route.path_regex.fullmatch(path):
            methods |= route.methods or set()
    return sorted(methods)
