"""The package as a deployer gets it: a wheel that runs by itself, outside the source tree, and a CLI that
says what it is, what it reads, and what is wrong with a setting in one line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import httpx
import pytest

from tests.servers import running_server

pytestmark = pytest.mark.release

ROOT = Path(__file__).resolve().parents[2]
VERSION = next(
    line.split('"')[1] for line in (ROOT / "pyproject.toml").read_text().splitlines() if line.startswith("version")
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this tree, installed alone into a fresh virtualenv outside it. Its
    dependencies come from the test environment's site-packages (a path in a .pth file: nothing is
    downloaded, and the tree's own editable install there is not picked up)."""
    base = tmp_path_factory.mktemp("package")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(base / "dist"), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = (base / "dist").glob("blitzboard-*.whl")
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv, "uv is a test dependency"
    subprocess.run([uv, "pip", "install", "--quiet", "--no-deps", "--python", str(python), str(wheel)], check=True)
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    Path(site, "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir


def run(env_dir: Path, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("BLITZBOARD_", "PYTHON"))}
    environment.pop("DATABASE_URL", None)
    return subprocess.run(
        [str(env_dir / "bin" / "blitzboard"), *args], cwd=cwd, env=environment | env, capture_output=True, text=True
    )


def test_the_wheel_carries_templates_static_files_and_migrations(installed: Path, tmp_path: Path):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}  # a PYTHONPATH would find the tree
    where = subprocess.run(
        [installed / "bin" / "python", "-c", "import app, app.config; print(app.__file__); print(app.config.ROOT)"],
        cwd=tmp_path, env=clean, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    package = Path(where[0]).parent
    assert package.is_relative_to(installed) and Path(where[1]) == package  # not the source tree
    parts = ("templates/base.html", "static/app.js", "static/vendor/htmx-2.0.11.min.js", "alembic/env.py")
    parts += ("locales/ru/LC_MESSAGES/messages.po", "locales/de/LC_MESSAGES/messages.po")  # compiled at start-up
    docs = ("templates/api_docs.html", "static/docs.js", "static/vendor/redoc-3.0.1.min.js")  # /docs, /redoc
    for part in parts + docs:
        assert (package / part).is_file(), part
    assert (package / "alembic.ini").is_file()
    assert list((package / "alembic" / "versions").glob("*.py"))


def test_the_installed_cli_migrates_and_serves_outside_the_tree(installed: Path, tmp_path: Path):
    database = f"sqlite:///{tmp_path / 'fresh.db'}"
    migrated = run(installed, "migrate", cwd=tmp_path, BLITZBOARD_DATABASE_URL=database)
    assert migrated.returncode == 0, migrated.stderr
    assert (tmp_path / "fresh.db").exists()

    def command(port: int) -> list[str]:
        return [str(installed / "bin" / "blitzboard"), "serve", "--port", str(port)]

    with running_server(database, tmp_path / "server.log", cwd=tmp_path, command=command) as server:
        start = httpx.get(server.url + "/", timeout=10)
        assert start.status_code == 200 and "Start game" in start.text
        created = httpx.post(server.url + "/api/v1/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}]})
        assert created.status_code == 201, created.text
        game = httpx.get(server.url + f"/g/{created.json()['id']}", timeout=10)
        assert game.status_code == 200 and "Ana" in game.text
        static = httpx.get(server.url + "/static/app.css", timeout=10)
        assert static.status_code == 200 and "--accent" in static.text
        assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200


def test_version_help_and_a_bad_setting(installed: Path, tmp_path: Path):
    version = run(installed, "--version", cwd=tmp_path)
    assert (version.returncode, version.stdout.strip()) == (0, f"blitzboard {VERSION}")
    helped = run(installed, "--help", cwd=tmp_path)
    assert helped.returncode == 0
    for variable in ("BLITZBOARD_DATABASE_URL (or DATABASE_URL)", "BLITZBOARD_LOG_LEVEL", "BLITZBOARD_PUBLIC_URL"):
        assert variable in helped.stdout
    bad = run(installed, "migrate", cwd=tmp_path, BLITZBOARD_LOG_LEVEL="verbose")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("blitzboard: bad setting: BLITZBOARD_LOG_LEVEL:") and "'verbose'" in bad.stderr
    assert not list(tmp_path.glob("*.db"))  # nothing was done


def test_blitzboard_database_url_wins_over_database_url(monkeypatch: pytest.MonkeyPatch):
    from app.config import Settings

    monkeypatch.setenv("BLITZBOARD_DATABASE_URL", "sqlite:///a.db")
    monkeypatch.setenv("DATABASE_URL", "postgresql://db/b")
    assert Settings(_env_file=None).database_url == "sqlite:///a.db"
    monkeypatch.delenv("BLITZBOARD_DATABASE_URL")
    assert Settings(_env_file=None).database_url == "postgresql://db/b"  # what compose sets, used


def test_the_image_sets_no_database_setting_that_would_override_composes():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert not re.search(r"^(ENV\s+)?\s*\S*DATABASE_URL=", dockerfile, re.M)
    assert re.search(r"^WORKDIR /data$", dockerfile, re.M)  # the default SQLite file lands in the volume


def test_the_api_document_carries_the_package_version(client):
    assert client.get("/openapi.json").json()["info"]["version"] == VERSION


def test_uv_lock_matches_pyproject():
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv, "uv is a test dependency"
    checked = subprocess.run([uv, "lock", "--check", "--offline"], cwd=ROOT, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
