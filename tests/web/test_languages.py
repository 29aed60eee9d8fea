"""Which language a request gets (app/i18n.py): Accept-Language with its qualities, the switch's cookie
on pages (not on the API), what the answer says about it, and the formatting helpers."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from app import i18n
from tests.helpers import claim, csrf_of, html, round_form


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("", None),
        ("ru", "ru"),
        ("de-AT", "de"),
        ("RU-ru", "ru"),
        ("fr, de;q=0.8, ru;q=0.9", "ru"),  # by quality, not by position
        ("de;q=0.5, ru;q=0.5", "de"),  # equal qualities: the header's order
        ("ru;q=0, de", "de"),  # q=0: not this one
        ("ru;q=0", None),
        ("fr, it", None),
        ("fr, *;q=0.1", "en"),  # anything: the first language we speak
        ("en;q=0, ru;q=0.5, *;q=0.1", "ru"),  # a named range beats "*"...
        ("en;q=0, *", "ru"),  # ...and "*" never brings back a refused one
        ("en, ru, de;q=0, *;q=0.5", "en"),
        ("en_US", "en"),  # an underscore, as some programs send it
        ("de_AT;q=0.9, ru;q=0.1", "de"),
        ("en-GB,en;q=0.9,ru;q=0.8", "en"),
        ("de;q=abc, ru", "ru"),  # a malformed quality counts as 0
        ("x-klingon-!!, de", "de"),  # a malformed range is skipped
        ("ru;q=1.5", None),  # a quality over 1 is not a quality
    ],
)
def test_accept_language_picks_the_best_language_we_speak(header, expected):
    assert i18n.from_accept_language(header) == expected


@pytest.mark.parametrize(
    ("path", "cookie", "header", "expected"),
    [
        ("/", None, None, "en"),
        ("/", "de", "ru", "de"),  # the switch beats the browser's languages
        ("/", "xx", "ru", "ru"),  # an unknown cookie is ignored
        ("/api/v1/games", "de", "ru", "ru"),  # programs follow Accept-Language only
        ("/api/v1/games", "de", None, "en"),
    ],
)
def test_pages_follow_the_switch_and_the_api_follows_accept_language(path, cookie, header, expected):
    assert i18n.choose(path, cookie, header) == expected


def test_every_answer_says_its_language_and_varies_by_it(client: TestClient, pseudo):
    page = client.get("/", headers={"Accept-Language": pseudo})
    assert page.headers["Content-Language"] == pseudo
    assert {"Accept-Language", "Cookie"} <= {v.strip() for v in page.headers["Vary"].split(",")}
    assert html(page).html["lang"] == pseudo
    api = client.get("/api/v1/games/nope", headers={"Accept-Language": pseudo})
    assert api.headers["Content-Language"] == pseudo and "Accept-Language" in api.headers["Vary"]
    plain = client.get("/")
    assert plain.headers["Content-Language"] == "en" and html(plain).html["lang"] == "en"


def test_the_switch_remembers_a_language_and_goes_back(client: TestClient, pseudo):
    headers = {"Accept-Language": "de"}
    answer = client.post(
        "/language", data={"lang": "ru", "next": "/g/abc?x=1"}, headers=headers, follow_redirects=False
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/g/abc?x=1"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{i18n.COOKIE}=ru;") and "Max-Age=31536000" in cookie and "HttpOnly" in cookie
    assert client.get("/", headers=headers).headers["Content-Language"] == "ru"  # remembered, beats Accept-Language
    # Programs are not steered by a page's cookie.
    assert client.get("/api/v1/games/nope", headers=headers).headers["Content-Language"] == "de"


@pytest.mark.parametrize(
    "target",
    ["//evil.example/", "https://evil.example/", "/\\evil.example", "/\t/evil.example", "/ /x", "/ж", "", None],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_the_switch_goes_back_only_to_a_page_of_this_site(client: TestClient, target, htmx: bool):
    data = {"lang": "de"} | ({"next": target} if target is not None else {})
    headers = {"HX-Request": "true"} if htmx else {}
    answer = client.post("/language", data=data, headers=headers, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/"


def test_the_switch_refuses_an_unknown_language_and_another_site(client: TestClient):
    unknown = client.post("/language", data={"lang": "xx", "next": "/"}, follow_redirects=False)
    assert unknown.status_code == 422 and "set-cookie" not in unknown.headers
    foreign = client.post(
        "/language", data={"lang": "de"}, headers={"Sec-Fetch-Site": "cross-site"}, follow_redirects=False
    )
    assert foreign.status_code == 403 and "set-cookie" not in foreign.headers


def test_a_view_page_kept_in_one_language_is_not_current_in_another(client: TestClient, make_game, pseudo):
    game = make_game()
    first = client.get(f"/g/{game.id}")
    etag = first.headers["ETag"]
    assert client.get(f"/g/{game.id}", headers={"If-None-Match": etag}).status_code == 304
    other = client.get(f"/g/{game.id}", headers={"If-None-Match": etag, "Accept-Language": pseudo})
    assert other.status_code == 200 and other.headers["ETag"] != etag


def test_a_share_link_carries_no_language_and_each_reader_gets_their_own(client: TestClient, make_game, pseudo):
    game = make_game()
    client.post("/language", data={"lang": "de", "next": "/"})  # the keeper reads German...
    for link in game.body["urls"].values():
        assert "lang" not in link and "de" not in link.split("/")
    client.cookies.clear()  # ...a viewer opening the link gets their own browser's language
    view = client.get(urlsplit(game.body["urls"]["view"]).path)
    assert view.status_code == 200
    assert view.headers["Content-Language"] == "en"
    pseudo_view = client.get(f"/g/{game.id}", headers={"Accept-Language": pseudo})
    assert pseudo_view.headers["Content-Language"] == pseudo


@pytest.mark.parametrize(
    ("lang", "value", "expected"),
    [
        ("en", 12, "+12"),
        ("en", -5, "\u22125"),
        ("en", 0, "0"),
        ("en", 12345, "+12,345"),
        ("de", 12345, "+12.345"),
        ("ru", -12345, "\u221212\u00a0345"),
    ],
)
def test_signed_points_read_the_language_s_way(lang, value, expected):
    token = i18n.use(lang)
    try:
        assert i18n.signed(value) == expected
    finally:
        i18n.reset(token)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "Ana, Ben and Cy"), ("de", "Ana, Ben und Cy"), ("ru", "Ana, Ben и Cy")],
)
def test_lists_of_names_read_the_language_s_way(lang, expected):
    token = i18n.use(lang)
    try:
        assert i18n.join_names(["Ana", "Ben", "Cy"]) == expected
        assert i18n.join_names(["Ana"]) == "Ana" and i18n.join_names([]) == ""
    finally:
        i18n.reset(token)


# --- the real catalogs, end to end ------------------------------------------------------------------

CYRILLIC = re.compile("[а-яё]", re.I)


def in_catalog(lang: str, english: str) -> str:
    token = i18n.use(lang)
    try:
        return i18n.gettext(english)
    finally:
        i18n.reset(token)


def test_an_api_problem_in_russian_and_german_keeps_what_clients_rely_on(client: TestClient, make_game):
    game = make_game()
    bad = game.scores([(41, 0), (2, 4), (1, 6), (0, 8)])
    answers = {
        lang: client.post(f"/api/v1/games/{game.id}/rounds", json=bad, headers=game.auth | {"Accept-Language": lang})
        for lang in ("en", "ru", "de")
    }
    bodies = {lang: answer.json() for lang, answer in answers.items()}
    for lang, answer in answers.items():
        assert answer.status_code == 422 and answer.headers["Content-Language"] == lang
        assert bodies[lang]["type"] == bodies["en"]["type"] and bodies[lang]["status"] == 422
        assert [e["field"] for e in bodies[lang]["errors"]] == [e["field"] for e in bodies["en"]["errors"]]
    assert bodies["en"]["title"] == "Invalid input"
    assert bodies["de"]["title"] == in_catalog("de", "Invalid input") != "Invalid input"
    for field in ("title", "detail"):
        assert CYRILLIC.search(bodies["ru"][field]), bodies["ru"][field]
    assert all(CYRILLIC.search(e["message"]) for e in bodies["ru"]["errors"])
    assert all(e["message"] not in {x["message"] for x in bodies["en"]["errors"]} for e in bodies["de"]["errors"])


def test_the_pages_and_a_form_error_in_russian(client: TestClient, make_game):
    game = make_game()
    claim(client, game.id, game.key)
    client.cookies.set(i18n.COOKIE, "ru")
    keeper = html(client.get(f"/g/{game.id}/score"))
    assert keeper.html["lang"] == "ru"
    save = keeper.select_one("#round-entry button[type=submit]")
    assert save is not None and save.get_text(strip=True) == in_catalog("ru", "Save round")
    assert CYRILLIC.search(save.get_text())
    refused = client.post(
        f"/g/{game.id}/rounds",
        data=round_form(game.player_ids, [(3, 1), (2, 4), (1, 6), (0, 8)], csrf_of(client, game.id)),
    )
    assert refused.status_code == 422
    message = html(refused).select_one(".form-error")
    assert message is not None and CYRILLIC.search(message.get_text()), message
    view = html(client.get(f"/g/{game.id}?tv=1", headers={"Accept-Language": "de"}))
    assert view.html["lang"] == "ru"  # the switch's cookie beats the browser's languages


def test_a_missing_catalog_stops_the_app_instead_of_answering_in_english(tmp_path):
    with pytest.raises(RuntimeError, match="Русский catalog is missing"):
        i18n.read_catalogs(tmp_path)


def test_the_csv_export_says_its_columns_are_english(client: TestClient, make_game):
    game = make_game()
    client.cookies.set(i18n.COOKIE, "ru")
    export = client.get(f"/api/v1/games/{game.id}/export.csv", headers={"Accept-Language": "de"})
    assert export.status_code == 200 and export.headers["Content-Language"] == "en"
