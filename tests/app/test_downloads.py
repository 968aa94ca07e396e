"""Downloads are the JSON API's answers in another shape: JSON Lines of the step dicts, CSV of
the merges and vocabularies, as attachments, from the views' own query strings."""

from __future__ import annotations

import csv
import io
import json
from urllib.parse import urlencode

import pytest

import tokenizers_core as tc


def _lines(response) -> list[dict]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert response.text.endswith("\n") or response.text == ""
    return [json.loads(line) for line in response.text.splitlines()]


def _csv(response) -> list[list[str]]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    return list(csv.reader(io.StringIO(response.content.decode("utf-8"), newline="")))


def _attachment(response, name: str) -> None:
    assert response.headers["content-disposition"] == f'attachment; filename="{name}"'


# (download path, JSON API path, query, how the API's answer becomes the lines)
JSONL = [
    (
        "bpe/train.jsonl",
        "/api/bpe/train_steps",
        {"corpus": "udhr/eng", "variant": "byte_bpe", "vocab_size": "300", "pattern": "cl100k"},
        lambda d: d["steps"],
    ),
    (
        "bpe/encode.jsonl",
        "/api/bpe/encode_steps",
        {"tokenizer": "gpt2", "text": "lowest newer tokenization"},
        lambda d: [s for piece in d["pieces"] for s in piece["steps"]],
    ),
    (
        "wordpiece/train.jsonl",
        "/api/wordpiece/train_steps",
        {"corpus": "udhr/eng", "vocab_size": "200"},
        lambda d: d["steps"],
    ),
    (
        "wordpiece/encode.jsonl",
        "/api/wordpiece/encode_steps",
        {"vocab": "small", "text": "unaffable playing"},
        lambda d: d["steps"],
    ),
    (
        "unigram/train.jsonl",
        "/api/unigram/train",
        {"corpus": "udhr/eng", "vocab_size": "300"},
        lambda d: d["steps"],
    ),
    (
        "unigram/lattice.jsonl",
        "/api/unigram/lattice",
        {"model": "botchan_en_unigram_1000", "text": "the cats sat"},
        lambda d: d["steps"],
    ),
    (
        "trace.jsonl",
        "/api/trace",
        {"tokenizer": "bert-base-uncased", "text": "Héllo, world!"},
        lambda d: d["steps"],
    ),
]


@pytest.mark.parametrize("path, api, query, lines_of", JSONL, ids=[j[0] for j in JSONL])
def test_a_trace_download_is_exactly_what_the_api_returns(client, path, api, query, lines_of):
    answer = client.get(api, params=query)
    assert answer.status_code == 200, answer.text
    download = client.get(f"/api/download/{path}", params=query)
    lines = _lines(download)
    assert lines == lines_of(answer.json()) and lines
    assert all("kind" in line for line in lines)
    assert download.headers["content-disposition"].startswith('attachment; filename="')
    assert download.headers["content-disposition"].endswith('.jsonl"')


def test_a_views_query_string_is_a_download_url(client):
    """The view's URL (with its step, page and play) on the download path."""
    query = urlencode(
        {"corpus": "udhr/eng", "variant": "bpe", "vocab_size": 120, "step": 7, "page": 2, "play": 1}
    )
    assert client.get(f"/bpe/train?{query}").status_code == 200
    download = client.get(f"/api/download/bpe/train.jsonl?{query}")
    _attachment(download, "bpe-train-bpe-120-udhr-eng.jsonl")
    steps = client.get(
        "/api/bpe/train_steps", params={"corpus": "udhr/eng", "variant": "bpe", "vocab_size": 120}
    ).json()["steps"]
    assert _lines(download) == steps


def test_the_trace_is_the_engines_pipeline_trace(client):
    text = "Don't panic! 東京"
    lines = _lines(
        client.get("/api/download/trace.jsonl", params={"tokenizer": "cl100k_base", "text": text})
    )
    _enc, trace = tc.load("cl100k_base").trace(text)
    assert lines == trace.to_list()
    assert [line["kind"] for line in lines][:2] == ["normalize", "pre_tokenize"]


def test_merge_lists_as_csv(client):
    query = {"corpus": "udhr/eng", "variant": "sentencepiece_bpe", "vocab_size": "150"}
    steps = client.get("/api/bpe/train_steps", params=query).json()["steps"]
    download = client.get("/api/download/bpe/train.merges.csv", params=query)
    _attachment(download, "bpe-merges-sentencepiece_bpe-150-udhr-eng.csv")
    rows = _csv(download)
    assert rows[0] == ["step", "left", "right", "new_symbol", "count"]
    assert rows[1:] == [
        [str(k), s["pair"][0], s["pair"][1], s["new_symbol"], str(s["count"])]
        for k, s in enumerate(steps, 1)
    ]

    steps = client.get("/api/wordpiece/train_steps", params={"vocab_size": 40}).json()["steps"]
    rows = _csv(client.get("/api/download/wordpiece/train.merges.csv?vocab_size=40"))
    assert rows[0][-1] == "score" and len(rows) == len(steps) + 1
    assert [(r[1], r[2], r[3], float(r[7])) for r in rows[1:]] == [
        (s["pair"][0], s["pair"][1], s["new_symbol"], s["score"]) for s in steps
    ]


def test_unigram_training_vocabulary_as_csv(client):
    query = {"corpus": "udhr/eng", "vocab_size": "300", "words": "everyone freedom"}
    answer = client.get("/api/unigram/train", params=query).json()
    assert answer["words"] == ["everyone", "freedom"]
    assert answer["steps"][-1]["final"] and len(answer["pieces"]) == 300
    rows = _csv(client.get("/api/download/unigram/train.vocab.csv", params=query))
    assert rows[0] == ["id", "piece", "score"]
    assert [(int(i), p, float(s)) for i, p, s in rows[1:]] == [
        (i, p, s) for i, (p, s) in enumerate(answer["pieces"])
    ]


def test_vocabularies_of_bundled_and_trained_tokenizers(client):
    # a bundled sentencepiece model: its "\r" piece survives the CSV (quoted)
    rows = _csv(client.get("/api/download/vocab.csv?tokenizer=botchan_en_unigram_1000"))
    pieces = tc.load("botchan_en_unigram_1000").model.pieces
    assert [(r[1], float(r[2])) for r in rows[1:]] == [(p, s) for p, s in pieces]
    assert "\r" in [r[1] for r in rows]
    # the OpenAI encodings: the ranks, then the special tokens (marked, issue 20 item 11)
    data = client.get("/api/vocab?tokenizer=cl100k_base").json()["vocab"]
    assert len(data) == tc.load("cl100k_base").vocab_size
    assert data[-1] == {"id": 100276, "token": "<|endofprompt|>", "special": True, "added": True}
    # a trained handle
    handle = client.post(
        "/api/train", json={"algorithm": "wordpiece", "corpus_name": "udhr/eng", "vocab_size": 200}
    ).json()["tokenizer"]
    download = client.get(f"/api/download/vocab.csv?tokenizer={handle}")
    _attachment(download, f"vocab-{handle}.csv")
    tok = tc.train("wordpiece", tc.corpora.load_corpus("udhr/eng").splitlines(), 200)
    assert {r[1]: int(r[0]) for r in _csv(download)[1:]} == tok.model.vocab


@pytest.mark.parametrize(
    "url, status, message",
    [
        ("/api/download/bpe/train.jsonl?vocab_size=x", 422, "whole number"),
        ("/api/download/bpe/train.merges.csv?corpus=nope", 404, "unknown corpus"),
        ("/api/download/bpe/encode.jsonl?tokenizer=gpt2", 422, "text"),
        ("/api/download/wordpiece/encode.jsonl?vocab=gpt2&text=hi", 422, "WordPiece"),
        ("/api/download/unigram/train.jsonl?vocab_size=2", 422, "vocab_size"),
        ("/api/download/unigram/lattice.jsonl?model=gpt2&text=hi", 422, "Unigram"),
        ("/api/download/trace.jsonl?tokenizer=nope&text=hi", 404, "unknown tokeniser"),
        ("/api/download/trace.jsonl?tokenizer=regex&text=hi&pattern=(", 422, ""),
        ("/api/download/vocab.csv?tokenizer=word", 422, "no fixed vocabulary"),
    ],
)
def test_bad_input_is_a_json_4xx_not_a_file(client, url, status, message):
    response = client.get(url)
    assert response.status_code == status, response.text
    assert "content-disposition" not in response.headers
    assert message in response.json()["detail"]


def test_a_unigram_run_still_training_answers_503_and_goes_on(client, monkeypatch):
    """Asked not to wait (the view's own wait too), a fresh run is still training: 503 with
    Retry-After; asked again with waiting, the same run has finished."""
    from app.jobs import runs as step_jobs
    from app.routers import downloads, unigram

    query = {"corpus": "udhr/eng", "vocab_size": 301, "words": "rights"}  # a run of its own
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 0)  # trained in the job pool
    monkeypatch.setattr(unigram, "WAIT_SECONDS", 0.0)
    monkeypatch.setattr(downloads, "UNIGRAM_WAIT_SECONDS", 0.0)
    busy = client.get("/api/download/unigram/train.jsonl", params=query)
    assert busy.status_code == 503 and busy.headers["retry-after"] == "3"
    assert "still running" in busy.json()["detail"]
    monkeypatch.setattr(downloads, "UNIGRAM_WAIT_SECONDS", 60.0)
    done = client.get("/api/download/unigram/train.jsonl", params=query)
    assert _lines(done)[-1]["final"] and _lines(done)[0]["samples"][0][0] == "rights"


@pytest.mark.parametrize(
    "query, algorithm, options",
    [
        ({"variant": "bpe", "vocab_size": 200, "min_frequency": 2}, "bpe", {"min_frequency": 2}),
        (
            {"variant": "byte_bpe", "vocab_size": 300, "pattern": "cl100k"},
            "byte_bpe",
            {"pattern": "cl100k"},
        ),
        ({"variant": "sentencepiece_bpe", "vocab_size": 150}, "sentencepiece_bpe", {}),
        ({"vocab_size": 200}, "wordpiece", {}),
    ],
    ids=["bpe", "byte_bpe", "sentencepiece_bpe", "wordpiece"],
)
def test_training_vocabularies_are_what_train_learns(client, query, algorithm, options):
    family = "wordpiece" if algorithm == "wordpiece" else "bpe"
    query = {"corpus": "udhr/eng", **query, "step": 3}  # a view's query string
    answer = client.get(f"/api/{family}/train_vocab", params=query)
    assert answer.status_code == 200, answer.text
    rows = answer.json()["vocab"]
    tok = tc.train(
        algorithm, tc.corpora.load_corpus("udhr/eng").splitlines(), query["vocab_size"], **options
    )
    if algorithm == "sentencepiece_bpe":
        assert [(r["token"], r["score"]) for r in rows] == [tuple(p) for p in tok.model.pieces]
    else:
        assert {r["token"]: r["id"] for r in rows} == tok.model.vocab
    assert [r["id"] for r in rows] == list(range(len(rows)))
    table = _csv(client.get(f"/api/download/{family}/train.vocab.csv", params=query))
    assert table[1:] == [
        [str(r["id"]), r["token"], *([repr(r["score"])] if "score" in r else [])] for r in rows
    ]
