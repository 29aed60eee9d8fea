"""Installable and offline, in Chromium at phone size.

"Offline" here is the real thing for every part of the browser: the server is stopped (so the service
worker's own fetches fail too, which Playwright's offline switch does not reach) and the context is set
offline (so the page's navigator.onLine says so). The server comes back on the same port and database.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Route, expect

from app.config import ROOT
from tests.browser.device import CHROMIUM, CHROMIUM_ARGS, PHONE
from tests.browser.helpers import (
    QUEUED,
    TIMEOUT_MS,
    ApiGame,
    Phones,
    api_game,
    fill_round,
    save_round,
    scoreboard,
    start_server,
)
from tests.servers import Server

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben"]

# Every entry of every cache of this origin: its cache, URL and body as text.
CACHE_STORAGE = """async () => {
  const out = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      out.push({cache: name, url: request.url, body: await response.text(),
                headers: [...response.headers.entries()].map(([k, v]) => k + ": " + v).join("\\n")});
    }
  }
  return out;
}"""

# Resolves once the service worker controls the page (it installs on the first visit, then claims it).
CONTROLLED = """() => navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller ? true :
  new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", () => resolve(true))))"""

# A new deployment's worker fetches its whole shell, then the pages the old one kept, before it is
# "activated": 2.8 s on a quiet machine here (1.7 s to install, 1 s to activate), and past 10 s once on
# CI's machine with the other test worker busy. A guard against a hang, not a measure of speed.
INSTALL_TIMEOUT_MS = 60_000


# Resolves once the worker's offline page is in the language given (the worker fetches it again after a
# switch of language, in the background of the page's own answer).
OFFLINE_PAGE_IN = """async () => {
  for (;;) {
    const page = await caches.match("/offline");
    if (page && page.headers.get("Content-Language") === "%s") return;
    await new Promise((done) => setTimeout(done, 100));
  }
}"""


def happened(page: Page, script: str, timeout_ms: int = TIMEOUT_MS) -> None:
    """Run `script`, a function whose promise resolves once an event the test waits for has happened
    (no polling), failing after `timeout_ms` as expect() would (evaluate itself has no timeout)."""
    page.evaluate(
        f"() => Promise.race([({script})(), new Promise((_, reject) => setTimeout("
        f"() => reject(new Error('not within {timeout_ms} ms')), {timeout_ms}))])"
    )


def new_caches_only(names: list[str], old: list[str]) -> bool:
    """The new deployment's caches are there and the old ones gone (its worker's activation is over)."""
    return any(n.startswith("blitzboard-static-") for n in names) and not set(names) & set(old)


def worker_ready(page: Page) -> None:
    """Wait until the service worker controls the page (it installs on the first visit)."""
    happened(page, CONTROLLED, INSTALL_TIMEOUT_MS)
    assert page.evaluate("() => !!navigator.serviceWorker.controller")


def go_offline(context: BrowserContext, server: Server) -> None:
    server.stop()
    context.set_offline(True)


def go_online(context: BrowserContext, server: Server) -> None:
    server.start()
    context.set_offline(False)


def cached(page: Page) -> list[dict[str, Any]]:
    return page.evaluate(CACHE_STORAGE)


def kept_page(page: Page, path: str) -> list[dict[str, Any]]:
    return [e for e in cached(page) if "-pages-" in e["cache"] and e["url"].endswith(path)]


def server_rounds(game: ApiGame) -> list[list[tuple[int, int, int]]]:
    """Each round as (dutch, blitz, total) per player, in order."""
    return [[(s["dutch"], s["blitz"], s["total"]) for s in r["scores"]] for r in game.read()["rounds"]]


def keeper(phones: Phones, server: Server, game: ApiGame) -> tuple[BrowserContext, Page]:
    context = phones.context(server)
    page = context.new_page()
    page.goto(game.edit_url)
    page.wait_for_url("**/score")
    worker_ready(page)
    page.reload()  # kept by the worker now that it controls the page
    return context, page


def press_save(page: Page) -> None:
    page.locator("#round-entry button[type=submit]").click()


def test_the_app_is_installable_from_chromium(playwright: Playwright, server: Server, tmp_path: Path):
    # Installing needs a profile of its own (Chromium refuses in an incognito context, as Playwright's are).
    context = playwright.chromium.launch_persistent_context(
        tmp_path / "profile", executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, base_url=server.url, **PHONE
    )
    try:
        page = context.new_page()
        page.goto("/")
        worker_ready(page)
        errors = context.new_cdp_session(page).send("Page.getInstallabilityErrors")
        assert errors["installabilityErrors"] == []
        manifest = context.new_cdp_session(page).send("Page.getAppManifest")
        assert manifest["errors"] == []
        assert manifest["url"].endswith("/manifest.webmanifest")
    finally:
        context.close()


def test_three_rounds_saved_offline_survive_closing_and_arrive_once_in_order(phones: Phones, own_server: Server):
    game = api_game(own_server, NAMES)
    context, page = keeper(phones, own_server, game)
    fill_round(page, NAMES, [(10, 0), (5, 3)])
    save_round(page, 1)

    go_offline(context, own_server)
    for number, counts in enumerate([[(8, 0), (5, 2)], [(3, 4), (9, 0)], [(12, 0), (0, 6)]], start=2):
        fill_round(page, NAMES, counts)
        press_save(page)
        expect(page.locator("#offline-queue .pending-rounds li")).to_have_count(number - 1)
        expect(page.locator("#round-entry h2")).to_have_text(f"Round {number + 1}")
        expect(page.locator("#round-entry input.num").first).to_have_value("")
    rounds = ["Round 2: Ana +8 · Ben +1", "Round 3: Ana −5 · Ben +9", "Round 4: Ana +12 · Ben −12"]
    expect(page.locator("#offline-queue .pending-rounds .round-line")).to_have_text(rounds)
    # The standings are the server's, after round 1 (tests/browser/test_browser_offline_queue.py).
    expect(scoreboard(page).locator("[data-total]")).to_have_text(["10", "−1"])
    expect(page.locator("#waiting-count")).to_have_text("· not sent yet: 3")
    expect(page.locator("#offline-note")).to_contain_text("Offline — last updated")

    # Closed, and opened again without a connection: the kept page, with the three rounds still waiting.
    page.close()
    page = context.new_page()
    page.goto(f"/g/{game.id}/score")
    expect(page.locator("#offline-note")).to_contain_text("Offline — last updated")
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    expect(page.locator("#offline-queue .pending-rounds .round-line")).to_have_text(rounds)
    expect(scoreboard(page).locator("[data-total]")).to_have_text(["10", "−1"])
    assert len(page.evaluate(QUEUED)) == 3

    # Online: sent oldest first, once each; the page shows the game as the server has it.
    watcher = phones.page(own_server)
    go_online(context, own_server)
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator("#offline-sent")).to_have_text("3 rounds sent")
    expect(page.locator(".round-count")).to_have_text("· after round 4")
    expect(page.locator("#offline-note")).to_have_count(0)
    assert server_rounds(game) == [
        [(10, 0, 10), (5, 3, -1)],
        [(8, 0, 18), (5, 2, 0)],
        [(3, 4, 13), (9, 0, 9)],
        [(12, 0, 25), (0, 6, -3)],
    ]
    assert page.evaluate(QUEUED) == []
    expect(scoreboard(page).locator("[data-total]")).to_have_text(["25", "−3"])
    # Another phone watching sees the same.
    watcher.goto(game.view_path)
    expect(scoreboard(watcher).locator("[data-total]")).to_have_text(["25", "−3"])
    # And the same again after a reload: nothing more was sent.
    page.reload()
    expect(page.locator(".round-count")).to_have_text("· after round 4")
    assert len(server_rounds(game)) == 4


def test_the_rounds_kept_offline_survive_restarting_the_browser(
    playwright: Playwright, own_server: Server, tmp_path: Path
):
    def launch() -> BrowserContext:
        return playwright.chromium.launch_persistent_context(
            tmp_path / "profile",
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            base_url=own_server.url,
            **PHONE,
        )

    game = api_game(own_server, NAMES)
    browser = launch()
    page = browser.new_page()
    page.goto(game.edit_url)
    page.wait_for_url("**/score")
    worker_ready(page)
    page.reload()
    go_offline(browser, own_server)
    fill_round(page, NAMES, [(8, 0), (5, 2)])
    press_save(page)
    expect(page.locator("#offline-queue .pending-rounds .round-line")).to_have_text(["Round 1: Ana +8 · Ben +1"])
    browser.close()  # the browser quits with the round unsent

    browser = launch()
    try:
        browser.set_offline(True)
        page = browser.new_page()
        page.goto(f"/g/{game.id}/score")
        expect(page.locator("#offline-queue .pending-rounds .round-line")).to_have_text(["Round 1: Ana +8 · Ben +1"])
        go_online(browser, own_server)
        expect(page.locator("#offline-queue")).to_have_count(0)
        assert server_rounds(game) == [[(8, 0, 8), (5, 2, 1)]]
    finally:
        browser.close()


def test_on_a_plain_http_lan_address_the_rounds_are_still_kept(playwright: Playwright, server: Server):
    # `scripts/run --lan`: http:// on the machine's address, which browsers don't count as secure, so
    # no service worker (docs/usage.md, "Offline"); the rounds kept while the Wi-Fi is down need none.
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP blitzboard.lan 127.0.0.1"]
    )
    try:
        context = browser.new_context(base_url=f"http://blitzboard.lan:{server.port}", **PHONE)
        page = context.new_page()
        game = api_game(server, NAMES)
        page.goto(game.edit_url.replace(server.url, ""))
        page.wait_for_url("**/score")
        assert page.evaluate("[window.isSecureContext, 'serviceWorker' in navigator]") == [False, False]
        context.set_offline(True)
        fill_round(page, NAMES, [(10, 0), (5, 2)])
        press_save(page)
        expect(page.locator("#offline-queue .pending-rounds .round-line")).to_have_text(["Round 1: Ana +10 · Ben +1"])
        context.set_offline(False)
        expect(page.locator("#offline-queue")).to_have_count(0)
        assert server_rounds(game) == [[(10, 0, 10), (5, 2, 1)]]
    finally:
        browser.close()


def test_a_round_saved_by_another_keeper_meanwhile_is_a_conflict_resolved_without_loss(
    phones: Phones, own_server: Server
):
    game = api_game(own_server, NAMES)
    context, page = keeper(phones, own_server, game)
    fill_round(page, NAMES, [(10, 0), (5, 3)])
    save_round(page, 1)

    go_offline(context, own_server)
    fill_round(page, NAMES, [(8, 0), (5, 2)])
    press_save(page)
    # Kept (and the form emptied for the next round) before the next one is typed.
    expect(page.locator("#offline-queue .pending-rounds li")).to_have_count(1)
    fill_round(page, NAMES, [(3, 4), (9, 0)])
    press_save(page)
    expect(page.locator("#offline-queue .pending-rounds li")).to_have_count(2)

    # The other scorekeeper (with the edit link) saves a round while this phone is away.
    own_server.start()
    game.add_round([(1, 0), (2, 2)])
    context.set_offline(False)

    # Both versions: the game as it now is (their round 2), and these rounds, not saved yet.
    expect(page.locator("#offline-queue-status")).to_contain_text("The game changed on another phone")
    expect(page.locator(".round-count")).to_have_text("· after round 2")
    expect(page.locator("#offline-queue .pending-rounds .round-line")).to_have_text(
        ["Round 3: Ana +8 · Ben +1", "Round 4: Ana −5 · Ben +9"]
    )
    assert len(server_rounds(game)) == 2
    # Theirs and mine, in that order.
    page.get_by_role("button", name="Save mine after it").click()
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(page.locator(".round-count")).to_have_text("· after round 4")
    assert server_rounds(game) == [
        [(10, 0, 10), (5, 3, -1)],
        [(1, 0, 11), (2, 2, -3)],
        [(8, 0, 19), (5, 2, -2)],
        [(3, 4, 14), (9, 0, 7)],
    ]


def test_discarding_after_a_conflict_keeps_the_other_keepers_game(phones: Phones, own_server: Server):
    game = api_game(own_server, NAMES)
    context, page = keeper(phones, own_server, game)
    go_offline(context, own_server)
    fill_round(page, NAMES, [(8, 0), (5, 2)])
    press_save(page)
    expect(page.locator("#offline-queue .pending-rounds li")).to_have_count(1)  # kept before the server is back
    own_server.start()
    game.add_round([(1, 0), (2, 2)])
    context.set_offline(False)
    expect(page.locator("#offline-queue-status")).to_contain_text("The game changed on another phone")
    page.get_by_role("button", name="Discard mine").click()
    expect(page.locator("#offline-queue")).to_have_count(0)
    expect(scoreboard(page).locator("[data-total]")).to_have_text(["1", "−2"])
    assert server_rounds(game) == [[(1, 0, 1), (2, 2, -2)]]
    assert page.evaluate(QUEUED) == []


def test_a_round_the_server_refuses_is_shown_with_the_reason_and_can_be_discarded(phones: Phones, own_server: Server):
    game = api_game(own_server, NAMES, rules={"target": 20})
    context, page = keeper(phones, own_server, game)
    go_offline(context, own_server)
    fill_round(page, NAMES, [(25, 0), (5, 2)])  # Ana reaches 20: this round ends the game
    press_save(page)
    expect(page.locator("#offline-queue .pending-rounds li")).to_have_count(1)
    fill_round(page, NAMES, [(5, 0), (3, 2)])  # one round too many
    press_save(page)
    expect(page.locator("#offline-queue .pending-rounds li")).to_have_count(2)
    go_online(context, own_server)
    expect(page.locator("#offline-queue-status")).to_contain_text("Not saved: ")
    expect(page.locator("#offline-queue-status")).to_contain_text("over")
    expect(page.locator("#offline-queue .pending-rounds li.refused .round-line")).to_have_text(
        ["Round 2: Ana +5 · Ben −1"]
    )
    expect(page.get_by_role("button", name="Edit it")).to_have_count(0)  # the game is over: no form
    page.get_by_role("button", name="Discard it").click()
    expect(page.locator("#offline-queue")).to_have_count(0)
    assert server_rounds(game) == [[(25, 0, 25), (5, 2, 1)]]
    assert page.evaluate(QUEUED) == []


def test_a_save_whose_answer_was_lost_is_sent_again_and_counted_once(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    page = phones.page(service_workers="block")  # (Playwright routes a page's own requests only)
    page.goto(game.edit_url)
    page.wait_for_url("**/score")
    lost, posts = [], []

    def lose_the_first_answer(route: Route) -> None:
        posts.append(route.request.post_data or "")
        if lost:
            route.continue_()
            return
        lost.append(route.fetch().status)  # it reached the server, which saved it
        route.abort("connectionreset")  # and the answer never came back

    page.route("**/rounds", lose_the_first_answer)
    fill_round(page, NAMES, [(10, 0), (5, 3)])
    # Kept with the request id it was sent with, and sent again: the server answers with the first save
    # (the first post has no answer, so the first answer is the second post's).
    with page.expect_response(lambda response: response.url.endswith("/rounds")) as again:
        press_save(page)
    assert again.value.status == 200 and len(posts) == 2
    # The queue's list was shown before it sent the round again, and goes only once it read the queue
    # back empty after the send.
    expect(page.locator("#offline-queue")).to_have_count(0)
    assert page.evaluate(QUEUED) == []
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    assert lost == [200]
    assert server_rounds(game) == [[(10, 0, 10), (5, 3, -1)]]
    # Sent twice (the form's post, then the queue's), with the same request id: counted once.
    ids = [dict(parse_qsl(body))["request_id"] for body in posts]
    assert len(ids) == 2 and ids[0] == ids[1]


def test_corrections_are_refused_offline_with_a_message(phones: Phones, own_server: Server):
    game = api_game(own_server, NAMES)
    game.add_round([(10, 0), (5, 3)])
    context, page = keeper(phones, own_server, game)
    go_offline(context, own_server)
    page.get_by_role("link", name="Edit round 1").click()
    expect(page.locator("#request-error")).to_contain_text(
        "corrections, deletions and rule changes need the connection"
    )
    expect(page.locator(".round-count")).to_have_text("· after round 1")
    assert page.evaluate(QUEUED) == []


def test_the_cache_storage_never_holds_an_edit_key_or_a_handover_link(phones: Phones, server: Server):
    game = api_game(server, NAMES)
    _context, page = keeper(phones, server, game)
    key = game.body["edit_key"]
    page.goto(f"/g/{game.id}/score?handover=1")  # the edit link, shown
    expect(page.locator("#edit-link")).to_have_value(game.edit_url)
    page.goto(f"/g/{game.id}/score?handover=move")  # a handover link, shown
    handover = page.locator("#handover-link").input_value()
    page.goto(game.edit_url)  # the edit link itself, opened again
    page.wait_for_url("**/score")
    page.goto(game.view_path)
    page.goto("/")
    page.goto(f"/g/{game.id}/score")

    entries = cached(page)
    assert kept_page(page, f"/g/{game.id}/score") and kept_page(page, game.view_path)  # it does keep pages
    for entry in entries:
        assert key not in entry["url"] + entry["body"] + entry["headers"]
        assert "/edit/" not in entry["url"] + entry["body"]
        assert handover not in entry["body"]
        assert "handover=" not in entry["url"]


def test_the_view_page_offline_shows_its_last_state_and_catches_up(phones: Phones, own_server: Server):
    game = api_game(own_server, NAMES)
    context = phones.context(own_server)
    viewer = context.new_page()
    viewer.goto(game.view_path)
    worker_ready(viewer)
    viewer.reload()
    game.add_round([(10, 0), (5, 3)])  # after the page was kept: its state comes live
    expect(viewer.locator(".round-count")).to_have_text("· after round 1")

    go_offline(context, own_server)
    viewer.close()
    viewer = context.new_page()
    viewer.goto(game.view_path)
    expect(viewer.locator("#offline-note")).to_contain_text("Offline — last updated")
    expect(viewer.locator(".round-count")).to_have_text("· after round 1")  # the last state it had

    own_server.start()
    game.add_round([(8, 0), (5, 2)])
    context.set_offline(False)
    expect(viewer.locator(".round-count")).to_have_text("· after round 2")
    expect(viewer.locator("#offline-note")).to_have_count(0)
    game.add_round([(3, 4), (9, 0)])  # and live again
    expect(viewer.locator(".round-count")).to_have_text("· after round 3")


def test_a_page_never_opened_says_it_is_offline_and_the_start_page_opens(phones: Phones, own_server: Server):
    game = api_game(own_server, NAMES)
    context = phones.context(own_server)
    page = context.new_page()
    page.goto("/")
    worker_ready(page)
    page.reload()  # under the worker: the start page is kept
    # The worker fetched its offline page in English when it installed; German chosen since, it says it
    # in German.
    page.locator(".lang-switch button[value=de]").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    happened(page, OFFLINE_PAGE_IN % "de")
    go_offline(context, own_server)
    page.goto(game.view_path)
    expect(page.locator("#offline-page h1")).to_have_text("Keine Verbindung")
    # The start page, opened before, opens again.
    page.get_by_role("link", name="Zurück zu Blitzboard").click()
    expect(page.get_by_role("heading", name="Neues Spiel")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-offline-copy", re.compile(r"^[1-9]\d+$"))


# --- a new deployment --------------------------------------------------------------------------------------

TREE = ["app", "templates", "static", "locales", "alembic", "alembic.ini", "pyproject.toml"]


def test_an_update_of_the_static_files_replaces_the_cache(phones: Phones, tmp_path: Path, server_database_url: str):
    # The same site (port, database) served first from a copy of this tree, then from the copy with a
    # changed app.js: a new deployment.
    tree = tmp_path / "tree"
    for name in TREE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif (ROOT / name).exists():
            shutil.copy2(ROOT / name, tree / name)
    server = start_server(tmp_path, server_database_url, cwd=tree)
    try:
        game = api_game(server, NAMES)
        _context, page = keeper(phones, server, game)
        old = [e["url"] for e in cached(page) if "/static/app.js" in e["url"]]
        assert len(old) == 1
        old_caches = sorted({e["cache"] for e in cached(page)})  # before the new worker can make its own

        server.stop()
        app_js = tree / "static" / "app.js"
        app_js.write_text(app_js.read_text() + "\nwindow.blitzboardDeployment = 2;\n")
        server.start()
        page.goto(f"/g/{game.id}/score")  # the browser checks /sw.js: a new worker installs and takes over
        # Its activation ends by deleting the old caches: watched from here, not through a promise of
        # update() and the worker's state changes (twice, under load, that promise never settled).
        page.evaluate("() => navigator.serviceWorker.getRegistration().then((r) => { r.update().catch(() => {}); })")
        for _ in range(INSTALL_TIMEOUT_MS // 250):
            if new_caches_only(page.evaluate("() => caches.keys()"), old_caches):
                break
            page.wait_for_timeout(250)
        names = page.evaluate("() => caches.keys()")
        assert any(n.startswith("blitzboard-static-") for n in names) and not set(names) & set(old_caches)
        page.reload()
        entries = cached(page)
        scripts = [e["url"] for e in entries if "/static/app.js" in e["url"]]
        served = page.locator("script[src*='/static/app.js']").get_attribute("src")
        assert scripts != old and len(scripts) == 1 and scripts[0].endswith(served)
        assert kept_page(page, f"/g/{game.id}/score")  # kept again, for this deployment
        assert "window.blitzboardDeployment=2" in httpx.get(server.url + served).text.replace(" ", "")
        assert page.evaluate("window.blitzboardDeployment") == 2
    finally:
        server.stop()
