"""What the CSV answers share: a cell a spreadsheet would run as a formula made harmless, and the two
ways a sheet is written.

The API's CSVs are a data format (`DATA`): English column names, "," between cells, "." in numbers,
in every language. The page's "Download the scores" link gives a sheet for the reader's spreadsheet
program instead (`for_language`): Russian and German Excel and LibreOffice split a line at ";" (their
list separator, since "," is their decimal mark) and read "12,5" as a number, so a sheet in those
languages is written that way; English keeps "," and ".". Both start with a BOM, without which Excel
reads UTF-8 names (Cyrillic, umlauts) as Latin-1.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass

from babel import Locale, UnknownLocaleError

# A spreadsheet runs a cell that starts with one of these as a formula ("CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


def spreadsheet_safe(text: str) -> str:
    """Text (a name) as a cell: a leading quote keeps a spreadsheet from reading it as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


@dataclass(frozen=True)
class Sheet:
    delimiter: str  # between cells
    decimal: str  # in a number with a fraction

    def cell(self, value: object) -> object:
        """A number as the spreadsheet reads one: its decimal mark, no grouping, an ASCII minus (which
        a spreadsheet takes for a negative number, where the page's U+2212 would be text)."""
        if isinstance(value, float) and not isinstance(value, bool):
            return repr(value).replace(".", self.decimal)
        return value


DATA = Sheet(",", ".")


def for_language(code: str) -> Sheet:
    """The sheet a spreadsheet program in this language opens in columns: the locale's decimal mark
    (from Babel's CLDR data), and ";" between cells where that mark is a comma."""
    try:
        decimal = Locale.parse(code).number_symbols["latn"]["decimal"]
    except (ValueError, LookupError, UnknownLocaleError):  # a test's pseudo-language: English's
        decimal = "."
    return Sheet(";" if decimal == "," else ",", decimal)


def sheet_text(rows: Iterable[Iterable[object]], sheet: Sheet = DATA) -> str:
    """Rows as CSV text with a BOM, lines ending in CRLF (RFC 4180)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sheet.delimiter, lineterminator="\r\n")
    for row in rows:
        writer.writerow(sheet.cell(value) for value in row)
    return BOM + out.getvalue()
