"""What transformers 5 does to a tokenizer.json when tokenizer_config.json names a class.

`AutoTokenizer.from_pretrained(folder)` picks the class `tokenizer_class` names (a trailing
"Fast" dropped; `PreTrainedTokenizerFast`, `TokenizersBackend` and names it does not know give
`TokenizersBackend`; `LlamaTokenizer` beside a byte-level tokenizer.json gives
`TokenizersBackend` too). `TokenizersBackend` reads the tokenizer.json as it is. A class with an
`__init__` of its own does not (`TokenizersBackend.convert_to_native_format`): it takes the
file's vocabulary and merges, its post-processor, padding and truncation, and builds a new
tokenizer from them in its `__init__`, with the class's own model options, normalizer,
pre-tokenizer and decoder. So a cl100k-style tokenizer.json named `GPT2Tokenizer` is split by
GPT-2's regex (`".\\n"` is two tokens, not cl100k's one).

Of the 65 such classes in transformers 5.24 (`docs/formats.md` lists each with what it
changes), these 19 are rebuilt here as transformers rebuilds them (`REBUILT`, each checked against
`AutoTokenizer` on multilingual text); for the others `class_rebuild` says the class rebuilds
and that we read the file as it is (`followed` False):

- GPT2Tokenizer: pre-tokenizer ByteLevel with GPT-2's regex (`add_prefix_space`), decoder
  ByteLevel, no normalizer; a BPE without `ignore_merges`, `byte_fallback` or an unk token.
- Qwen2Tokenizer: normalizer NFC, pre-tokenizer Split(Qwen2's regex, isolated) + ByteLevel
  (no regex), decoder ByteLevel, the same BPE.
- GPTNeoXTokenizer: normalizer NFC, pre-tokenizer ByteLevel (GPT-2's regex), decoder
  ByteLevel, the same BPE; its post-processor always the BOS/EOS template, never the file's,
  and that adds nothing (transformers drops `add_bos_token` / `add_eos_token` from a config
  beside a tokenizer.json).
- RobertaTokenizer: GPT-2's pre-tokenizer and decoder, the same BPE, no normalizer; its
  post-processor always RobertaProcessing(`</s>`, `<s>`).
- LlamaTokenizer (beside a tokenizer.json that is not byte-level): no normaliser, Metaspace
  without splitting (prepend "first"; "always" with `legacy`, "never" without
  `add_prefix_space`), the decoder ▁ -> space, bytes, fuse, strip; a BPE with fuse_unk and
  byte_fallback and no unk token; the file's post-processor.
- GemmaTokenizer: the normaliser space -> ▁, a Split on " ", the decoder ▁ -> space, bytes,
  fuse; a BPE with fuse_unk, byte_fallback and the class's unk token; the file's
  post-processor.
- XLMRobertaTokenizer: Unigram with unk_id 3 whatever the file says, the file's Precompiled
  charsmap alone as the normaliser, WhitespaceSplit + Metaspace, a Metaspace decoder; its
  post-processor always `<s> $A </s>`.
- T5Tokenizer: XLM-R's components with unk_id 2; `<extra_id_0>` ... `<extra_id_99>`
  (`extra_ids`) when the config names no extra tokens; its post-processor always `$A </s>`.
- CohereTokenizer: GPT-2's BPE, NFC, Digits (one digit a piece) + ByteLevel, Cohere's named
  tokens; the file's post-processor.
- OpenAIGPTTokenizer: GPT-1's BPE (`</w>` word ends, the class's unk token), BertNormalizer
  (lowercasing) and BertPreTokenizer, a BPEDecoder; the file's post-processor.
- BertTokenizer (and DistilBertTokenizer, the same): normalizer BertNormalizer(`do_lower_case`,
  `tokenize_chinese_chars`, `strip_accents`), pre-tokenizer BertPreTokenizer, decoder
  WordPiece, WordPiece with the class's unk token; its post-processor always `[CLS] $A [SEP]`.
  The DPR classes (DPRContextEncoder-, DPRQuestionEncoder-, DPRReaderTokenizer) are BERT's but
  swallow `do_lower_case`: they always lowercase.
- Qwen3_5Tokenizer: Qwen2's, with Qwen3.5's regex (letters with their marks).
- CodeGenTokenizer: GPT-2's, with a ByteLevel post-processor (offsets only) when the file has none.
- BlenderbotTokenizer: GPT-2's with `add_prefix_space` on by default and RoBERTa's named tokens
  (`<mask>` with lstrip); the file's post-processor.
- DebertaTokenizer: GPT-2's, BERT's named tokens, its post-processor always `[CLS] $A [SEP]`
  (pair `[CLS] $A [SEP] [SEP] $B [SEP]`).

Each class also brings its own named special tokens (GPT-2's `<|endoftext|>`, RoBERTa's `<s>`
... `<mask>`), added where the config names none (`class_defaults`). The tokens a rebuilt
tokenizer adds are the config's `added_tokens_decoder`, or, without one, the tokenizer.json's
`added_tokens` (transformers' `_from_pretrained`), then the named ones it still lacks.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable

# ---- the classes transformers 5.24 rebuilds -----------------------------------------------------
# Every class with an `__init__` of its own under transformers/models/*/tokenization_*.py, as
# `convert_to_native_format` tells it from TokenizersBackend. (The classes without one --
# ConvBertTokenizer, FNetTokenizer(Fast), DPR*TokenizerFast, ParakeetTokenizer -- read the file as
# it is.) What each changes is in docs/formats.md.
REBUILDING_CLASSES = frozenset(
    """AlbertTokenizer BarthezTokenizer BertTokenizer BigBirdTokenizer BlenderbotTokenizer
    CLIPTokenizer CamembertTokenizer CodeGenTokenizer CodeLlamaTokenizer CohereTokenizer
    CpmTokenizer DPRContextEncoderTokenizer DPRQuestionEncoderTokenizer DPRReaderTokenizer
    DebertaTokenizer DebertaV2Tokenizer DistilBertTokenizer EsmcTokenizer FunnelTokenizer
    GPT2Tokenizer GPTNeoXTokenizer GemmaTokenizer HerbertTokenizer LasrTokenizer
    LayoutLMv2Tokenizer LayoutLMv3Tokenizer LayoutXLMTokenizer LlamaTokenizer LukeTokenizer
    MBart50Tokenizer MBartTokenizer MLukeTokenizer MPNetTokenizer MarkupLMTokenizer NllbTokenizer
    NougatTokenizer OpenAIGPTTokenizer PegasusTokenizer Qwen2Tokenizer Qwen3_5Tokenizer
    ReformerTokenizer RemBertTokenizer RoFormerTokenizer RobertaTokenizer SeamlessM4TTokenizer
    Siglip2Tokenizer SplinterTokenizer T5Tokenizer Tipsv2Tokenizer UdopTokenizer
    VideoPrismTokenizer WhisperTokenizer XGLMTokenizer XLMRobertaTokenizer XLNetTokenizer""".split()
)
# names that are the same class in transformers 5 (`XxxFast = Xxx`; CpmTokenizerFast is CPM's)
_ALIASES = {"CpmTokenizerFast": "CpmTokenizer"}

GPT2_REGEX = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
QWEN2_REGEX = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN3_5_REGEX = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"""
    r"""| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
_COMPONENTS = ("normalizer", "pre_tokenizer", "decoder", "post_processor")
_NAMES = {
    "normalizer": "normaliser",
    "pre_tokenizer": "pre-tokenizer",
    "decoder": "decoder",
    "post_processor": "post-processor",
}


@dataclass(frozen=True)
class ClassRebuild:
    """What naming `name` in tokenizer_config.json does to the tokenizer.json's tokenizer:
    `loaded_as`, the class transformers loads; `changes`, a sentence per component it rebuilt
    (empty when it reads the file as it is); `followed`, whether this library rebuilt it too."""

    name: str
    loaded_as: str
    changes: tuple[str, ...] = ()
    followed: bool = True

    def note(self) -> str | None:
        """One sentence for the pages, or None when the class changes nothing."""
        if not self.changes and self.followed:
            return None
        if not self.followed:
            return (
                f"tokenizer_config.json names {self.name}, which transformers 5 rebuilds from "
                "the class's own defaults (its normaliser, pre-tokenizer or decoder); this "
                "library does not follow that class yet and reads the tokenizer.json as it is, "
                "so ids may differ from transformers'."
            )
        return (
            f"tokenizer_config.json names {self.name}: transformers 5 rebuilds the "
            f"tokenizer.json's tokenizer from that class, and so does this library: "
            + "; ".join(self.changes)
            + "."
        )


@dataclass
class _Plan:
    """A class's rebuild: the tokenizer.json dict to build, the config the added tokens come
    from, and the post-processor to set once the tokens have ids (None: keep what is built)."""

    data: dict[str, Any]
    config: dict[str, Any]
    post: Callable[[Any, dict[str, Any]], dict[str, Any] | None] | None = None
    defaults: dict[str, Any] = field(default_factory=dict)


def class_of(config: dict[str, Any] | None, data: bytes | None = None) -> str | None:
    """The class transformers 5 loads for this tokenizer_config.json, when it is one that
    rebuilds the tokenizer.json (None: `TokenizersBackend`, the file as it is). `data`, the
    tokenizer.json's bytes, decides LlamaTokenizer (a byte-level file is read as it is).

    >>> class_of({"tokenizer_class": "GPT2TokenizerFast"}), class_of({"tokenizer_class": "X"})
    ('GPT2Tokenizer', None)
    >>> class_of({"tokenizer_class": "LlamaTokenizerFast"}, b'{"decoder": {"type": "ByteLevel"}}')
    """
    name = (config or {}).get("tokenizer_class")
    if not isinstance(name, str):
        return None
    name = _ALIASES.get(name, name)
    if name.endswith("Fast"):
        name = name[: -len("Fast")]
    if name not in REBUILDING_CLASSES:
        return None
    if name == "LlamaTokenizer" and data is not None and b'"ByteLevel"' in data:
        return None  # AutoTokenizer loads TokenizersBackend: "tokenizer.json is ByteLevel"
    return name


def rebuild(data: dict[str, Any], config: dict[str, Any], name: str) -> tuple[_Plan, ClassRebuild]:
    """The plan for building `data` (a parsed tokenizer.json) as class `name` does, and what it
    changes. A class not in `REBUILT` keeps the file as it is (`followed` False)."""
    make = REBUILT.get(name)
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        make = None  # not a tokenizer.json: from_dict says what is wrong with it
    if make is None:
        return _Plan(data, config), ClassRebuild(name, name, followed=False)
    plan = make(copy.copy(data), config)
    plan.config = _token_config(config, data, plan.defaults)
    return plan, ClassRebuild(name, name, tuple(_changes(data, plan)))


def _token_config(
    config: dict[str, Any], data: dict[str, Any], defaults: dict[str, Any]
) -> dict[str, Any]:
    """The config the rebuilt tokenizer's added tokens come from: the class's named tokens
    where the config names none (a config's null keeps none), and the tokenizer.json's
    `added_tokens` as `added_tokens_decoder` when the config has none."""
    out = {**defaults, **config}
    if "added_tokens_decoder" not in config:
        added = data.get("added_tokens") or []
        out["added_tokens_decoder"] = {
            str(entry["id"]): {k: v for k, v in entry.items() if k != "id"}
            for entry in added
            if isinstance(entry, dict) and isinstance(entry.get("id"), int)
        }
    return out


# ---- the components, as a tokenizer.json spells them ------------------------------------------
def _byte_level(add_prefix_space: bool, trim_offsets: bool = True, use_regex: bool = True):
    return {
        "type": "ByteLevel",
        "add_prefix_space": bool(add_prefix_space),
        "trim_offsets": bool(trim_offsets),
        "use_regex": use_regex,
    }


def _byte_level_decoder() -> dict[str, Any]:
    return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


def _plain_bpe(model: dict[str, Any]) -> dict[str, Any]:
    """The BPE these classes build: `BPE(vocab, merges, dropout=None,
    continuing_subword_prefix="", end_of_word_suffix="", fuse_unk=False)`, the other options
    the `tokenizers` defaults (no unk token, no byte fallback, no ignore_merges)."""
    return {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": "",
        "end_of_word_suffix": "",
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": _vocab_dict(model.get("vocab")),
        "merges": model.get("merges") or [],
    }


def _vocab_dict(vocab: Any) -> Any:
    if isinstance(vocab, list):  # BPE and WordPiece read a list as tokens in id order
        return {(t[0] if isinstance(t, list) else t): i for i, t in enumerate(vocab)}
    return vocab


def _flag(config: dict[str, Any], key: str, default: Any) -> Any:
    value = config.get(key, default)
    return default if value is None and default is not None else value


def _token(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def _keep_file_post(data: dict[str, Any]):
    """TokenizersBackend's rule: the file's post-processor; without one, the BOS/EOS template,
    which adds nothing here (`_no_post`)."""
    return None if data.get("post_processor") is not None else _no_post


def _no_post(tok: Any, config: dict[str, Any]) -> dict[str, Any] | None:
    """`TokenizersBackend.update_post_processor`'s template `bos:0 $A:0 eos:0` as add_bos_token
    and add_eos_token say: beside a tokenizer.json, transformers' `_from_pretrained` drops both
    from the config, so the template is `$A:0` alone, what no post-processor does."""
    return None


def _template(tok: Any, single: list[str], pair: list[str], specials: list[str]) -> dict:
    def piece(item: str) -> dict[str, Any]:
        name, type_id = item.rsplit(":", 1)
        if name in ("$A", "$B"):
            return {"Sequence": {"id": name[1], "type_id": int(type_id)}}
        return {"SpecialToken": {"id": name, "type_id": int(type_id)}}

    return {
        "type": "TemplateProcessing",
        "single": [piece(p) for p in single],
        "pair": [piece(p) for p in pair],
        "special_tokens": {
            t: {"id": t, "ids": [tok.token_to_id(t)], "tokens": [t]}
            for t in specials
            if tok.token_to_id(t) is not None
        },
    }


# ---- the classes ------------------------------------------------------------------------------
def _gpt2(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    data["model"] = _plain_bpe(data["model"])
    data["normalizer"] = None
    data["pre_tokenizer"] = _byte_level(_flag(config, "add_prefix_space", False))
    data["decoder"] = _byte_level_decoder()
    eot = "<|endoftext|>"
    defaults = {"unk_token": eot, "bos_token": eot, "eos_token": eot, "pad_token": None}
    return _Plan(data, config, _keep_file_post(data), defaults)


def _qwen2(data: dict[str, Any], config: dict[str, Any], regex: str = QWEN2_REGEX) -> _Plan:
    data["model"] = _plain_bpe(data["model"])
    data["normalizer"] = {"type": "NFC"}
    data["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {
                "type": "Split",
                "pattern": {"Regex": regex},
                "behavior": "Isolated",
                "invert": False,
            },
            _byte_level(_flag(config, "add_prefix_space", False), use_regex=False),
        ],
    }
    data["decoder"] = _byte_level_decoder()
    eot = "<|endoftext|>"
    defaults = {"unk_token": eot, "bos_token": None, "eos_token": eot, "pad_token": eot}
    return _Plan(data, config, _keep_file_post(data), defaults)


def _gpt_neox(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    data["model"] = _plain_bpe(data["model"])
    data["normalizer"] = {"type": "NFC"}
    data["pre_tokenizer"] = _byte_level(
        _flag(config, "add_prefix_space", False), _flag(config, "trim_offsets", True)
    )
    data["decoder"] = _byte_level_decoder()
    data["post_processor"] = None  # update_post_processor() after __init__: the template
    eot = "<|endoftext|>"
    defaults = {"unk_token": eot, "bos_token": eot, "eos_token": eot, "pad_token": "<|padding|>"}
    return _Plan(data, config, _no_post, defaults)


def _roberta(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    data["model"] = _plain_bpe(data["model"])
    data["normalizer"] = None
    add_prefix_space = _flag(config, "add_prefix_space", False)
    trim_offsets = _flag(config, "trim_offsets", True)
    data["pre_tokenizer"] = _byte_level(add_prefix_space)
    data["decoder"] = _byte_level_decoder()
    data["post_processor"] = None

    def post(tok: Any, cfg: dict[str, Any]) -> dict[str, Any]:
        sep, cls = _token(cfg.get("sep_token")) or "</s>", _token(cfg.get("cls_token")) or "<s>"
        return {
            "type": "RobertaProcessing",
            "sep": [sep, tok.token_to_id(sep)],
            "cls": [cls, tok.token_to_id(cls)],
            "trim_offsets": bool(trim_offsets),
            "add_prefix_space": bool(add_prefix_space),
        }

    defaults = {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "cls_token": "<s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
    }
    return _Plan(data, config, post, defaults)


def _bert(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    unk = _token(config.get("unk_token", "[UNK]")) or "[UNK]"
    data["model"] = {
        "type": "WordPiece",
        "unk_token": unk,
        "continuing_subword_prefix": "##",
        "max_input_chars_per_word": 100,
        "vocab": _vocab_dict(data["model"].get("vocab")),
    }
    data["normalizer"] = {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": bool(_flag(config, "tokenize_chinese_chars", True)),
        "strip_accents": config.get("strip_accents"),
        "lowercase": bool(_flag(config, "do_lower_case", True)),
    }
    data["pre_tokenizer"] = {"type": "BertPreTokenizer"}
    data["decoder"] = {"type": "WordPiece", "prefix": "##", "cleanup": True}
    data["post_processor"] = None

    def post(tok: Any, cfg: dict[str, Any]) -> dict[str, Any]:
        cls, sep = _token(cfg.get("cls_token")), _token(cfg.get("sep_token"))
        cls_id, sep_id = (
            tok.token_to_id(cls) if cls else None,
            tok.token_to_id(sep) if sep else None,
        )
        cls_id = 2 if cls_id is None else cls_id
        sep_id = 3 if sep_id is None else sep_id
        template = _template(
            tok,
            [f"{cls}:0", "$A:0", f"{sep}:0"],
            [f"{cls}:0", "$A:0", f"{sep}:0", "$B:1", f"{sep}:1"],
            [],
        )
        template["special_tokens"] = {
            cls: {"id": cls, "ids": [cls_id], "tokens": [cls]},
            sep: {"id": sep, "ids": [sep_id], "tokens": [sep]},
        }
        return template

    defaults = {
        "unk_token": "[UNK]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
    }
    return _Plan(data, config, post, defaults)


def _qwen3_5(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    return _qwen2(data, config, QWEN3_5_REGEX)


def _codegen(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """GPT-2's rebuild with a ByteLevel post-processor of its own (offsets only), which the
    file's post-processor replaces when it has one."""
    plan = _gpt2(data, config)
    plan.defaults["pad_token"] = None
    if data.get("post_processor") is None:
        data["post_processor"] = {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": False,
            "use_regex": True,
        }
    plan.post = None
    return plan


def _blenderbot(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """GPT-2's rebuild with a prefix space by default, RoBERTa's named tokens (`<mask>` with
    lstrip), the file's post-processor."""
    plan = _gpt2(data, {"add_prefix_space": True, **config})
    plan.defaults = {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "cls_token": "<s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "mask_token": {"content": "<mask>", "lstrip": True, "rstrip": False, "normalized": False},
    }
    return plan


def _deberta(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """GPT-2's components, `[CLS] $A [SEP]` (pair `[CLS] $A [SEP] [SEP] $B [SEP]`, every type
    id 0) always, BERT's named tokens."""
    plan = _gpt2(data, config)
    data["post_processor"] = None

    def post(tok: Any, cfg: dict[str, Any]) -> dict[str, Any]:
        cls, sep = _token(cfg.get("cls_token")) or "[CLS]", _token(cfg.get("sep_token")) or "[SEP]"
        single = [f"{cls}:0", "$A:0", f"{sep}:0"]
        return _template(tok, single, [*single, f"{sep}:0", "$B:0", f"{sep}:0"], [cls, sep])

    plan.post = post
    plan.defaults = {
        "bos_token": "[CLS]",
        "eos_token": "[SEP]",
        "sep_token": "[SEP]",
        "cls_token": "[CLS]",
        "unk_token": "[UNK]",
        "pad_token": "[PAD]",
        "mask_token": "[MASK]",
    }
    return plan


def _dpr(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """BertTokenizer's rebuild; the DPR classes take `do_lower_case` and do not pass it on, so
    BERT's default lowercases whatever the config says."""
    return _bert(data, {**config, "do_lower_case": True})


def _llama(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """sentencepiece-style BPE (fuse_unk, byte_fallback, no unk token), no normaliser,
    Metaspace without splitting (prepend "first", "always" with `legacy`, "never" without
    `add_prefix_space`), the decoder ▁ -> space, bytes, fuse (and strip one leading space);
    the file's post-processor. (A byte-level file never gets here: see `class_of`.)"""
    model = data["model"]
    data["model"] = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": True,
        "byte_fallback": True,
        "ignore_merges": False,
        "vocab": _vocab_dict(model.get("vocab")),
        "merges": model.get("merges") or [],
    }
    prefix = _flag(config, "add_prefix_space", True)
    scheme = ("always" if config.get("legacy", False) else "first") if prefix else "never"
    data["normalizer"] = None
    data["pre_tokenizer"] = {
        "type": "Metaspace",
        "replacement": "\u2581",
        "prepend_scheme": scheme,
        "split": False,
    }
    decoders = [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
    ]
    if prefix:
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    data["decoder"] = {"type": "Sequence", "decoders": decoders}
    defaults = {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"}
    return _Plan(data, config, _keep_file_post(data), defaults)


def _gemma(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """sentencepiece-style BPE (fuse_unk, byte_fallback, the class's unk token), the normaliser
    space -> ▁, a Split on " " (which finds none left), the decoder ▁ -> space, bytes, fuse;
    the file's post-processor."""
    model = data["model"]
    unk = _token(config.get("unk_token", "<unk>")) or "<unk>"
    data["model"] = {
        "type": "BPE",
        "dropout": None,
        "unk_token": unk,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": True,
        "byte_fallback": True,
        "ignore_merges": False,
        "vocab": _vocab_dict(model.get("vocab")),
        "merges": model.get("merges") or [],
    }
    data["normalizer"] = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
    data["pre_tokenizer"] = {
        "type": "Split",
        "pattern": {"String": " "},
        "behavior": "MergedWithPrevious",
        "invert": False,
    }
    data["decoder"] = {
        "type": "Sequence",
        "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
        ],
    }
    defaults = {
        "unk_token": "<unk>",
        "bos_token": "<bos>",
        "eos_token": "<eos>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
    }
    return _Plan(data, config, _keep_file_post(data), defaults)


def _precompiled(normalizer: Any) -> dict[str, Any] | None:
    """The first Precompiled normaliser of a file's (sentencepiece's charsmap), which the
    Unigram classes keep (`convert_to_native_format`'s `_spm_precompiled_charsmap`)."""
    if not isinstance(normalizer, dict):
        return None
    members = normalizer.get("normalizers") if normalizer.get("type") == "Sequence" else None
    for member in members if isinstance(members, list) else [normalizer]:
        if isinstance(member, dict) and member.get("type") == "Precompiled":
            if member.get("precompiled_charsmap"):
                return {
                    "type": "Precompiled",
                    "precompiled_charsmap": member["precompiled_charsmap"],
                }
    return None


def _xlm_roberta(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """Unigram with unk_id 3 whatever the file says, the file's Precompiled charsmap alone as
    the normaliser, WhitespaceSplit + Metaspace, a Metaspace decoder; its post-processor always
    `<s> $A </s>` (pair `<s> $A </s> </s> $B </s>`), RoBERTa's named tokens."""
    model = data["model"]
    data["model"] = {
        "type": "Unigram",
        "unk_id": 3,
        "byte_fallback": False,
        "vocab": model.get("vocab"),
    }
    scheme = "always" if _flag(config, "add_prefix_space", True) else "never"
    metaspace = {
        "type": "Metaspace",
        "replacement": "\u2581",
        "prepend_scheme": scheme,
        "split": True,
    }
    data["normalizer"] = _precompiled(data.get("normalizer"))
    data["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace],
    }
    data["decoder"] = dict(metaspace)
    data["post_processor"] = None
    defaults = {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "cls_token": "<s>",
        "unk_token": "<unk>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
    }

    def post(tok: Any, cfg: dict[str, Any]) -> dict[str, Any]:
        bos = _token(cfg.get("bos_token")) or "<s>"  # the config's, else the class's
        eos = _token(cfg.get("eos_token")) or "</s>"
        single = [f"{bos}:0", "$A:0", f"{eos}:0"]
        return _template(tok, single, [*single, f"{eos}:0", "$B:0", f"{eos}:0"], [bos, eos])

    return _Plan(data, config, post, defaults)


def _t5(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """XLM-R's components with unk_id 2 and prepending always; `<extra_id_0>` ...
    `<extra_id_99>` as extra special tokens when the config names none; its post-processor
    always `$A </s>` (pair `$A </s> $B </s>`)."""
    plan = _xlm_roberta(data, {**config, "add_prefix_space": True})
    data["model"]["unk_id"] = 2
    plan.defaults = {"eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}
    extras = ("extra_special_tokens", "additional_special_tokens")
    if not any(config.get(k) for k in extras):
        count = config.get("extra_ids", 100)
        count = count if isinstance(count, int) and 0 <= count <= 1000 else 100
        plan.defaults["extra_special_tokens"] = [f"<extra_id_{i}>" for i in range(count)]

    def post(tok: Any, cfg: dict[str, Any]) -> dict[str, Any]:
        template = _template(tok, ["$A:0", "</s>:0"], ["$A:0", "</s>:0", "$B:0", "</s>:0"], [])
        eos = _token(cfg.get("eos_token")) or "</s>"
        template["special_tokens"] = {
            "</s>": {"id": "</s>", "ids": [tok.token_to_id(eos)], "tokens": ["</s>"]}
        }
        return template

    plan.post = post
    return plan


def _cohere(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """GPT-2's BPE, NFC, Digits (each digit alone) + ByteLevel, a ByteLevel decoder, Cohere's
    named tokens; the file's post-processor."""
    plan = _gpt2(data, config)
    data["normalizer"] = {"type": "NFC"}
    data["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Digits", "individual_digits": True},
            _byte_level(_flag(config, "add_prefix_space", False)),
        ],
    }
    plan.defaults = {
        "unk_token": "<UNK>",
        "bos_token": "<BOS_TOKEN>",
        "eos_token": "<|END_OF_TURN_TOKEN|>",
        "pad_token": "<PAD>",
        "cls_token": "<CLS>",
        "sep_token": "<SEP>",
        "mask_token": "<MASK_TOKEN>",
    }
    return plan


def _openai_gpt(data: dict[str, Any], config: dict[str, Any]) -> _Plan:
    """GPT-1's: a BPE whose word ends carry `</w>` and whose unk token is the class's,
    BertNormalizer (lowercasing) and BertPreTokenizer, a BPEDecoder; the file's
    post-processor."""
    model = data["model"]
    data["model"] = {
        "type": "BPE",
        "dropout": None,
        "unk_token": _token(config.get("unk_token", "<unk>")) or "<unk>",
        "continuing_subword_prefix": "",
        "end_of_word_suffix": "</w>",
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": _vocab_dict(model.get("vocab")),
        "merges": model.get("merges") or [],
    }
    data["normalizer"] = {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": True,
        "strip_accents": None,
        "lowercase": True,
    }
    data["pre_tokenizer"] = {"type": "BertPreTokenizer"}
    data["decoder"] = {"type": "BPEDecoder", "suffix": "</w>"}
    return _Plan(data, config, _keep_file_post(data), {"unk_token": "<unk>"})


REBUILT: dict[str, Callable[[dict[str, Any], dict[str, Any]], _Plan]] = {
    "OpenAIGPTTokenizer": _openai_gpt,
    "CohereTokenizer": _cohere,
    "T5Tokenizer": _t5,
    "XLMRobertaTokenizer": _xlm_roberta,
    "GemmaTokenizer": _gemma,
    "LlamaTokenizer": _llama,
    "GPT2Tokenizer": _gpt2,
    "Qwen2Tokenizer": _qwen2,
    "Qwen3_5Tokenizer": _qwen3_5,
    "GPTNeoXTokenizer": _gpt_neox,
    "CodeGenTokenizer": _codegen,
    "BlenderbotTokenizer": _blenderbot,
    "RobertaTokenizer": _roberta,
    "DebertaTokenizer": _deberta,
    "BertTokenizer": _bert,
    "DistilBertTokenizer": _bert,
    "DPRContextEncoderTokenizer": _dpr,
    "DPRQuestionEncoderTokenizer": _dpr,
    "DPRReaderTokenizer": _dpr,
}


# ---- what changed, in words -------------------------------------------------------------------
def _changes(before: dict[str, Any], plan: _Plan) -> list[str]:
    """A phrase per component the class replaced, e.g. "pre-tokenizer ByteLevel (GPT-2's regex)
    instead of the file's Sequence[Split, ByteLevel]"."""
    out = []
    for key in _COMPONENTS:
        was, now = before.get(key), plan.data.get(key)
        if key == "post_processor":
            if plan.post is None or (plan.post is _no_post and was is None):
                continue
            now = "none" if plan.post is _no_post else "the class's own"
            out.append(f"{_NAMES[key]} {now} instead of the file's {_summary(was, key)}")
            continue
        if _strip(was, key) != _strip(now, key):
            out.append(
                f"{_NAMES[key]} {_summary(now, key)} instead of the file's {_summary(was, key)}"
            )
    was_model, now_model = before.get("model") or {}, plan.data["model"]
    flags = [
        f"{k}={now_model.get(k)!r}"
        for k in ("ignore_merges", "byte_fallback", "unk_token", "fuse_unk", "dropout")
        if k in now_model and was_model.get(k, now_model.get(k)) != now_model.get(k)
    ]
    if flags:
        out.append(f"the model with {', '.join(flags)}")
    return out


def _strip(config: Any, key: str = "") -> Any:
    """A component without what changes neither ids nor text: `trim_offsets` (offsets only),
    a ByteLevel decoder's options (it reads none of them).

    >>> _strip({"type": "ByteLevel", "trim_offsets": False}, "decoder")
    {'type': 'ByteLevel'}
    """
    if isinstance(config, dict):
        if key == "decoder" and config.get("type") == "ByteLevel":
            return {"type": "ByteLevel"}
        return {k: _strip(v, key) for k, v in config.items() if k != "trim_offsets"}
    if isinstance(config, list):
        return [_strip(v, key) for v in config]
    return config


def _summary(config: Any, key: str = "pre_tokenizer") -> str:
    """A component as a short phrase: its type, a Sequence's members, a ByteLevel
    pre-tokenizer's regex.

    >>> _summary({"type": "ByteLevel", "use_regex": True}), _summary(None)
    ("ByteLevel (GPT-2's regex)", 'none')
    """
    if not isinstance(config, dict):
        return "none"
    kind = config.get("type", "?")
    members = config.get("pretokenizers") or config.get("normalizers") or config.get("decoders")
    if kind == "Sequence" and isinstance(members, list):
        return "Sequence[" + ", ".join(_summary(m, key) for m in members) + "]"
    if kind == "ByteLevel" and key == "pre_tokenizer" and config.get("use_regex", True):
        return "ByteLevel (GPT-2's regex)"
    if kind == "Metaspace":
        split = "" if config.get("split", True) else ", no split"
        return f"Metaspace (prepend {config.get('prepend_scheme', 'always')}{split})"
    if kind == "BertNormalizer":
        return f"BertNormalizer ({'lowercasing' if config.get('lowercase', True) else 'cased'})"
    if kind == "Split":
        pattern = config.get("pattern") or {}
        regex = pattern.get("Regex") if isinstance(pattern, dict) else None
        known = {QWEN2_REGEX: "Qwen2's regex", QWEN3_5_REGEX: "Qwen3.5's regex"}
        if regex in known:
            return f"Split ({known[regex]})"
        return "Split (a regex of its own)" if regex else "Split"
    return str(kind)
