"""The interactive API docs work on a table's LAN without internet: every request to another host is
refused, and Swagger UI (/docs) and ReDoc (/redoc) still draw every operation of the API from this
server's files, Swagger UI's "Try it out" reaches the server, and the CSP refuses nothing they need."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Locator, Page, Route, expect

from tests.browser.helpers import Phones, Server, api_game

pytestmark = pytest.mark.browser

# What ReDoc 3 asks for and its page's CSP refuses, harmlessly (app/security.py says why each is not
# granted): the Redocly logo from its CDN (the image hides itself), and a probe of eval() that decides
# whether search runs in a worker (it runs in the page instead). Reported by the browser, so named here;
# any other report fails the test.
REDOC_REFUSALS = [
    re.compile(r"img-src blocked https://cdn\.redoc\.ly/redoc/logo-mini(-full)?\.svg at :0$"),
    re.compile(r"^Loading the image 'https://cdn\.redoc\.ly/redoc/logo-mini(-full)?\.svg' violates .*\"img-src 'self'"),
    re.compile(r"script-src blocked eval at http://127\.0\.0\.1:\d+/static/vendor/redoc-[\d.]+\.min\.js:\d+$"),
]


@dataclass
class Offline:
    """A phone whose every request to a host other than the test server is aborted."""

    context: BrowserContext
    page: Page
    elsewhere: list[str] = field(default_factory=list)  # requests that tried to leave the server
    errors: list[str] = field(default_factory=list)  # console errors and uncaught exceptions


def offline(phones: Phones, server: Server) -> Offline:
    context = phones.context()
    here = urlsplit(server.url).netloc
    result = Offline(context, context.new_page())

    def only_this_server(route: Route) -> None:
        if urlsplit(route.request.url).netloc == here:
            route.continue_()
        else:
            result.elsewhere.append(route.request.url)
            route.abort()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            result.errors.append(message.text)

    context.route("**/*", only_this_server)
    result.page.on("console", console)
    result.page.on("pageerror", lambda error: result.errors.append(f"uncaught: {error}"))
    return result


def operations(server: Server) -> list[tuple[str, str, str]]:
    """(method, path, summary) of every operation in the server's OpenAPI document."""
    document = httpx.get(f"{server.url}/openapi.json").json()
    found = [(m, p, op["summary"]) for p, ops in document["paths"].items() for m, op in ops.items()]
    assert len(found) >= 9 and ("post", "/api/v1/games", "Create a game") in found
    return found


def tagged(server: Server, tag: str) -> list[str]:
    """The summaries of the operations under one tag of the server's OpenAPI document."""
    document = httpx.get(f"{server.url}/openapi.json").json()
    return [op["summary"] for ops in document["paths"].values() for op in ops.values() if tag in op.get("tags", [])]


def operation(page: Page, method: str, path: str) -> Locator:
    """Swagger UI's block for one operation."""
    return page.locator(f".opblock-{method}").filter(has=page.locator(f'.opblock-summary-path[data-path="{path}"]'))


def menu_label(menu: Locator, text: str) -> Locator:
    """The label of one item of ReDoc's menu (`data-active` on the item the page is at)."""
    return menu.get_by_test_id("menu-item-label").filter(has=menu.page.locator(f'[data-text="{text}"]'))


def test_swagger_ui_draws_every_operation_and_tries_one_out_offline(phones: Phones, server: Server):
    game = api_game(server, ["Ana", "Ben"])
    phone = offline(phones, server)
    page = phone.page
    page.goto("/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Blitzboard")
    everything = operations(server)
    expect(page.locator(".opblock")).to_have_count(len(everything))
    for method, path, summary in everything:
        block = operation(page, method, path)
        expect(block).to_have_count(1)
        expect(block.locator(".opblock-summary-description")).to_have_text(summary)

    read = operation(page, "get", "/api/v1/games/{game_id}")
    read.locator(".opblock-summary-control").click()
    read.get_by_role("button", name="Try it out").click()
    read.get_by_placeholder("game_id").fill(game.id)
    read.get_by_role("button", name="Execute").click()
    answer = read.locator(".live-responses-table tbody tr.response")
    expect(answer.locator(".response-col_status")).to_have_text("200")
    expect(answer.locator(".response-col_description")).to_contain_text(f'"id": "{game.id}"')
    expect(answer.locator(".response-col_description")).to_contain_text('"name": "Ana"')

    phone.context.close()  # every report is in
    assert phone.elsewhere == [] and phone.errors == []
    # The phones fixture fails the test on any CSP report.


def test_redoc_draws_every_operation_offline(phones: Phones, server: Server):
    phone = offline(phones, server)
    page = phone.page
    page.goto("/redoc")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Blitzboard")
    page.get_by_role("button", name="Open navigation menu").click()
    menu = page.locator('[data-component-name="Menu/Menu"]')
    # Each tag's group opens to its operations, and is closed again before the next (a short menu on a
    # phone). A click on a group also goes to its section: the address changes at once, but ReDoc marks
    # the group active only once the page has scrolled there, and then opens the group again whatever was
    # clicked meanwhile (a slow browser's flake): each click waits for that mark first.
    for tag in ("tables", "games"):
        group = menu_label(menu, tag)
        group.click()
        expect(group).to_have_attribute("data-active", "true")
        for summary in tagged(server, tag):
            expect(menu.get_by_text(summary, exact=True)).to_be_visible()
        if tag != "games":
            group.click()
            expect(menu.get_by_text(tagged(server, tag)[0], exact=True)).to_be_hidden()
    assert sorted(s for tag in ("games", "tables") for s in tagged(server, tag)) == sorted(
        summary for _, _, summary in operations(server)
    )

    menu.get_by_text("Create a game", exact=True).click()
    expect(page).to_have_url(re.compile(r"/redoc#/games/create_game$"))
    # Marked once the page has scrolled there (the address changes first); the search opened before
    # then would be closed by that scroll.
    expect(menu_label(menu, "Create a game")).to_have_attribute("data-active", "true")
    expect(page.locator("h2", has_text="Create a game")).to_be_in_viewport()  # scrolled to
    expect(page.get_by_text("/api/v1/games", exact=True).first).to_be_visible()

    page.keyboard.press("Control+k")  # ReDoc's search, run in the page
    expect(page.get_by_placeholder("Search docs...")).to_be_focused()  # (keys typed before would be lost)
    page.keyboard.type("round")
    found = page.locator('[data-component-name="Search/SearchItem"]')
    expect(found.filter(has_text="Add a round")).to_be_visible()

    phone.context.close()  # every report is in
    assert phone.elsewhere == []
    known = [report for report in phones.csp_violations if any(p.search(report) for p in REDOC_REFUSALS)]
    phones.csp_violations[:] = [report for report in phones.csp_violations if report not in known]
    assert [error for error in phone.errors if error not in known] == []
    # The phones fixture fails the test on any other CSP report.
