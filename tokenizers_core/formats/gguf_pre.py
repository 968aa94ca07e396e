"""llama.cpp's pre-tokenizers for "gpt2" (byte-level BPE) vocabularies, by the name a GGUF gives
in `tokenizer.ggml.pre`.

llama.cpp does not run a tokenizer.json's pre-tokenizer: it maps the name the converter wrote
to a list of regexes of its own. Each regex in turn splits every piece the previous ones left,
keeping the text between matches as pieces too (Hugging Face's `Split(..., "isolated")`), and
then the pieces go through GPT-2's byte-to-unicode map. The table below is ours, written from
llama.cpp's `src/llama-vocab.cpp` (`llama_vocab::impl::load`, which maps names to
`LLAMA_VOCAB_PRE_TYPE_*`, and `llm_tokenizer_bpe`, which gives each type its regexes), read in
November 2026. llama.cpp writes the contractions of Llama 3's `(?i:'s|'t|...)` as
`'[sS]|'[tT]|...`; we keep its spelling, since that is what llama.cpp runs.

`default` (and a missing name) is llama.cpp's fallback: four generic regexes that split
numbers and punctuation unlike most models' own pre-tokenizers, the commonest reason a GGUF
tokenizes differently from its tokenizer.json. llama.cpp refuses a name it does not know; we
load such a file with the default regexes and say so.

>>> lookup("qwen2").regexes == QWEN2
True
>>> lookup("no-such-model").known, lookup("no-such-model").regexes == DEFAULT
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

_CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"

GPT2 = [r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"]
DEFAULT = [r"[\p{P}\$\+<=>\^~\|]+", GPT2[0], r"\p{N}+", r"[0-9][0-9][0-9]"]
LLAMA3 = [
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
]
QWEN2 = [
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
]
# Qwen 3.5: Qwen2's, with marks (\p{M}) kept with the letters they follow
QWEN35 = [
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
]
STARCODER = [r"\p{N}", GPT2[0]]
FALCON = [r"[\p{P}\$\+<=>\^~\|`]+", GPT2[0], r"[0-9][0-9][0-9]"]
DEEPSEEK_LLM = [
    r"[\r\n]",
    "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄῆ-ῌῐ-\u1fd3ῖ-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
    r"\s?[!-/:-~！-／：-～‘-‟　-。]+",
    r"\s+$",
    r"[一-龥ࠀ-一가-퟿]+",
    r"\p{N}+",
]
DEEPSEEK_CODER = [r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", r"[一-龥ࠀ-一가-퟿]+", r"\p{N}"]
DEEPSEEK3 = [
    r"\p{N}{1,3}",
    r"[一-龥぀-ゟ゠-ヿ]+",
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?"
    r"[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
]
PORO = [r" ?[^(\s|.,!?…。，、।۔،)]+"]
VIKING = [PORO[0], r"\p{N}"]
_UPPER_THEN_LOWER = r"((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+"
_LOWER_AFTER_UPPER = r"((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*"
TEKKEN = [
    rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER_THEN_LOWER}|[^\r\n\p{{L}}\p{{N}}]?{_LOWER_AFTER_UPPER}"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
]
GPT4O = [
    rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER_THEN_LOWER}{_CONTRACTIONS}?"
    rf"|[^\r\n\p{{L}}\p{{N}}]?{_LOWER_AFTER_UPPER}{_CONTRACTIONS}?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
]
NEWLINE_RUNS = [r"[^\n]+|[\n]+"]
# the pre-tokenizers whose BPE runs on raw UTF-8 with spaces as "▁" (llama.cpp's
# `byte_encode = false` and `escape_whitespaces = true`), not on GPT-2's byte map
RAW_UTF8 = frozenset({"gemma4", "granite-embed-multi-311m"})


@dataclass(frozen=True)
class PreTokenizerSpec:
    """What llama.cpp does for one `tokenizer.ggml.pre` name: its regexes, whether it looks a
    whole piece up in the vocabulary before merging (`ignore_merges`), and whether it adds BOS
    when the file does not say (`add_bos`)."""

    name: str
    regexes: list[str]
    known: bool = True
    ignore_merges: bool = False
    add_bos: bool = False


# name -> (regexes, ignore_merges, add_bos), as llama_vocab::impl::load sets them
_TABLE: dict[str, tuple[list[str], bool, bool]] = {
    "default": (DEFAULT, False, False),
    **{
        n: (LLAMA3, True, True)
        for n in (
            "llama3",
            "llama-v3",
            "llama-bpe",
            "falcon3",
            "falcon-h1",
            "pixtral",
            "midm-2.0",
            "lfm2",
        )
    },
    "deepseek-llm": (DEEPSEEK_LLM, False, False),
    "deepseek-coder": (DEEPSEEK_CODER, False, False),
    "deepseek-v3": (DEEPSEEK3, False, False),
    "falcon": (FALCON, False, False),
    **{
        n: (GPT2, False, False)
        for n in (
            "gpt-2",
            "phi-2",
            "jina-es",
            "jina-de",
            "gigachat",
            "jina-v2-es",
            "jina-v2-de",
            "a.x-4.0",
            "mellum",
            "jina-v1-en",
            "jina-v2-code",
            "roberta-bpe",
            "mpt",
            "olmo",
            "jais",
            "exaone4",
        )
    },
    **{
        n: (STARCODER, False, False)
        for n in ("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b")
    },
    **{
        n: (QWEN2, False, False)
        for n in ("qwen2", "deepseek-r1-qwen", "kormo", "megrez", "stablelm2", "f2llmv2")
    },
    "qwen35": (QWEN35, False, False),
    **{n: (LLAMA3, False, False) for n in ("dbrx", "smaug-bpe", "glm4", "chatglm-bpe")},
    **{n: (PORO, False, False) for n in ("poro-chat", "bloom", "gpt3-finnish")},
    "viking": (VIKING, False, False),
    "tekken": (TEKKEN, True, True),
    **{n: (GPT4O, False, False) for n in ("gpt-4o", "llama4")},
    # "SPM-style BPE" on raw UTF-8 (tokenizer.ggml.model "gemma4"): only newlines split
    **{n: (NEWLINE_RUNS, False, True) for n in ("gemma4", "granite-embed-multi-311m")},
}
NAMES = tuple(sorted(_TABLE))


def lookup(name: str) -> PreTokenizerSpec:
    """llama.cpp's pre-tokenizer for `name`; an unknown name gets `default`'s regexes with
    `known=False`."""
    if name in _TABLE:
        regexes, ignore_merges, add_bos = _TABLE[name]
        return PreTokenizerSpec(name, regexes, True, ignore_merges, add_bos)
    return PreTokenizerSpec(name, DEFAULT, known=False)


def warning(name: str | None) -> str | None:
    """The sentence to show a user for this pre-tokenizer name, or None when it is a known,
    specific one."""
    if name is None or name == "":
        return (
            "The GGUF names no pre-tokenizer (tokenizer.ggml.pre), so llama.cpp splits the "
            "text with its generic 'default' regexes, which most models' own tokenizers do "
            "not use: expect different tokens on numbers, punctuation and spaces."
        )
    if name == "default":
        return (
            "The GGUF's pre-tokenizer is 'default': llama.cpp splits the text with its "
            "generic regexes, not the model's own, the commonest reason a GGUF tokenizes "
            "differently from its tokenizer.json."
        )
    if name not in _TABLE:
        return (
            f"The GGUF's pre-tokenizer {name!r} is not one we know (llama.cpp refuses names "
            "it does not know); it is loaded with llama.cpp's 'default' regexes, so its "
            "tokens may differ from the model's."
        )
    return None
