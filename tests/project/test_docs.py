"""The docs keep up with the code (in the style of datasette's tests/test_docs.py).

Every setting in app/config.py's Settings has a row in docs/operations.md's settings table, under the
environment variable name(s) it is read from, and every route under /api/v1 in the OpenAPI document
has a row in docs/api.md's route table; neither table names something that is not there. The
README's few settings are rows of the full table, the README stays a page a newcomer reads, and every
link in the README and docs/ leads to a file (and a heading) that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import AliasChoices

from app.config import Settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
API_DOC = ROOT / "docs" / "api.md"
OPERATIONS = ROOT / "docs" / "operations.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
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


def test_the_readme_stays_a_page_a_newcomer_reads():
    # References live in docs/; the README says what Blitzboard is, how to run it and where to read on.
    assert len(README.read_text().splitlines()) <= 250


# Links: [text](target) and ![alt](target), in the text outside code; a target may end in #anchor.
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(doc: Path) -> str:
    return FENCE.sub("", doc.read_text())


def anchors(doc: Path) -> set[str]:
    """The #anchors GitHub gives the page's headings: lowercase, punctuation dropped, spaces to hyphens."""
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+?)#*\s*$", prose(doc), re.M):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        unique, n = slug, 0
        while unique in found:  # a second heading of the same words gets -1, a third -2
            n += 1
            unique = f"{slug}-{n}"
        found.add(unique)
    return found


def local_links(doc: Path) -> list[str]:
    targets = LINK.findall(CODE_SPAN.sub("``", prose(doc)))
    return [target for target in targets if not re.match(r"[a-z][a-z+.-]*:", target)]


def test_the_link_checks_find_links_and_headings():
    assert len(local_links(README)) >= 10 and len(local_links(API_DOC)) >= 3
    assert {"two-commands", "configuration"} <= anchors(README)
    assert {"routes", "a-tables-standings-and-head-to-head", "backup-export-and-import"} <= anchors(API_DOC)


@pytest.mark.parametrize("doc", PAGES, ids=lambda doc: doc.relative_to(ROOT).as_posix())
def test_every_local_link_leads_somewhere(doc: Path):
    broken = []
    for target in local_links(doc):
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target} (no such heading in {file.relative_to(ROOT).as_posix()})")
    assert broken == [], f"{doc.relative_to(ROOT).as_posix()} links to what is not there"
