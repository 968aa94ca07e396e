"""The space of tokenisations: the lattice, the count, the shortest sequences and the
samplers, against a brute-force enumeration on the reference libraries' own vocabularies.

- Brute force: on texts of at most 12 bytes (English, German, French, Russian, Arabic, Chinese,
  Korean, emoji), every segmentation is enumerated by recursion over the vocabulary as the
  reference library holds it (tiktoken's `_mergeable_ranks` for cl100k_base: token bytes; the
  sentencepiece processor's `id_to_piece` over `get_piece_size()` for Mistral v1's BPE with byte
  fallback, whose byte pieces are one byte each, and for the Botchan Unigram), and compared with
  the lattice's paths, the count and `shortest(k)`.
- The canonical path is the reference's encode (tiktoken, sentencepiece, Hugging Face
  `tokenizers` on Llama 3's tokenizer.json) on UDHR snippets in 33 languages.
- Every path decodes to the text; uniform samples are uniform (a chi-square on 14 sequences).
- Bounds: 2,001 bytes is refused, saying the bound; 2,000 bytes gets its exact count; a
  lattice of more than 500,000 edges (a crafted vocabulary) is refused.
- The paths' algorithms (shortest, unranking) against brute force on random lattices.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats.bundled_models import DATA_DIR
from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
from tokenizers_core.models.bpe.model import BPE
from tokenizers_core.models.unigram.model import Unigram
from tokenizers_core.pipeline import Tokenizer
from tokenizers_core.pre_tokenizers import PRESETS
from tokenizers_core.tokenizations import (
    MAX_TEXT_BYTES,
    Lattice,
    tokenizations,
)
from tokenizers_core.tokenizations.lattice import MAX_EDGES
from tokenizers_core.tokenizations.paths import Sampler, prefix_counts, shortest, suffix_counts

tiktoken = pytest.importorskip("tiktoken")
spm = pytest.importorskip("sentencepiece")
hf = pytest.importorskip("tokenizers")

from tests.shared_data import DATA, INTEROP, missing_reason

BRUTE_TEXTS = [
    "Hello world",
    "naïve café",
    "Grüße!",
    "Привет",
    "مرحبا",
    "日本語",
    "안녕 😀",
    "🙂 ok",
    "a  b\n",
    "1234567",
]


def _tiktoken(name):
    preset, specials = ENCODINGS[name]
    return tiktoken.Encoding(
        name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
    )


@pytest.fixture(scope="module")
def cl100k():
    return tc.load("cl100k_base"), _tiktoken("cl100k_base")


@pytest.fixture(scope="module")
def mistral():
    with gzip.open(DATA_DIR / "mistral_v1.model.gz", "rb") as fh:
        proto = fh.read()
    return tc.load("mistral_v1"), spm.SentencePieceProcessor(model_proto=proto)


@pytest.fixture(scope="module")
def botchan():
    if missing_reason():
        pytest.skip(missing_reason())
    path = DATA / "vocab" / "botchan_en_unigram_1000.model"
    return tc.load(str(path)), spm.SentencePieceProcessor(model_file=str(path))


def brute_force(target, pieces):
    """Every segmentation of `target` into keys of `pieces` (key -> ids), by plain recursion."""
    longest = max(map(len, pieces))

    @cache
    def rest(i):
        if i == len(target):
            return [()]
        out = []
        for size in range(1, min(longest, len(target) - i) + 1):
            for id_ in pieces.get(target[i : i + size], ()):
                out.extend((id_, *r) for r in rest(i + size))
        return out

    return rest(0)


def paths(lattice: Lattice) -> set[tuple[int, ...]]:
    """Every path of the lattice value, by depth-first search over its edges."""
    out: dict[int, list] = {}
    for e in lattice.edges:
        out.setdefault(e.start, []).append(e)

    def walk(i):
        if i == lattice.n:
            yield ()
        for e in out.get(i, ()):
            for rest in walk(e.end):
                yield (e.id, *rest)

    return set(walk(0))


def check_against(t, reference):
    """The lattice's paths, count and shortest(k) against a brute-force list of sequences."""
    assert len(reference) == len(set(reference))
    assert paths(t.lattice) == set(reference)
    assert t.count() == len(reference)
    by_length = sorted(reference, key=lambda s: (len(s), s))
    for k in (1, 3, 10):
        assert t.shortest(k) == [list(s) for s in by_length[:k]]


@pytest.mark.parametrize("text", BRUTE_TEXTS)
def test_cl100k_against_tiktokens_own_vocabulary(cl100k, text):
    ours, ref = cl100k
    assert len(text.encode()) <= 12
    pieces = {token: [rank] for token, rank in ref._mergeable_ranks.items()}
    t = tokenizations(ours, text)
    check_against(t, brute_force(text.encode(), pieces))
    assert t.canonical() == ref.encode_ordinary(text)


@pytest.mark.parametrize("text", BRUTE_TEXTS)
def test_mistral_against_sentencepieces_own_vocabulary(mistral, text):
    """Byte fallback: the lattice is over the bytes of the normalised text as it decodes (a
    `▁` is a space), `<0x61>` beside `a` and `<0x20>` beside `▁`. The brute force spells those
    bytes, then keeps what sentencepiece decodes to the text: it drops exactly the sequences
    that start with `<0x20>` (sentencepiece strips the first piece's `▁`, never a byte)."""
    ours, sp = mistral
    decoded = sp.normalize(text).replace("▁", " ").encode()
    assert len(decoded) <= 13 + text.count(" ")
    pieces: dict[bytes, list[int]] = {}
    for i in range(sp.get_piece_size()):
        if sp.is_control(i) or sp.is_unknown(i):
            continue
        piece = sp.id_to_piece(i)
        key = bytes([int(piece[3:5], 16)]) if sp.is_byte(i) else piece.replace("▁", " ").encode()
        pieces.setdefault(key, []).append(i)
    t = tokenizations(ours, text)
    assert t.lattice.unit == "byte"
    want = sp.decode(t.canonical())
    spelled = brute_force(decoded, pieces)
    reference = [s for s in spelled if sp.decode(list(s)) == want]
    assert {s[0] for s in set(spelled) - set(reference)} <= {sp.piece_to_id("<0x20>")}
    check_against(t, reference)
    assert t.canonical() == sp.encode(text)


@pytest.mark.parametrize("text", ["Hello world", "the cats", "I said, no!", "ABC def"])
def test_botchan_unigram_against_sentencepieces_own_vocabulary(botchan, text):
    ours, sp = botchan
    pieces: dict[str, list[int]] = {}
    for i in range(sp.get_piece_size()):
        if not (sp.is_control(i) or sp.is_unknown(i)):
            pieces.setdefault(sp.id_to_piece(i), []).append(i)
    t = tokenizations(ours, text)
    assert t.lattice.unit == "char" and "".join(t.lattice.units) == sp.normalize(text)
    check_against(t, brute_force(sp.normalize(text), pieces))
    assert t.canonical() == sp.encode(text)


# ---- the canonical path is the reference's encode ----------------------------------------------
def udhr_snippets():
    if missing_reason():
        return []
    folder = DATA / "corpora" / "udhr"
    out = []
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8")[:700]
        while len(text.encode()) > MAX_TEXT_BYTES:
            text = text[:-50]
        out.append(pytest.param(text, id=path.stem))
    return out


@pytest.mark.heavy
@pytest.mark.parametrize("text", udhr_snippets())
def test_canonical_path_is_the_references_encode(cl100k, mistral, botchan, text):
    ours, ref = cl100k
    t = tokenizations(ours, text)
    assert t.canonical() == ref.encode_ordinary(text)
    _decodes_alike(t, lambda ids: ref.decode_bytes(ids))
    o200k = tokenizations(tc.load("o200k_base"), text)
    assert o200k.canonical() == _tiktoken("o200k_base").encode_ordinary(text)
    ours, sp = mistral
    t = tokenizations(ours, text)
    assert t.canonical() == sp.encode(text)
    _decodes_alike(t, sp.decode)
    ours, sp = botchan
    assert tokenizations(ours, text).canonical() == sp.encode(text)


@pytest.fixture(scope="module")
def llama3():
    if missing_reason():
        pytest.skip(missing_reason())
    path = INTEROP / "converted" / "llama3.tokenizer.json"
    return tc.load(str(path)), hf.Tokenizer.from_file(str(path))


@pytest.mark.heavy
@pytest.mark.parametrize("text", udhr_snippets()[::4])
def test_canonical_path_is_hugging_faces_encode(llama3, text):
    ours, ref = llama3
    t = tokenizations(ours, text)
    assert t.canonical() == ref.encode(text, add_special_tokens=False).ids
    _decodes_alike(t, ref.decode)


def _decodes_alike(t, decode):
    """Every sampled path (and the shortest) decodes to what the canonical path does."""
    want = decode(t.canonical())
    for ids in t.sample(20, seed=0) + t.shortest(3):
        assert decode(ids) == want


# ---- the count, samples, and the bounds --------------------------------------------------------
def test_uniform_samples_are_uniform_and_deterministic(cl100k):
    """ "Hello" has 14 spellings in cl100k; 14,000 samples see each about 1,000 times."""
    t = tokenizations(cl100k[0], "Hello")
    assert t.count() == 14
    seen = Counter(map(tuple, t.sample(1000, seed=7) * 0 + _many(t, 14_000, seed=7)))
    assert set(seen) == paths(t.lattice)
    chi2 = sum((n - 1000) ** 2 / 1000 for n in seen.values())
    assert chi2 < 34.5  # the 99.9% point of chi-square with 13 degrees of freedom
    assert t.sample(50, seed=3) == t.sample(50, seed=3) != t.sample(50, seed=4)


def _many(t, n, seed):
    rng = random.Random(seed)
    return [ids for _ in range(n // 1000) for ids in t.sample(1000, seed=rng.random())]


def test_a_text_over_the_bound_is_refused_saying_so(cl100k):
    with pytest.raises(InvalidInput, match="2,001 bytes.*at most 2,000"):
        tokenizations(cl100k[0], "a" * 2001)
    with pytest.raises(InvalidInput, match="at most 2,000"):
        tokenizations(cl100k[0], "é" * 1001)


def test_the_count_is_exact_at_the_bound(cl100k):
    """A 2,000-byte text: the count, a number of hundreds of digits, equals an independent
    count over tiktoken's vocabulary; the prefix counts end with it and never shrink."""
    ours, ref = cl100k
    words = "Über 東京 🙂 tokens, numbers 12345 and ünïcödé; " * 60
    text = words.encode()[:MAX_TEXT_BYTES].decode("utf-8", "ignore")
    data = text.encode()
    t = tokenizations(ours, text)
    ways = [1] + [0] * len(data)
    for i in range(len(data)):
        for size in range(1, min(128, len(data) - i) + 1):
            if data[i : i + size] in ref._mergeable_ranks:
                ways[i + size] += ways[i]
    assert t.count() == ways[-1] > 10**300
    assert t.counts_by_length() == ways
    assert t.log10() == pytest.approx(math.log10(ways[-1]))
    assert len(t.shortest(5)) == 5 and len(t.sample(3, seed=0)) == 3


@pytest.mark.heavy
def test_a_lattice_over_its_edge_bound_is_refused_early():
    """A crafted vocabulary: the Unigram pieces "a" .. "a" * 300 match 300 tokens at each of a
    2,000-character text's first positions, 600,000 edges in all, over the lattice's bound of
    500,000: InvalidInput naming the bound, found within the first 1,667 positions (so before
    any count or sample is attempted)."""
    tok = Tokenizer(Unigram([("<unk>", 0.0)] + [("a" * n, -1.0) for n in range(1, 301)]))
    t = tokenizations(tok, "a" * 2000)
    with pytest.raises(InvalidInput, match="more than 500,000 tokens.*shorter text"):
        t.count()
    assert MAX_EDGES == 500_000
    assert tokenizations(tok, "a" * 1000).count() > 10**290  # 300 tokens at each of 1,000


def _paths(out, start=0):
    """Every path of a DAG from `start` to the end, as ids (brute force)."""
    if start == len(out):
        return [[]]
    return [[id_] + rest for end, id_ in out[start] for rest in _paths(out, end)]


@st.composite
def _dags(draw):
    """Random lattices over n units: token `id` spans 1 + id % 3 units (a token has one
    surface: the same id from a position always ends at the same place); by end, then id."""
    n = draw(st.integers(0, 9))
    out = []
    for i in range(n):
        ids = draw(st.sets(st.integers(0, 5), max_size=6))
        out.append(sorted((i + 1 + id_ % 3, id_) for id_ in ids if i + 1 + id_ % 3 <= n))
    return out


@pytest.mark.heavy
@given(_dags(), st.integers(1, 40), st.integers(0, 2**32))
@settings(max_examples=300, deadline=None)
def test_shortest_and_samples_are_the_brute_forces(out, k, seed):
    """shortest(k) is the first k paths by (length, ids); counts and unranking agree with the
    list of all paths in edge order (rank r is the r-th), so a seeded sample is that path."""
    every = _paths(out)
    assert shortest(out, k) == sorted(every, key=lambda p: (len(p), p))[:k]
    rest = suffix_counts(out)
    assert rest[0] == len(every) == prefix_counts(out)[-1]
    if every:
        sampler = Sampler(out, rest)
        assert [sampler.path(r) for r in range(len(every))] == every
        rng = random.Random(seed)
        ranks = [rng.randrange(len(every)) for _ in range(5)]
        assert sampler.sample(5, random.Random(seed)) == [every[r] for r in ranks]


@pytest.mark.parametrize("bad", [0, 101, -1, 1.5, True])
def test_k_and_n_are_bounded(cl100k, bad):
    t = tokenizations(cl100k[0], "Hello")
    with pytest.raises(InvalidInput):
        t.shortest(bad)
    with pytest.raises(InvalidInput):
        t.sample(bad * 100 if isinstance(bad, int) and bad > 100 else bad)


def test_the_empty_text_has_one_tokenisation(cl100k):
    t = tokenizations(cl100k[0], "")
    assert (t.count(), t.canonical(), t.shortest(3), t.sample(2, seed=0)) == (1, [], [[]], [[], []])


# ---- the lattice as a value, and the families ---------------------------------------------------
def test_the_lattice_is_json_and_round_trips(mistral):
    lattice = tokenizations(mistral[0], "Hé 日").lattice
    again = Lattice.from_dict(json.loads(json.dumps(lattice.to_dict())))
    assert again == lattice
    assert [c for _s, _e, c in lattice.chars] == list("▁Hé▁日")
    on_path = [e for e in lattice.edges if e.canonical]
    assert [e.id for e in on_path] == list(lattice.canonical)
    assert any(e.token == "<0xE6>" and e.text == "<E6>" for e in lattice.edges)


def test_wordpiece_spells_words_with_continuations():
    """ "unaffable" in BERT: every path is a word-initial token then `##` ones; all decode alike;
    and two words never share a token."""
    bert = tc.load("bert-base-uncased")
    t = tokenizations(bert, "unaffable words")
    assert t.lattice.boundaries == (0, 10)
    want = bert.decode(t.canonical())
    for ids in t.shortest(20) + t.sample(50, seed=1):
        tokens = [bert.id_to_token(i) for i in ids]
        assert bert.decode(ids) == want
        starts = [i for i, tok in enumerate(tokens) if not tok.startswith("##")]
        assert len(starts) == 2 and starts[0] == 0
    assert [bert.id_to_token(i) for i in t.canonical()] == ["una", "##ffa", "##ble", "words"]


def test_an_unknown_word_is_its_canonical_unknown_token():
    bert = tc.load("bert-base-uncased")
    t = tokenizations(bert, "a ☃")
    unknown = [e for e in t.lattice.edges if e.unknown]
    assert [(e.token, e.canonical) for e in unknown] == [("[UNK]", True)]
    assert t.count() == 1


def test_a_text_with_an_added_token_is_refused():
    qwen = tc.load("qwen3")
    with pytest.raises(InvalidInput, match="added token"):
        tokenizations(qwen, "say <tool_call> now")


def test_models_without_a_vocabulary_are_refused():
    with pytest.raises(InvalidInput, match="no fixed subword vocabulary"):
        tokenizations(tc.load("word"), "hello")


# ---- BPE-dropout and StochasTok ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["cl100k_base", "qwen3", "mistral_v1", "botchan_en_bpe_1000"])
def test_dropout_samples_are_paths_and_follow_p(name):
    tok = tc.load(name)
    t = tokenizations(tok, "Tokenisation is 楽しい, isn't it?")
    everything = paths_of(t)
    for ids in t.dropout(20, 0.3, seed=1):
        assert everything(ids)
    assert t.dropout(3, 0.0, seed=1) == [t.canonical()] * 3
    # p = 1 drops every merge: the word's initial symbols (bytes, or characters, a run of
    # unknown characters being one unknown token)
    lattice = t.lattice
    symbols = len(lattice.units) if lattice.family == "byte_bpe" else len(lattice.chars)
    symbols -= sum(e.end - e.start - 1 for e in lattice.edges if e.unknown)
    assert len(t.dropout(1, 1.0, seed=1)[0]) == symbols
    assert t.dropout(5, 0.5, seed=9) == t.dropout(5, 0.5, seed=9)


def paths_of(t):
    """A predicate: whether ids spell the text along the lattice's edges."""
    out: dict[int, set] = {}
    for e in t.lattice.edges:
        out.setdefault(e.start, set()).add((e.id, e.end))
    by_id = {(e.start, e.id): e.end for e in t.lattice.edges}

    def follows(ids):
        pos = 0
        for id_ in ids:
            if (pos, id_) not in by_id:
                return False
            pos = by_id[pos, id_]
        return pos == t.lattice.n

    return follows


@pytest.mark.parametrize(
    ("name", "long"),
    [("cl100k_base", " " * 2000), ("mistral_v1", "word " * 61)],  # one piece of 2,000 / 306
)
def test_dropout_of_a_piece_past_its_bound_is_refused_saying_so(name, long):
    """Provilkov's dropout redraws every pair at every merge (n^2/2 draws for a piece of n
    symbols: 1.5-2 s a sample for 2,000): past 300 characters in one piece it is refused,
    naming the bound; sentencepiece's BPE reads a whole text as one piece, so there the bound
    is the text's length. Hugging Face's own dropout (a queue of merges) is not bounded."""
    tok = tc.load(name)
    with pytest.raises(InvalidInput, match="at most 300 characters.*shorter text"):
        tokenizations(tok, long).dropout(1, 0.1, seed=0)
    assert len(tokenizations(tok, long[:290]).dropout(2, 0.1, seed=0)) == 2
    qwen = tokenizations(tc.load("qwen3"), " " * 2000)  # a tokenizer.json: Hugging Face's rule
    assert len(qwen.dropout(1, 0.1, seed=0)) == 1


def test_dropout_needs_merges():
    t = tokenizations(tc.load("botchan_en_unigram_1000"), "hello")
    with pytest.raises(InvalidInput, match="needs merges to drop"):
        t.dropout(2, 0.1)


@pytest.mark.parametrize("name", ["cl100k_base", "bert-base-uncased", "mistral_v1"])
def test_stochastok_splits_tokens_into_equivalent_pairs(name):
    tok = tc.load(name)
    t = tokenizations(tok, "Understanding tokenization, character by character")
    follows = paths_of(t)
    canonical = t.canonical()
    assert t.stochastok(0.0, seed=1) == canonical
    for seed in range(5):
        ids = t.stochastok(0.5, seed=seed)
        assert follows(ids)
        assert len(canonical) <= len(ids) <= len(canonical) + int(0.5 * len(canonical))
    assert len(t.stochastok(1.0, seed=2)) > len(canonical)
    assert t.stochastok(0.7, seed=3) == t.stochastok(0.7, seed=3)


def test_golden_abab():
    """a, b, ab and the merge a+b: "abab" is a|b|a|b, ab|a|b, a|b|ab, ab|ab."""
    tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    t = tokenizations(tok, "abab")
    assert (t.count(), t.canonical()) == (4, [2, 2])
    assert t.shortest(4) == [[2, 2], [0, 1, 2], [2, 0, 1], [0, 1, 0, 1]]
    assert t.counts_by_length() == [1, 1, 2, 2, 4]
