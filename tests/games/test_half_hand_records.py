"""31's 30½ in a replay record (app.idempotency): a creation's record of a game with the rule `thirty_and_a_half`
keeps the rule and the half hand; a record made before the rule (one parameter fewer in its `family`) restores
with the rule off."""

from __future__ import annotations

import json
import zlib

from app.idempotency import FAMILY, restore, snapshot
from app.models import Game
from app.models import Player as PlayerRow
from app.rules.scoring import Score

ANA, BEN, CY = 1, 2, 3
NAMES = {ANA: "Ana", BEN: "Ben", CY: "Cy"}


def hands(table: dict[int, int | float]) -> list[Score]:
    return [Score(pid, hand=hand) for pid, hand in table.items()]


def test_a_replay_record_keeps_the_rule_and_the_half_and_an_older_record_reads_without_it():
    """A creation's record (app.idempotency.snapshot) of a 31 game holds the rule and a 30½ hand; a record made
    before the rule lists one parameter fewer and restores with it off."""
    game = Game(id="g31", edit_key_hash="", kind="lives", preset="thirty_one", thirty_and_a_half=True)
    players = [PlayerRow(id=pid, game_id="g31", seat=pid, name=name) for pid, name in NAMES.items()]
    blob = snapshot(game, players, [hands({ANA: 30.5, BEN: 30, CY: 25})])
    again, _, played, _ = restore(blob)
    assert again.thirty_and_a_half is True
    assert [s.hand for s in played[0][1]] == [30.5, 30, 25]
    older = json.loads(zlib.decompress(blob))
    older["family"] = older["family"][: FAMILY.index("thirty_and_a_half")]  # and none of the later ones
    assert restore(zlib.compress(json.dumps(older).encode()))[0].thirty_and_a_half is False
