"""`blitzboard backup` and `blitzboard prune` (app/maintenance.py), run as the operator runs them.

The backup is taken from a real server while a thread saves rounds through the API, and every round
acknowledged before the backup started must be in it; the backup opens as a database at the newest
migration. On PostgreSQL the command only prints the pg_dump line, without the password and without
reaching the server. Prune deletes the games nobody changed for DAYS days and every row they own,
and nothing else; its dry run changes nothing.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, func, make_url, update
from sqlmodel import Session, select

from app import maintenance
from app.config import Settings
from app.db import write_transaction
from app.idempotency import NEW_GAME_SCOPE, snapshot_game_id
from app.main import create_app
from app.maintenance import prune
from app.models import Game, IdempotencyRecord, Player, Round, RoundChange, RoundScore, utcnow
from tests.helpers import (
    API,
    REQUEST_TIMEOUT,
    SMALL_ROUND,
    WORKED_EXAMPLE_PLAYERS,
    game_url,
    missing_tool,
    on_postgres,
    round_body,
)
from tests.servers import ROOT, migrated, running_server

SQLITE_ONLY = pytest.mark.skipif(on_postgres(), reason="a SQLite backup; runs in the SQLite pass")
WAIT_SECONDS = 120.0
PASSWORD = "s3cret-Pw"
BACKUP_LINE = re.compile(
    r"^wrote (?P<path>.+): (?P<games>\d+) games?, (?P<bytes>\d+) bytes \(SQLite, migration \w+\); "
)


def run_cli(*args: str | Path, database_url: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`blitzboard ARGS` from this tree, with only the database (and `env`) set."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("BLITZBOARD_")}
    for name in ("DATABASE_URL", "PGPASSWORD"):
        environment.pop(name, None)
    environment |= {"BLITZBOARD_DATABASE_URL": database_url, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *map(str, args)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )


def restored(path: Path) -> FastAPI:
    return create_app(Settings(database_url=f"sqlite:///{path}", _env_file=None, tune_gc=False))


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS} s for {what}"
        time.sleep(0.02)  # polling a condition, not an assertion about time


# --- backup on SQLite ------------------------------------------------------------------------------


@pytest.mark.server
@SQLITE_ONLY
def test_a_backup_taken_while_rounds_are_saved_holds_every_round_acknowledged_before_it(tmp_path: Path):
    url = migrated(f"sqlite:///{tmp_path / 'live.db'}")
    target = tmp_path / "backups" / "blitzboard.db"
    target.parent.mkdir()
    players = [{"name": "Ana"}, {"name": "Ben"}]
    counts = [(0, 0), (0, 1)]  # Ana 0, Ben −2 each round: nobody ever reaches the target
    acks: list[tuple[float, str, int]] = []  # (when acknowledged, game, rounds the game then had)
    refused: list[str] = []
    stop = threading.Event()

    with (
        running_server(url, tmp_path / "server.log") as server,
        httpx.Client(base_url=server.url, timeout=REQUEST_TIMEOUT) as http,
    ):
        games = []
        for _ in range(3):
            created = http.post(f"{API}/games", json={"players": players})
            assert created.status_code == 201, created.text
            games.append(created.json())

        def save_rounds() -> None:
            n = 0
            while not stop.is_set():
                game = games[n % len(games)]
                n += 1
                ids = [p["id"] for p in game["players"]]
                answer = http.post(
                    game_url(game["id"], "/rounds"),
                    json=round_body(ids, counts),
                    headers={"Authorization": f"Bearer {game['edit_key']}"},
                )
                if answer.status_code != 201:
                    refused.append(f"{answer.status_code} {answer.text}")
                    return
                acks.append((time.monotonic(), game["id"], len(answer.json()["rounds"])))

        writer = threading.Thread(target=save_rounds, daemon=True)
        writer.start()
        try:
            wait_for(lambda: len(acks) >= 30 or refused, "rounds to be saved")
            started = time.monotonic()
            result = run_cli("backup", target, database_url=url, cwd=tmp_path)
            finished = time.monotonic()
            wait_for(lambda: refused or (acks and acks[-1][0] > finished), "a round saved after the backup")
        finally:
            stop.set()
            writer.join(WAIT_SECONDS)
        assert not refused, refused
        assert result.returncode == 0, result.stderr
    # Rounds were being saved while the backup ran, before it and after it.
    assert any(started <= when <= finished for when, _, _ in acks), "no round was saved during the backup"

    line = result.stdout.splitlines()
    assert len(line) == 1, result.stdout
    shown = BACKUP_LINE.match(line[0])
    assert shown, line[0]
    assert shown["path"] == str(target) and shown["games"] == "3"
    assert int(shown["bytes"]) == target.stat().st_size
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not Path(f"{target}-wal").exists()  # one self-contained file
    assert sorted(p.name for p in target.parent.iterdir()) == ["blitzboard.db"]  # no temporary left

    before = {game["id"]: 0 for game in games}
    acknowledged = dict(before)
    for when, game_id, rounds in acks:
        acknowledged[game_id] = max(acknowledged[game_id], rounds)
        if when < started:
            before[game_id] = max(before[game_id], rounds)
    app = restored(target)
    try:
        with TestClient(app) as client:
            ready = client.get("/readyz")
            assert ready.status_code == 200, ready.text  # the backup is at the newest migration
            for game in games:
                answer = client.get(game_url(game["id"]))
                assert answer.status_code == 200, answer.text
                body = answer.json()
                # Every round acknowledged before the backup began, and none that was never saved.
                assert before[game["id"]] <= len(body["rounds"]) <= acknowledged[game["id"]]
                assert [len(r["scores"]) for r in body["rounds"]] == [2] * len(body["rounds"])
                assert [p["total"] for p in body["players"]] == [0, -2 * len(body["rounds"])]
                assert body["version"] == 1 + len(body["rounds"])
    finally:
        app.state.engine.dispose()


@pytest.mark.server
@SQLITE_ONLY
def test_backup_replaces_an_existing_file_only_with_force(tmp_path: Path, make_game, database_url: str):
    make_game()
    target = tmp_path / "copy.db"
    target.write_bytes(b"last night's backup")

    refused = run_cli("backup", target, database_url=database_url, cwd=tmp_path)
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr == f"blitzboard backup: {target} exists: pass --force to replace it\n"
    assert target.read_bytes() == b"last night's backup"

    forced = run_cli("backup", target, "--force", database_url=database_url, cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    shown = BACKUP_LINE.match(forced.stdout)
    assert shown and shown["games"] == "1", forced.stdout
    assert forced.stdout.count("\n") == 1  # one line
    app = restored(target)
    try:
        with Session(app.state.engine) as session:
            assert session.exec(select(func.count()).select_from(Game)).one() == 1
    finally:
        app.state.engine.dispose()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.server
@SQLITE_ONLY
def test_backup_says_where_the_secret_is_and_copies_it_when_asked(
    tmp_path: Path, client: TestClient, make_game, database_url: str
):
    game = make_game()
    retry = game.auth | {"Idempotency-Key": "round-1"}
    first = client.post(game_url(game.id, "/rounds"), json=game.scores(SMALL_ROUND), headers=retry)
    assert first.status_code == 201, first.text
    secret = Path(f"{make_url(database_url).database}.secret")  # beside the database, made when the app started
    (tmp_path / "plain").mkdir()
    (tmp_path / "kept").mkdir()

    plain = run_cli("backup", tmp_path / "plain" / "blitzboard.db", database_url=database_url, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.rstrip("\n").endswith(
        f"server secret not copied: keep {secret} apart from the backup (or pass --with-secret)"
    )
    assert not (tmp_path / "plain" / "blitzboard.db.secret").exists()

    target = tmp_path / "kept" / "blitzboard.db"
    kept = run_cli("backup", target, "--with-secret", database_url=database_url, cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    copy = Path(f"{target}.secret")
    assert kept.stdout.rstrip("\n").endswith(f"server secret copied to {copy} (mode 0600)")
    assert copy.read_bytes() == secret.read_bytes()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600

    # PATH.secret is where the restored database looks for its secret, so a retry of a save made
    # before the backup is still recognised: the first answer again, and no second round.
    app = restored(target)
    try:
        with TestClient(app) as again:
            replay = again.post(game_url(game.id, "/rounds"), json=game.scores(SMALL_ROUND), headers=retry)
            assert replay.status_code == 201 and replay.json() == first.json()
            assert len(again.get(game_url(game.id)).json()["rounds"]) == 1
    finally:
        app.state.engine.dispose()

    again = run_cli("backup", target, "--with-secret", database_url=database_url, cwd=tmp_path)
    assert again.returncode == 1 and "exists: pass --force" in again.stderr


@SQLITE_ONLY
def test_backup_follows_the_secret_file_setting(tmp_path: Path):
    # BLITZBOARD_SECRET_FILE keeps the secret apart from the database (docs/security.md): the backup says
    # where that is, and --with-secret copies that file, never one left beside the database.
    database = tmp_path / "data" / "blitzboard.db"
    database.parent.mkdir()
    url = migrated(f"sqlite:///{database}")
    apart = tmp_path / "secrets" / "blitzboard.secret"
    settings = Settings(database_url=url, secret_file=str(apart), _env_file=None, tune_gc=False)
    create_app(settings).state.engine.dispose()  # the server's first start makes the secret there
    Path(f"{database}.secret").write_text("a stale copy left beside the database\n")
    (tmp_path / "backups").mkdir()

    plain = maintenance.backup(settings, tmp_path / "backups" / "plain.db")
    assert plain.endswith(f"server secret not copied: keep {apart} apart from the backup (or pass --with-secret)")
    assert not Path(f"{tmp_path / 'backups' / 'plain.db'}.secret").exists()

    target = tmp_path / "backups" / "kept.db"
    kept = maintenance.backup(settings, target, with_secret=True)
    assert kept.endswith(f"server secret copied to {target}.secret (mode 0600)")
    assert Path(f"{target}.secret").read_bytes() == apart.read_bytes()
    assert stat.S_IMODE(Path(f"{target}.secret").stat().st_mode) == 0o600


@pytest.mark.server
def test_backup_refuses_what_it_cannot_copy(tmp_path: Path):
    missing = run_cli("backup", tmp_path / "b.db", database_url=f"sqlite:///{tmp_path / 'none.db'}", cwd=tmp_path)
    assert missing.returncode == 1
    assert missing.stderr == f"blitzboard backup: there is no database at {tmp_path / 'none.db'}\n"
    assert not (tmp_path / "none.db").exists() and not (tmp_path / "b.db").exists()

    keyed = run_cli(
        "backup",
        tmp_path / "b.db",
        "--with-secret",
        database_url=f"sqlite:///{tmp_path / 'none.db'}",
        cwd=tmp_path,
        BLITZBOARD_SECRET_KEY="k" * 40,
    )
    assert keyed.returncode == 1 and "BLITZBOARD_SECRET_KEY" in keyed.stderr and "k" * 40 not in keyed.stderr


# --- backup on PostgreSQL: the pg_dump line --------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "env", "uri", "placeholder"),
    [
        (
            f"postgresql://blitz:{PASSWORD}@db.invalid:5432/blitzboard",
            {},
            "postgresql://blitz@db.invalid:5432/blitzboard",
            True,
        ),
        (
            f"postgres://blitz:{PASSWORD}@db.invalid/blitzboard?sslmode=require",
            {"PGPASSWORD": PASSWORD},  # pg_dump reads it from there: no placeholder
            "postgresql://blitz@db.invalid/blitzboard?sslmode=require",
            False,
        ),
        (
            f"postgresql+psycopg://blitz@db.invalid/blitzboard?password={PASSWORD}&sslmode=require",
            {},
            "postgresql://blitz@db.invalid/blitzboard?sslmode=require",
            True,
        ),
        ("postgresql://blitz@db.invalid:5432/blitzboard", {}, "postgresql://blitz@db.invalid:5432/blitzboard", False),
    ],
)
@pytest.mark.server
def test_on_postgresql_backup_prints_the_pg_dump_line_without_the_password(
    tmp_path: Path, url: str, env: dict[str, str], uri: str, placeholder: bool
):
    target = tmp_path / "blitz board.dump"
    # db.invalid never resolves: the line is printed without reaching any server.
    result = run_cli("backup", target, database_url=url, cwd=tmp_path, **env)
    assert result.returncode == 0, result.stderr
    assert PASSWORD not in result.stdout + result.stderr
    assert len(result.stdout.splitlines()) == 1
    words = shlex.split(result.stdout, comments=True)
    expected = ["pg_dump", "--format=custom", f"--file={target}", uri]
    assert words == (["PGPASSWORD=<password>", *expected] if placeholder else expected)
    assert f"no server secret file at {tmp_path / 'blitzboard.secret'} yet" in result.stdout.split("  # ", 1)[1]
    assert not target.exists()


@pytest.mark.server
@pytest.mark.skipif(not on_postgres(), reason="needs PostgreSQL; runs in the PostgreSQL pass")
def test_the_printed_pg_dump_line_dumps_the_database(tmp_path: Path, make_game, database_url: str):
    if shutil.which("pg_dump") is None:
        missing_tool("pg_dump (Debian's postgresql-client) is not installed")
    make_game()
    target = tmp_path / "blitzboard.dump"
    printed = run_cli("backup", target, database_url=database_url, cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    subprocess.run(printed.stdout, shell=True, check=True, cwd=tmp_path, timeout=WAIT_SECONDS)
    assert target.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format, for pg_restore


# --- prune -----------------------------------------------------------------------------------------

TABLES = {
    "game": Game,
    "player": Player,
    "round": Round,
    "round_score": RoundScore,
    "idempotency_record": IdempotencyRecord,
    "round_change": RoundChange,
}


def footprint(app: FastAPI, game_id: str) -> dict[str, int]:
    """The rows a game owns in every table: its own, its players', rounds', scores' and replay records."""
    with Session(app.state.engine) as session:
        creations = session.exec(
            select(IdempotencyRecord.snapshot).where(IdempotencyRecord.scope == NEW_GAME_SCOPE)
        ).all()

        def count(query) -> int:
            return session.exec(query).one()

        return {
            "game": count(select(func.count()).select_from(Game).where(Game.id == game_id)),
            "player": count(select(func.count()).select_from(Player).where(Player.game_id == game_id)),
            "round": count(select(func.count()).select_from(Round).where(Round.game_id == game_id)),
            "round_score": count(
                select(func.count())
                .select_from(RoundScore)
                .join(Round, Round.id == RoundScore.round_id)
                .where(Round.game_id == game_id)
            ),
            "idempotency_record": count(
                select(func.count()).select_from(IdempotencyRecord).where(IdempotencyRecord.scope == game_id)
            )
            + sum(1 for blob in creations if snapshot_game_id(blob) == game_id),
            "round_change": count(select(func.count()).select_from(RoundChange).where(RoundChange.game_id == game_id)),
        }


def table_sizes(app: FastAPI) -> dict[str, int]:
    with Session(app.state.engine) as session:
        return {name: session.exec(select(func.count()).select_from(model)).one() for name, model in TABLES.items()}


def last_changed(app: FastAPI, game_id: str, days_ago: float) -> None:
    with Session(app.state.engine) as session:
        when = utcnow() - timedelta(days=days_ago)
        session.exec(update(Game).where(Game.id == game_id).values(created_at=when, updated_at=when))
        session.commit()


def new_game(client: TestClient, idempotency_key: str | None = None) -> dict[str, Any]:
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    answer = client.post(f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS}, headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def save_round(client: TestClient, game: dict[str, Any], idempotency_key: str | None = None) -> None:
    headers = {"Authorization": f"Bearer {game['edit_key']}"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    ids = [p["id"] for p in game["players"]]
    answer = client.post(game_url(game["id"], "/rounds"), json=round_body(ids, SMALL_ROUND), headers=headers)
    assert answer.status_code == 201, answer.text


def change_rules(client: TestClient, game: dict[str, Any]) -> None:
    """A change in the game's log (app.games.changes)."""
    headers = {"Authorization": f"Bearer {game['edit_key']}"}
    answer = client.patch(game_url(game["id"]), json={"rules": {"target": 90}}, headers=headers)
    assert answer.status_code == 200, answer.text


def test_prune_deletes_the_old_games_with_every_row_they_own_and_keeps_the_rest(
    app: FastAPI, client: TestClient, settings: Settings
):
    old = new_game(client, "old-game")  # with replay records of its creation and of a save
    save_round(client, old, "old-round")
    save_round(client, old)
    change_rules(client, old)
    abandoned = new_game(client)  # never played
    recent = new_game(client, "recent-game")
    save_round(client, recent, "recent-round")
    change_rules(client, recent)
    revived = new_game(client)  # made long ago, changed today: a save bumps its last change
    last_changed(app, old["id"], 31)
    last_changed(app, abandoned["id"], 400)
    last_changed(app, revived["id"], 60)
    save_round(client, revived)
    last_changed(app, recent["id"], 29)

    games = {g["id"]: g for g in (old, abandoned, recent, revived)}
    owned = {game_id: footprint(app, game_id) for game_id in games}
    assert owned[old["id"]] == {
        "game": 1,
        "player": 4,
        "round": 2,
        "round_score": 8,
        "idempotency_record": 2,
        "round_change": 1,
    }
    sizes = table_sizes(app)
    assert sizes == {table: sum(rows[table] for rows in owned.values()) for table in TABLES}

    assert prune(settings, 30, dry_run=True).startswith("would delete 2 games not changed for 30 days (since ")
    assert {game_id: footprint(app, game_id) for game_id in games} == owned
    assert table_sizes(app) == sizes

    assert prune(settings, 30).startswith("deleted 2 games not changed for 30 days (since ")
    for gone in (old, abandoned):
        assert set(footprint(app, gone["id"]).values()) == {0}
        assert client.get(game_url(gone["id"])).status_code == 404
    kept = (recent, revived)
    for game in kept:
        assert footprint(app, game["id"]) == owned[game["id"]]
        assert len(client.get(game_url(game["id"])).json()["rounds"]) == 1
    # No orphans anywhere: every row left belongs to a game that is left.
    assert table_sizes(app) == {table: sum(owned[g["id"]][table] for g in kept) for table in TABLES}
    # The kept games' replay records still answer.
    replay = client.post(
        f"{API}/games", json={"players": WORKED_EXAMPLE_PLAYERS}, headers={"Idempotency-Key": "recent-game"}
    )
    assert replay.status_code == 201 and replay.json()["id"] == recent["id"]

    assert prune(settings, 30).startswith("deleted 0 games ")
    assert prune(settings, 1).startswith("deleted 1 game not changed for 1 day (since ")  # recent, 29 days
    assert table_sizes(app)["game"] == 1


def test_prune_gives_the_write_lock_back_between_batches_and_reads_no_replay_record(
    app: FastAPI, client: TestClient, settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    """Each batch is a short write transaction of its own, and between two the write lock is free: a save
    gets in there (on SQLite, a save while a batch held the lock would wait out the busy timeout and fail).
    No batch reads a replay record: a game's, its creation's too, are found by the game's index."""
    old = [new_game(client, f"old-{n}") for n in range(3)]
    for game in old:
        save_round(client, game, f"old-round-{game['id']}")
        last_changed(app, game["id"], 31)
    keeper = new_game(client, "keeper")
    games_left_between: list[int] = []
    batches = 0

    def a_save_before_each_later_batch(session, work, **options):
        nonlocal batches
        batches += 1
        if batches > 1:
            save_round(client, keeper)
            games_left_between.append(table_sizes(app)["game"])
        return write_transaction(session, work, **options)

    monkeypatch.setattr(maintenance, "write_transaction", a_save_before_each_later_batch)
    prune_statements: list[str] = []

    def note(connection, _cursor, statement, *_args) -> None:
        if connection.engine is not app.state.engine:  # prune's own engine
            prune_statements.append(" ".join(statement.split()))

    event.listen(Engine, "before_cursor_execute", note)
    try:
        assert prune(settings, 30, batch_size=1).startswith("deleted 3 games ")
    finally:
        event.remove(Engine, "before_cursor_execute", note)
    assert games_left_between == [3, 2]  # a save after the first batch and after the second; the third was last
    assert len(client.get(game_url(keeper["id"])).json()["rounds"]) == 2
    touching_records = [s for s in prune_statements if "idempotency_record" in s]
    assert touching_records and all(s.startswith("DELETE ") for s in touching_records), touching_records
    assert table_sizes(app) == footprint(app, keeper["id"])  # every row left is the keeper's


@pytest.mark.server
def test_prune_from_the_command_line(tmp_path: Path, app: FastAPI, client: TestClient, database_url: str):
    old, fresh = new_game(client), new_game(client)
    save_round(client, old)
    last_changed(app, old["id"], 8)

    dry = run_cli("prune", "--older-than", "7", "--dry-run", database_url=database_url, cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert re.fullmatch(
        r"would delete 1 game not changed for 7 days \(since \d{4}-\d\d-\d\d \d\d:\d\d UTC\) \(dry run: nothing deleted\)\n",
        dry.stdout,
    ), dry.stdout
    assert client.get(game_url(old["id"])).status_code == 200

    done = run_cli("prune", "--older-than", "7", database_url=database_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("deleted 1 game not changed for 7 days") and done.stdout.count("\n") == 1
    assert client.get(game_url(old["id"])).status_code == 404
    assert client.get(game_url(fresh["id"])).status_code == 200

    for days in ("0", "-3", "soon"):
        refused = run_cli("prune", "--older-than", days, database_url=database_url, cwd=tmp_path)
        assert refused.returncode == 2 and "--older-than" in refused.stderr, refused.stderr
    assert client.get(game_url(fresh["id"])).status_code == 200


@pytest.mark.server
def test_prune_refuses_a_database_that_is_not_migrated(tmp_path: Path):
    result = run_cli("prune", "--older-than", "30", database_url=f"sqlite:///{tmp_path / 'new.db'}", cwd=tmp_path)
    assert result.returncode == 1
    assert "run `blitzboard migrate` first" in result.stderr
