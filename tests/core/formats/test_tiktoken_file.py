"""tiktoken ranks files loaded with `tc.load(..., pattern=, special_tokens=)`, against tiktoken
built from the same ranks, with the same pattern and special tokens (offline: never
`tiktoken.get_encoding`). The real Llama 3 / 4 files are checked by benchmarks/verify_interop.py
and, when ../shared is present, by the last test here."""

from __future__ import annotations

import gzip
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import sniff
from tokenizers_core.implementations.openai_public import DATA_DIR, load_ranks
from tokenizers_core.pre_tokenizers import PRESETS

tiktoken = pytest.importorskip("tiktoken")

SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|im_start|>": 100300}
CUSTOM = r"""\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+"""  # a pattern of one's own


def _ranks_bytes(name: str) -> bytes:
    return gzip.decompress((DATA_DIR / f"{name}.tiktoken.gz").read_bytes())


@pytest.fixture(
    scope="module",
    params=["cl100k", "llama3", "p50k", CUSTOM],
    ids=["cl100k", "llama3", "p50k", "custom"],
)
def pair(request):
    pattern = request.param
    ours = tc.load(_ranks_bytes("cl100k_base"), pattern=pattern, special_tokens=SPECIALS)
    ref = tiktoken.Encoding(
        "test",
        pat_str=PRESETS.get(pattern, pattern),
        mergeable_ranks=load_ranks("cl100k_base"),
        special_tokens=SPECIALS,
    )
    return ours, ref


def test_sniffed_as_tiktoken_whatever_the_name(tmp_path):
    path = tmp_path / "tokenizer.model"  # Llama 3 ships its ranks under this name
    path.write_bytes(_ranks_bytes("r50k_base"))
    assert sniff(path.read_bytes()) == "tiktoken"
    tok = tc.load(str(path), pattern="gpt2")
    assert tok.encode("Hello, world!").ids == [15496, 11, 995, 0]
    assert tc.load(path.read_bytes(), pattern="r50k").encode("Hello").ids == [15496]


def test_corpora_and_multilingual_text_match_tiktoken(pair):
    ours, ref = pair
    for name in ("botchan", "udhr/jpn", "udhr/hin", "udhr/arb", "udhr/kor"):
        text = load_corpus(name)[:20_000]
        enc = ours.encode(text)
        assert enc.ids == ref.encode_ordinary(text), name
        assert ours.decode(enc.ids) == ref.decode(enc.ids)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40) | st.text(alphabet=" \n\tab1'é<|>endoftx_", max_size=30))
def test_hypothesis_text_and_special_tokens_match_tiktoken(pair, text):
    ours, ref = pair
    assert ours.encode(text, allowed_special="all").ids == ref.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()).ids == ref.encode(text, disallowed_special=())
    try:
        ref_ids = ref.encode(text)
    except ValueError:
        with pytest.raises(ValueError, match="disallowed"):
            ours.encode(text)
    else:
        assert ours.encode(text).ids == ref_ids


def test_special_tokens_as_tiktoken_treats_them(pair):
    ours, ref = pair
    text = "a<|endoftext|>b <|im_start|>"
    with pytest.raises(ValueError, match="disallowed"):
        ours.encode(text)  # tiktoken raises too
    assert ours.encode(
        text, allowed_special={"<|endoftext|>"}, disallowed_special=()
    ).ids == ref.encode(text, allowed_special={"<|endoftext|>"}, disallowed_special=())
    enc = ours.encode(text, allowed_special="all")
    assert enc.ids == ref.encode(text, allowed_special="all")
    assert enc.special_tokens_mask[enc.ids.index(100257)] == 1
    assert ours.decode(enc.ids) == ref.decode(enc.ids) == text  # specials kept
    assert ours.decode(enc.ids, skip_special_tokens=True) == "ab "


def test_surrogate_pair_is_one_character_as_in_tiktoken(pair):
    ours, ref = pair
    text = "ok \ud83d\udc4d!"  # a surrogate pair, as Python may hold it
    enc = ours.encode(text)
    assert enc.ids == ref.encode(text)
    assert "\ufffd" not in ours.decode(enc.ids)
    assert enc.offsets[-1] == (len(text) - 1, len(text))  # offsets are of the original
    lone = "a\ud800b"
    assert ours.encode(lone).ids == ref.encode(lone)


def test_bad_files_say_what_is_wrong():
    good = _ranks_bytes("r50k_base")
    with pytest.raises(ValueError, match="pattern="):
        tc.load(good)
    with pytest.raises(ValueError, match="line 3 .*bad base64"):
        tc.load(b"IQ== 0\nIg== 1\n@@@ 2\n", format="tiktoken", pattern="gpt2")
    with pytest.raises(ValueError, match="256 single bytes"):
        tc.load(b"IQ== 0\nIg== 1\n", pattern="gpt2")
    with pytest.raises(ValueError, match="repeats"):
        tc.load(good + b"IQ== 999999\n", pattern="gpt2")
    with pytest.raises(ValueError, match="invalid regex"):
        tc.load(good, pattern="(unclosed")
    with pytest.raises(ValueError, match="ordinary token"):
        tc.load(good, pattern="gpt2", special_tokens={"<x>": 5})
    with pytest.raises(ValueError, match="special_tokens"):
        tc.load(good, pattern="gpt2", special_tokens={"<x>": "five"})


def test_loaded_tokenizers_pickle(pair):
    ours, _ref = pair
    again = pickle.loads(pickle.dumps(ours))
    assert (
        again.encode("Hello <|endoftext|>", allowed_special="all").ids
        == ours.encode("Hello <|endoftext|>", allowed_special="all").ids
    )


from tests.shared_data import INTEROP


@pytest.mark.skipif(not INTEROP.is_dir(), reason="../shared/data/interop is not beside the repo")
def test_real_llama3_ranks_file_matches_its_reference_outputs():
    config = json.loads((INTEROP / "converted" / "llama3.tokenizer.json").read_text("utf-8"))
    specials = {t["content"]: t["id"] for t in config["added_tokens"] if t["special"]}
    tok = tc.load(
        str(INTEROP / "raw" / "llama3" / "tokenizer.model"),
        pattern="llama3",
        special_tokens=specials,
    )
    rows = [
        json.loads(line)
        for line in (INTEROP / "expected" / "llama3.tiktoken.expected.jsonl").open(encoding="utf-8")
    ]
    for row in rows:
        want = row["tiktoken"]
        assert tok.encode(row["text"], allowed_special="all").ids == want["ids_allowed_all"]
        assert tok.encode(row["text"], disallowed_special=()).ids == want["ids_none_allowed"]
        assert tok.decode(want["ids_allowed_all"]) == want["decode"]
