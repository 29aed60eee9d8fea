"""31's three of a kind at 30½ on the pages: the round form (the keeper's and a player's own seat) takes
"30.5", "30,5" and "30½" when the game's house rules say `thirty_and_a_half`, refuses a half otherwise
beside the field (what was typed kept), and every page writes the hand as the language does: "30.5" in
English, "30,5" in Russian and German (history, change log, the correction's form, the page's CSV)."""

from __future__ import annotations

import pytest

from tests.helpers import form_data, html, text_of
from tests.web.test_game_pages_kinds import NAMES, Keeper, cells, field_error, new_game, play
from tests.web.test_seat_pages import phone_at, send
from tests.web.test_start_kinds import keeper_form

HALF_31 = {"preset": "thirty_one", "thirty_and_a_half": True}
WHOLE_31 = {"preset": "thirty_one"}


@pytest.mark.parametrize(
    ("language", "typed", "shown"),
    [
        ("en", "30.5", "30.5"),
        ("ru", "30,5", "30,5"),
        ("de", "30,5", "30,5"),
        ("de", "30½", "30,5"),
        ("ru", "30.5", "30,5"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_the_form_takes_a_half_and_the_history_writes_it_the_languages_way(make_game, language, typed, shown, htmx):
    game = new_game(make_game, HALF_31)
    keeper = Keeper(game)
    headers = {"Accept-Language": language} | ({"HX-Request": "true"} if htmx else {})
    response = keeper.post({0: typed, 1: "30", 2: "25"}, **headers)
    assert response.status_code == (200 if htmx else 303), response.text
    ana, ben, cy = game.player_ids
    [saved] = keeper.rounds()
    assert [(s["player_id"], s["hand"], s["lives_lost"]) for s in saved["scores"]] == [
        (ana, 30.5, 0),
        (ben, 30, 0),
        (cy, 25, 1),
    ]
    assert type(saved["scores"][1]["hand"]) is int
    page = html(keeper.client.get(f"/g/{game.id}", headers={"Accept-Language": language}))
    said = cells(page, 1)
    assert (said[NAMES[0]].split()[-1], said[NAMES[1]].split()[-1]) == (shown, "30")


def test_the_hand_field_offers_a_decimal_mark_only_with_the_rule(make_game):
    on, off = new_game(make_game, HALF_31), new_game(make_game, WHOLE_31)
    with_half = Keeper(on).page().select_one(f"#hand-{on.player_ids[0]}")
    without = Keeper(off).page().select_one(f"#hand-{off.player_ids[0]}")
    assert (with_half["inputmode"], with_half.get("pattern"), with_half.get("data-half")) == ("decimal", None, "1")
    assert (without["inputmode"], without["pattern"], without.get("data-half")) == ("numeric", "[0-9]*", None)


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_a_half_without_the_rule_is_refused_beside_the_field_as_typed(make_game, htmx):
    game = new_game(make_game, WHOLE_31)
    keeper = Keeper(game)
    ana, ben, _ = game.player_ids
    headers = {"Accept-Language": "de"} | ({"HX-Request": "true"} if htmx else {})
    response = keeper.post({0: "30,5", 1: "20", 2: "25"}, **headers)
    assert response.status_code == 422, response.text
    page = html(response)
    assert field_error(page, f"hand-{ana}") == "Ana: Die Punkte auf der Hand müssen eine ganze Zahl von 0 bis 31 sein."
    assert page.select_one(f"#hand-{ana}")["value"] == "30,5"
    assert page.select_one(f"#hand-{ben}").get("aria-invalid") is None
    assert keeper.rounds() == []


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("12,5", "Ana's hand must be a whole number from 0 to 31, or 30½ for three of a kind."),
        ("30.25", "Ana: a hand must be a whole number, or 30½ for three of a kind."),
        ("31½", "Ana's hand must be a whole number from 0 to 31, or 30½ for three of a kind."),
    ],
)
def test_with_the_rule_only_30_and_a_half_is_a_half(make_game, typed, message):
    game = new_game(make_game, HALF_31)
    keeper = Keeper(game)
    ana = game.player_ids[0]
    response = keeper.post({0: typed, 1: "20", 2: "25"})
    assert response.status_code == 422, response.text
    page = html(response)
    assert field_error(page, f"hand-{ana}") == message
    assert page.select_one(f"#hand-{ana}")["value"] == typed
    assert keeper.rounds() == []


def test_the_correction_form_and_the_change_log_write_the_half_in_german(make_game):
    game = new_game(make_game, HALF_31)
    play(game, (30.5, 20, 25))
    keeper = Keeper(game)
    ana, ben, _ = game.player_ids
    de = {"Accept-Language": "de"}
    page = html(keeper.client.get(f"/g/{game.id}/score?edit=1", headers=de))
    assert page.select_one(f"#hand-{ana}")["value"] == "30,5"
    # Saved again as the form shows it (a German keeper's "30,5"), then Ben's hand corrected to 30½ too.
    form = page.select_one("#round-entry form")
    data = form_data(form) | {f"hand-{ben}": "30,5"}
    response = keeper.client.post(str(form["action"]), data=data, headers=de, follow_redirects=False)
    assert response.status_code == 303, response.text
    assert [s["hand"] for s in keeper.rounds()[0]["scores"]] == [30.5, 30.5, 25]
    log = html(keeper.client.get(f"/g/{game.id}/score", headers=de)).select_one("#changes")
    assert log is not None and "20 → 30,5" in text_of(log), text_of(log)


def test_the_pages_csv_writes_the_half_in_the_languages_way_and_the_apis_with_a_point(make_game):
    game = new_game(make_game, HALF_31)
    play(game, (30.5, 20, 25))
    sheet = game.client.get(f"/g/{game.id}/export.csv", headers={"Accept-Language": "de"}).text
    data = game.client.get(f"/api/v1/games/{game.id}/export.csv").text
    assert sheet.splitlines()[2].split(";")[2] == "30,5"
    assert data.splitlines()[2].split(",")[2] == "30.5"
    assert data.splitlines()[2].split(",")[5] == "20"


def test_a_player_sends_30_and_a_half_from_their_own_seat_in_german(app, make_game):
    game = new_game(make_game, HALF_31)
    phone = phone_at(app, game, "Ana")
    de = {"Accept-Language": "de"}
    field = html(phone.get(f"/g/{game.id}/mine", headers=de)).select_one("#seat-hand")
    assert (field["inputmode"], field.get("pattern")) == ("decimal", None)
    answer = send(phone, game, headers=de, hand="30,5")
    assert answer.status_code == 200, answer.text
    assert html(answer).select_one("#seat-hand")["value"] == "30,5"
    [row] = game.client.get(f"/api/v1/games/{game.id}/draft").json()["rows"]
    assert row["hand"] == 30.5
    refused = send(phone, game, headers=de, hand="12,5")
    assert refused.status_code == 422, refused.text
    page = html(refused)
    assert text_of(page.select_one("#seat-hand-error")) == (
        "Ana: Die Punkte auf der Hand müssen eine ganze Zahl von 0 bis 31 sein oder 30½ für drei gleiche Karten."
    )
    assert page.select_one("#seat-hand")["value"] == "12,5"
    # The keeper's form is filled in from the row, as the keeper's language writes it.
    keeper = Keeper(game)
    form = html(keeper.client.get(f"/g/{game.id}/score", headers=de)).select_one(f"#hand-{game.player_ids[0]}")
    assert form["value"] == "30,5"


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "The 30½ rule changed"), ("ru", "Правило «тройка — 30½» изменено"), ("de", "30½-Regel geändert")],
)
def test_the_keeper_turns_the_rule_on_mid_game_and_the_log_says_so(client, make_game, language, said):
    game = new_game(make_game, WHOLE_31)
    form = keeper_form(client, game)
    box = form.select_one("#thirty_and_a_half")
    assert not box.has_attr("checked")
    assert text_of(box.find_parent("label")) == "Three of a kind counts 30½ (beats every hand but a 31)"
    data = form_data(form) | {"thirty_and_a_half": "1"}
    response = client.post(str(form["action"]), data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    assert game.get()["rules"]["thirty_and_a_half"] is True
    log = html(client.get(f"/g/{game.id}/score", headers={"Accept-Language": language})).select_one("#changes")
    assert log is not None and said in text_of(log), text_of(log)
    play(game, (30.5, 20, 25))  # and a 30½ is taken from now on
