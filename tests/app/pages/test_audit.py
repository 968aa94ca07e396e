"""/audit, a vocabulary's audit: it leads with what is wrong, pages every entry problems first,
follows a switch of tokenizer, and its "duplicate" flag means two ids for the same bytes."""

from __future__ import annotations

import re

import pytest

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


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
    r = client.get("/audit", params={"tokenizer": XSS}, headers={"HX-Request": "true"})
    assert r.status_code == 404 and "<script>alert" not in r.text and "<img src=x" not in r.text
