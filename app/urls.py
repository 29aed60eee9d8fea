"""Absolute URLs: share links and QR codes (on BLITZBOARD_PUBLIC_URL when set), and a game's and a
table's view and edit links."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request


def absolute_url(request: Request, path: str) -> str:
    """An absolute URL for a path of ours: on BLITZBOARD_PUBLIC_URL when set, else on the request's host."""
    public = request.app.state.settings.public_url.rstrip("/")
    return (public + path) if public else str(request.base_url).rstrip("/") + path


def urls_for(request: Request) -> Callable[[str, str], dict[str, str]]:
    def make(game_id: str, edit_key: str) -> dict[str, str]:
        app = request.app
        return {
            "view": absolute_url(request, app.url_path_for("view_page", game_id=game_id)),
            "edit": absolute_url(request, app.url_path_for("claim_edit_link", game_id=game_id, edit_key=edit_key)),
        }

    return make


def table_urls(request: Request) -> Callable[[str, str | None], dict[str, str]]:
    """A table's links: its page, and (with its key) the edit link that hands the key to a browser."""

    def make(table_id: str, edit_key: str | None) -> dict[str, str]:
        urls = {"view": absolute_url(request, f"/t/{table_id}")}
        if edit_key is not None:
            urls["edit"] = absolute_url(request, f"/t/{table_id}/edit/{edit_key}")
        return urls

    return make
