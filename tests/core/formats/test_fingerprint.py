"""`tc.fingerprint`: the file's sha256, a behaviour hash that the same behaviour keeps across
formats, and llama.cpp's `chkhsh` computed as `convert_hf_to_gguf.py` does, with its name.

The references: the hashes llama.cpp's converter lists for GPT-2, cl100k (dbrx), o200k
(gpt-4o), Qwen and Llama 3 / 4, which only the exact probe text and the exact ids give; Hugging
Face `tokenizers` and transformers' `AutoTokenizer` encoding that text themselves."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest

import tokenizers_core as tc
from tokenizers_core import formats
from tokenizers_core.fingerprints import PROBES
from tokenizers_core.formats import gguf_chkhsh
from tokenizers_core.formats.bundled_models import DATA_DIR
from tokenizers_core.formats.content_hash import folder_manifest

# (bundled name, the chkhsh llama.cpp's converter lists, the name it writes for it)
KNOWN = [
    ("r50k_base", "3ce83efda5659b07b1ad37ca97ca5797ea4285d9b9ab0dc679e4a720c9da7454", "gpt-2"),
    ("cl100k_base", "a8594e3edff7c29c003940395316294b2c623e09894deebbc65f33f1515df79e", "dbrx"),
    ("o200k_base", "ccc2ef013c104be7bae2965776d611e1d7a8a2a9c547dd93a682c9a9fc80352e", "gpt-4o"),
    ("qwen3", "e636dc30a262dcc0d8c323492e32ae2b70728f4df7dfe9737d9f920a282b8aea", "qwen2"),
]
LLAMA3_CHKHSH = "0ef9807a4087ebef797fc749390439009c3b9eda9ad1a097abbe738f486c01e5"
LLAMA4_CHKHSH = "d353350c764d8c3b39c763113960e4fb4919bea5fbf208a0e3b22e8469dc7406"


def theirs_chkhsh(ids: list[int]) -> str:
    """The converter's own line: sha256 of `str(chktok)`."""
    return hashlib.sha256(str(ids).encode()).hexdigest()


# ---- llama.cpp's chkhsh ------------------------------------------------------------------------
@pytest.mark.parametrize("name, chkhsh, pre", KNOWN, ids=[k[0] for k in KNOWN])
def test_the_chkhsh_is_the_one_llama_cpp_lists_for_the_model(name, chkhsh, pre):
    fp = tc.fingerprint(name)
    assert (fp.chkhsh, fp.llama_cpp_pre) == (chkhsh, pre)


def test_the_probe_text_encoded_by_hugging_face_gives_the_same_hash():
    from tokenizers import Tokenizer

    with gzip.open(DATA_DIR / "qwen3_tokenizer.json.gz", "rb") as fh:
        theirs = Tokenizer.from_str(fh.read().decode())
    assert tc.fingerprint("qwen3").chkhsh == theirs_chkhsh(theirs.encode(gguf_chkhsh.CHKTXT).ids)


@pytest.mark.heavy
def test_llama_3_is_llama_bpe_with_its_bos_as_auto_tokenizer_adds_it(shared_data, tmp_path):
    transformers = pytest.importorskip("transformers")
    path = shared_data.INTEROP / "converted" / "llama3.tokenizer.json"
    fp = tc.fingerprint(str(path))
    assert (fp.chkhsh, fp.llama_cpp_pre) == (LLAMA3_CHKHSH, "llama-bpe")
    (tmp_path / "tokenizer.json").write_bytes(path.read_bytes())
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    ids = auto.encode(gguf_chkhsh.CHKTXT)
    assert ids[0] == 128000  # <|begin_of_text|>: the BOS is part of the hash
    assert theirs_chkhsh(ids) == LLAMA3_CHKHSH


def test_llama_4_is_llama4(shared_data):
    fp = tc.fingerprint(str(shared_data.INTEROP / "converted" / "llama4.tokenizer.json"))
    assert (fp.chkhsh, fp.llama_cpp_pre) == (LLAMA4_CHKHSH, "llama4")


def test_a_hash_llama_cpp_does_not_know_has_no_name():
    tok = tc.train("byte_bpe", ["a tiny corpus of a few words"] * 5, vocab_size=270)
    fp = tc.fingerprint(tok)
    assert fp.llama_cpp_pre is None and fp.to_dict()["llama_cpp_pre"] is None


def test_a_hash_listed_twice_keeps_the_later_name_as_the_converter_does():
    bert = "0876d13b50744004aa9aeae05e7b0647eac9d801b5ba4668afc01e709c15e19f"
    assert [n for h, n in gguf_chkhsh._TABLE if h == bert] == ["bert-bge", "jina-v2-en"]
    assert gguf_chkhsh.llama_cpp_pre(bert) == "jina-v2-en"


# ---- the behaviour hash ------------------------------------------------------------------------
@pytest.mark.parametrize("fmt, ext", [("hf_json", "json"), ("gguf", "gguf")])
def test_the_same_behaviour_in_another_format_gives_the_same_behaviour_hash(tmp_path, fmt, ext):
    """r50k as tiktoken's ranks, as a tokenizer.json and as llama.cpp's GGUF: the same ids on
    every probe, so one behaviour hash. A bundled tokenizer's sha256 is its tokenizer.json form's,
    so the export to tokenizer.json has that sha256 too, and the GGUF another."""
    ranks = tc.fingerprint("r50k_base")
    path = tmp_path / f"r50k.{ext}"
    formats.save(tc.load("r50k_base"), str(path), fmt)
    other = tc.fingerprint(str(path))
    assert (other.behaviour, other.chkhsh) == (ranks.behaviour, ranks.chkhsh)
    assert (other.sha256 == ranks.sha256) == (fmt == "hf_json")


@pytest.mark.heavy
def test_llama_3_as_tokenizer_json_and_as_gguf_behave_alike(shared_data, tmp_path):
    path = shared_data.INTEROP / "converted" / "llama3.tokenizer.json"
    gguf = tmp_path / "llama3.gguf"
    formats.save(tc.load(str(path)), str(gguf), "gguf")
    assert tc.fingerprint(str(gguf)).behaviour == tc.fingerprint(str(path)).behaviour


def test_a_conversion_that_changes_behaviour_changes_the_hash(tmp_path):
    """llama.cpp does not NFC-normalise as Qwen3's tokenizer.json does: its GGUF splits
    'e' + U+0301 apart, and the behaviour hash says they differ."""
    gguf = tmp_path / "qwen3.gguf"
    formats.save(tc.load("qwen3"), str(gguf), "gguf")
    assert tc.fingerprint(str(gguf)).behaviour != tc.fingerprint("qwen3").behaviour


def test_one_id_changed_on_one_probe_changes_the_behaviour_hash():
    doc = tc.load("bert-base-uncased").to_hf_json()
    before = tc.fingerprint(tc.load(json.dumps(doc).encode())).behaviour
    vocab = doc["model"]["vocab"]
    vocab["quick"], vocab["brown"] = vocab["brown"], vocab["quick"]  # in one probe
    assert tc.fingerprint(tc.load(json.dumps(doc).encode())).behaviour != before


def test_the_probes_include_typed_special_tokens_both_ways():
    """Read as text by every tokenizer, then as special tokens: a tiktoken file (which refuses
    them by default) and its tokenizer.json (which matches them) are compared alike."""
    assert any("<|endoftext|>" in p for p in PROBES)
    assert tc.fingerprint("cl100k_base").behaviour  # no refusal raised


def test_rule_tokenizers_have_a_fingerprint_too():
    fp = tc.fingerprint("char")
    assert len(fp.sha256) == len(fp.behaviour) == 64


# ---- the content hash --------------------------------------------------------------------------
def test_a_file_s_sha256_is_its_bytes_whether_given_by_path_bytes_or_loaded(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(json.dumps(tc.load("bert-base-uncased").to_hf_json()).encode())
    want = hashlib.sha256(path.read_bytes()).hexdigest()
    assert tc.fingerprint(str(path)).sha256 == want
    assert tc.fingerprint(path.read_bytes()).sha256 == want
    assert tc.fingerprint(tc.load(str(path))).sha256 == want


@pytest.mark.heavy
def test_a_folder_s_sha256_covers_its_tokenizer_files_not_its_weights(tmp_path):
    (tmp_path / "tokenizer.json").write_bytes(json.dumps(tc.load("qwen3").to_hf_json()).encode())
    (tmp_path / "tokenizer_config.json").write_text('{"eos_token": "<|im_end|>"}')
    before = tc.fingerprint(str(tmp_path)).sha256
    (tmp_path / "model.safetensors").write_bytes(b"\0" * 1000)
    assert tc.fingerprint(str(tmp_path)).sha256 == before
    assert "model.safetensors" not in folder_manifest(str(tmp_path))
    (tmp_path / "tokenizer_config.json").write_text('{"eos_token": "<|endoftext|>"}')
    assert tc.fingerprint(str(tmp_path)).sha256 != before


def test_a_gguf_is_hashed_whole_when_asked(tmp_path):
    gguf = tmp_path / "r50k.gguf"
    formats.save(tc.load("r50k_base"), str(gguf), "gguf")
    want = hashlib.sha256(gguf.read_bytes()).hexdigest()
    assert tc.fingerprint(tc.load(str(gguf))).sha256 == want


def test_the_json_has_the_four_keys():
    assert list(tc.fingerprint("gpt2").to_dict()) == [
        "sha256",
        "behaviour",
        "chkhsh",
        "llama_cpp_pre",
    ]
