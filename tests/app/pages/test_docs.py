"""/docs, the API's documentation, works offline: Swagger UI's assets come from the app, not a
CDN."""

from __future__ import annotations

import re


def test_docs_page_loads_only_local_assets(client):
    r = client.get("/docs")
    assert r.status_code == 200
    urls = re.findall(r'(?:src|href)="([^"]+)"', r.text)
    assert urls and all(u.startswith("/") for u in urls), urls
    assert "<script>" not in r.text  # no inline script: the CSP may forbid it
    for url in urls:
        assert client.get(url).status_code == 200, url


def test_swagger_ui_is_pinned_with_its_provenance(client):
    note = client.get("/static/swagger-ui/PROVENANCE").text
    assert "swagger-ui-dist@5.35.0" in note and "sha256" in note
    assert "SwaggerUIBundle" in client.get("/static/swagger-ui/swagger-ui-bundle.js").text[:200_000]


def test_openapi_still_served_and_redoc_not_half_broken(client):
    assert client.get("/openapi.json").json()["info"]["title"] == "Tokenizer Visualiser"
    assert client.get("/redoc").status_code == 404  # ReDoc would need a CDN: not offered
