"""Every control piece of a sentencepiece .model decodes to nothing, as sentencepiece's `Decode`
gives any control id an empty surface (`DecodeSentencePiece`: "invisible symbol"), not only
`<s>` and `</s>`. Mistral's instruct models (mistral-common's `mistral_instruct_tokenizer_*.model`)
make `[INST]`, `[/INST]`, `[TOOL_CALLS]` and hundreds of `[control_N]` control pieces: they had
decoded as their text ("DR[INST] chall" where sentencepiece gives "DR chall").

The model here is trained on the spot with two such control symbols; the oracle is the
`sentencepiece` package (test-only).
"""

from __future__ import annotations

import gzip
import io
import os

import pytest

import tokenizers_core as tc
from tokenizers_core.formats.sentencepiece_model import _DATA

spm = pytest.importorskip("sentencepiece")

CONTROL = ["[INST]", "[/INST]"]


@pytest.fixture(scope="module")
def model():
    """A small BPE model with byte fallback whose pieces 1-4 are <s>, </s>, [INST], [/INST]
    (control), as Mistral's are; and sentencepiece's processor of the same bytes."""
    with gzip.open(os.path.join(_DATA, "corpora", "botchan.txt.gz"), "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()[200:1200]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=buf,
        model_type="bpe",
        vocab_size=400,
        control_symbols=CONTROL,
        byte_fallback=True,
        minloglevel=2,
        num_threads=1,
    )
    data = buf.getvalue()
    return tc.load(data), spm.SentencePieceProcessor(model_proto=data)


def test_the_trained_model_has_the_control_pieces(model):
    _ours, sp = model
    assert [sp.id_to_piece(i) for i in (3, 4)] == CONTROL
    assert all(sp.is_control(i) for i in (1, 2, 3, 4))


@pytest.mark.parametrize("skip", [False, True])
def test_every_control_id_decodes_to_nothing(model, skip):
    ours, sp = model
    hello = sp.encode("hello there")
    for i in (1, 2, 3, 4):
        assert ours.decode([i], skip_special_tokens=skip) == sp.decode([i]) == ""
        ids = [3, *hello, 4, i]
        assert ours.decode(ids, skip_special_tokens=skip) == sp.decode(ids) == "hello there"


def test_a_control_piece_typed_in_the_text_is_text(model):
    ours, sp = model
    text = "[INST] hi [/INST]"
    assert ours.encode(text).ids == sp.encode(text)
    assert 3 not in sp.encode(text)
    assert ours.decode(sp.encode(text)) == sp.decode(sp.encode(text)) == text


def test_the_saved_model_keeps_them_invisible(model, tmp_path):
    ours, sp = model
    path = tmp_path / "control.model"
    ours.save(str(path))
    again = tc.load(str(path))
    assert again.decode([3, *sp.encode("hi"), 4]) == sp.decode([3, *sp.encode("hi"), 4]) == "hi"
