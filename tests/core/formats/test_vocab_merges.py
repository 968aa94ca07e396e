"""BPE's vocab.json + merges.txt, read: files Hugging Face wrote (byte-level as GPT-2 and
RoBERTa ship them, GPT-1 style with "</w>") load as its ByteLevelBPETokenizer / CharBPETokenizer
build them and encode exactly as they do, ids, tokens, offsets and decoding; a folder, a .zip and
OpenAI's encoder.json + vocab.bpe names load alike; our textbook `bpe` saved this way loads back
as it was; bad and hostile files get a ValueError that says what is wrong."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import sniff
from tokenizers_core.formats.vocab_merges import kind_of, parse_merges, read_zip

implementations = pytest.importorskip("tokenizers.implementations")

TRAIN = [load_corpus(f"udhr/{c}") for c in ("eng", "fra", "deu_1996", "rus", "ell_monotonic")]
TEXTS = (
    load_corpus("botchan").splitlines()[:300]
    + [load_corpus(f"udhr/{c}")[:1500] for c in ("eng", "fra", "rus", "jpn", "hin", "arb")]
    + ["  Hello  World ①ﬁ", "東京 👍", "naïve\tcafé\n", "", " ", "don't  stop\n\n"]
)


def _zip(files: dict[str, bytes], folder: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(folder + name, data)
    return out.getvalue()


@pytest.fixture(scope="module")
def hf_files(tmp_path_factory):
    """vocab.json + merges.txt as Hugging Face writes them, for both kinds."""
    out = {}
    for kind, cls in (
        ("byte_level", implementations.ByteLevelBPETokenizer),
        ("char", implementations.CharBPETokenizer),
    ):
        trainer = cls()
        trainer.train_from_iterator(
            TRAIN,
            vocab_size=900,
            min_frequency=2,
            **({"special_tokens": ["<unk>"]} if kind == "char" else {}),
        )
        folder = tmp_path_factory.mktemp(kind)
        trainer.save_model(str(folder))
        out[kind] = folder
    return out


def _same(ours, theirs, texts=TEXTS):
    for text in texts:
        mine, hers = ours.encode(text), theirs.encode(text)
        assert mine.ids == hers.ids, text
        assert mine.tokens == hers.tokens, text
        assert mine.offsets == [tuple(o) for o in hers.offsets], text
        for skip in (False, True):
            assert ours.decode(mine.ids, skip_special_tokens=skip) == theirs.decode(
                hers.ids, skip_special_tokens=skip
            ), text


@pytest.mark.parametrize("kind", ["byte_level", "char"])
def test_hugging_face_files_encode_as_its_implementation_classes(hf_files, kind):
    folder = hf_files[kind]
    cls = {
        "byte_level": implementations.ByteLevelBPETokenizer,
        "char": implementations.CharBPETokenizer,
    }[kind]
    theirs = cls(str(folder / "vocab.json"), str(folder / "merges.txt"))
    ours = tc.load(str(folder))  # the folder
    _same(ours, theirs)
    files = {n: (folder / n).read_bytes() for n in ("vocab.json", "merges.txt")}
    zipped = tc.load(_zip(files, folder="gpt2/"))  # a zip, files in a folder
    assert sniff(_zip(files)) == "vocab_merges"
    _same(zipped, theirs, TEXTS[-20:])
    openai_names = tc.load(
        _zip(
            {
                "encoder.json": files["vocab.json"],  # OpenAI's file names
                "vocab.bpe": files["merges.txt"],
            }
        )
    )
    _same(openai_names, theirs, TEXTS[-20:])
    assert kind_of(json.loads(files["vocab.json"]), parse_merges(files["merges.txt"])) == kind


@pytest.mark.heavy
@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from("ab é東\n\t 'sdé\u0301①.,!?-")
        | st.characters(blacklist_categories=("Cs",)),
        max_size=40,
    )
)
def test_byte_level_files_on_any_text(hf_files, text):
    folder = hf_files["byte_level"]
    theirs = implementations.ByteLevelBPETokenizer(
        str(folder / "vocab.json"), str(folder / "merges.txt")
    )
    _same(tc.load(str(folder)), theirs, [text])


@pytest.mark.parametrize(
    "lines, vocab_size",
    [(TRAIN, 500), (["low lower newest widest"], 13), (["low lower newest widest"], 30)],
)
def test_our_textbook_bpe_loads_back_as_it_was(tmp_path, lines, vocab_size):
    """Even a run too short to merge anything into "</w>" (vocab 13: one merge, e + s)."""
    tok = tc.train("bpe", lines, vocab_size=vocab_size)
    assert tok.save(str(tmp_path / "files"), format="vocab_merges") == "vocab_merges"
    assert tok.save(str(tmp_path / "tok.zip")) == "vocab_merges"
    for again in (tc.load(str(tmp_path / "files")), tc.load(str(tmp_path / "tok.zip"))):
        assert again.algorithm == "bpe"
        for text in TEXTS[::7] + ["lowest newer"]:
            assert again.encode(text).ids == tok.encode(text).ids, text
            assert again.encode(text).offsets == tok.encode(text).offsets, text


@pytest.mark.parametrize(
    "files, message",
    [
        ({"vocab.json": b"[1, 2]", "merges.txt": b""}, "JSON object of token -> id"),
        ({"vocab.json": b'{"a": 0, "b": 0}', "merges.txt": b""}, "share an id"),
        ({"vocab.json": b'{"a": -1}', "merges.txt": b""}, "whole number"),
        (
            {"vocab.json": b'{"a": 0, "b": 1}', "merges.txt": b"#version: 0.2\na b c\n"},
            "line 2: expected two symbols",
        ),
        ({"vocab.json": b'{"a": 0, "b": 1}', "merges.txt": b"a q\n"}, "lacks: 'a q'"),
        ({"vocab.json": b'{"a": 0, "b": 1}', "merges.txt": b"\xff\n"}, "not UTF-8"),
        (
            {"vocab.json": '{"ab": 0, "\u2581x": 1}'.encode(), "merges.txt": b""},
            "neither byte-level",
        ),
        ({"tokenizer.json": b"{}"}, 'tokenizer.json has no "model"'),  # a model folder
    ],
)
def test_bad_files_say_what_is_wrong(files, message):
    with pytest.raises(ValueError, match=message):
        tc.load(_zip(files))


def test_a_zip_bomb_stops_at_the_cap():
    bomb = _zip({"vocab.json": b'{"a": 0}' + b" " * 50_000_000, "merges.txt": b""})
    assert len(bomb) < 200_000
    with pytest.raises(ValueError, match="more than 1,000,000 bytes"):
        read_zip(bomb, limit=1_000_000)
    with pytest.raises(ValueError, match="cannot be read"):
        tc.load(b"PK\x03\x04 not really a zip")


def test_a_folder_without_the_files_says_so(tmp_path):
    with pytest.raises(ValueError, match="holds no tokenizer.json, nor vocab.json"):
        tc.load(str(tmp_path))
