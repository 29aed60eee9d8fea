"""The shape of the code, as rules that stay true (docs/architecture.md draws it).

The app is a package of wings (app/rules/, app/games/, app/tables/, app/backup/, app/http/, app/web/,
app/routes/) over a few shared modules. scripts/imports-map draws the imports as rooms and floors;
these tests hold what must not drift: no cycle between rooms, the rules pure, the use cases free of
HTTP, the pages free of use cases, the routes reaching the use cases only through routes.deps, the write
transaction written once, and every module on the map.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
FRAMEWORKS = ("fastapi", "sqlmodel", "sqlalchemy", "starlette", "pydantic", "pydantic_settings")
USE_CASE_WINGS = ("games", "tables", "backup")


def _imports_map():
    loader = importlib.machinery.SourceFileLoader("imports_map", str(ROOT / "scripts" / "imports-map"))
    spec = importlib.util.spec_from_loader("imports_map", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


imports_map = _imports_map()


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (`from app import x` names app.x too)."""
    return imports_map.imports(path)


def modules_of(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (APP / folder).rglob("*.py"))


def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, wing: str = "rules") -> Path:
    """A module app/<wing>/probe.py in a copy of the tree's shape under tmp_path, read as if it were ours
    (never imported, and never inside the real app/, which other workers are collecting)."""
    monkeypatch.setattr(imports_map, "ROOT", tmp_path)
    path = tmp_path / "app" / wing / "probe.py"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_import_reader_sees_every_kind_of_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    text = (
        "import os\nfrom fastapi import FastAPI\nimport sqlalchemy.orm as orm\n"
        "def f():\n    from app.db import engine\n    from . import cards\n    from ..games import views\n"
    )
    found = imported_modules(probe(tmp_path, monkeypatch, text))
    assert {"os", "fastapi", "sqlalchemy.orm", "app.db", "app.rules.cards", "app.games.views"} <= found


def test_the_rooms_have_no_cycle_and_every_wing_is_one():
    _, floors = imports_map.drawing()  # a cycle raises SystemExit with the rooms on it
    rooms = {room for floor in floors for room in floor}
    assert {"rules", "games", "tables", "backup", "http", "web", "routes"} <= rooms
    # A cycle is caught: the drawing of two rooms that import each other fails.
    with pytest.raises(SystemExit, match="cycle"):
        imports_map.floors({"a": {"b"}, "b": {"a"}})


@pytest.mark.parametrize("path", modules_of("rules"), ids=lambda p: p.name)
def test_the_rules_import_no_framework_and_nothing_of_the_app_outside_them(path: Path):
    imports = imported_modules(path)
    assert not [m for m in imports if m.split(".")[0] in FRAMEWORKS], path
    assert all(m == "app.rules" or m.startswith("app.rules.") for m in imports if m.split(".")[0] == "app"), (
        path,
        sorted(imports),
    )


@pytest.mark.parametrize(
    "path", [*modules_of(*USE_CASE_WINGS), APP / "idempotency.py"], ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_use_cases_import_nothing_from_http(path: Path):
    assert not [m for m in imported_modules(path) if m == "app.http" or m.startswith("app.http.")], path


USE_CASE_MODULES = ("app.games.usecases", "app.tables.usecases", "app.backup.usecases", "app.db")
SKELETON = ("begin_write", "serial_writes")  # the parts of app.db.write_transaction


def use_cases_reached(path: Path) -> list[str]:
    """What a module imports of the use cases and the database session (app.db) directly."""
    return sorted(m for m in imported_modules(path) if m in USE_CASE_MODULES)


@pytest.mark.parametrize(
    "path", [p for p in modules_of("routes") if p.name != "deps.py"], ids=lambda p: str(p.relative_to(ROOT))
)
def test_route_modules_reach_the_use_cases_only_through_routes_deps(path: Path):
    assert use_cases_reached(path) == [], path
    # and reach no other route module: what two share lives in routes.deps (or below the routes)
    others = sorted(
        m
        for m in imported_modules(path)
        if m.startswith("app.routes.") and m != "app.routes.deps" and not m.startswith("app.routes.deps.")
    )
    assert others == [], path


def skeleton_names(path: Path) -> set[str]:
    """The names of the write transaction's parts a module uses (called, imported or reached as attributes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    return names & set(SKELETON)


@pytest.mark.parametrize("path", [p for p in sorted(APP.rglob("*.py")) if p != APP / "db.py"], ids=lambda p: p.name)
def test_the_write_transaction_is_written_once(path: Path):
    # Games, tables, creation, the imports and prune compose app.db.write_transaction; none repeats its skeleton.
    assert skeleton_names(path) == set(), path


def test_the_route_and_skeleton_checks_catch_a_breach(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    text = "from app.games.usecases import Games\nfrom app.db import begin_write, serial_writes\n"
    path = probe(tmp_path, monkeypatch, text)
    assert use_cases_reached(path) == ["app.db", "app.games.usecases"]
    assert skeleton_names(path) == {"begin_write", "serial_writes"}
    with pytest.raises(AssertionError):
        test_route_modules_reach_the_use_cases_only_through_routes_deps(
            probe(tmp_path / "other", monkeypatch, "from app.routes import api\n", wing="routes")
        )


@pytest.mark.parametrize("text", ["from app.db import begin_write\n", "import sqlmodel\n", "from app import i18n\n"])
def test_the_rules_check_catches_an_import_of_the_app_or_a_framework(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
):
    with pytest.raises(AssertionError):
        test_the_rules_import_no_framework_and_nothing_of_the_app_outside_them(probe(tmp_path, monkeypatch, text))


def _use_cases() -> set[str]:
    """The use cases: every module of the use-case wings that opens a write (it imports app.db, where a
    write transaction begins), those named here, and the log's reading and recording in app.games.changes,
    which take the use case's session (its Change and why_not are plain data a page may read)."""
    opening = {imports_map.module_name(p) for p in modules_of(*USE_CASE_WINGS) if "app.db" in imported_modules(p)}
    return opening | {
        "app.games.usecases",
        "app.games.keeping",
        "app.games.reverts",
        "app.games.writes",
        "app.games.changes.read_changes",
        "app.games.changes.log_correction",
        "app.games.changes.log_deletion",
        "app.games.changes.log_restoration",
        "app.games.changes.log_rules",
        "app.tables.usecases",
        "app.backup.usecases",
        "app.backup.writes",
    }


USE_CASES = _use_cases()  # read once, from the real tree (the probes below move imports_map's ROOT)


@pytest.mark.parametrize("path", modules_of("web"), ids=lambda p: p.name)
def test_web_imports_no_use_case_module(path: Path):
    """A page is built from the data its route read from the use case (app.web.context.GameData), so a
    render never re-enters a use case or its session."""
    found = [m for m in imported_modules(path) if m in USE_CASES or any(m.startswith(u + ".") for u in USE_CASES)]
    assert found == [], path


@pytest.mark.parametrize(
    "text",
    [
        "from app.games.usecases import Games\n",
        "from app.tables import usecases\n",
        "from app.games.changes import read_changes\n",
        "def f():\n    from app.backup.usecases import Backups\n",
    ],
)
def test_the_web_check_catches_an_import_of_a_use_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str):
    with pytest.raises(AssertionError):
        test_web_imports_no_use_case_module(probe(tmp_path, monkeypatch, text, wing="web"))


def test_the_map_shows_the_drawing_as_it_is():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "```\n" + imports_map.render(*imports_map.drawing()) + "\n```" in doc, "run scripts/imports-map"


def test_every_module_of_the_app_has_a_line_on_the_map():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [
        str(p.relative_to(ROOT))
        for p in sorted(APP.rglob("*.py"))
        if p.name != "__init__.py" and f"`{p.relative_to(ROOT)}`" not in doc
    ]
    assert missing == []
    # A wing is on the map by its folder, and says what lives in it in its own docstring.
    for wing in ("rules", "games", "tables", "backup", "http", "web", "routes"):
        assert f"`app/{wing}/`" in doc, wing
        assert ast.get_docstring(ast.parse((APP / wing / "__init__.py").read_text(encoding="utf-8"))), wing
