"""The BPE tokenisers this project trains and shows: "bpe" (textbook, `</w>`), "byte_bpe" (GPT-2
style), "sentencepiece_bpe" and "char_bpe" (Hugging Face's CharBPETokenizer), each wired from the
stages, and their training entry points."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..decoders import BPEDecoder, EndOfWordDecoder, SentencePieceDecoder
from ..decoders import ByteLevel as ByteLevelDecoder
from ..errors import InvalidInput
from ..models.bpe.hf import HFBpe
from ..models.bpe.model import BPE, END_OF_WORD, UNK, gc_paused
from ..models.bpe.sentencepiece_trainer import SentencePieceBpeTrainer, TrainedSentencePieceBpe
from ..models.bpe.trainer import bpe_trainer, byte_bpe_trainer, check_specials, hf_bpe_trainer
from ..models.sentencepiece_common import CONTROL, NORMAL, UNKNOWN
from ..normalizers import BertNormalizer
from ..normalizers.sentencepiece import SentencePieceNormalizer
from ..pipeline import Tokenizer
from ..pre_tokenizers import BertPreTokenizer, ByteLevel, Regex, Sequence, Whitespace
from .bert import count_words


def bpe_tokenizer(vocab: dict[str, int], merges: list[tuple[str, str]]):
    """The "bpe" pipeline: Whitespace words, characters + "</w>", merges by rank."""
    model = BPE(
        vocab, merges, end_of_word=END_OF_WORD, unk_token=UNK, special_tokens={UNK: vocab[UNK]}
    )
    return Tokenizer(model, pre_tokenizer=Whitespace(), decoder=EndOfWordDecoder(), algorithm="bpe")


def byte_bpe_tokenizer(
    vocab: dict[str, int],
    merges: list[tuple[str, str]],
    *,
    pattern: str = "gpt2",
    special_tokens: dict[str, int] | None = None,
    continuing_subword_prefix: str | None = None,
    end_of_word_suffix: str | None = None,
):
    """The "byte_bpe" pipeline: regex pieces, byte-level spelling, merges by rank. With a
    prefix or suffix the model is Hugging Face's BPE with them (`HFBpe`)."""
    model: BPE
    if continuing_subword_prefix or end_of_word_suffix:
        model = HFBpe(
            vocab,
            merges,
            continuing_subword_prefix=continuing_subword_prefix,
            end_of_word_suffix=end_of_word_suffix,
            byte_level=True,
        )
    else:
        model = BPE(vocab, merges, byte_level=True, special_tokens=special_tokens)
    pre = Sequence([Regex(pattern), ByteLevel(use_regex=False)])
    return Tokenizer(model, pre_tokenizer=pre, decoder=ByteLevelDecoder(), algorithm="byte_bpe")


def train_bpe(
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    min_frequency: int = 0,
    words: Mapping[str, int] | None = None,
    **options: Any,
):
    """Train the textbook "bpe" variant; returns a `Tokenizer`. Options: limit_alphabet,
    initial_alphabet, max_token_length (`models/bpe/alphabet.py`); `words`: the word counts
    already made (`tc.count`), in place of `lines`."""
    if {"continuing_subword_prefix", "end_of_word_suffix"} & set(options):
        raise InvalidInput(
            "the textbook bpe spells a word's end as a symbol of its own (</w>), "
            "so it takes no continuing_subword_prefix or end_of_word_suffix; "
            "train char_bpe or byte_bpe for those"
        )
    with gc_paused:
        trainer = bpe_trainer(
            lines, vocab_size, min_frequency=min_frequency, annotate=False, words=words, **options
        ).run()
        vocab, merges = trainer.vocab(), trainer.merge_strings()
        del trainer  # freed by reference counting before the GC resumes
    return bpe_tokenizer(vocab, merges)


def train_byte_bpe(
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    pattern: str = "gpt2",
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    words: Mapping[str, int] | None = None,
    **options: Any,
):
    """Train "byte_bpe" (GPT-2 style, Hugging Face's trainer); returns a `Tokenizer`.

    `special_tokens` get the first ids, as in Hugging Face; the trained tokeniser encodes their
    text as ordinary text (the regex splits "<|endoftext|>" like any other text), so they only
    appear where a caller puts their ids. Options: those of Hugging Face's BpeTrainer
    (`models/bpe/alphabet.py`: limit_alphabet, initial_alphabet, continuing_subword_prefix,
    end_of_word_suffix, max_token_length). `words`: the pre-tokens already counted, spelled
    byte-level (from `tc.count`), in place of `lines`."""
    with gc_paused:
        trainer = byte_bpe_trainer(
            lines,
            vocab_size,
            pattern=pattern,
            min_frequency=min_frequency,
            special_tokens=special_tokens,
            annotate=False,
            words=words,
            **options,
        ).run()
        specials = {t: trainer.symbol_ids[t] for t in check_specials(special_tokens)}
        vocab, merges = trainer.vocab(), trainer.merge_strings()
        del trainer  # freed by reference counting before the GC resumes
    return byte_bpe_tokenizer(
        vocab,
        merges,
        pattern=pattern,
        special_tokens=specials,
        continuing_subword_prefix=options.get("continuing_subword_prefix"),
        end_of_word_suffix=options.get("end_of_word_suffix"),
    )


def train_sentencepiece_bpe(
    lines: Iterable[str] | None, vocab_size: int, *, words: Mapping[str, int] | None = None
):
    """Train "sentencepiece_bpe"; returns a `Tokenizer` (sentencepiece's normaliser with the
    identity rule, its BPE encoder and decoder). `words`: the sentences' words already counted
    (`tc.count(..., "sentencepiece_bpe")`), in place of `lines`."""
    with gc_paused:
        trainer = SentencePieceBpeTrainer(lines, vocab_size, words=words).run()
        pieces, merges = trainer.pieces(), trainer.merges
        del trainer  # freed by reference counting before the GC resumes
    if len(pieces) < vocab_size:  # sentencepiece refuses too (hard_vocab_limit)
        raise InvalidInput(
            f"vocab_size {vocab_size} is too high for this corpus: sentencepiece's BPE "
            f"can make at most {len(pieces)} pieces from it; choose at most {len(pieces)}"
        )
    return sentencepiece_bpe_tokenizer(pieces, merges)


def sentencepiece_bpe_tokenizer(pieces: list[tuple[str, float]], merges: list[tuple[str, str]]):

    types = [UNKNOWN, CONTROL, CONTROL] + [NORMAL] * (len(pieces) - 3)
    model = TrainedSentencePieceBpe([(p, s, t) for (p, s), t in zip(pieces, types)], merges)
    return Tokenizer(
        model,
        normalizer=SentencePieceNormalizer(None, name="identity"),
        decoder=SentencePieceDecoder(),
        algorithm="sentencepiece_bpe",
    )


def char_bpe_tokenizer(
    vocab: dict[str, int],
    merges: list[tuple[str, str]],
    *,
    unk_token: str = "<unk>",
    end_of_word_suffix: str = "</w>",
    lowercase: bool = False,
    special_tokens: Iterable[str] = (),
):
    """The "char_bpe" pipeline, as Hugging Face's `CharBPETokenizer` wires it: BERT's normaliser
    (accents kept unless lowercasing) and pre-tokeniser, BPE with the suffix glued to each
    word's last character, and a decoder that turns the suffix back into spaces."""
    model = HFBpe(
        vocab,
        merges,
        unk_token=unk_token if unk_token in vocab else None,
        end_of_word_suffix=end_of_word_suffix,
    )
    return Tokenizer(
        model,
        normalizer=BertNormalizer(lowercase=lowercase),
        pre_tokenizer=BertPreTokenizer(),
        decoder=BPEDecoder(end_of_word_suffix),
        algorithm="char_bpe",
        added_tokens=[t for t in special_tokens if t in vocab],
    )


def train_char_bpe(lines: Iterable[str], vocab_size: int, **options: Any):
    """Train "char_bpe": Hugging Face's `CharBPETokenizer().train_from_iterator(lines,
    vocab_size)`, with its defaults (min_frequency 2, limit_alphabet 1000, "<unk>", "</w>").
    Words are BERT-normalised and split as BERT splits them (`bert.count_words`); the other
    options are those of Hugging Face's BpeTrainer (`models/bpe/alphabet.py`)."""
    with gc_paused:
        trainer, finish = char_bpe_run(lines, vocab_size, **options)
        trainer.run()
        tok = finish()
        del trainer  # freed by reference counting before the GC resumes
    return tok


def char_bpe_run(
    lines: Iterable[str],
    vocab_size: int,
    *,
    min_frequency: int = 2,
    special_tokens: Iterable[str] = ("<unk>",),
    limit_alphabet: int | None = 1000,
    end_of_word_suffix: str = "</w>",
    unk_token: str = "<unk>",
    lowercase: bool = False,
    **options: Any,
):
    """The "char_bpe" stepper and the function that wires its result (`train_char_bpe`)."""
    if not isinstance(lowercase, bool):
        raise InvalidInput("lowercase must be true or false")
    specials = check_specials(special_tokens)
    trainer = hf_bpe_trainer(
        count_words(lines, lowercase=lowercase),
        vocab_size,
        min_frequency=min_frequency,
        special_tokens=specials,
        limit_alphabet=limit_alphabet,
        end_of_word_suffix=end_of_word_suffix,
        annotate=False,
        **options,
    )

    def finish() -> Tokenizer:
        return char_bpe_tokenizer(
            trainer.vocab(),
            trainer.merge_strings(),
            unk_token=unk_token,
            lowercase=lowercase,
            end_of_word_suffix=end_of_word_suffix,
            special_tokens=specials,
        )

    return trainer, finish
