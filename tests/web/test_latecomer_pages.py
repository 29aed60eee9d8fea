"""A latecomer on the scorekeeper's page: the Players card's "A latecomer" form (a name and a starting score,
last place's total already filled in; in 31 lives), the new row in the next round's form and none in an
earlier round's, "Changes" with a Revert; a refusal back beside its field with both values as typed."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.rules import scoring
from app.web.chart import build_chart
from tests.helpers import csrf_of, game_url, html, text_of
from tests.tables.test_tables import make_table  # noqa: F401 (a fixture)

NAMES = [{"name": n} for n in ("Ana", "Ben", "Cy")]
HTMX = {"HX-Request": "true"}


def post_join(keeper: TestClient, game_id: str, **fields: str):
    data = {"csrf": csrf_of(keeper, game_id)} | fields
    return keeper.post(f"/g/{game_id}/players", data=data, follow_redirects=True)


def test_a_latecomer_added_from_the_page_plays_from_the_next_round(client: TestClient, keeper_of, make_game):
    game = make_game(players=NAMES, rules={"target": 1000})
    assert game.add_round([(3, 0), (2, 4), (1, 6)]).status_code == 201
    keeper = keeper_of(game)
    page = html(keeper.get(f"/g/{game.id}/score"))
    form = page.select_one("#players form.add-player")
    assert form.select_one("#new-player-start")["value"] == "-11"  # Cy's: last place
    assert "lowest total" in text_of(form.select_one("#new-player-start-hint"))
    answer = post_join(keeper, game.id, name=" Dee ", start="−11")
    assert answer.status_code == 200, answer.text
    dee = game.get()["players"][3]
    assert (dee["name"], dee["starting_score"], dee["joined_after_round"]) == ("Dee", -11, 1)
    page = html(answer)
    form = page.select_one("form.round-form, #round-form form, form[data-dutch-points]")
    new_round = {i["name"] for i in form.select("input[name^=dutch-]")}
    assert new_round == {f"dutch-{pid}" for pid in [*game.player_ids, dee["id"]]}
    line = text_of(page.select_one("#changes li.change .change-text"))
    assert line.startswith("Player joined after round 1 at ") and "Dee" in line and "starts at −11" in line
    assert page.select_one("#changes li.change form") is not None  # revertable: no round since
    # Round 1's correction asks about the players who played it, without her.
    old = html(keeper.get(f"/g/{game.id}/score?edit=1"))
    form = old.select_one("form.round-form, #round-form form, form[data-dutch-points]")
    fields = {i["name"] for i in form.select("input[name^=dutch-]")}
    assert fields == {f"dutch-{pid}" for pid in game.player_ids}
    # The view page lists her too.
    assert "Dee" in text_of(html(client.get(f"/g/{game.id}")).select_one("#scoreboard"))


def test_a_refused_latecomer_comes_back_beside_the_field_as_typed(keeper_of, make_game):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    version = game.get()["version"]
    for fields, field_id, words in (
        ({"name": "ben", "start": "3"}, "new-player-name", "Another player is already called"),
        ({"name": "Dee", "start": "3x"}, "new-player-start", "whole number"),
        ({"name": "Dee", "start": "99999"}, "new-player-start", "between"),
    ):
        answer = post_join(keeper, game.id, **fields)
        assert answer.status_code == 422, answer.text
        form = html(answer).select_one("#players form.add-player")
        assert html(answer).select_one("#players")["open"] is not None
        assert form.select_one(f"#{field_id}")["aria-invalid"] == "true"
        assert words in text_of(form.select_one(f"#{field_id}-error"))
        assert form.select_one("#new-player-name")["value"] == fields["name"]
        assert form.select_one("#new-player-start")["value"] == fields["start"]
    assert game.get()["version"] == version and len(game.get()["players"]) == 3


def test_the_htmx_answer_is_the_game_fragment(keeper_of, make_game):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    data = {"csrf": csrf_of(keeper, game.id), "name": "Dee", "start": ""}
    answer = keeper.post(f"/g/{game.id}/players", data=data, headers=HTMX)
    assert answer.status_code == 200, answer.text
    assert "<html" not in answer.text and "Dee" in text_of(html(answer).select_one("#scoreboard"))


def test_in_thirty_one_the_form_asks_for_lives(keeper_of, make_game):
    game = make_game(players=NAMES, rules={"preset": "thirty_one", "lives": 3})
    ids = game.player_ids
    body = {"scores": [{"player_id": pid, "hand": h} for pid, h in zip(ids, (30, 20, 25), strict=True)]}
    assert game.client.post(game_url(game.id, "/rounds"), json=body, headers=game.auth).status_code == 201
    keeper = keeper_of(game)
    form = html(keeper.get(f"/g/{game.id}/score")).select_one("#players form.add-player")
    assert text_of(form.select_one("label[for=new-player-start]")) == "Lives"
    assert form.select_one("#new-player-start")["value"] == "2"
    assert post_join(keeper, game.id, name="Dee", start="3").status_code == 200
    dee = game.get()["players"][3]
    assert (dee["lives"], dee["starting_score"]) == (3, 0)
    page = html(keeper.get(f"/g/{game.id}/score"))
    assert "comes with 3 lives" in text_of(page.select_one("#changes li.change .change-text"))


def test_a_finished_game_offers_no_latecomer_form(keeper_of, make_game):
    game = make_game(players=NAMES, rules={"target": 10})
    assert game.add_round([(12, 0), (2, 4), (1, 6)]).status_code == 201
    page = html(keeper_of(game).get(f"/g/{game.id}/score"))
    assert page.select_one("form.add-player") is None


def test_a_russian_page_says_it_in_russian(keeper_of, make_game):
    game = make_game(players=NAMES)
    keeper = keeper_of(game)
    assert post_join(keeper, game.id, name="Dee", start="0").status_code == 200
    page = html(keeper.get(f"/g/{game.id}/score", headers={"Accept-Language": "ru"}))
    assert text_of(page.select_one("#players form.add-player button")) == "Добавить игрока"
    assert text_of(page.select_one("#changes li.change .change-text")).startswith("Игрок присоединился")


def test_the_chart_starts_a_latecomers_line_where_they_came():
    players = [scoring.Player(1, "Ana"), scoring.Player(2, "Ben"), scoring.Player(3, "Cy", 5, joined_after=2)]
    rounds = [[scoring.Score(1, 10, 0), scoring.Score(2, 4, 2)]] * 2 + [[scoring.Score(p, 6, 0) for p in (1, 2, 3)]]
    state = scoring.score_game(players, scoring.Rules(target=1000), rounds)
    chart = build_chart(players, state)
    ana, _ben, cy = chart.lines
    assert [p.x for p in cy.points] == [p.x for p in ana.points][2:]  # from round 2's place, not the start's
    assert len(cy.points) == 2 and cy.points[0].y > cy.points[1].y  # 5, then 11: up


def test_the_spreadsheet_leaves_a_latecomers_earlier_cells_empty(make_game):
    game = make_game(players=NAMES[:2], rules={"target": 1000})
    assert game.add_round([(5, 0), (4, 2)]).status_code == 201
    dee = game.client.post(game_url(game.id, "/players"), json={"name": "Dee"}, headers=game.auth)
    ids = [p["id"] for p in dee.json()["players"]]
    body = {"scores": [{"player_id": pid, "dutch": 6, "blitz": 0} for pid in ids]}
    assert game.client.post(game_url(game.id, "/rounds"), json=body, headers=game.auth).status_code == 201
    sheet = game.client.get(game_url(game.id, "/export.csv")).text.lstrip("\ufeff").splitlines()
    assert sheet[2].split(",")[-4:] == ["", "", "", ""]  # round 1: no cells of hers
    assert sheet[3].split(",")[-4:] == ["6", "0", "6", "6"]  # round 2: from her starting score (0)
