"""The vocabulary diff (`tokenizers_core.audit.vocab_diff`): vocabularies compared by the bytes
their tokens stand for, the agreement of their ids, and the words two tokenisers split
differently on a corpus.

Small vocabularies built here have known overlaps; the real checks compare cl100k_base and
o200k_base with tiktoken's own byte lists, and cl100k_base with Llama 3 (shared interop files)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

import tokenizers_core as tc
from tests.shared_data import INTEROP
from tokenizers_core.audit.token_bytes import CONTINUES, ENDS, SPECIAL, entry_of, token_entries
from tokenizers_core.audit.vocab_diff import corpus_splits, longest_increasing, vocab_diff
from tokenizers_core.corpora import load_corpus

LLAMA3 = INTEROP / "converted" / "llama3.tokenizer.json"
LLAMA4 = INTEROP / "converted" / "llama4.tokenizer.json"


def ranks_file(extra: list[bytes]) -> tc.Tokenizer:
    """A tiktoken ranks file: the 256 bytes (ranks 0-255), then `extra` in order."""
    tokens = [bytes([i]) for i in range(256)] + extra
    data = "".join(f"{base64.b64encode(t).decode()} {rank}\n" for rank, t in enumerate(tokens))
    return tc.load(data.encode(), pattern="gpt2", special_tokens={"<|endoftext|>": len(tokens)})


# ---- small vocabularies with known overlaps -----------------------------------------------------


def test_two_ranks_files_share_by_bytes_and_part_where_their_ids_do():
    """A = bytes, "ab", " the", "xy"; B = bytes, " the", "ab", "zz". They share the 256 bytes,
    "ab", " the" and <|endoftext|> (259 entries); A alone has "xy", B alone "zz". Ids 0-255
    agree, and at 256 they part: A's "ab" is 257 in B, B's " the" is 257 in A. The longest
    chain in the same order is the bytes, one of the swapped pair and <|endoftext|>: 258."""
    a = ranks_file([b"ab", b" the", b"xy"])
    b = ranks_file([b" the", b"ab", b"zz"])
    d = vocab_diff(a, b)
    assert (d.size_a, d.size_b) == (260, 260)
    assert len(d.shared) == 259
    assert [e.data for e in d.only_a] == [b"xy"] and [e.data for e in d.only_b] == [b"zz"]
    r = d.ranks
    assert r.prefix == 256 and r.parted
    assert (r.part_a.data, r.part_b.data) == (b"ab", b" the")
    assert (r.part_a_in_b, r.part_b_in_a) == (257, 257)
    assert r.same_id == 256 + 1  # the bytes and <|endoftext|> (259 in both)
    assert r.in_order == 258


def test_one_vocabulary_that_extends_another_never_parts():
    a = ranks_file([b"ab"])
    b = ranks_file([b"ab", b"cd"])
    d = vocab_diff(a, b)
    assert d.ranks.prefix == 257 and not d.ranks.parted or d.ranks.part_a.special


def test_byte_level_spelling_is_undone_and_specials_are_flagged():
    cl100k = tc.load("cl100k_base")
    the = entry_of(cl100k, cl100k.encode(" the").ids[0])
    assert (the.token, the.data, the.marker) == ("Ġthe", b" the", "")
    end = entry_of(cl100k, 100257)
    assert end.special and end.data == b"<|endoftext|>" and end.key == (SPECIAL, b"<|endoftext|>")


def test_wordpiece_continuations_are_a_marker_kept_apart_from_the_bytes():
    bert = tc.load("bert-base-uncased")
    ing, cont = entry_of(bert, bert.token_to_id("ing")), entry_of(bert, bert.token_to_id("##ing"))
    assert ing.data == cont.data == b"ing"
    assert (ing.marker, cont.marker) == ("", CONTINUES)
    assert entry_of(bert, bert.token_to_id("[CLS]")).special


def test_clip_word_ends_are_a_marker_kept_apart_from_the_bytes():
    clip = tc.load("clip")
    entry = entry_of(clip, clip.model.vocab["ing</w>"])
    assert (entry.data, entry.marker) == (b"ing", ENDS)
    assert entry_of(clip, clip.model.vocab["ing"]).marker == ""


def test_sentencepiece_metaspace_is_a_space_and_byte_pieces_are_their_byte():
    mistral = tc.load("mistral_v1")
    assert entry_of(mistral, mistral.model.vocab["▁the"]).data == b" the"
    assert entry_of(mistral, mistral.model.vocab["<0xE2>"]).data == b"\xe2"
    assert entry_of(mistral, 1).special  # <s>, a control piece
    d = vocab_diff(mistral, mistral)
    # <0x41> stands for the same byte as A: the first by id speaks for both
    assert d.duplicates_a == d.duplicates_b > 0
    assert len(d.shared) + d.duplicates_a == d.size_a and not d.only_a


def test_a_wordpiece_and_a_byte_level_vocabulary_share_plain_words_only():
    """BERT's `the` is b"the" and so is cl100k's `the`; BERT's `##ing` (a continuation) has no
    counterpart in a byte-level vocabulary, which has no markers."""
    d = vocab_diff(tc.load("bert-base-uncased"), tc.load("cl100k_base"))
    shared = {s.a.token for s in d.shared}
    assert "the" in shared and "##ing" not in shared
    assert all(s.a.marker != CONTINUES for s in d.shared)


def test_longest_increasing_chain():
    assert longest_increasing([3, 1, 2, 0, 4]) == 3
    assert longest_increasing(list(range(10))) == 10
    assert longest_increasing(list(range(10, 0, -1))) == 1


def test_a_rule_tokeniser_has_no_vocabulary_to_compare():
    with pytest.raises(ValueError, match="no vocabulary"):
        vocab_diff(tc.load("char"), tc.load("cl100k_base"))


# ---- words split differently on a corpus --------------------------------------------------------


def test_words_split_differently_most_frequent_first():
    """cl100k splits ` Kiyo` as `ĠKi yo`, o200k as `ĠK iyo`; ` Clown` is one cl100k token and
    two of o200k's; ` the` is one token in both."""
    c = corpus_splits(tc.load("cl100k_base"), tc.load("o200k_base"), " Kiyo Kiyo the Kiyo Clown")
    assert (c.words, c.same) == (5, 1)
    assert [(w.word, w.count) for w in c.differing] == [("Kiyo", 3), ("Clown", 1)]
    kiyo = c.differing[0]
    assert [e.token for e in kiyo.a] == ["ĠKi", "yo"]
    assert [e.token for e in kiyo.b] == ["ĠK", "iyo"]


def test_a_leading_space_or_a_lower_case_is_not_a_different_split():
    """BERT lowercases and drops the space; cl100k keeps both in `Ġthe`: one piece each, so the
    word ` the` is split the same way."""
    c = corpus_splits(tc.load("bert-base-uncased"), tc.load("cl100k_base"), "go the The")
    assert c.words == 3 and c.same == 3 and not c.differing


def test_the_same_tokeniser_splits_every_word_the_same():
    text = load_corpus("udhr/eng")[:5000]
    tok = tc.load("mistral_v1")
    c = corpus_splits(tok, tok, text)
    assert c.words > 500 and c.same == c.words and c.tokens_a == c.tokens_b


def test_special_token_strings_in_the_corpus_are_ordinary_text():
    c = corpus_splits(tc.load("cl100k_base"), tc.load("r50k_base"), "a <|endoftext|> b")
    assert c.tokens_a > 3 and all(not e.special for w in c.differing for e in w.a + w.b)


def test_to_dict_is_json_safe():
    import json

    d = vocab_diff(ranks_file([b"ab"]), ranks_file([b"\xff\xfe"]), corpus="ab ab")
    data = json.loads(json.dumps(d.to_dict(limit=5)))
    assert data["only_b_tokens"][0]["bytes"] == "fffe"
    assert data["corpus"]["words"] == 2 and data["shared"] == 257


# ---- real vocabularies --------------------------------------------------------------------------


def _tiktoken(name: str):
    tiktoken = pytest.importorskip("tiktoken")
    from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
    from tokenizers_core.pre_tokenizers import PRESETS

    preset, specials = ENCODINGS[name]
    return tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
    )


@pytest.mark.heavy
def test_cl100k_and_o200k_share_what_tiktoken_byte_lists_share():
    ref_a, ref_b = _tiktoken("cl100k_base"), _tiktoken("o200k_base")
    bytes_a, bytes_b = set(ref_a.token_byte_values()), set(ref_b.token_byte_values())
    d = vocab_diff(tc.load("cl100k_base"), tc.load("o200k_base"))
    plain = [s for s in d.shared if not s.a.special]
    assert len(plain) == len(bytes_a & bytes_b)
    assert {s.a.data for s in plain} == bytes_a & bytes_b
    assert {e.data for e in d.only_a if not e.special} == bytes_a - bytes_b
    assert {e.data for e in d.only_b if not e.special} == bytes_b - bytes_a
    specials = {s.a.token for s in d.shared if s.a.special}
    assert specials == set(ref_a.special_tokens_set) & set(ref_b.special_tokens_set)
    for s in plain[:2000]:  # and each side's id is tiktoken's rank
        assert ref_a.encode_single_token(s.a.data) == s.a.id
        assert ref_b.encode_single_token(s.b.data) == s.b.id


def _llama(path: Path) -> tc.Tokenizer:
    if not path.is_file():
        pytest.skip(
            f"needs the shared interop files ({path}): ../shared/data/interop is absent beside the repository"
        )
    return tc.load(str(path))


@pytest.mark.heavy
def test_llama3_keeps_cl100k_ranks_then_parts():
    """Llama 3's first 100,256 ids are cl100k_base's ranks; cl100k has no rank 100,256 (its
    specials start at 100,257), where Llama 3 goes on with its own tokens."""
    llama3 = _llama(LLAMA3)
    d = vocab_diff(tc.load("cl100k_base"), llama3)
    assert d.ranks.prefix == 100_256
    assert d.ranks.part_a is None and d.ranks.part_b is not None
    assert not [e for e in d.only_a if not e.special]  # every cl100k rank is in Llama 3
    assert len(d.only_b) >= 28_000 - 256


@pytest.mark.heavy
def test_llama3_against_llama4():
    d = vocab_diff(_llama(LLAMA3), _llama(LLAMA4))
    assert d.size_a == 128_256 and d.size_b == 202_048
    assert 0 < len(d.shared) < 128_256 and d.only_a and d.only_b
    assert sum(1 for e in token_entries(_llama(LLAMA3)) if e.special) == 256


def test_a_cased_wordpiece_vocabulary_against_bert_uncased():
    """BERT cased against uncased, on a small cased vocab.txt (the real one is not bundled):
    the cased words are only in A, the lower-case ones and `##ing` are shared, and the
    special tokens match by their text whatever their ids."""
    cased = (
        "\n".join(
            [
                "[PAD]",
                "[UNK]",
                "[CLS]",
                "[SEP]",
                "[MASK]",
                "The",
                "the",
                "Paris",
                "##ing",
                "##Ing",
                "a",
            ]
        )
        + "\n"
    )
    tok = tc.load(cased.encode(), lowercase=False)
    d = vocab_diff(tok, tc.load("bert-base-uncased"))
    assert {e.token for e in d.only_a} == {"The", "Paris", "##Ing"}
    shared = {s.a.token: s.b.token for s in d.shared}
    assert shared["##ing"] == "##ing" and shared["the"] == "the" and shared["[CLS]"] == "[CLS]"
    assert all(s.a.marker == s.b.marker for s in d.shared)
    assert d.ranks.prefix == 1 and d.ranks.part_a.token == "[UNK]"  # [PAD] is 0 in both


def test_a_sentencepiece_model_and_its_tokenizer_json_are_the_same_vocabulary(tmp_path):
    """Mistral v1's .model and the tokenizer.json written from it (a Metaspace BPE with byte
    fallback in Hugging Face's pipeline) spell the same tokens: ▁ as a space and <0xNN> as its
    byte in both, the same ids."""
    mistral = tc.load("mistral_v1")
    path = tmp_path / "mistral_v1.json"
    mistral.save(str(path))
    d = vocab_diff(mistral, tc.load(str(path)))
    assert not d.only_a and not d.only_b
    assert d.ranks.same_id == len(d.shared) and d.ranks.prefix == d.size_a == d.size_b
    converted = {s.b.token: s.b for s in d.shared}
    assert converted["▁the"].data == b" the" and converted["<0x41>"].data == b"A"


@pytest.mark.heavy
def test_cl100k_and_the_tokenizer_json_written_from_it_are_one_vocabulary():
    """The tiktoken ranks and Hugging Face's byte-level BPE spell tokens differently inside
    (bytes against the GPT-2 alphabet); read as bytes they are the same, specials included."""
    import json

    cl100k = tc.load("cl100k_base")
    d = vocab_diff(cl100k, tc.load(json.dumps(cl100k.to_hf_json()).encode("utf-8")))
    assert not d.only_a and not d.only_b and d.size_a == d.size_b == 100_261
    assert d.ranks.same_id == len(d.shared)
