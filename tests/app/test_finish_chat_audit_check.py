"""Issue 31, items 4, 5 and 7: /chat opens on a matching pair and its BOS lints speak of the
ids it shows; /audit leads with what is wrong, follows a switch of tokenizer, and its
"duplicate" flag means something; /check's report names the line-by-line convention and
says the same thing under either tie rule."""

from __future__ import annotations

import json
import re

import pytest

from tests.students import student_minbpe

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'
BOS_TEMPLATE = "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}"


def lint_kinds(html: str) -> list[str]:
    return re.findall(r'<li class="note" data-kind="([^"]+)"', html)


# ---- /chat (item 4) ----------------------------------------------------------------------------
def test_the_chat_page_opens_on_a_tokenizer_and_its_own_template(client):
    """It opened on GPT-4's tokenizer with Llama 3's template: three warnings that the template
    is another model's. Now Qwen3's tokenizer with Qwen3's own template."""
    r = client.get("/chat")
    assert r.status_code == 200
    assert re.search(r'<option value="qwen3" selected>', r.text)
    assert "own chat template" in r.text.split('data-testid="template-source"', 1)[1][:200]
    assert "&lt;|im_start|&gt;" in r.text
    kinds = lint_kinds(r.text)
    assert "missing_control_token" not in kinds and "boundary_token" not in kinds
    assert kinds == ["closed_last_turn"]  # a note on the example chat, not a mismatch
    # the form's own default (a POST without a tokenizer field) is the same pair
    posted = client.post(
        "/chat", data={"role": ["user"], "content": ["Hi"], "action": "render"}
    ).text
    assert "missing_control_token" not in lint_kinds(posted) and "&lt;|im_start|&gt;" in posted


def ids_of(html: str, testid: str) -> list[str]:
    line = html.split(f'data-testid="{testid}">', 1)[1].split("</p>", 1)[0]
    return re.findall(r"\d+", re.sub(r'title="[^"]*"', "", line))


def test_the_double_bos_lint_speaks_of_the_ids_shown_with_the_post_processor(client):
    """BERT's post-processor adds [CLS]; a template that writes it too gives two, but only when
    the text is encoded again with special tokens on. The lint said "two" beside ids holding
    one; now the page shows both encodings, the post-processor's tokens marked."""
    messages = json.dumps([{"role": "user", "content": "Hi there"}])
    r = client.get(
        "/chat",
        params={"tokenizer": "bert-base-uncased", "template": BOS_TEMPLATE, "messages": messages},
    )
    assert r.status_code == 200 and "double_bos" in lint_kinds(r.text)
    plain = ids_of(r.text, "chat-ids")
    post = ids_of(r.text, "chat-ids-post")
    assert plain[:1] == ["101"] and plain[1:2] != ["101"]  # apply_chat_template: one [CLS]
    assert post[:2] == ["101", "101"] and post[-1] == "102"  # tokenizer(text): two, and [SEP]
    assert post[1:-1] == plain
    note = r.text.split('data-testid="post-note"', 1)[1].split("</p>", 1)[0]
    assert "<code>[CLS]</code> before and <code>[SEP]</code> after" in note
    lint = r.text.split('data-kind="double_bos"', 1)[1].split("</li>", 1)[0]
    assert lint.count("<mark>101</mark>") == 2  # the two BOS the lint names, in those ids


def test_a_tokenizer_whose_post_processor_adds_nothing_says_so(client):
    r = client.get("/chat", params={"tokenizer": "qwen3"})
    note = r.text.split('data-testid="post-note"', 1)[1].split("</p>", 1)[0]
    assert "adds no tokens" in note and 'data-testid="chat-ids-post"' not in r.text


def test_hostile_content_stays_text_beside_the_post_processed_ids(client):
    messages = json.dumps([{"role": "user", "content": XSS}])
    r = client.get(
        "/chat",
        params={"tokenizer": "bert-base-uncased", "template": BOS_TEMPLATE, "messages": messages},
    )
    assert r.status_code == 200 and 'data-testid="chat-ids-post"' in r.text
    assert "<script>alert" not in r.text and "<img src=x" not in r.text


# ---- /audit (item 5) ---------------------------------------------------------------------------
def small_bpe_with_a_byte_piece():
    """A byte-fallback BPE whose `<0x61>` stands for the same byte as `a`: two ids, one text.
    `A` is `a` in another case: different text, a near-duplicate only."""
    from tokenizers_core.models.bpe.hf import HFBpe
    from tokenizers_core.pipeline import Tokenizer
    from tokenizers_core.pre_tokenizers import WhitespaceSplit

    vocab = {t: i for i, t in enumerate(["<unk>", "a", "A", "<0x61>", "b", "ab"])}
    model = HFBpe(vocab, [("a", "b")], unk_token="<unk>", byte_fallback=True)
    return Tokenizer(model, pre_tokenizer=WhitespaceSplit(), name="small")


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


# ---- /check (item 7) ---------------------------------------------------------------------------
def multi_line_corpus() -> str:
    from tokenizers_core.corpora import load_corpus

    return "\n".join(load_corpus("botchan").splitlines()[:40])


def api_check(client, corpus: str, merges: list, ties: str) -> dict:
    r = client.post(
        "/api/check",
        json={
            "algorithm": "byte_bpe",
            "vocab_size": 256 + len(merges),
            "corpus": corpus,
            "theirs": merges,
            "ties": ties,
            "pattern": "cl100k",
        },
    )
    assert r.status_code == 200, r.text
    return r.json()


def test_a_minbpe_file_on_a_multi_line_corpus_gets_one_consistent_report(client):
    """minbpe trains on the whole text: GPT-4's pattern keeps a full stop with the newline after
    it, so it learns `. + Ċ`, a pair the line-by-line reference never sees. Under minbpe's
    conventions the file is identical; under Hugging Face's the report names the line-by-line
    reading, the merge that holds the line end, and the minbpe replay reaches exactly the merge
    before it."""
    corpus = multi_line_corpus()
    merges = student_minbpe(corpus, "cl100k", 150)
    same = api_check(client, corpus, merges, "minbpe")
    assert same["first_divergence"] is None and "All 150 merges" in same["explanation"]
    assert "one text" in same["state"]["reads"]
    hf = api_check(client, corpus, merges, "hf")
    assert hf["first_divergence"] is not None
    assert "line by line" in hf["state"]["reads"] and "line by line" in hf["explanation"]
    (mistake,) = hf["mistakes"]
    assert mistake["name"] == "dict_order_ties"
    k = mistake["agrees"] + 1  # the minbpe replay (line by line) parts at the line end
    assert f"your first {k - 1} merges" in mistake["explanation"]
    assert f"Your merge {k}, . + Ċ, holds a line end" in hf["explanation"]


def test_the_minbpe_replay_reaches_as_far_as_the_minbpe_check(client):
    """On one line (no line ends), the replay of minbpe's tie-break said "your first 26 merges"
    (it stopped 20 past the divergence) where the check under minbpe's conventions said
    "identical, all 44": both now say all of them."""
    corpus = multi_line_corpus().replace("\n", " ")
    merges = student_minbpe(corpus, "cl100k", 44)
    assert api_check(client, corpus, merges, "minbpe")["first_divergence"] is None
    hf = api_check(client, corpus, merges, "hf")
    assert hf["first_divergence"] is not None and hf["first_divergence"] + 20 < 44
    (mistake,) = hf["mistakes"]
    assert mistake["agrees"] == 44 and "all 44 of your merges" in mistake["explanation"]


def test_the_check_page_names_the_convention_it_read_the_corpus_by(client):
    corpus = multi_line_corpus()
    theirs = "\n".join(f"{a} {b}" for a, b in student_minbpe(corpus, "cl100k", 20))
    form = {
        "algorithm": "byte_bpe",
        "vocab_size": "276",
        "corpus_text": corpus,
        "theirs": theirs,
        "pattern": "cl100k",
    }
    for ties, words in (("minbpe", "as one text"), ("hf", "line by line")):
        r = client.post("/check", data={**form, "ties": ties})
        assert r.status_code == 200
        reads = r.text.split('data-testid="reads">', 1)[1].split("</p>", 1)[0]
        assert words in reads
    page = client.get("/check").text
    assert 'data-testid="conventions"' in page and "line by line" in page
