"""The win rule in a replay record (app.idempotency): a creation's record of a game with `first_to_target` keeps
it; a record made before the rule (its `family` without it, or no `family` at all) restores `highest_total`."""

from __future__ import annotations

import json
import zlib

from app.idempotency import restore, snapshot
from app.models import Game
from app.models import Player as PlayerRow
from app.rules.scoring import Score


def test_a_replay_record_keeps_the_win_rule_and_an_older_one_restores_highest_total():
    game = Game(id="gw", edit_key_hash="", win_rule="first_to_target")
    players = [PlayerRow(id=pid, game_id="gw", seat=pid, name=name) for pid, name in ((1, "Ana"), (2, "Ben"))]
    blob = snapshot(game, players, [[Score(1, 22, 0), Score(2, 14, 3)]])
    assert restore(blob)[0].win_rule == "first_to_target"
    older = json.loads(zlib.decompress(blob))
    older["family"] = older["family"][:-1]
    assert restore(zlib.compress(json.dumps(older).encode()))[0].win_rule == "highest_total"
    del older["family"]
    assert restore(zlib.compress(json.dumps(older).encode()))[0].win_rule == "highest_total"
