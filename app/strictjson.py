"""JSON read strictly: no duplicate keys, no text that can't be stored.

Python's json module (which FastAPI uses) keeps the last of two equal keys without a word, so
`{"name": "A", "name": "B"}` means whatever the last parser in a chain of proxies decides; and it
turns a lone surrogate escape (`"\\ud800"`) into a string that no database driver can encode. Both
are refused here, before validation (a problem names its place, `players[0].name`): the API's bodies
(app.http.jsonbody) and a backup to import (app.backup.check).
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any

from app.i18n import _


class BodyProblem(ValueError):
    """What is wrong with a body that parsed as JSON but is still refused; `field` says where, and
    `message` what, in the request's language (the 422's `errors[].message`)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


class _Object(dict):
    """A JSON object as parsed, remembering a key it held twice."""

    duplicate: str | None = None


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    result = _Object()
    for key, value in pairs:
        if key in result and result.duplicate is None:
            result.duplicate = key
        result[key] = value
    return result


def has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def check(value: Any) -> None:
    """Raise BodyProblem for the first duplicate key or unstorable text, walking breadth-first."""
    todo: deque[tuple[str, Any]] = deque([("", value)])
    while todo:
        path, item = todo.popleft()
        if isinstance(item, str):
            if has_lone_surrogate(item):
                raise BodyProblem(
                    path or "body", _("This text holds a lone surrogate (like \\ud800), which is no character.")
                )
        elif isinstance(item, dict):
            if isinstance(item, _Object) and item.duplicate is not None:
                where = _join(path, item.duplicate) if not has_lone_surrogate(item.duplicate) else path or "body"
                raise BodyProblem(where, _("This key appears more than once in its object; send it once."))
            for key, child in item.items():
                if has_lone_surrogate(key):
                    raise BodyProblem(
                        path or "body", _("A key holds a lone surrogate (like \\ud800), which is no character.")
                    )
                todo.append((_join(path, key), child))
        elif isinstance(item, list):
            todo.extend((_join(path, i), child) for i, child in enumerate(item))


# A surrogate's escape (\ud800-\udfff): in text that is valid UTF-8, the only way to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def parse(body: bytes) -> Any:
    duplicates: list[_Object] = []

    def pairs(items: list[tuple[str, Any]]) -> _Object:
        result = _object(items)
        if result.duplicate is not None:
            duplicates.append(result)
        return result

    try:
        text: str | None = body.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and text.startswith("\ufeff"):
        text = None  # a byte order mark: read as json reads bytes
    value = json.loads(body if text is None else text, object_pairs_hook=pairs)
    # The walk says where the trouble is; a body with no key twice and no surrogate escape has none, and
    # a large one (a backup to import) is spared the walk.
    if duplicates or text is None or _SURROGATE_ESCAPE.search(text):
        check(value)
    return value
