"""The page's "Download the scores (CSV)" link (app/routes/export.py, app/spreadsheet.py): a sheet that a
spreadsheet program in the page's language opens in columns. Russian and German Excel or LibreOffice
split a line at ";" and read "12,5" as a number, so the test reads the download as they would; the
API's CSV stays the data format it is documented as."""

from __future__ import annotations

import csv
import io
import re

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.spreadsheet import Sheet, for_language, sheet_text
from tests.helpers import html

NAMES = ["Александра", "Константин", "Григорий", "Анна"]
ROUND = [(22, 0), (14, 3), (11, 5), (9, 7)]  # (dutch, blitz) per player: the last one's points are -5
CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def read_as_spreadsheet(text: str, delimiter: str, decimal: str) -> list[list[object]]:
    """What a spreadsheet program makes of the file: a cell that reads as a number (with this decimal mark)
    is a number, any other is text."""
    assert text.startswith("\ufeff"), "no BOM: Excel would read the names as Latin-1"
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff")), delimiter=delimiter))
    assert rows and all(len(row) == len(rows[0]) for row in rows), rows

    def cell(value: str) -> object:
        try:
            return float(value.replace(decimal, ".")) if "." not in value or decimal == "." else value
        except ValueError:
            return value

    return [[cell(value) for value in row] for row in rows]


def numbers(rows: list[list[object]]) -> list[list[object]]:
    """The rows below the header, the first column (a round's number, or the start row's name) left out."""
    return [row[1:] for row in rows[1:]]


@pytest.fixture
def russian_game(client: TestClient, make_game):
    game = make_game(players=[{"name": name} for name in NAMES])
    assert game.add_round(ROUND).status_code == 201
    return game


@pytest.mark.parametrize(
    ("lang", "how", "round_head", "points", "total"),
    [
        ("ru", "cookie", "Раунд", "Очки", "Итог"),
        ("de", "accept-language", "Runde", "Punkte", "Summe"),
    ],
)
def test_the_page_download_opens_in_columns_in_a_russian_or_german_spreadsheet(
    client: TestClient, russian_game, lang: str, how: str, round_head: str, points: str, total: str
):
    headers = {"Accept-Language": lang} if how == "accept-language" else {}
    if how == "cookie":
        client.cookies.set(i18n.COOKIE, lang)
    page = html(client.get(f"/g/{russian_game.id}", headers=headers))
    link = page.select_one("#share a[download]")
    assert link is not None and link["href"] == f"/g/{russian_game.id}/export.csv"
    answer = client.get(str(link["href"]), headers=headers)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"
    assert answer.headers["content-language"] == lang
    assert answer.headers["content-disposition"] == f'attachment; filename="blitzboard-{russian_game.id}.csv"'

    rows = read_as_spreadsheet(answer.text, delimiter=";", decimal=",")
    header = rows[0]
    assert len(header) == 1 + 4 * len(NAMES)  # in columns, not one long column
    assert header[0] == round_head
    assert header[3:5] == [f"Александра: {points}", f"Александра: {total}"]
    assert all(
        str(cell).startswith(f"{name}: ")
        for name, i in zip(NAMES, range(1, 17, 4), strict=True)
        for cell in header[i : i + 4]
    )
    assert not any(word in cell for cell in header for word in ("dutch", "blitz", "points", "total", "round"))
    # The same figures as the API's data, each a number to the spreadsheet (the -5 too).
    data = read_as_spreadsheet(client.get(f"/api/v1/games/{russian_game.id}/export.csv").text, ",", ".")
    assert numbers(rows) == numbers(data)
    assert rows[2][1:5] == [22.0, 0.0, 22.0, 22.0] and rows[2][16] == -5.0
    assert rows[1][0] != "start" and rows[2][0] == 1.0


def test_the_page_download_in_english_keeps_commas_and_points(client: TestClient, russian_game):
    answer = client.get(f"/g/{russian_game.id}/export.csv", headers={"Accept-Language": "en"})
    assert answer.headers["content-language"] == "en"
    rows = read_as_spreadsheet(answer.text, delimiter=",", decimal=".")
    assert rows[0][:5] == [
        "Round",
        "Александра: Dutch cards",
        "Александра: Blitz cards left",
        "Александра: Points",
        "Александра: Total",
    ]
    assert rows[1][0] == "Start" and rows[2][1:5] == [22.0, 0.0, 22.0, 22.0]


def test_the_api_csv_stays_the_data_format_in_every_language(client: TestClient, russian_game):
    client.cookies.set(i18n.COOKIE, "ru")
    answer = client.get(f"/api/v1/games/{russian_game.id}/export.csv", headers={"Accept-Language": "de"})
    assert answer.headers["content-language"] == "en"
    lines = answer.text.removeprefix("\ufeff").split("\r\n")
    assert lines[0].startswith("round,Александра dutch,Александра blitz,Александра points,Александра total,")
    assert lines[2] == "1,22,0,22,22,14,3,8,8,11,5,1,1,9,7,-5,-5"


def test_a_dutch_and_a_31_sheet_name_who_called_and_who_knocked_in_the_pages_language(client: TestClient, make_game):
    client.cookies.set(i18n.COOKIE, "de")
    for preset, who, column in (
        ("dutch", "Wer gerufen hat", "Punkte"),
        ("thirty_one", "Wer geklopft hat", "Leben verloren"),
    ):
        game = make_game([{"name": name} for name in NAMES[:3]], {"preset": preset})
        rows = read_as_spreadsheet(client.get(f"/g/{game.id}/export.csv").text, delimiter=";", decimal=",")
        assert rows[0][:2] == ["Runde", who] and rows[1][0] == "Start"
        assert rows[0][2] == "Александра: Hand" and rows[0][3] == f"Александра: {column}"


def test_a_name_with_the_separator_or_a_formula_start_stays_one_safe_cell(client: TestClient, make_game):
    game = make_game(players=[{"name": "=Зоя;Ким"}, {"name": "Лев, «младший»"}])
    client.cookies.set(i18n.COOKIE, "ru")
    rows = read_as_spreadsheet(client.get(f"/g/{game.id}/export.csv").text, delimiter=";", decimal=",")
    assert len(rows[0]) == 9
    assert str(rows[0][1]).startswith("'=Зоя;Ким: ")  # a leading quote: not run as a formula
    assert str(rows[0][5]).startswith("Лев, «младший»: ")


def test_a_missing_game_has_no_sheet(client: TestClient):
    answer = client.get("/g/nosuchgame/export.csv", headers={"Accept-Language": "ru"})
    assert answer.status_code == 404 and CYRILLIC.search(answer.text)


def test_a_fraction_is_written_with_the_languages_decimal_mark():
    assert for_language("ru") == for_language("de") == Sheet(";", ",")
    assert for_language("en") == Sheet(",", ".")
    assert for_language("xx-pseudo") == Sheet(",", ".")  # a test's pseudo-language: English's
    text = sheet_text([["Раунд", "Итог"], [1, 30.5], [2, -0.25]], for_language("ru"))
    assert text == "\ufeffРаунд;Итог\r\n1;30,5\r\n2;-0,25\r\n"
    assert read_as_spreadsheet(text, delimiter=";", decimal=",")[1:] == [[1.0, 30.5], [2.0, -0.25]]
