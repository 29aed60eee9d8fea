"""The API's JSON bodies, read strictly (app.strictjson): a route class whose request parses its body
there, so a duplicate key or a lone surrogate is a 422 naming its place, before validation.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from app.strictjson import parse


class StrictJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = parse(await self.body())
        return self._json


class StrictJsonRoute(APIRoute):
    """An API route whose JSON body is read by parse(); FastAPI answers its BodyProblem as a 400 with it
    as the cause, which the API's handler turns into the 422 (app.routes.api)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict_handler
