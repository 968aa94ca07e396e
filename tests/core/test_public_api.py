"""The public API is a promise: the names each public module exports are pinned here.

`public_api.txt` (beside this file) lists `module name` for every name in the `__all__` of the
public modules. A pinned name that leaves `__all__` fails the test: a name that moves first keeps
working for a release with a `DeprecationWarning` (`tokenizers_core/deprecation.py`), and only
then leaves the list. A new name is added to `__all__` and to the list together.

The stage modules also offer Hugging Face's spellings (`tokenizers.models.WordPiece`,
`tokenizers.pre_tokenizers.Split`, ...), checked against `tokenizers` 0.23's own modules.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

import tokenizers_core as tc

PINNED_FILE = Path(__file__).with_name("public_api.txt")


def pinned() -> dict[str, set[str]]:
    """module -> the names pinned for it."""
    out: dict[str, set[str]] = {}
    for line in PINNED_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            module, name = line.split()
            out.setdefault(module, set()).add(name)
    return out


PINNED = pinned()

# Hugging Face's names (tokenizers 0.23.3, `dir()` of each module) that we do not implement:
# the abstract base classes (ours are protocols, or duck typing), the registry of normaliser
# classes, the streaming decoder, and the trainer for parity-aware BPE.
HF_NAMES_WE_LACK = {
    "normalizers": {"Normalizer", "NORMALIZERS"},
    "pre_tokenizers": {"PreTokenizer"},
    "processors": {"PostProcessor"},
    "decoders": {"Decoder", "DecodeStream"},
    "trainers": {"ParityBpeTrainer"},
}

HF_NAMES = {
    "models": {"BPE", "Model", "Unigram", "WordLevel", "WordPiece"},
    "normalizers": {
        "BertNormalizer",
        "ByteLevel",
        "Lowercase",
        "NFC",
        "NFD",
        "NFKC",
        "NFKD",
        "Nmt",
        "Precompiled",
        "Prepend",
        "Replace",
        "Sequence",
        "Strip",
        "StripAccents",
    },
    "pre_tokenizers": {
        "BertPreTokenizer",
        "ByteLevel",
        "CharDelimiterSplit",
        "Digits",
        "FixedLength",
        "Metaspace",
        "Punctuation",
        "Sequence",
        "Split",
        "UnicodeScripts",
        "Whitespace",
        "WhitespaceSplit",
    },
    "processors": {
        "BertProcessing",
        "ByteLevel",
        "RobertaProcessing",
        "Sequence",
        "TemplateProcessing",
    },
    "decoders": {
        "BPEDecoder",
        "ByteFallback",
        "ByteLevel",
        "CTC",
        "Fuse",
        "Metaspace",
        "Replace",
        "Sequence",
        "Strip",
        "WordPiece",
    },
    "trainers": {"BpeTrainer", "Trainer", "UnigramTrainer", "WordLevelTrainer", "WordPieceTrainer"},
}

# The modules that were one file each before the per-stage layout (commit d6e05c2) and are
# packages now: their old names are served from the new homes, with a warning (`_MOVED`).
SHIMS = [
    "tokenizers_core.models.bpe",
    "tokenizers_core.models.unigram",
    "tokenizers_core.models.wordlevel",
    "tokenizers_core.models.wordpiece",
]
DEPRECATED = [
    (shim, old, *home)
    for shim in SHIMS
    for old, home in sorted(importlib.import_module(shim)._MOVED.items())
]


def test_the_list_is_read():
    assert len(PINNED) == 12
    assert (
        "tokenizers_core.models.wordpiece",
        "WordPiece",
        "tokenizers_core.models",
        "WordPiece",
    ) in DEPRECATED
    assert (
        "tokenizers_core.models.unigram",
        "sample",
        "tokenizers_core.models.unigram.model",
        "sample",
    ) in DEPRECATED
    assert sum(map(len, PINNED.values())) >= 139


@pytest.mark.parametrize("module", sorted(PINNED))
def test_pinned_names_are_still_exported(module):
    exported = set(importlib.import_module(module).__all__)
    gone = sorted(PINNED[module] - exported)
    assert not gone, (
        f"{module} no longer exports {gone}: a public name is a promise. Keep it "
        "working for a release with a DeprecationWarning (tokenizers_core/"
        "deprecation.py), then remove it from tests/core/public_api.txt"
    )


@pytest.mark.parametrize("module", sorted(PINNED))
def test_every_exported_name_resolves(module):
    mod = importlib.import_module(module)
    assert len(mod.__all__) == len(set(mod.__all__)), f"{module}.__all__ repeats a name"
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert not missing, f"{module}.__all__ names what it does not have: {missing}"


@pytest.mark.parametrize("stage", sorted(HF_NAMES))
def test_hugging_face_spellings(stage):
    """`tokenizers_core.<stage>.X` for every X Hugging Face's `tokenizers.<stage>` has, but
    those listed in HF_NAMES_WE_LACK."""
    mod = importlib.import_module(f"tokenizers_core.{stage}")
    assert HF_NAMES[stage] <= set(mod.__all__)
    for name in HF_NAMES[stage]:
        assert isinstance(getattr(mod, name), type), f"{stage}.{name} is not a class"


def test_our_hugging_face_list_is_theirs():
    """HF_NAMES and HF_NAMES_WE_LACK are together all of `tokenizers`' public classes."""
    hf = pytest.importorskip("tokenizers")
    for stage in HF_NAMES:
        theirs = {n for n in dir(getattr(hf, stage)) if n[0].isupper()}
        assert theirs == HF_NAMES[stage] | HF_NAMES_WE_LACK.get(stage, set()), stage


@pytest.mark.parametrize(
    "module, name",
    [
        ("tokenizers_core.pre_tokenizers", name)
        for name in (
            "Split",
            "Punctuation",
            "Digits",
            "FixedLength",
            "UnicodeScripts",
            "CharDelimiterSplit",
        )
    ]
    + [("tokenizers_core.normalizers", "from_hf_config"), ("tokenizers_core.models", "WordPiece")],
)
def test_names_the_issue_found_raising_are_real_exports(module, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a real export does not warn
        assert getattr(importlib.import_module(module), name) is not None


@pytest.mark.parametrize("old_module, old, new_module, new", DEPRECATED)
def test_moved_names_warn_and_still_resolve(old_module, old, new_module, new):
    module = importlib.import_module(old_module)
    with pytest.warns(DeprecationWarning, match=f"use {new_module}.{new}"):
        value = getattr(module, old)
    assert value is getattr(importlib.import_module(new_module), new)


def test_the_old_import_statement_works():
    with pytest.warns(DeprecationWarning):
        from tokenizers_core.models.wordpiece import WordPiece
    assert WordPiece({"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3}).tokenize("unaffable") == [
        ("un", 1, 0, 2),
        ("##aff", 2, 2, 5),
        ("##able", 3, 5, 9),
    ]


def test_a_name_that_never_was_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        importlib.import_module("tokenizers_core.models.wordpiece").Nothing


def test_the_version_comes_from_the_package_metadata():
    import importlib.metadata

    assert tc.__version__ == importlib.metadata.version("tokenizer-visualiser")


def test_the_domain_errors_are_the_builtin_kinds():
    assert issubclass(tc.InvalidInput, ValueError) and issubclass(tc.NotFound, LookupError)


def test_py_typed_ships_inside_the_package():
    """PEP 561: the marker sits in the package directory and the wheel's package data names it."""
    import tomllib

    assert (Path(tc.__file__).parent / "py.typed").is_file()
    project = tomllib.loads((Path(tc.__file__).parents[1] / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["tokenizers_core"]
