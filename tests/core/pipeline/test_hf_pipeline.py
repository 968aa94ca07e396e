"""The pipeline against Hugging Face `tokenizers` 0.23.3 (a test-only oracle): added tokens with
every combination of special / normalized / lstrip / rstrip / single_word, matched in HF's two
passes; decode with and without special tokens; the trace (one step per Sequence member,
truncate and pad steps) and the partials that render it."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizers_core import decoders
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.formats.hf_json import load_bytes
from tokenizers_core.models.wordpiece.model import WordPiece
from tokenizers_core.normalizers import Lowercase, Prepend, Replace, Sequence
from tokenizers_core.pipeline import AddedToken, Tokenizer
from tokenizers_core.pre_tokenizers import Sequence as PreSequence
from tokenizers_core.pre_tokenizers import Whitespace, WhitespaceSplit
from tokenizers_core.steps import Trace

T = pytest.importorskip("tokenizers")

VOCAB = {"[UNK]": 0, "hello": 1, "world": 2, "a": 3, "b": 4, "##a": 5, "##b": 6}
CONTENTS = ["<mask>", "new", "[new]", "ss", "é", "日本", "a ", " x", "ǅ", "NEW"]
FLAGS = list(itertools.product([False, True], repeat=5))
TEXTS = [
    "Hello <MASK> world",
    "hello<mask>world",
    " <mask> ",
    "a  <Mask>\tb",
    "éte ÉTÉ <mask>s",
    "Xx [new] NEW new newer renew",
    "new",
    "NEW  ",
    "  new",
    "日本new語 new",
    "<mask><mask>new new",
    "Straße STRASSE ǅ",
    "",
    "ab ab",
    "a  x b",
]
NORMALIZERS = [
    lambda: T.normalizers.Lowercase(),
    lambda: T.normalizers.Sequence([T.normalizers.NFKD(), T.normalizers.Lowercase()]),
    lambda: T.normalizers.NFC(),
    lambda: T.normalizers.Sequence([]),
]
PRE_TOKENIZERS = [
    lambda: T.pre_tokenizers.Whitespace(),
    lambda: T.pre_tokenizers.WhitespaceSplit(),
    lambda: T.pre_tokenizers.BertPreTokenizer(),
]


def view(e) -> dict:
    return {
        "ids": list(e.ids),
        "tokens": list(e.tokens),
        "offsets": [tuple(o) for o in e.offsets],
        "special_tokens_mask": list(e.special_tokens_mask),
        "word_ids": list(e.word_ids),
        "attention_mask": list(e.attention_mask),
        "type_ids": list(e.type_ids),
    }


def load(hf) -> Tokenizer:
    """Our tokenizer from HF's tokenizer.json, with our WordPiece decoder (the decoders are
    tested on their own)."""
    cfg = json.loads(hf.to_str())
    cfg["decoder"] = None
    ours = load_bytes(json.dumps(cfg).encode())
    ours.decoder = decoders.WordPiece()
    return ours


def random_tokenizer(seed: int):
    """A WordPiece tokenizer with five added tokens of random flags. Two normalized tokens with
    the same normalised pattern are avoided: HF picks one of them in hash order."""
    rng = random.Random(seed)
    while True:
        hf = T.Tokenizer(T.models.WordPiece(dict(VOCAB), unk_token="[UNK]"))
        hf.normalizer = rng.choice(NORMALIZERS)()
        hf.pre_tokenizer = rng.choice(PRE_TOKENIZERS)()
        hf.decoder = T.decoders.WordPiece()
        tokens = [
            T.AddedToken(
                c,
                **dict(
                    zip(
                        ["special", "normalized", "lstrip", "rstrip", "single_word"],
                        rng.choice(FLAGS),
                    )
                ),
            )
            for c in rng.sample(CONTENTS, 5)
        ]
        patterns = [hf.normalizer.normalize_str(t.content) for t in tokens if t.normalized]
        if len(set(patterns)) == len(patterns):
            hf.add_tokens(tokens)
            return hf


@pytest.fixture(scope="module")
def udhr():
    return [load_corpus(n)[:200] for n in corpus_names()]


# ---- added tokens -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_added_tokens_every_flag(seed, udhr):
    hf = random_tokenizer(seed)
    ours = load(hf)
    texts = TEXTS + random.Random(seed).sample(udhr, 4)
    for text in texts:
        ref = hf.encode(text)
        enc = ours.encode(text)
        assert view(enc) == view(ref), text
        traced, trace = ours.trace(text)  # the trace runs the same code
        assert traced == enc and Trace.from_json(trace.to_json()) == trace
        for skip in (False, True):
            assert ours.decode(ref.ids, skip_special_tokens=skip) == hf.decode(
                ref.ids, skip_special_tokens=skip
            )
    a, b = texts[0], texts[-1]
    assert view(ours.encode(a, b)) == view(hf.encode(a, b))


def test_every_flag_combination_alone():
    """Each of the 32 flag combinations on "<mask>" by itself, beside a normalised "new"."""
    for flags in FLAGS:
        kw = dict(zip(["special", "normalized", "lstrip", "rstrip", "single_word"], flags))
        hf = T.Tokenizer(T.models.WordPiece(dict(VOCAB), unk_token="[UNK]"))
        hf.normalizer = T.normalizers.Lowercase()
        hf.pre_tokenizer = T.pre_tokenizers.Whitespace()
        hf.add_tokens([T.AddedToken("<MASK>", **kw), T.AddedToken("new")])
        ours = load(hf)
        for text in ["a <MASK> b", "a<MASK>b", "<mask>  new<MASK>", "  <MASK>", "NEW<MASK>NEW "]:
            assert view(ours.encode(text)) == view(hf.encode(text)), (kw, text)


def test_lstrip_rstrip_golden():
    """lstrip/rstrip take the spaces beside the match into the token, string and offsets; a
    normalized token is found in the normalised text and spelled as normalised."""
    tok = Tokenizer(
        WordPiece(VOCAB),
        normalizer=Lowercase(),
        pre_tokenizer=Whitespace(),
        added_tokens=[
            AddedToken("<mask>", lstrip=True, rstrip=True, special=True, normalized=False),
            AddedToken("NEW"),
        ],
        decoder=decoders.WordPiece(),
    )
    enc = tok.encode("a <mask>  b NEW")
    assert enc.tokens == ["a", " <mask>  ", "b", "new"]
    assert enc.offsets == [(0, 1), (1, 10), (10, 11), (12, 15)]
    assert enc.ids == [3, 7, 4, 8]  # ids after the vocabulary, in order
    assert enc.special_tokens_mask == [0, 0, 0, 0]  # HF marks only the post-processor's tokens
    assert tok.decode(enc.ids) == "a <mask> b new"  # the token's content ("NEW" normalised)
    assert tok.decode(enc.ids, skip_special_tokens=True) == "a b new"


def test_single_word():
    tok = Tokenizer(
        WordPiece(VOCAB),
        pre_tokenizer=Whitespace(),
        added_tokens=[AddedToken("ab", single_word=True)],
    )
    assert tok.encode("ab xab ab!").tokens == ["ab", "[UNK]", "ab", "[UNK]"]


def test_ids_of_added_tokens_as_hugging_face_gives_them():
    hf = T.Tokenizer(T.models.WordPiece(dict(VOCAB), unk_token="[UNK]"))
    hf.add_tokens(["b", "<x>", "<y>"])
    ours = Tokenizer(
        WordPiece(VOCAB), added_tokens=[AddedToken("b"), AddedToken("<x>"), AddedToken("<y>")]
    )
    assert [(t.content, t.id) for t in ours.added_tokens] == [
        (t.content, i) for i, t in sorted(hf.get_added_tokens_decoder().items())
    ]
    assert ours.token_to_id("<y>") == hf.token_to_id("<y>") and ours.id_to_token(8) == "<y>"
    assert ours.vocab_size == hf.get_vocab_size() == len(VOCAB) + 2


def test_plain_strings_keep_their_meaning():
    tok = Tokenizer(
        WordPiece({**VOCAB, "[MASK]": 9}), normalizer=Lowercase(), added_tokens=["[MASK]"]
    )
    (token,) = tok.added_tokens
    assert token == AddedToken("[MASK]", id=9, special=True, normalized=False)
    with pytest.raises(ValueError, match="vocabulary"):
        Tokenizer(WordPiece(VOCAB), added_tokens=["[NOPE]"])


def test_decode_keeps_special_tokens_by_default():
    """As Hugging Face's Rust `decode` and tiktoken: special tokens stay unless asked."""
    tok = Tokenizer(
        WordPiece({**VOCAB, "[CLS]": 7}), added_tokens=["[CLS]"], decoder=decoders.WordPiece()
    )
    assert tok.decode([7, 1, 2]) == "[CLS] hello world"
    assert tok.decode([7, 1, 2], skip_special_tokens=True) == "hello world"


TEXT = st.lists(
    st.sampled_from(
        [
            "<mask>",
            "<MASK>",
            "new",
            "NEW",
            "ab",
            "a",
            "b",
            " ",
            "  ",
            "\t",
            "é",
            "日本",
            "x",
            "ss",
            "ß",
        ]
    ),
    max_size=14,
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 39), text=TEXT)
def test_hypothesis_added_tokens(seed, text):
    hf = random_tokenizer(seed)
    assert view(load(hf).encode(text)) == view(hf.encode(text))


# ---- the trace ------------------------------------------------------------------------------------
def test_sequence_members_are_steps_of_their_own():
    """Prepend then Replace (Llama 2's normaliser), then each pre-tokenizer of a Sequence: one
    step each, each starting from the one before; the added token passes through untouched."""
    tok = Tokenizer(
        WordPiece({**VOCAB, "▁hello": 8, "<s>": 9}),
        normalizer=Sequence([Prepend("▁"), Replace(" ", "▁")]),
        pre_tokenizer=PreSequence([WhitespaceSplit(), Whitespace()]),
        added_tokens=[AddedToken("<s>", id=9, special=True, normalized=False)],
    )
    enc, trace = tok.trace("<s>hello world!")
    kinds = [s.kind for s in trace]
    assert kinds == [
        "normalize",
        "normalize",
        "pre_tokenize",
        "pre_tokenize",
        "model",
        "post_process",
    ]
    prepend, replace = trace.of_kind("normalize")
    assert prepend.normalizer.startswith("Prepend") and replace.normalizer.startswith("Replace")
    assert prepend.output == "<s>▁hello world!" and replace.output == "<s>▁hello▁world!"
    split1, split2 = trace.of_kind("pre_tokenize")
    assert [p[0] for p in split1.pieces] == ["<s>", "▁hello▁world!"]
    assert [p[0] for p in split2.pieces] == ["<s>", "▁", "hello", "▁", "world", "!"]
    assert enc == tok.encode("<s>hello world!")
    hf = T.Tokenizer(T.models.WordPiece({**VOCAB, "▁hello": 8, "<s>": 9}, unk_token="[UNK]"))
    hf.normalizer = T.normalizers.Sequence(
        [T.normalizers.Prepend("▁"), T.normalizers.Replace(" ", "▁")]
    )
    hf.pre_tokenizer = T.pre_tokenizers.Sequence(
        [T.pre_tokenizers.WhitespaceSplit(), T.pre_tokenizers.Whitespace()]
    )
    hf.add_special_tokens(["<s>"])
    assert view(enc) == view(hf.encode("<s>hello world!"))
    assert Trace.from_json(trace.to_json()) == trace


def test_truncate_and_pad_steps():
    hf = T.Tokenizer(T.models.WordPiece(dict(VOCAB), unk_token="[UNK]"))
    hf.pre_tokenizer = T.pre_tokenizers.Whitespace()
    hf.add_special_tokens(["[CLS]", "[SEP]", "[PAD]"])
    hf.post_processor = T.processors.BertProcessing(("[SEP]", 8), ("[CLS]", 7))
    hf.enable_truncation(5, stride=1)
    hf.enable_padding(length=6, pad_id=9, pad_token="[PAD]")
    ours = load(hf)
    enc, trace = ours.trace("a b a b a")
    assert view(enc) == view(hf.encode("a b a b a"))
    assert [s.kind for s in trace] == [
        "normalize",
        "pre_tokenize",
        "model",
        "truncate",
        "post_process",
        "pad",
    ]
    cut, padded = trace.of_kind("truncate")[0], trace.of_kind("pad")[0]
    assert (cut.max_length, cut.room, cut.lengths, cut.kept) == (5, 3, (5,), (3,))
    assert cut.overflowing == ((("a", "b", "a"),),)
    assert (padded.length, padded.added, padded.pad_token) == (6, 1, "[PAD]")
    assert Trace.from_json(trace.to_json()) == trace


def test_step_partials_render():
    """Every step the pipeline makes has a partial in templates/steps/ that renders it."""
    from app.render import templates

    tok = Tokenizer(
        WordPiece({**VOCAB, "[PAD]": 9}),
        normalizer=Sequence([Lowercase()]),
        pre_tokenizer=Whitespace(),
        truncation={"max_length": 2, "stride": 1},
        padding={"strategy": {"Fixed": 4}, "pad_id": 9, "pad_token": "[PAD]"},
    )
    _, trace = tok.trace("Hello a <b>")
    html = "".join(
        templates.env.get_template(f"steps/{s.kind}.html").render(step=s, max_items=50)
        for s in trace
    )
    assert "Truncate" in html and "overflowing window" in html and "Pad" in html
    assert "&lt;b&gt;" in html or "[UNK]" in html


# ---- everything at once --------------------------------------------------------------------------
PROCESSORS = [
    None,
    lambda: T.processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 7), ("[SEP]", 8)],
    ),
    lambda: T.processors.RobertaProcessing(("[SEP]", 8), ("[CLS]", 7)),
    lambda: T.processors.BertProcessing(("[SEP]", 8), ("[CLS]", 7)),
]


@pytest.mark.heavy
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 39),
    a=TEXT,
    b=st.none() | TEXT,
    processor=st.sampled_from(PROCESSORS),
    max_length=st.none() | st.integers(4, 12),
    stride=st.integers(0, 1),
    strategy=st.sampled_from(["longest_first", "only_first", "only_second"]),
    fixed=st.none() | st.integers(0, 14),
    add=st.booleans(),
)
def test_hypothesis_added_tokens_pairs_truncation_padding(
    seed, a, b, processor, max_length, stride, strategy, fixed, add
):
    hf = random_tokenizer(seed)
    hf.add_special_tokens(["[CLS]", "[SEP]", "[PAD]"])  # ids 7, 8, 9 (the vocab has 7)
    if processor is not None:
        hf.post_processor = processor()
    if max_length is not None:
        hf.enable_truncation(max_length, stride=stride, strategy=strategy)
    if fixed is not None:
        hf.enable_padding(length=fixed, pad_id=9, pad_token="[PAD]")
    ours = load(hf)
    try:
        ref = hf.encode(a, b, add_special_tokens=add)
    except BaseException as exc:  # noqa: B036  a Rust panic (stride too long) is a BaseException
        if isinstance(exc, KeyboardInterrupt):
            raise
        with pytest.raises(ValueError):  # only_second without a pair, a sequence too short
            ours.encode(a, b, add_special_tokens=add)
        return
    enc = ours.encode(a, b, add_special_tokens=add)
    assert view(enc) == view(ref)
    assert [view(o) for o in enc.overflowing] == [view(o) for o in ref.overflowing]
