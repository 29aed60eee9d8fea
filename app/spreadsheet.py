"""What the API's CSV answers share: a cell a spreadsheet would run as a formula made harmless."""

from __future__ import annotations

# A spreadsheet runs a cell that starts with one of these as a formula ("CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str) -> str:
    """Text (a name) as a cell: a leading quote keeps a spreadsheet from reading it as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text
