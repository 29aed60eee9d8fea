"""/metrics: the Prometheus text format (app/http/metrics.py), only when BLITZBOARD_METRICS is on."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4

router = APIRouter(include_in_schema=False)


# A plain function, so FastAPI runs it in a thread: the scrape's one COUNT never holds up the event loop.
@router.get("/metrics")
def metrics(request: Request) -> Response:
    # The classic text format (version 0.0.4), which every Prometheus reads; prometheus_client's
    # CONTENT_TYPE_LATEST now names version 1.0.0, which only Prometheus 3 asks for.
    return Response(
        request.app.state.metrics.exposition(),
        media_type=CONTENT_TYPE_PLAIN_0_0_4,
        headers={"Cache-Control": "no-store"},
    )
