"""/check, the checker's page: a minbpe file on a multi-line corpus gets one report, which names
the convention it read the corpus by and says the same thing under either tie rule."""

from __future__ import annotations

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
