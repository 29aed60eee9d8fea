"""/healthz (the process is alive) and /readyz (the database answers and is migrated), for load balancers."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from app.migrations import current_revision, head_revision

router = APIRouter(include_in_schema=False)


@router.get("/healthz")
def healthz() -> JSONResponse:
    return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    head = head_revision()
    try:
        current = await run_in_threadpool(current_revision, request.app.state.engine)
    except Exception as error:  # any database failure means "not ready", never a 500
        return JSONResponse(
            {"status": "unavailable", "database": f"unreachable: {type(error).__name__}"},
            status_code=503,
            headers={"Cache-Control": "no-store"},
        )
    ready = current == head
    return JSONResponse(
        {"status": "ok" if ready else "unavailable", "migration": current, "head": head},
        status_code=200 if ready else 503,
        headers={"Cache-Control": "no-store"},
    )
