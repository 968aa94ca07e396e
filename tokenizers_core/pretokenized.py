"""Pre-tokenized input: a sequence given as a list of words, as Hugging Face's
`encode(["Hello", "world"], is_pretokenized=True)` takes it.

Each word goes through stages 0-3 on its own (added tokens, the normaliser, the pre-tokenizer,
the model), exactly as a text of its own would, so a word may still be split further (GPT-2's
ByteLevel with add_prefix_space gives each word its `Ġ`, Metaspace its `▁`). Every token of
word i gets word id i, and its offsets are characters of that word (Hugging Face's rule: the
words are separate strings). Truncation, the post-processor and padding then run on the whole
sequence as usual.

>>> import tokenizers_core as tc
>>> enc = tc.load("bert-base-uncased").encode(["Hello", "playing"], is_pretokenized=True)
>>> enc.tokens, enc.word_ids, enc.offsets
(['[CLS]', 'hello', 'playing', '[SEP]'], [None, 0, 1, None], [(0, 0), (0, 5), (0, 7), (0, 0)])
"""

from __future__ import annotations

from typing import Any, Callable

from .encoding import Encoding
from .errors import InvalidInput

# stages 0-3 for one text: (text, type_id, local_ids, trace) -> Encoding
EncodeSequence = Callable[[str, int, dict, Any], Encoding]


def check_words(words: Any) -> list[str]:
    """The words of a pre-tokenized sequence (a list or tuple of strings), else ValueError.

    >>> check_words(("a", "b"))
    ['a', 'b']
    """
    if not isinstance(words, (list, tuple)) or not all(isinstance(w, str) for w in words):
        raise InvalidInput(
            "pre-tokenized input is a list of words (strings), e.g. "
            '["Hello", "world"]; give a plain string without is_pretokenized'
        )
    return list(words)


def sequence_encoder(
    encode_sequence: EncodeSequence, text: Any, pair: Any, is_pretokenized: bool
) -> Callable[[Any, int, dict, Any], Encoding]:
    """What encodes one sequence: `encode_sequence` for a text, or word by word for a list of
    words (so it takes whichever `text` is). Checks the input first (ValueError for the wrong
    kind)."""
    if not is_pretokenized:
        if not isinstance(text, str) or (pair is not None and not isinstance(pair, str)):
            raise InvalidInput(
                "text to encode must be a string (a list of words needs is_pretokenized=True)"
            )
        return encode_sequence
    check_words(text)
    if pair is not None:
        check_words(pair)

    def encode_words(words: list[str], type_id: int, local_ids: dict, trace: Any) -> Encoding:
        return join([encode_sequence(w, type_id, local_ids, trace) for w in words], type_id)

    return encode_words


def join(encodings: list[Encoding], type_id: int) -> Encoding:
    """One sequence made of the words' encodings: word i's tokens get word id i.

    >>> a = Encoding([1], ["a"], [(0, 1)], [0], [1], [0], [0])
    >>> b = Encoding([2], ["b"], [(0, 1)], [0], [1], [0], [0])
    >>> join([a, b], 0).word_ids
    [0, 1]
    """
    out = concat(encodings)
    out.word_ids = [i for i, enc in enumerate(encodings) for _ in range(len(enc))]
    out.type_ids = [type_id] * len(out)
    return out


def concat(encodings: list[Encoding]) -> Encoding:
    """The encodings one after the other, each token as it was."""
    out = Encoding()
    for enc in encodings:
        for name in _PARALLEL:
            getattr(out, name).extend(getattr(enc, name))
    return out


_PARALLEL = (
    "ids",
    "tokens",
    "offsets",
    "word_ids",
    "attention_mask",
    "special_tokens_mask",
    "type_ids",
)


def batch_item(item: Any, is_pretokenized: bool) -> tuple[Any, Any]:
    """(sequence, pair or None) of one `encode_batch` input. Texts: a string or a `(text,
    pair)` tuple. Words: a list of words, or a pair of word lists, as Hugging Face reads them
    (a list of two strings is two words, not a pair).

    >>> (batch_item(("a", "b"), True), batch_item((["a"], ["b"]), True),
    ...  batch_item(("a", "b"), False))
    ((('a', 'b'), None), (['a'], ['b']), ('a', 'b'))
    """
    if not is_pretokenized:
        return tuple(item) if isinstance(item, tuple) and len(item) == 2 else (item, None)
    if (
        isinstance(item, (list, tuple))
        and len(item) == 2
        and all(isinstance(s, (list, tuple)) for s in item)
    ):
        return item[0], item[1]
    return item, None
