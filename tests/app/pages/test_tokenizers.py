"""Uploading a tokenizer (`POST /api/tokenizers`, and the pages' upload forms): what the docs say
about upload limits and what `Allow` says about a path are what the server does.

The app under test: corpora and plain files up to 2 MB, tokenizer files up to 3 MB, so a request
body may be up to 7 MB (`limits.body_limit`: a corpus escaped, 3 x 2 MB, plus 1 MB for the other
fields), and a GGUF model sent whole up to 20 MB more.
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from fastapi.testclient import TestClient

import tokenizers_core as tc
from app import limits
from app.config import Settings
from app.main import create_app
from tests.gguf_files import write_gpt2
from tokenizers_core.formats.gguf import read_metadata

TOKENIZER_LIMIT = 3_000_000
BODY_LIMIT = limits.body_limit(2_000_000, 2_000_000, TOKENIZER_LIMIT)  # 7,000,000
GGUF_MB = 20


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("small-truths") / "store.sqlite3"
    app = create_app(
        Settings(
            db_path=db,
            max_text_chars=20_000,
            max_corpus_bytes=2_000_000,
            max_upload_bytes=2_000_000,
            max_tokenizer_bytes=TOKENIZER_LIMIT,
            regex_timeout=0.5,
            max_gguf_upload_mb=GGUF_MB,
        )
    )
    with TestClient(app) as c:
        yield c


def folder_zip(tokenizer_json: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bert/tokenizer.json", tokenizer_json)
        zf.writestr("bert/tokenizer_config.json", json.dumps({"model_max_length": 512}))
    return out.getvalue()


# ---- a model folder's zip is held to TOKVIS_MAX_TOKENIZER_BYTES, as the docs say ----------------
def test_a_model_folder_within_the_limit_loads(client):
    data = folder_zip(json.dumps(tc.load("bert-base-uncased").to_hf_json()).encode())
    r = client.post("/api/tokenizers", files={"file": ("bert.zip", data)})
    assert r.status_code == 201, r.text
    assert r.json()["format"] == "model_folder"


def test_a_model_folder_whose_files_unzip_past_the_limit_is_413(client):
    """A tokenizer.json of 3.5 MB (bert's, padded with spaces: still valid JSON) zips to about
    half a megabyte, under the 3 MB limit; unzipped it is over it. It used to load: the model
    folder's reader read up to 64 MiB whatever the setting."""
    padded = json.dumps(tc.load("bert-base-uncased").to_hf_json()).encode() + b" " * 3_000_000
    data = folder_zip(padded)
    assert len(data) < TOKENIZER_LIMIT < len(padded)
    r = client.post("/api/tokenizers", files={"file": ("bert.zip", data)})
    assert r.status_code == 413, r.text[:200]
    assert "TOKVIS_MAX_TOKENIZER_BYTES" in r.json()["detail"]


# ---- a GGUF model sent whole (no JavaScript) has its first part read ----------------------------
@pytest.fixture(scope="module")
def gguf(tmp_path_factory) -> tuple[bytes, int]:
    """The bundled GPT-2 as a GGUF, and where its key-value section ends."""
    path = write_gpt2(str(tmp_path_factory.mktemp("gguf") / "gpt2.gguf"))
    return open(path, "rb").read(), read_metadata(path).kv_end


@pytest.mark.heavy
def test_a_gguf_larger_than_any_body_loads_from_its_metadata(client, gguf):
    """The "tensors" take the file past the 7 MB body limit: it used to be a 413 ("Content Too
    Large", in plain text), though the docs promised the first part is read."""
    data, kv_end = gguf
    model = data + bytes(BODY_LIMIT)
    r = client.post("/api/tokenizers", files={"file": ("model.gguf", model)})
    assert r.status_code == 201, r.text[:300]
    assert r.json()["format"] == "gguf" and r.json()["bytes"] == kv_end  # metadata kept
    # the upload form, without JavaScript: a redirect to the page with the new handle
    r = client.post("/tokenizers", files={"file": ("model.gguf", model)}, follow_redirects=False)
    assert r.status_code == 303, r.text[:300]


def test_other_files_stop_at_the_body_limit_with_a_message(client):
    r = client.post("/api/tokenizers", files={"file": ("vocab.txt", b"[UNK]\n" * 1_500_000)})
    assert r.status_code == 413
    assert "TOKVIS_MAX_TOKENIZER_BYTES" in r.json()["detail"]


@pytest.mark.heavy
def test_only_the_models_own_bytes_may_pass_the_limit(client, gguf):
    """Fields sent with a GGUF are held to the ordinary limit: two of 4 MB are too much."""
    data, _ = gguf
    r = client.post(
        "/api/tokenizers",
        files={"file": ("model.gguf", data)},
        data={"name": "n" * 4_000_000, "pattern": "p" * 4_000_000},
    )
    assert r.status_code == 413
    assert "besides a GGUF model's own bytes" in r.json()["detail"]


def test_a_gguf_past_its_own_bound_is_413_naming_the_setting(client, gguf):
    data, _ = gguf
    model = data + bytes(BODY_LIMIT + GGUF_MB * 10**6)
    r = client.post("/api/tokenizers", files={"file": ("model.gguf", model)})
    assert r.status_code == 413
    assert "TOKVIS_MAX_GGUF_UPLOAD_MB" in r.json()["detail"]


def test_a_body_over_the_limit_is_answered_as_the_api_answers_errors(client):
    """`{"detail"}` naming the settings (it was a bare "Content Too Large" in text)."""
    r = client.post(
        "/api/corpora",
        content=b"x" * (BODY_LIMIT + 1),
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 413
    assert "TOKVIS_MAX_CORPUS_BYTES" in r.json()["detail"]
    page = client.post("/corpora", data={"text": "x" * (BODY_LIMIT + 1)})
    assert page.status_code == 413 and "TOKVIS_MAX_CORPUS_BYTES" in page.text


# ---- Allow names what the path answers -----------------------------------------------------------
@pytest.mark.parametrize("method", ["OPTIONS", "GET", "HEAD", "PUT", "DELETE"])
def test_the_corpus_upload_path_answers_post_only(client, method):
    """`/api/corpora/{sha256}` (GET) matches `/api/corpora/upload` as a template, but "upload"
    is no sha256: the path takes POST only, and says so (it said `GET, HEAD, POST`)."""
    r = client.request(method, "/api/corpora/upload")
    assert r.status_code == 405
    assert r.headers["Allow"] == "POST"


def test_the_corpus_upload_path_still_takes_its_post(client):
    r = client.post("/api/corpora/upload", files={"file": ("c.txt", b"a small corpus")})
    assert r.status_code == 201


@pytest.mark.parametrize("path", ["/docs", "/openapi.json", "/static/app.js"])
def test_paths_outside_the_schema_name_get_and_head(client, path):
    """Every GET here answers HEAD too (`RequestContext`); `Allow` said `GET` for /docs and
    `HEAD, GET` for /openapi.json, Starlette's words."""
    r = client.put(path)
    assert r.status_code == 405 and r.headers["Allow"] == "GET, HEAD"
    assert client.head(path).status_code == 200
