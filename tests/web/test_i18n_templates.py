"""The pages in the request's language: no text in a template outside the catalogs, <html lang>,
the language switch on every page (a plain form), what app.js says, and round points with a real minus.

Two checks keep the templates honest. One reads each template's own literal text (Jinja's parse tree):
any word there is English that no catalog can reach. The other renders the pages in a pseudo-language
whose every translated text is wrapped in ⟦…⟧, and finds what is left unwrapped: text that a template
prints from a string of its own (`{{ "Save" if ... }}`), or that Python hands it untranslated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup, Comment, Doctype
from fastapi.testclient import TestClient
from jinja2 import nodes

from app import i18n
from app.config import ROOT
from app.web.render import templates
from tests.helpers import CLOSE, OPEN, WORKED_EXAMPLE_PLAYERS, WORKED_EXAMPLE_ROUND, GameHandle, claim, form_data, html

# What the pages may show untranslated: names (the players', the brand's, each language's own), numbers,
# signs and punctuation. Anything with a letter beyond these went past the catalogs.
NAMES = {p["name"] for p in WORKED_EXAMPLE_PLAYERS} | {
    "Friday",
    "Blitzboard",
    "API",
    "ReDoc",
}  # the API docs' title names products; the brand's "Blitz<span>board</span>" is skipped where it stands
LANGUAGE_NAMES = set(i18n.LANGUAGES.values()) | {code.upper() for code in i18n.LANGUAGES}
# A day as Babel writes it for English (the pseudo-language's formats): "Dec 1, 2026", from CLDR, not
# the catalogs.
BABEL_DAY = r"[A-Z][a-z]{2} \d{1,2}, \d{4}"
# The attributes people hear or see (a screen reader's name, a tooltip, a field's hint).
READ_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt", "data-unnamed")


# --- the templates' own text ---------------------------------------------------------------------


SLOT = "\x01"  # where a template prints a value: a translated text, a name, a number
NOT_TEXT_BLOCKS = {"referrer", "body_class", "here"}  # base.html's blocks that fill an attribute no one reads


def without_markers(text: str) -> str:
    """Text with every ⟦…⟧ taken out, innermost first (a translation may hold another)."""
    while (shorter := re.sub(r"⟦[^⟦⟧]*⟧", " ", text)) != text:
        text = shorter
    return text


def literal_html(node: nodes.Node, out: list[str]) -> None:
    """The template's HTML as written, with every printed value replaced by SLOT (both branches of an
    `if` one after the other: each branch's text is checked all the same)."""
    if isinstance(node, nodes.TemplateData):
        out.append(node.data)
    elif isinstance(node, nodes.Output):
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                out.append(child.data)
            else:
                out.append(SLOT)
    elif isinstance(node, nodes.Block) and node.name in NOT_TEXT_BLOCKS:
        return
    else:
        for child in node.iter_child_nodes():
            if not isinstance(child, nodes.Expr):
                literal_html(child, out)


def words(text: str, allowed: set[str] = NAMES | LANGUAGE_NAMES) -> str:
    """What is left of `text` once the names, digits, signs and punctuation are taken out."""
    for name in sorted(allowed, key=len, reverse=True):
        text = re.sub(rf"(?<![^\W\d_]){re.escape(name)}(?![^\W\d_])", " ", text)
    return " ".join(re.findall(r"[^\W\d_]+", text))


def skipped(node) -> bool:
    """Not text to check: a comment, a script, the brand (the logo's "Blitz" and "board"), or what a page
    marks translate="no" (a name cut short: the head-to-head's columns say "A" for Ana)."""
    if isinstance(node, (Comment, Doctype)) or node.parent.name in ("script", "style"):
        return True
    return any(
        (parent.name == "a" and "brand" in (parent.get("class") or [])) or parent.get("translate") == "no"
        for parent in node.parents
    )


def visible_texts(page: BeautifulSoup) -> Iterator[tuple[str, str]]:
    """(where, text) for every text node and every read attribute of a page."""
    for node in page.find_all(string=True):
        if skipped(node):
            continue
        yield node.parent.name, str(node)
    for element in page.find_all(True):
        for attribute in READ_ATTRIBUTES:
            if element.has_attr(attribute):
                yield f"{element.name}[{attribute}]", str(element[attribute])
        if element.name == "input" and element.get("type") in ("submit", "button", "reset"):
            yield "input[value]", str(element.get("value", ""))


TEMPLATES = sorted(path.name for path in (ROOT / "templates").glob("*.html"))


@pytest.mark.parametrize("name", TEMPLATES)
def test_no_template_writes_text_of_its_own_outside_the_catalogs(name: str):
    source = (ROOT / "templates" / name).read_text(encoding="utf-8")
    written: list[str] = []
    literal_html(templates.env.parse(source), written)
    page = BeautifulSoup("".join(written), "html.parser")
    left = [(where, text.strip()) for where, text in visible_texts(page) if words(text.replace(SLOT, " "))]
    assert left == [], f"{name}: text outside {{% trans %}} / _(): {left}"


def test_the_check_of_the_templates_own_text_sees_a_word():
    written: list[str] = []
    literal_html(templates.env.parse('<p>{{ _("Rounds") }}</p><b title="Total {{ n }}">{{ n }} to go</b>'), written)
    left = [text for _, text in visible_texts(BeautifulSoup("".join(written), "html.parser")) if words(text)]
    assert [words(text.replace(SLOT, " ")) for text in left] == ["to go", "Total"]


# --- every page in a pseudo-language ---------------------------------------------------------------


def unwrapped(page: BeautifulSoup) -> list[tuple[str, str]]:
    """(where, text) for text outside every ⟦…⟧ (a translated text's placeholders hold names and
    numbers: they are inside)."""
    found, depth = [], 0
    for node in page.find_all(string=True):
        if skipped(node):
            continue
        outside = []
        for char in str(node):
            depth += (char == OPEN) - (char == CLOSE)
            outside.append(char if depth == 0 and char not in (OPEN, CLOSE) else " ")
        found.append((node.parent.name, "".join(outside)))
    assert depth == 0, "a ⟦ without its ⟧"
    found += [(where, without_markers(text)) for where, text in visible_texts(page) if "[" in where]
    return [
        (where, " ".join(text.split()).strip(" ·:;,."))
        for where, text in found
        if words(text) and not (where == "time" and re.fullmatch(BABEL_DAY, " ".join(text.split())))
    ]


def game_in_every_state(client: TestClient, make_game) -> dict[str, str]:
    """Paths of pages that, together, show every part of the templates."""
    game = make_game()
    claim(client, game.id, game.key)
    game.add_round([(10, 0), (5, 2), (3, 4), (0, 6)])
    game.add_round([(4, 0), (5, 2), (3, 4), (0, 6)])
    client.patch(f"/api/v1/games/{game.id}", json={"name": "Friday", "rules": {"target": 150}}, headers=game.auth)
    client.delete(f"/api/v1/games/{game.id}/rounds/2", headers=game.auth)
    client.post(f"/api/v1/games/{game.id}/start", headers=game.auth)
    won = make_game()
    claim(client, won.id, won.key)
    won.add_round(WORKED_EXAMPLE_ROUND)
    tied = make_game([{"name": "Ana", "starting_score": 70}, {"name": "Ben", "starting_score": 70}])
    claim(client, tied.id, tied.key)
    tied.add_round([(10, 0), (10, 0)])
    shared = make_game([{"name": "Ana", "starting_score": 70}, {"name": "Ben", "starting_score": 70}],
                       rules={"tie_break": "shared"})  # fmt: skip
    claim(client, shared.id, shared.key)
    shared.add_round([(10, 0), (10, 0)])
    gone = make_game()
    client.delete(f"/api/v1/games/{gone.id}", headers=gone.auth)
    keeper = f"/g/{game.id}/score"
    table = table_in_every_state(client)
    return {
        "start": "/",
        "keeper": keeper,
        "correcting": f"{keeper}?edit=1",
        "deleting a round": f"{keeper}?delete=1",
        "deleting the game": f"{keeper}?delete_game=1",
        "sharing editing": f"{keeper}?handover=1",
        "handing over": f"{keeper}?handover=move",
        "saved": f"{keeper}?saved=1",
        "view": f"/g/{game.id}",
        "tv": f"/g/{game.id}?tv=1",
        "won": f"/g/{won.id}/score",
        "won, view": f"/g/{won.id}",
        "tie-break": f"/g/{tied.id}/score",
        "shared win": f"/g/{shared.id}/score",
        "not found": "/g/nosuchgame00000",
        "deleted": f"/g/{gone.id}",
        "api docs": "/docs",
        "table": f"/t/{table}",
        "table, tonight": f"/t/{table}?period=tonight",
        "table, a season with no games": f"/t/{table}?from=2999-01-01",
        "table, a season that is no date": f"/t/{table}?from=someday",
        "a person at a table": f"/t/{table}/p/{person_at(client, table, 'Ana')}",
        "a person in a season with no games": f"/t/{table}/p/{person_at(client, table, 'Ana')}?from=2999-01-01",
        "a person who has not played": f"/t/{table}/p/{person_at(client, table, 'Cy')}",
        "table, sharing editing": f"/t/{table}?share=1",
        "new game at a table": f"/?table={table}",
        "game at a table": f"/g/{table_game(client, table)}",
    }


def table_in_every_state(client: TestClient) -> str:
    """A table made on the start page, with a game being played and finished ones of every
    kind (a win with awards, a shared win without, Nerts, Dutch, 31), so its standings, head-to-head
    and awards and Ana's page show all of their parts: its id."""
    response = client.post("/tables", data={"table_name": "Friday", "people": "Ana\nBen\nCy"}, follow_redirects=False)
    table = response.headers["location"].removeprefix("/t/")
    play(client, table_game(client, table), [{"dutch": 30, "blitz": 0}, {"dutch": 2, "blitz": 0}])
    shared = table_game(client, table, {"target": 30, "tie_break": "shared"})
    play(client, shared, [{"dutch": 30, "blitz": 0}, {"dutch": 30, "blitz": 0}])
    play(
        client,
        table_game(client, table, {"preset": "nerts", "target": 10}),
        [{"dutch": 10, "blitz": 0}, {"dutch": 1, "blitz": 3}],
    )
    play(client, table_game(client, table, {"preset": "dutch", "target": 10}), [{"hand": 20}, {"hand": 2}], "caller")
    thirty_one = table_game(client, table, {"preset": "thirty_one", "lives": 1})
    play(client, thirty_one, [{"hand": 20}, {"hand": 10}], "knocker")
    return table


def table_game(client: TestClient, table: str, rules: dict | None = None) -> str:
    """A game of Ana and Ben (Dutch Blitz to 30 unless `rules` say) at the table, started with its key:
    its id (this browser keeps its score)."""
    key = client.cookies[f"bb_table_{table}"]
    body = {"players": [{"name": "Ana"}, {"name": "Ben"}], "rules": rules or {"target": 30}, "table_id": table}
    game = client.post("/api/v1/games", json=body, headers={"Authorization": f"Bearer {key}"}).json()
    claim(client, game["id"], game["edit_key"])
    return game["id"]


def play(client: TestClient, game_id: str, scores: list[dict], called: str | None = None) -> None:
    """One round that ends the game: each player's scores in seat order (`called`: Ben called Dutch or
    knocked, as the field the game's kind names)."""
    key = client.cookies[f"bb_edit_{game_id}"]
    players = [p["id"] for p in client.get(f"/api/v1/games/{game_id}").json()["players"]]
    body: dict = {"scores": [{"player_id": pid} | score for pid, score in zip(players, scores, strict=True)]}
    if called:
        body[called] = players[1]
    answer = client.post(f"/api/v1/games/{game_id}/rounds", json=body, headers={"Authorization": f"Bearer {key}"})
    assert answer.json()["status"] == "finished", answer.text


def person_at(client: TestClient, table: str, name: str) -> int:
    return next(p["id"] for p in client.get(f"/api/v1/tables/{table}").json()["people"] if p["name"] == name)


def test_every_page_in_a_pseudo_language_has_no_text_outside_the_catalogs(client: TestClient, make_game, pseudo: str):
    client.cookies.set(i18n.COOKIE, pseudo)
    paths = game_in_every_state(client, make_game)
    stranger = TestClient(client.app, cookies={i18n.COOKIE: pseudo})
    pages = {name: client.get(path) for name, path in paths.items()}
    pages["not the keeper"] = stranger.get(paths["keeper"])
    handover = html(pages["handing over"]).select_one("#handover-link")
    assert handover is not None
    pages["taking over"] = stranger.get(str(handover["value"]).removeprefix("http://testserver"))
    pages["start, with mistakes"] = client.post(
        "/games", data={"player_count": "3", "player-0": "Ana", "start-0": "x", "target": "many", "action": "start"}
    )
    pages["start, one more player"] = client.post("/games", data={"player_count": "2", "action": "add"})
    table = paths["table"].removeprefix("/t/")
    pages["table, watching"] = stranger.get(paths["table"])
    pages["new game at a table, not its keeper"] = stranger.get(paths["new game at a table"])
    pages["wrong table link"] = stranger.get(f"{paths['table']}/edit/wrong")
    pages["new table, with mistakes"] = client.post("/tables", data={"table_name": " ", "people": "Ana\nAna"})
    csrf = str(html(pages["table"]).select_one("form.add-person input[name=csrf]")["value"])
    pages["table, with mistakes"] = client.post(f"{paths['table']}/people", data={"csrf": csrf, "name": "ana"})
    at_table = {"table_id": table, "csrf": csrf, "player_count": "1", "start-0": "x", "action": "start"}
    pages["new game at a table, with mistakes"] = client.post("/games", data=at_table)
    left = {}
    for name, response in pages.items():
        assert response.status_code < 500, name
        page = html(response)
        assert page.select_one("html")["lang"] == pseudo, name
        if found := unwrapped(page):
            left[name] = found
    assert left == {}


def test_the_pseudo_language_check_sees_text_left_out():
    page = BeautifulSoup(
        '<p>⟦Round 3⟧ · after round 3</p><a title="⟦Edit⟧">⟦Edit⟧</a><i aria-label="Edit">✕</i>', "html.parser"
    )
    assert unwrapped(page) == [("p", "after round 3"), ("i[aria-label]", "Edit")]


def test_what_app_js_says_comes_from_the_page_in_its_language(client: TestClient, pseudo: str):
    client.cookies.set(i18n.COOKIE, pseudo)
    page = html(client.get("/"))
    meta = page.select_one('meta[name="js-text"]')
    assert meta is not None
    said = json.loads(str(meta["content"]))
    # app.js and the start page's start.js, which says its words through app.js's phrase().
    script = "".join((ROOT / "static" / name).read_text(encoding="utf-8") for name in ("app.js", "start.js"))
    used = set(re.findall(r'phrase\("(\w+)"', script))
    assert "copied" in used and "offline" in used  # the search sees app.js's words
    assert set(said) == used  # every word app.js says is on the page, and the page sends no other
    assert all(text.startswith(OPEN) and text.endswith(CLOSE) for text in said.values()), said
    assert "{name}" in said["starting_score"] and "{status}" in said["failed"]  # app.js fills these in


def test_what_rounds_js_says_comes_from_the_keepers_page_in_its_language(client: TestClient, pseudo: str, make_game):
    game = make_game()
    claim(client, game.id, game.key)
    client.cookies.set(i18n.COOKIE, pseudo)
    page = html(client.get(f"/g/{game.id}/score"))
    own = json.loads(str(page.select_one('meta[name="offline-text"]')["content"]))
    app_js = json.loads(str(page.select_one('meta[name="js-text"]')["content"]))
    keepers = "".join((ROOT / "static" / name).read_text(encoding="utf-8") for name in ("rounds.js", "entry.js"))
    used = set(re.findall(r'phrase\("(\w+)"', keepers))
    assert {"round_n", "waiting_count", "hands_line", "sent_one", "sent_few", "sent_many", "sent_other"} <= used
    assert set(own) == used - set(app_js)  # every word of its own is on the page, and no other
    assert all(text.startswith(OPEN) and text.endswith(CLOSE) for text in own.values()), own
    assert all("{n}" in own[key] for key in ("round_n", "waiting_count", "sent_one", "sent_other"))


# --- <html lang> and the language switch -------------------------------------------------------------


@pytest.mark.parametrize(
    ("cookie", "accept", "lang"),
    [(None, None, "en"), (None, "de-AT, en;q=0.5", "de"), ("ru", "de", "ru"), ("xx", "ru", "ru")],
)
def test_the_page_says_its_language(app, cookie: str | None, accept: str | None, lang: str):
    browser = TestClient(app, cookies={i18n.COOKIE: cookie} if cookie else None)
    response = browser.get("/", headers={"Accept-Language": accept} if accept else {})
    page = html(response)
    assert page.select_one("html")["lang"] == lang
    switch = page.select("header form.lang-switch button[name=lang]")
    assert [(b["value"], b["lang"], b["aria-label"], b.get("aria-current")) for b in switch] == [
        (code, code, f"{code.upper()} — {name}", "true" if code == lang else None)
        for code, name in i18n.LANGUAGES.items()
    ]
    # The accessible name holds the text shown (axe: label-content-name-mismatch).
    assert all(b["aria-label"].startswith(b.get_text(strip=True)) for b in switch)


def test_the_switch_works_without_javascript_and_comes_back_to_the_page(client: TestClient, make_game):
    game: GameHandle = make_game()
    claim(client, game.id, game.key)
    game.add_round(WORKED_EXAMPLE_ROUND)
    for path in (f"/g/{game.id}/score", f"/g/{game.id}", f"/g/{game.id}?tv=1", "/"):
        switch = html(client.get(path)).select_one("header form.lang-switch")
        assert switch is not None and switch["method"] == "post"
        data = {"next": str(switch.select_one("input[name=next]")["value"]), "lang": "de"}
        response = client.post(str(switch["action"]), data=data, follow_redirects=False)
        assert response.status_code == 303
        assert response.headers["location"] == path  # the TV view stays the TV view
        assert html(client.get(path)).select_one("html")["lang"] == "de"
        client.cookies.delete(i18n.COOKIE)


def test_a_page_that_answers_a_post_switches_back_to_its_page_not_the_post(client: TestClient, make_game):
    game: GameHandle = make_game()
    claim(client, game.id, game.key)
    page = html(client.get(f"/g/{game.id}/score"))
    form = page.select_one("#round-entry form")
    data = form_data(form)  # nothing typed: refused
    refused = html(client.post(str(form["action"]), data=data))
    assert refused.select_one("header form.lang-switch input[name=next]")["value"] == f"/g/{game.id}/score"
    mistake = html(client.post("/games", data={"player_count": "2", "action": "start"}))
    assert mistake.select_one("header form.lang-switch input[name=next]")["value"] == "/"


def test_round_points_have_a_real_minus_sign(client: TestClient, make_game):
    game: GameHandle = make_game()
    claim(client, game.id, game.key)
    game.add_round(WORKED_EXAMPLE_ROUND)
    page = html(client.get(f"/g/{game.id}"))
    assert [p.get_text() for p in page.select("#history .points")] == ["+22", "+8", "+1", "\u22125"]
    assert "\u22122 per Blitz card" in page.select_one(".rules-line").get_text()
