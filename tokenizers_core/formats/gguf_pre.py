"""llama.cpp's pre-tokenizers for "gpt2" (byte-level BPE) vocabularies, by the name a GGUF gives
in `tokenizer.ggml.pre`.

llama.cpp does not run a tokenizer.json's pre-tokenizer: it maps the name the converter wrote
to a list of regexes of its own. Each regex in turn splits every piece the previous ones left,
keeping the text between matches as pieces too (Hugging Face's `Split(..., "isolated")`), and
then the pieces go through GPT-2's byte-to-unicode map. The table below is ours, written from
llama.cpp's `src/llama-vocab.cpp` (`llama_vocab::impl::load`, which maps names to
`LLAMA_VOCAB_PRE_TYPE_*`, and `llm_tokenizer_bpe`, which gives each type its regexes), read in
November 2026 in the llama.cpp that `llama-cpp-python` 0.3.36 vendors (the version whose
vocab tests `tests/core/formats/test_llama_cpp_vocabs.py` runs). llama.cpp writes the
contractions of Llama 3's `(?i:'s|'t|...)` as `'[sS]|'[tT]|...`; we keep its spelling, since
that is what llama.cpp runs.

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
# Jais 2: Llama 3's, with white space cut in runs of 512, 256, ..., 4, 1-2 and 1
JAIS2 = [
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)"
    r"|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1}"
]
_DEEPSEEK3_WORDS = (
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
)
SPARK2_5 = [
    r"\p{N}{1,3}",
    r"[一-龥぀-ゟ゠-ヿ]+",
    _DEEPSEEK3_WORDS + r"| ?[\p{P}\p{S}]+|[\r\n]|\s+(?!\S)|\s+",
    r"\p{N}",
]
# llama.cpp runs a regex with \p{...} on a "collapsed" text where every letter is one byte,
# so \p{Lu}, \p{Ll}, \p{Lt}, \p{Lm} and \p{Lo} all mean any letter (of either case, ASCII
# too): Youtu's and Tiny Aya's case-splitting alternatives become "a run of letters and
# marks". We write what llama.cpp runs, not the tokenizer.json regex it was copied from.
_LETTER_RUN = r"[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+" + _CONTRACTIONS + "?"
YOUTU = [
    r"[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+",
    _LETTER_RUN + r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
]
# digits cut in threes from the right, "1234567" -> "1", "234", "567": llama.cpp's own code
# (`unicode_regex_split_custom_afmoe`, also run for Tiny Aya's `\d{1,3}(?=(?:\d{3})*\b)`),
# whose first piece of a run of digits also takes the text before it since the last piece
# (the later regexes split that text off again, unless it ends in characters none of them
# matches, such as a control character)
AFMOE_DIGITS = r"\P{N}*\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))"
TINY_AYA = [
    AFMOE_DIGITS,
    _LETTER_RUN + r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
]
AFMOE = [
    AFMOE_DIGITS,
    r"[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+",
    _DEEPSEEK3_WORDS + r"| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
]
# Kimi K2: llama.cpp's own code (`unicode_regex_split_custom_kimi_k2`) for the tokenizer's
# regex: runs of Han (its `unicode_cpt_is_han` ranges), runs of other letters (no case split,
# no marks) with an optional contraction, numbers by three, then Llama 3's tail
_HAN = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002a6df\U0002a700-\U0002b73f"
    "\U0002b740-\U0002b81f\U0002b820-\U0002ceaf\U0002ceb0-\U0002ebef\U0002f800-\U0002fa1f"
)
KIMI_K2 = [
    rf"[{_HAN}]+|[^\r\n\p{{L}}\p{{N}}]?[^\P{{L}}{_HAN}]+{_CONTRACTIONS}?|\p{{N}}{{1,3}}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
]
# "(?=(\d{3})+(?!\d))" is empty: it cuts a run of digits before each group of three from the
# right; llama.cpp runs it with std::wregex, whose \d is ASCII's
SUPERBPE = [r"\p{N}+", r"(?=([0-9]{3})+(?![0-9]))"]
BAILINGMOE = [
    r"'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"
]
SEED_CODER = [
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
]
# Qwen 2's without the contractions (Turkish suffixes after an apostrophe stay on the word)
UFAKZEKA = [r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"]
LAGUNA = [NEWLINE_RUNS[0], QWEN2[0]]
EXAONE_MOE = [
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+"
]
MINICPM5 = [
    r"\p{N}{1,3}",
    _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+",
]
# GPT-4o's, with marks (\p{M}) kept with the letters they follow
_UPPER_THEN_LOWER_M = r"((?=[\p{L}\p{M}])([^a-z]))*((?=[\p{L}\p{M}])([^A-Z]))+"
_LOWER_AFTER_UPPER_M = r"((?=[\p{L}\p{M}])([^a-z]))+((?=[\p{L}\p{M}])([^A-Z]))*"
GRANITE_EMB_MULTI = [
    rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER_THEN_LOWER_M}{_CONTRACTIONS}?"
    rf"|[^\r\n\p{{L}}\p{{N}}]?{_LOWER_AFTER_UPPER_M}{_CONTRACTIONS}?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
]
CHAMELEON = [
    r"<sentinel:[0-9]+>",
    r"(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z",
    r"([\t\n]|    |  )",
    r"\p{N}",
    r"[\p{P}!-/:-@\[-`{-~]",
    GPT2[0],
]
WHITESPACE = [r"\S+"]
# the pre-tokenizers whose BPE runs on raw UTF-8 with spaces as "▁" (llama.cpp's
# `byte_encode = false` and `escape_whitespaces = true`), not on GPT-2's byte map
RAW_UTF8 = frozenset({"gemma4", "granite-embed-multi-311m", "sarvam-moe"})
# raw UTF-8 with spaces left as they are (`byte_encode = false` only): jina-v2-zh's "whitespace"
RAW_UTF8_UNESCAPED = frozenset({"whitespace"})
# Gemma 4's type: llama.cpp turns a false add_bos_token on for it
FORCED_BOS = frozenset({"gemma4", "granite-embed-multi-311m"})
# ChatGLM's and GLM's: llama.cpp forgets its default BOS id (special_bos_id = LLAMA_TOKEN_NULL),
# so only a bos_token_id key in the file gives them one
NO_DEFAULT_BOS = frozenset({"chatglm-bpe", "glm4", "glm5"})


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
            "jina-v5-nano",
        )
    },
    "minicpm5": (MINICPM5, True, False),
    "deepseek-llm": (DEEPSEEK_LLM, False, False),
    "deepseek-coder": (DEEPSEEK_CODER, False, False),
    **{
        n: (DEEPSEEK3, False, False) for n in ("deepseek-v3", "hunyuan-dense", "hy_v4", "joyai-llm")
    },
    "spark2_5": (SPARK2_5, False, False),
    "youtu": (YOUTU, True, False),
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
            "modern-bert",
            "trillion",
            "granite-docling",
        )
    },
    **{
        n: (STARCODER, False, False)
        for n in (
            "starcoder",
            "refact",
            "command-r",
            "smollm",
            "codeshell",
            "exaone",
            "minerva-7b",
            "mellum2",
        )
    },
    **{
        n: (QWEN2, False, False)
        for n in (
            "qwen2",
            "deepseek-r1-qwen",
            "kormo",
            "megrez",
            "stablelm2",
            "f2llmv2",
            "hunyuan",
            "solar-open",
            "grok-2",
        )
    },
    "qwen35": (QWEN35, False, False),
    # ChatGLM 4's regex is Llama 3's; glm4 and glm5 look a whole piece up first, chatglm-bpe not
    **{n: (LLAMA3, False, False) for n in ("dbrx", "smaug-bpe", "chatglm-bpe")},
    **{n: (LLAMA3, True, False) for n in ("glm4", "glm5")},
    **{n: (PORO, False, False) for n in ("poro-chat", "bloom", "gpt3-finnish")},
    "viking": (VIKING, False, False),
    "tekken": (TEKKEN, True, True),
    **{n: (GPT4O, False, False) for n in ("gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2")},
    # "SPM-style BPE" on raw UTF-8 (tokenizer.ggml.model "gemma4"): only newlines split
    **{n: (NEWLINE_RUNS, False, True) for n in ("gemma4", "granite-embed-multi-311m")},
    "sarvam-moe": (NEWLINE_RUNS, False, False),
    "whitespace": (WHITESPACE, False, False),
    "jais-2": (JAIS2, False, False),
    **{n: (TINY_AYA, False, False) for n in ("tiny_aya", "cohere2moe")},
    "kimi-k2": (KIMI_K2, False, False),
    "superbpe": (SUPERBPE, False, False),
    **{n: (BAILINGMOE, False, False) for n in ("bailingmoe", "bailingmoe2", "llada-moe")},
    "seed-coder": (SEED_CODER, False, False),
    "ufakzeka": (UFAKZEKA, False, False),
    "afmoe": (AFMOE, False, False),
    "laguna": (LAGUNA, False, False),
    "exaone-moe": (EXAONE_MOE, False, False),
    "granite-embed-multi-97m": (GRANITE_EMB_MULTI, True, False),
    "chameleon": (CHAMELEON, False, True),
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
