"""The application factory: create_app(settings) builds a ready FastAPI app. Nothing happens at import."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI

from app.config import Settings, get_settings, package_version
from app.db import make_engine
from app.games.viewcache import ViewCache
from app.games.views import current_versions
from app.http.assets import static_files
from app.http.errors import ServerErrors
from app.http.headers import SecurityHeaders
from app.http.limits import StreamSlots, capacity, install_repeat_filter, raise_open_file_limit
from app.http.metrics import CountRequests, Metrics
from app.http.middleware import AccessLog, BodyLimit, CompressPublic, HeadAsGet
from app.http.problems import install_problem_handlers
from app.http.ratelimit import ImportSlots, Limits
from app.http.requestid import RequestId
from app.http.writequeue import WriteGate, WriteQueue
from app.i18n import Languages, load_catalogs
from app.live import Broker
from app.live_pg import PostgresListener, PostgresNotifier
from app.logs import LogFormat, formatter
from app.openapi import finish_openapi
from app.routes import (
    api,
    backup,
    docs,
    events,
    export,
    game_pages,
    handover,
    health,
    language,
    metrics,
    offline,
    seat_pages,
    seats,
    start,
    table_pages,
    table_stats,
    tables,
    view_pages,
)
from app.sealing import Sealer, load_secret
from app.stream_front import Blitzboard
from app.web.render import error_page, refused_page

API_DESCRIPTION = """
Keep score of Dutch Blitz games from your own program.

* Reading a game needs no key. Changing one needs its **edit key**, sent as
  `Authorization: Bearer <edit_key>`; the key is shown once, in the answer to creating the game.
* Every change bumps the game's `version`. `GET` sends it as `ETag: "<version>"`; send it back as
  `If-Match` to change a game only if nobody else did (412 otherwise).
* Send an `Idempotency-Key` with a write to retry it safely: nothing changes twice, and the retry
  gets the first answer's status with the game as it now stands (the first answer itself while
  nothing else changed the game). The same key with a different body is a 422.
* Errors are `application/problem+json` with `type`, `title`, `status`, `detail`, and for 422 an
  `errors` list of `{field, message}`.
"""


def _log_to_stderr_unless_configured(level: str, log_format: LogFormat) -> None:
    """Our own log lines (the access log among them) at BLITZBOARD_LOG_LEVEL, even when nobody set up logging.

    `blitzboard serve` configures logging before it starts uvicorn; a server started any other way
    (`uvicorn app.main:create_app --factory`) configures only uvicorn's own loggers, and the access
    log, which replaces uvicorn's, would silently go nowhere.
    """
    logger = logging.getLogger("blitzboard")
    logger.setLevel(level.upper())
    if not logger.hasHandlers():
        handler = logging.StreamHandler()
        handler.setFormatter(formatter(log_format))
        logger.addHandler(handler)


def remember_afresh(app: FastAPI) -> None:
    """Everything the app keeps in memory between requests, made new (only the engine, the database's
    connection pool, stays): the live broker, the view cache, the server secret, the rate limits, the
    stream slots, the writes' queue and the metrics. create_app calls it once; the tests call it between tests that
    share one app, so nothing a test left in memory reaches the next (tests/conftest.py)."""
    settings: Settings = app.state.settings
    app.state.broker = Broker()
    app.state.views = ViewCache()  # scored games by version, for the pages and the next save (app.games.viewcache)
    app.state.sealer = Sealer(
        load_secret(settings.secret_key.get_secret_value(), settings.secret_file, settings.database_url)
    )
    app.state.limits = Limits(
        settings.games_per_minute,
        settings.wrong_keys_per_minute,
        settings.import_games_per_minute,
        ImportSlots(settings.max_concurrent_imports, settings.import_wait_seconds),
    )
    # The total is lowered under the open-file limit when the server starts (lifespan).
    app.state.streams = StreamSlots(settings.max_streams_per_client, settings.max_streams)
    app.state.writes = WriteQueue(settings.max_running_writes, settings.max_waiting_writes)
    if settings.metrics:
        app.state.metrics = Metrics(app.state.streams, app.state.engine)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    load_catalogs()  # every language's catalog, compiled once; a missing one stops the app here

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        _log_to_stderr_unless_configured(settings.log_level, settings.log_format)
        # Bounds on what clients can hold (app.http.limits): at start-up, never at import.
        _, app.state.streams.total = capacity(settings, raise_open_file_limit())
        quiet_repeats = install_repeat_filter(settings.log_repeat_seconds)
        app.state.broker.bind(asyncio.get_running_loop())
        if app.state.settings.tune_gc:
            # What exists at start-up lives as long as the process: keep it out of the cyclic garbage
            # collector's passes, and run them less often; a request that loads a long game builds
            # tens of thousands of short-lived objects, which otherwise set off full collections
            # over the whole heap (docs/performance.md, scaling with game length).
            gc.collect()
            gc.freeze()
            gc.set_threshold(50_000, 20, 20)
        listener = notifier = None
        if app.state.engine.dialect.name == "postgresql":
            # Several server processes share one database: tell each other of their saves (after
            # each COMMIT, by the broker's relay) and hear the others'.
            url = app.state.engine.url.render_as_string(hide_password=False)
            notifier = PostgresNotifier(url)
            app.state.broker.relay = notifier.send
            await notifier.start()
            listener = PostgresListener(url, app.state.broker, partial(current_versions, app.state.engine))
            await listener.start()
        try:
            yield
        finally:
            # Streams still open here were not told by the server (app.http.server does it, as uvicorn begins
            # to shut down): they end now.
            app.state.broker.close_all()
            if listener:
                await listener.stop()
            if notifier:
                app.state.broker.relay = None
                await notifier.stop()
            app.state.engine.dispose()
            quiet_repeats()

    # The interactive docs are served by app/routes/docs.py from vendored files, not from FastAPI's CDN.
    # Blitzboard: FastAPI with app.stream_front in front of the middleware, for the open event streams.
    app = Blitzboard(
        title="Blitzboard",
        version=package_version(),
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine = make_engine(
        settings.database_url,
        synchronous=settings.sqlite_synchronous,
        busy_timeout_ms=settings.sqlite_busy_timeout_ms,
    )
    remember_afresh(app)

    app.mount("/static", static_files(), name="static")
    app.include_router(backup.router)  # first: its literal paths win over api's and tables' templated ones
    app.include_router(api.router)
    app.include_router(seats.router)
    app.include_router(tables.router)
    app.include_router(table_stats.router)
    app.include_router(events.router)
    app.include_router(export.router)
    app.include_router(export.page_router)
    app.include_router(health.router)
    app.include_router(docs.router)
    if settings.metrics:  # off: /metrics is a 404 like any unknown path
        app.include_router(metrics.router)
    app.include_router(start.router)
    app.include_router(view_pages.router)
    app.include_router(game_pages.router)
    app.include_router(handover.router)
    app.include_router(seat_pages.router)
    app.include_router(table_pages.router)
    app.include_router(language.router)
    app.include_router(offline.router)
    install_problem_handlers(app, error_page, refused_page)
    finish_openapi(app)

    # Outermost last: the access log sees every answer, including a 413 and an unexpected error's
    # 500 or 503 (ServerErrors answers those inside SecurityHeaders, so they carry its headers too).
    # Innermost: a write waits its turn on the event loop, its body already read by BodyLimit (app.http.writequeue).
    app.add_middleware(WriteGate, state=app.state, html_error=error_page)
    app.add_middleware(CompressPublic)
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_body_bytes,
        seconds=settings.body_timeout_seconds,
        larger=dict.fromkeys(backup.IMPORT_PATHS, settings.max_import_bytes),  # a backup is a whole table
    )
    app.add_middleware(ServerErrors, html_error=error_page)
    app.add_middleware(SecurityHeaders, hsts_seconds=settings.hsts_seconds)
    if settings.metrics:
        # Outside ServerErrors and BodyLimit, so it counts their 500, 503 and 413 too; inside HeadAsGet,
        # which runs a HEAD on a copy of the request, where the router notes the route it matched.
        app.add_middleware(CountRequests, state=app.state, router=app.router)
    app.add_middleware(Languages)  # every answer, errors included, in the request's language
    app.add_middleware(HeadAsGet)  # inside the access log, which then logs the HEAD
    app.add_middleware(AccessLog)
    app.add_middleware(RequestId)
    return app
