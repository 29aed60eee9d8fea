# syntax=docker/dockerfile:1
# Blitzboard: multi-stage, slim, non-root. The same steps as the README's "Deploy" section:
# install the project from pyproject.toml, apply the migrations at start (`blitzboard serve` does),
# listen on 0.0.0.0:8000.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/venv
COPY pyproject.toml README.md ./
COPY app ./app
RUN /opt/venv/bin/pip install .

FROM python:3.11-slim AS runtime
# BLITZBOARD_SECRET_FILE is where the server secret is kept (in the /data volume), not a secret itself.
# hadolint ignore=DL3064
ENV PATH="/opt/venv/bin:$PATH" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BLITZBOARD_ROOT=/app \
    BLITZBOARD_DATABASE_URL=sqlite:////data/blitzboard.db \
    BLITZBOARD_SECRET_FILE=/data/blitzboard.secret
RUN groupadd --system --gid 10001 blitzboard \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --shell /usr/sbin/nologin blitzboard \
    && mkdir -p /data \
    && chown 10001:10001 /data
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY alembic.ini ./
COPY alembic ./alembic
COPY templates ./templates
COPY static ./static
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status != 200)"]
# Several processes need PostgreSQL: set DATABASE_URL and add --workers N (see compose.yaml).
CMD ["blitzboard", "serve", "--host", "0.0.0.0", "--port", "8000"]
