"""The baseline for bench/saves.py: a bare FastAPI app whose endpoint returns a constant.

It answers the same request a round save is (a POST to /bare/{id}/rounds with the same JSON body, which
it reads but does not parse) and bench/serve.py serves it with the uvicorn settings of `blitzboard
serve`, so the ratio save / bare is what the app's own work costs: validation, the database, scoring
and the game as JSON.

    .venv/bin/python bench/serve.py bare_app:create_app --port 8001
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

CONSTANT = {"ok": True}


def create_app() -> FastAPI:
    app = FastAPI()

    @app.post("/bare/{game_id}/rounds")
    async def bare(game_id: str, request: Request) -> JSONResponse:
        await request.body()
        return JSONResponse(CONSTANT, status_code=201)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
