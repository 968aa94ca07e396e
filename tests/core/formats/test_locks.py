"""`tc.lock` / `tc.verify`: a lock holds the owner library's ids for each text, and a check of it
names the first token that moved, and whether only the fingerprint changed.

The reference: tiktoken's own ids for the locked texts (the lock is the owner library's
answer, written down)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizers_core as tc
from tests.oracles import tiktoken_encoding
from tokenizers_core import locks
from tokenizers_core.errors import InvalidInput

TEXTS = ["Hello, world!", "naïve café 🙂", "def f(x):\n    return x", "", "日本語のテキスト"]


def test_a_lock_holds_tiktoken_s_ids_for_each_text():
    theirs = tiktoken_encoding("cl100k_base")
    doc = tc.lock("cl100k_base", TEXTS)
    assert [e["ids"] for e in doc["texts"]] == [theirs.encode(t) for t in TEXTS]
    assert doc["fingerprint"] == tc.fingerprint("cl100k_base").to_dict()
    assert doc["options"] == {"special": None, "add_special_tokens": True}
    assert doc["tokenizer"] == "cl100k_base"


def test_the_same_tokenizer_verifies():
    report = tc.verify(tc.lock("cl100k_base", TEXTS))
    assert report.ok and not report.failures and report.fingerprint_changed == []
    assert report.summary() == "cl100k_base: all 5 texts give their locked ids"


@pytest.mark.heavy
def test_another_tokenizer_fails_at_the_first_token_that_differs():
    report = tc.verify(tc.lock("cl100k_base", ["I don't know"]), "o200k_base")
    (failure,) = report.failures
    at = failure.first_diff
    assert failure.expected[:at] == failure.actual[:at] and at is not None
    assert failure.expected_tokens[at] == "Ġdon" and failure.actual_tokens[at] == "Ġdon't"
    assert "differs at token 1: the lock has 'Ġdon'" in failure.message()
    assert set(report.fingerprint_changed) == {"sha256", "behaviour", "chkhsh"}


def test_an_edited_file_with_the_same_behaviour_changes_only_the_fingerprint(tmp_path):
    doc = tc.load("bert-base-uncased").to_hf_json()
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc))
    lock_doc = tc.lock(str(path), TEXTS)
    path.write_text(json.dumps(doc, indent=1))  # the same tokenizer, other bytes
    report = tc.verify(lock_doc)
    assert report.ok and report.fingerprint_changed == ["sha256"]
    assert "only the fingerprint changed" in report.summary()
    assert report.to_dict()["fingerprint"]["only_fingerprint_changed"] is True


def test_a_prefix_differs_where_the_shorter_ends():
    result = locks.TextResult(0, "x", [1, 2], [1, 2, 3], ["a", "b"], ["a", "b", "c"])
    assert result.first_diff == 2 and "the lock has (the end), now 'c' (3)" in result.message()


def test_the_options_are_kept_and_used_again():
    text = "<|endoftext|> and BOS"
    as_text = tc.lock("cl100k_base", [text], special=False)
    as_special = tc.lock("cl100k_base", [text], special=True)
    assert 100257 in as_special["texts"][0]["ids"] and 100257 not in as_text["texts"][0]["ids"]
    assert tc.verify(as_text).ok and tc.verify(as_special).ok
    with pytest.raises(InvalidInput, match="special switch"):  # tiktoken's default refuses it
        tc.lock("cl100k_base", [text])


def test_add_special_tokens_false_leaves_out_bert_s_cls_and_sep():
    with_them = tc.lock("bert-base-uncased", ["hello"])["texts"][0]["ids"]
    without = tc.lock("bert-base-uncased", ["hello"], add_special_tokens=False)
    assert with_them == [101, *without["texts"][0]["ids"], 102]
    assert tc.verify(without).ok


def test_a_text_over_the_budget_fails():
    report = tc.verify(tc.lock("gpt2", ["one two three four"]), max_tokens=3)
    (failure,) = report.failures
    assert failure.first_diff is None and failure.over_budget
    assert "4 tokens, over the budget of 3" in failure.message()


def test_junit_has_a_testcase_per_text_and_a_failure_for_each_that_differs():
    from xml.etree import ElementTree

    doc = tc.lock("cl100k_base", ["I don't know", "hi", "<b>&amp;</b>"])
    doc["texts"][0]["ids"][1] += 1  # the lock edited: the first text no longer matches
    suite = ElementTree.fromstring(tc.verify(doc).to_junit())
    cases = suite.findall("testcase")
    assert len(cases) == 3 and suite.get("tests") == "3"
    assert [c.find("failure") is not None for c in cases] == [True, False, False]
    assert suite.get("failures") == "1"
    assert cases[2].get("name") == "text 3: <b>&amp;</b>"  # the text, escaped by the writer


def test_the_lock_file_has_a_text_per_line_and_reads_back():
    doc = tc.lock("gpt2", ["a", "b\nc"])
    text = locks.dumps(doc)
    assert text.count('{"text": ') == 2
    assert locks.load_lock(text) == {**doc, "options": doc["options"]}
    assert locks.load_lock(locks.dumps(tc.lock("gpt2", []))) is not None


def test_texts_are_read_one_per_line():
    assert locks.read_texts("a\r\nb\n\nc\n") == ["a", "b", "", "c"]
    assert locks.read_texts("") == []


@pytest.mark.parametrize(
    "bad, says",
    [
        ("{", "not JSON"),
        ("[]", "not a tokvis lock"),
        ('{"texts": [], "tokvis_lock": 9}', "version 9"),
        ('{"texts": [], "fingerprint": {}}', "sha256"),
        ('{"texts": [{"text": 1, "ids": []}], "fingerprint": %s}', "text 1 of the lock"),
        ('{"texts": [{"text": "a", "ids": ["x"]}], "fingerprint": %s}', "text 1 of the lock"),
        ('{"texts": [], "options": {"special": "yes"}, "fingerprint": %s}', "special is"),
    ],
)
def test_a_bad_lock_is_refused_with_the_reason(bad, says):
    fp = json.dumps(tc.fingerprint("char").to_dict())
    with pytest.raises(InvalidInput, match=says):
        locks.load_lock(bad.replace("%s", fp))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=40).filter(lambda t: "\n" not in t and "\r" not in t), max_size=5))
def test_any_texts_lock_and_verify_under_the_tokenizer_that_locked_them(texts):
    doc = locks.load_lock(locks.dumps(tc.lock("gpt2", texts, special=False)))
    assert tc.verify(doc).ok
