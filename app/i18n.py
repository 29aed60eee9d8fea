"""The languages the app speaks (English, Russian, German): the gettext catalogs, which one a request
gets, and numbers, days and lists of names in that language's way.

The catalogs are `locales/<lang>/LC_MESSAGES/messages.po`, extracted with Babel (scripts/i18n) from the
templates and the Python code; `create_app` compiles them in memory (`load_catalogs()`, or the first
translation, whichever comes first), so no `.mo` file is ever committed or built by hand, and a
missing catalog stops the app rather than answer in English under another language's name. A
request's language is set once by the `Languages` middleware (the language switch's
`blitzboard_lang` cookie, else Accept-Language with its quality values, else English) and read by `_()`, `ngettext()` and the formatting helpers through a context variable, so
code that builds a message (a use case raising an error, a template) never passes it around.
The API follows Accept-Language only: a cookie set by a page does not change what a program reads.

Rule messages stay pure: app.rules.scoring's `Problem` carries a code and its parameters, and
`problem_text()` renders it here, in the request's language.
"""

from __future__ import annotations

import gettext as _gettext
import io
import re
from collections.abc import Iterable
from contextvars import ContextVar
from datetime import date
from decimal import ROUND_HALF_UP, localcontext
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import Translations
from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import ROOT
from app.paths import is_api
from app.rules.names import N_  # noqa: F401  (marks text for the catalogs; app code imports it from here)
from app.rules.scoring import MESSAGES, Problem

# Each language named in itself, for the switch: a reader who does not know the current language
# must still find their own.
LANGUAGES: dict[str, str] = {"en": "English", "ru": "Русский", "de": "Deutsch"}
DEFAULT = "en"
COOKIE = "blitzboard_lang"
LOCALES_DIR = ROOT / "locales"
DOMAIN = "messages"
MINUS = "\u2212"  # a real minus sign: "−5" lines up with "+12" where a hyphen would not

_current: ContextVar[str] = ContextVar("blitzboard_language", default=DEFAULT)
_catalogs: dict[str, _gettext.NullTranslations] = {}
_loaded: list[bool] = []  # load_catalogs() has run
# What numbers and lists are formatted like, per language; a test's pseudo-language borrows English.
_formats: dict[str, str] = {}


def load_catalog(path: Path) -> Translations:
    """A .po file compiled in memory, without its fuzzy (unreviewed) entries."""
    with path.open("rb") as source:
        catalog = read_po(source, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return Translations(fp=compiled, domain=DOMAIN)


def read_catalogs(directory: Path) -> dict[str, _gettext.NullTranslations]:
    """Every language's catalog from `directory` (English needs none: its msgids are its text)."""
    catalogs: dict[str, _gettext.NullTranslations] = {DEFAULT: _gettext.NullTranslations()}
    for lang in LANGUAGES:
        if lang != DEFAULT:
            po = directory / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
            if not po.is_file():
                raise RuntimeError(f"the {LANGUAGES[lang]} catalog is missing: {po}")
            catalogs[lang] = load_catalog(po)
    return catalogs


def load_catalogs() -> dict[str, _gettext.NullTranslations]:
    """The shipped catalogs, compiled once per process."""
    if not _loaded:
        _catalogs.update(read_catalogs(LOCALES_DIR))
        _formats.update({lang: lang for lang in LANGUAGES})
        _loaded.append(True)
    return _catalogs


def register(lang: str, translations: _gettext.NullTranslations, formats_like: str = DEFAULT) -> None:
    """Adds a language at run time (the tests' pseudo-language)."""
    load_catalogs()[lang] = translations
    _formats[lang] = formats_like


def unregister(lang: str) -> None:
    _catalogs.pop(lang, None)
    _formats.pop(lang, None)


# --- the request's language ---------------------------------------------------------------------


def current() -> str:
    return _current.get()


def use(lang: str):
    """Sets the language for what follows in this context; returns the token to reset it with."""
    return _current.set(lang if lang in load_catalogs() else DEFAULT)


def reset(token) -> None:
    _current.reset(token)


_TAG = re.compile(r"^\s*([A-Za-z]{1,8}|\*)(?:[-_][A-Za-z0-9]{1,8})*\s*$")  # "en_US" from some programs


def from_accept_language(header: str | None) -> str | None:
    """The best language we speak for an Accept-Language header (RFC 9110 §12.5.4), or None.

    Ranges are tried by quality, highest first, in the header's order among equals; "de-AT" matches
    German; "*" matches the first language we speak that the header neither refuses (q=0) nor
    named; a quality of 0 means "not this one".
    """
    if not header:
        return None
    wanted: list[tuple[float, int, str]] = []
    refused: set[str] = set()
    for position, part in enumerate(header.split(",")[:32]):
        tag, _, params = part.partition(";")
        match = _TAG.match(tag)
        if not match:
            continue
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        if 0 < quality <= 1:
            wanted.append((-quality, position, match.group(1).lower()))
        elif quality == 0:
            refused.add(match.group(1).lower())
    catalogs = load_catalogs()
    named = {primary for _, _, primary in wanted} | refused
    for _, _, primary in sorted(wanted):
        if primary == "*":
            return next((lang for lang in LANGUAGES if lang not in named), None)
        if primary in catalogs:
            return primary
    return None


def choose(path: str, cookie: str | None, accept_language: str | None) -> str:
    """A page: the switch's cookie, else Accept-Language. The API: Accept-Language only."""
    if not is_api(path) and cookie in load_catalogs():
        return cookie
    return from_accept_language(accept_language) or DEFAULT


class Languages:
    """Sets each request's language, and says which one the answer is in (Content-Language, and Vary
    so a cache keeps one copy per language). Static files are the same in every language."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/static/"):
            await self.app(scope, receive, send)
            return
        lang = language_of(scope)
        token = _current.set(lang)

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": with_language(scope, lang, message.get("headers", []))}
            await send(message)

        try:
            await self.app(scope, receive, send_with_language)
        finally:
            _current.reset(token)


def language_of(scope: Scope) -> str:
    """The request's language: the switch's cookie on pages, else Accept-Language (only that under /api/)."""
    headers = {k: v for k, v in scope["headers"] if k in (b"cookie", b"accept-language")}
    cookie = _cookie_value(headers.get(b"cookie", b"").decode("latin-1"))
    return choose(scope["path"], cookie, headers.get(b"accept-language", b"").decode("latin-1"))


def with_language(scope: Scope, lang: str, headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """An answer's headers with Vary naming what chose the language, and Content-Language unless set."""
    vary = b"Accept-Language" if is_api(scope["path"]) else b"Accept-Language, Cookie"
    out = list(headers)
    existing = [v for k, v in out if k.lower() == b"vary"]
    out = [(k, v) for k, v in out if k.lower() != b"vary"]
    out.append((b"vary", b", ".join([*existing, vary])))
    if not any(k.lower() == b"content-language" for k, _ in out):  # a route may know better
        out.append((b"content-language", lang.encode()))
    return out


def _cookie_value(header: str) -> str | None:
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value.strip().strip('"')
    return None


# --- translating ------------------------------------------------------------------------------


def _translations() -> _gettext.NullTranslations:
    catalogs = _catalogs if _loaded else load_catalogs()
    return catalogs.get(_current.get()) or catalogs[DEFAULT]


def gettext(message: str) -> str:
    return _translations().gettext(message)


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translations().ngettext(singular, plural, n)


# A placeholder and the space after it, when a word follows: "{count} games", "{n} bytes".
_FORMAT_BEFORE_WORD = r"(\{%s\}) (?=[^\W\d_])"


def fill(text: str, **values: Any) -> str:
    """`text.format(**values)` for a plural message (`fill(ngettext(one, many, n), count=n)`), with each
    number bound to the word after it by a no-break space ("12 games", never a line break between), as
    the pages' plurals are (`bind_numbers`)."""
    return _bound(text, values, _FORMAT_BEFORE_WORD).format(**values)


def pgettext(context: str, message: str) -> str:
    return _translations().pgettext(context, message)


@lru_cache(maxsize=16)
def _babel_locale(code: str) -> Locale:
    return Locale.parse(code)


def _locale() -> Locale:
    return _babel_locale(_formats.get(_current.get(), DEFAULT))


def number(value: int | float, digits: int | None = None) -> str:
    """1234 as "1,234", "1 234" or "1.234". Whole numbers under 1,000 are written alike in every
    language we speak (no grouping, ASCII digits), and pages print thousands of them (a long game's
    history): those skip Babel. `digits`: exactly that many decimals ("12.0", "12,3"), for averages
    that a table lists one under the other. A negative number has a real minus (U+2212), as `signed`
    writes round points, so a total of "−8" reads like the round's "−8" beside it (the CSV export keeps
    ASCII: it writes its own numbers)."""
    if digits is not None:
        # Halves away from zero, as people round by hand (26.25 is "26.3", not Babel's banker's "26.2"),
        # and a real minus, as `signed` writes round points: "−5.0" lines up under "12.5" in a column.
        with localcontext() as context:
            context.rounding = ROUND_HALF_UP
            text = format_decimal(value, format="#,##0." + "0" * digits if digits else "#,##0", locale=_locale())
        return text.replace("-", MINUS)
    if type(value) is int and -1000 < value < 1000:
        return str(value) if value >= 0 else MINUS + str(-value)
    return format_decimal(value, locale=_locale()).replace("-", MINUS)


def plain(value: int) -> str:
    """A whole number as plain digits (no grouping) with a real minus: the charts' axis labels, which
    app.web.chart measures by their length to lay the chart out."""
    return str(value) if value >= 0 else MINUS + str(-value)


def day(value: date | str) -> str:
    """A day the language's way, of a date or its ISO text ("2026-12-01"): "Dec 1, 2026", "1 дек.
    2026 г.", "01.12.2026" (Babel's medium format). A page keeps the ISO form in <time datetime>."""
    if isinstance(value, str):
        value = date.fromisoformat(value)
    return format_date(value, "medium", locale=_locale())


def percent(value: float) -> str:
    """A share (0.6667) as a whole percentage the language's way: "67%", "67 %" (halves up, as `number`)."""
    with localcontext() as context:
        context.rounding = ROUND_HALF_UP
        return format_percent(value, locale=_locale())


def signed(value: int) -> str:
    """Round points with their sign: "+12", "−5", "0"."""
    if value > 0:
        return "+" + number(value)
    if value < 0:
        return MINUS + number(-value)
    return number(0)


def join_names(names: Iterable[str]) -> str:
    """ "Ana", "Ana and Ben", "Ana, Ben and Cy" in the request's language (the last link through the
    catalogs: "и", "und")."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return gettext("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def problem_text(problem: Problem) -> str:
    """A rules-engine Problem (app.rules.scoring) in the request's language. Numbers in it (limits, ids,
    counts) stay plain digits in every language, as in the English wording, each on the line of its word."""
    return fill(gettext(MESSAGES[problem.code]), **problem.params)


# Jinja2's own newstyle callables take the whole template context (pass_context), and a call inside a
# loop then copies every variable of the page into a derived context first: a thousand-round history
# paid that some twenty times a round. These take only the evaluation context (for autoescape) and do
# what Jinja2's do: the translation, marked safe under autoescape, then `% variables` (always, as the
# {% trans %} tag expects; "%%" is a literal percent sign in a msgid or msgstr).


@pass_eval_context
def _jinja_gettext(eval_ctx: EvalContext, __string: str, **variables: Any) -> str:
    rv = gettext(__string)
    return (Markup(rv) if eval_ctx.autoescape else rv) % variables


# A number written as the pages write it: digits, grouped or not, with a sign or decimals.
_NUMBER = re.compile(r"[+\u2212-]?\d[\d.,\u00a0\u202f ]*")
# A placeholder and the space after it, when a word follows.
_BEFORE_WORD = r"(%%\(%s\)s) (?=[^\W\d_])"


def bind_numbers(text: str, variables: dict[str, Any]) -> str:
    """A plural message's numbers bound to the word after them with a no-break space, so a line never
    ends between "75" and "очков" or "10" and "minutes": each placeholder whose value is a number."""
    return _bound(text, variables, _BEFORE_WORD)


def _bound(text: str, variables: dict[str, Any], before_word: str) -> str:
    """`text` with a no-break space after each placeholder (found by `before_word`, a pattern with the
    name's place) whose value is a number, where a word follows: `bind_numbers` and `fill` alike."""
    for name, value in variables.items():
        if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value)):
            text = re.sub(before_word % re.escape(name), "\\1\u00a0", text)
    return text


@pass_eval_context
def _jinja_ngettext(eval_ctx: EvalContext, __singular: str, __plural: str, __num: int, **variables: Any) -> str:
    variables.setdefault("num", __num)
    rv = bind_numbers(ngettext(__singular, __plural, __num), variables)
    return (Markup(rv) if eval_ctx.autoescape else rv) % variables


@pass_eval_context
def _jinja_pgettext(eval_ctx: EvalContext, __context: str, __string: str, **variables: Any) -> str:
    variables.setdefault("context", __context)
    rv = pgettext(__context, __string)
    return (Markup(rv) if eval_ctx.autoescape else rv) % variables


def install(env) -> None:
    """Jinja2's i18n extension ({% trans %}, _(), ngettext, pgettext in the request's language), and
    the filters `signed`, `num` (`num(1)`: one decimal), `plain` (a chart's axis), `day` and `percent`."""
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_callables(gettext, ngettext, newstyle=True, pgettext=pgettext)
    env.globals.update(gettext=_jinja_gettext, _=_jinja_gettext, ngettext=_jinja_ngettext, pgettext=_jinja_pgettext)
    env.filters["signed"] = signed
    env.filters["num"] = number
    env.filters["percent"] = percent
    env.filters["plain"] = plain
    env.filters["day"] = day
    env.globals["languages"] = LANGUAGES
    env.globals["current_language"] = current
    env.globals["join_names"] = join_names
