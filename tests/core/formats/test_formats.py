"""`tc.load` for files and bytes: the format sniffed from the content, gzip, bad files, vocab.txt
cased or not (against Hugging Face's BertWordPieceTokenizer), and every tokenizer pickles."""

from __future__ import annotations

import gzip
import json
import pickle
import re
from pathlib import Path

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import MAX_FILE_BYTES, gunzip, sniff
from tokenizers_core.formats.sentencepiece_model import _DATA
from tokenizers_core.implementations.bert import VOCAB_PATH
from tokenizers_core.pretrained import bundled

TEXT = "Hello, World! Tokyo 東京 naïve café 👍 <unk> [CLS]"


def _model_bytes() -> bytes:
    return gzip.decompress((Path(_DATA) / "botchan_en_unigram_1000.model.gz").read_bytes())


def test_the_format_comes_from_the_content_not_the_name(tmp_path):
    spm = _model_bytes()
    assert sniff(spm) == "sentencepiece"
    odd = tmp_path / "tokenizer.model.v3"  # as Mistral names its files
    odd.write_bytes(spm)
    assert tc.load(str(odd)).encode(TEXT).ids == tc.load("botchan_en_unigram_1000").encode(TEXT).ids
    vocab = gzip.decompress(VOCAB_PATH.read_bytes())
    assert sniff(vocab) == "vocab_txt"
    named_json = tmp_path / "vocab.json"  # a vocab.txt whatever its name
    named_json.write_bytes(vocab)
    assert (
        tc.load(str(named_json)).encode(TEXT).ids == tc.load("bert-base-uncased").encode(TEXT).ids
    )
    assert tc.load(gzip.compress(vocab)).encode("hello").tokens == ["[CLS]", "hello", "[SEP]"]


def test_bad_sources_and_bad_files_say_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="unknown tokeniser 'no-such-thing'"):
        tc.load("no-such-thing")
    with pytest.raises(ValueError, match="not a tokenizer file we know"):
        tc.load(b"\x00\x01\x02\xff\xfe")
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        tc.load(b"[UNK]\n", format="xml")
    with pytest.raises(ValueError, match="truncated"):
        tc.load(gzip.compress(b"[UNK]\nthe\n" * 1000)[:40])
    with pytest.raises(ValueError, match="not valid gzip"):
        tc.load(b"\x1f\x8b\x08\x00garbage-garbage")
    with pytest.raises(ValueError, match="sentencepiece|protobuf|truncated|model"):
        tc.load(_model_bytes()[:5000])
    with pytest.raises(ValueError):
        tc.load(12345)  # type: ignore[arg-type]


def test_a_gzip_bomb_stops_at_the_limit():
    bomb = gzip.compress(b"\0" * (8 * 1024 * 1024), compresslevel=9)  # ~8 KB -> 8 MB
    with pytest.raises(ValueError, match="decompresses to more than"):
        gunzip(bomb, limit=1024 * 1024)
    assert len(gunzip(bomb, limit=MAX_FILE_BYTES)) == 8 * 1024 * 1024


def test_vocab_txt_casing_follows_the_vocabulary_unless_told(tmp_path):
    from tokenizers import BertWordPieceTokenizer

    words = sorted(set(re.findall(r"\w+|[^\w\s]", load_corpus("botchan")[:30_000])))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words
    vocab += sorted({"##" + w[i:] for w in words for i in range(1, min(len(w), 4))} - set(vocab))
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    cased = tc.load(str(path))
    assert cased.lowercase is False
    uncased = tc.load(str(path), lowercase=True)
    assert uncased.lowercase is True
    for tok, lower in ((cased, False), (uncased, True)):
        ref = BertWordPieceTokenizer(str(path), lowercase=lower)
        for line in load_corpus("botchan").splitlines()[:300] + [TEXT]:
            enc, want = tok.encode(line), ref.encode(line)
            assert (enc.ids, enc.offsets) == (want.ids, want.offsets), line


def _trained() -> list:
    lines = load_corpus("botchan").splitlines()[:400]
    return [tc.train(a, lines, vocab_size=300 if a != "unigram" else 200) for a in tc.algorithms()]


@pytest.mark.heavy
def test_every_tokenizer_pickles():
    toks = [tc.load(name) for name in bundled()] + _trained()
    toks.append(tc.load(_model_bytes()))
    for tok in toks:
        again = pickle.loads(pickle.dumps(tok))
        assert again.encode(TEXT).ids == tok.encode(TEXT).ids, tok.name or tok.algorithm


@pytest.mark.parametrize(
    "lines", [["low lower lowest newer wider"], ["hello world"] * 3, ["x" * 50], ["the cat"]]
)
def test_unigram_size_error_suggests_a_size_that_trains(lines):
    with pytest.raises(ValueError, match="use at most") as info:
        tc.train("unigram", lines, vocab_size=100)
    suggested = int(re.search(r"use at most (\d+)", str(info.value)).group(1))
    assert tc.train("unigram", lines, vocab_size=suggested).vocab_size == suggested


def vocab_with_a_character_across(at: int, char: str = "東") -> bytes:
    """A BERT-style vocab.txt (specials, ASCII words, then words in other scripts) padded so
    that `char` starts at byte `at`: with `at` = 4095, byte 4,096 falls inside it."""
    head = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n" + "".join(f"w{i}\n" for i in range(at // 4))
    head = head[: at - 40]
    head = head[: head.rindex("\n") + 1]
    filler = "x" * (at - len(head.encode()) - 1) + "\n"  # one ASCII token up to `at`
    tail = [char + "京", "naïve", "café", "##é", "👍", "the", "##s"] + [f"t{i}" for i in range(100)]
    data = (head + filler + "\n".join(tail) + "\n").encode()
    assert data[at:].startswith(char.encode())
    return data


@pytest.mark.parametrize(
    "at, char",
    [(4095, "東"), (4094, "東"), (4095, "é"), (4093, "👍"), (4096, "東"), (65_535, "東")],
)
def test_a_vocab_txt_is_sniffed_wherever_a_character_falls(at, char):
    """The first 4,096 bytes decide the format; cut there, a character may be cut in two,
    and the head is then not whole UTF-8. That was "not a tokenizer file we know"."""
    data = vocab_with_a_character_across(at, char)
    assert sniff(data) == "vocab_txt"
    assert sniff(data[: at + 1]) == "vocab_txt"  # the form sends a file's first 64 KB
    tok = tc.load(data)
    assert tok.model.vocab[char + "京"] == data[:at].count(b"\n")  # its line number


def test_a_head_that_is_not_utf8_before_the_cut_is_still_refused():
    """Only a character cut by the 4,096-byte head is forgiven: a bad byte before it is not."""
    data = vocab_with_a_character_across(4095).replace(b"w1\n", b"w\xff\n", 1)
    with pytest.raises(tc.InvalidInput, match="not a tokenizer file we know"):
        sniff(data)


def test_a_tokenizer_json_that_starts_with_a_utf8_bom_is_read_as_one(tmp_path):
    """Windows editors save JSON with a BOM (EF BB BF). json.loads of the bytes skips it,
    Hugging Face's Tokenizer.from_file refuses it ("expected value at line 1 column 1"); it
    was sniffed as a vocab.txt (then "no unknown token '[UNK]'"). We read it as the
    tokenizer.json it is."""
    plain = json.dumps(tc.load("bert-base-uncased").to_hf_json()).encode()
    bom = b"\xef\xbb\xbf" + plain
    assert sniff(bom) == "hf_json"
    path = tmp_path / "tokenizer.json"
    path.write_bytes(bom)
    assert tc.load(str(path)).encode(TEXT).ids == tc.load(plain).encode(TEXT).ids
    assert sniff(b"\xef\xbb\xbf" + b"  " + plain) == "hf_json"
