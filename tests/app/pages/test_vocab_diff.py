"""The vocabulary diff (`/vocab/diff`) and its JSON (`GET /api/vocab/diff`): two vocabularies
compared by bytes, their ids' agreement, and the words of a corpus split differently."""

from __future__ import annotations

import base64
import re

import pytest

XSS = '<script>alert(1)</script> "q" <img src=x onerror=alert(2)>'


# ---- /vocab/diff ---------------------------------------------------------------------------------
@pytest.mark.heavy
def test_the_default_page_compares_gpt4_and_gpt4o(client):
    r = client.get("/vocab/diff")
    assert r.status_code == 200
    assert "<h1>Vocabulary diff</h1>" in r.text
    shared = re.search(r'data-testid="shared-count">([\d,]+)<', r.text).group(1)
    assert shared == "85,035"
    assert 'data-testid="rank-chart"' in r.text and 'class="cell level-' in r.text
    assert "Ranks agree up to" in r.text
    assert r.text.count("<tr") >= 50  # the first page of shared tokens
    assert 'rel="next"' in r.text


def test_gpt2_and_p50k_agree_all_the_way(client):
    r = client.get("/vocab/diff", params={"a": "r50k_base", "b": "p50k_base", "list": "only_b"})
    assert r.status_code == 200
    assert re.search(r'data-testid="prefix">50,257<', r.text)
    assert 'data-testid="only-a-count">0<' in r.text and 'data-testid="only-b-count">24<' in r.text
    assert r.text.count('<span class="piece') == 24  # the only-in-B list: p50k's spaces


def test_a_vocabulary_against_itself_agrees_all_the_way(client):
    r = client.get("/vocab/diff", params={"a": "gpt2", "b": "r50k_base", "corpus": "udhr/eng"})
    assert r.status_code == 200
    assert 'Ranks agree all the way, up to <b data-testid="prefix">50,257</b>' in r.text
    assert "1,747 of 1,747 words (100.0%)" in r.text and 'data-testid="words-table"' not in r.text


@pytest.mark.heavy
def test_the_words_of_a_corpus_split_differently_are_listed_with_both_splits(client):
    r = client.get(
        "/vocab/diff",
        params={"a": "cl100k_base", "b": "o200k_base", "corpus": "botchan"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and "<h1>" not in r.text  # the results block alone
    assert 'data-testid="words-table"' in r.text and 'data-testid="cut-note"' in r.text
    first = r.text.split('data-testid="words-table"')[1].split("</tr>")[1]
    assert "Kiyo" in first  # the most frequent
    assert "/vocab?tokenizer=cl100k_base&amp;id=" in first
    assert "/vocab?tokenizer=o200k_base&amp;id=" in first


@pytest.mark.heavy
def test_a_list_is_paged_and_the_tabs_keep_the_choice(client):
    r = client.get("/vocab/diff", params={"list": "only_a", "page": 3})
    assert r.status_code == 200 and "page <b>4</b>" in r.text
    assert 'aria-current="page">only in A' in r.text


@pytest.mark.heavy
def test_bad_input_is_shown_in_place(client):
    r = client.get("/vocab/diff", params={"a": "no-such-tokenizer"})
    assert r.status_code == 404 and "unknown tokeniser" in r.text and 'id="vdiff-form"' in r.text
    r = client.get("/vocab/diff", params={"a": "char"})
    assert r.status_code == 422 and "no vocabulary" in r.text
    r = client.get("/vocab/diff", params={"list": "elsewhere"})
    assert r.status_code == 422 and "unknown list" in r.text
    r = client.get("/vocab/diff", params={"corpus": "nope"})
    assert r.status_code == 404 and "unknown corpus" in r.text
    r = client.get("/vocab/diff", params={"page": -1})
    assert r.status_code == 422


def test_xss_in_the_parameters_is_text(client):
    r = client.get("/vocab/diff", params={"a": XSS, "b": XSS, "corpus": XSS, "list": XSS})
    assert r.status_code in (404, 422)
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;" in r.text


def _ranks_file(tokens: list[bytes]) -> bytes:
    body = [bytes([i]) for i in range(256)] + tokens
    return "".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(body)).encode()


def test_xss_in_token_strings_is_text(store_client):
    """An uploaded vocabulary whose tokens are markup: they show as text in every list."""
    up = store_client.post(
        "/api/tokenizers",
        files={
            "file": (
                "evil.tiktoken",
                _ranks_file([b"<script>alert(1)</script>", b"<img src=x onerror=alert(2)>"]),
            )
        },
        data={"pattern": "gpt2"},
    )
    assert up.status_code == 201, up.text
    handle = up.json()["tokenizer"]
    r = store_client.get("/vocab/diff", params={"a": handle, "b": "cl100k_base", "list": "only_a"})
    assert r.status_code == 200
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text
    assert 'data-testid="only-a-count">2<' in r.text
    api = store_client.get("/api/vocab/diff", params={"a": handle, "b": "cl100k_base"}).json()
    assert {bytes.fromhex(t["bytes"]) for t in api["only_a_tokens"]} == {
        b"<script>alert(1)</script>",
        b"<img src=x onerror=alert(2)>",
    }


@pytest.mark.heavy
def test_the_api_answers_counts_ranks_lists_and_words(client):
    r = client.get(
        "/api/vocab/diff",
        params={"a": "cl100k_base", "b": "o200k_base", "corpus": "udhr/eng", "limit": 3},
    )
    assert r.status_code == 200
    data = r.json()
    assert data["shared"] == 85_035 and data["size_a"] == 100_261 and data["size_b"] == 200_000
    assert data["shared"] + data["only_a"] == data["size_a"]
    assert len(data["shared_tokens"]) == len(data["only_a_tokens"]) == 3
    assert data["ranks"]["prefix"] >= 256 and data["ranks"]["part_a"]["token"]
    words = data["corpus"]
    assert words["words"] > 1000 and 0 < words["same"] < words["words"]
    assert words["cut"] is None and len(words["words_differing"]) == 3
    first = words["words_differing"][0]
    assert first["a"] and first["b"] and first["count"] >= words["words_differing"][1]["count"]


def test_the_api_pages_with_an_offset(client):
    params = {"a": "r50k_base", "b": "p50k_base", "limit": 5}
    first = client.get("/api/vocab/diff", params=params).json()
    later = client.get("/api/vocab/diff", params={**params, "offset": 20}).json()
    assert [t["bytes"] for t in first["only_b_tokens"]] == ["20" * n for n in range(2, 7)]
    assert [t["bytes"] for t in later["only_b_tokens"]] == ["20" * n for n in range(22, 26)]
    assert later["shared_tokens"][0]["a"]["id"] == 20


def test_the_api_answers_4xx_with_a_detail(client):
    for params, status in (
        ({"a": "nope", "b": "gpt2"}, 404),
        ({"a": "char", "b": "gpt2"}, 422),
        ({"a": "gpt2", "b": "gpt2", "limit": -1}, 422),
        ({"a": "gpt2", "b": "gpt2", "offset": -1}, 422),
        ({"a": "gpt2", "b": "gpt2", "corpus": "nope"}, 404),
        ({"a": "", "b": "gpt2"}, 422),
        ({"b": "gpt2"}, 422),
    ):
        r = client.get("/api/vocab/diff", params=params)
        assert r.status_code == status, (params, r.text)
        assert "detail" in r.json()


def test_the_vocabulary_browser_links_here(client):
    r = client.get("/vocab")
    assert 'href="/vocab/diff' in r.text


def test_an_upload_from_the_page_comes_back_as_b(client):
    r = client.post(
        "/tokenizers",
        data={"next": "/vocab/diff?a=r50k_base&list=only_b", "pattern": "gpt2"},
        files={"file": ("tiny.tiktoken", _ranks_file([b"\xff\xfe\xfd"]))},
        follow_redirects=False,
    )
    assert r.status_code == 303
    location = r.headers["location"]
    assert location.startswith("/vocab/diff?a=r50k_base&list=only_b&b=upload-")
    page = client.get(location)
    assert page.status_code == 200 and 'data-testid="only-b-count">1<' in page.text
    assert 'data-testid="upload-box"' in page.text


@pytest.mark.heavy
def test_llama3_against_llama4_uploaded(store_client):
    from tests.shared_data import INTEROP as interop
    from tests.shared_data import missing_reason

    if missing_reason():
        import pytest

        pytest.skip(missing_reason())
    handles = []
    for name in ("llama3", "llama4"):
        data = (interop / "converted" / f"{name}.tokenizer.json").read_bytes()
        up = store_client.post(
            "/api/tokenizers", files={"file": (f"{name}.json", data)}, data={"name": name}
        )
        assert up.status_code == 201, up.text
        handles.append(up.json()["tokenizer"])
    r = store_client.get("/vocab/diff", params={"a": handles[0], "b": handles[1]})
    assert r.status_code == 200
    assert 'data-testid="shared-count">100,687<' in r.text
    assert "only in llama3" in r.text and "only in llama4" in r.text
    r = store_client.get("/vocab/diff", params={"a": "cl100k_base", "b": handles[0]})
    assert re.search(r'data-testid="prefix">100,256<', r.text)
    assert "where B has no id" not in r.text and "where A has no id 100,256" in r.text


@pytest.mark.heavy
def test_a_three_token_vocabulary_draws_its_chart(store_client):
    """A vocab.txt of "a", "b", "[UNK]" shares ids 0 and 1 with cl100k ([UNK] is none of
    its bytes): ids 0..1 span less than a tick step, which was 0 (a range() error, a 500).
    Every id gets a tick, and each cell's tooltip names the ids in it."""
    up = store_client.post("/api/tokenizers", files={"file": ("vocab.txt", b"a\nb\n[UNK]\n")})
    assert up.status_code == 201, up.text
    handle = up.json()["tokenizer"]
    r = store_client.get("/vocab/diff", params={"a": handle, "b": "cl100k_base"})
    assert r.status_code == 200, r.text[-2000:]
    assert 'data-testid="shared-count">2<' in r.text
    chart = r.text.split('data-testid="rank-chart"')[1].split("</svg>")[0]
    assert "ids 0–0 in A" in chart and "ids 1–1 in A" in chart  # not "ids 1–0"
    assert re.findall(r'class="tick">(\d+)<', chart)[:2] == ["0", "1"]  # across: ids 0, 1
