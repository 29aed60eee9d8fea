"""Every language fits: the scorekeeper's page, the view page and the TV view, rendered in English,
Russian and German (chosen by the browser's own language, as a phone sends it), with no element
whose text overflows its box on a 390 px phone (or on the TV's screen), and the switch changing the
language of the page it is on."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import OVERFLOWING, Phones, Server, api_game

pytestmark = pytest.mark.browser

PHONE_390 = {"viewport": {"width": 390, "height": 844}}
TV = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False, "device_scale_factor": 1}
BROWSER_LOCALES = {"en": "en-US", "ru": "ru-RU", "de": "de-DE"}
NAMES = ["Alexandrina", "Bartholomew", "Cassiopeia", "Demetrius"]


def played(server: Server):
    game = api_game(server, NAMES, [0, 12, -8, 30], name="Familienabend am Küchentisch", rules={"target": 100})
    for counts in ([(18, 0), (11, 4), (9, 6), (4, 8)], [(7, 3), (20, 0), (2, 9), (12, 2)]):
        game.add_round(counts)
    return game


def open_as(phones: Phones, lang: str, url: str, **options) -> Page:
    page = phones.page(locale=BROWSER_LOCALES[lang], **options)
    page.goto(url)
    return page


@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_no_label_overflows_in_any_language(phones: Phones, server: Server, lang: str):
    game = played(server)
    keeper = open_as(phones, lang, game.edit_url, **PHONE_390)
    expect(keeper.locator("html")).to_have_attribute("lang", lang)
    expect(keeper.locator("#round-entry fieldset.player-entry")).to_have_count(4)
    seen = {"keeper": keeper.evaluate(OVERFLOWING, keeper.viewport_size["width"])}
    keeper.goto(f"/g/{game.id}/score?edit=1")  # the correction form has every label and the − + buttons
    seen["keeper, correcting"] = keeper.evaluate(OVERFLOWING, keeper.viewport_size["width"])
    keeper.goto(f"/g/{game.id}/score?delete=2")
    seen["keeper, deleting"] = keeper.evaluate(OVERFLOWING, keeper.viewport_size["width"])
    view = open_as(phones, lang, game.view_path, **PHONE_390)
    expect(view.locator("html")).to_have_attribute("lang", lang)
    seen["view"] = view.evaluate(OVERFLOWING, view.viewport_size["width"])
    view.goto(game.view_path + "?tv=1")
    seen["tv on a phone"] = view.evaluate(OVERFLOWING, view.viewport_size["width"])
    tv = open_as(phones, lang, game.view_path + "?tv=1", **TV)
    seen["tv"] = tv.evaluate(OVERFLOWING, tv.viewport_size["width"])
    start = open_as(phones, lang, "/", **PHONE_390)
    seen["start"] = start.evaluate(OVERFLOWING, start.viewport_size["width"])
    overflowing = {where: found for where, found in seen.items() if found}
    assert not overflowing, json.dumps(overflowing, indent=1, ensure_ascii=False)
    if lang != "en":  # the page really is in another language: its title is not the English one
        english = open_as(phones, "en", game.view_path, **PHONE_390)
        assert view.title() != english.title()


def test_the_switch_changes_the_language_and_remembers_it(phones: Phones, server: Server):
    game = played(server)
    page = open_as(phones, "en", game.view_path, **PHONE_390)
    english = page.locator("h2").first.inner_text()
    page.locator("form.lang-switch button[value=de]").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    assert page.url.endswith(game.view_path)  # back on the same page
    assert page.locator("h2").first.inner_text() != english
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "de")  # remembered on every page


def test_the_overflow_check_sees_a_label_too_long_for_its_box(phones: Phones):
    page = phones.page(**PHONE_390)
    page.set_content(
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<p style="width:60px;white-space:nowrap">Blitz-Karten übrig — Alexandrina</p>'
        '<p style="width:800px">wider than the phone</p><p style="width:60px">fits</p>'
    )
    found = page.evaluate(OVERFLOWING, page.viewport_size["width"])
    assert len(found) == 2 and "übrig" in found[0] and "outside the screen" in found[1]
