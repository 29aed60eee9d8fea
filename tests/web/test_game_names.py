"""A game known by other names says them in the start page's picker, in the visitor's language, so that
someone who knows 31 as Scat, Schwimmen or «Тридцать одно» finds it there (and in the page's find)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app import i18n
from tests.helpers import html, text_of

SAID = {
    "en": ("31", "Also called Scat, Blitz or Cabbage"),
    "ru": ("31", "Другие названия: «Тридцать одно», «Скат», «Блиц»"),
    "de": ("31 (Schwimmen)", "Auch Schnauz, Scat oder Blitz genannt"),
}


@pytest.mark.parametrize("lang", sorted(SAID))
def test_31_says_its_other_names_in_the_picker(client: TestClient, lang: str):
    client.cookies.set(i18n.COOKIE, lang)
    page = html(client.get("/"))
    choice = page.select_one("#preset-thirty_one").find_parent("li")
    name, also = SAID[lang]
    assert text_of(choice.select_one(".game-name")) == name
    # Under its one line, and said with it: the radio is described by both.
    assert text_of(choice.select_one("#preset-thirty_one-also")) == also
    assert choice.select_one("#preset-thirty_one")["aria-describedby"].split() == [
        "preset-thirty_one-line",
        "preset-thirty_one-also",
    ]
    # Only 31 has other names here; the others keep their one line.
    assert len(page.select(".game-choice .also-called")) == 1
