"""The API docs (`/docs`): Swagger UI from the app's own static files, so it works offline.

FastAPI's built-in page loads Swagger UI from a CDN and starts it with an inline script; this
one serves the vendored copy (static/swagger-ui/, pinned, see PROVENANCE) and starts it from
static/swagger-init.js. ReDoc is not offered (it too would need a CDN).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ..render import templates

router = APIRouter(include_in_schema=False)


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(
        request, "docs.html", {"title": request.app.title, "openapi_url": request.app.openapi_url}
    )
