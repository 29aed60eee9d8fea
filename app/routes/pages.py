"""HTML pages and HTMX fragments."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from app.config import ROOT

router = APIRouter()
templates = Jinja2Templates(directory=ROOT / "templates")


def error_page(request: Request, status: int, detail: str) -> HTMLResponse:
    return templates.TemplateResponse(
        request, "error.html", {"status": status, "detail": detail}, status_code=status
    )


@router.get("/", response_class=HTMLResponse)
def start_page(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "start.html", {})


@router.get("/g/{game_id}", response_class=HTMLResponse)
def view_page(request: Request, game_id: str) -> HTMLResponse:
    return templates.TemplateResponse(request, "start.html", {})


@router.get("/g/{game_id}/edit/{edit_key}")
def claim_edit_link(request: Request, game_id: str, edit_key: str) -> RedirectResponse:
    return RedirectResponse(f"/g/{game_id}", status_code=303)
