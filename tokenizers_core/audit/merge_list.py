"""A BPE tokenizer's ordered merge list, whatever its format, and the symbols it merges from.

Every file format the app loads stores the merges differently, and the models already turn
each into one list of `(left, right)` pairs in learned order (`model.merges`):

- tokenizer.json and GPT-2's vocab.json + merges.txt list the merges themselves;
- tiktoken ranks list only tokens: the pair of each token is what rank-based BPE makes of the
  token's bytes with the lower ranks alone, which is exactly two parts
  (`models/bpe/model.py` `_merges_from_ranks`);
- sentencepiece BPE lists pieces with scores: in score order, each piece is the merge of the two
  symbols the encoder reaches with the pieces learned before it (`models/bpe/sentencepiece.py`);
- the trainers here record their merges as they learn them.

This module puts a clear error in front of the tokenizers that have no merge list (WordPiece,
Unigram, word-level, sentencepiece's char and word models), and says how a text starts out
before the first merge: the tokenizer's own normaliser and pre-tokenizer, then the model's own
initial symbols (bytes in the GPT-2 alphabet for byte-level BPE; characters, with ``</w>``
where a model appends it; sentencepiece's words, each starting at a "▁", each character a
piece or, outside the vocabulary, byte pieces or ``<unk>``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, TypeGuard

from ..errors import InvalidInput
from ..models.bpe.hf import HFBpe, cut_join
from ..models.bpe.model import BPE
from ..models.bpe.sentencepiece import SentencePieceBpe, SentencePieceSplit, split_into_words


def merge_list(tokenizer: Any) -> list[tuple[str, str]]:
    """The merges of a BPE tokenizer, in the order they were learned.

    >>> import tokenizers_core as tc
    >>> merge_list(tc.load("r50k_base"))[:3]
    [('Ġ', 't'), ('Ġ', 'a'), ('h', 'e')]
    >>> merge_list(tc.load("bert-base-uncased"))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: bert-base-uncased has no merge list: it is a WordPiece
    model, and only a BPE tokenizer learns its vocabulary by merging pairs in order
    """
    model = getattr(tokenizer, "model", None)
    if not _is_bpe(model):
        raise InvalidInput(
            f"{_name(tokenizer)} has no merge list: it is {_kind(model)}, and only "
            "a BPE tokenizer learns its vocabulary by merging pairs in order"
        )
    merges = model.merges
    if not merges:
        raise InvalidInput(f"{_name(tokenizer)} has an empty merge list: nothing was learned")
    return list(merges)


def word_counts(tokenizer: Any, text: str) -> Counter[tuple[str, ...]]:
    """Each distinct word of `text` as the tokenizer's model first spells it (its symbols before
    any merge), with how often it occurs. A word is a piece of the tokenizer's own
    pre-tokenizer; a sentencepiece model (which has none) cuts at each "▁", as its trainer does.

    >>> import tokenizers_core as tc
    >>> sorted(word_counts(tc.load("r50k_base"), "a cat, a cat").items())
    [((',',), 1), (('a',), 1), (('Ġ', 'a'), 1), (('Ġ', 'c', 'a', 't'), 2)]
    """
    merge_list(tokenizer)  # the same error for a model that cannot merge
    model = tokenizer.model
    counts: Counter[tuple[str, ...]] = Counter()
    for piece in tokenizer.pre_tokenize(text):
        for word in _words(model, piece.normalized):
            counts[word] += 1
    return counts


def joiner(tokenizer: Any):
    """The function that names the symbol a merge makes: `left + right`, or, for a model with a
    continuing-subword prefix, Hugging Face's cut of the prefix off the right side."""
    prefix = getattr(tokenizer.model, "continuing_subword_prefix", None)
    if prefix:
        return lambda left, right: cut_join(left, right, prefix)
    return lambda left, right: left + right


def _words(model: Any, piece: str) -> list[tuple[str, ...]]:
    if isinstance(model, BPE):
        return [tuple(model.initial_parts(piece))] if piece else []
    return [
        tuple(symbol for c in piece[s:e] for symbol in _spelled(model, c))
        for s, e in split_into_words(piece)
    ]


def _spelled(model: SentencePieceBpe, char: str) -> list[str]:
    """A character as a sentencepiece model starts from it: itself if it is a piece, else its
    UTF-8 bytes as byte pieces (with byte fallback) or the unknown piece.

    (A script the trainer never saw thus stays bytes, as dense in pairs as it is in a
    byte-level model, instead of characters that look rare.)"""
    if model.token_to_id(char) is not None:
        return [char]
    if model.byte_fallback:
        return [f"<0x{b:02X}>" for b in char.encode("utf-8")]
    return [model.id_to_token(model.unk_id) or "<unk>"]


def _is_bpe(model: Any) -> TypeGuard[BPE | HFBpe | SentencePieceBpe]:
    if isinstance(model, SentencePieceSplit):
        return False
    return isinstance(model, (BPE, HFBpe, SentencePieceBpe))


def _kind(model: Any) -> str:
    if isinstance(model, SentencePieceSplit):
        return f"a sentencepiece {model.kind} model"
    words = {
        "WordPiece": "a WordPiece model",
        "Unigram": "a Unigram model",
        "WordLevel": "a word-level model",
    }
    return words.get(type(model).__name__, "a rule-based tokenizer")


def _name(tokenizer: Any) -> str:
    return str(getattr(tokenizer, "name", None) or "this tokenizer")
