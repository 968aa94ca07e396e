"""Real tokenizer files that failed or misled.

8. Whisper's `multilingual.tiktoken` gives rank 50256 to the empty token: its line is `= 50256`,
   and tiktoken reads it (`base64.b64decode("=") == b""`). The file here is a small one made the
   same way; tiktoken itself reads it (`tiktoken.load.load_tiktoken_bpe`) and is built offline
   from those ranks, never with `get_encoding`.
9. CLIP's `bpe_simple_vocab_16e6.txt.gz` is a bare merges file (a "#version" header, then one
   "a b" merge a line). It is not a whole tokeniser: loading it says so, and says what is needed.
"""

from __future__ import annotations

import base64
import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.formats import sniff
from tokenizers_core.formats.tiktoken_file import dump_bytes, parse_ranks
from tokenizers_core.pre_tokenizers import PRESETS

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")

MERGES = [b"he", b"ll", b" t", b" th", b"llo", b"hello", b" the", b"er", b" w", b"or"]
SPECIALS = {"<|endoftext|>": 300}


def whisper_like_ranks() -> bytes:
    """A ranks file as Whisper's: the 256 bytes, the empty token's line `= 256` among them all
    (not last), then a few merges; each merge's parts have lower ranks, as in a real file."""
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    lines.append(b"= 256")  # the empty token
    lines += [base64.b64encode(t) + b" %d" % (257 + i) for i, t in enumerate(MERGES)]
    return b"\n".join(lines) + b"\n"


@pytest.fixture(scope="module")
def whisper_pair(tmp_path_factory):
    data = whisper_like_ranks()
    path = tmp_path_factory.mktemp("whisper") / "multilingual.tiktoken"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", "")  # read the file, cache nothing
        ranks = tiktoken_load.load_tiktoken_bpe(str(path))
    assert ranks[b""] == 256  # what tiktoken makes of "= 256"
    ref = tiktoken.Encoding(
        "whisper-like", pat_str=PRESETS["gpt2"], mergeable_ranks=ranks, special_tokens=SPECIALS
    )
    ours = tc.load(str(path), pattern="gpt2", special_tokens=SPECIALS)
    return ours, ref


def test_the_empty_token_line_loads_as_tiktoken_reads_it(whisper_pair):
    ours, ref = whisper_pair
    assert parse_ranks(whisper_like_ranks())[b""] == 256
    assert ours.vocab_size == 256 + 1 + len(MERGES) + 1  # the empty token counts
    assert ours.model.vocab[""] == ref.encode_single_token(b"") == 256
    assert ours.decode([256]) == ref.decode([256]) == ""
    assert ours.decode([257, 256, 258]) == ref.decode([257, 256, 258]) == "hell"


TEXTS = [
    "hello the world",
    "",
    " ",
    "hellooo  there\n\nworld",
    "the <|endoftext|> hello",
    "héllo wörld 東京 👍",
    "llo" * 20,
]


@pytest.mark.parametrize("text", TEXTS)
def test_encodes_as_tiktoken_on_the_same_ranks(whisper_pair, text):
    ours, ref = whisper_pair
    assert ours.encode(text, allowed_special="all").ids == ref.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()).ids == ref.encode_ordinary(text)
    assert 256 not in ours.encode(text, disallowed_special=()).ids  # no merge makes it


@settings(max_examples=60)
@given(st.text(alphabet="helo tw\nré東", max_size=30))
def test_any_text_encodes_as_tiktoken(whisper_pair, text):
    ours, ref = whisper_pair
    enc = ours.encode(text, disallowed_special=())
    assert enc.ids == ref.encode_ordinary(text)
    assert ours.decode(enc.ids) == text


def test_the_empty_token_saves_back_as_its_own_line(whisper_pair):
    ours, _ref = whisper_pair
    data = dump_bytes(ours)
    assert b"= 256\n" in data.splitlines(keepends=True)
    assert parse_ranks(data) == parse_ranks(whisper_like_ranks())


def test_bad_base64_is_still_refused():
    data = whisper_like_ranks().replace(b"= 256", b"=QQ 256")
    with pytest.raises(ValueError, match="line 257 of the ranks file has bad base64"):
        parse_ranks(data)


def test_a_ranks_file_that_opens_with_the_empty_token_is_sniffed_as_tiktoken():
    data = b"= 0\n" + b"".join(
        base64.b64encode(bytes([b])) + b" %d\n" % (b + 1) for b in range(256)
    )
    assert sniff(data) == "tiktoken"
    assert tc.load(data, pattern="gpt2").encode("hi").ids == [ord("h") + 1, ord("i") + 1]


# ---- 9. a bare merges file -------------------------------------------------------------------------
def clip_like_merges() -> bytes:
    """As CLIP's bpe_simple_vocab_16e6.txt.gz: a quoted "#version" header, then merges with
    `</w>` ends (its first lines, then made-up ones)."""
    text = (
        '"bpe_simple_vocab_16e6.txt#version: 0.2\n'
        "i n\nt h\na n\nr e\na r\ne r\nth e</w>\nin g</w>\no u\no n\n"
    )
    return gzip.compress(text.encode("utf-8"))


@pytest.mark.parametrize(
    "data",
    [
        clip_like_merges(),
        b"#version: 0.2\n\xc4\xa0 t\n\xc4\xa0 a\nh e\n",  # GPT-2's merges.txt
        b"i n\nt h\na n\nr e\n",  # no header at all
    ],
    ids=["clip", "gpt2-merges", "headerless"],
)
def test_a_merges_file_alone_says_what_it_is_and_what_is_needed(data):
    with pytest.raises(ValueError) as caught:
        tc.load(data)
    message = str(caught.value)
    assert "merges file" in message and "[UNK]" not in message
    assert "vocab.json" in message and ".zip" in message
    with pytest.raises(ValueError, match="merges file"):  # named as vocab_txt, the same
        tc.formats.load_bytes(
            gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data, format="vocab_txt"
        )


def test_a_real_vocab_txt_still_loads():
    assert tc.load(b"[UNK]\n[CLS]\n[SEP]\nthe\n##s\n").encode("thes").tokens == [
        "[CLS]",
        "the",
        "##s",
        "[SEP]",
    ]
    with pytest.raises(ValueError, match=r"\[UNK\]"):  # a vocab.txt without [UNK]
        tc.load(b"the\nof\nand\n")
