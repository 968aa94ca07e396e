"""`_repr_html_`: what a notebook shows for an `Encoding`, a chat render and a lock's check:
chips drawn from the Jinja2 templates with autoescaping, with no server and no JavaScript."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import tokenizers_core as tc
from tokenizers_core.chat import render_chat

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script>"


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each chip's token."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.tokens: list[str] = []
        self._in_tok = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_tok = tag == "span" and dict(attrs).get("class") == "tok"

    def handle_data(self, data):
        if self._in_tok:
            self.tokens.append(data)
            self._in_tok = False


def parsed(html: str) -> Tags:
    tags = Tags()
    tags.feed(html)
    return tags


def no_script(html: str) -> None:
    tags = parsed(html)
    assert not [t for t, _ in tags.tags if t in ("script", "img", "iframe")]
    assert not [a for _, attrs in tags.tags for a in attrs if a.startswith("on")]


def test_an_encoding_is_a_chip_per_token_with_its_id():
    enc = tc.load("gpt2").encode("Hello there,\nworld")
    html = enc._repr_html_()
    tags = parsed(html)
    assert tags.tokens == ["Hello", "·there", ",", "↵", "world"]  # the bytes' text, made visible
    ids = [int(i) for i in re.findall(r'<span class="id">(\d+)</span>', html)]
    assert ids == enc.ids
    assert "5 tokens" in html


def test_a_text_holding_html_is_shown_as_text():
    html = tc.load("cl100k_base").encode(XSS)._repr_html_()
    no_script(html)
    assert "&lt;" in html


def test_special_tokens_are_marked():
    enc = tc.load("bert-base-uncased").encode("hello")
    html = enc._repr_html_()
    assert html.count('class="chip special"') == 2  # [CLS] and [SEP]


def test_a_chat_render_shows_each_message_and_the_assistant_mask():
    tok = tc.load("qwen3")
    chat = render_chat(
        [
            {"role": "user", "content": XSS},
            {"role": "assistant", "content": "Fine."},
        ],
        tokenizer=tok,
        config=tok.tokenizer_config,
    )
    html = chat._repr_html_()
    no_script(html)
    assert '<td class="role">user' in html and '<td class="role">assistant' in html
    assert parsed(html).tokens and html.count('<li class="chip') == len(chat.ids)


def test_a_lock_check_marks_the_token_that_moved():
    report = tc.verify(tc.lock("cl100k_base", ["I don't know"]), "o200k_base")
    html = report._repr_html_()
    assert "1 of 1 text fail" in html
    moved = re.findall(r'<li class="chip moved"[^>]*><span class="tok">([^<]*)</span>', html)
    assert moved == ["·don", "·don&#39;t"]


def test_a_long_encoding_draws_its_first_chips_and_counts_them_all():
    enc = tc.load("char").encode("ab" * 1500)
    html = enc._repr_html_()
    assert "3,000 tokens (the first 2,000 drawn)" in html
    assert html.count('<li class="chip') == 2000


def test_a_drift_report_shows_each_turn_and_the_first_token_that_moved():
    tok = tc.load("qwen3")
    messages = [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "<think>\nadd them\n</think>\n\n4"},
        {"role": "user", "content": XSS},
        {"role": "assistant", "content": "Done."},
    ]
    report = tc.drift(tok, messages)
    html = report._repr_html_()
    no_script(html)
    assert "not append-only" in html and "message 1" in html
    assert report.turns[0].construct and report.turns[0].construct in html.replace("&#39;", "'")
    assert html.count('<li class="chip moved"') == 2  # as generated, and in the next turn


def test_a_parity_table_has_a_column_per_runtime_and_marks_the_cell_that_differs():
    report = tc.parity("qwen3", ["Hello", "e\u0301", XSS])
    html = report._repr_html_()
    no_script(html)
    for runtime in report.runtimes:
        assert f"<th>{runtime}</th>" in html
    assert html.count('<td class="bad">') == len(report.rows[1].differing())
    assert "normaliser" in html
