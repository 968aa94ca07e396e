"""Post-processors, truncation and padding against Hugging Face `tokenizers` 0.23.3 (a test-only
oracle): tokenizers built with `tokenizers`, saved with `to_str()`, loaded by us through
formats/hf_json.py (and built directly with our classes), compared on ids, tokens, offsets,
masks, type ids, word ids and every overflowing window. What a crafted file's post-processor
may add to a text is bounded at load (1,000 tokens)."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenizers_core import processors
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.encoding import Encoding, Token
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats.hf_json import load_bytes
from tokenizers_core.models.wordlevel.model import WordLevel
from tokenizers_core.pipeline import Tokenizer
from tokenizers_core.pre_tokenizers import Whitespace
from tokenizers_core.processors.truncation import PaddingParams, TruncationParams

T = pytest.importorskip("tokenizers")

WORDS = "the a cat sat on mat . , ! hello world [CLS] [SEP] [PAD] <s> </s> [UNK] x y z".split()
VOCAB = {w: i for i, w in enumerate(WORDS)}
TEXTS = ["the cat sat on the mat .", "hello world !", "", "x y z x y z x y z x", "a"]
PROCESSORS = {
    "none": None,
    "bert": lambda: T.processors.BertProcessing(
        ("[SEP]", VOCAB["[SEP]"]), ("[CLS]", VOCAB["[CLS]"])
    ),
    "roberta": lambda: T.processors.RobertaProcessing(
        ("</s>", VOCAB["</s>"]), ("<s>", VOCAB["<s>"])
    ),
    "template": lambda: T.processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS]:2 $A:3 [SEP] $B:1 [SEP]:1 <s>",
        special_tokens=[
            ("[CLS]", VOCAB["[CLS]"]),
            ("[SEP]", VOCAB["[SEP]"]),
            ("<s>", VOCAB["<s>"]),
        ],
    ),
    "template_multi_id": lambda: T.processors.TemplateProcessing(
        single="$0 <bos>:1",
        pair="<bos> $A <bos> $B:1",
        special_tokens=[{"id": "<bos>", "ids": [VOCAB["<s>"], VOCAB["x"]], "tokens": ["<s>", "x"]}],
    ),
    "bytelevel": lambda: T.processors.ByteLevel(trim_offsets=True),
    "sequence": lambda: T.processors.Sequence(
        [
            T.processors.ByteLevel(trim_offsets=True),
            T.processors.BertProcessing(("[SEP]", VOCAB["[SEP]"]), ("[CLS]", VOCAB["[CLS]"])),
        ]
    ),
}
TRUNCATIONS = [
    None,
    dict(max_length=5),
    dict(max_length=7, stride=2, direction="left"),
    dict(max_length=6, stride=1, strategy="only_first"),
    dict(max_length=6, strategy="only_second"),
]
PADDINGS = [
    None,
    dict(length=12),
    dict(
        pad_to_multiple_of=4,
        direction="left",
        pad_id=VOCAB["[PAD]"],
        pad_token="[PAD]",
        pad_type_id=2,
    ),
]


def view(e) -> dict:
    """Everything an encoding says, overflowing windows included, as plain lists."""
    return {
        "ids": list(e.ids),
        "tokens": list(e.tokens),
        "offsets": [tuple(o) for o in e.offsets],
        "special_tokens_mask": list(e.special_tokens_mask),
        "word_ids": list(e.word_ids),
        "attention_mask": list(e.attention_mask),
        "type_ids": list(e.type_ids),
        "overflowing": [view(o) for o in e.overflowing],
    }


def hf_word_level(processor=None, truncation=None, padding=None):
    tok = T.Tokenizer(T.models.WordLevel(VOCAB, unk_token="[UNK]"))
    tok.pre_tokenizer = T.pre_tokenizers.Whitespace()
    if processor is not None:
        tok.post_processor = processor()
    if truncation:
        tok.enable_truncation(**truncation)
    if padding:
        tok.enable_padding(**padding)
    return tok


def load(hf) -> Tokenizer:
    return load_bytes(hf.to_str().encode())


def assert_same_or_both_fail(ours, hf, text, pair, add):
    try:
        ref = hf.encode(text, pair, add_special_tokens=add)
    except BaseException as exc:  # a Rust panic is a BaseException  # noqa: B036
        if isinstance(exc, KeyboardInterrupt):
            raise
        with pytest.raises(ValueError):
            ours.encode(text, pair, add_special_tokens=add)
        return
    assert view(ours.encode(text, pair, add_special_tokens=add)) == view(ref)


# ---- every processor x truncation x padding, loaded from tokenizer.json -------------------------
@pytest.mark.parametrize("padding", PADDINGS, ids=["no-pad", "fixed", "multiple-left"])
@pytest.mark.parametrize(
    "truncation", TRUNCATIONS, ids=["no-trunc", "right", "left-stride", "only-first", "only-second"]
)
@pytest.mark.parametrize("name", list(PROCESSORS))
def test_processor_truncation_padding(name, truncation, padding):
    hf = hf_word_level(PROCESSORS[name], truncation, padding)
    ours = load(hf)
    for text, pair, add in itertools.product(TEXTS, [None, *TEXTS[:3]], [True, False]):
        assert_same_or_both_fail(ours, hf, text, pair, add)


def test_built_directly_with_our_classes():
    """The same result without the JSON reader: our WordLevel, Whitespace, a processor from its
    config and the truncation/padding sections as dicts."""
    hf = hf_word_level(
        PROCESSORS["template"],
        dict(max_length=8, stride=1),
        dict(length=10, pad_id=VOCAB["[PAD]"], pad_token="[PAD]"),
    )
    cfg = json.loads(hf.to_str())
    ours = Tokenizer(
        WordLevel(VOCAB, unk_token="[UNK]"),
        pre_tokenizer=Whitespace(),
        post_processor=processors.from_hf_config(cfg["post_processor"]),
        truncation=cfg["truncation"],
        padding=cfg["padding"],
    )
    assert ours.truncation == TruncationParams(max_length=8, stride=1)
    assert ours.padding == PaddingParams(length=10, pad_id=VOCAB["[PAD]"])
    for text, pair in itertools.product(TEXTS, [None, "x y z x y"]):
        assert view(ours.encode(text, pair)) == view(hf.encode(text, pair))


# ---- golden cases -----------------------------------------------------------------------------
def test_overflowing_windows_overlap_by_stride():
    """Six tokens, max_length 4 with [CLS] and [SEP]: 2 tokens per window, stride 1 -> windows
    start 1 apart: "a b", "b c", "c a", "a b", "b c"."""
    hf = hf_word_level(PROCESSORS["bert"], dict(max_length=4, stride=1))
    enc = load(hf).encode("a b c a b c".replace("b", "x").replace("c", "y"))
    assert enc.tokens == ["[CLS]", "a", "x", "[SEP]"]
    assert [o.tokens[1:3] for o in enc.overflowing] == [
        ["x", "y"],
        ["y", "a"],
        ["a", "x"],
        ["x", "y"],
    ]
    assert view(enc) == view(hf.encode("a x y a x y"))


def test_template_language():
    """`$1` is sequence A with type id 1 (not B); `$B` is B with type id 0 unless given."""
    t = processors.TemplateProcessing("$1 [X]", "$A $B [X]:3", special_tokens=[("[X]", 7)])
    a, b = [Token(1, "a", (0, 1), 0)], [Token(2, "b", (0, 1), 0)]
    assert t.process(a, None) == (
        [Token(1, "a", (0, 1), 0), Token(7, "[X]", (0, 0), None, True)],
        [1, 0],
    )
    assert t.process(a, b)[1] == [0, 0, 3]
    assert t.added_tokens(False) == 1 and t.added_tokens(True) == 1
    with pytest.raises(ValueError, match="neither"):
        processors.TemplateProcessing("[Y] $A", special_tokens=[("[X]", 7)])
    with pytest.raises(ValueError, match="type id"):
        processors.TemplateProcessing("$A:x")
    with pytest.raises(ValueError, match="cannot use \\$B"):
        processors.TemplateProcessing("$B")


def test_bad_configs_are_value_errors():
    for cfg, message in [
        ({"type": "Nope"}, "'Nope' is not supported"),
        ({"type": "BertProcessing", "sep": ["[SEP]"], "cls": ["[CLS]", 1]}, "sep must be"),
        ({"type": "RobertaProcessing", "trim_offsets": "yes"}, "trim_offsets"),
        ({"type": "Sequence", "processors": {}}, "list of processors"),
        (
            {
                "type": "TemplateProcessing",
                "single": [{"Sequence": {"id": "C", "type_id": 0}}],
                "pair": [],
                "special_tokens": {},
            },
            "sequence A/B",
        ),
    ]:
        with pytest.raises(ValueError, match=message):
            processors.from_hf_config(cfg)
    with pytest.raises(ValueError, match="max_length"):
        TruncationParams.from_hf_config({"stride": 0})
    with pytest.raises(ValueError, match="strategy"):
        PaddingParams.from_hf_config({"strategy": "Longest"})
    with pytest.raises(ValueError, match="stride"):
        Tokenizer(
            WordLevel(VOCAB, unk_token="[UNK]"),
            truncation={"max_length": 4, "stride": 3},
            post_processor=processors.BertProcessing(("[SEP]", 1), ("[CLS]", 2)),
        )


def crafted_tokenizer_json(post_processor) -> bytes:
    """A WordLevel tokenizer.json ("a", "b", "0") with this post-processor."""
    return json.dumps(
        {
            "version": "1.0",
            "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": post_processor,
            "model": {
                "type": "WordLevel",
                "vocab": {"a": 0, "b": 1, "0": 2, "[X]": 3},
                "unk_token": "[X]",
            },
        }
    ).encode()


def _special(name, type_id=0):
    return {"SpecialToken": {"id": name, "type_id": type_id}}


A, B = {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}


def _template(single, specials, pair=(A, B)):
    return {
        "type": "TemplateProcessing",
        "single": list(single),
        "pair": list(pair),
        "special_tokens": {
            name: {"id": name, "ids": ids, "tokens": ["[X]"] * len(ids)}
            for name, ids in specials.items()
        },
    }


HOSTILE_POST_PROCESSORS = {
    # the file: one special token standing for 200,000 ids ("a b 0" -> 200,001 ids)
    "one special token of 200,000 ids": (
        _template([_special("[X]"), A], {"[X]": [3] * 200_000}),
        "special token '\\[X\\]' adds 200,000 tokens.*at most 1,000",
    ),
    "a template of 1,001 special tokens": (
        _template([_special("[X]")] * 1001 + [A], {"[X]": [3]}),
        "single template adds 1,001 tokens.*at most 1,000",
    ),
    "a pair template of 600 x 2 ids": (
        _template([A], {"[X]": [3, 3]}, pair=[_special("[X]")] * 600 + [A, B]),
        "pair template adds 1,200 tokens.*at most 1,000",
    ),
    "2,000 special tokens declared": (
        _template([A], {f"[X{i}]": [3] for i in range(2000)}),
        "declares 2,000 special tokens.*at most 1,000",
    ),
    "a template of 200,000 items": (
        _template([_special("[X]")] * 200_000 + [A], {"[X]": [3]}),
        "template of 200,001 items.*at most 1,008",
    ),
    "$A 10 times": (_template([A] * 10, {}), "holds \\$A 10 times.*at most 4"),
    "a Sequence of 3 x 400 ids": (
        {
            "type": "Sequence",
            "processors": [_template([_special("[X]"), A], {"[X]": [3] * 400})] * 3,
        },
        "a Sequence \\(one text\\) adds 1,200 tokens.*at most 1,000",
    ),
    "a Sequence of 100 ByteLevel": (
        {"type": "Sequence", "processors": [{"type": "ByteLevel"}] * 100},
        "Sequence of 100 processors.*at most 64",
    ),
}


@pytest.mark.parametrize("name", HOSTILE_POST_PROCESSORS)
def test_what_a_post_processor_may_add_is_bounded_at_load(name):
    """A crafted tokenizer.json whose post-processor would add more than 1,000 tokens to a
    text (or hold 2,000 special tokens, a template of 200,000 items, $A ten times, a Sequence
    of 100 processors) is refused by tc.load, naming the bound; real ones add a handful."""
    import tokenizers_core as tc

    post_processor, message = HOSTILE_POST_PROCESSORS[name]
    with pytest.raises(InvalidInput, match=message):
        tc.load(crafted_tokenizer_json(post_processor))


def test_a_post_processor_at_the_bound_loads_and_adds_it():
    """1,000 ids around a text is allowed (the bound, not a real tokenizer's need) and added as
    Hugging Face adds them."""
    import tokenizers_core as tc

    data = crafted_tokenizer_json(_template([_special("[X]"), A], {"[X]": [3] * 1000}))
    ours = tc.load(data).encode("a b 0")
    theirs = T.Tokenizer.from_str(data.decode()).encode("a b 0")
    assert ours.ids == theirs.ids == [3] * 1000 + [0, 1, 2]
    assert processors.MAX_ADDED_TOKENS == 1000


def test_configs_round_trip():
    hf = hf_word_level(
        PROCESSORS["sequence"],
        dict(max_length=5, stride=1, direction="left"),
        dict(length=8, direction="left", pad_to_multiple_of=3),
    )
    cfg = json.loads(hf.to_str())
    ours = load(hf)
    assert ours.truncation.to_hf_config() == cfg["truncation"]
    assert ours.padding.to_hf_config() == cfg["padding"]
    proc = processors.from_hf_config(cfg["post_processor"])
    assert processors.from_hf_config(proc.to_hf_config()).describe() == proc.describe()


# ---- byte-level offsets on real text ------------------------------------------------------------
@pytest.fixture(scope="module")
def roberta_like():
    """A small byte-level BPE trained by `tokenizers` on UDHR text, with RoBERTa's processor
    (trim_offsets, add_prefix_space) and a `<mask>` that takes the space before it."""
    hf = T.Tokenizer(T.models.BPE())
    hf.pre_tokenizer = T.pre_tokenizers.ByteLevel(add_prefix_space=True)
    text = "\n".join(load_corpus(n)[:1500] for n in corpus_names()[:8])
    hf.train_from_iterator(
        [text],
        T.trainers.BpeTrainer(
            vocab_size=400, special_tokens=["<s>", "</s>", "<mask>"], show_progress=False
        ),
    )
    hf.post_processor = T.processors.RobertaProcessing(("</s>", 1), ("<s>", 0))
    hf.add_special_tokens([T.AddedToken("<mask>", lstrip=True)])
    return hf, load(hf)


@pytest.mark.parametrize("name", corpus_names())
def test_roberta_offsets_on_udhr(roberta_like, name):
    hf, ours = roberta_like
    text = load_corpus(name)[:300]
    for pair in (None, "  two  spaces <mask> end "):
        assert view(ours.encode(text, pair)) == view(hf.encode(text, pair))


def test_trim_offsets_keeps_one_added_prefix_space():
    """ "Ġa" first (the space the pre-tokenizer added) keeps its offsets; a typed run of spaces
    ("ĠĠb") loses both; trailing spaces are trimmed too."""
    e = Encoding(
        ids=[1, 2, 3],
        tokens=["Ġa", "ĠĠb", "cĠ"],
        offsets=[(0, 1), (1, 4), (4, 6)],
        word_ids=[0, 1, 2],
        attention_mask=[1] * 3,
        special_tokens_mask=[0] * 3,
        type_ids=[0] * 3,
    )
    processors.trim_offsets(e, add_prefix_space=True)
    assert e.offsets == [(0, 1), (3, 4), (4, 5)]


# ---- Hypothesis --------------------------------------------------------------------------------
TEXT = st.lists(
    st.sampled_from(["the", "cat", "x", "y", "!", " ", "  ", "\t", "zz", "é"]), max_size=14
).map(" ".join)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a=TEXT,
    b=st.none() | TEXT,
    name=st.sampled_from(list(PROCESSORS)),
    max_length=st.integers(0, 9),
    stride=st.integers(0, 3),
    strategy=st.sampled_from(["longest_first", "only_first", "only_second"]),
    direction=st.sampled_from(["left", "right"]),
    add=st.booleans(),
)
def test_hypothesis_truncation(a, b, name, max_length, stride, strategy, direction, add):
    settings_ = dict(max_length=max_length, stride=stride, strategy=strategy, direction=direction)
    proc = load(hf_word_level(PROCESSORS[name])).post_processor
    added = proc.added_tokens(b is not None) if proc is not None else 0
    if max_length < max(added, proc.added_tokens(False) if proc is not None else 0):
        # Hugging Face subtracts in unsigned integers and wraps round to a huge max_length;
        # we refuse such a setting instead (a deliberate, loud difference).
        with pytest.raises(ValueError, match="max_length"):
            tok = Tokenizer(
                WordLevel(VOCAB, unk_token="[UNK]"), truncation=settings_, post_processor=proc
            )
            tok.encode(a, b)
        return
    try:
        hf = hf_word_level(PROCESSORS[name], settings_)
    except BaseException:  # noqa: B036  HF refuses a stride longer than the room left
        with pytest.raises(ValueError, match="stride|max_length"):
            Tokenizer(
                WordLevel(VOCAB, unk_token="[UNK]"), truncation=settings_, post_processor=proc
            )
        return
    assert_same_or_both_fail(load(hf), hf, a, b, add)


@pytest.mark.parametrize(
    "padding",
    [dict(), dict(pad_to_multiple_of=4, direction="left"), dict(length=9)],
    ids=["longest", "multiple", "fixed"],
)
def test_encode_batch_pads_to_the_longest(padding):
    """HF's encode_batch: "BatchLongest" padding reaches the longest encoding of the batch;
    overflowing windows are padded to the same length."""
    hf = hf_word_level(
        PROCESSORS["bert"],
        dict(max_length=7, stride=1),
        dict(pad_id=VOCAB["[PAD]"], pad_token="[PAD]", **padding),
    )
    inputs = ["a", "x y z x y z x y z", ("hello", "world !"), ""]
    ours = load(hf).encode_batch(inputs)
    assert [view(e) for e in ours] == [view(e) for e in hf.encode_batch(inputs)]
