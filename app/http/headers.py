"""The security headers every answer carries (CSP, nosniff, framing, Referrer-Policy, COOP, HSTS over
HTTPS), as pure ASGI middleware beside app/security.py, which makes the policy."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.paths import is_api
from app.security import EDIT_COOKIE_PREFIX, content_security_policy, redoc_content_security_policy

# The pages that need more than the app's policy, and theirs: only ReDoc's (see its reasons in
# app/security.py). Swagger UI on /docs runs under the app's own policy.
DOCS_CSP = {"/redoc": redoc_content_security_policy()}


class SecurityHeaders:
    """CSP, nosniff, frame-ancestors and a Referrer-Policy on every response.

    A route that hands out an edit right sets its own stricter Referrer-Policy (no-referrer); the
    default here is kept only where the route set none. Answers that carry an edit right whatever the
    route says get no-referrer too: every answer to a page's form post (only a scorekeeper, or someone
    starting a game, posts there) and every answer that sets or clears an edit cookie.
    """

    def __init__(self, app: ASGIApp | None, hsts_seconds: int = 0) -> None:
        self.app = app
        self.csp = content_security_policy()
        # Only on answers to HTTPS requests (RFC 6797 §7.2: a browser ignores it over plain HTTP, and a
        # deployment reached over HTTP alone must not be told it is HTTPS-only). The scheme is the
        # proxy's X-Forwarded-Proto when uvicorn trusts the proxy.
        self.hsts = f"max-age={hsts_seconds}" if hsts_seconds > 0 else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.add_to(scope, message)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def add_to(self, scope: Scope, message: Message) -> None:
        """Set the headers on an answer's `http.response.start` message (app.stream_front's streams too)."""
        # The interactive API docs load only this site's files too (app/routes/docs.py); ReDoc's page may
        # also add empty <style> elements and use a data: font. No other host, no inline script and no
        # eval anywhere.
        headers = MutableHeaders(scope=message)
        headers.setdefault("Content-Security-Policy", DOCS_CSP.get(scope["path"], self.csp))
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("X-Frame-Options", "DENY")
        form_post = scope["method"] == "POST" and not is_api(scope["path"])
        edit_cookie = any(c.startswith(EDIT_COOKIE_PREFIX) for c in headers.getlist("set-cookie"))
        referrer = "no-referrer" if form_post or edit_cookie else "strict-origin-when-cross-origin"
        headers.setdefault("Referrer-Policy", referrer)
        headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        if self.hsts and scope.get("scheme") == "https":
            headers.setdefault("Strict-Transport-Security", self.hsts)
