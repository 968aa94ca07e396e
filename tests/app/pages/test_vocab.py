"""/vocab, the vocabulary browser: a tokenizer's entries searched, paged and shown with their
detail, the uploaded ones browsed like the bundled."""

from __future__ import annotations

import re
from html import unescape

import pytest


def rows(html: str) -> list[tuple[int, str]]:
    """(id, token as drawn) of each row of the vocabulary table."""
    table = html.split('data-testid="vocab-table"', 1)[1].split("</table>", 1)[0]
    return [
        (int(i), unescape(t))
        for i, t in re.findall(
            r'<a href="[^"]*">(\d+)</a></td>\s*<td><span class="piece[^"]*">([^<]*)</span>', table
        )
    ]


def test_look_up_by_id_shows_bytes_rank_and_merge_tree(client):
    r = client.get("/vocab", params={"tokenizer": "cl100k_base", "q": "1917", "id": 1917})
    assert r.status_code == 200
    assert rows(r.text) == [(1917, "·world")]
    detail = r.text.split('data-testid="vocab-detail"', 1)[1].split("</article>", 1)[0]
    assert "20 77 6F 72 6C 64" in detail and "merge rank" in detail
    tree = detail.split('data-testid="vocab-tree"', 1)[1]
    assert tree.count("<li>") >= 3  # ·world is built from smaller tokens


def test_substring_search_is_paged(client):
    r = client.get("/vocab", params={"tokenizer": "cl100k_base", "q": "ing"})
    found = rows(r.text)
    assert len(found) == 50 and all("ing" in t.casefold() for _, t in found)
    assert "page <b>1</b>" in r.text
    assert 'rel="prev"' not in r.text
    assert 'href="/vocab?tokenizer=cl100k_base&amp;q=ing&amp;page=1"' in r.text
    nxt = client.get("/vocab", params={"tokenizer": "cl100k_base", "q": "ing", "page": 1})
    assert rows(nxt.text)[0][0] > found[-1][0]
    assert "page <b>2</b>" in nxt.text  # the first page's link leaves `page` out of the URL
    assert 'rel="prev" href="/vocab?tokenizer=cl100k_base&amp;q=ing"' in nxt.text


def test_unigram_scores_and_corpus_frequency(client):
    r = client.get(
        "/vocab",
        params={"tokenizer": "botchan_en_unigram_1000", "q": "▁the", "corpus": "botchan", "id": 5},
    )
    table = r.text.split('data-testid="vocab-table"', 1)[1]
    assert "score" in table and re.search(r'<td class="num">-\d+\.\d{4}</td>', table)
    counts = re.findall(r'<td class="num">([\d,]+)</td>\s*</tr>', table)
    assert counts and max(int(c.replace(",", "")) for c in counts) > 1000  # ▁the is common


def test_trained_handles_and_wordpiece(client):
    handle = client.post(
        "/api/train", json={"algorithm": "bpe", "corpus": "low lower newest\n", "vocab_size": 20}
    ).json()["tokenizer"]
    r = client.get("/vocab", params={"tokenizer": handle})
    assert r.status_code == 200 and rows(r.text)
    r = client.get("/vocab", params={"tokenizer": "bert-base-uncased", "q": "##ing"})
    assert any(t == "##ing" for _, t in rows(r.text))


@pytest.mark.parametrize(
    "params, status, words",
    [
        ({"tokenizer": "nope"}, 404, "unknown tokeniser"),
        ({"tokenizer": "word"}, 422, "no vocabulary"),
        ({"tokenizer": "gpt2", "id": 99999999}, 404, "no token with id"),
        ({"tokenizer": "gpt2", "page": -1}, 422, "page"),
        ({"tokenizer": "gpt2", "corpus": "nope"}, 404, "unknown corpus"),
        ({"tokenizer": "gpt2", "q": "<script>"}, 200, "&lt;script&gt;"),
    ],
)
def test_bad_input_is_a_message(client, params, status, words):
    r = client.get("/vocab", params=params)
    assert r.status_code == status and words in r.text


def test_every_visualiser_chip_links_to_its_entry(client):
    """Each chip's popover (POST /visualiser/token) links to its vocabulary entry."""
    form = {"text": "Hello world", "tokenizer": "cl100k_base"}
    html = client.get("/", params=form).text
    assert html.count("data-id=") == 2 and "data-id=1917>" in html
    for i, id_ in enumerate([9906, 1917]):
        facts = client.post("/visualiser/token", data={**form, "i": i}).text
        assert facts.count('data-testid="vocab-link"') == 1
        assert f"/vocab?tokenizer=cl100k_base&amp;id={id_}" in facts


def test_compare_columns_name_their_vocabulary(store_client):
    corpus = store_client.post(
        "/api/corpora", json={"text": "low lower newest widest\n" * 20}
    ).json()
    html = store_client.get(
        "/compare",
        params={
            "text": "lowest",
            "col": ["bpe", "word", "gpt2"],
            "corpus": corpus["sha256"],
            "vocab": 30,
            "wait": "true",
        },
    ).text
    links = re.findall(r'data-vocab="([^"]+)"', html)
    assert len(links) == 2  # the word column has no vocabulary
    for link in links:
        assert store_client.get(unescape(link) + "&id=0").status_code == 200


def test_uploaded_tokenizers_are_browsed_like_bundled_ones(store_client):
    import gzip
    import os

    from tokenizers_core.formats.sentencepiece_model import _DATA

    with gzip.open(os.path.join(_DATA, "botchan_en_unigram_1000.model.gz"), "rb") as fh:
        model = fh.read()
    handle = store_client.post(
        "/api/tokenizers", files={"file": ("m.model", model)}, data={"name": "my unigram"}
    ).json()["tokenizer"]
    r = store_client.get("/vocab", params={"tokenizer": handle, "q": "▁the", "id": 5})
    assert r.status_code == 200 and rows(r.text)
    assert "score (log P)" in r.text and "my unigram" in r.text
    vocab_txt = "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "play", "##ing", "##ed"]).encode()
    handle = store_client.post("/api/tokenizers", files={"file": ("vocab.txt", vocab_txt)}).json()[
        "tokenizer"
    ]
    r = store_client.get("/vocab", params={"tokenizer": handle, "q": "##"})
    assert [t for _, t in rows(r.text)] == ["##ing", "##ed"]


def test_the_browsers_caches_do_not_keep_a_dropped_tokenizer_alive():
    """/vocab's per-model caches hold their model weakly: a tokeniser the upload cache drops
    (bounded by memory) is freed, entries and merge ranks with it."""
    import gc
    import weakref

    from app import vocab
    from tokenizers_core.formats import hf_json

    tok = hf_json.from_dict(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
        }
    )
    assert [e.value for e in vocab.entries_of(tok)] == ["a", "b", "ab"]
    assert vocab.merge_rank(tok.model, "ab") == 0
    model = weakref.ref(tok.model)
    del tok
    gc.collect()
    assert model() is None
