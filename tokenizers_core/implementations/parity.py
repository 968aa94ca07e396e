"""Parity-aware BPE (Foroutan et al. 2025, arXiv 2508.04796) as a whole byte-level tokeniser:
`train_parity_bpe`, the bundled UDHR texts split into training, development and held-out parts
(`udhr_split`, `train_parity_bpe_udhr`), and the inequality of a tokeniser's costs across
languages (`token_costs`, `cost_gini`). The trainer and its reading of the paper are in
`models/bpe/parity.py`; the loop a student reads is `textbook/parity_bpe_train.py`.

The tokeniser is `byte_bpe`'s pipeline (regex pieces, GPT-2 byte-level spelling, merges by rank),
so with one language the merges are exactly `train_byte_bpe`'s; only the choice of each merge
differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import regex as re

from ..byte_level import BYTE_TO_CHAR
from ..corpora import load_corpus, udhr_languages
from ..errors import InvalidInput
from ..models.bpe.model import gc_paused
from ..models.bpe.parity import ParityBpeTrainer, gini
from ..models.bpe.trainer import check_specials
from ..models.bpe.words import byte_bpe_words, check_alphabet, check_vocab_size
from ..pipeline import Tokenizer
from .bpe import byte_bpe_tokenizer

TRAIN_SHARE, DEV_SHARE = 0.70, 0.15  # of each UDHR text's characters; the rest is held out


def parity_bpe_trainer(
    texts_by_language: Mapping[str, Iterable[str]] | None,
    vocab_size: int,
    *,
    dev: Mapping[str, str | Iterable[str]] | None = None,
    pattern: str = "gpt2",
    special_tokens: Iterable[str] = (),
    measure: str | None = None,
    words: Mapping[str, Mapping[str, int]] | None = None,
    dev_words: Mapping[str, Mapping[str, int]] | None = None,
    **options: Any,
) -> ParityBpeTrainer:
    """The stepper behind `train_parity_bpe` (same arguments), for the views. `words` (and
    `dev_words`), when given, are each language's byte_bpe word table already counted (from
    counts files), in place of `texts_by_language` (and `dev`).

    >>> t = parity_bpe_trainer({"en": ["aaa"], "xx": ["bb"]}, 258)
    >>> [(s.language, s.pair) for s in t]
    [('en', ('a', 'a')), ('xx', ('b', 'b'))]
    """
    vocab_size = check_vocab_size(vocab_size)
    if words is not None:
        return _trainer_of_words(words, dev_words, vocab_size, special_tokens, measure, options)
    if not isinstance(texts_by_language, Mapping) or not texts_by_language:
        raise InvalidInput("give the training texts as a mapping: language -> lines")
    train = {
        lang: byte_bpe_words(_lines(lines), pattern) for lang, lines in texts_by_language.items()
    }
    if dev is None:  # the reference's --ratio mode: each training text measured against itself
        dev_lines = {lang: _lines(lines) for lang, lines in texts_by_language.items()}
    elif not isinstance(dev, Mapping) or set(dev) != set(train):
        raise InvalidInput("dev must map every training language (and no other) to its text")
    else:
        dev_lines = {lang: _lines(dev[lang]) for lang in train}
    dev_words = {lang: byte_bpe_words(dev_lines[lang], pattern) for lang in train}
    sizes = {lang: sum(len(line.encode()) for line in dev_lines[lang]) for lang in train}
    return _trainer(train, dev_words, vocab_size, special_tokens, measure or
                    ("rate" if dev is None else "tokens"), sizes, options)  # fmt: skip


def _trainer_of_words(
    words: Mapping[str, Mapping[str, int]],
    dev_words: Mapping[str, Mapping[str, int]] | None,
    vocab_size: int,
    special_tokens: Iterable[str],
    measure: str | None,
    options: dict[str, Any],
) -> ParityBpeTrainer:
    """The trainer of counted word tables. A table's words are byte-level strings, one
    character per UTF-8 byte, and the preset patterns leave no character out: so a text's size
    in bytes is the sum of its words' lengths times their counts, as its lines would give."""
    if not isinstance(words, Mapping) or not words:
        raise InvalidInput("give the counts as a mapping: language -> counts")
    train = {lang: dict(table) for lang, table in words.items()}
    dev = train if dev_words is None else {lang: dict(t) for lang, t in dev_words.items()}
    if set(dev) != set(train):
        raise InvalidInput("dev must map every training language (and no other) to its counts")
    sizes = {lang: sum(len(w) * n for w, n in table.items()) for lang, table in dev.items()}
    measure = measure or ("rate" if dev_words is None else "tokens")
    return _trainer(train, dev, vocab_size, special_tokens, measure, sizes, options)


def _trainer(
    train: Mapping[str, Mapping[str, int]],
    dev: Mapping[str, Mapping[str, int]],
    vocab_size: int,
    special_tokens: Iterable[str],
    measure: str,
    sizes: dict[str, int],
    options: dict[str, Any],
) -> ParityBpeTrainer:
    trainer = ParityBpeTrainer(
        train,
        dev,
        vocab_size,
        alphabet=BYTE_TO_CHAR.values(),
        special_tokens=check_specials(special_tokens),
        measure=measure,
        dev_sizes=sizes,
        **options,
    )
    check_alphabet(vocab_size, len(trainer.symbols), "the special tokens and 256 bytes")
    return trainer


def train_parity_bpe(
    texts_by_language: Mapping[str, Iterable[str]] | None,
    vocab_size: int,
    *,
    dev: Mapping[str, str | Iterable[str]] | None = None,
    pattern: str = "gpt2",
    special_tokens: Iterable[str] = (),
    measure: str | None = None,
    **options: Any,
) -> Tokenizer:
    """Train parity-aware byte-level BPE; returns a `Tokenizer` (`byte_bpe`'s pipeline).

    `texts_by_language` maps each language to its training lines; `dev` maps the same languages
    to their parts of a parallel development set (a str or lines). Without `dev`, each training
    text is measured against itself, by bytes per token (`measure="rate"`: the reference's
    `--ratio` mode with equal ratios); with it, by its token count (`measure="tokens"`). Other
    options: min_frequency, ties, global_merges, window, alpha (`models/bpe/parity.py`).

    >>> tok = train_parity_bpe({"en": ["low lower"], "xx": ["xyz xyz"]}, 260)
    >>> tok.encode("low xyz").tokens
    ['low', 'Ġ', 'xyz']
    """
    with gc_paused:
        trainer = parity_bpe_trainer(
            texts_by_language,
            vocab_size,
            dev=dev,
            pattern=pattern,
            special_tokens=special_tokens,
            measure=measure,
            **options,
        ).run()
        specials = {t: trainer.symbol_ids[t] for t in check_specials(special_tokens)}
        vocab, merges = trainer.vocab(), trainer.merge_strings()
        del trainer  # freed by reference counting before the GC resumes
    return byte_bpe_tokenizer(vocab, merges, pattern=pattern, special_tokens=specials)


def train_parity_bpe_lines(
    lines: Iterable[str] | Mapping[str, Iterable[str]] | None, vocab_size: int, **options: Any
) -> Tokenizer:
    """`tc.train("parity_bpe", lines, vocab_size, **options)`: `lines` is either a mapping
    language -> lines, lines tagged with their language as "code<TAB>text", or plain lines,
    grouped then by their script (`by_language`); `dev`, if given, is the same. Other options
    as `train_parity_bpe`. (On a corpus of one script it is exactly `byte_bpe`.)

    >>> tok = train_parity_bpe_lines(["en\\tlow lower", "xx\\txyz xyz"], 260)
    >>> len(tok.model.merges)
    4
    """
    dev = options.pop("dev", None)
    if options.get("words") is not None:  # counted (`tc.train(..., counts={lang: counts})`)
        return train_parity_bpe(None, vocab_size, **options)
    return train_parity_bpe(
        by_language(lines or []),
        vocab_size,
        dev=None if dev is None else by_language(dev),
        **options,
    )


def by_language(lines: Iterable[str] | Mapping[str, Any]) -> Mapping[str, Any]:
    """Lines grouped by language: a mapping is returned as it is; lines tagged "code<TAB>text"
    go by their tag, in the order first seen; untagged lines go by their script
    (`by_script`), the nearest a corpus without tags comes to its languages.

    >>> by_language(["en\\ta b", "fr\\tc", "en\\td"])
    {'en': ['a b', 'd'], 'fr': ['c']}
    >>> by_language(["a b", "Привет", "c"])
    {'Latin': ['a b', 'c'], 'Cyrillic': ['Привет']}
    """
    if isinstance(lines, Mapping):
        return lines
    if isinstance(lines, str):
        raise InvalidInput("give the lines as a list, each 'language<TAB>text' or plain text")
    lines = list(lines)
    tagged = [line for line in lines if isinstance(line, str) and TAG.match(line)]
    if not tagged:
        return by_script(lines)
    if len(tagged) != len(lines):
        untagged = next(line for line in lines if line not in tagged)
        raise InvalidInput(
            "parity_bpe takes every line tagged with its language, as 'code<TAB>text', or "
            f"none (then lines go by their script); this one has no tag: {str(untagged)[:40]!r}"
        )
    out: dict[str, list[str]] = {}
    for line in tagged:
        lang, _tab, text = line.partition("\t")
        out.setdefault(lang, []).append(text)
    return out


TAG = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}\t")  # a language tag: "eng\t", "cmn_hans\t"

# The scripts lines are grouped by (a line's script is the one most of its letters are in);
# Japanese is told from Chinese by its kana.
SCRIPTS = (
    "Latin Cyrillic Greek Arabic Hebrew Devanagari Bengali Tamil Thai Hangul Han Ethiopic "
    "Georgian Armenian Gujarati Gurmukhi Telugu Kannada Malayalam Sinhala Khmer Lao Myanmar "
    "Tibetan"
).split()
_SCRIPT_RUNS = re.compile("|".join(f"(?P<{name}>\\p{{{name}}}+)" for name in SCRIPTS))
_KANA = re.compile(r"[\p{Hiragana}\p{Katakana}]")


def by_script(lines: Iterable[str]) -> dict[str, list[str]]:
    """Untagged lines grouped by their script, in the order first seen: for a multilingual
    corpus without language tags, the script stands in for the language (the 33 UDHR texts make
    15 groups: every Latin-script language is one). A line of no letters joins the group of
    the line before it.

    >>> by_script(["Hello", "123", "你好", "こんにちは世界", "Ciao"])
    {'Latin': ['Hello', '123', 'Ciao'], 'Han': ['你好'], 'Japanese': ['こんにちは世界']}
    """
    out: dict[str, list[str]] = {}
    last = None
    for line in lines:
        script = _script_of(line) or last or "Common"
        out.setdefault(script, []).append(line)
        last = script
    return out


def _script_of(line: str) -> str | None:
    if _KANA.search(line):
        return "Japanese"
    sizes: dict[str, int] = {}
    for run in _SCRIPT_RUNS.finditer(line):
        name = run.lastgroup or ""
        sizes[name] = sizes.get(name, 0) + len(run.group())
    return max(sizes, key=lambda name: sizes[name]) if sizes else None


def _lines(text: str | Iterable[str]) -> list[str]:
    return text.splitlines() if isinstance(text, str) else list(text)


# ---- the bundled UDHR texts as a parallel set ---------------------------------------------------
@dataclass(frozen=True)
class UdhrSplit:
    """One language's UDHR text in three parts, each a list of lines."""

    train: list[str]
    dev: list[str]
    heldout: list[str]


def split_lines(text: str, train: float = TRAIN_SHARE, dev: float = DEV_SHARE) -> UdhrSplit:
    """Split a text at line ends by position: a line belongs to the part in which it starts,
    counting characters (line ends included) from the start -- the first `train` share, then
    the next `dev` share, then the rest. The UDHR translations keep the order of the original
    (preamble, then articles 1-30), so the same share of each text covers about the same
    articles: the parts are parallel across languages, up to a line.

    >>> split_lines("aaaa\\nbb\\ncc\\ndd\\n", train=0.5, dev=0.25)
    UdhrSplit(train=['aaaa', 'bb'], dev=['cc'], heldout=['dd'])
    """
    lines = text.splitlines(keepends=True)
    total = sum(map(len, lines))
    parts: tuple[list[str], list[str], list[str]] = ([], [], [])
    start = 0
    for line in lines:
        part = 0 if start < train * total else 1 if start < (train + dev) * total else 2
        parts[part].append(line.rstrip("\r\n"))
        start += len(line)
    return UdhrSplit(*parts)


def udhr_split(codes: Iterable[str] | None = None) -> dict[str, UdhrSplit]:
    """The bundled UDHR texts (all 33 languages of languages.tsv, in its order, or `codes`),
    each split by `split_lines` into 70% training, 15% development and 15% held-out text.

    >>> parts = udhr_split(["eng"])["eng"]
    >>> parts.train[0], parts.heldout[-1][:25]
    ('Universal Declaration of Human Rights', 'Nothing in this Declarati')
    """
    chosen = [lang.code for lang in udhr_languages()] if codes is None else list(codes)
    return {code: split_lines(load_corpus(f"udhr/{code}")) for code in chosen}


def train_parity_bpe_udhr(
    vocab_size: int, codes: Iterable[str] | None = None, **options: Any
) -> Tokenizer:
    """`train_parity_bpe` on the training parts of the bundled UDHR texts, with their
    development parts as the parallel dev set (the held-out parts are left for evaluation).

    >>> tok = train_parity_bpe_udhr(300, ["eng", "cmn_hans"])
    >>> len(tok.model.merges)
    44
    """
    parts = udhr_split(codes)
    return train_parity_bpe(
        {code: p.train for code, p in parts.items()},
        vocab_size,
        dev={code: p.dev for code, p in parts.items()},
        **options,
    )


def token_costs(tokenizer: Tokenizer, texts_by_language: Mapping[str, str]) -> dict[str, int]:
    """How many tokens each language's text takes (for parallel texts: its token cost).

    >>> tok = train_parity_bpe({"en": ["ab ab"]}, 257)
    >>> token_costs(tok, {"en": "ab ab", "xx": "abab"})
    {'en': 3, 'xx': 2}
    """
    return {lang: len(tokenizer.encode(text).ids) for lang, text in texts_by_language.items()}


def cost_gini(tokenizer: Tokenizer, texts_by_language: Mapping[str, str]) -> float:
    """The Gini coefficient of the token costs of parallel texts (0 = every language pays the
    same; the paper's inequality measure).

    >>> tok = train_parity_bpe({"en": ["ab ab"]}, 257)
    >>> round(cost_gini(tok, {"en": "ab ab", "xx": "abab"}), 3)
    0.1
    """
    return gini(token_costs(tokenizer, texts_by_language).values())
