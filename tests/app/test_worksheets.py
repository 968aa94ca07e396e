"""BPE worksheets: blank tables and a separate answer key from the engine's training run."""

from __future__ import annotations

import re

from app.views.worksheets import TEXTBOOK, wordpiece_worksheet, worksheet
from tokenizers_core.models.bpe.session import training_session


def test_the_sheet_is_the_engines_run():
    sheet = worksheet(TEXTBOOK, "bpe", 24, 1, 3, {})
    session = training_session(TEXTBOOK, "bpe", 24)
    for s in sheet["steps"]:
        merge = session.step(s["k"])
        assert s["pair"] == list(merge.pair) and s["count"] == merge.count
        assert s["pairs"][0][0] == " ".join(merge.pair) == s["winner"]  # it heads its table
    assert [r["symbols"] for r in sheet["given"]][0] == ["n", "e", "w", "e", "s", "t", "</w>"]
    assert sheet["steps"][2]["words"][0]["symbols"] == ["n", "e", "w", "est</w>"]


def test_blank_and_key_pages(client):
    blank = client.get("/worksheet/bpe?start=1&end=3")
    key = client.get("/worksheet/bpe?start=1&end=3&key=1")
    assert blank.status_code == key.status_code == 200
    assert 'data-testid="answer"' not in blank.text and 'class="blank"' in blank.text
    answers = re.findall(r'data-testid="answer">([^<]*)<', key.text)
    assert answers == [
        "e + s → es",
        "t + &lt;/w&gt; → t&lt;/w&gt;",
        "es + t&lt;/w&gt; → est&lt;/w&gt;",
    ]
    assert "data-print" in blank.text and 'data-testid="key-link"' in blank.text
    letter = client.get("/worksheet/bpe?start=2&end=4&paper=letter")
    assert 'class="sheet paper-letter"' in letter.text


def test_bad_ranges(client):
    for query, words in [
        ("start=3&end=2", "empty"),
        ("start=1&end=20", "at most"),
        ("start=1&end=2&paper=a3", "paper"),
        ("start=40&end=41", "merges"),
        ("variant=nope", "variant"),
    ]:
        r = client.get(f"/worksheet/bpe?{query}")
        assert r.status_code == 422, query
        assert words in r.text, query


def test_the_training_view_links_its_next_merges_as_a_worksheet(client):
    r = client.get("/bpe/train?step=2")
    link = re.search(r'href="([^"]*)" data-testid="worksheet-link"', r.text).group(1)
    assert link == "/worksheet/bpe?variant=bpe&amp;vocab_size=24&amp;start=3&amp;end=6"
    assert client.get(link.replace("&amp;", "&")).status_code == 200


def test_wordpiece_sheet_is_the_engines_run(client):
    from tokenizers_core.implementations.bert import count_words
    from tokenizers_core.models.wordpiece.trainer import WordPieceTrainer

    steps = WordPieceTrainer(count_words(TEXTBOOK), vocab_size=40).run(until=4).steps
    sheet = wordpiece_worksheet(TEXTBOOK, 40, 2, 4)
    assert [s["pair"] for s in sheet["steps"]] == [list(m.pair) for m in steps[1:4]]
    assert (
        sheet["steps"][0]["score"] == f"{steps[1].count}/{steps[1].freq_left * steps[1].freq_right}"
    )
    assert sheet["cols"][-1] == "score"
    key = client.get("/worksheet/wordpiece?start=1&end=2&key=1")
    assert re.findall(r'data-testid="answer">([^<]*)<', key.text) == [
        "##i + ##d → ##id",
        "w + ##id → wid",
    ]
    blank = client.get("/worksheet/wordpiece?start=1&end=2")
    assert 'data-testid="answer"' not in blank.text and "score <span" in blank.text
    assert client.get("/worksheet/wordpiece?start=1&end=99").status_code == 422


def test_the_wordpiece_view_links_a_worksheet(client):
    r = client.get("/wordpiece/train?step=1")
    link = re.search(r'href="([^"]*)" data-testid="worksheet-link"', r.text).group(1)
    assert link == "/worksheet/wordpiece?vocab_size=40&amp;start=2&amp;end=4"


def _answers(html: str) -> list[str]:
    return re.findall(r'data-testid="answer">([^<]*)<', html)


def test_bpe_encode_sheet_is_the_engines_encoding(client):
    import tokenizers_core as tc
    from app.views.common import shower as _shower
    from app.views.worksheets import bpe_encode_worksheet
    from tokenizers_core.models.bpe.session import encode_trace

    tok = tc.load("gpt2")
    show = _shower(True)  # byte-level symbols as text: Ġ shows as ·
    sheet = bpe_encode_worksheet(tok, "lowest newer")
    traces = encode_trace(tok, "lowest newer")
    steps = [s for w in sheet["words"] for s in w["steps"]]
    engine = [s for t in traces for s in t.steps]
    assert len(steps) == len(engine) == sheet["total"] > 0
    for mine, theirs in zip(steps, engine):
        assert mine["rank"] == theirs.rank == min(r for _i, r in theirs.candidates)
        assert mine["pairs"][0][1] == theirs.rank and mine["new"] == show(theirs.merged)
        assert sorted(r for _p, r in mine["pairs"]) == sorted(r for _i, r in theirs.candidates)[:8]
    assert [w["tokens"] for w in sheet["words"]] == [["low", "est"], ["·newer"]]
    blank = client.get("/worksheet/bpe_encode?text=lowest+newer")
    key = client.get("/worksheet/bpe_encode?text=lowest+newer&key=1")
    assert blank.status_code == key.status_code == 200
    assert not _answers(blank.text) and 'class="blank"' in blank.text
    # every blank row of a pair table has an answer row in the key, and every merge an answer
    assert blank.text.count('<td class="blank"></td><td class="blank"></td>') == sum(
        len(s["pairs"]) for s in steps
    )
    assert len(_answers(key.text)) == len(steps) and blank.text.count("rank <span") == len(steps)
    assert (
        _answers(key.text)[0]
        == f"{steps[0]['pair'][0]} + {steps[0]['pair'][1]} → {steps[0]['new']}"
    )
    assert f"rank {steps[0]['rank']}" in key.text


def test_bpe_encode_sheet_bad_input(client):
    for query, words in [
        ("text=" + "a" * 61, "at most 60"),
        ("text=+", "short text"),
        ("text=lowest&paper=a3", "paper"),
        ("tokenizer=bert-base-uncased", "not a BPE"),
        ("text=" + "tokenization+" * 4, "steps to encode"),
    ]:
        r = client.get(f"/worksheet/bpe_encode?{query}")
        assert 400 <= r.status_code < 500, query
        assert words in r.text, query
    assert client.get("/worksheet/bpe_encode?tokenizer=nobody").status_code == 404


def test_the_bpe_encode_view_links_a_worksheet(client):
    r = client.get("/bpe/encode?text=lowest+newer")
    link = re.search(r'href="([^"]*)" data-testid="worksheet-link"', r.text).group(1)
    assert link == "/worksheet/bpe_encode?tokenizer=r50k_base&amp;text=lowest+newer"  # gpt2
    assert client.get(link.replace("&amp;", "&")).status_code == 200
    assert "worksheet-link" not in client.get("/bpe/encode?text=" + "a" * 61).text


def test_wordpiece_encode_sheet_is_the_engines_probes(client):
    from app.views.wordpiece_encode import SMALL_VOCAB
    from app.views.worksheets import wordpiece_encode_worksheet
    from tokenizers_core.implementations.bert import bert_pipeline, encode_steps
    from tokenizers_core.models.wordpiece.model import vocab_from_text

    tok = bert_pipeline(vocab_from_text(SMALL_VOCAB), name="small")
    sheet = wordpiece_encode_worksheet(tok, "unaffable playing")
    _words, steps = encode_steps(tok, "unaffable playing")
    probes = [p for w in sheet["words"] for p in w["probes"]]
    assert [(p["candidate"], p["found"] == "yes") for p in probes] == [
        (s.candidate, s.found) for _i, s in steps
    ]
    assert [p["taken"] for p in probes if p["taken"]] == ["un", "##aff", "##able", "play", "##ing"]
    assert [w["tokens"] for w in sheet["words"]] == [["un", "##aff", "##able"], ["play", "##ing"]]
    assert [w["tokens"] for w in sheet["words"]] == [
        tok.encode(w, add_special_tokens=False).tokens for w in ("unaffable", "playing")
    ]
    blank = client.get("/worksheet/wordpiece_encode")
    key = client.get("/worksheet/wordpiece_encode?key=1")
    assert blank.status_code == key.status_code == 200
    # every probe row is four blanks on the sheet and four answers in the key
    assert blank.text.count('<td class="blank"></td>') == 4 * len(probes)
    assert (
        "##aff"
        not in blank.text.split('data-testid="sheet"')[1]
        .split("The vocabulary")[1]
        .split("</section>")[1]
    )
    assert len(re.findall(r'<tr class="(?:winner)?"><td class="num">', key.text)) == len(probes)
    assert key.text.count('data-testid="answer"') == 2


def test_wordpiece_encode_sheet_bad_input(client):
    for query, words in [
        ("text=" + "a" * 61, "at most 60"),
        ("vocab=gpt2", "WordPiece"),
        ("text=unaffable+unaffable+unaffable+x", "probes"),
        ("paper=a5", "paper"),
    ]:
        r = client.get(f"/worksheet/wordpiece_encode?{query}")
        assert 400 <= r.status_code < 500, query
        assert words in r.text, query


def test_the_wordpiece_encode_view_links_a_worksheet(client):
    r = client.get("/wordpiece/encode?text=unaffable+playing")
    link = re.search(r'href="([^"]*)" data-testid="worksheet-link"', r.text).group(1)
    assert link == "/worksheet/wordpiece_encode?vocab=small&amp;text=unaffable+playing"
    assert client.get(link.replace("&amp;", "&")).status_code == 200


def test_lattice_sheet_is_the_engines_viterbi(client):
    from app.views.worksheets import lattice_worksheet
    from tokenizers_core.implementations.unigram import demo_tokenizer
    from tokenizers_core.models.unigram.model import lattice_steps

    tok = demo_tokenizer()
    sheet = lattice_worksheet(tok, "cats")
    _text, steps = lattice_steps(tok, "cats")
    forward = [s for s in steps if s.kind == "viterbi"]
    assert [(r["i"], float(r["best"]), r["back"]) for r in sheet["rows"]] == [
        (s.position, round(s.best, 2), s.back) for s in forward
    ]
    assert [r["best"] for r in sheet["rows"]] == ["-3.50", "-5.00", "-6.50", "-2.00", "-5.00"]
    assert sheet["path"] == tok.encode("cats").tokens == ["▁cat", "s"] and sheet["score"] == "-5.00"
    assert ("▁cat", "-2.00") in sheet["pieces"] and ("▁cats", "-9.00") in sheet["pieces"]
    blank = client.get("/worksheet/unigram_lattice")
    key = client.get("/worksheet/unigram_lattice?key=1")
    assert blank.status_code == key.status_code == 200
    # three blanks per end position on the sheet; the key fills each row and the path
    assert blank.text.count('<td class="blank"></td>') == 3 * len(forward)
    cell = '<td class="num">-6.50</td>'
    assert not _answers(blank.text) and cell not in blank.text and cell in key.text
    assert key.text.count('data-testid="answer"') == 1


def test_lattice_sheet_bad_input(client):
    for query, words in [
        ("text=abcdefghijklmnop", "at most 12"),
        ("model=gpt2", "Unigram"),
        ("text=+", "short text"),
        ("paper=a5", "paper"),
    ]:
        r = client.get(f"/worksheet/unigram_lattice?{query}")
        assert 400 <= r.status_code < 500, query
        assert words in r.text, query
    assert client.get("/worksheet/unigram_lattice?model=nobody").status_code == 404


def test_the_lattice_view_links_a_worksheet(client):
    r = client.get("/unigram/lattice?text=cats")
    link = re.search(r'href="([^"]*)" data-testid="worksheet-link"', r.text).group(1)
    assert link == "/worksheet/unigram_lattice?model=tiny&amp;text=cats"
    assert "worksheet-link" not in client.get("/unigram/lattice?text=" + "a" * 20).text


def test_unigram_train_sheet_is_the_engines_run(client):
    from app.views.worksheets import UNIGRAM_CORPUS, unigram_train_worksheet
    from tokenizers_core.models.unigram.trainer import UnigramTrainer

    steps = UnigramTrainer(UNIGRAM_CORPUS.splitlines(), 30).run().steps
    sheet = unigram_train_worksheet(UNIGRAM_CORPUS, 30, 1, 3)
    assert sheet["total"] == len(steps) - 1 and sheet["seed"] == steps[0].vocab_size
    for r in sheet["rounds"]:
        s = steps[r["k"]]
        assert (r["before"], r["after"], r["num_pruned"]) == (
            steps[r["k"] - 1].vocab_size,
            s.vocab_size,
            s.num_pruned,
        )
        assert r["before"] - r["dropped"] - r["num_pruned"] == r["after"]
        assert float(r["loglik"]) == round(s.log_likelihood, 2)
        assert [p for p, _l in r["pruned"]] == [p.replace(" ", "·") for p, _l in s.pruned]
        assert r["pruned"] or s.final  # (round 3 is the final vocabulary)
    blank = client.get("/worksheet/unigram_train")
    key = client.get("/worksheet/unigram_train?key=1")
    assert blank.status_code == key.status_code == 200
    # five blanks per round plus two per pruned piece; the key answers the five per round
    n_pruned = sum(len(r["pruned"]) for r in sheet["rounds"])
    assert blank.text.count('<td class="blank"></td>') == 5 * 3 + 2 * n_pruned
    assert not _answers(blank.text)
    assert _answers(key.text) == [
        str(v)
        for r in sheet["rounds"]
        for v in (r["before"], r["dropped"], r["num_pruned"], r["after"], r["loglik"])
    ]
    assert all(
        f'<td class="mono">{p}</td><td class="num">{loss}</td>' in key.text
        for r in sheet["rounds"]
        for p, loss in r["pruned"]
    )


def test_unigram_train_sheet_bad_input(client):
    for query, words in [
        ("corpus=udhr/eng", "at most 5,000"),
        ("start=1&end=9", "at most 4"),
        ("start=4&end=5", "within 1–3"),
        ("vocab_size=10", "too small"),
        ("vocab_size=2", "between 4"),
        ("start=0", "numbered from 1"),
        ("start=3&end=2", "empty"),
        ("corpus=nope", "unknown corpus"),
    ]:
        r = client.get(f"/worksheet/unigram_train?{query}")
        assert 400 <= r.status_code < 500, query
        assert words in r.text, query


def test_the_unigram_train_view_links_a_worksheet(store_client):
    from app.views.worksheets import UNIGRAM_CORPUS

    digest = store_client.post("/api/corpora", json={"text": UNIGRAM_CORPUS}).json()["sha256"]
    r = store_client.get(f"/unigram/train?corpus={digest}&vocab_size=30&step=1")
    link = re.search(r'href="([^"]*)" data-testid="worksheet-link"', r.text).group(1)
    assert (
        link == f"/worksheet/unigram_train?corpus={digest}&amp;vocab_size=30&amp;start=2&amp;end=3"
    )
    assert store_client.get(link.replace("&amp;", "&")).status_code == 200
    assert (
        "worksheet-link"
        not in store_client.get("/unigram/train?corpus=udhr/eng&vocab_size=300").text
    )


def test_a_worksheet_reads_the_run_the_page_trained(client, monkeypatch):
    """The core keeps no sessions: the page and its worksheet share the views' cache
    (app.jobs.cache), so printing merges 1-3 of the run on screen trains nothing again."""
    from app.jobs import cache
    from tokenizers_core.models.bpe.session import BpeSession

    monkeypatch.setattr(cache, "BPE", cache.RunCache(6))
    made = []
    real = BpeSession.__init__
    monkeypatch.setattr(
        BpeSession, "__init__", lambda self, *args: made.append(args) or real(self, *args)
    )
    assert client.get("/bpe/train?vocab_size=24&step=2").status_code == 200
    assert client.get("/worksheet/bpe?vocab_size=24&start=1&end=3").status_code == 200
    assert len(made) == 1


def test_a_large_corpus_opens_on_a_sheet_of_its_first_lines(client):
    """botchan has thousands of distinct words: the sheet trains on its first lines that a hand
    worksheet takes (at most 40 distinct words), says so, and picks a vocab_size that works
    (the corpus's starting symbols and 12 merges; it was 24, below botchan's 85 symbols)."""
    r = client.get("/worksheet/bpe?corpus=botchan")
    assert r.status_code == 200, re.findall(r'data-testid="error">([^<]*)', r.text)
    cut = re.search(r'data-testid="sheet-cut">([^<]*)<', r.text).group(1)
    assert "at most 40 distinct words" in cut and "its first 2 lines" in cut
    assert re.search(
        r"vocab_size 49, the first 2 lines of corpus botchan: 29 distinct words", r.text
    )
    key = client.get("/worksheet/bpe?corpus=botchan&key=1")
    assert len(re.findall(r'data-testid="answer">', key.text)) == 3
    byte = client.get("/worksheet/bpe?variant=byte_bpe")  # the textbook: 256 bytes and 12
    assert byte.status_code == 200 and "vocab_size 268" in byte.text
    assert client.get("/worksheet/bpe?corpus=botchan&vocab_size=24").status_code == 422


def test_the_training_view_offers_a_worksheet_only_where_it_works(client):
    """A corpus with more words than a hand worksheet takes gets a note and a link to a sheet
    of its first lines, not "Print merges 4-7" (whose sheet was one sentence of error)."""
    from tests.polling import wait_until

    url = "/bpe/train?corpus=udhr/eng&vocab_size=200&step=3"
    page = wait_until(lambda: _when(client.get(url).text, "worksheet-"), 60)
    assert 'data-testid="worksheet-link"' not in page
    note = re.search(r'data-testid="worksheet-note">(.*?)</p>', page).group(1)
    assert "at most 40 distinct words" in note
    href = re.search(r'href="([^"]*)"', note).group(1).replace("&amp;", "&")
    assert href == "/worksheet/bpe?corpus=udhr%2Feng&variant=bpe"
    assert client.get(href).status_code == 200


def test_the_wordpiece_view_offers_a_worksheet_only_where_it_works(client):
    from tests.polling import wait_until

    url = "/wordpiece/train?corpus=udhr/eng&vocab_size=200&step=3"
    page = wait_until(lambda: _when(client.get(url).text, "worksheet-"), 60)
    assert 'data-testid="worksheet-link"' not in page and 'data-testid="worksheet-note"' in page


def test_every_label_of_a_worksheet_form_is_held_with_its_box(client):
    """Each label and its box are one item of the wrapping form (span.pair), so a line never
    ends with a label whose box starts the next."""
    for path in [
        "/worksheet/bpe",
        "/worksheet/wordpiece",
        "/worksheet/unigram_train",
        "/worksheet/bpe_encode",
        "/worksheet/wordpiece_encode",
        "/worksheet/unigram_lattice",
    ]:
        form = re.search(r'data-testid="worksheet-form">(.*?)</form>', client.get(path).text, re.S)
        labels = re.findall(r'<label for="(\w+)"', form.group(1))
        pairs = re.findall(
            r'<span class="pair"><label for="(\w+)">.*?<(?:input|select) id="\1"',
            form.group(1),
            re.S,
        )
        assert labels and labels == pairs, path


def _when(text: str, mark: str) -> str | None:
    """The page once it shows `mark` (a training in the job pool first shows its progress)."""
    return text if mark in text else None
