"""Counting a corpus as a stream: files cut into shards at line ends (never inside a line, so
never inside a word or a special token), read in blocks that split exactly as the whole text
splits, and counted on several processes to the same counts as one."""

from __future__ import annotations

import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.counting import shards
from tokenizers_core.implementations.counting.shards import (
    read_blocks,
    shard_ranges,
)

texts = st.text(alphabet=st.sampled_from("ab日🙂 \n\r\u2028\x85\x0c.,"), max_size=200)


@settings(max_examples=80, deadline=None)
@given(texts, st.integers(1, 9), st.integers(1, 16))
def test_shards_cover_the_file_at_line_starts_and_read_as_its_lines(
    tmp_path_factory, text, k, block
):
    """However the file is cut and however small the blocks, the shards' lines, in order, are
    `text.splitlines()` (a shard starts just after a line feed, so no line is cut)."""
    path = tmp_path_factory.mktemp("shards") / "c.txt"
    data = text.encode("utf-8")
    path.write_bytes(data)
    shards = shard_ranges([str(path)], k)
    assert [s.start for s in shards][:1] in ([0], [])
    assert all(a.end == b.start for a, b in zip(shards, shards[1:]))
    assert (shards[-1].end if shards else 0) == len(data)
    assert all(s.start == 0 or data[s.start - 1 : s.start] == b"\n" for s in shards)
    lines = [line for s in shards for chunk in read_blocks(s, block=block) for line in chunk]
    assert lines == _lines_by_line_feed(text)


def _lines_by_line_feed(text: str) -> list[str]:
    """`splitlines` of each line-feed-ended piece: what the whole text's splitlines gives, cut
    where a shard may be cut."""
    return [line for piece in text.splitlines(keepends=True) for line in piece.splitlines()]


def test_whole_and_sharded_reading_agree_with_splitlines():
    text = "a\r\nb\n\nc\u2028d\re\n"
    assert _lines_by_line_feed(text) == text.splitlines()


def test_text_that_is_not_utf8_is_refused_with_where(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nbad \xff here\n")
    with pytest.raises(InvalidInput, match=r"bad.txt is not UTF-8 text \(byte 9\)"):
        tc.count(algorithm="bpe", files=[path])


@pytest.mark.parametrize("algorithm", ["bpe", "byte_bpe", "wordpiece"])
def test_a_file_counts_as_its_lines(tmp_path, algorithm):
    text = load_corpus("botchan")[:200_000] + load_corpus("udhr/rus")[:20_000]
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8")
    from_file = tc.count(algorithm=algorithm, files=[path])
    assert from_file == tc.count(text.splitlines(), algorithm)


@pytest.fixture(params=["forked", "fresh"])
def children(request, monkeypatch):
    """Both ways of starting the children: forked (a caller with one thread) and fresh
    interpreters (a caller with other threads, as a web server)."""
    forked = request.param == "forked"
    monkeypatch.setattr(shards, "can_fork", lambda: forked and hasattr(os, "fork"))
    return request.param


@pytest.mark.parametrize("processes", [2, 3])
def test_several_processes_count_what_one_counts(tmp_path, children, processes):
    """This process and its children take shards from one queue; the counts merged are the
    same bytes as one process's."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(load_corpus("botchan"), encoding="utf-8")
    b.write_text(load_corpus("udhr/jpn") if "udhr/jpn" in _names() else "日本語 🙂\n", "utf-8")
    one = tc.count(algorithm="byte_bpe", files=[a, b])
    many = tc.count(algorithm="byte_bpe", files=[a, b], processes=processes)
    assert many.to_bytes() == one.to_bytes()


def test_a_child_that_meets_bad_text_says_why(tmp_path, children):
    path = tmp_path / "c.txt"
    path.write_bytes(("word " * 50_000 + "\n").encode() * 4 + b"\xfe\n")
    with pytest.raises(InvalidInput, match="is not UTF-8 text"):
        tc.count(algorithm="bpe", files=[path], processes=2)


def test_a_caller_with_other_threads_starts_fresh_interpreters():
    """A fork copies no thread but may copy a lock another thread held: only a caller with
    one thread forks."""
    assert shards.can_fork() == (hasattr(os, "fork") and threading.active_count() == 1)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not shards.can_fork()
    finally:
        stop.set()
        other.join()


def test_bad_arguments_are_refused():
    with pytest.raises(InvalidInput, match="lines or as files"):
        tc.count(algorithm="bpe")
    with pytest.raises(InvalidInput, match="does not train on word counts"):
        tc.count(["a"], "unigram")
    with pytest.raises(InvalidInput, match="processes must be"):
        tc.count(["a"], "bpe", processes=0)
    with pytest.raises(InvalidInput, match="bpe counts take no options, not pattern"):
        tc.count(["a"], "bpe", pattern="gpt2")
    with pytest.raises(InvalidInput, match="no such file"):
        tc.count(algorithm="bpe", files=["/nonexistent/corpus.txt"])
    with pytest.raises(InvalidInput, match="empty"):
        tc.count([" ", ""], "bpe")


def _names():
    from tokenizers_core.corpora import corpus_names

    return corpus_names()
