"""Take it with you: the download line on the visualiser, the training and the encode views;
`/api/download/tokenizer`; `/trained/open` (a training view's tokeniser, trained to the end)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

import tokenizers_core as tc
from app import export
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import dump_bytes, load_bytes

TEXT = "the lowest newest widest"


def links(html: str) -> dict[str, str]:
    """data-testid -> href of the links in the page's download line."""
    line = re.search(r'<p class="small take-away" data-testid="take-away">(.*?)</p>', html, re.S)
    assert line, "no download line on the page"
    return {
        t: unescape(h)
        for h, t in re.findall(r'<a href="([^"]+)"[^>]*data-testid="([^"]+)"', line.group(1))
    }


def follow(client, href: str):
    r = client.get(href)
    assert r.status_code == 200, (href, r.text[:300])
    return r


# ---- which formats ------------------------------------------------------------------------------
def _writes(tok, format: str) -> bool:
    try:
        dump_bytes(tok, format)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("algorithm", sorted(export.TRAINED_FORMATS))
def test_trained_formats_are_those_the_writers_write(algorithm):
    """The exact formats and the lossy ones: together, every format the writers write."""
    lines = load_corpus("botchan").splitlines()[:200]
    tok = tc.train(algorithm, lines, 300)
    written = [f for f in export.FORMATS[:-1] if _writes(tok, f)] or ["vocab_merges"]
    assert export.formats_of(tok) == export.TRAINED_FORMATS[algorithm]
    assert sorted(export.formats_of(tok) + list(export.lossy_formats_of(tok))) == sorted(written)


@pytest.mark.heavy
def test_a_large_model_is_decided_by_type_as_the_writers_decide():
    tok = tc.load("cl100k_base")
    assert export.formats_of(tok) == ["hf_json", "tiktoken"]
    assert export.formats_of(tok) == [f for f in export.FORMATS[:-1] if _writes(tok, f)]


def test_rule_tokenizers_have_no_formats():
    for name in ("char", "word", "sentence"):
        assert export.formats_of(tc.load(name)) == []


# ---- the route ----------------------------------------------------------------------------------
def test_download_a_bundled_tokenizer_in_each_format(client):
    r = follow(client, "/api/download/tokenizer?tokenizer=bert-base-uncased&format=vocab_txt")
    assert r.headers["content-disposition"] == 'attachment; filename="vocab.txt"'
    tok = tc.load("bert-base-uncased")
    assert r.content == dump_bytes(tok, "vocab_txt")
    r = follow(client, "/api/download/tokenizer?tokenizer=bert-base-uncased&format=hf_json")
    assert r.headers["content-disposition"] == 'attachment; filename="tokenizer.json"'
    back = load_bytes(r.content, format="hf_json")
    assert back.encode("Unaffable tokenizers!").ids == tok.encode("Unaffable tokenizers!").ids
    r = follow(
        client, "/api/download/tokenizer?tokenizer=botchan_en_unigram_1000&format=sentencepiece"
    )
    assert 'filename="botchan_en_unigram_1000.model"' in r.headers["content-disposition"]
    back = load_bytes(r.content, format="sentencepiece")
    sp = tc.load("botchan_en_unigram_1000")
    assert back.encode(TEXT).tokens == sp.encode(TEXT).tokens


def test_a_format_the_tokenizer_lacks_names_those_it_has(client):
    r = client.get("/api/download/tokenizer?tokenizer=bert-base-uncased&format=tiktoken")
    assert r.status_code == 422
    assert "hf_json, vocab_txt" in r.json()["detail"]
    r = client.get("/api/download/tokenizer?tokenizer=char&format=hf_json")
    assert r.status_code == 422 and "no file form" in r.json()["detail"]
    r = client.get("/api/download/tokenizer?tokenizer=bert-base-uncased&format=docx")
    assert r.status_code == 422 and "unknown format 'docx'" in r.json()["detail"]
    r = client.get("/api/download/tokenizer?tokenizer=no-such-thing&format=hf_json")
    assert r.status_code == 404 and "detail" in r.json()


# ---- the visualiser -----------------------------------------------------------------------------
def test_visualiser_links_each_format_of_the_current_tokenizer(client):
    """Its exact formats (its tokenizer.json matches "<unk>" in text: offered apart, see
    test_export_exactness.py)."""
    html = client.get("/?tokenizer=botchan_en_unigram_1000&text=" + TEXT).text
    found = links(html)
    assert set(found) == {"download-sentencepiece", "download-trace"}
    api = client.get(
        "/api/download/tokenizer?tokenizer=botchan_en_unigram_1000&format=sentencepiece"
    ).content
    assert follow(client, found["download-sentencepiece"]).content == api
    trace = follow(client, found["download-trace"]).text.splitlines()
    expected = client.get(
        "/api/trace", params={"text": TEXT, "tokenizer": "botchan_en_unigram_1000"}
    )
    assert [json.loads(line) for line in trace] == expected.json()["steps"]


def test_visualiser_rule_tokenizer_has_only_its_trace(client):
    assert set(links(client.get("/?tokenizer=word&text=" + TEXT).text)) == {"download-trace"}


# ---- the training views -------------------------------------------------------------------------
TRAIN_VIEWS = [
    ("/bpe/train", "bpe", ["vocab_merges"], ["trace", "merges", "vocab"]),
    (
        "/bpe/train?variant=byte_bpe&corpus=udhr/eng&vocab_size=300",
        "byte_bpe",
        ["hf_json", "tiktoken"],
        ["trace", "merges", "vocab"],
    ),
    (
        "/bpe/train?variant=sentencepiece_bpe",
        "sentencepiece_bpe",
        ["sentencepiece"],
        ["trace", "merges", "vocab"],
    ),
    ("/wordpiece/train", "wordpiece", ["hf_json", "vocab_txt"], ["trace", "merges", "vocab"]),
    ("/unigram/train?vocab_size=100", "unigram", ["sentencepiece"], ["trace", "vocab"]),
]


@pytest.mark.parametrize("view,algorithm,formats,files", TRAIN_VIEWS)
def test_training_view_links_onward_and_to_every_file(client, view, algorithm, formats, files):
    for _ in range(100):  # a Unigram view may still be training
        html = client.get(view).text
        if 'data-testid="take-away"' in html:
            break
    found = links(html)
    assert set(found) == (
        {"open-visualiser", "open-compare"} | {f"download-{f}" for f in formats + files}
    )
    # the step-through files are the view's own query string on the download routes
    for f in files:
        assert found[f"download-{f}"].startswith("/api/download/")
        assert follow(client, found[f"download-{f}"]).content
    # open in the visualiser: a trained handle of this algorithm
    opened = client.get(found["open-visualiser"])
    assert opened.status_code == 200
    handle = parse_qs(urlsplit(str(opened.url)).query)["tokenizer"][0]
    assert handle.startswith(algorithm + "-")
    assert f'data-testid="download-{formats[0]}"' in opened.text
    compared = client.get(found["open-compare"])
    assert (
        compared.status_code == 200 and handle in parse_qs(urlsplit(str(compared.url)).query)["col"]
    )
    # each format: the file the API gives for the handle, and it loads back
    tok = client.app.state.trained.get(handle)
    for f in formats:
        got = follow(client, found[f"download-{f}"])
        api = follow(client, f"/api/download/tokenizer?tokenizer={handle}&format={f}")
        assert got.content == api.content
        assert got.headers["content-disposition"] == api.headers["content-disposition"]
        if f == "vocab_merges":
            names = zipfile.ZipFile(io.BytesIO(got.content)).namelist()
            assert sorted(names) == ["merges.txt", "vocab.json"]
            continue
        back = load_bytes(got.content, format=f, **({"pattern": "gpt2"} if f == "tiktoken" else {}))
        assert back.encode(TEXT).ids == tok.encode(TEXT).ids


def test_the_training_view_trace_is_the_api_answer(client):
    found = links(client.get("/wordpiece/train?vocab_size=40").text)
    lines = follow(client, found["download-trace"]).text.splitlines()
    api = client.get("/api/wordpiece/train_steps?vocab_size=40").json()["steps"]
    assert [json.loads(line) for line in lines] == api


def test_trained_open_rejects_bad_input(client):
    """A page route: the error is shown on the page, with its status."""
    for query, status, says in (
        ("algorithm=nope&vocab_size=10", 422, "unknown algorithm"),
        ("algorithm=bpe&vocab_size=10&to=nowhere", 422, "destination"),
        ("algorithm=bpe&vocab_size=0", 422, "vocab_size must be"),
        ("algorithm=bpe&vocab_size=10&corpus=no-such-corpus", 404, "unknown corpus"),
    ):
        r = client.get(f"/trained/open?{query}")
        assert r.status_code == status and says in r.text, query


# ---- the encode views ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "view,api,key",
    [
        (
            "/bpe/encode?tokenizer=gpt2&text=lowest+newer",
            "/api/bpe/encode_steps?tokenizer=gpt2&text=lowest+newer",
            None,
        ),
        (
            "/wordpiece/encode?text=unaffable+playing",
            "/api/wordpiece/encode_steps?text=unaffable+playing&vocab=small",
            "steps",
        ),
        ("/unigram/lattice?text=hello", "/api/unigram/lattice?text=hello&model=tiny", "steps"),
    ],
)
def test_encode_views_link_their_trace(client, view, api, key):
    found = links(client.get(view).text)
    assert set(found) == {"download-trace"}
    lines = [json.loads(line) for line in follow(client, found["download-trace"]).text.splitlines()]
    answer = client.get(api).json()
    expected = answer[key] if key else [s for p in answer["pieces"] for s in p["steps"]]
    assert lines == expected and lines


def test_the_formats_cache_keeps_no_tokenizer_alive():
    import gc
    import weakref

    tok = tc.train("wordpiece", ["low lower newest widest"] * 3, 40)
    ref = weakref.ref(tok)
    assert export.formats_of(tok) == export.formats_of(tok) == ["hf_json", "vocab_txt"]
    del tok
    gc.collect()
    assert ref() is None
