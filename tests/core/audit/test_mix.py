"""Training-mix inference (Hayase et al. 2024): the merge list of every BPE format, the pair
counts through the merges, and the linear program checked on tokenizers we train ourselves on
known mixes of the bundled samples."""

from __future__ import annotations

from collections import Counter

import pytest

import tokenizers_core as tc
from tests.no_scipy import run_without_scipy
from tests.shared_data import INTEROP
from tokenizers_core.audit.merge_list import merge_list, word_counts
from tokenizers_core.audit.mix import (
    categories,
    category_samples,
    estimate_mix,
    merge_word,
    pair_history,
)


def _pairs(words: Counter) -> Counter:
    out: Counter = Counter()
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            out[pair] += count
    return out


# ---- the merge list, whatever the format ---------------------------------------------------------


def test_tiktoken_ranks_give_gpt2s_merges_in_order():
    """r50k_base is stored as ranks; GPT-2's merges.txt opens "Ġ t", "Ġ a", "h e", "i n"."""
    assert merge_list(tc.load("r50k_base"))[:4] == [("Ġ", "t"), ("Ġ", "a"), ("h", "e"), ("i", "n")]


@pytest.mark.heavy
def test_every_merge_makes_a_token_of_the_vocabulary_for_each_format():
    for name in ("cl100k_base", "qwen3", "mistral_v3", "clip", "botchan_en_bpe_1000"):
        tok = tc.load(name)
        vocab = tok.model.vocab
        for left, right in merge_list(tok)[:500]:
            assert left + right in vocab, (name, left, right)


def test_a_trained_tokenizer_keeps_its_merges_through_tokenizer_json(tmp_path):
    tok = tc.train("byte_bpe", [load_sample("fra")], vocab_size=400)
    path = tmp_path / "fra.json"
    tok.save(str(path))
    assert merge_list(tc.load(str(path))) == merge_list(tok) == tok.model.merges


@pytest.mark.heavy
def test_llama3_ranks_and_its_tokenizer_json_merge_the_same_tokens_in_the_same_order():
    if not INTEROP.is_dir():
        pytest.skip("the interop files (../shared/data/interop) are not here")
    ranks = tc.load(str(INTEROP / "raw" / "llama3" / "tokenizer.model"), pattern="llama3")
    hf = tc.load(str(INTEROP / "converted" / "llama3.tokenizer.json"))
    made = list(dict.fromkeys(left + right for left, right in merge_list(hf)))
    assert [left + right for left, right in merge_list(ranks)[:3000]] == made[:3000]


@pytest.mark.parametrize(
    "name, kind", [("bert-base-uncased", "WordPiece"), ("botchan_en_unigram_1000", "Unigram")]
)
def test_a_tokenizer_without_merges_is_told_why(name, kind):
    with pytest.raises(ValueError, match=f"has no merge list: it is a {kind} model"):
        merge_list(tc.load(name))


def test_words_are_spelled_by_the_tokenizers_own_pre_tokenizer_and_model():
    assert word_counts(tc.load("clip"), "Cat cat")[("c", "a", "t</w>")] == 2
    assert word_counts(tc.load("mistral_v1"), "a cat a cat") == Counter(
        {("▁", "a"): 2, ("▁", "c", "a", "t"): 2}
    )


def test_a_character_outside_a_sentencepiece_vocabulary_starts_as_bytes_or_unk():
    """As the model itself starts: byte pieces with byte fallback (Mistral), else <unk>."""
    assert word_counts(tc.load("mistral_v3"), "𠀋x") == Counter(
        {("▁", "<0xF0>", "<0xA0>", "<0x80>", "<0x8B>", "x"): 1}
    )
    assert word_counts(tc.load("botchan_en_bpe_1000"), "𠀋x") == Counter({("▁", "<unk>", "x"): 1})


# ---- the pair counts through the merges ----------------------------------------------------------


def test_merge_word_merges_left_to_right():
    assert merge_word(["a", "a", "a", "a"], ("a", "a"), "aa") == ["aa", "aa"]
    assert merge_word(["b", "a", "a", "a"], ("a", "a"), "aa") == ["b", "aa", "a"]


def test_the_recorded_changes_replay_to_a_fresh_count_after_every_merge():
    tok = tc.load("r50k_base")
    words = word_counts(tok, load_sample("deu_1996")[:3000])
    merges = merge_list(tok)[:300]
    history = pair_history(words, merges, lambda a, b: a + b)
    counts = dict(history.initial)
    for pair, changes in zip(merges, history.changes):
        counts.update(changes)
        words = Counter(
            {tuple(merge_word(list(w), pair, pair[0] + pair[1])): c for w, c in words.items()}
        )
        assert {p: c for p, c in counts.items() if c} == dict(_pairs(words))


# ---- the estimate ---------------------------------------------------------------------------------


def load_sample(category: str) -> str:
    return category_samples()[category]


def _trained_on(repeats: dict[str, int], merges: int):
    """A byte-level BPE trained on whole copies of the samples; the truth is their byte shares."""
    samples = category_samples()
    text = "".join(samples[c] * r for c, r in repeats.items())
    sizes = {c: len(samples[c].encode("utf-8")) * r for c, r in repeats.items()}
    truth = {c: size / sum(sizes.values()) for c, size in sizes.items()}
    return tc.train("byte_bpe", [text], vocab_size=256 + merges), truth


@pytest.mark.parametrize(
    "repeats",
    [{"eng": 5, "fra": 2}, {"eng": 3, "deu_1996": 2, "code": 1}],
    ids=["70 % English + 30 % French", "English, German and code"],
)
def test_a_known_mix_is_recovered_within_five_points(repeats):
    tok, truth = _trained_on(repeats, 600)
    estimate = estimate_mix(tok, merges=600)
    for category in categories():
        assert abs(estimate.share(category) - truth.get(category, 0.0)) < 0.05, category
    assert sum(s for _c, s in estimate.shares) == pytest.approx(1.0)
    assert estimate.merges == 600 and estimate.constraints > 600 and estimate.rounds >= 1


@pytest.mark.heavy
def test_a_real_tokenizer_gets_proportions_that_sum_to_one_and_a_residual():
    seen = []
    estimate = estimate_mix(
        tc.load("r50k_base"),
        merges=200,
        progress=lambda done, total, message: seen.append((done, total)),
    )
    shares = [s for _c, s in estimate.shares]
    assert sum(shares) == pytest.approx(1.0) and min(shares) >= 0.0
    assert shares == sorted(shares, reverse=True) and estimate.residual >= 0.0
    assert len(estimate.shares) == 34 and seen[0] == (1, 34 + 8)
    as_json = estimate.to_dict()
    assert as_json["shares"][0]["share"] == shares[0] and as_json["merges"] == 200


@pytest.mark.parametrize("option", ["merges", "top_pairs", "rounds"])
def test_bad_options_are_value_errors(option):
    with pytest.raises(ValueError, match=f"{option} must be a positive whole number"):
        estimate_mix(tc.load("r50k_base"), **{option: 0})


@pytest.mark.heavy
def test_without_scipy_the_core_says_how_to_install_it():
    """A subprocess in which importing scipy fails, as on an install without the extra."""
    script = (
        "import tokenizers_core as tc\n"
        "from tokenizers_core.audit.mix import estimate_mix\n"
        "from tokenizers_core.audit.mix_lp import SolverMissing, solver_available\n"
        "assert not solver_available()\n"
        "try:\n"
        "    estimate_mix(tc.load('r50k_base'), merges=20, samples={'eng': 'the cat'})\n"
        "except SolverMissing as exc:\n"
        "    print(exc)\n"
    )
    out = run_without_scipy(script)
    assert out.returncode == 0, out.stderr
    assert "pip install 'tokenizer-visualiser[mix]'" in out.stdout
