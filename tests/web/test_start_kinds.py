"""More than one game, on the pages: the start page picks the game (Dutch Blitz, or one of the others a tap away) and
shows that game's own rules; the game's rules form shows its kind's parameters. Through the TestClient,
without JavaScript and with htmx (`HX-Request`), the HTML parsed and checked by CSS selectors; what a
form made is read back through the API.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from app import i18n
from app.rules import scoring
from app.web.presets import preset_aliases, preset_blurb, preset_name
from tests.helpers import CLOSE, OPEN, GameHandle, claim, form_data, html
from tests.helpers import text_of as text

PRESETS = list(scoring.PRESETS)
NAMES = ["Dutch Blitz", "Dutch Blitz to 100", "Nerts", "Ligretto", "Dutch (lowest score wins)", "31"]
KIND = {"dutch_blitz": "cards", "dutch_blitz_100": "cards", "nerts": "cards", "ligretto": "cards"}
KIND |= {"dutch": "lowest", "thirty_one": "lives"}
# The fields each kind shows (radio groups and boxes by their name), whatever the engine's order.
FIELDS = {
    "cards": {"target", "dutch_points", "blitz_points", "tie_break", "end", "rounds", "pile_size", "deck_size"}
    | {"must_go_out", "win"},
    "lowest": {"target", "tie_break"},
    "lives": {"lives", "county", "thirty_and_a_half"},
}
# What each game is, as the API tells it (GET /api/v1/presets: every parameter's default).
EXPECTED_RULES = {
    "dutch_blitz": {"target": 75, "dutch_points": 1, "blitz_points": -2, "pile_size": 10, "deck_size": 40},
    "dutch_blitz_100": {"target": 100, "dutch_points": 1, "blitz_points": -2, "pile_size": 10, "deck_size": 40},
    "nerts": {"target": 100, "dutch_points": 1, "blitz_points": -2, "pile_size": 13, "deck_size": 52},
    "ligretto": {"target": 99, "dutch_points": 1, "blitz_points": -2, "pile_size": 10, "deck_size": 40},
    "dutch": {"target": 100, "tie_break": "play_on"},
    "thirty_one": {"lives": 3, "county": True, "thirty_and_a_half": False},
}
for _preset in ("dutch_blitz", "dutch_blitz_100", "nerts", "ligretto"):
    EXPECTED_RULES[_preset] |= {
        "tie_break": "play_on",
        "end": "target",
        "rounds": 10,
        "must_go_out": True,
        "win": "highest_total",
    }
EXPECTED_RULES["ligretto"]["must_go_out"] = False
HTMX = {"HX-Request": "true"}
TWO = [{"name": "Ana"}, {"name": "Ben"}]  # no starting scores: 31 has none


# --- helpers ---------------------------------------------------------------------------------------


def field_error(page: BeautifulSoup | Tag, name: str) -> str:
    """The message beside a field: a p.field-error with id <name>-error in the field's own container."""
    field = page.select_one(f"#{name}")
    assert field is not None, name
    assert field.get("aria-invalid") == "true", field
    container = field.find_parent(class_=["player-row", "inline-field"])
    assert container is not None
    message = container.select_one(f"p.field-error#{name}-error")
    assert message is not None, container
    return text(message)


def rules_fields(scope: Tag) -> set[str]:
    """The names of the rules fields in a form's part (not the hidden markers, csrf, version)."""
    return {str(i["name"]) for i in scope.select("input[name]") if i.get("type") != "hidden"} - {"game_name"}


def house_rules(form: Tag) -> Tag:
    details = [d for d in form.select("details.options") if text(d.select_one("summary")) == "House rules"]
    assert len(details) == 1
    return details[0]


def picked(form: Tag) -> str:
    checked = form.select("input[name=preset][checked]")
    assert len(checked) == 1
    return str(checked[0]["value"])


def pick(client: TestClient, preset: str, htmx: bool, **typed: str) -> tuple[Any, Tag]:
    """Pick a game on a fresh start page: htmx posts the form on the radio's change (naming the field),
    a browser without JavaScript with "Show its rules"."""
    form = html(client.get("/")).select_one("form#new-game")
    data = form_data(form) | typed | {"preset": preset}
    if htmx:
        response = client.post("/games", data=data, headers=HTMX | {"HX-Trigger-Name": "preset"})
    else:
        response = client.post("/games", data=data | {"action": "preset"})
    assert response.status_code == 200, response.text
    new = html(response).select_one("form#new-game")
    assert new is not None
    return response, new


def start(client: TestClient, form: Tag, drop: tuple[str, ...] = (), **changes: str) -> Any:
    """ "Start game" on this form with Ana and Ben, these fields changed and those in `drop` left out (a
    box unchecked)."""
    data = form_data(form) | {"player-0": "Ana", "player-1": "Ben", "action": "start"} | changes
    return client.post("/games", data={k: v for k, v in data.items() if k not in drop}, follow_redirects=False)


def created(client: TestClient, response: Any) -> dict[str, Any]:
    assert response.status_code == 303, response.text
    match = re.fullmatch(r"/g/([^/]+)/score", response.headers["location"])
    assert match
    game = client.get(f"/api/v1/games/{match[1]}")
    assert game.status_code == 200
    return game.json()


def keeper_form(client: TestClient, game: GameHandle) -> Tag:
    claim(client, game.id, game.key)
    form = html(client.get(f"/g/{game.id}/score")).select_one("#rules form")
    assert form is not None
    return form


def submit(client: TestClient, form: Tag, changes: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> Any:
    data = {k: v for k, v in (form_data(form) | (changes or {})).items() if k not in drop}
    return client.post(str(form["action"]), data=data, follow_redirects=False)


# --- the picker ------------------------------------------------------------------------------------


def test_the_picker_lists_the_six_games_with_dutch_blitz_first_and_checked(client: TestClient):
    form = html(client.get("/")).select_one("form#new-game")
    radios = form.select("fieldset.game-picker input[type=radio][name=preset]")
    assert [r["value"] for r in radios] == PRESETS
    assert [text(r.find_parent("label")) for r in radios] == NAMES
    assert picked(form) == "dutch_blitz"
    # All six at once, none behind a disclosure, each with its one line on how it is won as its description.
    assert form.select("fieldset.game-picker details") == []
    for radio in radios:
        line = form.select_one(f"#{radio['aria-describedby'].split()[0]}")
        said = [preset_blurb(radio["value"]), preset_aliases(radio["value"])]
        lines = [form.select_one(f"#{ref}") for ref in radio["aria-describedby"].split()]
        assert [(p.name, text(p)) for p in lines] == [("p", t) for t in said if t], radio["value"]
        assert line.find_parent("li") is radio.find_parent("li")
    assert form.select_one("input[name=shown_preset]")["value"] == "dutch_blitz"
    # htmx posts the form when another game is picked; without JavaScript a button.
    assert all(r["hx-post"] == "/games" for r in radios)
    button = form.select_one("noscript button[name=action][value=preset]")
    assert text(button) == "Show its rules"
    assert rules_fields(house_rules(form)) == FIELDS["cards"]


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
@pytest.mark.parametrize("preset", PRESETS)
def test_picking_a_game_shows_its_own_fields_with_its_values(client: TestClient, preset: str, htmx: bool):
    starts = {} if preset == "thirty_one" else {"start-1": "12"}
    response, form = pick(client, preset, htmx, **{"player-0": "Ana", "game_name": "Friday"}, **starts)
    assert (html(response).select_one("html") is None) == htmx  # htmx: the form alone
    assert picked(form) == preset
    assert form.select_one("input[name=shown_preset]")["value"] == preset
    assert len(form.select("fieldset.game-picker input[name=preset]")) == len(PRESETS)  # the others still there
    # What was typed is kept.
    assert form.select_one("#player-0")["value"] == "Ana"
    assert form.select_one("#game_name")["value"] == "Friday"
    if starts:
        assert form.select_one("#start-1")["value"] == "12"
    else:  # 31 has no starting scores
        assert form.select("input[name^=start-]") == []
        assert "Starting scores" not in text(form)
    # Exactly the fields of the game's kind, open, empty, with the game's values as placeholders.
    rules = house_rules(form)
    assert rules.has_attr("open")
    kind = KIND[preset]
    assert rules_fields(rules) == FIELDS[kind]
    expected = EXPECTED_RULES[preset]
    for name in FIELDS[kind] & set(scoring.BOUNDS):
        field = rules.select_one(f"input#{name}")
        assert (field["value"], field["placeholder"]) == ("", str(expected[name]).replace("-", "\u2212")), name
    for name in FIELDS[kind] & {"tie_break", "end", "win"}:
        assert [r["value"] for r in rules.select(f"input[name={name}][checked]")] == [expected[name]]
    for name in FIELDS[kind] & {"must_go_out", "county", "thirty_and_a_half"}:
        assert rules.select_one(f"input#{name}").has_attr("checked") == expected[name]
        assert rules.select_one(f"input[type=hidden][name={name}_shown]")["value"] == "1"


@pytest.mark.parametrize(
    ("preset", "labels"),
    [
        ("dutch_blitz", ["Target score", "Points per Dutch card", "Points per Blitz card"]),
        ("nerts", ["Target score", "Points per centre card", "Points per card left in the pile"]),
        ("ligretto", ["Target score", "Points per centre card", "Points per card left in the pile"]),
        ("dutch", ["The game ends when a total reaches"]),
        ("thirty_one", ["Lives each player starts with"]),
    ],
)
def test_each_game_names_its_fields_in_its_own_words(client: TestClient, preset: str, labels: list[str]):
    rules = house_rules(pick(client, preset, htmx=True)[1])
    assert [text(label) for label in rules.select(".inline-field > label[for]")][: len(labels)] == labels
    legends = [text(legend) for legend in rules.select("legend")]
    if KIND[preset] == "cards":
        assert legends == [
            "When the highest total is tied at the end",
            "The game ends",
            "Who wins when someone reaches the target",
        ]
    elif KIND[preset] == "lowest":
        assert legends == ["When the lowest total is tied at the end"]
    else:
        assert legends == []
        assert text(rules.select_one("#county").find_parent("label")).startswith("The county")
        assert text(rules.select_one("#thirty_and_a_half").find_parent("label")) == (
            "Three of a kind counts 30½ (beats every hand but a 31)"
        )


def test_back_to_dutch_blitz_the_other_games_close_and_its_ids_are_the_old_ones(client: TestClient):
    _, nerts = pick(client, "nerts", htmx=True, **{"player-0": "Ana"})
    data = form_data(nerts) | {"preset": "dutch_blitz"}
    form = html(client.post("/games", data=data, headers=HTMX | {"HX-Trigger-Name": "preset"}))
    form = form.select_one("form#new-game")
    assert picked(form) == "dutch_blitz"
    for name, label in [("target", "Target score"), ("dutch_points", "Points per Dutch card")]:
        assert text(form.select_one(f"label[for={name}]")) == label
    assert form.select_one("#player-0")["value"] == "Ana"


def test_a_starting_score_typed_before_31_was_picked_stays_with_a_word_on_it(client: TestClient):
    _, form = pick(client, "thirty_one", htmx=True, **{"player-0": "Ana", "start-0": "12"})
    scores = form.select_one("#start-0").find_parent("details")
    assert scores.has_attr("open")
    assert form.select_one("#start-0")["value"] == "12"
    assert text(scores.select_one("p.small")) == "A game of 31 has no starting scores: clear them to start."
    response = start(client, form, **{"start-0": ""})  # cleared: the game starts
    assert created(client, response)["rules"]["preset"] == "thirty_one"


def test_adding_a_player_keeps_the_game_and_its_house_rules(client: TestClient):
    _, form = pick(client, "nerts", htmx=False)
    data = form_data(form) | {"target": "150", "action": "add"}
    form = html(client.post("/games", data=data)).select_one("form#new-game")
    assert picked(form) == "nerts"
    assert form.select_one("#target")["value"] == "150"
    assert house_rules(form).has_attr("open")  # a house rule typed stays in view
    assert len(form.select("li.player-row")) == 3


# --- creating a game of each ---------------------------------------------------------------------------


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
@pytest.mark.parametrize("preset", PRESETS)
def test_a_game_started_from_the_form_has_the_games_rules(client: TestClient, preset: str, htmx: bool):
    _, form = pick(client, preset, htmx)
    game = created(client, start(client, form))
    assert game["rules"] == {"kind": KIND[preset], "preset": preset} | EXPECTED_RULES[preset]
    presets = {p["name"]: p for p in client.get("/api/v1/presets").json()}
    assert {k: v["default"] for k, v in presets[preset]["params"].items()} == EXPECTED_RULES[preset]
    assert [(p["name"], p.get("starting_score", 0)) for p in game["players"]] == [("Ana", 0), ("Ben", 0)]


@pytest.mark.parametrize(
    ("preset", "changes", "drop", "expected"),
    [
        pytest.param("nerts", {"target": "150"}, (), {"target": 150}, id="nerts-to-150"),
        pytest.param("thirty_one", {"lives": "5"}, ("county",), {"lives": 5, "county": False}, id="31-5-lives"),
        pytest.param(
            "dutch_blitz", {"end": "rounds", "rounds": "5"}, (), {"end": "rounds", "rounds": 5}, id="5-rounds"
        ),
        pytest.param("ligretto", {"must_go_out": "1"}, (), {"must_go_out": True}, id="ligretto-must-go-out"),
        pytest.param("dutch_blitz", {}, ("must_go_out",), {"must_go_out": False}, id="blitz-stuck-rounds"),
        pytest.param("dutch", {"target": "50", "tie_break": "shared"}, (), {"target": 50, "tie_break": "shared"}),
        pytest.param("nerts", {"dutch_points": "−1", "pile_size": "15"}, (), {"dutch_points": -1, "pile_size": 15}),
    ],
)
def test_house_rules_typed_on_the_form_arrive_in_the_game(
    client: TestClient, preset: str, changes: dict[str, str], drop: tuple[str, ...], expected: dict[str, Any]
):
    _, form = pick(client, preset, htmx=True)
    game = created(client, start(client, form, drop, **changes))
    assert game["rules"] == {"kind": KIND[preset], "preset": preset} | EXPECTED_RULES[preset] | expected


def test_a_form_from_before_the_picker_still_starts_dutch_blitz(client: TestClient):
    data = {"player_count": "2", "player-0": "Ana", "player-1": "Ben", "target": "50", "action": "start"}
    game = created(client, client.post("/games", data=data, follow_redirects=False))
    assert game["rules"] == {"kind": "cards", "preset": "dutch_blitz"} | EXPECTED_RULES["dutch_blitz"] | {"target": 50}


def test_a_game_picked_without_its_rules_shown_starts_with_its_own(client: TestClient):
    # Without JavaScript the radio changes nothing until a button posts the form: "Start game" straight
    # away starts the game picked, with its own rules (the empty fields were Dutch Blitz's).
    form = html(client.get("/")).select_one("form#new-game")
    game = created(client, start(client, form, preset="nerts"))
    assert game["rules"] == {"kind": "cards", "preset": "nerts"} | EXPECTED_RULES["nerts"]


def test_house_rules_typed_for_another_game_are_not_taken_for_the_one_picked(client: TestClient):
    form = html(client.get("/")).select_one("form#new-game")
    response = start(client, form, preset="nerts", target="50")  # typed for Dutch Blitz, then Nerts picked
    assert response.status_code == 422
    form = html(response).select_one("form#new-game")
    assert (
        text(form.select_one(".form-error")) == "You picked another game: check its rules below, then start the game."
    )
    assert picked(form) == "nerts"
    assert form.select_one("input[name=shown_preset]")["value"] == "nerts"
    assert house_rules(form).has_attr("open")
    assert form.select_one("#target")["value"] == ""
    assert form.select_one("#target")["placeholder"] == "100"
    assert html(client.get("/")).select("#your-games li") == []
    game = created(client, start(client, form))
    assert game["rules"]["preset"] == "nerts"


# --- refusals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "typed", "field", "message"),
    [
        ("nerts", {"pile_size": "0"}, "pile_size", "The pile must hold between 1 and 52 cards."),
        ("nerts", {"pile_size": "20", "deck_size": "15"}, "pile_size", "The pile (20 cards) can't be bigger than the deck (15 cards)."),
        ("nerts", {"deck_size": "many"}, "deck_size", "The cards in each player's deck must be a whole number."),
        ("nerts", {"dutch_points": "x"}, "dutch_points", "Points per centre card must be a whole number."),
        ("ligretto", {"blitz_points": "500"}, "blitz_points", "Points per card left in the pile must be between -100 and 100."),
        ("dutch_blitz", {"blitz_points": "500"}, "blitz_points", "Points per Blitz card must be between -100 and 100."),
        ("dutch_blitz", {"target": "abc"}, "target", "The target must be a whole number."),
        ("dutch_blitz", {"end": "rounds", "rounds": "0"}, "rounds", "The number of rounds must be between 1 and 1000."),
        ("dutch_blitz_100", {"rounds": "ten"}, "rounds", "The number of rounds must be a whole number."),
        ("dutch", {"target": "0"}, "target", "The target must be between 1 and 10000 points."),
        ("thirty_one", {"lives": "12"}, "lives", "The lives each player starts with must be between 1 and 9."),
        ("thirty_one", {"lives": "three"}, "lives", "The lives each player starts with must be a whole number."),
        ("thirty_one", {"start-1": "5"}, "start-1", "A game of 31 has no starting scores: every player starts with the same lives."),
    ],
)  # fmt: skip
def test_a_refused_new_game_is_422_with_the_message_beside_the_field(
    client: TestClient, preset: str, typed: dict[str, str], field: str, message: str
):
    _, form = pick(client, preset, htmx=True)
    data = form_data(form) | {"player-0": "Ana", "player-1": "Ben", "game_name": "Friday", "action": "start"} | typed
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 422
    assert "set-cookie" not in response.headers
    form = html(response).select_one("form#new-game")
    assert field_error(form, field) == message
    assert len(form.select(".field-error")) == 1
    assert text(form.select_one(".form-error")) == "Please check the fields marked below."
    assert picked(form) == preset
    for name, value in typed.items() | {"player-0": "Ana", "game_name": "Friday"}.items():
        if name == "end":
            assert form.select_one(f"input[name=end][value={value}]").has_attr("checked")
        else:
            assert form.select_one(f"input[name={name}]")["value"] == value, name
    assert form.select_one(f"#{field}").find_parent("details").has_attr("open")  # in view, not folded away
    assert html(client.get("/")).select("#your-games li") == []


def test_a_refused_new_game_with_htmx_swaps_the_form_back(client: TestClient):
    _, form = pick(client, "thirty_one", htmx=True)
    data = form_data(form) | {"player-0": "Ana", "player-1": "Ben", "lives": "0", "action": "start"}
    response = client.post("/games", data=data, headers=HTMX)
    assert response.status_code == 422
    assert response.headers["HX-Retarget"] == "#new-game"
    form = html(response).select_one("form#new-game")
    assert field_error(form, "lives") == "The lives each player starts with must be between 1 and 9."
    assert form.select_one("#county").has_attr("checked")


def test_every_unreadable_and_out_of_range_rule_is_said_at_once(client: TestClient):
    _, form = pick(client, "nerts", htmx=True)
    typed = {"target": "x", "pile_size": "0", "deck_size": "300", "rounds": ""}
    response = start(client, form, **typed)
    assert response.status_code == 422
    form = html(response).select_one("form#new-game")
    assert {name: field_error(form, name) for name in ("target", "pile_size", "deck_size")} == {
        "target": "The target must be a whole number.",
        "pile_size": "The pile must hold between 1 and 52 cards.",
        "deck_size": "A player's deck must hold between 1 and 208 cards.",
    }


# --- the game's rules form -----------------------------------------------------------------------------


def test_the_rules_form_of_a_dutch_game_shows_its_fields_and_saves_a_change(client: TestClient, make_game):
    game = make_game(rules={"preset": "dutch"})
    form = keeper_form(client, game)
    assert text(form.select_one(".rules-game")) == "Game: Dutch (lowest score wins)"
    assert rules_fields(form) == FIELDS["lowest"]
    assert form.select_one("#target")["value"] == "100"
    assert text(form.select_one("fieldset.tie-break legend")) == "When the lowest total is tied at the end"
    response = submit(client, form, {"target": "150", "tie_break": "shared"})
    assert response.status_code == 303, response.text
    assert game.get()["rules"] == {"kind": "lowest", "preset": "dutch", "target": 150, "tie_break": "shared"}
    assert keeper_form(client, game).select_one("#target")["value"] == "150"


@pytest.mark.parametrize("htmx", [False, True], ids=["plain-form", "htmx"])
def test_the_rules_form_of_a_31_game_shows_its_fields_and_saves_a_change(client: TestClient, make_game, htmx: bool):
    game = make_game(TWO, rules={"preset": "thirty_one"})
    form = keeper_form(client, game)
    assert text(form.select_one(".rules-game")) == "Game: 31"
    assert rules_fields(form) == FIELDS["lives"]
    assert (form.select_one("#lives")["value"], form.select_one("#county").has_attr("checked")) == ("3", True)
    data = {k: v for k, v in (form_data(form) | {"lives": "5"}).items() if k != "county"}
    response = client.post(str(form["action"]), data=data, headers=HTMX if htmx else {}, follow_redirects=False)
    assert response.status_code == (200 if htmx else 303), response.text
    assert game.get()["rules"] == {
        "kind": "lives", "preset": "thirty_one", "lives": 5, "county": False, "thirty_and_a_half": False
    }  # fmt: skip
    form = html(response).select_one("#rules form") if htmx else keeper_form(client, game)
    assert (form.select_one("#lives")["value"], form.select_one("#county").has_attr("checked")) == ("5", False)


def test_the_rules_form_of_a_nerts_game_says_its_cards_in_its_words(client: TestClient, make_game):
    game = make_game(rules={"preset": "nerts", "must_go_out": False})
    form = keeper_form(client, game)
    assert text(form.select_one(".rules-game")) == "Game: Nerts"
    assert rules_fields(form) == FIELDS["cards"]
    assert text(form.select_one("label[for=dutch_points]")) == "Points per centre card"
    assert [form.select_one(f"#{n}")["value"] for n in ("target", "pile_size", "deck_size")] == ["100", "13", "52"]
    assert not form.select_one("#must_go_out").has_attr("checked")
    before = game.get()
    response = submit(client, form, {"dutch_points": "x", "blitz_points": "500", "pile_size": ""})
    assert response.status_code == 422
    rules = html(response).select_one("details#rules")
    assert rules.has_attr("open")
    assert field_error(rules, "dutch_points") == "Points per centre card must be a whole number."
    assert field_error(rules, "pile_size") == "The cards in each player's pile can't be empty."
    assert rules.select_one("#blitz_points")["value"] == "500"  # judged once the rest can be read
    assert game.get() == before
    response = submit(client, form, {"blitz_points": "500", "end": "rounds", "must_go_out": "1"})
    assert response.status_code == 422
    rules = html(response).select_one("details#rules")
    assert field_error(rules, "blitz_points") == "Points per card left in the pile must be between -100 and 100."
    assert rules.select_one("input[name=end][value=rounds]").has_attr("checked")  # what was typed is kept
    assert rules.select_one("#must_go_out").has_attr("checked")
    assert game.get() == before


def test_a_rules_change_that_a_played_round_breaks_is_said_above_the_fields(client: TestClient, make_game):
    three = [{"name": "Ana"}, {"name": "Ben"}, {"name": "Cy"}]
    game = make_game(three, rules={"preset": "thirty_one", "lives": 2, "county": False})
    ids = game.player_ids
    for hands in [(20, 25, 10), (20, 25, 10), (20, 25, None)]:  # Cy loses twice and is out; then two play
        body = {"scores": [{"player_id": p, "hand": h} for p, h in zip(ids, hands, strict=True) if h is not None]}
        assert client.post(f"/api/v1/games/{game.id}/rounds", json=body, headers=game.auth).status_code == 201
    before = game.get()
    response = submit(client, keeper_form(client, game), {"lives": "1"})
    assert response.status_code == 422
    rules = html(response).select_one("details#rules")
    assert rules.has_attr("open")
    assert (
        text(rules.select_one(".form-error"))
        == "This would make round 2 impossible: Cy would be out of the game before it."
    )
    assert rules.select_one("#lives")["value"] == "1"
    assert game.get() == before


def test_a_stale_rules_form_is_409_with_what_was_typed(client: TestClient, make_game):
    game = make_game(rules={"preset": "dutch"})
    form = keeper_form(client, game)
    client.patch(f"/api/v1/games/{game.id}", json={"name": "Meanwhile"}, headers=game.auth)
    response = submit(client, form, {"target": "120"})
    assert response.status_code == 409
    rules = html(response).select_one("details#rules")
    assert text(rules.select_one(".form-error")) == "The game changed on another device: save again."
    assert rules.select_one("#target")["value"] == "120"
    assert game.get()["rules"]["target"] == 100


def test_a_rules_post_without_the_new_fields_leaves_them_as_they_are(client: TestClient, make_game):
    # A rules form from before the other games (an open tab): what it does not send does not change.
    game = make_game(rules={"pile_size": 12, "end": "rounds", "must_go_out": False})
    form = keeper_form(client, game)
    data = {k: form_data(form)[k] for k in ("csrf", "version", "game_name")} | {"target": "60"}
    assert client.post(str(form["action"]), data=data, follow_redirects=False).status_code == 303
    rules = game.get()["rules"]
    assert (rules["target"], rules["pile_size"], rules["end"], rules["must_go_out"]) == (60, 12, "rounds", False)


def test_a_rule_of_another_game_posted_to_the_rules_form_is_refused_above_the_fields(client: TestClient, make_game):
    game = make_game(TWO, rules={"preset": "thirty_one"})
    response = submit(client, keeper_form(client, game), {"target": "50"})
    assert response.status_code == 422
    assert text(html(response).select_one("#rules .form-error")) == "“target” is not a rule of this game."


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "nerts", "target": 120, "pile_size": 12},
        {"preset": "ligretto", "end": "rounds", "rounds": 6},
        {"preset": "dutch", "target": 80, "tie_break": "shared"},
        {"preset": "thirty_one", "lives": 4, "county": False},
    ],
    ids=lambda r: r["preset"],
)
def test_a_rematch_keeps_the_game_and_its_house_rules(client: TestClient, make_game, rules: dict[str, Any]):
    game = make_game(TWO, rules=rules)
    csrf = form_data(keeper_form(client, game))["csrf"]
    response = client.post(f"/g/{game.id}/rematch", data={"csrf": csrf}, follow_redirects=False)
    rematch = created(client, response)
    assert rematch["id"] != game.id
    assert rematch["rules"] == game.get()["rules"]
    assert [p["name"] for p in rematch["players"]] == ["Ana", "Ben"]


# --- names and languages ---------------------------------------------------------------------------------


def test_every_game_has_a_name_and_a_line_for_people():
    assert [preset_name(p) for p in PRESETS] == NAMES
    assert all(preset_blurb(p) for p in PRESETS)
    assert preset_blurb("dutch").endswith("lowest total wins")
    # "Dutch" is not read as Dutch Blitz, nor Dutch Blitz as "Dutch": neither name begins the other.
    dutch = preset_name("dutch")
    assert not any(dutch.startswith(n) or n.startswith(dutch) for n in NAMES if n != dutch)
    assert (preset_name("no_such_game"), preset_blurb("no_such_game")) == ("no_such_game", "")


def outside_the_catalogs(scope: Tag) -> list[str]:
    """Words of the scope outside every ⟦…⟧ of the pseudo-language (names and numbers aside)."""
    found = []
    for node in scope.find_all(string=True):
        if node.parent.name in ("script", "style"):
            continue
        words = str(node)
        while (shorter := re.sub(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", " ", words)) != words:
            words = shorter
        if re.search(r"[^\W\d_]", words.replace("Ana", "").replace("Ben", "")):
            found.append(words.strip())
    for element in scope.select("[placeholder], [aria-label]"):
        for attribute in ("placeholder", "aria-label"):
            if re.search(r"[^\W\d_]", str(element.get(attribute, "")).replace(OPEN, "").replace(CLOSE, "")):
                assert str(element[attribute]).startswith(OPEN), element
    return found


@pytest.mark.parametrize("preset", PRESETS)
def test_each_games_form_and_rules_form_speak_through_the_catalogs(
    client: TestClient, make_game, pseudo: str, preset: str
):
    client.cookies.set(i18n.COOKIE, pseudo)
    _, form = pick(client, preset, htmx=False, **{"start-0": "x" if preset != "thirty_one" else "4"})
    assert outside_the_catalogs(form) == []
    refused = html(start(client, form, target="x", lives="x", deck_size="x", dutch_points="x"))
    assert outside_the_catalogs(refused.select_one("form#new-game")) == []
    game = make_game(TWO, rules={"preset": preset})
    rules = keeper_form(client, game)
    assert outside_the_catalogs(rules) == []
    refused = html(submit(client, rules, {"target": "", "lives": "", "dutch_points": "x"}))
    assert outside_the_catalogs(refused.select_one("#rules")) == []
