"""A player's own phone, in pages (app/routes/seat_pages.py): the seat link asks "Which player are you?",
a tap takes the seat (the seat key into an HttpOnly cookie), and the seat's page sends the player's row as
a plain form, a refusal beside its field with what was typed; a saved round moves it on to the next round."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers import GameHandle, PlayedTable, game_url, html, text_of

NAMES = [{"name": n} for n in ("Ana", "Ben", "Cy")]


def link_of(game: GameHandle) -> str:
    return game.client.get(game_url(game.id, "/seats"), headers=game.auth).json()["link"].split("testserver", 1)[1]


def phone_at(app, game: GameHandle, name: str) -> TestClient:
    """A phone that opened the seat link and tapped `name`."""
    phone = TestClient(app)
    page = html(phone.get(link_of(game)))
    form = next(f for f in page.select("#seat-link form") if text_of(f.select_one("button")) == name)
    answer = phone.post(form["action"], data={"player_id": form.select_one("input[name=player_id]")["value"]})
    assert answer.status_code == 200 and answer.url.path == f"/g/{game.id}/mine", answer.text
    return phone


def send(phone: TestClient, game: GameHandle, headers: dict[str, str] | None = None, **fields: str):
    page = html(phone.get(f"/g/{game.id}/mine"))
    form = page.select_one("form.seat-form")
    data = {i["name"]: i.get("value", "") for i in form.select("input[type=hidden]")} | fields
    return phone.post(form["action"], data=data, headers=headers)


def test_a_player_takes_their_seat_and_sends_their_row(app, make_game):
    game = make_game(players=NAMES)
    phone = phone_at(app, game, "Ben")
    cookie = next(c for c in phone.cookies.jar if c.name == f"bb_seat_{game.id}")
    assert cookie.has_nonstandard_attr("HttpOnly")
    page = html(phone.get(f"/g/{game.id}/mine"))
    assert page.select_one("#seat h1 bdi").text == "Ben" and text_of(page.select_one("#seat h1")).endswith("row")
    assert page.select_one(".seat-table") is None  # a game of its own: no table to show
    assert [i["name"] for i in page.select("form.seat-form input.num")] == ["dutch"]
    assert [i["value"] for i in page.select("form.seat-form input[name=blitz]")] == [str(n) for n in range(11)]
    answer = send(phone, game, dutch="9", blitz="4")
    assert answer.status_code == 200, answer.text
    page = html(answer)
    assert page.select_one(".seat-sent") is not None
    assert "Ana and Cy" in text_of(page.select_one(".seat-waiting"))
    assert page.select_one("#seat-dutch")["value"] == "9"
    assert page.select_one("input[name=blitz][checked]")["value"] == "4"
    rows = game.client.get(game_url(game.id, "/draft")).json()["rows"]
    assert [(r["player_id"], r["dutch"], r["blitz"], r["by_seat"]) for r in rows] == [(game.player_ids[1], 9, 4, True)]
    # Taken: the link's page marks Ben, and another phone can't take him.
    other = TestClient(app)
    listed = html(other.get(link_of(game)))
    assert "taken by another phone" in text_of(listed.select("#seat-link li")[1])
    refused = other.post(listed.select("#seat-link form")[1]["action"], data={"player_id": str(game.player_ids[1])})
    assert refused.status_code == 409 and "taken" in text_of(html(refused).select_one("#seat-link-error"))


def test_a_refused_row_comes_back_beside_its_field_as_typed(app, make_game):
    game = make_game(players=NAMES)
    phone = phone_at(app, game, "Ana")
    for fields, field, words in (
        ({"dutch": "41", "blitz": "0"}, "dutch", "between 0 and 40"),
        ({"dutch": "3x", "blitz": "0"}, "dutch", "whole number"),
        ({"dutch": "3", "blitz": ""}, "blitz", "both card counts are required"),
    ):
        answer = send(phone, game, **fields)
        assert answer.status_code == 422, answer.text
        page = html(answer)
        assert words in text_of(page.select_one(f"#seat-{field}-error")), fields
        assert page.select_one(f"#seat-{field}")["aria-invalid"] == "true"
        assert page.select_one("#seat-dutch")["value"] == fields["dutch"]
    assert game.client.get(game_url(game.id, "/draft")).json()["rows"] == []


def test_with_htmx_a_refused_row_comes_back_in_place_of_the_seat(app, make_game):
    game = make_game(players=NAMES)
    phone = phone_at(app, game, "Ana")
    answer = send(phone, game, headers={"HX-Request": "true"}, dutch="41", blitz="0")
    assert answer.status_code == 422, answer.text
    assert (answer.headers["HX-Retarget"], answer.headers["HX-Reswap"]) == ("#seat", "outerHTML")
    fragment = html(answer)
    assert fragment.select_one("main") is None and fragment.select_one("#seat #seat-dutch-error") is not None


def test_the_live_refresh_leaves_the_row_being_typed_while_the_game_is_no_newer(app, make_game):
    # Each connect's catch-up event asks again: a 204 while the version is the one shown, so what the player
    # typed meanwhile stays; a round saved since is a new fragment (the next round's empty row).
    game = make_game(players=NAMES)
    phone = phone_at(app, game, "Ana")
    shown = html(phone.get(f"/g/{game.id}/mine")).select_one("#seat #since")["value"]
    live = {"HX-Request": "true"}
    assert phone.get(f"/g/{game.id}/mine", params={"since": shown}, headers=live).status_code == 204
    game.add_round([(12, 0), (9, 4), (7, 6)])
    newer = phone.get(f"/g/{game.id}/mine", params={"since": shown}, headers=live)
    assert newer.status_code == 200 and "Round 2" in text_of(html(newer).select_one("#seat h2"))


def test_a_row_for_a_round_saved_meanwhile_is_refused_and_shows_the_next_round(app, make_game):
    game = make_game(players=NAMES)
    phone = phone_at(app, game, "Cy")
    page = html(phone.get(f"/g/{game.id}/mine"))
    form = page.select_one("form.seat-form")
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    data = {i["name"]: i.get("value", "") for i in form.select("input[type=hidden]")} | {"dutch": "5", "blitz": "1"}
    answer = phone.post(form["action"], data=data)
    assert answer.status_code == 409
    page = html(answer)
    assert "saved already" in text_of(page.select_one("#seat-error"))
    assert text_of(page.select_one("#seat h2")) == "Round 2"


def test_a_forged_or_seatless_post_is_refused(app, make_game, client: TestClient):
    game = make_game(players=NAMES)
    assert client.get(f"/g/{game.id}/mine").status_code == 403
    phone = phone_at(app, game, "Ana")
    answer = phone.post(f"/g/{game.id}/mine", data={"csrf": "forged", "round": "1", "dutch": "3", "blitz": "0"})
    assert answer.status_code == 403
    assert client.get(f"/g/{game.id}/seat/{'0' * 32}").status_code == 403


def test_in_dutch_the_row_is_a_hand_and_whether_they_called(app, make_game):
    game = make_game(players=NAMES, rules={"preset": "dutch"})
    phone = phone_at(app, game, "Ana")
    page = html(phone.get(f"/g/{game.id}/mine"))
    assert [i["name"] for i in page.select("form.seat-form input.num")] == ["hand"]
    assert send(phone, game, hand="4", called="1").status_code == 200
    [row] = game.client.get(game_url(game.id, "/draft")).json()["rows"]
    assert (row["hand"], row["called"]) == (4, True)


def test_a_russian_phone_reads_russian(app, make_game):
    game = make_game(players=NAMES)
    phone = phone_at(app, game, "Ana")
    page = html(phone.get(f"/g/{game.id}/mine", headers={"Accept-Language": "ru"}))
    assert text_of(page.select_one("form.seat-form button")) == "Отправить"


def test_the_keeper_shows_the_seat_link_frees_a_seat_and_gets_the_rows_in_the_form(app, keeper_of, make_game):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    page = html(keeper.get(f"/g/{game.id}/score"))
    assert page.select_one("#seats #show-seats") is not None and page.select_one("#seat-link") is None
    page = html(keeper.get(f"/g/{game.id}/score?seats=1"))
    link = page.select_one("#seat-link")["value"]
    assert link.endswith(link_of(game)) and page.select_one("#seats .qr svg") is not None
    phone = phone_at(app, game, "Ben")
    assert send(phone, game, dutch="9", blitz="4").status_code == 200
    page = html(keeper.get(f"/g/{game.id}/score?seats=1"))
    ben = page.select_one(f"fieldset.player-entry[data-player-id='{game.player_ids[1]}']")
    assert "from-phone" in ben["class"] and "from their phone" in text_of(ben.select_one("legend"))
    assert (ben.select_one("input[name^=dutch-]")["value"], ben.select_one("input[name^=blitz-]")["value"]) == (
        "9",
        "4",
    )
    ana = page.select_one(f"fieldset.player-entry[data-player-id='{game.player_ids[0]}']")
    assert "from-phone" not in ana["class"] and ana.select_one("input[name^=dutch-]").get("value", "") == ""
    # Free Ben's seat: his phone's key stops working.
    [free] = page.select("#seats .seat-list form")
    answer = keeper.post(free["action"], data={"csrf": free.select_one("input[name=csrf]")["value"]})
    assert answer.status_code == 200, answer.text
    assert phone.get(f"/g/{game.id}/mine").status_code == 403


def test_at_a_table_the_seat_shows_the_person_and_links_to_their_page(app, client: TestClient):
    table = PlayedTable(client, app, ["Ana", "Ben"], name="Friday crew")
    game = table.start(["Ana", "Ben"], {"preset": "dutch_blitz"})
    link = client.get(game_url(game.id, "/seats"), headers=game.auth).json()["link"].split("testserver", 1)[1]
    phone = TestClient(app)
    form = next(f for f in html(phone.get(link)).select("#seat-link form") if text_of(f.select_one("button")) == "Ben")
    page = html(phone.post(form["action"], data={"player_id": form.select_one("input[name=player_id]")["value"]}))
    shown = page.select_one("#seat .seat-table")
    assert "At the table Friday crew" in text_of(shown)
    person = shown.select_one("a")["href"]
    assert person == f"/t/{table.id}/p/{table.people['Ben']}"
    assert "Ben" in text_of(html(phone.get(person)).select_one("h1"))
