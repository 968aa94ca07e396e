"""Any Tekken file loads: a small Tekken JSON made as mistral-common's files
are made, read from bytes, from a path and through the upload endpoint, gives the ids
mistral-common's `Tekkenizer` gives, which is tiktoken over the ranks with the file's pattern,
every id shifted by the special tokens in front (`Tekkenizer.encode`).

The real files (mistral-common's `tekken_240718.json`, `tekken_240911.json`) are checked against
mistral-common itself by `benchmarks/verify_tekken.py`; the bundled one by test_bundled_real.py.
"""

from __future__ import annotations

import base64
import gzip
import json

import pytest

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats import sniff, tekken

tiktoken = pytest.importorskip("tiktoken")

# Tekken's own pattern (mistral-common's files carry it in "config")
PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# after the 256 bytes, tokens each made of two before it (so byte-pair merging reaches them)
MERGED = [
    "he", "ll", "hell", "hello", " w", "or", " wor", "ld", " world", "en", "ken", "te",
    "tek", "tekken", "</", "<s", "<s>", "[I", "NS", "[INS", "T]", "[INST]", " é", "東京",
]  # fmt: skip
N_SPECIAL = 30
TEXTS = [
    "hello world",
    "Hello, World! tekken  tekken\n\n\tdone",
    "<s>[INST] hello [/INST]</s><SPECIAL_29>",  # special-token strings: ordinary text
    " é 東京 👍🏽",
    "",
]


def ranks() -> dict[bytes, int]:
    """The synthetic ranks: the 256 bytes, then `MERGED` (utf-8)."""
    tokens = [bytes([i]) for i in range(256)] + [t.encode() for t in MERGED]
    return {token: rank for rank, token in enumerate(tokens)}


def tekken_file(version: str = "v3", special_tokens: list | None = None, **extra) -> dict:
    """A Tekken file as mistral-common writes one: 6 ranks beyond the vocabulary in use (cut
    by `default_vocab_size`, as the real files hold 150,000 ranks and use 130,072)."""
    vocab = [
        {
            "rank": rank,
            "token_bytes": base64.b64encode(token).decode(),
            "token_str": token.decode("utf-8", "replace"),
        }
        for token, rank in ranks().items()
    ]
    vocab += [
        {"rank": len(vocab) + i, "token_bytes": base64.b64encode(t).decode(), "token_str": None}
        for i, t in enumerate([b" ten", b"kk", b"ke", b"ek", b"xx", b"yy"])
    ]
    config = {
        "pattern": PATTERN,
        "num_vocab_tokens": len(vocab),
        "default_vocab_size": len(vocab) - 6 + N_SPECIAL,
        "default_num_special_tokens": N_SPECIAL,
        "version": version,
    }
    data = {"config": config, "vocab": vocab, **extra}
    if special_tokens is not None:
        data["special_tokens"] = special_tokens
    return data


def reference(text: str) -> list[int]:
    """mistral-common's `Tekkenizer.encode(text, bos=False, eos=False)`: tiktoken over the ranks
    in use, with no special tokens, each id shifted by the special tokens."""
    enc = tiktoken.Encoding("tekken", pat_str=PATTERN, mergeable_ranks=ranks(), special_tokens={})
    return [i + N_SPECIAL for i in enc.encode(text)]


def as_bytes(data: dict) -> bytes:
    return json.dumps(data, indent=4).encode()


def test_a_tekken_file_is_sniffed_by_its_content():
    data = as_bytes(tekken_file(image={"image_patch_size": 16, "max_image_size": 1024}))
    assert sniff(data) == "tekken"
    # a tokenizer.json whose vocabulary holds the key's spelling is still a tokenizer.json
    hf = b'{"model": {"type": "BPE", "vocab": {"token_bytes": 0, "is_control": 1}, "merges": []}}'
    assert sniff(hf) == "hf_json"
    # special tokens first (a file written with other key order) decide it as well
    listed = [{"rank": 0, "token_str": "<unk>", "is_control": True}]
    assert sniff(json.dumps({"special_tokens": listed, "config": {}}).encode()) == "tekken"


@pytest.mark.parametrize("how", ["bytes", "gzip", "path", "bom"])
def test_a_tekken_file_gives_mistral_commons_ids(how, tmp_path):
    data = as_bytes(tekken_file())
    if how == "bom":  # saved by an editor that starts UTF-8 with EF BB BF: still a Tekken file
        tok = tc.load(b"\xef\xbb\xbf" + data)
        assert isinstance(tok, tekken.TekkenTokenizer)
    elif how == "bytes":
        tok = tc.load(data)
    elif how == "gzip":
        tok = tc.load(gzip.compress(data))
    else:
        (tmp_path / "tekken.json").write_bytes(data)
        tok = tc.load(str(tmp_path / "tekken.json"))
    for text in TEXTS:
        assert tok.encode(text).ids == reference(text), text
    assert tok.decode(tok.encode(TEXTS[1]).ids) == TEXTS[1]
    assert tok.vocab_size == 256 + len(MERGED) + N_SPECIAL


def test_a_file_that_lists_no_special_tokens_has_mistral_commons_defaults():
    """Versions up to v7 may list none: mistral-common's twenty control tokens, then fillers."""
    tok = tc.load(as_bytes(tekken_file("v7")))
    # ("<s>" and "[INST]" are also tokens of this vocabulary, so their strings name those)
    assert tok.special_tokens["<s>"] == 1 and tok.special_tokens["[INST]"] == 3
    assert [tok.token_to_id(s) for s in ("<unk>", "</s>", "[/INST]", "[TOOL_CONTENT]")] == [
        0,
        2,
        4,
        19,
    ]
    assert tok.token_to_id("<SPECIAL_20>") == 20 and tok.token_to_id("<SPECIAL_29>") == 29
    assert tok.token_to_id("hello") == 259 + N_SPECIAL
    # typed in the text they are ordinary text; allowed, they are their ids
    assert tok.encode("<s>hello", allowed_special="all").ids == [1, 259 + N_SPECIAL]


def test_listed_special_tokens_take_their_ranks_and_fillers_the_rest():
    listed = [
        {"rank": 0, "token_str": "<unk>", "is_control": True},
        {"rank": 1, "token_str": "<s>", "is_control": True},
        {"rank": 2, "token_str": "</s>", "is_control": True},
        {"rank": 3, "token_str": "[THINK]", "is_control": False},
    ]
    tok = tc.load(as_bytes(tekken_file("v13", listed)))
    assert tok.token_to_id("[THINK]") == 3 and tok.token_to_id("<SPECIAL_4>") == 4
    assert "[INST]" not in tok.special_tokens  # not a default any more
    assert tok.version == "v13"
    for text in TEXTS:
        assert tok.encode(text).ids == reference(text), text


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.pop("special_tokens", None) or d["config"].update(version="v13"), "v7"),
        (lambda d: d["config"].update(version="3"), "version"),
        (lambda d: d["config"].pop("version"), '"config" needs a "version"'),
        (  # with its special tokens listed, a KeyError: 'version' once
            lambda d: (
                d.update(special_tokens=[{"rank": 0, "token_str": "<unk>"}])
                or d["config"].pop("version")
            ),
            '"config" needs a "version"',
        ),
        (lambda d: d["config"].pop("pattern"), "pattern"),
        (lambda d: d["config"].update(default_vocab_size=10**6), "vocab"),
        (lambda d: d["vocab"][270].update(rank=7), "entry 270"),
        (lambda d: d["vocab"][65].update(token_bytes="QkI="), "entry 65"),
        (lambda d: d["vocab"][270].update(token_bytes="not base64!"), "base64"),
        (lambda d: d["vocab"][270].update(token_bytes=d["vocab"][269]["token_bytes"]), "new"),
        (lambda d: d.update(special_tokens=[{"rank": 0, "token_str": "<s>"}] * 2), "same"),
        (lambda d: d.update(special_tokens=[{"rank": 5, "token_str": "<s>"}]), "ranks"),
        (lambda d: d.update(special_tokens=[{"rank": 0}]), "token_str"),
        (lambda d: d["config"].update(default_num_special_tokens=-1), "count"),
    ],
)
def test_a_broken_tekken_file_says_what_is_wrong(change, message):
    data = tekken_file()
    change(data)
    with pytest.raises(InvalidInput, match=message):
        tekken.load_bytes(as_bytes(data))


def test_not_json_is_invalid_input():
    with pytest.raises(InvalidInput, match="JSON"):
        tekken.load_bytes(b'{"config": {}, "vocab": [{"token_bytes": "AA==", ')


def test_the_bundled_tekken_is_read_by_the_same_reader():
    tok = tc.load("mistral_tekken")
    assert isinstance(tok, tekken.TekkenTokenizer) and tok.version == "v3"


def test_an_uploaded_tekken_file_encodes_as_mistral_common(store_client):
    r = store_client.post(
        "/api/tokenizers", files={"file": ("tekken.json", as_bytes(tekken_file()))}
    )
    assert r.status_code == 201, r.text
    assert r.json()["format"] == "tekken"
    text = TEXTS[1]
    enc = store_client.post("/api/encode", json={"tokenizer": r.json()["tokenizer"], "text": text})
    assert enc.status_code == 200, enc.text
    assert enc.json()["ids"] == reference(text)
