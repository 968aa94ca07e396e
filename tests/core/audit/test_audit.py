"""`tc.audit`: every category on small vocabularies built to have it, soundness of "never"
(no token a text produces is ever called never: exhaustively and with Hypothesis), and the
real cl100k, checked against tiktoken built offline from the same ranks file."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests.oracles import tiktoken_encoding
from tokenizers_core.audit import CATEGORIES, audit
from tokenizers_core.audit.health import model_closure
from tokenizers_core.models.bpe.hf import HFBpe
from tokenizers_core.pipeline import Tokenizer
from tokenizers_core.pre_tokenizers import WhitespaceSplit


def small_bpe() -> Tokenizer:
    """A BPE with each category (the merges are ranked b+c first, so "abc" cannot form from
    its own text; "zz" has no merge; "<0xC3>" is one byte of "é"; "<s>" is special)::

        ok:          a b c z ab bc                  unreachable: abc (its text gives a, bc)
        never:       zz, "a c" (no merge builds them)   undecodable: <0xC3>
        special:     <s>
    """
    vocab = {
        t: i
        for i, t in enumerate(
            ["<unk>", "<s>", "a", "b", "c", "z", "bc", "ab", "abc", "zz", "a c", "<0xC3>"]
        )
    }
    model = HFBpe(
        vocab, [("b", "c"), ("a", "b"), ("ab", "c")], unk_token="<unk>", byte_fallback=True
    )
    return Tokenizer(model, pre_tokenizer=WhitespaceSplit(), added_tokens=["<s>"], name="small")


def test_each_category_on_a_small_bpe():
    tok = small_bpe()
    report = audit(tok, corpus=["ab abc bc a", "zab"])
    got = {h.token: h.category for h in report.entries}
    assert got == {
        "<unk>": "special",
        "<s>": "special",
        "a": "ok",
        "b": "ok",
        "c": "ok",
        "z": "ok",
        "bc": "ok",
        "ab": "ok",
        "abc": "unreachable",
        "zz": "never",
        "a c": "never",
        "<0xC3>": "undecodable",
    }
    abc = report.entry(tok.token_to_id("abc"))
    assert [tok.id_to_token(i) for i in abc.reencoded] == ["a", "bc"]
    assert "encodes to 2 other tokens" in abc.reason
    assert "no merge" in report.entry(tok.token_to_id("zz")).reason
    assert set(report.counts()) == set(CATEGORIES)


def test_intermediate_and_unseen_on_a_small_bpe():
    """On "ab ab": final tokens are ab ab; a and b are inside them only -> intermediate."""
    tok = small_bpe()
    report = audit(tok, corpus=["ab ab"])
    a, b, ab, z = (tok.token_to_id(t) for t in ("a", "b", "ab", "z"))
    assert report.usage.seen[ab] == 2 and report.usage.inside[a] == 2
    assert "intermediate" in report.flags(a) and "intermediate" in report.flags(b)
    assert "intermediate" not in report.flags(ab)
    assert "unseen" in report.flags(z)
    assert [h.token for h in report.select("intermediate")] == ["a", "b"]


def test_select_filters_by_category_and_text():
    report = audit(small_bpe(), corpus=[""])
    assert [h.token for h in report.select("ok", "b")] == ["b", "bc", "ab"]
    with pytest.raises(ValueError, match="unknown category"):
        report.select("broken")
    with pytest.raises(ValueError, match="not in the vocabulary"):
        report.entry(999)


def _produced(tok, texts) -> set[int]:
    return {
        i
        for text in texts
        for i in tok.encode(text, add_special_tokens=False, encode_special_tokens=True).ids
    }


def test_never_is_sound_exhaustively_on_the_small_bpe():
    """Every string over "abcz é" up to length 5: no id produced is called never."""
    tok = small_bpe()
    report = audit(tok, corpus=[""])
    never = {h.id for h in report.entries if h.category == "never"}
    texts = ("".join(p) for n in range(1, 6) for p in itertools.product("abcz é", repeat=n))
    assert not _produced(tok, texts) & never


@pytest.fixture(scope="module")
def trained():
    """A byte-level BPE and a WordPiece trained here, audited once."""
    lines = ["the cat sat on the mat, the end.", "a bat! ab abc; éa ça"] * 5
    toks = [
        tc.train("bpe", lines, 80),
        tc.train("wordpiece", lines, 80),
        tc.train("sentencepiece_bpe", lines, 60),
    ]
    return [(tok, audit(tok, corpus=[""])) for tok in toks]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abcehmnostç é,!;.", max_size=30))
def test_never_is_sound_on_trained_vocabularies(trained, text):
    for tok, report in trained:
        never = {h.id for h in report.entries if h.category == "never"}
        assert not _produced(tok, [text]) & never, tok.algorithm


def test_the_textbook_bpe_has_provably_dead_tokens(trained):
    """The textbook BPE builds every merge it learned, so nothing is never there; its
    vocabulary is its closure."""
    tok, report = trained[0]
    assert model_closure(tok.model) is not None
    assert report.counts()["never"] == 0


# ---- BERT ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bert():
    tok = tc.load("bert-base-uncased")
    return tok, audit(tok, corpus=["The cat sat.", "unaffable"])


@pytest.mark.heavy
def test_bert_categories(bert):
    tok, report = bert
    cat = lambda t: report.category(tok.token_to_id(t))  # noqa: E731
    assert cat("[CLS]") == "special" and cat("[UNK]") == "special"
    assert "outside the vocabulary" in report.entry(tok.token_to_id("[UNK]")).reason
    assert cat("[unused0]") == "never"  # "[" is always a piece of its own
    assert cat("the") == "ok" and cat("##ing") == "ok"
    assert "after" in report.entry(tok.token_to_id("##ing")).reason
    assert cat("##一") == "unreachable"  # the normaliser isolates CJK characters


@pytest.mark.heavy
@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab[]#!,.xyzé一 ", max_size=25))
def test_never_is_sound_on_bert(bert, text):
    tok, report = bert
    never = {h.id for h in report.entries if h.category == "never"}
    assert not _produced(tok, [text]) & never


# ---- the real cl100k ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cl100k():
    return audit(tc.load("cl100k_base"))


@pytest.fixture(scope="module")
def tiktoken_cl100k():
    pytest.importorskip("tiktoken")
    return tiktoken_encoding("cl100k_base")


@pytest.mark.heavy
def test_cl100k_davidjl(cl100k, tiktoken_cl100k):
    """` davidjl`, Magikarp's under-trained cl100k token, is id 99944 (27584 is ` même`): its
    text encodes back to it (ok); what the tokenizer and corpus say is that it is unseen."""
    assert tiktoken_cl100k.encode_ordinary(" davidjl") == [99944]
    assert tiktoken_cl100k.decode([27584]) == " même"
    davidjl = cl100k.entry(99944)
    assert (davidjl.category, davidjl.text) == ("ok", " davidjl")
    assert cl100k.flags(99944) == ["unseen"]


@pytest.mark.heavy
def test_cl100k_categories_match_tiktoken(cl100k, tiktoken_cl100k):
    """undecodable = the ids whose bytes are not UTF-8; ok = every other ordinary id, and
    tiktoken encodes each one's text to exactly it; the five specials are special."""
    ref = tiktoken_cl100k
    partial = set()
    for i in range(ref.n_vocab):
        try:
            ref.decode_single_token_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            partial.add(i)
        except KeyError:
            continue
    got = {c: {h.id for h in cl100k.entries if h.category == c} for c in CATEGORIES}
    assert got["undecodable"] == partial and len(partial) == 773
    assert got["special"] == set(ref._special_tokens.values())
    assert got["unreachable"] == got["never"] == set()
    assert all(ref.encode_ordinary(cl100k.entry(i).text) == [i] for i in got["ok"])


@pytest.mark.heavy
def test_cl100k_duplicates_and_scripts(cl100k):
    group = cl100k.duplicates_of(791)  # "The"
    assert {1820, 578, 279} <= set(group)  # "the", " The", " the"
    rows = {r.script: r for r in cl100k.scripts}
    assert rows["Hangul"].without_token > 100  # many Korean syllables need bytes
    assert rows["Latin"].tokens > 80_000
    assert cl100k.usage.has_trees and cl100k.flag_counts()["intermediate"] > 0


def small_wordlevel() -> Tokenizer:
    """WordLevel behind the Whitespace pre-tokenizer (`\\w+|[^\\w\\s]+`): "a!" and "a b" are
    never produced (a word character and a "!" are always cut apart; whitespace is dropped)."""
    from tokenizers_core.models.wordlevel.model import WordLevel
    from tokenizers_core.pre_tokenizers import Whitespace

    vocab = {t: i for i, t in enumerate(["[UNK]", "a", "ab", "!", "!!", "a!", "a b"])}
    return Tokenizer(WordLevel(vocab, unk_token="[UNK]"), pre_tokenizer=Whitespace())


def test_whitespace_pre_tokenizer_cuts_words_from_punctuation():
    tok = small_wordlevel()
    report = audit(tok, corpus=[""])
    got = {h.token: h.category for h in report.entries}
    assert got["a!"] == got["a b"] == "never" and got["!!"] == got["ab"] == "ok"
    assert "word characters" in report.entry(tok.token_to_id("a!")).reason
    texts = ("".join(p) for n in range(1, 6) for p in itertools.product("ab! ", repeat=n))
    never = {h.id for h in report.entries if h.category == "never"}
    assert not _produced(tok, texts) & never


def test_an_added_token_is_never_called_never():
    """ "zz" has no merge, but as an added (not special) token it is matched whole: ok."""
    from tokenizers_core.added_tokens import AddedToken

    base = small_bpe()
    tok = Tokenizer(
        base.model,
        pre_tokenizer=WhitespaceSplit(),
        added_tokens=["<s>", AddedToken("zz", special=False)],
    )
    report = audit(tok, corpus=[""])
    assert report.category(tok.token_to_id("zz")) == "ok"
    assert report.category(tok.token_to_id("a c")) == "never"


def test_o200k_unreachable_token_still_occurs_in_a_longer_text():
    """o200k's ` 亚洲AV` (99494): its own text is cut after the Han letters (` 亚洲` + `AV`),
    so it is unreachable as a single token, not never: ` 亚洲AVs` is one piece, ` 亚洲AV` + `s`."""
    from tokenizers_core.audit.health import Classifier

    tok = tc.load("o200k_base")
    health = Classifier(tok).classify(99494)
    assert (health.category, health.text) == ("unreachable", " 亚洲AV")
    assert [tok.id_to_token(i) for i in health.reencoded] == [tok.id_to_token(12555), "AV"]
    assert tok.encode(" 亚洲AVs").ids == [99494, 82]
