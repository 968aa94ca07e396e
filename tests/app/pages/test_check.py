"""/check, the checker's page: a minbpe file on a multi-line corpus gets one report, which names
the convention it read the corpus by and says the same thing under either tie rule. Also the form
and its examples (each names its own mistake), the report of a divergence (as a page, to htmx and
from `POST /api/check`), uploads, minbpe's tie-break and model files, bad input and escaping."""

from __future__ import annotations

import re

import pytest

from app.services.check import EXAMPLES
from tests.students import student_minbpe


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


# ---- /check ---------------------------------------------------------------------------
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


# ---- the form, the report and the JSON -----------------------------------------------------------
WITHOUT_EOW = "e s\nes t\nl o\nlo w\ne w\nn ew\nnew est\nd est"  # the textbook corpus, no </w>


def test_page_and_examples(client):
    r = client.get("/check")
    assert r.status_code == 200 and 'data-testid="check-form"' in r.text
    r = client.get("/check?example=no_end_of_word")
    theirs = re.search(r'<textarea id="theirs"[^>]*>([^<]*)<', r.text).group(1)
    assert theirs == WITHOUT_EOW


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_example_names_its_own_mistake(client, name):
    page = client.get(f"/check?example={name}").text
    fields = dict(
        re.findall(
            r'<input id="(vocab_size|text)" name="[^"]*" type="[^"]*"'
            r'(?: min="1")?(?: max="\d+")? value="([^"]*)"',
            page,
        )
    )
    form = {
        "algorithm": re.search(r'<option value="([^"]*)" selected>', page).group(1),
        "vocab_size": fields["vocab_size"],
        "text": fields.get("text", ""),
        **{
            name_: re.search(rf'<textarea id="{name_}"[^>]*>([^<]*)<', page)
            .group(1)
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            for name_ in ("theirs", "corpus_text", "pieces")
        },
    }
    r = client.post("/check", data=form)
    assert r.status_code == 200
    assert re.findall(r'data-mistake="([^"]*)"', r.text) == [name]


def test_post_reports_the_divergence_and_the_mistake(client):
    r = client.post("/check", data={"algorithm": "bpe", "vocab_size": "24", "theirs": WITHOUT_EOW})
    assert r.status_code == 200
    assert re.search(r'data-testid="divergence">2<', r.text)
    assert 'data-mistake="no_end_of_word"' in r.text
    assert 'href="/bpe/train?vocab_size=24&amp;step=1&amp;variant=bpe"' in r.text
    assert "&lt;/w&gt;" in r.text  # </w> rendered as text


def test_htmx_gets_only_the_report(client):
    r = client.post(
        "/check",
        data={"algorithm": "bpe", "vocab_size": "24", "theirs": WITHOUT_EOW},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200 and "<html" not in r.text and 'data-testid="verdict"' in r.text


def test_upload_and_identical(client):
    ours = client.post(
        "/api/train", json={"algorithm": "bpe", "corpus_name": "udhr/eng", "vocab_size": 200}
    ).json()["merges"]
    body = "\n".join(f"{a} {b}" for a, b in ours).encode()
    r = client.post(
        "/check",
        data={"algorithm": "bpe", "vocab_size": "200", "corpus": "udhr/eng"},
        files={"theirs_file": ("merges.txt", body, "text/plain")},
    )
    assert r.status_code == 200 and "Identical to the reference" in r.text


def test_pasted_corpus_and_wordpiece_link(client):
    corpus = "hug hug hug pug pun bun hugs hugs\n"
    r = client.post(
        "/api/check",
        json={
            "algorithm": "wordpiece",
            "corpus": corpus,
            "vocab_size": 40,
            "theirs": "h ##u\n##u ##g",
        },
    )
    data = r.json()
    assert r.status_code == 200 and data["first_divergence"] == 1
    assert data["links"]["step"].startswith("/wordpiece/train?corpus=" + data["corpus"])
    assert data["state"]["winner"] and data["state"]["pairs"]


def test_api_tokens_check_links_to_the_encoder(client):
    r = client.post(
        "/api/check",
        json={"algorithm": "bpe", "vocab_size": 24, "theirs": ["low", "est"], "text": "lowest"},
    )
    data = r.json()
    assert data["kind"] == "tokens" and data["first_divergence"] == 1
    assert data["expected"] == ["low", "est</w>"]
    assert data["links"]["step"].startswith("/bpe/encode?tokenizer=bpe-24-")
    assert client.get(data["links"]["step"]).status_code == 200


def test_bad_input(client):
    cases = [
        ({"algorithm": "nope", "vocab_size": 20, "theirs": "a b"}, 422, "unknown algorithm"),
        ({"algorithm": "bpe", "vocab_size": 0, "theirs": "a b"}, 422, "vocab_size"),
        ({"algorithm": "bpe", "vocab_size": 20, "theirs": "a b c"}, 422, "two symbols"),
        (
            {"algorithm": "bpe", "vocab_size": 20, "theirs": "a b", "corpus_name": "nope"},
            404,
            "corpus",
        ),
        ({"algorithm": "bpe", "vocab_size": 20, "theirs": "a b", "corpus": " "}, 422, "empty"),
        ({"algorithm": "bpe", "vocab_size": 20, "theirs": "a b", "kind": "pieces"}, 422, "checks"),
    ]
    for body, status, words in cases:
        r = client.post("/api/check", json=body)
        assert r.status_code == status, (body, r.text)
        assert words in r.json()["detail"]
    r = client.post(
        "/api/check",
        json={"algorithm": "bpe", "vocab_size": 20, "theirs": "a b", "text": "x " * 5000},
    )
    assert r.status_code == 413 and "at most" in r.json()["detail"]
    r = client.post("/check", data={"algorithm": "bpe", "vocab_size": "x", "theirs": "a b"})
    assert r.status_code == 422 and 'data-testid="error"' in r.text
    r = client.post("/check", data={"algorithm": "bpe", "vocab_size": "20", "theirs": ""})
    assert r.status_code == 422 and "paste" in r.text


def test_their_text_is_escaped(client):
    r = client.post(
        "/check",
        data={"algorithm": "bpe", "vocab_size": "20", "theirs": "<script>alert(1)</script> x"},
    )
    assert "<script>alert(1)" not in r.text and "&lt;script&gt;" in r.text


# ---- minbpe --------------------------------------------------------------------------------------
SENNRICH_TEXT = (
    "low low low low low\nlower lower\nnewest newest newest newest newest newest\n"
    "widest widest widest\n"
)


def test_the_form_offers_minbpe_tie_break_by_name(client):
    page = client.get("/check").text
    assert 'name="ties"' in page
    assert re.search(r'<option value="minbpe"[^>]*>minbpe: the pair seen first wins</option>', page)
    assert ".model" in page  # the upload takes minbpe's file


def test_a_minbpe_model_file_uploaded_with_minbpe_ties_is_identical(client):
    text = "the cat sat on the mat with the hat that the rat ate"
    merges = student_minbpe(text, "gpt2", 10)
    model = "minbpe v1\n\n0\n" + "".join(f"{a} {b}\n" for a, b in merges)
    form = {"algorithm": "byte_bpe", "vocab_size": "266", "corpus_text": text, "ties": "minbpe"}
    r = client.post(
        "/check", data=form, files={"theirs_file": ("toy.model", model.encode(), "text/plain")}
    )
    assert r.status_code == 200 and "Identical to the reference" in r.text, r.text[-800:]
    r = client.post(
        "/api/check",
        json={
            "algorithm": "byte_bpe",
            "vocab_size": 266,
            "corpus": text,
            "theirs": merges,
            "ties": "minbpe",
        },
    )
    assert r.status_code == 200 and r.json()["first_divergence"] is None


def test_minbpe_ties_in_the_api_explain_the_tie(client):
    r = client.post(
        "/api/check",
        json={
            "algorithm": "bpe",
            "vocab_size": 24,
            "corpus": SENNRICH_TEXT,
            "ties": "minbpe",
            "theirs": "e s\nt </w>\nes t</w>\nl o",
        },
    )
    data = r.json()
    assert r.status_code == 200 and data["first_divergence"] == 2
    assert "the pair seen first wins" in data["explanation"]
    assert "minbpe" in data["state"]["rule"] and data["links"] == {}
    bad = client.post(
        "/api/check", json={"algorithm": "bpe", "vocab_size": 24, "theirs": "e s", "ties": "coin"}
    )
    assert bad.status_code == 422 and "unknown tie-break" in bad.json()["detail"]
    wrong = client.post(
        "/api/check",
        json={"algorithm": "bpe", "vocab_size": 24, "theirs": "minbpe v1\n\n0\n32 116\n"},
    )
    assert wrong.status_code == 422 and "byte_bpe" in wrong.json()["detail"]


def test_the_form_uses_the_pattern_of_a_minbpe_file(client):
    """A RegexTokenizer file with the GPT-4 pattern: the form's default pattern is the file's."""
    import regex

    from tokenizers_core.pre_tokenizers import PRESETS

    text = "I'll say it's 1234 words, isn't it?  Yes!!  #42 it's 12345"
    assert regex.findall(PRESETS["gpt2"], text) != regex.findall(PRESETS["cl100k"], text)
    merges = student_minbpe(text, PRESETS["cl100k"], 6)
    model = f"minbpe v1\n{PRESETS['cl100k']}\n0\n" + "".join(f"{a} {b}\n" for a, b in merges)
    r = client.post(
        "/check",
        data={
            "algorithm": "byte_bpe",
            "vocab_size": "262",
            "corpus_text": text,
            "ties": "minbpe",
            "theirs": model,
        },
    )
    assert r.status_code == 200 and "Identical to the reference" in r.text, r.text[-600:]


def test_the_page_says_what_a_bpe_word_is_and_where_unk_goes(client):
    """The form says what a word is for bpe (the reference's \\w+|[^\\w\\s]+) and that <unk>
    takes a vocab_size slot; a report with one merge too many says where the slot went."""
    page = client.get("/check").text
    assert r"<code>\w+|[^\w\s]+</code>" in page and "counts <code>&lt;unk&gt;</code>" in page
    theirs = client.post(  # a trainer without <unk>: one merge more at vocab_size 25
        "/api/train", json={"algorithm": "bpe", "corpus": SENNRICH_TEXT, "vocab_size": 26}
    ).json()["merges"]
    r = client.post(
        "/check",
        data={
            "algorithm": "bpe",
            "vocab_size": "25",
            "corpus_text": SENNRICH_TEXT,
            "theirs": "\n".join(map(" ".join, theirs)),
        },
    )
    assert re.search(r'data-testid="divergence">14<', r.text), r.text[-1500:]
    assert "counts the reference&#39;s &lt;unk&gt; (one slot)" in r.text
    assert 'data-testid="words"' in r.text
