"""A `Tokenizer` from a GGUF file's metadata, built as llama.cpp builds its vocabulary.

llama.cpp (`src/llama-vocab.cpp`, `llama_vocab::impl::load`) picks the algorithm from
`tokenizer.ggml.model`:

| model   | llama.cpp         | what we build                                                      |
|---------|-------------------|--------------------------------------------------------------------|
| `gpt2`  | BPE by merge rank | byte-level BPE: llama.cpp's regexes for `.pre` (`gguf_pre.py`),    |
|         |                   | then GPT-2's byte map                                              |
| `llama` | SPM: BPE by score | sentencepiece BPE: the adjacent pair whose join has the best score |
|         |                   | merges first, byte fallback to `<0xXX>`                            |
| `t5`    | UGM: Unigram      | sentencepiece Unigram with `.precompiled_charsmap`                 |
| `bert`  | WPM: WordPiece    | llama.cpp's WPM pre-processing (`gguf_wpm.py`), then WordPiece's   |
|         |                   | longest match with no word-length limit, [CLS] ... [SEP]           |

Note that a "llama" GGUF runs BPE by scores even when the model was trained as a Unigram: that
is what llama.cpp does. The tokens' types (`.token_type`: 1 normal, 2 unknown, 3 control, 4
user-defined, 5 unused, 6 byte) are sentencepiece's numbers. Control tokens become special
added tokens and user-defined ones plain added tokens (matched whole in the text, as llama.cpp
matches them); a token llama.cpp takes for a control token by its text (`</s>`,
`<|endoftext|>`, ...: `llama_cpp_types`) is a control token whatever the file types it. BOS
and EOS are added as `.add_bos_token` / `.add_eos_token` say, with llama.cpp's defaults when
the file does not; a "gpt2" file without `.bos_token_id` / `.eos_token_id` gets llama.cpp's
id 11 for both (none for BOS under the ChatGLM/GLM pre-tokenizers, `gguf_pre.NO_DEFAULT_BOS`).

For "bert" we run llama.cpp's WPM, not BERT's pipeline as Hugging Face runs it: its
pre-processing (`llm_tokenizer_wpm_session::preprocess`, in `gguf_wpm.py`) keeps only the first
code point of each character's NFD (a Hangul syllable becomes its leading consonant), drops
spacing marks (Mc) as well as non-spacing ones, ends words at every Unicode white space (`\x0b`
too, which BERT drops as a control), and lower-cases one code point to one; and its longest
match (`llm_tokenizer_wpm_session::tokenize`) has no 100-character limit, so a long word is
split into pieces where Hugging Face gives [UNK]. The file's `tokenizer.ggml.normalizer.lowercase`
and `.strip_accents` keys are read as llama.cpp reads them.

What is not reproduced: llama.cpp runs its regexes and WPM's flags with its own Unicode tables
(the latest UnicodeData.txt when they were generated), where we use the `regex` module and
Python's `unicodedata` (the two can disagree on code points assigned since).

What we keep of the file besides the pipeline: `tok.gguf` (model, pre, special ids, flags),
`tok.chat_template` and `tok.warnings` (sentences: the pre-tokenizer is `default` or unknown).
"""

from __future__ import annotations

import sys
from typing import Any

from .. import decoders
from ..added_tokens import AddedToken
from ..errors import InvalidInput
from ..models.bpe.model import gc_paused
from ..models.sentencepiece_common import BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED
from ..models.wordpiece.model import WordPiece
from ..pipeline import Tokenizer
from ..processors import BertProcessing, TemplateProcessing
from . import gguf_pre, gguf_wpm, gguf_writer
from .gguf import GGUFMetadata, read_metadata
from .gguf_types import llama_cpp_types
from .hf_json import from_dict
from .sentencepiece_model import ModelProto, tokenizer_from_proto
from .sentencepiece_pieces import check_pieces

MODELS = ("gpt2", "llama", "t5", "bert", "gemma4")
_KEY = "tokenizer.ggml."
# llama.cpp's BOS/EOS defaults per model when the file has no add_bos/add_eos key
# llama.cpp's unknown id when the file names none
_DEFAULT_UNK = {"llama": 0, "t5": 2}
_ADD_DEFAULTS = {
    "gpt2": (False, False),
    "llama": (True, False),
    "t5": (False, True),
    "bert": (True, False),
    "gemma4": (True, False),  # llama.cpp forces add_bos on for Gemma 4
}


def tokenizer_from_metadata(meta: GGUFMetadata, *, name: str = "") -> Tokenizer:
    """The tokenizer a GGUF's key-value section describes (ValueError when it has none)."""
    kv = meta.kv
    model = kv.get(_KEY + "model")
    if model is None:
        raise InvalidInput("the GGUF holds no tokenizer (no tokenizer.ggml.model key)")
    if model not in MODELS:
        raise InvalidInput(
            f"the GGUF's tokenizer model {model!r} is not supported; we read {', '.join(MODELS)}"
        )
    tokens = _str_list(kv, "tokens")
    types = llama_cpp_types(tokens, _int_list(kv, "token_type", len(tokens), default=NORMAL), kv)
    pre = kv.get(_KEY + "pre")
    spec = gguf_pre.lookup(pre if isinstance(pre, str) else "default")
    if model == "gemma4":  # llama.cpp sets this pre-tokenizer whatever the file says
        spec = gguf_pre.lookup("gemma4")
    raw_utf8 = spec.name in gguf_pre.RAW_UTF8 | gguf_pre.RAW_UTF8_UNESCAPED
    if raw_utf8 and model in ("gpt2", "gemma4"):
        escape = spec.name in gguf_pre.RAW_UTF8
        tok = _raw_utf8_bpe(tokens, types, _str_list(kv, "merges"), spec, escape=escape)
    elif model == "gpt2":
        tok = _byte_level_bpe(tokens, types, _str_list(kv, "merges"), spec)
    elif model == "bert":
        tok = _wordpiece(tokens, types, kv)
    else:
        scores = _float_list(kv, "scores", len(tokens))
        tok = _sentencepiece(model, tokens, scores, types, kv)
    add_bos, add_eos = _add_flags(kv, model, spec)
    if spec.name in gguf_pre.FORCED_BOS and model != "bert":
        add_bos = True  # llama.cpp overrides a false add_bos_token for Gemma 4's pre-tokenizer
    bos, eos = _special_id(kv, "bos", tokens), _special_id(kv, "eos", tokens)
    if model == "gpt2":  # llama.cpp's BPE defaults, 11 and 11, unless the file names others
        default_bos = 11 if spec.name not in gguf_pre.NO_DEFAULT_BOS else None
        bos = bos if bos is not None else _in_range(default_bos, tokens)
        eos = eos if eos is not None else _in_range(11, tokens)
    if model == "bert":  # llama.cpp's WPM adds [CLS] ... [SEP] whatever add_bos says
        add_bos, add_eos = True, False
        bos = _wpm_id(kv, "bos", tokens, 101)
    else:
        tok.post_processor = _bos_eos(tokens, bos if add_bos else None, eos if add_eos else None)
    tok.name = name
    tok.gguf = {  # type: ignore[attr-defined]
        "model": model,
        "pre": pre,
        "version": meta.version,
        "bos_token_id": bos,
        "eos_token_id": eos,
        "add_bos_token": add_bos,
        "add_eos_token": add_eos,
        "tensor_count": meta.tensor_count,
        "metadata_bytes": meta.kv_end,
    }
    tok.chat_template = kv.get("tokenizer.chat_template")  # type: ignore[attr-defined]
    warning = gguf_pre.warning(pre if isinstance(pre, str) else None) if model == "gpt2" else None
    tok.warnings = [warning] if warning else []  # type: ignore[attr-defined]
    return tok


# ---- the four models ---------------------------------------------------------------------------


def _byte_level_bpe(
    tokens: list[str], types: list[int], merges: list[str], spec: gguf_pre.PreTokenizerSpec
) -> Tokenizer:
    """llama.cpp's BPE: `spec`'s regexes split the text (each splitting the pieces of the one
    before), the pieces go through GPT-2's byte map, and merges apply by rank."""
    splits = [
        {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}
        for regex in spec.regexes
    ]
    byte_level = {
        "type": "ByteLevel",
        "add_prefix_space": False,
        "trim_offsets": False,
        "use_regex": False,
    }
    config: dict[str, Any] = {
        "added_tokens": _added(tokens, types),
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [*splits, byte_level]},
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": False,
            "use_regex": False,
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": spec.ignore_merges,
            "vocab": _first_ids(tokens),
            "merges": merges,
        },
    }
    if not _one_inner_space_each(merges):
        config["model"]["merges"] = [_merge(m) for m in merges]  # the slow, exact split
    return from_dict(config)


def _raw_utf8_bpe(
    tokens: list[str],
    types: list[int],
    merges: list[str],
    spec: gguf_pre.PreTokenizerSpec,
    *,
    escape: bool = True,
) -> Tokenizer:
    """llama.cpp's "SPM-style BPE" (`tokenizer.ggml.model` "gemma4", Sarvam's pre-tokenizer):
    spaces become `▁` (`escape`), the text is cut by `spec`'s regexes (runs of newlines and
    runs of anything else), merges apply by rank to the raw UTF-8 characters (no GPT-2 byte
    map), and a character the vocabulary lacks becomes its `<0xXX>` byte tokens. Without
    `escape` (the "whitespace" pre-tokenizer) spaces stay spaces."""
    config: dict[str, Any] = {
        "added_tokens": _added(tokens, types),
        "normalizer": (
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"} if escape else None
        ),
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False}
                for r in spec.regexes
            ],
        },
        "decoder": {
            "type": "Sequence",
            "decoders": [
                *(
                    [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}]
                    if escape
                    else []
                ),
                {"type": "ByteFallback"},
                {"type": "Fuse"},
            ],
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": True,
            "ignore_merges": spec.ignore_merges,
            "vocab": _first_ids(tokens),
            "merges": [_merge(m) for m in merges],
        },
    }
    return from_dict(config)


def _one_inner_space_each(merges: list[str]) -> bool:
    """Whether every merge is "left right" with one space, not first (then Hugging Face's
    "a b" form splits it as llama.cpp does), checked at C speed.

    >>> _one_inner_space_each(["Ġ t", "h e"]), _one_inner_space_each(["a b c"])
    (True, False)
    """
    joined = "\n".join(merges)
    return joined.count(" ") == len(merges) and not joined.startswith(" ") and "\n " not in joined


def _merge(line: str) -> list[str]:
    """'Ġ t' -> ['Ġ', 't']: split at the first space after the first character (llama.cpp's
    `word.find(' ', 1)`)."""
    at = line.find(" ", 1)
    if at < 0:
        raise InvalidInput(f"the merge {line!r} has no space between its two symbols")
    return [line[:at], line[at + 1 :]]


def _sentencepiece(
    model: str, tokens: list[str], scores: list[float], types: list[int], kv: dict[str, Any]
) -> Tokenizer:
    """ "llama" (BPE by scores) and "t5" (Unigram), run by our sentencepiece model code, with
    llama.cpp's special tokens in front (`_with_added`)."""
    unk = _special_id(kv, "unknown", tokens)
    if unk is None:  # llama.cpp's defaults: SPM's <unk> is 0, UGM's 2
        unk = _DEFAULT_UNK[model] if _DEFAULT_UNK[model] < len(tokens) else None
    if unk is not None and (types.count(UNKNOWN) != 1 or types[unk] != UNKNOWN):
        # llama.cpp reads one unknown id from the metadata and lets any number of tokens be
        # typed UNKNOWN (Phi-3's 53 [PAD...]): they are special tokens like CONTROL ones
        wanted = [UNKNOWN if i == unk else t for i, t in enumerate(types)]
        wanted = [CONTROL if t == UNKNOWN and i != unk else t for i, t in enumerate(wanted)]
        pieces = list(zip(tokens, scores, wanted))
    else:
        pieces = list(zip(tokens, scores, types))
    byte_fallback = sum(t == BYTE for t in types) == 256
    charsmap = kv.get(_KEY + "precompiled_charsmap") if model == "t5" else None
    trainer = {
        "model_type": 1 if model == "t5" else 2,
        "byte_fallback": byte_fallback,
        "unk_surface": " \u2047 ",
        "treat_whitespace_as_suffix": False,
    }
    normalizer = {
        "name": "",
        "precompiled_charsmap": bytes(x & 0xFF for x in charsmap or ()),
        "add_dummy_prefix": _flag(kv, "add_space_prefix", True),
        # llama.cpp's SPM only prefixes a space and escapes spaces (llama-vocab.cpp,
        # `tokenize`); its UGM reads this key
        "remove_extra_whitespaces": model == "t5" and _flag(kv, "remove_extra_whitespaces", False),
        "escape_whitespaces": True,
    }
    check_pieces(pieces, trainer)
    tok = tokenizer_from_proto(ModelProto(pieces, trainer, normalizer))
    return _with_added(tok, tokens, types, _rstrip_specials(kv))


def _with_added(tok: Tokenizer, tokens: list[str], types: list[int], rstrip: set[str]) -> Tokenizer:
    """`tok` with llama.cpp's special tokens matched in the raw text before anything else
    (`tokenizer_st_partition`): CONTROL and UNKNOWN ones when special tokens are parsed,
    USER_DEFINED ones always. Each stretch of text between them is then normalised on its
    own, so it gets its own leading `▁`, as llama.cpp's SPM prefixes a space to the text
    after a special token."""
    added = [
        AddedToken(t, id=i, special=kind != USER_DEFINED, normalized=False, rstrip=t in rstrip)
        for i, (t, kind) in enumerate(zip(tokens, types))
        if kind in (CONTROL, USER_DEFINED, UNKNOWN)
    ]
    if not added:
        return tok
    out = Tokenizer(
        tok.model,
        normalizer=tok.normalizer,
        pre_tokenizer=tok.pre_tokenizer,
        decoder=tok.decoder,
        algorithm=tok.algorithm,
        added_tokens=added,
    )
    out.proto = tok.proto  # type: ignore[attr-defined]
    return out


def _rstrip_specials(kv: dict[str, Any]) -> set[str]:
    """The tokens llama.cpp gives its RSTRIP attribute (`load`, "set attributes by model
    name"): for a model named Phi-3, every special token but <unk>, <s> and <|endoftext|>
    eats the spaces after it."""
    name = str(kv.get("general.name", "")).lower()
    if "phi-3" not in name and "phi3" not in name:
        return set()
    tokens, types = kv.get(_KEY + "tokens") or [], kv.get(_KEY + "token_type") or []
    keep = {"<unk>", "<s>", "<|endoftext|>"}
    return {t for t, kind in zip(tokens, types) if kind in (CONTROL, USER_DEFINED, UNKNOWN)} - keep


def _wordpiece(tokens: list[str], types: list[int], kv: dict[str, Any]) -> Tokenizer:
    """llama.cpp's WPM. Its converter writes BERT's vocabulary with a "phantom space": a
    word-initial token gets a leading ▁ and a continuation loses its ##; [CLS]-style and
    special-typed tokens stay as they are. We undo that, so that WordPiece's lookups are
    llama.cpp's: a word's first piece is "▁" + piece, a later one the bare piece.

    The rest is `llm_tokenizer_wpm_session`: its pre-processing (`gguf_wpm.py`), longest match
    with no limit on a word's length (max_input_chars_per_word is off), a word with no split
    becomes the unknown token (`unknown_token_id`, else 100), and with special tokens
    [CLS] ... [SEP] (`bos_token_id`, else 101; `seperator_token_id`, else 102) whatever the
    add_bos/add_sep flags say, as `llama_vocab::impl::tokenize` does for WPM."""
    vocab: dict[str, int] = {}
    for i, (token, kind) in enumerate(zip(tokens, types)):
        if kind in (CONTROL, USER_DEFINED, UNKNOWN) or (token[:1], token[-1:]) == ("[", "]"):
            pass
        elif token.startswith("\u2581"):
            token = token[1:]
        else:
            token = "##" + token
        vocab.setdefault(token, i)
    unk = _wpm_id(kv, "unknown", tokens, 100)
    model = WordPiece(
        vocab,
        unk_token=tokens[unk] if unk is not None else "[UNK]",
        max_input_chars_per_word=sys.maxsize,  # llama.cpp has no word-length limit
        require_unk=unk is not None,
    )
    bos, sep = _wpm_id(kv, "bos", tokens, 101), _wpm_id(kv, "seperator", tokens, 102)
    processor = (
        BertProcessing(sep=(tokens[sep], sep), cls=(tokens[bos], bos))
        if bos is not None and sep is not None
        else None
    )
    lowercase = _flag(kv, "normalizer.lowercase", True)
    added = [
        AddedToken(t, id=i, special=kind != USER_DEFINED, normalized=False)
        for i, (t, kind) in enumerate(zip(tokens, types))
        if kind in (CONTROL, USER_DEFINED, UNKNOWN)
    ]
    return Tokenizer(
        model,
        normalizer=gguf_wpm.WpmNormalizer(
            lowercase=lowercase, strip_accents=_flag(kv, "normalizer.strip_accents", lowercase)
        ),
        pre_tokenizer=gguf_wpm.WpmPreTokenizer(),
        post_processor=processor,
        decoder=decoders.WordPiece(prefix="##"),
        algorithm="wordpiece",
        added_tokens=added or [t for t in model.special_tokens if t in model.vocab],
    )


def _wpm_id(kv: dict[str, Any], which: str, tokens: list[str], default: int) -> int | None:
    """A WPM special id: the file's, else llama.cpp's default when the vocabulary has it."""
    given = _special_id(kv, which, tokens)
    if given is not None:
        return given
    return default if default < len(tokens) else None


# ---- special tokens ----------------------------------------------------------------------------


def _added(tokens: list[str], types: list[int]) -> list[dict[str, Any]]:
    """Control (and unknown) tokens as special added tokens, user-defined ones as plain added
    tokens, as llama.cpp's `tokenizer_st_partition` matches them."""
    return [
        {
            "id": i,
            "content": t,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": kind != USER_DEFINED,
        }
        for i, (t, kind) in enumerate(zip(tokens, types))
        if kind in (CONTROL, USER_DEFINED, UNKNOWN)
    ]


def _add_flags(
    kv: dict[str, Any], model: str, spec: gguf_pre.PreTokenizerSpec
) -> tuple[bool, bool]:
    bos_default, eos_default = _ADD_DEFAULTS[model]
    if model == "gpt2":
        bos_default = spec.add_bos
    return _flag(kv, "add_bos_token", bos_default), _flag(kv, "add_eos_token", eos_default)


def _bos_eos(tokens: list[str], bos: int | None, eos: int | None) -> TemplateProcessing | None:
    """The post-processor that adds BOS before and EOS after the text (None: neither)."""
    if bos is None and eos is None:
        return None
    single = [
        *(["<bos>"] if bos is not None else []),
        "$A",
        *(["<eos>"] if eos is not None else []),
    ]
    specials = [
        (label, [i], [tokens[i]]) for label, i in (("<bos>", bos), ("<eos>", eos)) if i is not None
    ]
    return TemplateProcessing(single, special_tokens=specials)


def _in_range(token_id: int | None, tokens: list[str]) -> int | None:
    """A default id, or None when the vocabulary is too small for it (llama.cpp disables it)."""
    return token_id if token_id is not None and token_id < len(tokens) else None


def _special_id(kv: dict[str, Any], which: str, tokens: list[str]) -> int | None:
    value = kv.get(f"{_KEY}{which}_token_id")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(tokens):
        raise InvalidInput(
            f"tokenizer.ggml.{which}_token_id is {value!r}, not the id of one of "
            f"the {len(tokens):,} tokens"
        )
    return value


# ---- typed reads of the metadata -------------------------------------------------------------


def _str_list(kv: dict[str, Any], key: str) -> list[str]:
    value = kv.get(_KEY + key)
    if not isinstance(value, list) or (value and not isinstance(value[0], str)):
        raise InvalidInput(f"the GGUF's tokenizer.ggml.{key} is missing or not an array of strings")
    return value


def _int_list(kv: dict[str, Any], key: str, n: int, *, default: int) -> list[int]:
    value = kv.get(_KEY + key)
    if value is None:
        return [default] * n
    if not isinstance(value, list) or len(value) != n or (value and type(value[0]) is not int):
        raise InvalidInput(f"tokenizer.ggml.{key} must be {n:,} integers, one per token")
    return [v or NORMAL for v in value]  # 0 is llama.cpp's "undefined": normal


def _float_list(kv: dict[str, Any], key: str, n: int) -> list[float]:
    value = kv.get(_KEY + key)
    if value is None:
        return [0.0] * n
    if (
        not isinstance(value, list)
        or len(value) != n
        or (value and type(value[0]) not in (int, float))
    ):
        raise InvalidInput(f"tokenizer.ggml.{key} must be {n:,} numbers, one per token")
    return [float(v) for v in value]


def _flag(kv: dict[str, Any], key: str, default: bool) -> bool:
    value = kv.get(_KEY + key, default)
    if not isinstance(value, bool):
        raise InvalidInput(f"tokenizer.ggml.{key} must be true or false, not {value!r}")
    return value


def _first_ids(tokens: list[str]) -> dict[str, int]:
    """token -> its first id (a repeated token keeps the first, as llama.cpp's map does)."""
    vocab = dict(zip(tokens, range(len(tokens))))
    if len(vocab) < len(tokens):  # a repeated token: keep its first id
        vocab = {}
        for i, token in enumerate(tokens):
            vocab.setdefault(token, i)
    return vocab


# ---- what formats/ calls ----------------------------------------------------------------------


def load_bytes(data: bytes, *, name: str = "", prefix: bool = True, **options: Any) -> Tokenizer:
    """A `Tokenizer` from a GGUF file's bytes, or from the first bytes of it (an upload: it
    must reach the end of the key-value section)."""
    if options:
        raise InvalidInput(
            f"a GGUF file takes no options (got {', '.join(sorted(options))}): "
            "everything it needs is in its metadata"
        )
    with gc_paused:  # a million small objects, none cyclic: the collector would only slow us
        return tokenizer_from_metadata(read_metadata(data, prefix=prefix), name=name)


def load_path(path: str, *, name: str = "") -> Tokenizer:
    """A `Tokenizer` from a GGUF file of any size (only its key-value section is read)."""
    with gc_paused:
        return tokenizer_from_metadata(read_metadata(path), name=name)


def dump_bytes(tok: Any) -> bytes:
    """A GGUF file holding `tok`'s tokenizer metadata (`gguf_writer.py`)."""
    return gguf_writer.dump_bytes(tok)
