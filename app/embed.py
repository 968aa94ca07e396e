"""Embeds: `?embed=1` on any page renders it without the site chrome, for an iframe.

`templates/base.html` drops the header and footer when the request asks for it. So that links
inside an embedded view stay embedded, `embed_mode` (an app-wide dependency) records the flag for
the request, and `url_with` adds `embed=1` to every link it builds while the flag is set; app.js
carries it through htmx requests and GET forms. (Without JavaScript, a GET form submitted from
an embed opens the full page.) Which sites may frame the pages is the server's frame policy
(`TOKVIS_FRAME_ANCESTORS`), not decided here.
"""

from __future__ import annotations

from contextvars import ContextVar

from fastapi import Request

EMBED: ContextVar[bool] = ContextVar("tokvis_embed", default=False)


def is_embed(request: Request) -> bool:
    return request.query_params.get("embed") == "1"


async def embed_mode(request: Request) -> None:
    """Set for this request whether links should carry `embed=1` (async, so the flag is set in
    the request's own context and the endpoint, sync or not, sees it)."""
    EMBED.set(is_embed(request))
