"""OpenAI model names resolve to the encodings tiktoken's model table gives them:
every exact name and every prefix of the installed tiktoken's `model.py`, the same
KeyError for a name it does not know, and a clear ValueError for an encoding we do not bundle.
The encodings themselves are checked against tiktoken built offline from the bundled ranks."""

from __future__ import annotations

import pytest
import tiktoken
import tiktoken.model

import tokenizers_core as tc
from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
from tokenizers_core.pre_tokenizers import PRESETS

BUNDLED_AS = {"gpt2": "r50k_base"}  # tiktoken's "gpt2" is r50k_base's ranks
BUNDLED = {*ENCODINGS, "p50k_base", "p50k_edit"}  # p50k: formats/bundled_models.py


def _every_model_name() -> list[str]:
    """tiktoken's exact names, and for each prefix a made-up model that only the prefix names."""
    return [
        *tiktoken.model.MODEL_TO_ENCODING,
        *(prefix + "2099-01-01" for prefix in tiktoken.model.MODEL_PREFIX_TO_ENCODING),
    ]


@pytest.mark.parametrize("model", _every_model_name())
def test_every_model_name_resolves_as_tiktoken(model):
    assert tc.encoding_name_for_model(model) == tiktoken.model.encoding_name_for_model(model)


@pytest.mark.parametrize("model", _every_model_name())
def test_every_model_loads_its_encoding_or_says_it_is_not_bundled(model):
    theirs = tiktoken.model.encoding_name_for_model(model)
    name = BUNDLED_AS.get(theirs, theirs)
    if name in BUNDLED:
        assert tc.encoding_for_model(model).name == name
        assert tc.load(model) is tc.encoding_for_model(model)
    else:
        with pytest.raises(ValueError, match=f"{theirs} encoding, which is not bundled"):
            tc.encoding_for_model(model)
        with pytest.raises(ValueError, match="not bundled"):
            tc.load(model)


@pytest.mark.parametrize("model", ["text-davinci-004", "llama-3", "", "GPT-4", "4o"])
def test_an_unknown_model_is_a_key_error_as_in_tiktoken(model):
    with pytest.raises(KeyError):
        tiktoken.model.encoding_name_for_model(model)
    with pytest.raises(KeyError):
        tc.encoding_name_for_model(model)
    with pytest.raises(KeyError):
        tc.encoding_for_model(model)


def test_the_names_the_issue_lists():
    assert tc.encoding_for_model("gpt-3.5-turbo-0301").name == "cl100k_base"
    assert tc.encoding_for_model("gpt-4o-mini").name == "o200k_base"
    assert tc.encoding_for_model("o1").name == "o200k_base"
    assert tc.encoding_for_model("gpt-oss-120b").name == "o200k_harmony"
    assert tc.encoding_name_for_model("text-davinci-003") == "p50k_base"


def test_gpt_oss_encodes_the_harmony_format_as_tiktoken():
    """o200k_harmony is o200k_base's ranks with the harmony chat format's special tokens."""
    specials = ENCODINGS["o200k_harmony"][1]
    ref = tiktoken.Encoding(
        "o200k_harmony",
        pat_str=PRESETS["o200k"],
        mergeable_ranks=load_ranks("o200k_harmony"),
        special_tokens=specials,
    )
    ours = tc.load("gpt-oss-20b")
    text = "<|start|>user<|message|>What is 2+2?<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>"
    assert ours.encode(text, allowed_special="all").ids == ref.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()).ids == ref.encode_ordinary(text)
    with pytest.raises(ValueError):  # as tiktoken's encode, by default
        ours.encode(text)
    assert ours.vocab_size == ref.n_vocab == 201088


def test_a_file_named_like_a_model_is_loaded_as_the_file(tmp_path, monkeypatch):
    """Model prefixes are broad ("gpt-4-..."): a file of that name is the file, not the model."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpt-4-mine.txt").write_text("[UNK]\nhello\n", encoding="utf-8")
    tok = tc.load("gpt-4-mine.txt")
    assert tok.algorithm == "wordpiece"


def test_model_names_are_bundled_names_for_the_pickers():
    assert tc.pretrained.is_bundled("gpt-4o-mini") and tc.pretrained.is_bundled("gpt-oss-120b")
    assert tc.pretrained.canonical_name("gpt-3.5-turbo") == "cl100k_base"
    assert tc.pretrained.canonical_name("text-davinci-003") == "p50k_base"
    assert not tc.pretrained.is_bundled("llama-3")
    assert "o200k_harmony" not in tc.pretrained.bundled()  # loadable, not listed
