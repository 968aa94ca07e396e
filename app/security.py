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

GETs that start work are held to the same rule (a sibling subdomain, `same-site`, passes too):
`/trained/open` and the training answers under `/api/{bpe,wordpiece,unigram}/` and their
downloads (`WORK_GETS`). A page's GET that would queue a new job (a step view of a large
corpus) is refused when another site's page makes the browser fetch it as a subresource (an
`<img>`, a script, a fetch) or frames it where framing is not allowed; a permalink followed
from elsewhere (a top-level navigation) still works, as does any direct GET
(`queued_work_refusal`, the job engine's guard when it would create a job).

Errors: an exception no handler took is answered here, as a 500 with these headers (JSON
`{"detail"}` under /api, else the error page), and raised on for the server's log.

Hosts (`HostCheck`, DNS rebinding): only the hosts the server is configured for are answered,
127.0.0.1, localhost, [::1] and what `TOKVIS_ALLOWED_HOSTS` adds; any other Host gets 400. A
page on evil.example whose DNS name is rebound to 127.0.0.1 sends `Host: evil.example:8000`
(and a matching Origin, so the cross-site check alone would let it through): it reads and writes
nothing.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}
DOCS_PATHS = ("/docs",)  # the API docs page: Swagger UI's own styles, no user content
WORK_GETS = (
    "/trained/open",
    "/api/bpe/",
    "/api/wordpiece/",
    "/api/unigram/",
    "/api/download/bpe/",
    "/api/download/wordpiece/",
    "/api/download/unigram/",
)
GET_SITES = ("same-origin", "same-site", "none")  # what a GET that starts work may come from


def refusal(reason: str) -> str:
    return (
        f"cross-site request refused: {reason}. Use the form or link on this site's own "
        "page, or call the API from a script (no browser Origin)."
    )


def content_security_policy(frame_ancestors: str) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            f"frame-ancestors {frame_ancestors}",
        ]
    )


def cross_site_reason(method: str, headers: Headers, path: str = "") -> str | None:
    """Why a request must be refused as cross-site, or None if it may go on (a GET only if
    `path` starts work, see WORK_GETS).

    >>> cross_site_reason("POST", Headers({"sec-fetch-site": "cross-site"}))
    'Sec-Fetch-Site is cross-site'
    >>> cross_site_reason("POST", Headers({"origin": "http://evil.example", "host": "a:8000"}))
    'Origin http://evil.example is not this site (a:8000)'
    >>> cross_site_reason("POST", Headers({"origin": "http://a:8000", "host": "a:8000"})) is None
    True
    >>> cross_site_reason("GET", Headers({"sec-fetch-site": "cross-site"}), "/trained/open")
    'Sec-Fetch-Site is cross-site'
    """
    if method in SAFE_METHODS:
        return foreign(headers, GET_SITES) if path.startswith(WORK_GETS) else None
    return foreign(headers, ("same-origin", "none"))


def queued_work_reason(request: Request | None) -> str | None:
    """Why a GET may not queue a new job: another site's page had the browser fetch it as a
    subresource, or frame it where framing is not allowed (None: it may)."""
    if request is None or request.method not in SAFE_METHODS:
        return None  # writes were checked on the way in
    headers = request.headers
    mode, dest = headers.get("sec-fetch-mode"), headers.get("sec-fetch-dest", "document")
    if mode == "navigate" and dest == "document":
        return None  # a permalink followed from anywhere
    if mode == "navigate" and not _frames_only_here(request):
        return None  # framed by a site TOKVIS_FRAME_ANCESTORS allows
    return foreign(headers, GET_SITES)


def queued_work_refusal(request: Request | None) -> str | None:
    """The message refusing a GET that may not queue a new job (see `queued_work_reason`)."""
    reason = queued_work_reason(request)
    return None if reason is None else refusal(reason)


def _frames_only_here(request: Request) -> bool:
    settings = getattr(request.app.state, "settings", None) if "app" in request.scope else None
    return getattr(settings, "frame_ancestors", "'self'").strip() == "'self'"


def foreign(headers: Headers, sites: tuple[str, ...]) -> str | None:
    """Sec-Fetch-Site when present (one of `sites` passes), else Origin (this host passes);
    neither (not a browser page): None."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return None if site in sites else f"Sec-Fetch-Site is {site}"
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
        reason = cross_site_reason(scope["method"], Headers(scope=scope), scope["path"])
        if reason is not None:
            response = await self.refuse(scope, receive, reason)
            await response(scope, receive, self.with_headers(scope, send))
            return
        started = False

        async def send_started(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, self.with_headers(scope, send_started))
        except Exception:
            if not started:  # Starlette's own 500 would come without the headers
                response = self.internal_error(scope, receive)
                await response(scope, receive, self.with_headers(scope, send))
            raise  # for the server's log (ServerErrorMiddleware re-raises)

    def with_headers(self, scope: Scope, send: Send) -> Send:
        docs = scope["path"] in DOCS_PATHS

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

    @staticmethod
    def internal_error(scope: Scope, receive: Receive):
        message = "internal server error"
        if scope["path"].startswith("/api"):
            from fastapi.responses import JSONResponse

            return JSONResponse({"detail": message}, status_code=500)
        try:
            from .render import render

            return render(
                Request(scope, receive),
                "error.html",
                {"status": 500, "message": message},
                status_code=500,
            )
        except Exception:  # the page itself failed: plain text
            from starlette.responses import PlainTextResponse

            return PlainTextResponse(message, status_code=500)

    async def refuse(self, scope: Scope, receive: Receive, reason: str):
        message = refusal(reason)
        if scope["path"].startswith("/api"):
            from fastapi.responses import JSONResponse

            return JSONResponse({"detail": message}, status_code=403)
        from .render import render

        return render(
            Request(scope, receive),
            "error.html",
            {"status": 403, "message": message},
            status_code=403,
        )


# ---- hosts (DNS rebinding) -------------------------------------------------------------------------
ADMITTED = "tokvis.host_admitted"  # scope key: the host check let this request through


def host_refusal(host: str | None) -> str:
    """What a request for a host this server does not answer for is told.

    >>> host_refusal("evil.example:8000")[:62]
    "this server does not answer for the host 'evil.example:8000'. "
    """
    if not host:
        return (
            "the request has no Host header; this server answers only for the hosts set in "
            "TOKVIS_ALLOWED_HOSTS (and 127.0.0.1, localhost, [::1])"
        )
    return (
        f"this server does not answer for the host {host[:100]!r}. If it is meant to be "
        "reached by that name, add the name to TOKVIS_ALLOWED_HOSTS (space- or "
        "comma-separated; 127.0.0.1, localhost and [::1] are always allowed)"
    )


class HostCheck(TrustedHostMiddleware):
    """400 for a request whose Host is not one of `allowed_hosts` (`config.host_patterns`).

    Starlette's TrustedHostMiddleware decides, unchanged: it is the well-kept part. Its Host
    parser (`starlette._utils.parse_host_header`, read in Starlette 1.10) drops the port and
    keeps an IPv6 literal's brackets, so `localhost:8000` is `localhost` and `[::1]:8000` is
    `[::1]` (older Starlettes split at the first colon, which made the latter `[`: the tests
    pin it); a missing or malformed Host is refused; `*.example.org` matches the subdomains.
    This thin subclass puts right what it gets wrong for us, around its `__call__`:
    - its refusal is a bare "Invalid host header"; ours names the host and the setting to
      change, as `{"detail": ...}` under /api and as plain text elsewhere;
    - it would redirect example.org to www.example.org when only the latter is allowed
      (`www_redirect`): off, a host not listed is refused;
    - it checks the patterns with `assert` (gone under `python -O`): `config.host_patterns`
      checks them first, with a ValueError naming TOKVIS_ALLOWED_HOSTS.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: tuple[str, ...]) -> None:
        super().__init__(_Admit(app), allowed_hosts=list(allowed_hosts), www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        refused = False

        async def explained(message: Message) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and not scope.get(ADMITTED):
                refused = True  # Starlette's own 400: ours goes instead
                await self.refusal(scope)(scope, receive, send)
            elif not refused:
                await send(message)

        await super().__call__(scope, receive, explained)

    @staticmethod
    def refusal(scope: Scope) -> Response:
        message = host_refusal(Headers(scope=scope).get("host"))
        if scope["path"].startswith("/api"):
            return JSONResponse({"detail": message}, status_code=400)
        return PlainTextResponse(message, status_code=400)


class _Admit:
    """The app behind the host check, marking the requests it let through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[ADMITTED] = True
        await self.app(scope, receive, send)
