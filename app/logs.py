"""Log lines with a UTC timestamp and the request they belong to, as text or as JSON (one object a line,
for a log collector): the same configuration for our loggers and uvicorn's, in every worker."""

from __future__ import annotations

import json
import logging
import logging.config
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

LogFormat = Literal["text", "json"]

# Set by app.http.requestid.RequestId for the length of a request (threads of the pool inherit it).
current_request_id: ContextVar[str | None] = ContextVar("current_request_id", default=None)


def _timestamp(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    """`2026-11-30T21:04:05.123Z INFO blitzboard.access: message request_id=…`"""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        request_id = current_request_id.get()
        if request_id and "request_id=" not in message:
            message += f" request_id={request_id}"
        line = f"{_timestamp(record)} {record.levelname} {record.name}: {message}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(logging.Formatter):
    """`{"time": …, "level": …, "logger": …, "message": …, "request_id": …}`, one object a line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if request_id := current_request_id.get():
            entry["request_id"] = request_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def formatter(log_format: LogFormat) -> logging.Formatter:
    return JsonFormatter() if log_format == "json" else TextFormatter()


def logging_config(level: str, log_format: LogFormat) -> dict[str, Any]:
    """For logging.config.dictConfig, and uvicorn's log_config (each worker applies it)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "blitzboard": {"()": f"{__name__}.{'JsonFormatter' if log_format == 'json' else 'TextFormatter'}"}
        },
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "blitzboard", "stream": "ext://sys.stderr"}
        },
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"handlers": [], "propagate": False},  # app.http.middleware.AccessLog instead
        },
        "root": {"handlers": ["stderr"], "level": level.upper()},
    }


def configure(level: str, log_format: LogFormat) -> None:
    logging.config.dictConfig(logging_config(level, log_format))
