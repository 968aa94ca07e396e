"""`tokenizers_core.trainers`, Hugging Face's spelling of training, against `tokenizers` itself.

The same lines, the same pre-tokenizer, the same trainer keywords: the vocabulary and merges
come out equal (BPE and WordLevel, where the ids do not depend on Hugging Face's hash-map order;
see test_trainer_options.py for the prefixed spellings, whose numbering does).
"""

from __future__ import annotations

import json

import pytest

from tokenizers_core import Tokenizer, models, normalizers, pre_tokenizers, trainers
from tokenizers_core.corpora import load_corpus

hf = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def botchan() -> list[str]:
    return load_corpus("botchan").splitlines()[:1500]


def hf_trained(lines, model, trainer, *, lowercase=False):
    tok = hf.Tokenizer(model)
    tok.pre_tokenizer = hf.pre_tokenizers.Whitespace()
    if lowercase:
        tok.normalizer = hf.normalizers.Lowercase()
    tok.train_from_iterator(lines, trainer)
    return tok, json.loads(tok.to_str())["model"]


@pytest.mark.parametrize(
    "options",
    [
        {"vocab_size": 600, "special_tokens": ["<unk>", "<pad>"]},
        {"vocab_size": 400, "min_frequency": 3},
    ],
)
def test_bpe_trainer_learns_hugging_faces_merges(botchan, options):
    theirs, model = hf_trained(
        botchan, hf.models.BPE(), hf.trainers.BpeTrainer(show_progress=False, **options)
    )
    tok = trainers.BpeTrainer(show_progress=False, **options).train(botchan)
    assert tok.model.vocab == model["vocab"]
    assert tok.model.merges == [tuple(m) for m in model["merges"]]
    for line in botchan[100:140]:
        assert tok.encode(line).tokens == theirs.encode(line).tokens


def test_train_from_iterator_cuts_words_with_the_tokenizers_own_stages(botchan):
    """Hugging Face's way: the tokenizer's normaliser (here Lowercase) shapes the words."""
    theirs, model = hf_trained(
        botchan,
        hf.models.BPE(unk_token="<unk>"),
        hf.trainers.BpeTrainer(vocab_size=500, show_progress=False, special_tokens=["<unk>"]),
        lowercase=True,
    )
    tok = Tokenizer(
        models.BPE({}, [], unk_token="<unk>"),
        normalizer=normalizers.Lowercase(),
        pre_tokenizer=pre_tokenizers.Whitespace(),
    )
    tok.train_from_iterator(
        botchan, trainer=trainers.BpeTrainer(vocab_size=500, special_tokens=["<unk>"])
    )
    assert tok.model.vocab == model["vocab"]
    assert tok.encode("Hello <unk> World").tokens == theirs.encode("Hello <unk> World").tokens
    assert tok.is_special("<unk>")


def test_wordlevel_trainer_keeps_hugging_faces_words(botchan):
    theirs, model = hf_trained(
        botchan,
        hf.models.WordLevel(unk_token="<unk>"),
        hf.trainers.WordLevelTrainer(
            vocab_size=800, min_frequency=2, special_tokens=["<unk>"], show_progress=False
        ),
    )
    tok = trainers.WordLevelTrainer(
        vocab_size=800, min_frequency=2, special_tokens=["<unk>"]
    ).train(botchan)
    assert tok.model.vocab == model["vocab"]
    for line in botchan[200:230]:
        assert tok.encode(line).ids == theirs.encode(line).ids


def test_wordpiece_trainer_is_bpe_with_the_prefix_as_hugging_faces(botchan):
    """Hugging Face's WordPieceTrainer runs its BpeTrainer with `##`: so does ours, and the
    greedy longest match then reads that vocabulary."""
    tok = trainers.WordPieceTrainer(vocab_size=500, special_tokens=["[UNK]"]).train(botchan)
    bpe = trainers.BpeTrainer(
        vocab_size=500, special_tokens=["[UNK]"], continuing_subword_prefix="##"
    ).train(botchan)
    assert tok.model.vocab == bpe.model.vocab
    assert isinstance(tok.model, models.WordPiece)
    assert tok.encode("unaffable").tokens[1:] == [
        t for t in tok.encode("unaffable").tokens[1:] if t.startswith("##")
    ]


def test_unigram_trainer_maps_hugging_faces_keywords(botchan):
    lines = botchan[:300]
    tok = trainers.UnigramTrainer(
        vocab_size=200,
        shrinking_factor=0.8,
        n_sub_iterations=1,
        max_piece_length=4,
        show_progress=False,
    ).train(lines)
    assert tok.algorithm == "unigram"
    assert max(len(t) for t in tok.model.vocab if not t.startswith("<")) == 4
    with pytest.raises(ValueError, match="whole lines"):
        Tokenizer(models.BPE({}, [])).train_from_iterator(lines, trainers.UnigramTrainer())


@pytest.mark.parametrize(
    "trainer, keyword",
    [
        (trainers.UnigramTrainer, "initial_alphabet"),
        (trainers.WordLevelTrainer, "limit_alphabet"),
        (trainers.BpeTrainer, "no_such_option"),
    ],
)
def test_a_keyword_we_do_not_support_is_named(trainer, keyword):
    with pytest.raises(ValueError, match=keyword):
        trainer(**{keyword: 1})


def test_one_string_is_not_an_iterable_of_lines():
    with pytest.raises(ValueError, match="iterable of lines"):
        trainers.BpeTrainer(vocab_size=30).train("the cat")
