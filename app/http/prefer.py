"""The `Prefer` request header (RFC 7240), read for the one preference the API honours: `return=minimal`.

Several preferences may come in one header or in several, comma-separated; names are compared
ignoring case, a value may be a quoted string, parameters after `;` are ignored, and when a
preference is sent twice only the first counts (RFC 7240 §2). The API also takes the values
ignoring case (`return=Minimal`): no client means anything else by it.
"""

from __future__ import annotations

from collections.abc import Iterable

MINIMAL = "return=minimal"  # what Preference-Applied says when the minimal answer was given


def _split(text: str, separator: str) -> list[str]:
    """`text` cut at each `separator` outside a quoted string."""
    parts, start, quoted, escaped = [], 0, False, False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        inner, out, escaped = value[1:-1], [], False
        for char in inner:
            if char == "\\" and not escaped:
                escaped = True
                continue
            out.append(char)
            escaped = False
        return "".join(out)
    return value


def preferences(headers: Iterable[str]) -> dict[str, str]:
    """Every preference of the Prefer headers: its name (lower case) and value ("" when it has none)."""
    found: dict[str, str] = {}
    for header in headers:
        for item in _split(header, ","):
            name, _, value = _split(item, ";")[0].partition("=")
            name = name.strip().lower()
            if name and name not in found:
                found[name] = _unquoted(value.strip())
    return found


def wants_minimal(headers: Iterable[str]) -> bool:
    """True when the request prefers `return=minimal`."""
    return preferences(headers).get("return", "").lower() == "minimal"
