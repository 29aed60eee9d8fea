"""The README keeps up with the code (in the style of datasette's tests/test_docs.py).

Every setting in app/config.py's Settings has a row in the README's configuration table, under the
environment variable name(s) it is read from, and every route under /api/v1 in the OpenAPI document
has a row in the README's API table; neither table names something that is not there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import AliasChoices

from app.config import Settings

README = Path(__file__).resolve().parent.parent / "README.md"
API_PREFIX = "/api/v1"
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


def section(heading: str) -> str:
    """The README's text under `## heading`, up to the next heading of that level."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", README.read_text(), re.M | re.S)
    assert match, f"the README has no '## {heading}' section"
    return match.group(1)


def first_cells(heading: str) -> list[str]:
    """The first cell of every body row of the tables in a README section."""
    cells = []
    for line in section(heading).splitlines():
        if not line.startswith("|") or re.fullmatch(r"\|[\s|:-]+\|?", line):
            continue  # not a table row, or the |---| separator
        cells.append(line.split("|")[1].strip())
    return cells[1:] if cells else cells  # the header row


def documented_variables() -> set[str]:
    """Every `NAME` the configuration table's first column names (one row may name two)."""
    return {name for cell in first_cells("Configuration") for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", cell)}


def env_names(field_name: str) -> list[str]:
    """The environment variables a setting is read from: its aliases, or BLITZBOARD_<NAME>."""
    alias = Settings.model_fields[field_name].validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    if isinstance(alias, str):
        return [alias]
    return [f"{Settings.model_config['env_prefix']}{field_name}".upper()]


def normalized(method: str, path: str) -> str:
    # The README writes {id} where the code says {game_id}: only the position of a parameter counts.
    return method.upper() + " " + re.sub(r"\{[^}]*\}", "{}", path)


def documented_routes() -> set[str]:
    routes = set()
    for cell in first_cells("The API"):
        match = re.fullmatch(r"`([A-Z]+) (/\S+)`", cell)
        assert match, f"a row of the README's API table does not start with `METHOD /path`: {cell}"
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
def test_setting_is_in_the_readme(setting: str):
    missing = [name for name in env_names(setting) if name not in documented_variables()]
    assert not missing, f"the README's configuration table has no row for {', '.join(missing)}"


def test_the_readme_documents_only_real_settings():
    real = {name for setting in Settings.model_fields for name in env_names(setting)}
    assert documented_variables() - real == set()


def test_every_api_route_is_in_the_readme(app: FastAPI):
    routes = api_routes(app)
    assert routes, "no /api/v1 routes in the OpenAPI document"
    assert sorted(routes - documented_routes()) == [], "API routes missing from the README's API table"


def test_the_readme_documents_only_real_api_routes(app: FastAPI):
    assert sorted(documented_routes() - api_routes(app)) == []
