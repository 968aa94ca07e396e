"""`tc.parity`: one tokenizer as each runtime reads it, each column checked against the runtime's
own library where it installs here: Hugging Face `tokenizers` for `tokenizers`, transformers'
`AutoTokenizer` (offline, from a folder) for `transformers`, tiktoken (built from the bundled
ranks) for `tiktoken`. llama.cpp's rules are checked by its own vocab tests
(test_llama_cpp_vocabs.py); here its column is the GGUF conversion read back."""

from __future__ import annotations

import gzip
import json

import pytest

import tokenizers_core as tc
from tests.oracles import tiktoken_encoding
from tokenizers_core.formats import gguf_writer
from tokenizers_core.formats.bundled_models import DATA_DIR
from tokenizers_core.runtime_parity import RUNTIMES, clean_up_tokenization, read_runtimes

TEXTS = [
    "Hello world, 12345 don't WE'LL",
    ".\n",
    "  two  spaces\t\ttabs\n\nnew lines",
    "Straße İstanbul naïve café",
    "日本語のテキスト。中文 한국어",
    "emoji 🙂 👍🏽 👨‍👩‍👧",
    "مرحبا بالعالم שלום עולם",
]


def hf_tokenizer(data: bytes):
    from tokenizers import Tokenizer

    return Tokenizer.from_str(data.decode())


# ---- Qwen3: tokenizers' NFC against llama.cpp's none ------------------------------------------
@pytest.mark.heavy
def test_qwen3_tokenizers_and_llama_cpp_part_on_a_combining_accent():
    """Qwen3's tokenizer.json normalises to NFC: "e" + U+0301 is one token, "é" (963). Its GGUF
    (pre "qwen2") has no normaliser, as llama.cpp runs none: "e", then the accent's bytes."""
    report = tc.parity("qwen3", ["Hello world", "e\u0301"])
    assert report.runtimes == ("tokenizers", "transformers", "llama.cpp")
    same, accent = report.rows
    assert same.same and not accent.same
    theirs = hf_tokenizer(gzip.decompress((DATA_DIR / "qwen3_tokenizer.json.gz").read_bytes()))
    assert accent.ids["tokenizers"] == theirs.encode("e\u0301").ids == [963]
    assert accent.ids["transformers"] == [963]
    theirs.normalizer = None  # what llama.cpp runs: the same pre-tokenizer and BPE, no NFC
    assert accent.ids["llama.cpp"] == theirs.encode("e\u0301").ids == [68, 53839]
    first = report.first_mismatch
    assert (first.index, first.runtimes, first.rule) == (
        1,
        ("tokenizers", "llama.cpp"),
        "normaliser",
    )
    assert first.position == 0
    assert first.a == [{"id": 963, "token": "Ã©"}]
    assert [t["id"] for t in first.b] == [68, 53839]
    assert "NFC" in first.explanation and "\\xe9" in first.explanation
    assert report.skipped == {
        "mistral-common": "not a Tekken file",
        "tiktoken": "not a tiktoken ranks file",
    }


# ---- the OpenAI encodings: tiktoken == tokenizers (the export) == llama.cpp ---------------
@pytest.mark.heavy
@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base"])
def test_an_openai_encoding_agrees_in_every_runtime(name):
    report = tc.parity(name, TEXTS)
    assert report.runtimes == ("tiktoken", "tokenizers", "llama.cpp")
    assert report.ok and report.first_mismatch is None
    enc = tiktoken_encoding(name)
    from tokenizers_core.formats import hf_json_writer

    theirs = hf_tokenizer(hf_json_writer.dump_bytes(tc.load(name)))
    for row in report.rows:
        assert row.ids["tiktoken"] == enc.encode(row.text), row.text
        assert row.ids["tokenizers"] == theirs.encode(row.text).ids, row.text
        assert all(row.round_trip.values()), row.text
    assert "transformers" in report.skipped


@pytest.mark.heavy
def test_tiktoken_refuses_a_typed_special_token_unless_the_switch_says():
    """tiktoken's encode refuses "<|endoftext|>" typed in the text, where tokenizers and
    llama.cpp match it: a mismatch by default; with `special` set, all read it alike."""
    text = "<|endoftext|> after"
    with pytest.raises(ValueError):
        tiktoken_encoding("r50k_base").encode(text)
    report = tc.parity("r50k_base", [text])
    first = report.first_mismatch
    assert first.rule == "refused" and first.runtimes == ("tiktoken", "tokenizers")
    assert report.rows[0].ids["tiktoken"] is None and "special" in first.explanation
    on, off = (
        tc.parity("r50k_base", [text], special=True),
        tc.parity("r50k_base", [text], special=False),
    )
    assert on.ok and on.rows[0].ids["tiktoken"] == tiktoken_encoding("r50k_base").encode(
        text, allowed_special="all"
    )
    assert off.ok and off.rows[0].ids["tiktoken"] == tiktoken_encoding("r50k_base").encode_ordinary(
        text
    )


# ---- a model folder whose class transformers rebuilds ------------------------------------------
@pytest.fixture(scope="module")
def small_file() -> bytes:
    """A small cl100k-style tokenizer.json: byte-level BPE trained with cl100k's pattern, on
    lines that end sentences with ".\\n" (a piece of cl100k's regex, so a merge)."""
    from tokenizers_core.corpora import load_corpus

    lines = [line + ".\nNext.\n" for line in load_corpus("udhr/all").splitlines()[::5]]
    return json.dumps(
        tc.train("byte_bpe", lines, vocab_size=600, pattern="cl100k").to_hf_json()
    ).encode()


def folder(root, data: bytes, config: dict | None = None):
    (root / "tokenizer.json").write_bytes(data)
    if config is not None:
        (root / "tokenizer_config.json").write_text(json.dumps(config))
    return root


@pytest.mark.heavy
def test_a_class_rebuild_makes_transformers_differ_from_tokenizers(tmp_path, small_file):
    """tokenizer_config.json names GPT2Tokenizer: transformers 5 rebuilds the file with GPT-2's
    regex, which cuts ".\\n" in two where the file's cl100k regex keeps it one piece."""
    transformers = pytest.importorskip("transformers")
    path = folder(tmp_path, small_file, {"tokenizer_class": "GPT2Tokenizer"})
    report = tc.parity(str(path), TEXTS)
    assert report.runtimes[:2] == ("transformers", "tokenizers")  # a folder's own: transformers
    auto = transformers.AutoTokenizer.from_pretrained(str(path))
    theirs = hf_tokenizer(small_file)
    for row in report.rows:
        assert row.ids["transformers"] == auto(row.text)["input_ids"], row.text
        assert row.ids["tokenizers"] == theirs.encode(row.text).ids, row.text
    first = report.first_mismatch
    assert first.index == 1 and first.runtimes == ("transformers", "tokenizers")
    assert first.rule == "pre-tokenizer split"
    assert "GPT2Tokenizer" in report.how["transformers"]


@pytest.mark.heavy
def test_a_lone_tokenizer_json_reads_the_same_in_tokenizers_and_transformers(tmp_path, small_file):
    path = folder(tmp_path, small_file) / "tokenizer.json"
    report = tc.parity(str(path), TEXTS)
    assert report.runtimes == ("tokenizers", "transformers", "llama.cpp")
    assert all(row.ids["tokenizers"] == row.ids["transformers"] for row in report.rows)
    assert tc.parity(small_file, TEXTS[:2]).to_dict()["rows"] == report.to_dict()["rows"][:2]


# ---- the other inputs ---------------------------------------------------------------------------
def test_a_gguf_is_llama_cpps_alone(tmp_path):
    path = tmp_path / "bert.gguf"
    path.write_bytes(gguf_writer.dump_bytes(tc.load("bert-base-uncased")))
    report = tc.parity(str(path), ["Hello world"])
    assert report.runtimes == ("llama.cpp",) and report.ok
    assert set(report.skipped) == set(RUNTIMES) - {"llama.cpp"}
    assert "GGUF" in report.skipped["transformers"]


def test_tekken_is_read_by_mistral_common_first():
    readings = read_runtimes("mistral_tekken")
    assert list(readings.tokenizers) == ["mistral-common", "tokenizers", "llama.cpp"]
    assert "transformers" in readings.skipped


def test_mistral_common_itself_where_it_installs(tmp_path):
    mistral = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    path = tmp_path / "tekken.json"
    path.write_bytes(gzip.decompress((DATA_DIR / "mistral_tekken_240718.json.gz").read_bytes()))
    theirs = mistral.Tekkenizer.from_file(str(path))
    report = tc.parity(str(path), TEXTS)
    for row in report.rows:
        assert row.ids["mistral-common"] == theirs.encode(row.text, bos=False, eos=False)


def test_what_no_runtime_reads_says_why():
    with pytest.raises(ValueError, match="no runtime reads char.*tokenizers: char has no"):
        tc.parity("char", ["x"])
    with pytest.raises(ValueError, match="list of strings"):
        tc.parity("bert-base-uncased", "one text")
    with pytest.raises(ValueError, match="unknown tokeniser"):
        tc.parity("no-such-tokenizer", ["x"])


def test_the_report_is_the_contracts_json():
    report = tc.parity("bert-base-uncased", ["Hello, world!", "naïve"])
    data = json.loads(json.dumps(report.to_dict()))
    assert {"runtimes", "rows", "first_mismatch", "skipped"} <= set(data)
    assert data["runtimes"] == ["tokenizers", "transformers", "llama.cpp"]
    assert data["first_mismatch"] is None
    row = data["rows"][0]
    assert set(row["ids"]) == set(data["runtimes"]) and row["same"] is True
    assert row["ids"]["tokenizers"][0] == 101  # [CLS]


def test_transformers_cleans_up_spaces_on_decode_as_its_config_says(tmp_path):
    """A WordPiece tokenizer.json whose decoder leaves the spaces before punctuation, in a
    folder whose config says clean_up_tokenization_spaces: transformers' decode takes them out,
    so its round trip holds where tokenizers' does not."""
    data = tc.load("bert-base-uncased").to_hf_json()
    data["decoder"]["cleanup"] = False
    raw = json.dumps(data).encode()
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "clean_up_tokenization_spaces": True}
    report = tc.parity(str(folder(tmp_path, raw, config)), ["hello, world!"])
    row = report.rows[0]
    assert row.decoded["transformers"] == "hello, world!"
    assert row.decoded["tokenizers"] == "hello , world !"
    assert row.round_trip["transformers"] and not row.round_trip["tokenizers"]
    assert hf_tokenizer(raw).decode(row.ids["tokenizers"]) == "hello , world !"
    transformers = pytest.importorskip("transformers")
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    assert auto.decode(row.ids["transformers"], skip_special_tokens=True) == "hello, world!"


def test_clean_up_is_transformers_own():
    transformers = pytest.importorskip("transformers")
    text = "it 's a test , is n't it ? yes ! i 'm sure . we 've ' quoted ' they 're"
    theirs = transformers.PreTrainedTokenizerBase.clean_up_tokenization(None, text)
    assert clean_up_tokenization(text) == theirs
