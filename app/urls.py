"""Links the pages build: `url_with(path, params, **changes)`.

Its own module, below both `app.render` (which offers it to templates) and `app.export` (whose
download links use it), so neither imports the other.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from .embed import EMBED


def url_with(path: str, params: dict[str, Any], **changes: Any) -> str:
    """`path?query` with `changes` applied to `params` (a value of None drops the key; a list
    repeats it).

    >>> url_with("/compare", {"text": "a b", "col": ["bpe", "word"]}, ref=1)
    '/compare?text=a+b&col=bpe&col=word&ref=1'
    """
    merged = {**params, **changes}
    if EMBED.get() and path.startswith("/") and not path.startswith(("/api", "/static")):
        merged.setdefault("embed", 1)  # links inside an embedded view stay embedded
    pairs = []
    for k, v in merged.items():
        for item in v if isinstance(v, (list, tuple)) else [v]:
            if item is not None and item != "":
                pairs.append((k, item))
    query = urlencode(pairs)
    return f"{path}?{query}" if query else path
