"""Take the README's screenshots: the scorekeeper's page and the view page on a phone (390×844), the
round entry as the phone's screen shows it, the history on a phone, and the TV view (1280×800).

Run with `.venv/bin/python scripts/screenshots.py`. It starts its own server on a temporary SQLite
file (as the browser tests do), plays a short game in Debian's Chromium (or $BLITZBOARD_CHROMIUM), and
writes docs/screenshot-{keeper,view,entry,history,tv}.png, and the same game's scorekeeper's page in
Russian and view page in German (each chosen by the browser's own language, as a phone sends it):
docs/screenshot-keeper-ru.png and docs/screenshot-view-de.png.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.browser.helpers import (  # noqa: E402
    PHONE,
    create_game_on_start_page,
    fill_round,
    launch_chromium,
    save_round,
    start_server,
)

DOCS = ROOT / "docs"
NAMES = ["Ana", "Ben", "Cy", "Dee"]
ROUNDS = [
    [(12, 0), (9, 2), (7, 4), (10, 1)],
    [(8, 3), (15, 0), (6, 5), (9, 2)],
    [(10, 2), (7, 4), (13, 0), (8, 3)],
]
TV = {"viewport": {"width": 1280, "height": 800}, "device_scale_factor": 1, "is_mobile": False, "has_touch": False}
NEXT_ROUND = [(14, 0), (11, 2), (None, 3), (None, None)]  # being typed when the picture is taken


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as directory:
        server = start_server(Path(directory))
        try:
            with sync_playwright() as playwright:
                browser = launch_chromium(playwright)
                options = {"base_url": server.url, "color_scheme": "light"} | PHONE
                keeper = browser.new_context(**options).new_page()
                create_game_on_start_page(keeper, NAMES)
                for number, counts in enumerate(ROUNDS, start=1):
                    fill_round(keeper, NAMES, counts)
                    save_round(keeper, number)
                for name, (dutch, blitz) in zip(NAMES, NEXT_ROUND, strict=True):
                    if dutch is not None:
                        keeper.get_by_label(f"Dutch cards — {name}", exact=True).fill(str(dutch))
                    if blitz is not None:
                        keeper.get_by_label(f"Blitz cards left — {name}", exact=True).fill(str(blitz))
                keeper.get_by_role("button", name="Blitz! — Ana").click()
                keeper.locator("#main").click(position={"x": 1, "y": 1})  # no focus ring in the picture
                keeper.screenshot(path=DOCS / "screenshot-keeper.png", full_page=True, caret="initial")
                keeper.screenshot(
                    path=DOCS / "screenshot-entry.png", caret="initial"
                )  # one screen, as the phone shows it
                keeper.locator("#history").screenshot(path=DOCS / "screenshot-history.png", caret="initial")

                viewer = browser.new_context(**options).new_page()
                viewer.goto(keeper.url.removesuffix("/score"))
                expect(viewer.locator(".round-count")).to_have_text(f"· after round {len(ROUNDS)}")
                viewer.screenshot(path=DOCS / "screenshot-view.png", full_page=True, caret="initial")

                tv = browser.new_context(**(options | TV)).new_page()
                tv.goto(keeper.url.removesuffix("/score") + "?tv=1")
                expect(tv.locator(".round-count")).to_have_text(f"· after round {len(ROUNDS)}")
                tv.screenshot(path=DOCS / "screenshot-tv.png", caret="initial")

                # The same game in other languages: the keeper's cookie, a Russian phone; a German viewer.
                russian = browser.new_context(
                    **options, storage_state=keeper.context.storage_state(), locale="ru-RU"
                ).new_page()
                russian.goto(keeper.url)
                expect(russian.locator("html")).to_have_attribute("lang", "ru")
                russian.locator("#main").click(position={"x": 1, "y": 1})
                russian.screenshot(path=DOCS / "screenshot-keeper-ru.png", full_page=True, caret="initial")
                german = browser.new_context(**options, locale="de-DE").new_page()
                german.goto(keeper.url.removesuffix("/score"))
                expect(german.locator("html")).to_have_attribute("lang", "de")
                german.screenshot(path=DOCS / "screenshot-view-de.png", full_page=True, caret="initial")
                browser.close()
        finally:
            server.stop()
    for name in ("keeper", "view", "entry", "history", "tv", "keeper-ru", "view-de"):
        name = f"screenshot-{name}.png"
        print(DOCS / name)


if __name__ == "__main__":
    main()
