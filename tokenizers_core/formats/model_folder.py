"""A model's tokenizer folder, as a Hugging Face model repository holds it: `tokenizer.json`
beside `tokenizer_config.json` (the chat template and the named special tokens), and, in
repositories saved by newer transformers, `chat_template.jinja` and
`additional_chat_templates/<name>.jinja`.

Read from a folder (`tc.load("Llama-3.2-1B-Instruct/")`) or from a .zip of one (the web upload).
The tokenizer comes from `tokenizer.json` (or, in older repositories, vocab.json + merges.txt);
the rest is kept on it as `tok.tokenizer_config`, a dict, which the chat renderer reads
(`tc.apply_chat_template(messages, tokenizer=tok)` needs no template then).

The config is assembled as transformers' `from_pretrained` assembles it:
- template files win over the config's `chat_template`: `chat_template.jinja` alone becomes the
  one template; with named ones beside it, the templates become a list of {name, template},
  "default" being `chat_template.jinja`;
- `special_tokens_map.json` (legacy) sets the named special tokens only when the config has no
  `added_tokens_decoder`;
- the config's tokens are added to the tokenizer as transformers' `PreTrainedTokenizerFast`
  adds them (`with_config_tokens`): `added_tokens_decoder` with each entry's flags, then the
  named special tokens it lacks; a token the vocabulary lacks is appended after it, whatever
  id the config lists (InternLM2's `<|im_start|>` is 92549 in transformers, 92543 in its
  config);
- the tokenizer.json's `truncation` and `padding` are not applied (`as_transformers_calls`):
  transformers' `tokenizer(text)` and `encode` turn them off unless the call asks for them, so
  all-MiniLM-L6-v2's folder (truncation 128, padding Fixed 128) gives a long text all its
  tokens and a short one no [PAD]s, where `tokenizers` reading its tokenizer.json alone gives
  128 ids.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .. import processors
from ..added_tokens import config_added_tokens
from ..errors import InvalidInput
from ..models.bpe.model import gc_paused
from ..pipeline import Tokenizer
from . import hf_classes, hf_json, vocab_merges
from .files import TooLarge, read_zip_members, zip_files

TOKENIZER = "tokenizer.json"
CONFIG = "tokenizer_config.json"
SPECIAL_TOKENS_MAP = "special_tokens_map.json"
TEMPLATE = "chat_template.jinja"
TEMPLATE_DIR = "additional_chat_templates"
MAX_BYTES = 64 * 1024 * 1024  # every file read, together
MAX_TEMPLATES = 64
_SIDE_FILES = (CONFIG, SPECIAL_TOKENS_MAP, TEMPLATE)


# ---- which files -------------------------------------------------------------------------------
def file_key(path: str) -> str | None:
    """The name a file of the folder is known by ("tokenizer.json",
    "additional_chat_templates/tool_use.jinja"), or None when it is not one we read.

    >>> file_key("Llama-3/tokenizer_config.json"), file_key("x/additional_chat_templates/rag.jinja")
    ('tokenizer_config.json', 'additional_chat_templates/rag.jinja')
    >>> file_key("model.safetensors") is None
    True
    """
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    if len(parts) >= 2 and parts[-2] == TEMPLATE_DIR and name.endswith(".jinja"):
        return f"{TEMPLATE_DIR}/{name}"
    if name in (TOKENIZER, *_SIDE_FILES, *vocab_merges.NAMES[0], *vocab_merges.NAMES[1]):
        return name
    return None


def holds_tokenizer_json(paths: list[str]) -> bool:
    """Whether a folder or zip with these file paths is a model folder (it has tokenizer.json)."""
    return any(file_key(p) == TOKENIZER for p in paths)


# ---- reading ------------------------------------------------------------------------------------
def load_bytes(data: bytes, *, name: str = "", **options: Any) -> Any:
    """A `Tokenizer`, its `tokenizer_config` kept, from a zip of a model folder."""
    _no_options(options)
    return load_files(read_zip(data), name=name)


def read_zip(data: bytes, limit: int | None = None) -> dict[str, bytes]:
    """The files of a zipped model folder that we read, by `file_key`, never more than `limit`
    bytes together once unzipped (TooLarge; `MAX_BYTES` when None, the web upload passes
    TOKVIS_MAX_TOKENIZER_BYTES).
    Files we do not read (the weights) are not unzipped, whatever their size.

    >>> import io, zipfile
    >>> out = io.BytesIO()
    >>> with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
    ...     zf.writestr("m/tokenizer.json", "{}" + " " * 1000)
    ...     zf.writestr("m/model.safetensors", bytes(5000))
    >>> sorted(read_zip(out.getvalue()))
    ['tokenizer.json']
    >>> read_zip(out.getvalue(), limit=500)
    Traceback (most recent call last):
    ...
    tokenizers_core.formats.files.TooLarge: the zip's files unzip to more than 500 bytes
    """
    archive, members = zip_files(data)
    chosen = _chosen({i.filename: i for i in members})
    cap = MAX_BYTES if limit is None else limit
    return dict(zip(chosen, read_zip_members(archive, list(chosen.values()), cap)))


def load_folder(path: str, name: str = "") -> Any:
    """A `Tokenizer`, its `tokenizer_config` kept, from a model folder on disk."""
    paths = [os.path.join(path, n) for n in os.listdir(path)]
    template_dir = os.path.join(path, TEMPLATE_DIR)
    if os.path.isdir(template_dir):
        paths += [os.path.join(template_dir, n) for n in os.listdir(template_dir)]
    chosen = _chosen({p: p for p in paths if os.path.isfile(p)})
    if sum(os.path.getsize(p) for p in chosen.values()) > MAX_BYTES:
        raise TooLarge(f"the folder's tokenizer files are more than {MAX_BYTES:,} bytes")
    files = {}
    for key, file_path in chosen.items():
        with open(file_path, "rb") as fh:
            files[key] = fh.read()
    return load_files(files, name=name or os.path.basename(os.path.normpath(path)))


def load_files(files: dict[str, bytes], name: str = "") -> Any:
    """A `Tokenizer` from a model folder's files (by `file_key`), its `tokenizer_config` kept.
    A config whose `tokenizer_class` transformers rebuilds (`hf_classes`) is followed, and
    `tok.class_rebuild` says what the class changed."""
    config = tokenizer_config(files)
    klass = hf_classes.class_of(config, files.get(TOKENIZER))
    if TOKENIZER in files and config is not None and klass is not None:
        return as_transformers_calls(_load_as_class(files[TOKENIZER], config, klass, name))
    if TOKENIZER in files:
        tok = hf_json.load_bytes(files[TOKENIZER], name=name)
    else:
        pair = next(
            ((files[v], files[m]) for v, m in vocab_merges.NAMES if v in files and m in files), None
        )
        if pair is None:
            raise InvalidInput(
                "the folder holds no tokenizer.json (nor vocab.json + merges.txt); "
                f"it holds: {', '.join(sorted(files)) or 'none of the files we read'}"
            )
        tok = vocab_merges.load_pair(*pair, name=name)
    if config is not None:
        tok = with_config_tokens(tok, config)
        tok.tokenizer_config = config
    return as_transformers_calls(tok)


def as_transformers_calls(tok: Any) -> Any:
    """`tok` without the truncation and padding its tokenizer.json sets, as transformers'
    tokenizer encodes a text: its `set_truncation_and_padding` calls the backend's
    `no_truncation()` and `no_padding()` for a call that asks for neither (`tokenizer(text)`,
    `encode(text)`: `truncation=None`, `padding=False`), whatever the file set. A tiktoken or
    Tekken tokeniser has neither and is returned as it is.

    >>> data = {"model": {"type": "WordLevel", "vocab": {"<pad>": 0, "hi": 1},
    ...                   "unk_token": "<pad>"}, "pre_tokenizer": {"type": "WhitespaceSplit"},
    ...         "truncation": {"max_length": 2, "strategy": "LongestFirst", "stride": 0},
    ...         "padding": {"strategy": {"Fixed": 4}, "pad_id": 0, "pad_token": "<pad>"}}
    >>> hf_json.from_dict(data).encode("hi hi hi").ids  # cut to 2, padded to 4
    [1, 1, 0, 0]
    >>> as_transformers_calls(hf_json.from_dict(data)).encode("hi hi hi").ids
    [1, 1, 1]
    """
    if type(tok) is Tokenizer:
        tok.truncation = None
        tok.padding = None
    return tok


def _load_as_class(data: bytes, config: dict[str, Any], klass: str, name: str) -> Any:
    """The tokenizer.json's tokenizer as transformers 5 builds it for class `klass`: the
    file's vocabulary, merges, padding and truncation (which `load_files` then turns off, as
    a call does), the class's own components and named tokens (`hf_classes.rebuild`), then
    the post-processor the class sets."""
    with gc_paused:  # as hf_json.load_bytes: millions of small objects, none cyclic
        parsed = hf_json.parse_bytes(data)
        plan, what = hf_classes.rebuild(parsed, config, klass)
        built = hf_json.from_dict(
            parsed if not what.followed else {**plan.data, "added_tokens": []}, name=name
        )
    if not what.followed:
        tok = with_config_tokens(built, config)
    else:
        tok = with_config_tokens(built, plan.config)
        post = plan.post(tok, plan.config) if plan.post is not None else None
        if post is not None:
            tok.post_processor = processors.from_hf_config(post)
        elif plan.post is not None:
            tok.post_processor = None
    tok.tokenizer_config = config
    tok.class_rebuild = what
    return tok


def with_config_tokens(tok: Any, config: dict[str, Any] | None) -> Any:
    """`tok` with the tokens its tokenizer_config.json adds, as transformers'
    `PreTrainedTokenizerFast(tokenizer_file=..., **config)` adds them (see
    `added_tokens.config_added_tokens`): a new `Tokenizer` sharing `tok`'s stages, or `tok`
    itself when the config adds nothing. Only a Hugging Face style `Tokenizer` takes them: a
    tiktoken or Tekken tokeniser keeps its own special tokens (transformers has no such
    backend to add them to).

    >>> data = {"model": {"type": "WordLevel", "vocab": {"<unk>": 0, "hi": 1},
    ...                   "unk_token": "<unk>"}, "pre_tokenizer": {"type": "WhitespaceSplit"}}
    >>> tok = hf_json.from_dict(data)
    >>> config = {"added_tokens_decoder": {"7": {"content": "<|im_start|>", "special": True,
    ...                                          "normalized": False}}}
    >>> with_config_tokens(tok, config).encode("<|im_start|>hi").ids
    [2, 1]
    """
    if not isinstance(config, dict) or type(tok) is not Tokenizer:
        return tok
    adding = config_added_tokens(config, tok.added_tokens)
    if not adding:
        return tok
    out = Tokenizer(
        tok.model,
        normalizer=tok.normalizer,
        pre_tokenizer=tok.pre_tokenizer,
        post_processor=tok.post_processor,
        decoder=tok.decoder,
        name=tok.name,
        algorithm=tok.algorithm,
        added_tokens=[*tok.added_tokens, *adding],
        truncation=tok.truncation,
        padding=tok.padding,
    )
    out.normalizer_runner = tok.normalizer_runner
    out.drops_unknown_ids = tok.drops_unknown_ids
    out.class_rebuild = tok.class_rebuild
    if tok.tokenizer_config is not None:
        out.tokenizer_config = tok.tokenizer_config
    return out


def tokenizer_config(files: dict[str, bytes]) -> dict[str, Any] | None:
    """The tokenizer_config.json as transformers assembles it from the folder's files, or None
    when the folder has no config and no template file."""
    config = _json_object(files[CONFIG], CONFIG) if CONFIG in files else {}
    if SPECIAL_TOKENS_MAP in files and "added_tokens_decoder" not in config:
        config.update(_json_object(files[SPECIAL_TOKENS_MAP], SPECIAL_TOKENS_MAP))
    templates = _template_files(files)
    if list(templates) == ["default"]:
        config["chat_template"] = templates["default"]
    elif templates:
        config["chat_template"] = [{"name": n, "template": t} for n, t in templates.items()]
    if not config and CONFIG not in files:
        return None
    return config


def _template_files(files: dict[str, bytes]) -> dict[str, str]:
    """{name: template} from chat_template.jinja ("default") and additional_chat_templates/."""
    named = sorted(k for k in files if k.startswith(TEMPLATE_DIR + "/"))
    if len(named) > MAX_TEMPLATES:
        raise InvalidInput(
            f"the folder has {len(named)} chat templates; at most {MAX_TEMPLATES} are read"
        )
    out = {"default": _text(files[TEMPLATE], TEMPLATE)} if TEMPLATE in files else {}
    for key in named:
        out[key[len(TEMPLATE_DIR) + 1 : -len(".jinja")]] = _text(files[key], key)
    return out


def _chosen(found: dict[str, Any]) -> dict[str, Any]:
    """{file_key: what to read} for the files we read; the shallowest copy of a name wins (a
    zip may hold the folder at its root or inside one folder)."""
    chosen: dict[str, Any] = {}
    for path in sorted(found, key=lambda p: (p.count("/"), p)):
        key = file_key(path)
        if key is not None and key not in chosen:
            chosen[key] = found[path]
    return chosen


def _json_object(data: bytes, file_name: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"{file_name} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{file_name} must hold a JSON object")
    return value


def _text(data: bytes, file_name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{file_name} is not UTF-8 text: {exc.reason} at byte {exc.start}"
        ) from None


def _no_options(options: dict[str, Any]) -> None:
    if options:
        raise InvalidInput(
            f"a model folder takes no options (got {', '.join(sorted(options))}): "
            "everything it needs is in its files"
        )
