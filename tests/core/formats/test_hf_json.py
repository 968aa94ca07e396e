"""tokenizer.json files as real models ship them, against `tokenizers` 0.23.3 itself.

Every file is built here with `tokenizers` (trained on botchan, or with sentencepiece for T5's
charsmap) in the layout a real model family uses, saved, and loaded by both libraries; the real
Llama 3 file is read from ../shared/data/interop when it is there. On UDHR texts, botchan and
Hypothesis text both must give the same ids, tokens, offsets (characters of the original text),
special-tokens mask and decode (keeping and skipping special tokens).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests.shared_data import INTEROP
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.formats import hf_json

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import (
    AddedToken,
    Regex,
    Tokenizer,
    decoders,
    models,
    normalizers,  # noqa: E402
    pre_tokenizers,
    processors,
    trainers,
)

LLAMA3 = INTEROP / "converted" / "llama3.tokenizer.json"
INTEROP_TEXTS = LLAMA3.parent.parent / "texts.txt"
BYTES = [f"<0x{b:02X}>" for b in range(256)]
QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+"
    r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _texts() -> list[str]:
    """The first 1,500 characters of each UDHR text, 20,000 of botchan, and edge cases."""
    out = [load_corpus(name)[:1500] for name in corpus_names() if name.startswith("udhr/")]
    out.append(load_corpus("botchan")[:20_000])
    out += [
        "",
        " ",
        "  leading and trailing  ",
        "tab\there\nnew line\r\n",
        "12345 67.8 9,000",
        "don't WE'LL y'all",
        "emoji 👍🏽 and 🇯🇵 flags",
        "Ωmega ǅ ﬁ ß İ",
        "a  b   c",
    ]
    return out


TEXTS = _texts()


def _lines():
    return load_corpus("botchan").splitlines()[:3000]


def _compare(ref: Tokenizer, ours, texts=TEXTS) -> None:
    for text in texts:
        for add_special in (True, False):
            e = ref.encode(text, add_special_tokens=add_special)
            o = ours.encode(text, add_special_tokens=add_special)
            assert o.ids == e.ids, (text[:60], add_special)
            assert o.tokens == e.tokens, text[:60]
            assert [tuple(x) for x in o.offsets] == [tuple(x) for x in e.offsets], text[:60]
            assert o.special_tokens_mask == e.special_tokens_mask, text[:60]
        for skip in (False, True):
            assert ours.decode(e.ids, skip_special_tokens=skip) == ref.decode(
                e.ids, skip_special_tokens=skip
            ), (text[:60], skip)


def _load_both(tok: Tokenizer, tmp_path: Path):
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    return Tokenizer.from_file(str(path)), tc.load(str(path))


# ---- builders: one per model family -----------------------------------------------------------------
def llama2_style() -> Tokenizer:
    """Llama 2 / Mistral v0.1: normalizer Prepend("▁") + Replace(" ", "▁"), no pre-tokenizer,
    BPE with byte_fallback and fuse_unk, decoder Replace + ByteFallback + Fuse + Strip."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tok.train_from_iterator(
        _lines(),
        trainers.BpeTrainer(
            vocab_size=1200, special_tokens=["<unk>", "<s>", "</s>"] + BYTES, show_progress=False
        ),
    )
    tok.pre_tokenizer = None
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence(
        [
            decoders.Replace("▁", " "),
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Strip(" ", 1, 0),
        ]
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", tok.token_to_id("<s>"))]
    )
    return tok


def mistral_metaspace_style() -> Tokenizer:
    """Mistral / Llama 2 as converted since tokenizers 0.19: Metaspace(prepend_scheme="first",
    split=False) pre-tokenizer, decoder Metaspace."""
    tok = llama2_style()
    tok.normalizer = None
    tok.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement="▁", prepend_scheme="first", split=False
    )
    tok.decoder = decoders.Sequence(
        [
            decoders.ByteFallback(),
            decoders.Metaspace(replacement="▁", prepend_scheme="first", split=False),
        ]
    )
    return tok


def roberta_style() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(
        _lines(),
        trainers.BpeTrainer(
            vocab_size=1200,
            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.RobertaProcessing(
        ("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False
    )
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True)])
    return tok


def gpt1_charbpe_style() -> Tokenizer:
    """GPT-1 (openai-gpt): BertNormalizer-style lowercasing, BertPreTokenizer, BPE with a
    `</w>` end-of-word suffix, BPEDecoder."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()]
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(
        _lines(),
        trainers.BpeTrainer(
            vocab_size=1200,
            special_tokens=["<unk>"],
            end_of_word_suffix="</w>",
            show_progress=False,
        ),
    )
    tok.decoder = decoders.BPEDecoder(suffix="</w>")
    return tok


def cased_bert_style() -> Tokenizer:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(
        lowercase=False, strip_accents=False, clean_text=True, handle_chinese_chars=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(
        _lines(),
        trainers.WordPieceTrainer(
            vocab_size=1500,
            special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
            show_progress=False,
        ),
    )
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tok.decoder = decoders.WordPiece(prefix="##")
    return tok


def qwen_style() -> Tokenizer:
    """Qwen2 / DeepSeek: NFC, a Split chain (a regex, then digits one by one, then punctuation)
    before ByteLevel(use_regex=False)."""
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN_PATTERN), behavior="isolated"),
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.Punctuation(behavior="contiguous"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.train_from_iterator(
        _lines(),
        trainers.BpeTrainer(
            vocab_size=1200,
            special_tokens=["<|endoftext|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.add_special_tokens(["<|im_start|>", "<|im_end|>"])
    return tok


def wordlevel_style() -> Tokenizer:
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        _lines(),
        trainers.WordLevelTrainer(
            vocab_size=2000, special_tokens=["[UNK]", "[PAD]"], show_progress=False
        ),
    )
    return tok


def t5_style(tmp_path: Path) -> Tokenizer:
    """T5: Precompiled (sentencepiece's nmt_nfkc charsmap) + Metaspace + Unigram, "$A </s>"."""
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as sp_pb2

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(_lines()), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(tmp_path / "t5"),
        vocab_size=800,
        model_type="unigram",
        user_defined_symbols=[],
        minloglevel=2,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
    )
    proto = sp_pb2.ModelProto()
    proto.ParseFromString((tmp_path / "t5.model").read_bytes())
    pieces = [(p.piece, p.score) for p in proto.pieces]
    tok = Tokenizer(models.Unigram(pieces, unk_id=2, byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", 1)]
    )
    return tok


FAMILIES = {
    "llama2": llama2_style,
    "mistral_metaspace": mistral_metaspace_style,
    "roberta": roberta_style,
    "gpt1_charbpe": gpt1_charbpe_style,
    "cased_bert": cased_bert_style,
    "qwen": qwen_style,
    "wordlevel": wordlevel_style,
}
ALGORITHMS = {
    "llama2": "bpe",
    "mistral_metaspace": "bpe",
    "roberta": "byte_bpe",
    "gpt1_charbpe": "bpe",
    "cased_bert": "wordpiece",
    "qwen": "byte_bpe",
    "wordlevel": "wordlevel",
}


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def family(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    ref, ours = _load_both(FAMILIES[request.param](), tmp)
    return request.param, ref, ours


@pytest.mark.heavy
def test_family_matches_hf(family):
    name, ref, ours = family
    assert ours.algorithm == ALGORITHMS[name]
    _compare(ref, ours)


@pytest.mark.heavy
def test_t5_matches_hf(tmp_path):
    ref, ours = _load_both(t5_style(tmp_path), tmp_path)
    assert ours.algorithm == "unigram"
    _compare(ref, ours)


@pytest.mark.heavy
@settings(max_examples=60)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_families_match_hf_on_any_text(text):
    for ref, ours in _hypothesis_pairs():
        _compare(ref, ours, [text, f"{text} {text.upper()}"])


_PAIRS: list = []


def _hypothesis_pairs():
    """Three families built once (Hypothesis cannot take function-scoped fixtures)."""
    if not _PAIRS:
        for build in (llama2_style, qwen_style, cased_bert_style):
            ref = build()
            _PAIRS.append(
                (Tokenizer.from_str(ref.to_str()), hf_json.load_bytes(ref.to_str().encode()))
            )
    return _PAIRS


# ---- the real Llama 3 file -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def llama3():
    if not LLAMA3.exists():
        pytest.skip(f"{LLAMA3} is absent (the real Llama 3 file lives outside the repository)")
    return Tokenizer.from_file(str(LLAMA3)), tc.load(str(LLAMA3))


@pytest.mark.heavy
def test_llama3_matches_hf(llama3):
    ref, ours = llama3
    assert ours.algorithm == "byte_bpe" and ours.model.ignore_merges
    texts = list(TEXTS)
    if INTEROP_TEXTS.exists():
        texts += [
            json.loads(line)
            for line in INTEROP_TEXTS.read_text("utf-8").splitlines()
            if line.strip()
        ]
    texts.append("<|begin_of_text|>Hi<|eot_id|> <|start_header_id|>user<|end_header_id|>\n\n")
    _compare(ref, ours, texts)


@pytest.mark.heavy
def test_llama3_ignore_merges_takes_whole_words(llama3):
    """A word in the vocabulary is one token even when its merges would not build it:
    " jeho" merges to " j" "eh" "o", but " jeho" is a token of its own."""
    ref, ours = llama3
    model = ours.model
    from tokenizers_core.models.bpe.model import BPE

    assert BPE.merge_parts(model, list("Ġjeho")) == ["Ġj", "eh", "o"]
    [step] = model.encode_steps("Ġjeho")
    assert step.action == "whole_word" and step.merged == "Ġjeho"
    enc = ours.encode("nic jeho lardan", add_special_tokens=False)
    assert "Ġjeho" in enc.tokens
    assert enc.ids == ref.encode("nic jeho lardan", add_special_tokens=False).ids


# ---- errors ---------------------------------------------------------------------------------------
def test_errors_name_the_problem():
    good = json.loads(wordlevel_style().to_str())
    cases = [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"version": "1.0"}', 'no "model"'),
        (json.dumps(dict(good, normalizer={"type": "Shout"})).encode(), "normalizer"),
        (json.dumps(dict(good, pre_tokenizer={"type": "Shout"})).encode(), "pre_tokenizer"),
        (json.dumps(dict(good, decoder={"type": "Shout"})).encode(), "decoder"),
        (json.dumps(dict(good, post_processor={"type": "Shout"})).encode(), "post_processor"),
        (
            json.dumps(
                dict(good, model={"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]})
            ).encode(),
            "'b', which is not",
        ),
        (json.dumps(dict(good, added_tokens=[{"id": 1}])).encode(), "added_tokens"),
        (json.dumps(dict(good, truncation=[1])).encode(), "truncation"),
        (b'{"model": "\xff"}', "UTF-8"),
    ]
    for data, message in cases:
        with pytest.raises(ValueError, match=message):
            hf_json.load_bytes(data)
    with pytest.raises(ValueError, match="no options"):
        hf_json.load_bytes(json.dumps(good).encode(), pattern="gpt2")


def test_pickles(tmp_path):
    import pickle

    ref, ours = _load_both(llama2_style(), tmp_path)
    again = pickle.loads(pickle.dumps(ours))
    assert again.encode("Hello 日本").ids == ours.encode("Hello 日本").ids
