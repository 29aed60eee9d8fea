"""The docs keep up with the code (in the style of datasette's tests/test_docs.py).

Every setting in app/config.py's Settings has a row in docs/operations.md's settings table, under the
environment variable name(s) it is read from, and every route under /api/v1 in the OpenAPI document
has a row in docs/api.md's route table; neither table names something that is not there. The
README's few settings are rows of the full table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import AliasChoices

from app.config import Settings

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
API_DOC = ROOT / "docs" / "api.md"
OPERATIONS = ROOT / "docs" / "operations.md"
API_PREFIX = "/api/v1"
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


def section(doc: Path, heading: str) -> str:
    """A page's text under `## heading`, up to the next heading of that level."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", doc.read_text(), re.M | re.S)
    assert match, f"{doc.name} has no '## {heading}' section"
    return match.group(1)


def table_rows(doc: Path, heading: str) -> list[str]:
    """Every body row of the tables in a section, as written."""
    rows = [line.strip() for line in section(doc, heading).splitlines() if line.startswith("|")]
    # Not the header row, nor the |---| separator under it.
    return [row for row in rows if not re.fullmatch(r"\|[\s|:-]+\|?", row)][1:]


def first_cells(doc: Path, heading: str) -> list[str]:
    """The first cell of every body row of the tables in a section."""
    return [row.split("|")[1].strip() for row in table_rows(doc, heading)]


def documented_variables() -> set[str]:
    """Every `NAME` the settings table's first column names (one row may name two)."""
    cells = first_cells(OPERATIONS, "Settings")
    return {name for cell in cells for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", cell)}


def env_names(field_name: str) -> list[str]:
    """The environment variables a setting is read from: its aliases, or BLITZBOARD_<NAME>."""
    alias = Settings.model_fields[field_name].validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    if isinstance(alias, str):
        return [alias]
    return [f"{Settings.model_config['env_prefix']}{field_name}".upper()]


def normalized(method: str, path: str) -> str:
    # The docs write {id} where the code says {game_id}: only the position of a parameter counts.
    return method.upper() + " " + re.sub(r"\{[^}]*\}", "{}", path)


def documented_routes() -> set[str]:
    routes = set()
    for cell in first_cells(API_DOC, "Routes"):
        match = re.fullmatch(r"`([A-Z]+) (/\S+)`", cell)
        assert match, f"a row of docs/api.md's route table does not start with `METHOD /path`: {cell}"
        routes.add(normalized(*match.groups()))
    return routes


def api_routes(app: FastAPI) -> set[str]:
    return {
        normalized(method, path)
        for path, operations in app.openapi()["paths"].items()
        if path.startswith(API_PREFIX + "/") or path == API_PREFIX
        for method in operations
        if method in HTTP_METHODS
    }


def test_the_tables_are_found():
    # A renamed heading or a reformatted table must not make the tests below pass on nothing.
    assert len(documented_variables()) >= 10
    assert len(documented_routes()) >= 5


@pytest.mark.parametrize("setting", sorted(Settings.model_fields))
def test_setting_is_in_the_settings_table(setting: str):
    missing = [name for name in env_names(setting) if name not in documented_variables()]
    assert not missing, f"docs/operations.md's settings table has no row for {', '.join(missing)}"


def test_the_settings_table_documents_only_real_settings():
    real = {name for setting in Settings.model_fields for name in env_names(setting)}
    assert documented_variables() - real == set()


def test_the_readmes_settings_are_rows_of_the_full_table():
    # The README shows a few settings as the full table has them, so the two never disagree.
    essentials = table_rows(README, "Configuration")
    assert essentials, "the README's Configuration section has no table"
    assert set(essentials) - set(table_rows(OPERATIONS, "Settings")) == set()


def test_every_api_route_is_in_the_api_docs(app: FastAPI):
    routes = api_routes(app)
    assert routes, "no /api/v1 routes in the OpenAPI document"
    assert sorted(routes - documented_routes()) == [], "API routes missing from docs/api.md's route table"


def test_the_api_docs_document_only_real_api_routes(app: FastAPI):
    assert sorted(documented_routes() - api_routes(app)) == []
