# syntax=docker/dockerfile:1
# Blitzboard: multi-stage, slim, non-root. Installs exactly what uv.lock pins (reproducible), then the
# project itself as a wheel, which carries its templates, static files and migrations; `blitzboard
# serve` applies the migrations at start and listens on 0.0.0.0:8000.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    UV_PROJECT_ENVIRONMENT=/opt/venv UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never
RUN pip install uv==0.13.8
WORKDIR /src
# The dependencies first (a layer that changes only with uv.lock), then the project, not editable.
COPY pyproject.toml uv.lock README.md LICENSE ./
RUN uv sync --frozen --no-install-project
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY alembic ./alembic
COPY locales ./locales
COPY alembic.ini ./
RUN uv sync --frozen --no-editable

FROM python:3.11-slim AS runtime
# No database setting here: the default is a SQLite file in the working directory, /data (a volume),
# with the server secret beside it; compose's DATABASE_URL (or BLITZBOARD_DATABASE_URL) replaces it.
ENV PATH="/opt/venv/bin:$PATH" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
RUN groupadd --system --gid 10001 blitzboard \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin blitzboard \
    && mkdir -p /data \
    && chown 10001:10001 /data
COPY --from=build /opt/venv /opt/venv
WORKDIR /data
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status != 200)"]
# Several processes need PostgreSQL: set DATABASE_URL and add --workers N (see compose.yaml).
CMD ["blitzboard", "serve", "--host", "0.0.0.0", "--port", "8000"]
