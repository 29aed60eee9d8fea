"""Numbers, dates and quotes the language's way on the pages (Babel's, not by hand): one minus sign
(U+2212) for every negative number, days as the language writes them (the ISO form stays in <time
datetime>), a number kept on the line of its unit, the plural form of a negative total."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.validation import message as validation_message
from tests.helpers import SMALL_ROUND, claim, game_url, html
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


def deleted_round_line(client: TestClient, make_game, rules: dict, lang: str) -> str:
    """The change line of a deleted first round of Ana and Ben in a game of `rules`, in `lang`."""
    game = make_game(players=[{"name": "Ana"}, {"name": "Ben"}], rules=rules)
    players = [p["id"] for p in game.get()["players"]]
    if rules["preset"] in ("dutch", "thirty_one"):
        body = {"scores": [{"player_id": players[0], "hand": 3}, {"player_id": players[1], "hand": 12}]}
        body["caller" if rules["preset"] == "dutch" else "knocker"] = players[0]
    else:
        body = game.scores([(3, 0), (2, 4)])
    assert client.post(game_url(game.id, "/rounds"), json=body, headers=game.auth).status_code == 201
    assert client.delete(game_url(game.id, "/rounds/1"), headers=game.auth).status_code == 200
    page = html(in_language(client, lang).get(f"/g/{game.id}"))
    return text(page.select_one("#changes li.change .change-text"))


@pytest.mark.parametrize(
    ("rules", "lang", "legend"),
    [
        ({"preset": "nerts", "target": 1000}, "en", "Ana 3/0, Ben 2/4 (centre/pile cards)"),
        ({"preset": "ligretto", "target": 1000}, "ru", "Ana 3/0, Ben 2/4 (карты: в центре / в стопке)"),
        ({"preset": "dutch", "target": 1000}, "en", "Ana 3, Ben 12 (hands)"),
        ({"preset": "dutch", "target": 1000}, "de", "Ana 3, Ben 12 (Handwerte)"),
        ({"preset": "thirty_one", "lives": 3}, "ru", "(очки на руке)"),
        ({"preset": "dutch_blitz", "target": 1000}, "en", "Ana 3/0, Ben 2/4 (Dutch/Blitz cards)"),
    ],
)
def test_a_deleted_round_says_what_its_numbers_are_in_the_games_words(
    client: TestClient, make_game, rules: dict, lang: str, legend: str
):
    assert deleted_round_line(client, make_game, rules, lang).endswith(legend)


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "There is no game “nope”."), ("ru", "Игры «nope» нет."), ("de", "Es gibt kein Spiel „nope“.")],
)
def test_an_id_is_quoted_with_the_languages_quotation_marks(client: TestClient, lang: str, said: str):
    answer = client.get(game_url("nope"), headers={"Accept-Language": lang})
    assert answer.status_code == 404 and answer.json()["detail"] == said
    page = html(in_language(client, lang).get("/g/nope", headers={"HX-Request": "true"}))
    assert text(page.select_one("p.problem")) == said


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "String should match pattern “^a$”"),
        ("ru", "Строка должна соответствовать шаблону «^a$»"),
        ("de", "Text muss dem Muster „^a$“ entsprechen"),
    ],
)
def test_a_pattern_is_quoted_with_the_languages_quotation_marks(lang: str, said: str):
    token = i18n.use(lang)
    try:
        assert validation_message({"type": "string_pattern_mismatch", "ctx": {"pattern": "^a$"}}) == said
    finally:
        i18n.reset(token)


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [
        ("en", "Their final total in their last game: a star marks a win.", "in each of their last 2 games"),
        ("ru", "Итог в последней игре; звёздочка — победа.", "Итоги в последних 2 играх"),
        ("de", "Der Endstand im letzten Spiel; ein Stern markiert einen Sieg.", "in den letzten 2 Spielen"),
    ],
)
def test_the_results_charts_description_says_one_game_as_one(client: TestClient, lang: str, one: str, many: str):
    table = table_in_every_state(client)
    ana = person_at(client, table, "Ana")
    page = html(in_language(client, lang).get(f"/t/{table}/p/{ana}"))
    assert text(page.select_one("#results-nerts-desc")) == one  # one game of Nerts
    assert many in text(page.select_one("#results-dutch_blitz-desc"))  # two of Dutch Blitz


def test_the_results_charts_description_has_the_russian_form_of_21():
    token = i18n.use("ru")
    try:
        said = i18n.ngettext(
            "Their final total in each of their last %(count)s games, oldest first; a star marks a win.",
            "Their final total in each of their last %(count)s games, oldest first; a star marks a win.",
            21,
        )
        assert said % {"count": 21} == "Итоги в последней 21 игре, от старых к новым; звёздочка — победа."
    finally:
        i18n.reset(token)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_negative_default_as_a_placeholder_has_a_real_minus(client: TestClient, lang: str):
    field = html(in_language(client, lang).get("/")).select_one("input#blitz_points")
    assert field["placeholder"] == f"{MINUS}2"  # Dutch Blitz: −2 a Blitz card; the field takes "−2" as typed


def test_a_plural_built_in_python_keeps_its_number_on_the_line_of_its_word():
    token = i18n.use("ru")
    try:
        said = i18n.fill(i18n.ngettext("{n} byte", "{n} bytes", 5), n=5)
    finally:
        i18n.reset(token)
    assert said == f"5{NBSP}байт"
    assert i18n.fill("{name} has played {count} games", name="12 Ana", count=3) == f"12 Ana has played 3{NBSP}games"


def test_every_plural_in_the_code_is_filled_by_fill():
    """A plural message's numbers are bound to their words by `i18n.fill`, as the templates' plurals are
    by `bind_numbers`: an `ngettext(...)` in app/ is always `fill`'s first argument."""
    import ast
    from pathlib import Path

    from app.config import ROOT

    loose = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        if path.name == "i18n.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        filled = {
            id(node.args[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "fill" and node.args
        }
        loose += [
            f"{Path(path).relative_to(ROOT)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "ngettext"
            and id(node) not in filled
        ]
    assert loose == []


def test_a_refusal_in_the_api_keeps_the_number_with_its_word(client: TestClient):
    said = client.post(
        "/api/v1/games", json={"players": [{"name": "Ana"}, {"name": "B" * 500}]}, headers={"Accept-Language": "de"}
    )
    assert said.status_code == 422
    assert re.search(rf"\d{NBSP}Zeichen", said.text), said.text
