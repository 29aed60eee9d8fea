"""The JSON API's answers, serialized by orjson instead of the standard library's json (which Starlette's
JSONResponse uses): several times faster on a long game's answer, which every save used to send whole.

The bytes are the same strict JSON: compact, UTF-8 with non-ASCII characters as they are, keys in the
order built. orjson refuses a key that is not a string (json would have turned it into one): the
answers never hold one. It writes NaN and infinities as null where json refused them: the answers
hold no float but the standings' averages and rates, rounded from counts that are never zero
(app.tables.standings). FastAPI's own ORJSONResponse is deprecated; this is the same few lines.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import JSONResponse


class JSONAnswer(JSONResponse):
    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)
