"""Prometheus metrics, served at /metrics when BLITZBOARD_METRICS is on (app/routes/metrics.py).

Every metric lives in a registry of this app's own (app.state.metrics), never prometheus_client's
global one: many apps are built in one process (the tests), and each counts only its own requests.

Requests are counted by the route's path template, never by the raw path: an edit link carries its
key in the path (/g/{game_id}/edit/{edit_key}), and every game id would be a label value of its own,
a series that is never freed. Paths no route matched are counted under one label, "unmatched".

Each server process counts for itself: with `--workers` above 1, a scrape reads whichever process
answered it (docs/operations.md, "Metrics").
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from sqlalchemy import Engine, func, select
from sqlalchemy.exc import SQLAlchemyError
from starlette.datastructures import State
from starlette.routing import Match, Mount, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from app.http.limits import StreamSlots
from app.http.middleware import HEAD_AS_GET, call_noting_status
from app.models import Game
from app.paths import SAVE_ROUTES

log = logging.getLogger("blitzboard.metrics")

UNMATCHED = "unmatched"
# Any token is a valid method on the wire: others are counted as one, or each would be a series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"
# Saving a round (app.paths.SAVE_ROUTES: the API's and the scorekeeper's form's) is a few
# milliseconds on an idle SQLite file and can wait seconds behind other writers (the busy timeout is 10 s).
SAVE_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _GameCount:
    """`blitzboard_games`: one COUNT at each scrape, so it is never stale and costs nothing between."""

    name = "blitzboard_games"
    help = "Games in the database (counted at each scrape)."

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def describe(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(self.name, self.help)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            with self.engine.connect() as connection:
                count = connection.execute(select(func.count()).select_from(Game)).scalar_one()
        except SQLAlchemyError as error:
            # The other metrics are worth most exactly when the database is in trouble: leave this one out.
            log.warning("blitzboard_games left out of the scrape: %s", type(error).__name__)
            return
        yield GaugeMetricFamily(self.name, self.help, value=count)


class Metrics:
    """One app's metrics and the registry that holds them."""

    def __init__(self, streams: StreamSlots, engine: Engine) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "blitzboard_http_requests",
            "HTTP requests answered, by route template, method and status (0: the client left before an answer).",
            ("route", "method", "status"),
            registry=self.registry,
        )
        self.round_saves = Histogram(
            "blitzboard_round_save_seconds",
            "Time to answer a round saved (2xx or 3xx), from the API or the scorekeeper's form, by route template.",
            ("route",),
            buckets=SAVE_BUCKETS,
            registry=self.registry,
        )
        open_streams = Gauge(
            "blitzboard_event_streams_open", "Event streams (live views) open in this process.", registry=self.registry
        )
        open_streams.set_function(lambda: streams.open)
        self.registry.register(_GameCount(engine))

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        method = method if method in METHODS else OTHER_METHOD
        self.requests.labels(route, method, str(status)).inc()
        if (method, route) in SAVE_ROUTES and 200 <= status < 400:
            self.round_saves.labels(route).observe(seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def route_template(scope: Scope, router: Router, path: str, root_path: str) -> str:
    """The path template of the route that answered, after the app ran.

    The router notes the route it matched in the scope (`scope["route"]`: FastAPI does for its own
    routes, wherever they were included). The app's plain routes (/docs, /openapi.json, the /static
    mount) are matched here against the path as it arrived, as the mount rewrites the scope.
    """
    template = getattr(scope.get("route"), "path_format", None)
    if isinstance(template, str):
        return template
    arrived = {"type": "http", "path": path, "root_path": root_path, "method": scope["method"]}
    for route in router.routes:
        if isinstance(route, Route | Mount) and route.matches(arrived)[0] is not Match.NONE:
            return route.path_format
    return UNMATCHED


class CountRequests:
    """Counts every answer by route template, method and status, and times the round saves (pure ASGI:
    an event stream passes through untouched and is counted when it ends)."""

    def __init__(self, app: ASGIApp, state: State, router: Router) -> None:
        self.app = app
        self.state = state  # the app's: its metrics are read at each answer (app.main.remember_afresh makes them anew)
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, root_path = scope["path"], scope.get("root_path", "")

        def count(status: int, seconds: float) -> None:
            method = "HEAD" if scope.get(HEAD_AS_GET) else scope["method"]
            self.state.metrics.observe(route_template(scope, self.router, path, root_path), method, status, seconds)

        await call_noting_status(self.app, scope, receive, send, count)
