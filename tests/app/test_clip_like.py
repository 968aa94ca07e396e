"""A tokenizer.json laid out as CLIP's: byte-level BPE whose word-final
tokens end in `</w>`, `<|endoftext|>` both its unk_token and an added special token. Typed in
the text it is a special token, not an unknown one, for the visualiser's chips and note and
for compare alike; a token such as `¬</w>` is drawn as text, not as bytes."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from app import display
from app.roundtrip import round_trip_notes
from tokenizers_core.byte_level import bytes_to_unicode

MISSING = "~"  # a byte the small vocabulary lacks: the model's unknown token


def clip_like() -> dict:
    alphabet = [c for c in bytes_to_unicode().values() if c != MISSING]
    vocab = {t: i for i, t in enumerate(alphabet + [c + "</w>" for c in alphabet])}
    merges = [("h", "e"), ("l", "l"), ("he", "ll"), ("hell", "o</w>")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    for special in ("<|startoftext|>", "<|endoftext|>"):  # in the vocabulary, as CLIP's are
        vocab[special] = len(vocab)
    specials = [
        {
            "id": vocab[c],
            "content": c,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": True,
            "special": True,
        }
        for c in ["<|startoftext|>", "<|endoftext|>"]
    ]
    pattern = (
        r"<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"
        r"|[^\s\p{L}\p{N}]+"
    )
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": specials,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "NFC"},
                {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
                {"type": "Lowercase"},
            ],
        },
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": pattern},
                    "behavior": "Removed",
                    "invert": True,
                },
                {
                    "type": "ByteLevel",
                    "add_prefix_space": False,
                    "trim_offsets": True,
                    "use_regex": False,
                },
            ],
        },
        "post_processor": {
            "type": "RobertaProcessing",
            "sep": ["<|endoftext|>", specials[1]["id"]],
            "cls": ["<|startoftext|>", specials[0]["id"]],
            "trim_offsets": False,
            "add_prefix_space": False,
        },
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": True,
            "use_regex": True,
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<|endoftext|>",
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "</w>",
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [f"{a} {b}" for a, b in merges],
        },
    }


@pytest.fixture(scope="module")
def clip_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("clip") / "tokenizer.json"
    path.write_text(json.dumps(clip_like()), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def clip(clip_file):
    return tc.load(str(clip_file))


@pytest.fixture(scope="module")
def handle(client, clip_file):
    r = client.post("/api/tokenizers", files={"file": ("tokenizer.json", clip_file.read_bytes())})
    assert r.status_code == 201, r.text
    return r.json()["tokenizer"]


TEXT = "Hello <|endoftext|> ¬ ~"


def test_the_fixture_encodes_as_hugging_face_does(clip, clip_file):
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(clip_file))
    enc = clip.encode(TEXT)
    assert enc.tokens == ref.encode(TEXT).tokens
    assert enc.tokens == [
        "<|startoftext|>",
        "hello</w>",
        "<|endoftext|>",
        "Â",
        "¬</w>",
        "<|endoftext|>",
        "<|endoftext|>",
    ]


def test_typed_unk_token_is_special_and_only_the_real_unknown_is_marked(clip):
    chips = display.chips(clip, TEXT, clip.encode(TEXT))
    typed = chips[2]
    assert (typed.text, typed.special, typed.mark) == ("<|endoftext|>", True, "")
    assert [(c.text, c.mark) for c in chips if c.mark] == [("~", "unk")]


def test_the_end_of_word_suffix_is_text_not_bytes(clip):
    chips = display.chips(clip, TEXT, clip.encode(TEXT))
    assert [(c.text, c.raw, c.partial) for c in chips[3:5]] == [
        ("<C2>", "Â", True),
        ("¬", "¬</w>", False),
    ]
    assert chips[1].text == "hello" and chips[1].raw == "hello</w>"


def test_the_note_counts_one_unknown(clip):
    enc = clip.encode(TEXT)
    said = round_trip_notes(clip, TEXT, enc, clip.decode(enc.ids))
    assert any(n.startswith("1 unknown token (<|endoftext|>) stood for “~”") for n in said), said


def test_compare_and_the_visualiser_count_the_same_unknowns(client, handle):
    r = client.get("/api/compare", params={"text": TEXT, "col": [handle, "gpt2"]})
    assert r.status_code == 200, r.text
    assert r.json()[0]["metrics"]["unk"] == 1
    page = client.get("/", params={"text": TEXT, "tokenizer": handle}).text
    assert page.count('class="mark">UNK<') == 1
    assert "1 unknown token" in page


def test_the_vocabulary_browser_keeps_the_suffix_out_of_the_bytes(client, handle, clip):
    """/vocab draws `¬</w>` (byte 0xAC at a word's end) as that byte then the suffix: the
    suffix is a marker of the model, not bytes of the text, so it is not in the hex."""
    from app import vocab

    id_ = clip.token_to_id("¬</w>")
    entry = next(e for e in vocab.entries_of(clip) if e.id == id_)
    assert (entry.text, entry.bytes_hex) == ("<AC></w>", "AC"), entry
    page = client.get("/vocab", params={"tokenizer": handle, "q": str(id_)}).text
    assert "&lt;AC&gt;&lt;/w&gt;" in page and "3C 2F 77 3E" not in page
