"""The trademark line: Dutch Blitz is the Dutch Blitz Card Company's trademark, and Blitzboard says it
is independent of it, at the foot of every page (not on the TV, which fills one screen), in the README
and in the rules doc, in each language."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.config import ROOT
from tests.helpers import html, text_of

LINE = {
    "en": "Dutch Blitz® is a trademark of the Dutch Blitz Card Company; Blitzboard is made independently of it.",
    "ru": "Dutch Blitz® — товарный знак компании Dutch Blitz Card Company; Blitzboard создан независимо от неё.",
    "de": "Dutch Blitz® ist eine Marke der Dutch Blitz Card Company; Blitzboard ist unabhängig davon entstanden.",
}


@pytest.mark.parametrize("lang", sorted(LINE))
def test_every_kind_of_page_ends_with_the_trademark_line(client: TestClient, make_game, lang: str):
    game = make_game()
    client.cookies.set(i18n.COOKIE, lang)
    for path in ("/", f"/g/{game.id}", "/offline", "/g/zzzzzzzzzzzzzzzz"):
        page = html(client.get(path))
        assert [text_of(p) for p in page.select("body > footer.site-footer p")] == [LINE[lang]], path


def test_the_tv_has_no_footer(client: TestClient, make_game):
    game = make_game()
    page = html(client.get(f"/g/{game.id}?tv=1"))
    assert page.select_one("body.tv") is not None
    assert page.select("footer") == []


@pytest.mark.parametrize("doc", ["README.md", "docs/rules.md"])
def test_the_readme_and_the_rules_say_whose_trademark_it_is(doc: str):
    said = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
    assert "Dutch Blitz® is a trademark of the Dutch Blitz Card Company" in said
    assert "not made, endorsed or sponsored by that company" in said
