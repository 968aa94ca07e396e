"""The OpenAPI schema says what the server does: errors as {"detail": string}, the 4xx statuses
listed, pages as HTML (303 after most POSTs), bounds stated; 405 names every allowed method, HEAD
works, and schema-invalid input is refused."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def spec(client):
    return client.get("/openapi.json").json()


def test_errors_are_documented_as_detail_strings(spec):
    assert spec["components"]["schemas"]["Error"]["properties"]["detail"]["type"] == "string"
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    encode = spec["paths"]["/api/encode"]["post"]["responses"]
    for code in ("400", "403", "404", "413", "422"):
        assert encode[code]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }
    assert "429" in spec["paths"]["/api/train"]["post"]["responses"]
    assert "Retry-After" in spec["paths"]["/api/sweep"]["post"]["responses"]["429"]["headers"]


def test_pages_are_documented_as_html(spec):
    page = spec["paths"]["/bpe/train"]
    assert list(page["get"]["responses"]["200"]["content"]) == ["text/html"]
    assert list(page["get"]["responses"]["422"]["content"]) == ["text/html"]
    assert "303" in page["post"]["responses"]


def test_size_parameters_have_bounds_in_the_schema(spec):
    def param(path, name):
        return next(
            p["schema"] for p in spec["paths"][path]["get"]["parameters"] if p["name"] == name
        )

    assert param("/wordpiece/train", "vocab_size")["maximum"] == 50_000
    assert param("/unigram/train", "vocab_size")["maximum"] == 8000
    assert param("/api/unigram/lattice", "n")["maximum"] == 50
    assert param("/compare", "vocab")["maximum"] == 100_000
    train = spec["components"]["schemas"]["TrainRequest"]["properties"]["vocab_size"]
    assert train["maximum"] == 100_000
    sweep = spec["components"]["schemas"]["SweepRequest"]["properties"]["sizes"]
    assert sweep["items"]["maximum"] == 50_000 and sweep["maxItems"] == 12


def test_out_of_bounds_sizes_are_refused(client):
    r = client.post(
        "/api/train",
        json={"algorithm": "wordpiece", "corpus_name": "botchan", "vocab_size": 10**12},
    )
    assert r.status_code == 422 and "vocab_size" in r.json()["detail"]
    r = client.post("/api/sweep", json={"sizes": [100, 10**9]})
    assert r.status_code == 422
    r = client.post("/unigram/train/use", data={"corpus": "botchan", "vocab_size": "99999999"})
    assert r.status_code == 422


@pytest.mark.parametrize(
    "url", ["/api/tax?tok=", "/api/unicode?text=a&tok=", "/api/compare?text=a&col="]
)
def test_empty_names_are_refused(client, url):
    r = client.get(url)
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)


@pytest.mark.parametrize(
    "method, path, allowed",
    [
        ("PUT", "/bpe/train", "GET, HEAD, POST"),
        ("DELETE", "/api/encode", "POST"),
        ("POST", "/api/tokenizers", None),
        ("PATCH", "/api/sweep/abc", "DELETE, GET, HEAD"),
    ],
)
def test_405_names_every_allowed_method(client, method, path, allowed):
    r = client.request(method, path)
    if allowed is None:  # POST /api/tokenizers may exist (tokenizer upload)
        assert r.status_code in (405, 422)
        return
    assert r.status_code == 405
    assert r.headers["Allow"] == allowed


def test_head_works_like_get_without_a_body(client):
    r = client.head("/")
    assert r.status_code == 200 and r.content == b""
    assert r.headers["content-type"].startswith("text/html")
    assert client.head("/api/tokenizers").status_code == 200
    assert client.head("/static/app.js").status_code == 200
