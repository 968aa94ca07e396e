"""Writing a tokenizer's GGUF metadata (`formats/gguf_writer.py`): the file is what the `gguf`
package (llama.cpp's own Python reader and writer) reads and writes; read back as llama.cpp
builds it, it tokenises as the source wherever `changes` (and `exactness`) says it does, and
where it says it does not, the first divergences are at the stage its sentences name."""

from __future__ import annotations

import functools
import json
import os

import pytest

import tokenizers_core as tc
from tests.gguf_files import INTEROP, botchan_sample, byte_level_kv, one_megabyte, write
from tokenizers_core.corpora import load_corpus
from tokenizers_core.diff import diff, stress_texts
from tokenizers_core.formats import gguf_writer, load_bytes, sniff
from tokenizers_core.formats.exactness import exactness
from tokenizers_core.formats.gguf_types import EOG_TEXTS
from tokenizers_core.formats.gguf_wpm import WpmNormalizer, WpmPreTokenizer
from tokenizers_core.models.sentencepiece_common import CONTROL, UNKNOWN, USER_DEFINED
from tokenizers_core.normalizers import BertNormalizer
from tokenizers_core.pre_tokenizers import BertPreTokenizer

gguf = pytest.importorskip("gguf")


TYPED = (CONTROL, UNKNOWN, USER_DEFINED)


def special_strings(tok: tc.Tokenizer) -> list[str]:
    """The strings a GGUF reader may take for special tokens: the added special tokens, the
    model's named special tokens and, in a sentencepiece model, every piece typed control,
    unknown or user-defined."""
    model = tok.model
    out = [a.content for a in tok.added_tokens if a.special]
    out += list(getattr(model, "special_tokens", None) or {})
    types = getattr(model, "types", None)
    if isinstance(types, list):
        out += [tok.id_to_token(i) for i, t in enumerate(types) if t in TYPED]
    return [s for s in out if s]


def explained(tok: tc.Tokenizer, sentences: tuple[str, ...], text: str) -> bool:
    """Whether one of the claimed changes can explain a text tokenised differently: a special
    token's string in it, a normaliser that changes it, spaces a normaliser would collapse; a
    pre-tokenizer or merge-order claim explains any text."""

    def says(words: str) -> bool:
        return any(words in s for s in sentences)

    specials = special_strings(tok)
    return (
        says("pre-tokenizer")
        or says("merges by rank")
        or says("whole piece up")
        or (says("Special-token strings") and any(s in text for s in specials))
        or (says("by their text") and any(t in text for t in EOG_TEXTS))
        or (says("normaliser") and tok.normalizer.normalize_str(text) != text)
        or (says("Runs of spaces") and ("  " in text or text != text.strip()))
        or (says("pre-processes the text its own way") and wpm_differs(text))
    )


def wpm_differs(text: str) -> bool:
    """Whether llama.cpp's WPM pre-processing cuts `text` into other words than BERT's, or
    finds a word over BERT's 100 characters (llama.cpp has no such limit)."""
    bert = BertPreTokenizer().pre_tokenize_str(BertNormalizer().normalize_str(text))
    wpm = WpmPreTokenizer().pre_tokenize_str(WpmNormalizer().normalize_str(text))
    return [p for p, _ in bert] != [p for p, _ in wpm] or any(len(p) > 100 for p, _ in wpm)


WRITABLE = [
    "r50k_base",
    "cl100k_base",
    "qwen3",
    "whisper_en",
    "claude_2023",
    "mistral_tekken",
    "mistral_v1",
    "mistral_v3",
    "mistral_v7",
    "botchan_en_unigram_1000",
    "botchan_en_bpe_1000",
    "bert-base-uncased",
]


def interop_texts() -> list[str]:
    if not INTEROP:
        return []
    with open(os.path.join(INTEROP, "texts.txt"), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@functools.lru_cache(maxsize=None)
def written(name: str) -> tuple[bytes, tc.Tokenizer]:
    """A bundled tokenizer's GGUF bytes and what they load back as (each built once, by the
    test process that needs it)."""
    data = gguf_writer.dump_bytes(tc.load(name))
    return data, load_bytes(data, name=f"{name}.gguf")


def read_with_gguf(path) -> tuple[dict, int]:
    """The file's fields as the gguf package reads them: scalars and strings as values, arrays
    by their length (turning 100k strings into Python is the slow part), and the tensors."""
    reader = gguf.GGUFReader(str(path))
    fields = {
        name: (f.contents() if len(f.data) == 1 else len(f.data))
        for name, f in reader.fields.items()
    }
    return fields, len(reader.tensors)


@pytest.mark.heavy
@pytest.mark.parametrize("name", ["mistral_v1", "botchan_en_unigram_1000", "bert-base-uncased"])
def test_the_gguf_package_reads_what_we_write(tmp_path, name):
    data, back = written(name)
    assert sniff(data) == "gguf"
    (tmp_path / "t.gguf").write_bytes(data)
    fields, tensors = read_with_gguf(tmp_path / "t.gguf")
    assert tensors == 0
    assert fields["general.architecture"] == "llama"
    assert fields["tokenizer.ggml.model"] == back.gguf["model"]
    assert fields["tokenizer.ggml.tokens"] == fields["tokenizer.ggml.token_type"] == back.vocab_size


def test_our_file_holds_what_llama_cpps_writer_writes_for_gpt2(tmp_path):
    """The keys the gguf package's GGUFWriter writes for a byte-level BPE (as
    tests/gguf_files.py writes a converted GPT-2) are the keys and values we write."""
    tok = tc.train("byte_bpe", load_corpus("botchan").splitlines()[:400], 600)
    data = tok.to_hf_json()
    specials = {a["content"]: a["id"] for a in data["added_tokens"]}
    merges = [
        tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in data["model"]["merges"]
    ]
    kv = byte_level_kv(data["model"]["vocab"], merges, specials, gguf_writer.pre_match(tok).name)
    kv["add_add_bos_token"] = kv["add_add_eos_token"] = False
    theirs = gguf.GGUFReader(write(str(tmp_path / "theirs.gguf"), kv)).fields
    (tmp_path / "ours.gguf").write_bytes(gguf_writer.dump_bytes(tok))
    ours = gguf.GGUFReader(str(tmp_path / "ours.gguf")).fields
    for key in (
        "tokenizer.ggml.model",
        "tokenizer.ggml.pre",
        "tokenizer.ggml.tokens",
        "tokenizer.ggml.token_type",
        "tokenizer.ggml.merges",
        "tokenizer.ggml.add_bos_token",
        "tokenizer.ggml.add_eos_token",
    ):
        assert ours[key].contents() == theirs[key].contents(), key
        assert ours[key].types == theirs[key].types, key


@pytest.mark.heavy
@pytest.mark.parametrize("name", WRITABLE)
def test_every_claim_holds_on_real_text(name):
    """No change claimed: identical on the stress set and the interop texts. Changes claimed:
    one of them explains every text tokenised differently."""
    tok = tc.load(name)
    said = exactness(tok, "gguf")
    assert said.refused is None
    report = diff(tok, written(name)[1], stress_texts() + interop_texts())
    if said.exact:
        assert report.identical == report.texts, report.by_stage
    for d in report.differences:
        assert explained(tok, said.changes, d.text), (d.text, d.stage, said.changes)


def test_the_right_pre_tokenizer_names_are_found():
    assert gguf_writer.pre_match(tc.load("cl100k_base")).name == "llama-bpe"
    assert gguf_writer.pre_match(tc.load("qwen3")).name == "qwen2"
    assert gguf_writer.pre_match(tc.load("r50k_base")).name == "gpt-2"
    # llama.cpp reads "<s>" typed in the text as the control token; sentencepiece as text
    said = exactness(tc.load("mistral_v1"), "gguf")
    assert not said.exact and any("Special-token strings" in s for s in said.changes)


@pytest.mark.heavy
def test_a_named_default_pre_tokenizer_parts_at_the_split():
    """The issue's bar without ../shared: the bundled Qwen3 written as a GGUF is identical to
    its source on 1 MB of text, and with llama.cpp's `default` pre-tokenizer it first parts at
    the split, where the changes said it would."""
    tok = tc.load("qwen3")
    same = diff(tok, load_bytes(gguf_writer.dump_bytes(tok)), one_megabyte())
    assert same.identical == same.texts > 4_000
    texts = botchan_sample()
    wrong = load_bytes(gguf_writer.dump_bytes(tok, pre="default"))
    assert wrong.warnings and "'default'" in wrong.warnings[0]
    report = diff(tok, wrong, texts)
    assert 0.5 < report.share_identical < 0.95
    assert report.by_stage == {"pre-tokenizer split": len(report.differences)}
    assert any("'default', as asked" in c for c in gguf_writer.changes(tok, pre="default"))


@pytest.mark.parametrize(
    "name,pre,message",
    [
        ("clip", None, "end_of_word_suffix"),
        ("word", None, "no GGUF form: 'word' has no tokenizer.json form"),
        ("qwen3", "no-such", "no pre-tokenizer 'no-such'"),
    ],
)
def test_what_cannot_be_written_says_why(name, pre, message):
    with pytest.raises(ValueError, match=message):
        gguf_writer.dump_bytes(tc.load(name), pre=pre)
