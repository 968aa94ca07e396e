"""Security headers and cross-site request refusal, for every response (one ASGI middleware).

Headers:
- `Content-Security-Policy`: scripts, styles, fonts and fetches from the app itself only (no
  inline script or style: the templates keep theirs in `static/`, htmx's own indicator style is
  turned off in base.html's `htmx-config`); who may frame a page comes from
  `TOKVIS_FRAME_ANCESTORS` (default `'self'`), since teachers embed views (`?embed=1`).
- `X-Frame-Options: SAMEORIGIN` too while framing is left at `'self'` (older browsers).
- `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin`.

Cross-site requests: a state-changing request (POST, PUT, PATCH, DELETE) that a browser marks as
coming from another site is refused with 403, the rule of Go's `http.CrossOriginProtection`:
`Sec-Fetch-Site` is trusted when present (`same-origin` or `none` pass); else an `Origin` header
must name this host; a request with neither (curl, scripts, TestClient) is not from a browser
page and passes. So no page elsewhere can start work on this server through its users' browsers,
and no token needs threading through every form.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}
DOCS_PATHS = ("/docs", "/redoc")     # FastAPI's own API pages: its inline script, no user content


def content_security_policy(frame_ancestors: str) -> str:
    return "; ".join([
        "default-src 'self'", "script-src 'self'", "style-src 'self'",
        "img-src 'self' data:", "font-src 'self'", "connect-src 'self'",
        "object-src 'none'", "base-uri 'none'", "form-action 'self'",
        f"frame-ancestors {frame_ancestors}",
    ])


def cross_site_reason(method: str, headers: Headers) -> str | None:
    """Why a request must be refused as cross-site, or None if it may go on.

    >>> cross_site_reason("POST", Headers({"sec-fetch-site": "cross-site"}))
    'Sec-Fetch-Site is cross-site'
    >>> cross_site_reason("POST", Headers({"origin": "http://evil.example", "host": "a:8000"}))
    'Origin http://evil.example is not this site (a:8000)'
    >>> cross_site_reason("POST", Headers({"origin": "http://a:8000", "host": "a:8000"})) is None
    True
    """
    if method in SAFE_METHODS:
        return None
    site = headers.get("sec-fetch-site")
    if site is not None:
        return None if site in ("same-origin", "none") else f"Sec-Fetch-Site is {site}"
    origin = headers.get("origin")
    if origin is None:
        return None
    host = headers.get("host", "")
    if origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
        return f"Origin {origin} is not this site ({host})"
    return None


class SecurityMiddleware:
    def __init__(self, app: ASGIApp, frame_ancestors: str = "'self'") -> None:
        self.app = app
        self.csp = content_security_policy(frame_ancestors)
        self.same_origin_frames = frame_ancestors.strip() == "'self'"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reason = cross_site_reason(scope["method"], Headers(scope=scope))
        if reason is not None:
            response = await self.refuse(scope, receive, reason)
            await response(scope, receive, self.with_headers(scope, send))
            return
        await self.app(scope, receive, self.with_headers(scope, send))

    def with_headers(self, scope: Scope, send: Send) -> Send:
        docs = scope["path"].startswith(DOCS_PATHS)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if not docs:
                    headers["Content-Security-Policy"] = self.csp
                if self.same_origin_frames:
                    headers["X-Frame-Options"] = "SAMEORIGIN"
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "same-origin"
            await send(message)

        return send_with_headers

    async def refuse(self, scope: Scope, receive: Receive, reason: str):
        message = (f"cross-site request refused: {reason}. Use the form on this site's own "
                   "page, or call the API from a script (no browser Origin).")
        if scope["path"].startswith("/api"):
            from fastapi.responses import JSONResponse
            return JSONResponse({"detail": message}, status_code=403)
        from .render import render
        return render(Request(scope, receive), "error.html", {"status": 403, "message": message},
                      status_code=403)
