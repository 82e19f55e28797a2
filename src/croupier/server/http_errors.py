"""The HTTP API's errors: one shape, ``{"error": CODE, "message": SENTENCE}``, for every
refusal, whether a route raised it, the request did not validate, or no route matched."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
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
    invalid name or password in a person's words), and describe its requests that do not
    validate (422) so in its OpenAPI description."""
    app.add_exception_handler(RequestValidationError, _invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(HttpError, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _starlette_error)  # type: ignore[arg-type]
    described = app.openapi

    def openapi() -> dict[str, Any]:
        return _errors_described(described())

    app.openapi = openapi  # type: ignore[method-assign]


def _errors_described(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every 422 answer described as an :class:`ErrorOut` (FastAPI
    describes its own ``{"detail": [...]}``, which this server never sends)."""
    for item in schema.get("paths", {}).values():
        for operation in item.values():
            invalid = operation.get("responses", {}).get("422")
            if invalid is None:
                continue
            invalid["description"] = "The request did not validate: the message names the field"
            invalid["content"] = {
                "application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}
            }
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("ErrorOut", ErrorOut.model_json_schema())
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    return schema


async def _invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
    problems = error.errors()
    first = problems[0] if problems else {}
    if request.url.path != "/api/accounts":
        # The first problem, named by where it is: "query limit: Input should be ...".
        place = " ".join(str(part) for part in first.get("loc", ()))
        reason = str(first.get("msg", "the request is not valid")).removeprefix("Value error, ")
        return JSONResponse(
            status_code=422,
            content={"error": "invalid", "message": f"{place}: {reason}" if place else reason},
        )
    # A sign-up: the first problem in a person's words, in the shape of our errors.
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
