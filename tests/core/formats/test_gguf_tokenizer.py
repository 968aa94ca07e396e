"""A GGUF written from a tokenizer (with the `gguf` package, as llama.cpp's converter writes
it) loads into a Tokenizer that encodes as the source does, on multilingual texts; with the
pre-tokenizer `default` it does not, and says why."""

from __future__ import annotations

import gzip
import json
import os
import pickle

import pytest
import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2

import tokenizers_core as tc
from tests.gguf_files import (
    INTEROP,
    write,
    write_bert,
    write_gpt2,
    write_llama3,
    write_sentencepiece,
)
from tokenizers_core.corpora import load_corpus
from tokenizers_core.formats import gguf_pre
from tokenizers_core.formats.gguf_wpm import WpmNormalizer, WpmPreTokenizer
from tokenizers_core.normalizers import BertNormalizer
from tokenizers_core.pre_tokenizers import BertPreTokenizer

DATA = os.path.join(os.path.dirname(tc.__file__), "data")
needs_interop = pytest.mark.skipif(not INTEROP, reason="../shared/data/interop is absent")


def _texts() -> list[str]:
    """UDHR paragraphs in several scripts, the start of Botchan, and the interop texts."""
    texts = [
        load_corpus(f"udhr/{code}")[:1500]
        for code in (
            "eng",
            "fra",
            "deu_1996",
            "ell_monotonic",
            "arb",
            "cmn_hans",
            "amh",
            "ben",
            "fin",
        )
    ]
    texts += load_corpus("botchan")[:20_000].split("\n\n")
    if INTEROP:
        with open(os.path.join(INTEROP, "texts.txt"), encoding="utf-8") as fh:
            texts += [json.loads(line) for line in fh if line.strip()]
    return texts


TEXTS = _texts()


def wpm_differs(text: str) -> bool:
    """Whether llama.cpp's WPM pre-processing cuts `text` into other words than BERT's, or
    finds a word over BERT's 100 characters (llama.cpp has no such limit)."""
    bert = BertPreTokenizer().pre_tokenize_str(BertNormalizer().normalize_str(text))
    wpm = WpmPreTokenizer().pre_tokenize_str(WpmNormalizer().normalize_str(text))
    return [p for p, _ in bert] != [p for p, _ in wpm] or any(len(p) > 100 for p, _ in wpm)


def _ids(tok, texts, **options):
    return [tok.encode(t, **options).ids for t in texts]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("gguf")


@pytest.mark.heavy
def test_gpt2_as_gguf_encodes_as_the_bundled_gpt2(folder):
    tok = tc.load(write_gpt2(str(folder / "gpt2.gguf")))
    ours = tc.load("gpt2")
    # <|endoftext|> typed in the text is a control token to llama.cpp, text to tiktoken
    assert _ids(tok, TEXTS, encode_special_tokens=True) == _ids(ours, TEXTS, disallowed_special=())
    assert tok.gguf["pre"] == "gpt-2" and tok.warnings == []
    assert tok.encode("a<|endoftext|>").ids == [64, 50256]
    assert (
        pickle.loads(pickle.dumps(tok)).encode("héllo wörld").ids == ours.encode("héllo wörld").ids
    )


@pytest.mark.heavy
@needs_interop
def test_llama3_as_gguf_encodes_as_its_tokenizer_json(folder):
    tok = tc.load(write_llama3(str(folder / "llama3.gguf")))
    source = tc.load(os.path.join(INTEROP, "converted", "llama3.tokenizer.json"))
    assert _ids(tok, TEXTS) == _ids(source, TEXTS)
    with open(os.path.join(INTEROP, "special_texts.json"), encoding="utf-8") as fh:
        specials = json.load(fh)["llama3.tokenizer.json"]  # control tokens in the text
    assert _ids(tok, specials) == _ids(source, specials)
    assert tok.encode("Hi").ids[0] == 128000  # llama-bpe adds BOS
    assert tok.chat_template.startswith("{{ bos_token }}")


@pytest.mark.heavy
@needs_interop
def test_llama3_with_the_default_pre_tokenizer_differs_and_says_why(folder):
    tok = tc.load(write_llama3(str(folder / "llama3-default.gguf"), pre="default"))
    source = tc.load(os.path.join(INTEROP, "converted", "llama3.tokenizer.json"))
    text = "It wasn't 12345 dollars,\n\n  said she."
    assert tok.encode(text).ids != source.encode(text).ids
    assert "'default'" in tok.warnings[0] and "tokenizer.json" in tok.warnings[0]


@pytest.mark.heavy
def test_an_unknown_pre_tokenizer_loads_with_the_default_regexes_and_a_warning(folder):
    tok = tc.load(write_gpt2(str(folder / "odd.gguf"), pre="no-such-model"))
    assert "not one we know" in tok.warnings[0]
    default = tc.load(write_gpt2(str(folder / "default.gguf"), pre="default"))
    assert _ids(tok, TEXTS[:5]) == _ids(default, TEXTS[:5])
    assert default.encode("x 12345").tokens == ["x", "Ġ", "123", "45"]  # as llama.cpp splits


def test_the_pre_tokenizer_table_names_llama_cpps_common_names():
    for name in (
        "llama-bpe",
        "llama3",
        "qwen2",
        "gpt-2",
        "default",
        "deepseek-llm",
        "deepseek-coder",
        "starcoder",
        "falcon",
        "tekken",
        "gpt-4o",
        "command-r",
    ):
        assert gguf_pre.lookup(name).known, name
    assert gguf_pre.lookup("llama-bpe").ignore_merges
    assert gguf_pre.warning("qwen2") is None


def test_the_unigram_model_as_t5_encodes_as_sentencepiece(folder):
    tok = tc.load(write_sentencepiece(str(folder / "t5.gguf"), "botchan_en_unigram_1000", "t5"))
    sp = spm.SentencePieceProcessor(
        model_file=None,
        model_proto=gzip.decompress(
            open(os.path.join(DATA, "botchan_en_unigram_1000.model.gz"), "rb").read()
        ),
    )
    # sentencepiece reads "<s>" typed in a text as text: llama.cpp's parse_special=false
    plain = {"add_special_tokens": False, "encode_special_tokens": True}
    assert _ids(tok, TEXTS, **plain) == [sp.encode(t) for t in TEXTS]
    assert tok.encode("hi").tokens[-1] == "</s>"  # t5 adds EOS


def test_the_bpe_model_as_llama_encodes_as_sentencepiece_without_its_charsmap(folder):
    """llama.cpp's SPM tokenizer has no NFKC charsmap and keeps runs of spaces: it matches
    sentencepiece running the same pieces with the identity normaliser and
    remove_extra_whitespaces off (BPE by the scores of the pieces)."""
    tok = tc.load(write_sentencepiece(str(folder / "llama.gguf"), "botchan_en_bpe_1000", "llama"))
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(
        gzip.decompress(open(os.path.join(DATA, "botchan_en_bpe_1000.model.gz"), "rb").read())
    )
    proto.normalizer_spec.name = "identity"
    proto.normalizer_spec.precompiled_charsmap = b""
    proto.normalizer_spec.remove_extra_whitespaces = False
    sp = spm.SentencePieceProcessor(model_proto=proto.SerializeToString())
    plain = {"add_special_tokens": False, "encode_special_tokens": True}
    assert _ids(tok, TEXTS, **plain) == [sp.encode(t) for t in TEXTS]
    assert tok.encode("hi").tokens[0] == "<s>"  # llama adds BOS
    assert tok.encode("a  b", add_special_tokens=False).tokens == sp.encode("a  b", out_type=str)
    assert "▁▁" in "".join(tok.encode("a  b").tokens)  # both spaces kept


@pytest.mark.heavy
def test_bert_as_gguf_encodes_as_the_bundled_bert(folder):
    """The same ids wherever llama.cpp's WPM pre-processing cuts the same words as BERT's
    (it differs on spacing marks, Hangul and the like: Bengali's vowel signs here)."""
    tok = tc.load(write_bert(str(folder / "bert.gguf")))
    same = [t for t in TEXTS if not wpm_differs(t)]
    assert len(same) >= len(TEXTS) - 3
    assert _ids(tok, same) == _ids(tc.load("bert-base-uncased"), same)


@pytest.mark.heavy
@needs_interop
def test_a_gguf_saves_as_a_tokenizer_json_that_hugging_face_runs_the_same(folder):
    """GGUF -> tokenizer.json: the file Hugging Face `tokenizers` loads encodes as the GGUF
    does (the llama.cpp regexes travel as Split pre-tokenizers)."""
    from tokenizers import Tokenizer as HFTokenizer

    tok = tc.load(write_llama3(str(folder / "llama3-save.gguf"), pre="qwen2"))
    tok.save(str(folder / "from-gguf.json"))
    theirs = HFTokenizer.from_file(str(folder / "from-gguf.json"))
    assert _ids(tok, TEXTS) == [theirs.encode(t).ids for t in TEXTS]


def test_control_tokens_typed_in_the_text_are_parsed_for_llama_and_t5(folder):
    """llama.cpp's `tokenizer_st_partition` matches control tokens in the raw text when special
    tokens are parsed, and its SPM prefixes a space to the text after one: "<s>hi" is
    `<s>` then "▁hi" (not "▁<", "s", ">", "hi"); with parsing off it is text again."""
    for model in ("llama", "t5"):
        name = "botchan_en_bpe_1000" if model == "llama" else "botchan_en_unigram_1000"
        tok = tc.load(write_sentencepiece(str(folder / f"parse-{model}.gguf"), name, model))
        parsed = tok.encode("<s>hi", add_special_tokens=False)
        assert parsed.tokens[0] == "<s>" and parsed.tokens[1].startswith("\u2581"), model
        plain = tok.encode("<s>hi", add_special_tokens=False, encode_special_tokens=True)
        assert "<s>" not in plain.tokens, model


def test_tokens_typed_unknown_beside_the_unknown_id_load_as_control_tokens(folder):
    """Phi-3's GGUF types 53 `[PAD...]` tokens UNKNOWN and names <unk> (typed CONTROL) as its
    unknown id: llama.cpp loads it (one unknown id, from the metadata); so do we, and the
    extra UNKNOWN tokens are special tokens, matched only when special tokens are parsed."""
    pieces = tc.load("botchan_en_bpe_1000").proto.pieces
    unk = next(i for i, (_p, _s, t) in enumerate(pieces) if t == 2)
    path = write(
        str(folder / "phi3-like.gguf"),
        {
            "add_tokenizer_model": "llama",
            "add_token_list": [p for p, _s, _t in pieces] + ["[PAD1]", "[PAD2]"],
            "add_token_scores": [s for _p, s, _t in pieces] + [0.0, 0.0],
            "add_token_types": [3 if i == unk else t for i, (_p, _s, t) in enumerate(pieces)]
            + [2, 2],
            "add_unk_token_id": unk,
        },
    )
    tok = tc.load(path)
    assert tok.encode("x[PAD2]", add_special_tokens=False).tokens[-1] == "[PAD2]"
    plain = tok.encode("x[PAD2]", add_special_tokens=False, encode_special_tokens=True)
    assert "[PAD2]" not in plain.tokens


def test_user_defined_tokens_llama_cpp_flags_as_control_are_text_with_parsing_off(folder):
    """Phi-3's GGUF types `</s>` USER_DEFINED; llama.cpp's `load` adds the CONTROL flag to
    every token whose text is on its end-of-generation list (`</s>`, `<|endoftext|>`,
    `<|im_end|>`, ...), and `tokenizer_st_partition` skips control tokens when special
    tokens are not parsed: typed in the text, `</s>` is text there (it was our id 2). Other
    user-defined tokens are matched either way."""
    pieces = tc.load("botchan_en_bpe_1000").proto.pieces
    tokens = [p for p, _s, _t in pieces] + ["<|mine|>", "<|im_end|>"]
    types = [4 if p == "</s>" else t for p, _s, t in pieces] + [4, 4]
    path = write(
        str(folder / "phi3-user-defined.gguf"),
        {
            "add_tokenizer_model": "llama",
            "add_token_list": tokens,
            "add_token_scores": [s for _p, s, _t in pieces] + [0.0, 0.0],
            "add_token_types": types,
        },
    )
    tok = tc.load(path)
    text = "hi</s> there<|im_end|> and <|mine|>"
    parsed = tok.encode(text, add_special_tokens=False)
    assert {"</s>", "<|im_end|>", "<|mine|>"} <= set(parsed.tokens)
    plain = tok.encode(text, add_special_tokens=False, encode_special_tokens=True)
    assert "</s>" not in plain.tokens and "<|im_end|>" not in plain.tokens
    assert "<|mine|>" in plain.tokens  # user-defined: matched whatever the switch says
