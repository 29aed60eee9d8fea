"""The catalogs say each word of the product and of its games the one way the glossary
(locales/glossary.toml) decides: a catalog entry whose English msgid holds a glossary term must hold
the glossary's Russian and German form, unless the glossary lists it as a deliberate exception with
its reason. docs/glossary.md is written from the same file; run this module to write it:
    .venv/bin/python tests/web/test_glossary.py
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "locales" / "glossary.toml"
DOC = ROOT / "docs" / "glossary.md"
LANGS = ("ru", "de")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")


def glossary() -> dict:
    with GLOSSARY.open("rb") as source:
        return tomllib.load(source)


def entries(lang: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(context, English forms, translated forms) of each catalog entry."""
    with (ROOT / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as source:
        cat = read_po(source, locale=lang)
    out = []
    for m in cat:
        if not m.id:
            continue
        ids = (m.id,) if isinstance(m.id, str) else tuple(m.id)
        strings = (m.string,) if isinstance(m.string, str) else tuple(m.string)
        out.append((m.context, ids, strings))
    return out


def mismatches(lang: str, data: dict) -> tuple[list[str], set[tuple[str, str]]]:
    """Each entry translating a term another way, and the exceptions that were needed."""
    excepted = {(e["term"], e["msgid"]) for e in data.get("exception", []) if e["lang"] == lang}
    wrong, used = [], set()
    for _context, ids, strings in entries(lang):
        english = " ".join(PLACEHOLDER.sub(" ", i) for i in ids)
        for term in data["term"]:
            if not re.search(term["en_match"], english, re.I):
                continue
            if all(re.search(term[f"{lang}_match"], s, re.I) for s in strings):
                continue
            if (term["en"], ids[0]) in excepted:
                used.add((term["en"], ids[0]))
                continue
            wrong.append(f"{term['en']!r}: {ids[0]!r} -> {' | '.join(strings)!r}")
    return wrong, used


@pytest.mark.parametrize("lang", LANGS)
def test_every_entry_says_each_term_as_the_glossary_does(lang: str):
    data = glossary()
    wrong, _ = mismatches(lang, data)
    assert wrong == [], f"{lang}: a glossary term said another way (fix it, or add an exception with its reason)"


@pytest.mark.parametrize("lang", LANGS)
def test_every_exception_has_a_reason_and_is_still_needed(lang: str):
    data = glossary()
    exceptions = [e for e in data.get("exception", []) if e["lang"] == lang]
    assert all(e.get("reason", "").strip() for e in exceptions)
    assert {e["term"] for e in exceptions} <= {t["en"] for t in data["term"]}
    _, used = mismatches(lang, data)
    assert sorted({(e["term"], e["msgid"]) for e in exceptions} - used) == [], "no longer needed: remove it"


def test_each_term_matches_itself():
    """A term's patterns find its own glossary forms: a pattern with a typo finds nothing anywhere."""
    for term in glossary()["term"]:
        assert re.search(term["ru_match"], term["ru"], re.I), term["en"]
        assert re.search(term["de_match"], term["de"], re.I), term["en"]


def render(data: dict) -> str:
    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    lines = [
        "# Glossary",
        "",
        "The words of Blitzboard and of its games in English, Russian and German. Written from",
        "`locales/glossary.toml` by `.venv/bin/python tests/web/test_glossary.py`: change the TOML file,",
        "then run that. `tests/web/test_glossary.py` checks every catalog entry against it: an entry whose",
        "English text holds a term must use the Russian and German form below, or be listed as an exception",
        "with its reason.",
        "",
        "Register: Russian uses «вы» (lower case) and gender-neutral phrasing (no «закончил(а)», «его (её)»);",
        "German uses „du“, and a full sentence after a colon starts with a capital letter.",
        "",
        "| English | Russian | German | Note |",
        "|---|---|---|---|",
    ]
    for term in data["term"]:
        lines.append(f"| {cell(term['en'])} | {cell(term['ru'])} | {cell(term['de'])} | {cell(term.get('note', ''))} |")
    exceptions = data.get("exception", [])
    if exceptions:
        lines += ["", "## Deliberate exceptions", "", "| Term | Language | Message | Why |", "|---|---|---|---|"]
        for e in exceptions:
            lines.append(f"| {cell(e['term'])} | {e['lang']} | {cell(e['msgid'])} | {cell(e['reason'])} |")
    return "\n".join(lines) + "\n"


def test_the_document_is_written_from_the_glossary():
    assert DOC.read_text(encoding="utf-8") == render(glossary()), "run: .venv/bin/python tests/web/test_glossary.py"


if __name__ == "__main__":
    DOC.write_text(render(glossary()), encoding="utf-8")
    sys.exit(0)
