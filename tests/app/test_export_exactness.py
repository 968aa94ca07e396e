"""Downloads that tell the truth: every page offers a tokeniser's exact
formats as plain links, and a lossy one only behind the sentences that say what changes;
`/api/download/tokenizer` gives a lossy file only with `lossy=true`; `tokvis export` only with
`--lossy`. The Claude-like and CLIP-like tokenizer.json files are built with Hugging Face
`tokenizers` (see tests/core/formats/test_exactness.py)."""

from __future__ import annotations

import re
import sys
from html import unescape
from pathlib import Path

import pytest

import tokenizers_core as tc
from app import export
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats.tiktoken_file import parse_ranks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "formats"))
from test_cli import tokvis  # noqa: E402
from test_exactness import claude_like, clip_like  # noqa: E402

pytest.importorskip("tokenizers")


def upload(client, data: bytes) -> str:
    r = client.post("/api/tokenizers", files={"file": ("tokenizer.json", data)})
    assert r.status_code == 201, r.text
    return r.json()["tokenizer"]


def plain_links(html: str) -> dict[str, str]:
    line = re.search(r'<p class="small take-away" data-testid="take-away">(.*?)</p>', html, re.S)
    assert line, "no download line on the page"
    return {
        t: unescape(h)
        for h, t in re.findall(r'<a href="([^"]+)"[^>]*data-testid="([^"]+)"', line.group(1))
    }


def lossy_blocks(html: str) -> dict[str, tuple[str, str]]:
    """format -> (the block's text, the link's href) of each lossy offer on the page."""
    found = {}
    for fmt, body in re.findall(
        r'<details class="small take-away-lossy" '
        r'data-testid="lossy-([a-z_]+)">(.*?)</details>',
        html,
        re.S,
    ):
        href = re.search(r'<a href="([^"]+)"', body).group(1)
        found[fmt] = (unescape(re.sub(r"<[^>]+>", " ", body)), unescape(href))
    return found


@pytest.fixture(scope="module")
def claude(client):
    return upload(client, claude_like())


@pytest.fixture(scope="module")
def clip(client):
    return upload(client, clip_like())


def test_claude_like_offers_tiktoken_only_behind_what_changes(client, claude):
    html = client.get("/", params={"tokenizer": claude, "text": "ﬁne ①"}).text
    links = plain_links(html)
    assert "download-hf_json" in links and "download-tiktoken" not in links
    text, href = lossy_blocks(html)["tiktoken"]
    assert "normaliser (NFKC) is dropped" in text
    assert "lossy=true" in href
    r = client.get(href)
    assert r.status_code == 200 and parse_ranks(r.content)


def test_clip_like_says_the_suffix_is_lost(client, clip):
    html = client.get("/", params={"tokenizer": clip, "text": "a photo of a cat"}).text
    text, _href = lossy_blocks(html)["tiktoken"]
    assert "'</w>' is lost" in text and "normaliser" in text


def test_every_plain_link_downloads(client, claude, clip):
    for name in (claude, clip, "gpt2", "bert-base-uncased", "botchan_en_unigram_1000"):
        html = client.get("/", params={"tokenizer": name, "text": "hello"}).text
        for testid, href in plain_links(html).items():
            if testid.startswith("download-") and testid != "download-trace":
                assert client.get(href).status_code == 200, (name, href)


def test_the_route_refuses_a_lossy_format_unless_asked(client, claude):
    r = client.get("/api/download/tokenizer", params={"tokenizer": claude, "format": "tiktoken"})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "not exact" in detail and "NFKC" in detail and "lossy=true" in detail
    ok = client.get(
        "/api/download/tokenizer",
        params={"tokenizer": claude, "format": "tiktoken", "lossy": "true"},
    )
    assert ok.status_code == 200
    exact = client.get("/api/download/tokenizer", params={"tokenizer": claude, "format": "hf_json"})
    assert exact.status_code == 200


def test_botchan_tokenizer_json_says_it_matches_control_pieces(client):
    html = client.get("/", params={"tokenizer": "botchan_en_unigram_1000", "text": "hi"}).text
    assert "download-sentencepiece" in plain_links(html)
    text, href = lossy_blocks(html)["hf_json"]
    assert "<unk>" in text and "Hugging Face matches it" in text
    assert client.get(href).status_code == 200


@pytest.mark.parametrize("algorithm", sorted(export.TRAINED_FORMATS))
def test_trained_lossy_formats_are_what_training_gives(algorithm):
    tok = tc.train(algorithm, load_corpus("botchan").splitlines()[:200], 300)
    assert export.lossy_formats_of(tok) == export.TRAINED_LOSSY.get(algorithm, {})


def test_a_training_view_offers_its_lossy_format_behind_the_sentence(client):
    html = client.get("/unigram/train", params={"vocab_size": 60}).text
    text, href = lossy_blocks(html)["hf_json"]
    assert "control or unknown piece" in text
    assert "to=hf_json" in href and "lossy=true" in href
    r = client.get(href)  # trains (or takes the cached run), then downloads
    assert r.status_code == 200 and r.headers["content-disposition"].endswith('tokenizer.json"')


# ---- tokvis export --------------------------------------------------------------------------------
@pytest.mark.heavy
def test_tokvis_export_needs_lossy_for_a_lossy_format(tmp_path):
    source = tmp_path / "claude.json"
    source.write_bytes(claude_like())
    out = tmp_path / "claude.tiktoken"
    refused = tokvis("export", str(source), "-o", str(out), module=True)
    assert refused.returncode == 2
    err = refused.stderr.decode()
    assert "NFKC" in err and "--lossy" in err and not out.exists()
    done = tokvis("export", str(source), "-o", str(out), "--lossy", module=True)
    assert done.returncode == 0, done.stderr
    assert parse_ranks(out.read_bytes())
    assert "changed: The normaliser (NFKC) is dropped" in done.stderr.decode()
    exact = tokvis("export", str(source), "-o", str(tmp_path / "tokenizer.json"), module=True)
    assert exact.returncode == 0, exact.stderr
