"""Conditional requests (RFC 9110): If-Match compared with a version, checked by the use cases inside
the write transaction, and If-None-Match compared with an ETag, answered by the routes with a 304."""

from __future__ import annotations


def etag_matches(if_match: str, version: int) -> bool:
    """True when an If-Match header names this version (or is "*")."""
    for candidate in if_match.split(","):
        candidate = candidate.strip()
        if candidate == "*":
            return True
        candidate = candidate.removeprefix("W/").strip('"')
        if candidate == str(version):
            return True
    return False


def none_match(if_none_match: str | None, etag: str) -> bool:
    """True when an If-None-Match header names this ETag (weak comparison, RFC 9110) or is "*"."""
    if not if_none_match:
        return False
    tag = etag.removeprefix("W/")
    return any(c.strip() in ("*", tag, "W/" + tag) for c in if_none_match.split(","))
