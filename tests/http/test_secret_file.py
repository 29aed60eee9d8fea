"""Where the server secret lives (app/sealing.py): BLITZBOARD_SECRET_FILE keeps it apart from the
database, the default layout keeps it where it always was (beside the SQLite file), and a setting that
would put it in the database itself is refused at start-up (docs/security.md, "the server secret")."""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pytest
from fastapi import FastAPI

from app.config import Settings
from app.main import create_app
from app.sealing import Sealer


def started(database: Path, **settings: str) -> FastAPI:
    app = create_app(Settings(database_url=f"sqlite:///{database}", _env_file=None, tune_gc=False, **settings))
    app.state.engine.dispose()
    return app


def made_with(app: FastAPI, secret_file: Path) -> bool:
    """The app's MACs and seals are made under the secret in this file."""
    return app.state.sealer.mac("probe") == Sealer(bytes.fromhex(secret_file.read_text().strip())).mac("probe")


def test_the_secret_file_setting_is_where_start_up_makes_the_secret_with_mode_0600(tmp_path: Path):
    database = tmp_path / "data" / "blitzboard.db"
    database.parent.mkdir()
    apart = tmp_path / "secrets" / "blitzboard.secret"  # another volume, say; made with its folder
    app = started(database, secret_file=str(apart))
    assert stat.S_IMODE(apart.stat().st_mode) == 0o600
    assert made_with(app, apart)
    assert not [p.name for p in database.parent.iterdir() if "secret" in p.name]  # nothing beside the data
    assert made_with(started(database, secret_file=str(apart)), apart)  # the next start reuses it


def test_the_secret_file_setting_is_read_from_the_environment(tmp_path: Path, monkeypatch):
    apart = tmp_path / "elsewhere.secret"
    monkeypatch.setenv("BLITZBOARD_SECRET_FILE", str(apart))
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'blitzboard.db'}", _env_file=None, tune_gc=False))
    app.state.engine.dispose()
    assert made_with(app, apart)
    assert not (tmp_path / "blitzboard.db.secret").exists()


def test_the_default_layout_keeps_its_secret_beside_the_database(tmp_path: Path):
    database = tmp_path / "blitzboard.db"
    beside = tmp_path / "blitzboard.db.secret"
    beside.write_text(secrets.token_hex(32) + "\n")  # a deployment's secret from before
    beside.chmod(0o600)
    kept = beside.read_text()
    assert made_with(started(database), beside)
    assert beside.read_text() == kept

    fresh = tmp_path / "fresh" / "blitzboard.db"
    fresh.parent.mkdir()
    made = started(fresh)
    assert stat.S_IMODE((tmp_path / "fresh" / "blitzboard.db.secret").stat().st_mode) == 0o600
    assert made_with(made, tmp_path / "fresh" / "blitzboard.db.secret")


def test_the_setting_wins_over_a_secret_file_left_beside_the_database(tmp_path: Path):
    # Moving the secret apart: the operator moves the file and sets the setting; a copy left behind is
    # not read (it can then be deleted).
    database = tmp_path / "blitzboard.db"
    (tmp_path / "blitzboard.db.secret").write_text(secrets.token_hex(32) + "\n")
    apart = tmp_path / "apart" / "blitzboard.secret"
    apart.parent.mkdir()
    apart.write_text(secrets.token_hex(32) + "\n")
    assert made_with(started(database, secret_file=str(apart)), apart)


def test_a_secret_file_that_is_the_database_itself_is_refused_at_start_up(tmp_path: Path, monkeypatch):
    database = tmp_path / "blitzboard.db"
    monkeypatch.chdir(tmp_path)
    for named in (str(database), "blitzboard.db", "./sub/../blitzboard.db"):
        with pytest.raises(RuntimeError, match="BLITZBOARD_SECRET_FILE names the database"):
            started(database, secret_file=named)
        assert not database.exists()  # nothing made in its place


def test_a_secret_file_that_is_not_text_is_refused_at_start_up_with_a_clear_message(tmp_path: Path):
    binary = tmp_path / "some.bin"
    binary.write_bytes(b"SQLite format 3\x00\xff\xfe" + bytes(range(256)))
    with pytest.raises(RuntimeError, match=rf"{binary}.*BLITZBOARD_SECRET_FILE"):
        started(tmp_path / "blitzboard.db", secret_file=str(binary))
    assert binary.read_bytes().startswith(b"SQLite format 3")
