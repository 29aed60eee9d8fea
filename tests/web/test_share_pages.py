"""Share at the top of a game's pages: the header's Share link, on the scorekeeper's page and the view page
and never on the TV layout, goes to the page's one Share box (#share), which a page without JavaScript
jumps to; the dialog app.js opens it in holds nothing of its own but ✕; "Share…" waits, hidden, for a
browser with a share sheet and carries the view link's field, never the edit link's."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.helpers import WORKED_EXAMPLE_ROUND, GameHandle, html
from tests.helpers import text_of as text


@pytest.fixture
def game(make_game) -> GameHandle:
    game = make_game(rules={"target": 1000})
    assert game.add_round(WORKED_EXAMPLE_ROUND).status_code == 201
    return game


def header_share(page: BeautifulSoup):
    return page.select_one("header.site a#share-open")


@pytest.mark.parametrize("who", ["keeper", "view"])
def test_the_header_has_a_share_link_to_the_pages_one_share_box(
    client: TestClient, keeper_of: Callable[[GameHandle], TestClient], game: GameHandle, who: str
):
    browser = keeper_of(game) if who == "keeper" else client
    page = html(browser.get(f"/g/{game.id}/score" if who == "keeper" else f"/g/{game.id}"))
    link = header_share(page)
    assert link is not None
    assert link["href"] == "#share"  # without JavaScript: a jump to the box
    assert text(link) == "Share"
    assert link.select_one("svg[aria-hidden=true]") is not None  # the icon says nothing to a screen reader
    assert page.select_one("#game header, #game #share-open") is None  # outside what a live refresh swaps

    box = page.select_one("main > section#share")
    assert box is not None and box.select_one("#share-title") is not None
    assert box.select_one("#view-link")["value"] == f"http://testserver/g/{game.id}"
    assert box.select_one(f'a[href="/g/{game.id}?tv=1"]') is not None
    assert len(page.select(".qr")) == 1  # one box, one QR code: the dialog has no copy of its own
    assert len(page.select("#view-link")) == 1
    assert (box.select_one("#handover") is not None) == (who == "keeper")

    sheet = page.select_one("main > dialog#share-sheet")
    assert sheet is not None and not sheet.has_attr("open")  # opened by app.js only
    assert sheet["aria-labelledby"] == "share-title"
    assert [child.name for child in sheet.find_all(recursive=False)] == ["button"]
    assert sheet.select_one("button[data-share-close]")["aria-label"] == "Close"

    share = box.select_one("button[data-share]")
    assert text(share) == "Share…"
    assert share["data-share"] == "view-link"  # the view link's field, never the edit link's
    assert share["data-title"] == "Live scores · Blitzboard"
    assert share.find_parent("p").has_attr("hidden")  # until app.js finds navigator.share


def test_the_share_title_names_the_game(client: TestClient, make_game):
    game = make_game(name="Friday <night>")
    page = html(client.get(f"/g/{game.id}"))
    assert page.select_one("#share button[data-share]")["data-title"] == "Friday <night> · Live scores · Blitzboard"


def test_a_keepers_shared_edit_link_stays_out_of_share(keeper_of: Callable[[GameHandle], TestClient], game: GameHandle):
    page = html(keeper_of(game).get(f"/g/{game.id}/score", params={"handover": "1"}))
    assert page.select_one("#edit-link")["value"].startswith(f"http://testserver/g/{game.id}/edit/")
    assert [button["data-share"] for button in page.select("[data-share]")] == ["view-link"]


def test_the_tv_layout_has_no_share_button(client: TestClient, game: GameHandle):
    page = html(client.get(f"/g/{game.id}?tv=1"))
    assert page.select_one("body.tv") is not None
    assert header_share(page) is None
    assert page.select("#share-open, #share-sheet, #share, [data-share]") == []
