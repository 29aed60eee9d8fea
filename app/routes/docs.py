"""The interactive API docs, /docs (Swagger UI) and /redoc (ReDoc), served from this app's own files.

FastAPI's built-in pages load their scripts and styles from a CDN and start Swagger UI with an inline
script: blank on a table's LAN without internet, and only possible under a loose CSP. These pages load
the copies pinned in static/vendor/ and start from static/docs.js, under the docs' CSP in app/http/headers.py.
There is no OAuth here, so no /docs/oauth2-redirect.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.web.render import templates

router = APIRouter(include_in_schema=False)

# Pinned, vendored from the npm registry's swagger-ui-dist (swagger-ui-bundle.js, swagger-ui.css) and
# redoc (bundles/redoc.standalone.js) packages; their licences sit beside them.
SWAGGER_UI_JS = "vendor/swagger-ui-5.35.0.min.js"
SWAGGER_UI_CSS = "vendor/swagger-ui-5.35.0.min.css"
REDOC_JS = "vendor/redoc-3.0.1.min.js"


def _page(request: Request, viewer: str) -> HTMLResponse:
    app = request.app
    context = {
        "viewer": viewer,
        "title": f"{app.title} API" + (" — ReDoc" if viewer == "redoc" else ""),
        "openapi_url": request.scope.get("root_path", "") + app.openapi_url,
        "swagger_ui_js": SWAGGER_UI_JS,
        "swagger_ui_css": SWAGGER_UI_CSS,
        "redoc_js": REDOC_JS,
    }
    return templates.TemplateResponse(request, "api_docs.html", context)


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> HTMLResponse:
    return _page(request, "swagger")


@router.get("/redoc", response_class=HTMLResponse)
def redoc(request: Request) -> HTMLResponse:
    return _page(request, "redoc")
