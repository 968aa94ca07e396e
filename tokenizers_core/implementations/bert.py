"""The BERT pipeline: BertNormalizer -> BertPreTokenizer -> WordPiece -> [CLS] $A [SEP] (as
'How Machines Comprehend Language' draws it).

`bert_base_uncased()` is the bundled real tokeniser; `train_wordpiece(lines, vocab_size)` trains a
WordPiece model by likelihood and puts it in the same pipeline.

>>> tok = bert_base_uncased()
>>> enc = tok.encode("Hello, world!")
>>> enc.tokens, enc.ids
(['[CLS]', 'hello', ',', 'world', '!', '[SEP]'], [101, 7592, 1010, 2088, 999, 102])
>>> enc.offsets[1:3], enc.special_tokens_mask
([(0, 5), (5, 6)], [1, 0, 0, 0, 0, 1])
>>> tok.decode(enc.ids), tok.decode(enc.ids, skip_special_tokens=True)
('[CLS] hello, world! [SEP]', 'hello, world!')

Special tokens typed in the text ("[CLS]", "[SEP]", "[MASK]", ...) are matched whole before
normalisation, exactly as typed (case-sensitive, so "[cls]" is ordinary text), as Hugging Face's
`BertWordPieceTokenizer` does (its special tokens are added tokens with `normalized`, `lstrip`,
`rstrip` and `single_word` all false); see `Tokenizer`'s added tokens in `pipeline.py`:

>>> enc = tok.encode("a[MASK]b")
>>> enc.tokens, enc.offsets[1:4]
(['[CLS]', 'a', '[MASK]', 'b', '[SEP]'], [(0, 1), (1, 7), (7, 8)])
>>> enc.word_ids, enc.special_tokens_mask
([None, 0, 1, 2, None], [1, 0, 0, 0, 1])
>>> tok.encode("[cls]").tokens
['[CLS]', '[', 'cl', '##s', ']', '[SEP]']
"""

from __future__ import annotations

import collections
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from .. import decoders
from ..errors import InvalidInput
from ..models.wordpiece.model import WordPiece, WordPieceProbeStep
from ..models.wordpiece.trainer import WordPieceTrainer
from ..normalized import NormalizedString
from ..normalizers import BertNormalizer
from ..pipeline import Tokenizer
from ..pre_tokenizers import BertPreTokenizer
from ..processors import BertProcessing

VOCAB_PATH = (
    Path(__file__).resolve().parent.parent / "data" / "vocab" / "bert-base-uncased-vocab.txt.gz"
)


def bert_pipeline(model: WordPiece, *, lowercase: bool = True, name: str = "") -> Tokenizer:
    """A WordPiece model in BERT's pipeline. Without [CLS] and [SEP] in the vocabulary there
    is no post-processor (nothing to add). The model's special tokens that are in its vocabulary
    are matched whole in the input text (Hugging Face adds them as special added tokens)."""
    cls_id, sep_id = model.token_to_id("[CLS]"), model.token_to_id("[SEP]")
    processor = (
        BertProcessing(sep=("[SEP]", sep_id), cls=("[CLS]", cls_id))
        if cls_id is not None and sep_id is not None
        else None
    )
    return Tokenizer(
        model,
        normalizer=BertNormalizer(lowercase=lowercase),
        pre_tokenizer=BertPreTokenizer(),
        post_processor=processor,
        decoder=decoders.WordPiece(prefix=model.continuing_subword_prefix),
        name=name,
        algorithm="wordpiece",
        added_tokens=[t for t in model.special_tokens if t in model.vocab],
    )


def bert_base_uncased() -> Tokenizer:
    """The bundled bert-base-uncased tokeniser (30,522 tokens, lowercasing, accents stripped)."""
    return bert_pipeline(WordPiece.from_file(str(VOCAB_PATH)), name="bert-base-uncased")


# ASCII punctuation as BERT counts it (Rust's is_ascii_punctuation): ! to /, : to @, [ to `, { to ~.
_ASCII_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_ASCII_WORDS = re.compile(r"[!-/:-@\[-`{-~]|[^!-/:-@\[-`{-~]+")


def _lines(lines: Iterable[str] | str) -> Iterable[str]:
    if isinstance(lines, str):
        return lines.splitlines()
    return lines


def count_words(lines: Iterable[str] | str, *, lowercase: bool = True) -> dict[str, int]:
    """Word frequencies after BERT's normaliser and pre-tokeniser (what training sees).

    Each whitespace-separated chunk is normalised and split once however often it occurs (the
    normaliser and the pre-tokeniser never look across a space, tab or line break).

    >>> count_words(["Héllo, hello!"])
    {'hello': 2, ',': 1, '!': 1}
    """
    try:
        text = " ".join(_lines(lines))
    except TypeError:
        raise InvalidInput("training lines must be strings") from None
    words: dict[str, int] = {}
    add_text_words(words, text, lowercase=lowercase)
    return words


def add_text_words(words: dict[str, int], text: str, *, lowercase: bool = True) -> None:
    """Add the BERT words of `text` (lines joined by spaces) to the counts `words`, in place: the
    body of `count_words`, which a corpus read in chunks calls once per chunk (the normaliser and
    the pre-tokeniser never look across a space, so the chunks' counts add up to the whole's)."""
    normalizer, pre_tokenizer = BertNormalizer(lowercase=lowercase), BertPreTokenizer()
    if lowercase:
        # Lowercasing ASCII first is safe: the normaliser lowercases anyway, and nothing
        # before that step depends on ASCII case. It makes "The" and "the" one chunk.
        # (On UTF-8 bytes: A-Z never occur inside a multi-byte character, and bytes.translate
        # is much faster than str.translate.)
        text = (
            text.encode("utf-8", "surrogatepass")
            .translate(_ASCII_LOWER)
            .decode("utf-8", "surrogatepass")
        )
    chunks = collections.Counter(
        text.replace("\t", " ").replace("\r", " ").replace("\n", " ").split(" ")
    )
    for chunk, freq in chunks.items():
        if not chunk:
            continue
        if chunk.isascii() and chunk.isprintable():
            # Fast path, same result: printable ASCII has nothing to clean, no CJK and no
            # accents (and is lowercased already), so only punctuation splits it.
            pieces = [chunk] if chunk.isalnum() else _ASCII_WORDS.findall(chunk)
        else:
            pieces = [
                p.normalized
                for p in pre_tokenizer.split(normalizer.normalize(NormalizedString(chunk)))
            ]
        for w in pieces:
            if w:
                words[w] = words.get(w, 0) + freq


def wordpiece_trainer(
    lines: Iterable[str] | str | None,
    vocab_size: int,
    *,
    lowercase: bool = True,
    words: Mapping[str, int] | None = None,
    **options: Any,
) -> WordPieceTrainer:
    """The training stepper over BERT-normalised, BERT-pre-tokenised words of `lines` (or over
    `words`, those words already counted by `tc.count`)."""
    if words is None:
        words = count_words(lines or (), lowercase=lowercase)
    return WordPieceTrainer(dict(words), vocab_size=vocab_size, **options)


def train_wordpiece(
    lines: Iterable[str] | str | None,
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special_tokens: Iterable[str] | None = None,
    continuing_subword_prefix: str = "##",
    lowercase: bool = True,
    max_input_chars_per_word: int = 100,
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = (),
    words: Mapping[str, int] | None = None,
    **unknown: Any,
) -> Tokenizer:
    """`train("wordpiece", lines, vocab_size, ...)`: a likelihood-trained WordPiece model in the
    BERT pipeline. `tok.model.merges` lists the merges in learned order, `tok.model.vocab` the
    vocabulary (special tokens first, then the initial symbols, then the merged ones).
    `words`: the words already counted (`tc.count(..., "wordpiece")`), in place of `lines`.

    >>> tok = train_wordpiece(["hug pug pun bun hugs"] * 3, vocab_size=20)
    >>> tok.model.merges[0]
    ('##g', '##s')
    """
    if "end_of_word_suffix" in unknown:
        raise InvalidInput(
            "WordPiece takes no end_of_word_suffix: its model marks where a word goes "
            "on (continuing_subword_prefix), never where it ends, so tokens with a "
            "suffix would never match; train char_bpe or byte_bpe for a suffix"
        )
    if unknown:
        raise InvalidInput(
            f"unknown WordPiece option(s) {', '.join(sorted(unknown))}; the options "
            "are min_frequency, special_tokens, continuing_subword_prefix, "
            "lowercase, max_input_chars_per_word, limit_alphabet, initial_alphabet"
        )
    if not isinstance(lowercase, bool):
        raise InvalidInput("lowercase must be true or false")
    trainer = wordpiece_trainer(
        lines,
        vocab_size,
        lowercase=lowercase,
        words=words,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        continuing_subword_prefix=continuing_subword_prefix,
        limit_alphabet=limit_alphabet,
        initial_alphabet=initial_alphabet,
    )
    model = trainer.model(max_input_chars_per_word=max_input_chars_per_word)
    return bert_pipeline(model, lowercase=lowercase)


def encode_steps(
    tok: Tokenizer, text: str, *, max_steps: int = 20_000
) -> tuple[list[tuple[str, int, int]], list[tuple[int, WordPieceProbeStep]]]:
    """The encoding stepper over a whole text: the words the pre-tokeniser makes (each as
    `(word, start, end)`, offsets in `text`) and every probe of greedy longest match as
    `(word index, probe)`, in order. Raises ValueError if `tok` is not a WordPiece tokeniser or
    the text needs more than `max_steps` probes.

    >>> words, steps = encode_steps(bert_base_uncased(), "Playing!")
    >>> [w for w, _, _ in words], [p.candidate for _, p in steps if p.found]
    (['playing', '!'], ['playing', '!'])
    """
    model = tok.model
    if not isinstance(model, WordPiece):
        raise InvalidInput(f"{tok.name or 'this tokeniser'} is not a WordPiece tokeniser")
    words = [(p.normalized, *p.span(0, len(p))) for p in tok.pre_tokenize(text)]
    steps: list[tuple[int, WordPieceProbeStep]] = []
    for index, (word, _, _) in enumerate(words):
        for probe in model.probes(word):
            steps.append((index, probe))
            if len(steps) > max_steps:
                raise InvalidInput(
                    f"this text needs more than {max_steps:,} probes; step through a shorter text"
                )
    return words, steps
