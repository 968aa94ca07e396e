"""Downloads that tell the truth: `exactness(tok, format)` says whether a file
in that format reproduces the tokeniser, and if not, what changes.

Every claim is run through the library that owns the format, on multilingual texts: a file
claimed exact is loaded by Hugging Face `tokenizers` (tokenizer.json), `tiktoken` (with the
pattern `exactness` names), `sentencepiece` (.model), HF's `BertWordPieceTokenizer` (vocab.txt)
and gives our ids on every text; for a lossy one, each sentence names a change the tokeniser
really has (a normaliser that rewrites one of the texts, a suffix its tokens carry, a
post-processor that adds tokens, ...), and at least one text really comes out different.

Besides the bundled and trained tokenisers, two tokenizer.json files built here with Hugging
Face `tokenizers` stand for the real ones of the issue: "Claude-2023"-like (byte-level BPE
behind NFKC) and CLIP-like (byte-level BPE with the "</w>" suffix, NFC + whitespace + lowercase,
the BPE decoder, RobertaProcessing); and the real Llama 3 tokenizer.json (shared interop data).
"""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import dump_bytes
from tokenizers_core.formats.exactness import exactness
from tokenizers_core.formats.tiktoken_file import parse_ranks
from tokenizers_core.formats.vocab_txt import is_cased

hf = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")
spm = pytest.importorskip("sentencepiece")

from tests.shared_data import INTEROP

FORMATS = ("hf_json", "tiktoken", "sentencepiece", "vocab_txt", "vocab_merges")
TRAIN = load_corpus("botchan").splitlines()[:1500]
TEXTS = [
    load_corpus(f"udhr/{c}").splitlines()[3]
    for c in (
        "eng",
        "fra",
        "deu_1996",
        "rus",
        "ell_monotonic",
        "arb",
        "heb",
        "hin",
        "ben",
        "tam",
        "tha",
        "cmn_hans",
        "jpn",
        "kor",
        "vie",
        "amh",
    )
] + [
    "Hello, world! ﬁnancial ① ＡＢＣ",
    "naïve café  —  déjà vu\n\tTabs",
    "x = f(42) // 3.14",
    "東京 👍🏽 👨‍👩‍👧 🇯🇵",
    "CAPITALS and Mixed Case",
    # a sentencepiece file's control and unknown pieces spelled in text: what its "<s>/<unk>"
    # claim is about (sentencepiece reads them as text, Hugging Face matches them); here, not
    # only in the shared texts, so the claim is proved on a fresh clone too
    "<s>Hello</s> <unk> world",
    "",
]
if (INTEROP / "texts.txt").is_file():
    TEXTS += [json.loads(line) for line in (INTEROP / "texts.txt").read_text().splitlines()]


def claude_like() -> bytes:
    """Byte-level BPE behind NFKC, as Claude-2023's tokenizer.json (trained here, small)."""
    tok = hf.Tokenizer(hf.models.BPE())
    tok.normalizer = hf.normalizers.NFKC()
    tok.pre_tokenizer = hf.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = hf.decoders.ByteLevel()
    trainer = hf.trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=["<EOT>"],
        initial_alphabet=hf.pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(TRAIN, trainer)
    return tok.to_str().encode()


def clip_like() -> bytes:
    """As CLIP's tokenizer.json: NFC + whitespace runs + lowercase, a Split regex then ByteLevel,
    BPE with the "</w>" suffix, the BPE decoder, RobertaProcessing (trained here, small)."""
    tok = hf.Tokenizer(hf.models.BPE(end_of_word_suffix="</w>"))
    tok.normalizer = hf.normalizers.Sequence(
        [
            hf.normalizers.NFC(),
            hf.normalizers.Replace(hf.Regex(r"\s+"), " "),
            hf.normalizers.Lowercase(),
        ]
    )
    tok.pre_tokenizer = hf.pre_tokenizers.Sequence(
        [
            hf.pre_tokenizers.Split(
                hf.Regex(
                    r"'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|"
                    r"[^\s\p{L}\p{N}]+"
                ),
                behavior="removed",
                invert=True,
            ),
            hf.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = hf.decoders.BPEDecoder(suffix="</w>")
    trainer = hf.trainers.BpeTrainer(
        vocab_size=600,
        end_of_word_suffix="</w>",
        special_tokens=["<|startoftext|>", "<|endoftext|>"],
        initial_alphabet=hf.pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(TRAIN, trainer)
    tok.post_processor = hf.processors.RobertaProcessing(
        ("<|endoftext|>", tok.token_to_id("<|endoftext|>")),
        ("<|startoftext|>", tok.token_to_id("<|startoftext|>")),
    )
    return tok.to_str().encode()


TOKENIZERS = [
    "r50k_base",
    "cl100k_base",
    "o200k_base",
    "bert-base-uncased",
    "botchan_en_unigram_1000",
    "botchan_en_bpe_1000",
    "char",
    "trained byte_bpe",
    "trained bpe",
    "trained wordpiece",
    "trained unigram",
    "trained sentencepiece_bpe",
    "claude-like",
    "clip-like",
    "llama3",
]


@pytest.fixture(scope="module")
def tokenizers() -> dict:
    return {}


def get(tokenizers: dict, which: str):
    if which not in tokenizers:
        if which.startswith("trained "):
            tokenizers[which] = tc.train(which.split()[1], TRAIN, vocab_size=500)
        elif which == "claude-like":
            tokenizers[which] = tc.load(claude_like(), name="claude-like")
        elif which == "clip-like":
            tokenizers[which] = tc.load(clip_like(), name="clip-like")
        elif which == "llama3":
            path = INTEROP / "converted" / "llama3.tokenizer.json"
            if not path.is_file():
                pytest.skip("the shared interop data (Llama 3's tokenizer.json) is absent")
            tokenizers[which] = tc.load(str(path))
        else:
            tokenizers[which] = tc.load(which)
    return tokenizers[which]


# ---- what the reference libraries make of a file ---------------------------------------------
def reference(tok, format: str, data: bytes, pattern: str | None):
    """A function text -> ids, by the library that owns `format`, loading `data`."""
    if format == "hf_json":
        ref = hf.Tokenizer.from_str(data.decode("utf-8"))
        return lambda text: ref.encode(text).ids
    if format == "tiktoken":
        specials = dict(getattr(tok, "special_tokens", None) or {})
        specials.update({t.content: t.id for t in tok.added_tokens})
        enc = tiktoken.Encoding(
            "exported", pat_str=pattern, mergeable_ranks=parse_ranks(data), special_tokens=specials
        )
        return lambda text: enc.encode(text, allowed_special="all")
    if format == "sentencepiece":
        sp = spm.SentencePieceProcessor(model_proto=data)
        return sp.encode
    if format == "vocab_txt":
        vocab = {t: i for i, t in enumerate(data.decode("utf-8").splitlines())}
        ref = hf.implementations.BertWordPieceTokenizer(vocab, lowercase=not is_cased(list(vocab)))
        return lambda text: ref.encode(text).ids
    back = tc.load(data)  # vocab.json + merges.txt: our reader
    return lambda text: back.encode(text).ids


def agrees(ref, mine, text: str) -> bool:
    try:
        return ref(text) == mine(text)
    except ValueError:  # the file's pipeline cannot encode the text at all
        return False


def ours(tok):
    """Our ids; a tiktoken-style tokeniser reads special tokens in the text, as the formats do
    (tokenizer.json always matches them; tiktoken is asked to with allowed_special="all")."""
    if hasattr(tok, "allowed"):
        return lambda text: tok.encode(text, allowed_special="all").ids
    return lambda text: tok.encode(text).ids


# ---- the claims, on every tokeniser x format ---------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("which", TOKENIZERS)
def test_every_claim_holds_in_the_reference_library(tokenizers, which, format):
    tok = get(tokenizers, which)
    said = exactness(tok, format)
    if said.refused is not None:
        if not any(why in said.refused for why in ("too large", "does not load back", "rules")):
            with pytest.raises(ValueError):
                dump_bytes(tok, format)  # the writer's own refusal
        return
    data = dump_bytes(tok, format)
    ref, mine = reference(tok, format, data, said.pattern), ours(tok)
    differ = [t for t in TEXTS if not agrees(ref, mine, t)]
    if said.exact:
        assert not differ, f"{which} as {format} is called exact but differs on {differ[0]!r}"
    for change in said.changes:
        assert is_real(tok, change, differ), change


def is_real(tok, change: str, differ: list[str]) -> bool:
    """Does the tokeniser really have the part the sentence says is lost? (`differ`: the texts
    on which the reference library gives other ids)"""
    if change.startswith("Text that spells a control or unknown piece"):
        return any(p in t for t in differ for p in ("<s>", "</s>", "<unk>"))
    if change.startswith("The model's"):
        return True  # read off the two models' settings
    if change.startswith("The normaliser"):
        return any(tok.normalizer.normalize_str(t) != t for t in TEXTS)
    if change.startswith("The end-of-word suffix"):
        return any(t.endswith("</w>") for text in TEXTS for t in tok.encode(text).tokens)
    if change.startswith("The post-processor"):
        return any(tok.encode(t).ids != tok.encode(t, add_special_tokens=False).ids for t in TEXTS)
    if "merges make a token another merge also makes" in change:
        made = [tok.model.vocab[a + b] for a, b in tok.model.merges]
        return len(made) > len(set(made))
    if change.startswith("The pre-tokenizer"):
        return tok.pre_tokenizer is not None
    if change.startswith("A ") and " is added: " in change:
        return True  # the file's reader adds a part ours lacks
    if change.startswith("The decoder"):
        return tok.decoder is not None
    if "added token" in change:
        return bool(tok.added_tokens)
    raise AssertionError(f"a change the test does not know how to check: {change}")


# ---- the cases of the issue -------------------------------------------------------------------
def test_claude_like_tiktoken_says_the_normaliser_is_dropped(tokenizers):
    said = exactness(get(tokenizers, "claude-like"), "tiktoken")
    assert said.lossy and any("normaliser (NFKC)" in c for c in said.changes), said
    assert exactness(get(tokenizers, "claude-like"), "hf_json").exact


def test_clip_like_tiktoken_says_the_suffix_is_lost(tokenizers):
    said = exactness(get(tokenizers, "clip-like"), "tiktoken")
    assert said.lossy
    assert any("'</w>' is lost" in c for c in said.changes), said.changes
    assert any(c.startswith("The normaliser") for c in said.changes)
    assert any(c.startswith("The decoder") for c in said.changes)


@pytest.mark.heavy
def test_llama3_tiktoken_is_written_and_says_what_it_loses(tokenizers):
    tok = get(tokenizers, "llama3")
    said = exactness(tok, "tiktoken")
    assert said.lossy and said.pattern is not None
    assert any("<|begin_of_text|>" in c for c in said.changes), said.changes
    data = dump_bytes(tok, "tiktoken")  # it was a 422 before
    ranks = parse_ranks(data)
    assert len(ranks) == 128_000


def test_mistral_style_sentencepiece_bpe_with_user_defined_pieces_is_refused_as_tokenizer_json():
    """Mistral v3/v7 `.model` files: sentencepiece BPE whose control words ([INST], ...) are
    user-defined pieces; the reason is the writer's own."""
    import io

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TRAIN),
        model_writer=model,
        model_type="bpe",
        vocab_size=400,
        byte_fallback=True,
        user_defined_symbols=["[INST]", "[/INST]"],
    )
    tok = tc.load(model.getvalue())
    said = exactness(tok, "hf_json")
    assert said.refused and "user-defined pieces" in said.refused
    assert exactness(tok, "sentencepiece").exact
