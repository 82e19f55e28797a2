"""The browser table's page (its files are mounted at ``/static``)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from croupier.server.web import REVALIDATE, STATIC

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


@router.get("/")
def page() -> FileResponse:
    """The page: asked for again on every load (it names the current assets)."""
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": REVALIDATE})


@router.get("/favicon.ico")
def favicon() -> Response:
    """No icon (a browser asks for one)."""
    return Response(status_code=204)
