"""The catalogs stay complete and honest: every msgid of the code and the templates is in every
language's catalog, translated (all plural forms), with the same placeholders. That no text a person
reads escapes the catalogs is tests/web/test_i18n_templates.py's pseudo-language check."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from app.config import ROOT

TRANSLATED = ("ru", "de")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|\{(\w+)\}")
# Characters a translation must not hold: it is inserted unescaped (marked safe), some of it inside
# an HTML attribute ("..." around it).
UNSAFE = re.compile(r'["<>&]')


def catalog(lang: str) -> Catalog:
    with (ROOT / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source, locale=lang)


def messages(cat: Catalog):
    return [m for m in cat if m.id]


def placeholders(text: str) -> set[str]:
    """Each placeholder with its style: "%(name)s" and "{name}" are not interchangeable."""
    return {f"%({a})" if a else f"{{{b}}}" for a, b in PLACEHOLDER.findall(text)}


def key(message) -> tuple:
    """A message as the code looks it up: its context (pgettext) and its msgid (both forms)."""
    return (message.context, message.id if isinstance(message.id, str) else tuple(message.id))


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Catalog:
    """What scripts/i18n would extract from the code and the templates right now."""
    out = tmp_path_factory.mktemp("pot") / "messages.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [pybabel, "-q", "extract", "-F", "babel.cfg", "-o", str(out), "."],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    with out.open("rb") as source:
        return read_po(source)


def test_the_extraction_finds_the_rule_messages_and_the_templates(extracted: Catalog):
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in messages(extracted)}
    assert "Nobody called Blitz: at least one player must have 0 Blitz cards left." in ids  # scoring.py, N_()
    assert any(any(loc.startswith("templates/") for loc, _ in m.locations) for m in messages(extracted))


@pytest.mark.parametrize("lang", ["en", *TRANSLATED])
def test_every_catalog_holds_exactly_what_the_code_says(extracted: Catalog, lang: str):
    """Run scripts/i18n after adding or changing text: a msgid missing here is shown in English."""
    wanted = {key(m) for m in messages(extracted)}
    held = {key(m) for m in messages(catalog(lang))}
    assert sorted(map(str, wanted - held)) == [], "not in the catalog: run scripts/i18n"
    assert sorted(map(str, held - wanted)) == [], "no longer in the code: run scripts/i18n"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_in_every_plural_form(lang: str):
    cat = catalog(lang)
    forms = cat.num_plurals
    assert forms == {"ru": 3, "de": 2}[lang]
    untranslated = []
    for message in messages(cat):
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        if message.fuzzy or not all(strings) or (message.pluralizable and len(strings) != forms):
            untranslated.append(message.id)
    assert untranslated == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_keeps_the_placeholders_of_its_msgid(lang: str):
    wrong = []
    for message in messages(catalog(lang)):
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        wanted = set().union(*(placeholders(i) for i in ids))
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        for string in strings:
            if string and placeholders(string) != wanted:
                wrong.append((message.id, string))
    assert wrong == []


def test_the_placeholder_check_sees_both_styles():
    assert placeholders("%(name)s has %(n)d and {count} of {max}") == {"%(name)", "%(n)", "{count}", "{max}"}
    assert placeholders("%(name)s") != placeholders("{name}")


@pytest.mark.parametrize("lang", ["en", *TRANSLATED])
def test_every_translation_can_be_filled_in_and_is_safe_in_an_attribute(lang: str):
    """What the app does with each: `.format(**values)` for "{name}" text (Python), `% values` for the
    rest (Jinja's gettext applies % even to text with no placeholder, so a lone "%" would fail)."""
    broken = []
    for message in messages(catalog(lang)):
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        names = {a or b for i in ids for a, b in PLACEHOLDER.findall(i)}
        values = dict.fromkeys(names, 7) | {"num": 7, "context": ""}
        for text in [*ids, *(s for s in strings if s)]:
            try:
                text.format(**values) if "{" in ids[0] else text % values
            except (KeyError, ValueError, IndexError, TypeError) as error:
                broken.append((text, repr(error)))
            if set(UNSAFE.findall(text)) - set(UNSAFE.findall(ids[0])):  # beyond what the English holds
                broken.append((text, 'holds one of " < > &'))
    assert broken == []


def test_no_gettext_call_names_a_string_it_does_not_translate():
    # _(MESSAGES["key"]) or _(X or "key"): Babel before 2.19 (our floor) extracts "key" as a msgid, which the
    # catalogs then lack. Look the message up first, then call _() on the name.
    import ast

    found, paths = [], sorted((ROOT / "app").rglob("*.py"))
    assert len(paths) > 50
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
                continue
            if node.func.id not in {"_", "gettext", "ngettext", "pgettext", "N_"}:
                continue
            # pgettext's first argument is the context: its message is the second.
            first = node.args[1] if node.func.id == "pgettext" and len(node.args) > 1 else node.args[0]
            if isinstance(first, ast.Constant):
                continue
            marked = {  # a message marked inside it (N_("Error")) is one
                id(arg)
                for call in ast.walk(first)
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in {"_", "N_"}
                for arg in call.args
            }
            inner = [
                n
                for n in ast.walk(first)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in marked
            ]
            if inner:
                found.append(f"{path}:{node.lineno}")
    assert found == []
