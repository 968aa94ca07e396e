"""The counts file: what it records, that it reads back to the same counts, that the same corpus
always writes the same bytes, that merging the counts of shards is counting them together, and
that a damaged or foreign file is refused with the reason."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.counting import Counts, counted_under

LINES = ["low low low low low", "lower lower", "newest newest newest", "widest widest 日本語 🙂"]


def test_the_seed_corpus_counted_for_the_textbook_bpe():
    """The seed's words with their frequencies, in code-point order: what the textbook's word
    table is before `</w>` is added."""
    counts = tc.count(LINES, "bpe")
    assert list(counts.items()) == [
        ("low", 5), ("lower", 2), ("newest", 3), ("widest", 2), ("日本語", 1), ("🙂", 1),
    ]  # fmt: skip
    assert (len(counts), counts.total) == (6, 14)


def test_a_counts_file_reads_back_and_says_what_it_was_counted_under(tmp_path):
    counts = tc.count(LINES, "byte_bpe", pattern="cl100k")
    path = tmp_path / "c.counts"
    counts.save(path)
    assert tc.load_counts(path) == counts
    magic, header = path.read_bytes().split(b"\n")[:2]
    assert magic == b"tokvis-counts 1"
    head = json.loads(header)
    assert head["counted_under"]["algorithm"] == "byte_bpe"
    assert head["counted_under"]["pattern"] == counted_under("byte_bpe", pattern="cl100k").pattern
    assert head["signature"] == counts.signature and len(head["signature"]) == 64
    assert head["described"].startswith("byte_bpe: normaliser none; pre-tokeniser Split")
    assert (head["distinct"], head["total"]) == (len(counts), counts.total)


def test_the_same_corpus_writes_the_same_bytes():
    assert tc.count(LINES, "wordpiece").to_bytes() == tc.count(list(LINES), "wordpiece").to_bytes()


def test_a_pruned_count_says_so_and_does_not_merge():
    pruned = tc.count(LINES, "bpe", min_frequency=3)
    assert pruned.to_dict() == {"low": 5, "newest": 3}
    assert Counts.from_bytes(pruned.to_bytes()).min_frequency == 3
    with pytest.raises(InvalidInput, match="pruned at a minimum frequency of 3"):
        tc.merge_counts([pruned, tc.count(LINES, "bpe")])


def test_counts_of_other_rules_do_not_add_up():
    with pytest.raises(InvalidInput, match="pattern gpt2 vs cl100k"):
        tc.merge_counts(
            [tc.count(LINES, "byte_bpe"), tc.count(LINES, "byte_bpe", pattern="cl100k")]
        )


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda b: b"hello\n" + b, "is not a tokvis counts file"),
        (lambda b: b.replace(b"tokvis-counts 1", b"tokvis-counts 9", 1), "version 9"),
        (lambda b: b[:-9], "damaged"),
        (lambda b: b.replace(b'"algorithm": "bpe"', b'"algorithm": "byte_bpe"', 1), "signature"),
    ],
)
def test_a_damaged_file_is_refused_with_the_reason(damage, reason):
    data = tc.count(LINES, "bpe").to_bytes()
    with pytest.raises(InvalidInput, match=reason):
        Counts.from_bytes(damage(data))


def test_a_body_shorter_than_its_header_says_is_refused():
    data = tc.count(LINES, "bpe").to_bytes()
    magic, header, _rest = data.split(b"\n", 2)
    head = json.loads(header)
    head["distinct"] += 1
    forged = magic + b"\n" + json.dumps(head).encode() + b"\n" + gzip.compress(b"\0" * 8, mtime=0)
    with pytest.raises(InvalidInput, match="damaged"):
        Counts.from_bytes(forged)


text_lines = st.lists(
    st.text(alphabet=st.sampled_from("ab é日🙂 ,.\t'"), max_size=12).map(lambda t: t + "a"),
    min_size=2,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(text_lines, st.integers(1, 29), st.sampled_from(["bpe", "byte_bpe", "wordpiece"]))
def test_the_counts_of_shards_merged_are_the_counts_of_the_whole(lines, cut, algorithm):
    """Cut anywhere between lines, counted apart and merged: the same bytes as counting all."""
    cut = min(cut, len(lines) - 1)
    parts = [tc.count(lines[:cut], algorithm), tc.count(lines[cut:], algorithm)]
    assert tc.merge_counts(parts).to_bytes() == tc.count(lines, algorithm).to_bytes()
