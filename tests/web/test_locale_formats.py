"""Numbers, dates and quotes the language's way on the pages (Babel's, not by hand): one minus sign
(U+2212) for every negative number, days as the language writes them (the ISO form stays in <time
datetime>), a number kept on the line of its unit, the plural form of a negative total."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app import i18n
from tests.helpers import SMALL_ROUND, claim, html
from tests.web.test_i18n_templates import person_at, table_in_every_state

MINUS = "\u2212"
NBSP = "\u00a0"
# A day as each language writes it (Babel's medium format): "Dec 1, 2026", "1 дек. 2026 г.", "01.12.2026".
DAY = {
    "en": r"[A-Z][a-z]{2} \d{1,2}, \d{4}",
    "ru": r"\d{1,2} [а-я]{3,4}\. \d{4}\u202fг\.",  # CLDR's narrow no-break space before "г."
    "de": r"\d{2}\.\d{2}\.\d{4}",
}


def text(node) -> str:
    return " ".join(node.get_text().split())


def in_language(client: TestClient, lang: str) -> TestClient:
    client.cookies.set(i18n.COOKIE, lang)
    return client


@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_negative_totals_on_the_chart_have_a_real_minus(client: TestClient, make_game, lang: str):
    game = make_game(players=[{"name": "Ana", "starting_score": 10}, {"name": "Ben", "starting_score": -30}])
    claim(client, game.id, game.key)
    game.add_round([(5, 0), (0, 4)])  # Ben: -30 - 8 = -38
    page = html(in_language(client, lang).get(f"/g/{game.id}"))
    ticks = [t.get_text() for t in page.select("#chart .tick")]
    assert any(t.startswith(MINUS) for t in ticks) and not any("-" in t for t in ticks), ticks
    desc = page.select_one("#chart-desc").get_text()
    assert f"Ben {MINUS}38" in desc and "-38" not in desc


@pytest.mark.parametrize("lang", ["en", "ru", "de"])
def test_days_on_the_table_and_person_pages_are_written_the_languages_way(client: TestClient, lang: str):
    table = table_in_every_state(client)
    ana = person_at(client, table, "Ana")
    in_language(client, lang)
    pages = {
        "table": html(client.get(f"/t/{table}")),
        "person": html(client.get(f"/t/{table}/p/{ana}")),
    }
    shown = 0
    for name, page in pages.items():
        for time in page.select("main time[datetime]"):
            iso = time["datetime"]
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", iso):
                continue  # a moment (the changes' times), made local by app.js
            assert re.fullmatch(DAY[lang], time.get_text()), (name, iso, time.get_text())
            shown += 1
    assert shown >= 3  # the table's game list and awards, the person's games and results
    season = html(client.get(f"/t/{table}?from=2026-01-01")).select_one(".period-note").get_text()
    assert {"en": "Jan 1, 2026", "ru": "1 янв. 2026\u202fг.", "de": "01.01.2026"}[lang] in season
    assert "2026-01-01" not in season


def test_a_number_stays_on_the_line_of_its_unit(client: TestClient, make_game):
    game = make_game()
    claim(client, game.id, game.key)
    game.add_round(SMALL_ROUND)  # Ana: 58 + 3 = 61, 14 short of the target of 75

    def to_go(lang: str) -> list[str]:
        return [t.get_text() for t in html(in_language(client, lang).get(f"/g/{game.id}")).select(".to-target")]

    assert f"14{NBSP}to go" in to_go("en")
    assert f"ещё 14{NBSP}очков" in to_go("ru")


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", f"Ana wins with {MINUS}2!"), ("ru", f"Ana побеждает: {MINUS}2{NBSP}очка!"), ("de", f"{MINUS}2")],
)
def test_a_negative_winning_total_takes_the_plural_form_of_its_size(client: TestClient, make_game, lang, said):
    game = make_game(
        players=[{"name": "Ana", "starting_score": -2}, {"name": "Ben", "starting_score": -20}],
        rules={"end": "rounds", "rounds": 1},
    )
    claim(client, game.id, game.key)
    assert game.add_round([(0, 0), (0, 0)]).status_code == 201
    banner = html(in_language(client, lang).get(f"/g/{game.id}")).select_one("#banner h2").get_text()
    assert said in banner
