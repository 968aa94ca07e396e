"""/audit, a vocabulary's audit: it leads with what is wrong, pages every entry problems first,
follows a switch of tokenizer, and its "duplicate" flag means two ids for the same bytes. Also
`GET /api/audit` (inline for a small vocabulary, a polled job for a large or uploaded one), bad
input as a 4xx with its detail, token strings and names rendered as text, the links to and from
the audit, and `tokvis audit`."""

from __future__ import annotations

import json
import re

import pytest

from app.cli import main
from app.services.audit import job_id

XSS = "<script>alert(1)</script>"
XSS_TAGS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def small_bpe_with_a_byte_piece():
    """A byte-fallback BPE whose `<0x61>` stands for the same byte as `a`: two ids, one text.
    `A` is `a` in another case: different text, a near-duplicate only."""
    from tokenizers_core.models.bpe.hf import HFBpe
    from tokenizers_core.pipeline import Tokenizer
    from tokenizers_core.pre_tokenizers import WhitespaceSplit

    vocab = {t: i for i, t in enumerate(["<unk>", "a", "A", "<0x61>", "b", "ab"])}
    model = HFBpe(vocab, [("a", "b")], unk_token="<unk>", byte_fallback=True)
    return Tokenizer(model, pre_tokenizer=WhitespaceSplit(), name="small")


# ---- /audit ---------------------------------------------------------------------------
def test_the_duplicate_flag_means_two_ids_for_the_same_bytes():
    """It meant "the same text up to case and a leading space": 53k of cl100k's 100k entries,
    `!` among them. Now: another id stands for exactly the same bytes (and word marker)."""
    from tokenizers_core.audit import audit

    tok = small_bpe_with_a_byte_piece()
    report = audit(tok, corpus=["ab a b A"])
    a, upper, byte = (tok.token_to_id(t) for t in ("a", "A", "<0x61>"))
    assert "duplicate" in report.flags(a) and "duplicate" in report.flags(byte)
    assert "duplicate" not in report.flags(upper)  # another case: another text
    assert report.same_bytes_as(a) == (byte,) and report.same_bytes_as(upper) == ()
    assert report.flag_counts()["duplicate"] == 2
    assert upper in report.duplicates_of(a)  # still listed as a near-duplicate, for reading
    assert report.entry_dict(report.entry(byte))["same_bytes"] == [a]
    assert report.summary()["same_bytes_groups"] == 1


def test_real_vocabularies_have_duplicates_only_where_two_ids_share_bytes():
    import tokenizers_core as tc
    from tokenizers_core.audit import same_bytes_groups

    assert same_bytes_groups(tc.load("cl100k_base")) == []  # `!` and ` !` are not the same
    mistral = same_bytes_groups(tc.load("mistral_v1"))  # byte pieces beside characters
    assert len(mistral) == 125 and all(len(g.ids) == 2 for g in mistral)


def rows_categories(html: str) -> list[str]:
    return re.findall(r'<tr data-category="([^"]+)">', html.split("<tbody>", 1)[1])


@pytest.mark.heavy
def test_audit_leads_with_what_is_wrong(client):
    """Page 1 was 50 healthy tokens (in id order); now the problem categories first, the
    healthy entries last, and the counts list the problems before "OK"."""
    r = client.get("/audit", params={"tokenizer": "botchan_en_bpe_1000"})
    assert r.status_code == 200
    cats = rows_categories(r.text)
    problems = [c for c in cats if c != "ok"]
    assert problems and cats[: len(problems)] == problems  # every problem before any healthy
    counts = r.text.split('data-testid="audit-counts"', 1)[1].split("</dl>", 1)[0]
    names = re.findall(r'data-category="([^"]+)"', counts)
    assert names[0] == "unreachable" and names[-1] == "ok"
    found = r.text.split('data-testid="problems-first"', 1)[1].split("</span>", 1)[0]
    assert f"{len(problems)} entries to look at, then the 996 healthy ones" in found
    # a chosen category keeps id order and says nothing of problems first
    special = client.get("/audit", params={"tokenizer": "botchan_en_bpe_1000", "category": "ok"})
    assert 'data-testid="problems-first"' not in special.text


@pytest.mark.heavy
def test_the_api_pages_every_entry_problems_first(client):
    body = client.get(
        "/api/audit", params={"tokenizer": "botchan_en_unigram_1000", "limit": 5}
    ).json()
    assert body["entries"] and body["entries"][0]["category"] != "ok"


@pytest.mark.heavy
def test_a_switch_of_tokenizer_sends_the_numbers_section_again(client):
    """The numbers section sat outside the swapped results: after a switch it kept the previous
    tokenizer's digit grouping until a reload. The results fragment now sends it again (out of
    band), for the new tokenizer; a poll of a running audit does not."""
    hx = {"HX-Request": "true"}
    r = client.get("/audit", params={"tokenizer": "botchan_en_unigram_1000"}, headers=hx)
    assert (
        '<section id="numbers" hx-swap-oob="true" hx-get="/audit/numbers/fragment?'
        'tokenizer=botchan_en_unigram_1000" hx-trigger="load"'
    ) in r.text
    poll = client.get(
        "/audit",
        params={"tokenizer": "botchan_en_unigram_1000"},
        headers={**hx, "HX-Trigger": "audit-progress"},
    )
    assert 'id="numbers"' not in poll.text
    frag = client.get("/audit/numbers/fragment", params={"tokenizer": "botchan_en_unigram_1000"})
    assert "SentencePiece Unigram (Botchan, 1k)" in frag.text


def test_hostile_tokenizer_name_is_text_in_the_oob_section(client):
    r = client.get("/audit", params={"tokenizer": XSS_TAGS}, headers={"HX-Request": "true"})
    assert r.status_code == 404 and "<script>alert" not in r.text and "<img src=x" not in r.text


# ---- the page and GET /api/audit, inline or as a job ---------------------------------------------
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


def test_a_page_below_0_is_refused_even_while_the_audit_runs(store_client):
    """The schema says page >= 0; a negative page was answered 200 (the running audit's
    progress, or the first page). It is a 422 that says so, as a page and as JSON."""
    page = store_client.get("/audit", params={"tokenizer": "gpt2", "page": -1})
    assert page.status_code == 422 and "page must be 0 or more" in page.text
    api = store_client.get("/api/audit", params={"tokenizer": "gpt2", "page": -1})
    assert api.status_code == 422 and api.json()["detail"] == "page must be 0 or more, not -1"


# ---- the links to and from the audit -------------------------------------------------------------
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


# ---- tokvis audit and tc.audit -------------------------------------------------------------------
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


def test_tc_audit_is_the_function_after_the_package_is_imported():
    import tokenizers_core as tc
    import tokenizers_core.audit.health  # noqa: F401  (a submodule import must not rebind it)

    assert callable(tc.audit)
