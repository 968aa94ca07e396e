"""/corpora, the stored corpora: a corpus pasted in a step view is named by its first words, and
the page confirms what was stored; a stored corpus appears in every corpus picker by name, size
and date, its read-back is the text itself, and CRLF line endings become LF, said once."""

from __future__ import annotations

import re
from html import unescape

import pytest


def _text(html: str) -> str:
    """A page's words, tags dropped and spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


# ---- corpora ------------------------------------------------------------------------------------
def test_a_corpus_pasted_in_a_step_view_is_named_by_its_first_words(client):
    text = "Colourless green ideas sleep furiously tonight and tomorrow too\nsecond line"
    r = client.post("/bpe/train", data={"corpus_text": text}, follow_redirects=False)
    assert r.status_code == 303
    digest = re.search(r"corpus=([0-9a-f]{64})", r.headers["location"]).group(1)
    page = client.get("/corpora").text
    row = [tr for tr in page.split("<tr>") if digest[:16] in tr][0]
    assert "Colourless green ideas sleep" in row


def test_corpora_confirms_what_was_stored(store_client):
    r = store_client.post("/corpora", data={"text": "one two three\nfour", "name": "my notes"})
    assert r.status_code == 200
    words = _text(r.text)
    assert "Stored “my notes”" in words
    assert "2 lines" in words


PICKERS = ["/bpe/train", "/wordpiece/train", "/unigram/train", "/compare", "/sweep"]


@pytest.fixture(scope="module")
def stored(client):
    r = client.post(
        "/corpora",
        data={"text": "low lower\r\nnewest widest\r\n", "name": "my little corpus"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    return r.headers["location"].split("saved=")[1]


def test_pasted_crlf_is_stored_as_lf_and_the_page_says_so(client, stored):
    r = client.get(f"/api/corpora/{stored}/text")
    assert r.text == "low lower\nnewest widest\n"
    assert r.headers["content-type"].startswith("text/plain")
    page = client.get("/corpora").text
    assert page.lower().count("line endings are normalised to lf") == 1


def test_the_api_normalises_too_and_keeps_the_name(store_client):
    info = store_client.post("/api/corpora", json={"text": "a\r\nb", "name": "api one"}).json()
    assert store_client.get(f"/api/corpora/{info['sha256']}/text").text == "a\nb"
    assert "api one" in store_client.get("/corpora").text


@pytest.mark.parametrize("path", PICKERS)
def test_every_corpus_picker_lists_stored_corpora_by_name_size_and_date(client, stored, path):
    html = client.get(path).text
    option = re.search(rf'<option value="{stored}"[^>]*>([^<]*)</option>', html)
    assert option, f"{path} does not offer the stored corpus"
    label = option.group(1)
    assert "my little corpus" in label and "24 B" in label
    assert re.search(r"\d{4}-\d\d-\d\d", label)


def test_model_uploads_are_not_listed_as_corpora(client):
    client.app.state.store.put("sentencepiece-model:base64:AAAA", name="x.model")
    assert "x.model" not in client.get("/bpe/train").text


@pytest.mark.parametrize(
    "path, fields",
    [
        ("/bpe/train", {"variant": "byte_bpe", "vocab_size": "280", "pattern": "gpt2"}),
        ("/wordpiece/train", {"vocab_size": "40", "min_frequency": "2"}),
        ("/unigram/train", {"vocab_size": "60"}),
    ],
)
def test_use_this_corpus_keeps_the_forms_options(client, path, fields):
    r = client.post(
        path, data={"corpus_text": "aa bb aab\r\n", "use": "text", **fields}, follow_redirects=False
    )
    assert r.status_code == 303, r.text[:300]
    for k, v in fields.items():
        if k != "pattern":
            assert f"{k}={v}" in r.headers["location"]


def test_the_train_form_posts_a_picked_corpus_to_its_permalink(client, stored):
    r = client.post(
        "/bpe/train",
        data={
            "corpus": stored,
            "variant": "bpe",
            "vocab_size": "30",
            "use": "pick",
            "corpus_text": "ignored",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303 and f"corpus={stored}" in r.headers["location"]
