"""The step views' code panels show the textbook module's own source, and light the line its
`line_of` gives for the step the page is on: before any step, the first step, a middle step
and the last step of each of the six views (and the same in an htmx fragment)."""

from __future__ import annotations

import html
import re

import pytest

import tokenizers_core as tc
from app.views.wordpiece_encode import SMALL_VOCAB
from app.views.worksheets import UNIGRAM_CORPUS
from tokenizers_core.corpora import SENNRICH
from tokenizers_core.implementations.bert import bert_pipeline, count_words, encode_steps
from tokenizers_core.implementations.unigram import demo_tokenizer
from tokenizers_core.models.bpe.session import BpeSession, encode_trace
from tokenizers_core.models.unigram.model import lattice_steps
from tokenizers_core.models.unigram.trainer import UnigramTrainer
from tokenizers_core.models.wordpiece.model import vocab_from_text
from tokenizers_core.models.wordpiece.session import WordPieceSession
from tokenizers_core.textbook import (
    bpe_encode,
    bpe_train,
    unigram_em,
    unigram_viterbi,
    wordpiece_encode,
    wordpiece_train,
)

HX = {"HX-Request": "true"}


def panel(page: str) -> tuple[list[str], int, str]:
    """The code panel of a page: its lines (unescaped), the 1-based line lit, the file named."""
    box = re.search(r'data-testid="code-panel">(.*?)</figure>', page, re.S).group(1)
    items = re.findall(
        r"<li( class=\"current\" aria-current=\"step\")?><code>(.*?)</code></li>", box, re.S
    )
    lit = [n for n, (current, _text) in enumerate(items, 1) if current]
    assert len(lit) == 1, lit  # exactly one line is lit
    source = re.search(r'data-testid="code-source">(.*?)</span>', box).group(1)
    return [html.unescape(text) for _c, text in items], lit[0], source


def check(client, url: str, module, step, finished: bool, mark: str) -> None:
    """The page at `url` shows `module`'s CODE, lit on line_of(step); that line has `mark`."""
    for headers in ({}, HX):
        r = client.get(url, headers=headers)
        assert r.status_code == 200, (url, r.text[:300])
        lines, lit, source = panel(r.text)
        assert tuple(lines) == module.CODE
        assert source == module.__name__.replace(".", "/") + ".py"
        assert lit == module.line_of(step, finished=finished), (url, lines[lit - 1])
        assert lines[lit - 1].endswith(f"<- {mark}"), (url, lines[lit - 1])


def test_bpe_training_lights_the_start_a_merge_and_the_stop(client):
    session = BpeSession(SENNRICH, "bpe", 24, {})
    total = session.total_steps()
    for k, mark in ((0, "start"), (1, "merge"), (total // 2, "merge"), (total, "stop")):
        check(client, f"/bpe/train?step={k}", bpe_train, session.step(k), k == total, mark)


def test_sentencepiece_bpe_shows_the_closest_module_and_says_what_differs(client):
    r = client.get("/bpe/train?variant=sentencepiece_bpe&step=2")
    lines, lit, source = panel(r.text)
    assert source == "tokenizers_core/textbook/bpe_train.py" and lines[lit - 1].endswith("<- merge")
    note = re.search(r'data-testid="code-note">(.*?)</p>', r.text, re.S).group(1)
    assert "sentencepiece_bpe" in note and "shorter" in note
    assert 'data-testid="code-note"' not in client.get("/bpe/train?step=2").text


def test_bpe_encoding_lights_the_spelling_a_merge_and_the_end(client):
    text = "lowest newer"
    flat = [s for t in encode_trace(tc.load("gpt2"), text) for s in t.steps]
    total = len(flat)
    assert total > 3
    for k, mark in ((0, "start"), (1, "merge"), (total // 2, "merge"), (total, "stop")):
        step = flat[k - 1] if k else None
        check(
            client,
            f"/bpe/encode?tokenizer=gpt2&text={text}&step={k}",
            bpe_encode,
            step,
            k == total,
            mark,
        )


def test_wordpiece_encoding_lights_each_probe_by_its_status(client):
    """unaffable with the small vocabulary: 0:9 ... 0:3 miss, 0:2 "un" hits (probe 8), ...,
    ##able hits last: the word is done."""
    tok = bert_pipeline(vocab_from_text(SMALL_VOCAB), name="small")
    _words, steps = encode_steps(tok, "unaffable")
    total = len(steps)
    for k, mark in ((0, "start"), (1, "miss"), (8, "hit"), (total, "stop")):
        step = steps[k - 1][1] if k else None
        check(
            client,
            f"/wordpiece/encode?text=unaffable&step={k}",
            wordpiece_encode,
            step,
            k == total,
            mark,
        )


def test_wordpiece_encoding_lights_the_unknown_word(client):
    check(
        client,
        "/wordpiece/encode?text=xyz&step=3",
        wordpiece_encode,
        encode_steps(bert_pipeline(vocab_from_text(SMALL_VOCAB)), "xyz")[1][2][1],
        False,
        "unk",
    )


def test_wordpiece_training_lights_the_start_a_merge_and_the_stop(client):
    session = WordPieceSession(count_words(SENNRICH), vocab_size=40).run()
    total = len(session.steps)
    for k, mark in ((0, "start"), (1, "merge"), (total // 2, "merge"), (total, "stop")):
        step = session.steps[k - 1] if k else None
        check(client, f"/wordpiece/train?step={k}", wordpiece_train, step, k == total, mark)


def test_the_lattice_lights_filling_backtracking_and_the_split(client):
    _text, steps = lattice_steps(demo_tokenizer(), "cats")
    total = len(steps)
    forward = sum(s.kind == "viterbi" for s in steps)
    for k, mark in ((0, "start"), (1, "fill"), (forward + 1, "backtrack"), (total, "stop")):
        step = steps[k - 1] if k else None
        check(
            client, f"/unigram/lattice?text=cats&step={k}", unigram_viterbi, step, k == total, mark
        )


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_unigram_training_lights_the_seed_a_round_and_the_final_cut(store_client, which):
    corpus = UNIGRAM_CORPUS  # the worksheet's little corpus
    ref = store_client.post("/api/corpora", json={"text": corpus}).json()["sha256"]
    rounds = list(UnigramTrainer(corpus.splitlines(), 30).rounds())
    k = {"first": 0, "middle": 1, "last": len(rounds) - 1}[which]
    mark = {"first": "seed", "middle": "prune", "last": "final"}[which]
    assert len(rounds) > 2 and not rounds[1].final
    check(
        store_client,
        f"/unigram/train?corpus={ref}&vocab_size=30&step={k}",
        unigram_em,
        rounds[k],
        False,
        mark,
    )
