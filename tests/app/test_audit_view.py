"""`/audit`, `GET /api/audit` and `tokvis audit`: the health audit of a bundled or uploaded
tokeniser, inline for small vocabularies and as a polled job for large ones; bad input is a
4xx with {"detail"}; token strings and the tokenizer parameter render as text."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.services.audit import job_id

XSS = "<script>alert(1)</script>"


@pytest.mark.heavy
def test_page_counts_table_and_links(client):
    r = client.get("/audit", params={"tokenizer": "botchan_en_bpe_1000"})
    assert r.status_code == 200
    html = r.text
    assert 'data-testid="audit-counts"' in html and 'data-testid="audit-table"' in html
    assert "Unreachable as a single token" in html and "Never produced" in html
    assert "/vocab?tokenizer=botchan_en_bpe_1000&amp;q=3" in html  # each id links there
    assert 'data-testid="audit-scripts"' in html
    assert (
        '<section id="numbers" hx-get="/audit/numbers/fragment?tokenizer=botchan_en_bpe_1000"'
        ' hx-trigger="load" hx-swap="innerHTML"></section>'
    ) in html
    assert 'rel="next"' in html  # the pager


@pytest.mark.heavy
def test_page_filters_by_category_and_text(client):
    _audited(client, "bert-base-uncased")
    r = client.get(
        "/audit",
        params={"tokenizer": "bert-base-uncased", "category": "special"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and "<html" not in r.text  # the block alone
    assert r.text.count('<tr data-category="special">') == 5
    assert 'data-category="ok"' not in r.text.split("<tbody>")[1]
    r = client.get(
        "/audit", params={"tokenizer": "bert-base-uncased", "category": "special", "q": "CLS"}
    )
    assert "1 of 30,522 entries" in r.text


@pytest.mark.heavy
def test_unreachable_rows_show_the_reencoding_as_chips(client):
    _audited(client, "bert-base-uncased")
    r = client.get(
        "/audit", params={"tokenizer": "bert-base-uncased", "category": "unreachable", "q": "一"}
    )
    row = r.text.split('<tr data-category="unreachable">')[1]
    assert 'class="chip chip-' in row and "/vocab?tokenizer=bert-base-uncased" in row


@pytest.mark.heavy
def test_api_small_vocabulary_answers_at_once(client):
    r = client.get("/api/audit", params={"tokenizer": "botchan_en_unigram_1000"})
    assert r.status_code == 200 and r.json()["counts"]["special"] == 3


@pytest.mark.heavy
def test_api_pages_of_a_category(client):
    _audited(client, "bert-base-uncased")
    r = client.get(
        "/api/audit", params={"tokenizer": "bert-base-uncased", "category": "never", "limit": 3}
    )
    assert r.status_code == 200
    body = r.json()
    assert body["counts"]["special"] == 5 and body["found"] == body["counts"]["never"]
    assert [e["token"] for e in body["entries"]] == ["[unused0]", "[unused1]", "[unused2]"]
    assert (
        body["entries"][0]["category"] == "never" and "punctuation" in body["entries"][0]["reason"]
    )


def test_api_bad_input_is_4xx_with_a_detail(client):
    for params, status in [
        ({"tokenizer": "nope"}, 404),
        ({"tokenizer": "bert-base-uncased", "category": "broken"}, 422),
        ({"tokenizer": "bert-base-uncased", "limit": 0}, 422),
        ({"tokenizer": "bert-base-uncased", "page": -1}, 422),
        ({"tokenizer": "char"}, 422),
    ]:
        r = client.get("/api/audit", params=params)
        assert r.status_code == status, params
        assert r.json()["detail"], params


def test_page_errors_in_place_and_escaped(client):
    r = client.get("/audit", params={"tokenizer": XSS})
    assert r.status_code == 404
    assert XSS not in r.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text
    assert 'role="alert"' in r.text


def _wait_for(client, tokenizer: str) -> None:
    """Block until the audit job of `tokenizer` has ended (the engine's own wait: no sleeps)."""
    engine = client.app.state.jobs
    job = engine.wait(job_id(tokenizer), False)
    assert job is not None and job.status == "done", job and job.error


def _audited(client, tokenizer: str) -> None:
    """Start the audit of a large vocabulary (if it is not done yet) and wait for it."""
    client.get("/api/audit", params={"tokenizer": tokenizer, "limit": 1})
    _wait_for(client, tokenizer)


@pytest.mark.heavy
def test_a_large_vocabulary_runs_as_a_job_with_progress(client):
    first = client.get("/api/audit", params={"tokenizer": "cl100k_base", "limit": 2})
    if first.status_code == 202:  # queued or running: its progress
        assert first.json()["total"] == 100_261
        assert first.json()["status"] in ("queued", "running")
        page = client.get("/audit", params={"tokenizer": "cl100k_base"})
        assert 'data-testid="audit-progress"' in page.text and 'hx-trigger="every 1s"' in page.text
    _wait_for(client, "cl100k_base")
    done = client.get("/api/audit", params={"tokenizer": "gpt-4", "q": "davidjl"})
    assert done.status_code == 200
    body = done.json()
    assert body["counts"]["undecodable"] == 773
    assert [(e["id"], e["category"], e["flags"]) for e in body["entries"]] == [
        (99944, "ok", ["unseen"])
    ]
    page = client.get("/audit", params={"tokenizer": "cl100k_base", "category": "undecodable"})
    assert "773 of 100,261 entries" in page.text


def _wordlevel(n: int) -> bytes:
    vocab = {"[UNK]": 0, XSS: 1, "<i>a b</i>": 2}
    for i in range(n):
        vocab[f"w{i}"] = len(vocab)
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
        }
    ).encode()


@pytest.mark.heavy
def test_an_uploaded_large_vocabulary_audits_in_a_job_and_escapes_its_tokens(store_client):
    up = store_client.post("/api/tokenizers", files={"file": ("tokenizer.json", _wordlevel(6000))})
    assert up.status_code == 201, up.text
    handle = up.json()["tokenizer"]
    store_client.get("/api/audit", params={"tokenizer": handle})
    _wait_for(store_client, handle)
    body = store_client.get("/api/audit", params={"tokenizer": handle, "category": "never"}).json()
    assert [e["token"] for e in body["entries"]] == ["<i>a b</i>"]
    assert "whitespace" in body["entries"][0]["reason"]
    page = store_client.get("/audit", params={"tokenizer": handle, "q": "<"})
    assert page.status_code == 200
    assert XSS not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "<i>a" not in page.text


@pytest.mark.heavy
def test_cli_counts_and_examples(capsys):
    assert main(["audit", "bert-base-uncased", "--category", "never", "--show", "2"]) == 0
    out = capsys.readouterr().out
    assert "Never produced" in out and "1,087" in out and "'[unused0]'" in out


@pytest.mark.heavy
def test_cli_json(capsys):
    assert main(["audit", "botchan_en_bpe_1000", "--json", "--category", "special"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["counts"]["special"] == 3
    assert [e["token"] for e in body["entries"]] == ["<unk>", "<s>", "</s>"]


def test_cli_errors_are_one_line(capsys):
    assert main(["audit", "no-such-tokenizer"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tokvis audit: error:") and err.count("\n") == 1


def test_vocab_links_to_the_audit(client):
    r = client.get("/vocab", params={"tokenizer": "bert-base-uncased"})
    assert 'href="/audit?tokenizer=bert-base-uncased" data-testid="vocab-audit"' in r.text


@pytest.mark.heavy
def test_the_audit_leads_to_the_other_forensics(client):
    page = client.get("/audit", params={"tokenizer": "botchan_en_bpe_1000"}).text
    more = page.split('data-testid="audit-more"', 1)[1].split("</p>", 1)[0]
    for link in (
        "/vocab/diff?a=botchan_en_bpe_1000",
        "/audit/mix?tokenizer=botchan_en_bpe_1000",
        "/audit/numbers?tokenizer=botchan_en_bpe_1000",
        "/tax",
        "/vocab?tokenizer=botchan_en_bpe_1000",
    ):
        assert f'href="{link}"' in more, link


def test_tc_audit_is_the_function_after_the_package_is_imported():
    import tokenizers_core as tc
    import tokenizers_core.audit.health  # noqa: F401  (a submodule import must not rebind it)

    assert callable(tc.audit)


def test_a_page_below_0_is_refused_even_while_the_audit_runs(store_client):
    """The schema says page >= 0; a negative page was answered 200 (the running audit's
    progress, or the first page). It is a 422 that says so, as a page and as JSON."""
    page = store_client.get("/audit", params={"tokenizer": "gpt2", "page": -1})
    assert page.status_code == 422 and "page must be 0 or more" in page.text
    api = store_client.get("/api/audit", params={"tokenizer": "gpt2", "page": -1})
    assert api.status_code == 422 and api.json()["detail"] == "page must be 0 or more, not -1"
