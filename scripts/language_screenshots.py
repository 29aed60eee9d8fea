"""Take a screenshot of each kind of page people read, in each language (English, Russian, German), for
reading once more with a native speaker's eyes: docs/languages/<kind>-<lang>.jpg.

Run with `.venv/bin/python scripts/language_screenshots.py`. Like scripts/screenshots.py it starts its own
server on a temporary SQLite file and drives Debian's Chromium (or $BLITZBOARD_CHROMIUM). The games, the
table and the seat are set up through the API, each language with its own players' names (Cyrillic in
Russian, umlauts in German, so long names show); the language is the browser's own (`locale=`), as a
phone sends it, and each page's <html lang> is checked before its picture. On a phone (390 px wide)
except the TV view (1280×800); JPEG at quality 70 and device scale 1, to keep the files small.

The API docs (/docs) are not taken: Swagger UI's text is its own, in English (only the page's noscript
line is ours).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from playwright.sync_api import BrowserContext, Page, expect, sync_playwright  # noqa: E402

from tests.browser.helpers import PHONE, ApiGame, api_game, launch_chromium, start_server  # noqa: E402
from tests.servers import Server  # noqa: E402

OUT = ROOT / "docs" / "languages"
LANGUAGES = {"en": "en-GB", "ru": "ru-RU", "de": "de-DE"}
NAMES = {
    "en": ["Margaret", "Benedict", "Cy", "Dee"],
    "ru": ["Анастасия", "Григорий", "Екатерина", "Юрий"],
    "de": ["Jürgen", "Käthe", "Özlem", "Björn"],
}
TABLE = {"en": "The Millers of Upper Wensleydale", "ru": "Семья Кузнецовых", "de": "Familie Müller-Lüdenscheidt"}
RENAMED = {"en": "Deirdre", "ru": "Юлиана", "de": "Brünhilde"}
# In the order of docs/languages/README.md's table: the file's kind and what the page is.
KINDS = {
    "start": "Start page",
    "keeper": "Scorekeeper's page (Dutch Blitz, 3 rounds, one being typed)",
    "view": "View page of that game",
    "tv": "TV view (1280×800)",
    "finished": "Finished game, the winner's banner",
    "thirty-one": "31 (lives) with the 30½ house rule: a knock, a hand of 30½, someone on the county",
    "dutch": "Dutch (lowest wins)",
    "changes": "Changes (a correction, a rename)",
    "table": "Table with standings after two games",
    "person": "A person's page at the table",
    "seat": "A player's seat",
    "offline": "Offline page",
    "not-found": "404 (an unknown game)",
}

ROUNDS = [  # Dutch Blitz, (dutch, blitz) per player
    [(12, 0), (9, 2), (7, 4), (10, 1)],
    [(8, 3), (15, 0), (6, 5), (9, 2)],
    [(10, 2), (7, 4), (13, 0), (8, 3)],
]
NEXT_ROUND = [(14, 0), (11, 2), (None, 3), (None, None)]  # being typed when the picture is taken
TO_THE_END = [(30, 0), (20, 3), (15, 5), (10, 8)]  # three of these and the first player passes 75
TV = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False}
SHOT = {"type": "jpeg", "quality": 70, "full_page": True, "caret": "initial"}


def send(server: Server, method: str, path: str, key: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx.request(
        method, f"{server.url}/api/v1{path}", json=body, headers={"Authorization": f"Bearer {key}"}
    )
    response.raise_for_status()
    return response.json() if response.content else {}


def hands_round(game: ApiGame, hands: list[int | float | None], **who: int) -> None:
    """A round of a hand-counting kind (31, Dutch): each player's hand (None: out), and who knocked or called
    as an index into the players."""
    scores = [
        {"player_id": pid, "hand": hand} for pid, hand in zip(game.player_ids, hands, strict=True) if hand is not None
    ]
    body: dict[str, Any] = {"scores": scores} | {k: game.player_ids[v] for k, v in who.items()}
    send(game.server, "POST", f"/games/{game.id}/rounds", game.body["edit_key"], body)


def set_up(server: Server, lang: str) -> dict[str, Any]:
    """Every game and the table of one language's pictures."""
    names = NAMES[lang]
    blitz = api_game(server, names)
    for counts in ROUNDS:
        blitz.add_round(counts)

    finished = api_game(server, names)
    for _ in range(3):
        finished.add_round(TO_THE_END)

    # 31 with 30½: the first player knocks with the sole lowest hand (two lives), later is lowest again: on the
    # county; a three of a kind (30½) in round 2.
    thirty_one = api_game(server, names, rules={"preset": "thirty_one", "thirty_and_a_half": True})
    hands_round(thirty_one, [14, 22, 27, 25], knocker=0)
    hands_round(thirty_one, [28, 12, 24, 30.5])
    hands_round(thirty_one, [11, 26, 23, 29])

    dutch = api_game(server, names, rules={"preset": "dutch"})
    hands_round(dutch, [0, 12, 7, 19], caller=0)
    hands_round(dutch, [9, 3, 15, 4], caller=3)  # called without the lowest hand: a penalty card
    hands_round(dutch, [21, 8, 0, 6])

    changes = api_game(server, names)
    changes.add_round(ROUNDS[0])
    changes.add_round(ROUNDS[1])
    scores = [
        {"player_id": pid, "dutch": d, "blitz": b} for pid, (d, b) in zip(changes.player_ids, ROUNDS[2], strict=True)
    ]
    send(server, "PUT", f"/games/{changes.id}/rounds/1", changes.body["edit_key"], {"scores": scores})
    last = changes.player_ids[3]
    send(server, "PATCH", f"/games/{changes.id}/players/{last}", changes.body["edit_key"], {"name": RENAMED[lang]})

    response = httpx.post(
        f"{server.url}/api/v1/tables", json={"name": TABLE[lang], "people": [{"name": n} for n in names]}
    )
    response.raise_for_status()
    table = response.json()
    for order in (names, names[1:] + names[:1]):  # two games to the end, two winners
        response = httpx.post(
            f"{server.url}/api/v1/games",
            json={"players": [{"name": n} for n in order], "table_id": table["id"]},
            headers={"Authorization": f"Bearer {table['edit_key']}"},
        )
        response.raise_for_status()
        game = ApiGame(server, response.json())
        for _ in range(3):
            game.add_round(TO_THE_END)
    people = httpx.get(f"{server.url}/api/v1/tables/{table['id']}").json()["people"]
    seats = send(server, "GET", f"/games/{blitz.id}/seats", blitz.body["edit_key"])
    return {
        "blitz": blitz,
        "finished": finished,
        "thirty_one": thirty_one,
        "dutch": dutch,
        "changes": changes,
        "table": table,
        "person": next(p for p in people if p["name"] == names[0]),
        "seat_link": seats["link"],
    }


def shoot(page: Page, lang: str, kind: str) -> Path:
    """The picture, then the page closed: each live page holds a connection open (its events), and
    Chromium opens only six to one server."""
    expect(page.locator("html")).to_have_attribute("lang", lang)
    path = OUT / f"{kind}-{lang}.jpg"
    page.screenshot(path=path, **SHOT)
    page.close()
    return path


def keeper_page(context: BrowserContext, game: ApiGame) -> Page:
    """The game's scorekeeper's page (its edit link leaves the key in this browser's cookie)."""
    page = context.new_page()
    page.goto(game.edit_url)
    page.wait_for_url("**/score*")
    expect(page.locator("#game")).to_be_visible()
    return page


def unfocused(page: Page) -> Page:
    page.locator("#main").click(position={"x": 1, "y": 1})  # no focus ring in the picture
    return page


def pictures(
    context: BrowserContext, tv: BrowserContext, phone: BrowserContext, lang: str, made: dict[str, Any]
) -> Iterator[Path]:
    blitz: ApiGame = made["blitz"]
    keeper = keeper_page(context, blitz)
    for pid, (dutch, left) in zip(blitz.player_ids, NEXT_ROUND, strict=True):
        if dutch is not None:
            keeper.locator(f"#dutch-{pid}").fill(str(dutch))
        if left is not None:
            keeper.locator(f"#blitz-{pid}").fill(str(left))
    yield shoot(unfocused(keeper), lang, "keeper")

    viewer = context.new_page()
    viewer.goto(blitz.view_path)
    expect(viewer.locator(".round-count")).to_contain_text("3")
    yield shoot(viewer, lang, "view")

    screen = tv.new_page()
    screen.goto(blitz.view_path + "?tv=1")
    expect(screen.locator(".round-count")).to_contain_text("3")
    expect(screen.locator("html")).to_have_attribute("lang", lang)
    path = OUT / f"tv-{lang}.jpg"
    screen.screenshot(path=path, **(SHOT | {"full_page": False}))
    screen.close()
    yield path

    finished = context.new_page()
    finished.goto(made["finished"].view_path)
    expect(finished.locator("#banner")).to_be_visible()
    yield shoot(finished, lang, "finished")

    for kind, key in (("thirty-one", "thirty_one"), ("dutch", "dutch"), ("changes", "changes")):
        page = keeper_page(context, made[key])
        if kind == "changes":
            expect(page.locator("#changes")).to_be_visible()
        yield shoot(unfocused(page), lang, kind)

    table = context.new_page()
    table.goto(made["table"]["urls"]["edit"])
    table.wait_for_url(f"**/t/{made['table']['id']}*")
    expect(table.locator("#table h1")).to_be_visible()
    yield shoot(table, lang, "table")

    person = context.new_page()
    person.goto(f"/t/{made['table']['id']}/p/{made['person']['id']}")
    yield shoot(person, lang, "person")

    seat = phone.new_page()
    seat.goto(made["seat_link"])
    seat.get_by_role("button", name=NAMES[lang][1], exact=True).click()
    expect(seat.locator("#seat h1")).to_contain_text(NAMES[lang][1])
    yield shoot(seat, lang, "seat")

    offline = context.new_page()
    offline.goto("/offline")
    yield shoot(offline, lang, "offline")

    missing = context.new_page()
    response = missing.goto("/g/nosuchgame0")
    assert response is not None and response.status == 404, response and response.status
    yield shoot(missing, lang, "not-found")

    start = context.new_page()  # after the rest: it lists this browser's games and tables
    start.goto("/")
    yield shoot(start, lang, "start")


def readme() -> str:
    lines = [
        "# Every page in every language",
        "",
        "A screenshot of each kind of page people read, in English, Russian and German (each in the language the "
        "browser asks for, as a phone does), with Cyrillic and umlaut names so long names show: for reading "
        "the translations once more with a native speaker's eyes. On a 390 px phone, the TV view at 1280×800. "
        "Retake them all with `.venv/bin/python scripts/language_screenshots.py`. The API docs (/docs) are not "
        "here: Swagger UI's text is its own, in English.",
        "",
        "| kind | en | ru | de |",
        "|---|---|---|---|",
    ]
    for kind, what in KINDS.items():
        cells = " | ".join(f"[{lang}]({kind}-{lang}.jpg)" for lang in LANGUAGES)
        lines.append(f"| {what} | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as directory:
        server = start_server(Path(directory))
        try:
            with sync_playwright() as playwright:
                browser = launch_chromium(playwright)
                for lang, locale in LANGUAGES.items():
                    made = set_up(server, lang)
                    options = {"base_url": server.url, "color_scheme": "light", "locale": locale}
                    phone_options = options | PHONE | {"device_scale_factor": 1}
                    context = browser.new_context(**phone_options)
                    tv = browser.new_context(**(options | TV | {"device_scale_factor": 1}))
                    seat = browser.new_context(**phone_options)
                    written += pictures(context, tv, seat, lang, made)
                    for each in (context, tv, seat):
                        each.close()
                browser.close()
        finally:
            server.stop()
    (OUT / "README.md").write_text(readme())
    expected = {OUT / f"{kind}-{lang}.jpg" for kind in KINDS for lang in LANGUAGES}
    assert set(written) == expected, sorted(expected ^ set(written))
    total = 0
    for path in sorted(written):
        size = path.stat().st_size
        total += size
        print(f"{path.relative_to(ROOT)}  {size // 1024} KB")
    print(f"{len(written)} pictures, {total // 1024} KB in all")


if __name__ == "__main__":
    main()
