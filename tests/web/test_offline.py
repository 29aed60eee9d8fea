"""Installable and offline, the server's part: the manifest, the service worker's script and
its shell, which pages it may keep, and the form answers static/rounds.js relies on when it sends the
rounds kept offline. The browser's part is tests/browser/test_browser_offline.py."""

from __future__ import annotations

import json
import struct

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.http.assets import build
from app.paths import KEPT_PAGES
from tests.helpers import GameHandle, claim, csrf_of, html, round_form

KEEP = "blitzboard-offline"
NAMES = [{"name": "Ana"}, {"name": "Ben"}]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_names_the_app_its_icons_and_colours(client: TestClient):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["name"] == manifest["short_name"] == "Blitzboard"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == ("/", "/", "standalone")
    assert manifest["theme_color"] == "#b3261e" and manifest["background_color"] == "#f6f4ef"
    assert manifest["user_preferences"]["color_scheme"]["dark"] == {
        "theme_color": "#1f1e1c",
        "background_color": "#141312",
    }
    pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
    assert {(icon["sizes"], icon["purpose"]) for icon in pngs} == {
        ("192x192", "any"),
        ("512x512", "any"),
        ("192x192", "maskable"),
        ("512x512", "maskable"),
    }
    for icon in pngs:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        width, height = png_size(image.content)
        assert f"{width}x{height}" == icon["sizes"], icon


MANIFEST_DESCRIPTIONS = {
    "en": "Score keeper for Dutch Blitz and the card games played beside it.",
    "ru": "Подсчёт очков в Dutch Blitz и похожих карточных играх.",
    "de": "Punkteblock für Dutch Blitz und verwandte Kartenspiele.",
}


@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_the_manifest_speaks_the_visitors_language_and_says_which(client: TestClient, lang: str):
    response = client.get("/manifest.webmanifest", headers={"Accept-Language": f"{lang}, en;q=0.5"})
    manifest = response.json()
    assert manifest["description"] == MANIFEST_DESCRIPTIONS[lang]
    assert (manifest["lang"], manifest["dir"], manifest["name"]) == (lang, "ltr", "Blitzboard")
    assert response.headers["content-language"] == lang
    # A cache keeps one copy per language, each with a validator of its own.
    assert {"accept-language", "cookie"} <= {v.strip().lower() for v in response.headers["vary"].split(",")}
    assert response.headers["etag"] == f'"{build()}-{lang}"'


def test_the_manifest_follows_the_language_switch_like_the_page_that_links_it(client: TestClient):
    client.cookies.set(i18n.COOKIE, "ru")
    manifest = client.get("/manifest.webmanifest", headers={"Accept-Language": "de"}).json()
    assert (manifest["lang"], manifest["description"]) == ("ru", MANIFEST_DESCRIPTIONS["ru"])
    # A browser sends the cookie with a manifest's request only when the link asks for it.
    link = html(client.get("/")).select_one("link[rel=manifest]")
    assert link is not None and link["crossorigin"] == "use-credentials"


@pytest.mark.parametrize("lang", ["ru", "de"])
def test_the_offline_page_is_in_the_visitors_language(client: TestClient, lang: str):
    token = i18n.use(lang)
    heading = i18n.gettext("No connection")
    i18n.reset(token)
    assert heading != "No connection"
    by_header = html(client.get("/offline", headers={"Accept-Language": lang}))
    client.cookies.set(i18n.COOKIE, lang)
    by_cookie = html(client.get("/offline", headers={"Accept-Language": "en"}))
    for page in (by_header, by_cookie):
        assert page.html["lang"] == lang
        assert page.select_one("#offline-page h1").get_text() == heading
        assert "connection" not in page.select_one("#offline-page").get_text()


def test_every_page_links_the_manifest_and_both_theme_colours(client: TestClient, make_game):
    game: GameHandle = make_game(players=NAMES)
    claim(client, game.id, game.key)
    for url in ("/", f"/g/{game.id}", f"/g/{game.id}?tv=1", f"/g/{game.id}/score", "/offline", "/g/nosuchgame"):
        page = html(client.get(url))
        assert page.select_one("link[rel=manifest]")["href"] == "/manifest.webmanifest", url
        colours = {meta["media"]: meta["content"] for meta in page.select("meta[name=theme-color]")}
        assert colours == {"(prefers-color-scheme: light)": "#b3261e", "(prefers-color-scheme: dark)": "#1f1e1c"}, url
        assert client.get(page.select_one("link[rel=apple-touch-icon]")["href"]).status_code == 200


def test_the_service_worker_names_this_deployment_and_its_shell(client: TestClient):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    first, rest = response.text.split("\n", 1)
    assert first.startswith(f'var BUILD = "{build()}", SHELL = ')
    shell_text, kept_text = first.split("SHELL = ", 1)[1].rstrip(";").split(", KEPT = ")
    shell = json.loads(shell_text)
    assert json.loads(kept_text) == list(KEPT_PAGES)  # the pages it may keep, as app/paths.py says
    assert "/offline" in shell
    assert any(url.startswith("/static/app.js?v=") for url in shell)
    assert any(url.startswith("/static/rounds.js?v=") for url in shell)
    for url in shell:
        assert client.get(url).status_code == 200, url
    assert "caches" in rest and "eval(" not in rest
    # Every script the pages load is in the shell, so the pages work offline.
    page = html(client.get("/"))
    for script in page.select("script[src], link[rel=stylesheet]"):
        assert (script.get("src") or script.get("href")) in shell


def test_the_round_entry_script_is_the_scorekeepers_only_and_in_the_shell(client: TestClient, make_game):
    # static/entry.js: the round form's script, which spectators' pages don't download.
    game: GameHandle = make_game(players=NAMES)
    first = client.get("/sw.js").text.split("\n", 1)[0]
    shell = json.loads(first.split("SHELL = ", 1)[1].rstrip(";").split(", KEPT = ")[0])
    viewer = html(client.get(f"/g/{game.id}"))
    assert not [s for s in viewer.select("script[src]") if s["src"].startswith("/static/entry.js")]
    claim(client, game.id, game.key)
    keeper = html(client.get(f"/g/{game.id}/score"))
    scripts = [s["src"] for s in keeper.select("script[src]")]
    entry = [src for src in scripts if src.startswith("/static/entry.js?v=")]
    assert len(entry) == 1 and entry[0] in shell
    assert scripts.index(entry[0]) > next(i for i, src in enumerate(scripts) if src.startswith("/static/app.js"))
    for src in scripts:
        assert src in shell, src


def test_the_offline_page_says_so(client: TestClient):
    response = client.get("/offline")
    assert response.status_code == 200
    assert response.headers[KEEP] == "keep"
    page = html(response)
    assert page.select_one("#offline-page h1").get_text() == "No connection"


def test_which_pages_the_worker_may_keep(client: TestClient, make_game):
    game: GameHandle = make_game(players=NAMES)
    assert client.get("/").headers.get(KEEP) == "keep"
    assert client.get(f"/g/{game.id}").headers.get(KEEP) == "keep"
    assert client.get(f"/g/{game.id}?tv=1").headers.get(KEEP) == "keep"
    # The fragment a live page asks for is not a page.
    assert KEEP not in client.get(f"/g/{game.id}", headers={"HX-Request": "true"}).headers
    # The edit link answers a redirect that sets the key's cookie: never kept.
    assert KEEP not in claim(client, game.id, game.key).headers
    assert client.get(f"/g/{game.id}/score").headers.get(KEEP) == "keep"
    # The share and handover boxes show an edit key or a handover link: never kept.
    for box in ("1", "move"):
        response = client.get(f"/g/{game.id}/score?handover={box}")
        assert response.status_code == 200
        assert KEEP not in response.headers, box
    assert KEEP not in client.get(f"/g/{game.id}/score", headers={"HX-Request": "true"}).headers


@pytest.fixture
def game(make_game) -> GameHandle:
    return make_game(players=NAMES)


def kept_round(game: GameHandle, csrf: str, counts, *, version: int, request_id: str) -> dict[str, str]:
    """A round as rounds.js sends it from its queue: the form's fields, its version and request id."""
    return round_form(game.player_ids, counts, csrf) | {"version": str(version), "request_id": request_id}


def answered_version(response) -> int:
    return int(html(response).select_one("#game")["data-version"])


def test_a_kept_round_sent_twice_counts_once(keeper: TestClient, game: GameHandle, csrf: str):
    form = kept_round(game, csrf, [(10, 0), (5, 3)], version=1, request_id="a1b2c3d4e5f6a1b2c3d4e5f6")
    first = keeper.post(f"/g/{game.id}/rounds", data=form, headers={"HX-Request": "true"})
    again = keeper.post(f"/g/{game.id}/rounds", data=form, headers={"HX-Request": "true"})
    assert first.status_code == again.status_code == 200
    assert answered_version(first) == answered_version(again) == 2
    assert len(game.get()["rounds"]) == 1


def test_a_kept_round_after_another_phones_change_is_refused_with_the_game_as_it_now_is(
    keeper: TestClient, game: GameHandle, csrf: str
):
    assert game.add_round([(1, 0), (2, 2)]).status_code == 201  # another phone: version 2
    form = kept_round(game, csrf, [(10, 0), (5, 3)], version=1, request_id="b1b2c3d4e5f6a1b2c3d4e5f6")
    response = keeper.post(f"/g/{game.id}/rounds", data=form, headers={"HX-Request": "true"})
    assert response.status_code == 409
    assert answered_version(response) == 2  # rounds.js: not the version it sent, so a conflict
    assert len(game.get()["rounds"]) == 1


def test_a_kept_round_the_rules_refuse_answers_the_version_it_was_sent_with(keeper_of, make_game):
    game: GameHandle = make_game(players=NAMES, rules={"target": 10})
    keeper = keeper_of(game)
    csrf = csrf_of(keeper, game.id)
    assert game.add_round([(12, 0), (2, 2)]).status_code == 201  # Ana reached 10: the game is over
    form = kept_round(game, csrf, [(3, 0), (2, 2)], version=2, request_id="c1b2c3d4e5f6a1b2c3d4e5f6")
    response = keeper.post(f"/g/{game.id}/rounds", data=form, headers={"HX-Request": "true"})
    assert response.status_code == 409
    assert answered_version(response) == 2  # rounds.js: the version it sent, so refused, with the reason
    assert html(response).select_one("#round-error").get_text(strip=True)


@pytest.mark.parametrize(
    ("timing", "expected"),
    [
        ({"started_at_ms": "1796050000000", "duration_s": "95"}, ("2026-11-30T14:46:40Z", 95)),
        ({}, (None, None)),  # no timer ran: untimed
        ({"started_at_ms": "1796050000000", "duration_s": "99999"}, (None, None)),  # past 6 hours: left out
        ({"started_at_ms": "99999999999999999", "duration_s": "5"}, (None, None)),  # no such year: left out
        ({"started_at_ms": "１２３", "duration_s": "5"}, (None, None)),  # not ASCII digits: left out
        ({"started_at_ms": "1796050000000"}, (None, None)),  # half of it: left out
    ],
)
def test_a_kept_round_brings_its_time_from_the_phone(keeper: TestClient, game: GameHandle, csrf: str, timing, expected):
    form = kept_round(game, csrf, [(10, 0), (5, 3)], version=1, request_id="d1b2c3d4e5f6a1b2c3d4e5f6") | timing
    assert keeper.post(f"/g/{game.id}/rounds", data=form, headers={"HX-Request": "true"}).status_code == 200
    (saved,) = game.get()["rounds"]
    assert (saved["started_at"], saved["duration_s"]) == expected


@pytest.mark.parametrize(("preset", "scored"), [("dutch", "points"), ("thirty_one", "lives_lost")])
def test_a_kept_hand_round_is_scored_by_the_server_once(keeper_of, make_game, preset: str, scored: str):
    # Dutch's and 31's rounds wait offline with their hands only (rounds.js invents no totals).
    game: GameHandle = make_game(players=NAMES, rules={"preset": preset})
    keeper = keeper_of(game)
    ana, ben = game.player_ids
    form = {"csrf": csrf_of(keeper, game.id), "version": "1", "request_id": "e1b2c3d4e5f6a1b2c3d4e5f6",
            f"hand-{ana}": "14", f"hand-{ben}": "22", "caller": str(ana)}  # fmt: skip
    first = keeper.post(f"/g/{game.id}/rounds", data=form, headers={"HX-Request": "true"})
    again = keeper.post(f"/g/{game.id}/rounds", data=form, headers={"HX-Request": "true"})
    assert first.status_code == again.status_code == 200
    assert answered_version(first) == answered_version(again) == 2
    rounds = game.get()["rounds"]
    assert len(rounds) == 1
    # Dutch: Ana called with the lowest hand, 0, Ben his 22; 31: Ana knocked with the sole lowest, two lives.
    assert [s[scored] for s in rounds[0]["scores"]] == ([0, 22] if preset == "dutch" else [2, 0])


def test_the_keepers_page_says_rounds_sent_in_each_plural_form_of_its_language(keeper: TestClient, game: GameHandle):
    words = {}
    for lang in ("en", "ru", "de"):
        keeper.cookies.set(i18n.COOKIE, lang)
        meta = html(keeper.get(f"/g/{game.id}/score")).select_one('meta[name="offline-text"]')
        said = json.loads(str(meta["content"]))
        words[lang] = [said[f"sent_{form}"] for form in ("one", "few", "many", "other")]
    assert words == {
        "en": ["{n} round sent", "{n} rounds sent", "{n} rounds sent", "{n} rounds sent"],
        "ru": ["{n} раунд отправлен", "{n} раунда отправлены", "{n} раундов отправлено", "{n} раунда отправлены"],
        "de": ["{n} Runde gesendet", "{n} Runden gesendet", "{n} Runden gesendet", "{n} Runden gesendet"],
    }


def test_the_tv_stylesheet_is_the_tvs_only_and_in_the_shell(client: TestClient, make_game):
    # static/tv.css: the TV layout's, which the view page and the scorekeeper's page don't download; in
    # the shell, so a TV kept offline keeps its layout after a new deployment too.
    game: GameHandle = make_game(players=NAMES)
    first = client.get("/sw.js").text.split("\n", 1)[0]
    shell = json.loads(first.split("SHELL = ", 1)[1].rstrip(";").split(", KEPT = ")[0])

    def sheets(path: str) -> list[str]:
        return [str(link["href"]) for link in html(client.get(path)).select("link[rel=stylesheet]")]

    assert not [href for href in sheets(f"/g/{game.id}") if href.startswith("/static/tv.css")]
    tv = sheets(f"/g/{game.id}?tv=1")
    assert [href.split("?")[0] for href in tv] == ["/static/app.css", "/static/tv.css"]  # after app.css
    assert all(href in shell for href in tv)
    assert client.get(tv[1]).status_code == 200
