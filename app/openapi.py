"""The OpenAPI schema, made to say what the server does (`app.openapi = lambda: schema(app)`).

FastAPI's generated schema is right about the routes and their parameters but not about their
answers here:
- errors are `{"detail": "message"}` (app/main.py's handlers), not FastAPI's list of
  validation errors: every 4xx refers to one `Error` schema;
- the statuses a route can give besides its success are listed: 400 (a malformed form), 403 (a
  cross-site request refused, on POST/DELETE; app/security.py), 404 (an unknown tokeniser,
  corpus, job or model), 413 (over a size limit), 422 (invalid input), 429 (too many trainings
  waiting: on every route, as any route that takes a tokeniser's name may train a stored one;
  app/jobs/engine.py), 503 (the database away, or the sandbox busy: on every route, with
  Retry-After; app/main.py), 507 (the store is full, on the POSTs that store a text or a file;
  app/store.py);
- pages (every path outside /api) answer HTML, errors included, and a page's POST may answer
  303 See Other (to the page that shows the result).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

ERROR = {
    "title": "Error",
    "type": "object",
    "required": ["detail"],
    "properties": {"detail": {"type": "string", "title": "what went wrong"}},
}
REASONS = {
    "400": "Malformed request (a form or upload that cannot be parsed)",
    "403": "Refused: a cross-site request (Origin / Sec-Fetch-Site of another site), or a "
    "class's teacher page without its key",
    "409": "Not yet: the class's reference training is still running; try again after "
    "Retry-After seconds",
    "404": "Not found: an unknown tokeniser, corpus, job or model",
    "413": "Too large: a text, corpus or file over its limit",
    "422": "Invalid input; the message says what is wrong",
    "429": "Too many trainings waiting; try again after Retry-After seconds",
    "503": "The database is away or the sandbox is busy; try again after Retry-After seconds",
    "507": "The server's store is full (TOKVIS_MAX_STORE_MB); what is stored still works",
}
HTML = {"text/html": {"schema": {"type": "string"}}}
STORING_POSTS = {
    "/permalink",
    "/corpora",
    "/api/corpora",
    "/api/corpora/upload",
    "/api/corpora/shards",
    "/api/corpora/shards/paths",
    "/api/train/sharded",
    "/tokenizers",
    "/api/tokenizers",
    "/api/train",
    "/api/check",
    "/check",
    "/bpe/train",
    "/wordpiece/train",
    "/unigram/train",
    "/unigram/lattice",
    "/api/classes",
    "/class/new",
}  # store what they get
# a class's routes: those that need the reference trained (409 while it trains), and the
# teacher's (403 without the key)
CLASS_WAITS = {"/api/classes/{code}/answers", "/class/{code}"}  # answering
TEACHER_KEYED = {
    "/api/classes/{code}/results",
    "/class/{code}/results",
    "/class/{code}/results.csv",
}


def _statuses(path: str, method: str, op: dict[str, Any]) -> list[str]:
    codes = ["404", "413", "422", "429", "503"]
    if "requestBody" in op:
        codes.insert(0, "400")
    if method in ("post", "put", "patch", "delete"):
        codes.append("403")
    if method == "post" and path in STORING_POSTS:
        codes.append("507")
    if path in CLASS_WAITS and method == "post":
        codes.append("409")
    if path in TEACHER_KEYED and "403" not in codes:
        codes.append("403")
    return sorted(codes)


def _uniform_tuples(node: Any) -> None:
    """A fixed-length array of one type (`tuple[int, int]`, an offset pair) as `items` with
    min/maxItems: the same constraint as `prefixItems`, in a form every validator reads the
    same way."""
    if isinstance(node, dict):
        parts = node.get("prefixItems", node.get("items"))
        if isinstance(parts, list) and parts and all(p == parts[0] for p in parts):
            node.pop("prefixItems", None)
            node.update(items=parts[0], minItems=len(parts), maxItems=len(parts))
        for value in node.values():
            _uniform_tuples(value)
    elif isinstance(node, list):
        for value in node:
            _uniform_tuples(value)


def schema(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema:
        return app.openapi_schema
    doc = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    components["Error"] = ERROR
    for path, item in doc["paths"].items():
        page = not path.startswith("/api")
        for method, op in item.items():
            responses = op["responses"]
            for code in _statuses(path, method, op):
                content = (
                    HTML
                    if page
                    else {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
                )
                responses[code] = {"description": REASONS[code], "content": content}
            for code in ("409", "429", "503"):
                if code not in responses:
                    continue
                responses[code]["headers"] = {
                    "Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}
                }
            if page:
                for code, response in list(responses.items()):
                    if code.startswith("2"):
                        response["content"] = HTML
                if method == "post":  # most page forms redirect to their result
                    responses["303"] = {
                        "description": "Done: see the page that shows the result",
                        "headers": {"Location": {"schema": {"type": "string"}}},
                    }
    _uniform_tuples(doc)
    app.openapi_schema = doc
    return doc
