"""A save on the scorekeeper's phone brings back only what changed: the rounds the page
already shows stay as they are (htmx's hx-preserve keeps them), the new one is added, and the page
ends up exactly as a reload shows it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Response, expect

from tests.browser.helpers import Phones, Server, api_game, fill_round, save_round

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy"]


def history(page: Page) -> list[str]:
    return page.locator("#history .round-card[data-round]").evaluate_all(
        "cards => cards.map(c => c.dataset.round + ':' + c.innerText.replace(/\\s+/g, ' ').trim())"
    )


def test_a_save_brings_back_only_the_new_round_and_the_page_is_as_a_reload_shows_it(phones: Phones, server: Server):
    game = api_game(server, NAMES, rules={"target": 10_000})
    for n in range(25):
        game.add_round([(n % 7, 0), (3, 2), (1, 5)])
    keeper = phones.page()
    keeper.goto(game.edit_url)
    before = history(keeper)
    assert len(before) == 20 and before[0].startswith("25:")
    answers: list[Response] = []
    keeper.on("response", lambda r: answers.append(r) if r.request.method == "POST" else None)
    fill_round(keeper, NAMES, [(6, 0), (2, 3), (0, 9)])
    save_round(keeper, 26)
    (answer,) = answers
    assert answer.request.header_value("blitzboard-shown") == f"{game.read()['version'] - 1} 6-25"
    body = answer.text()
    assert body.count("hx-preserve") == 19 and body.count('class="score p') == 3  # the new card's cells only
    after = history(keeper)
    assert after[0].startswith("26:") and "+6" in after[0]
    assert after[1:] == before[:-1]  # the kept cards as they were, round 6 gone off the page
    keeper.reload()
    assert history(keeper) == after
    expect(keeper.locator("#history .round-card[hx-preserve]")).to_have_count(0)
    # The next save too (the page now shows 7-26 at the new version).
    fill_round(keeper, NAMES, [(1, 0), (1, 1), (1, 1)])
    save_round(keeper, 27)
    assert history(keeper)[1:] == after[:-1]
