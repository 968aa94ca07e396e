"""`tokvis chat`: messages from a JSON file or stdin; the coloured render, the tokens, the counts
per message and the lints; --json; errors as one line."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

import tokenizers_core as tc
from app.cli import main
from tests.gguf_files import INTEROP

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]


@pytest.fixture
def messages_file(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(MESSAGES), encoding="utf-8")
    return str(path)


def test_the_render_counts_and_lints(messages_file, capsys):
    assert (
        main(
            ["chat", messages_file, "-t", "cl100k_base", "--template-name", "chatml", "--no-color"]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert out.startswith("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi")
    assert "1 system" in out and "2 user" in out and "total" in out
    assert "note: The chat ends with a user message and add_generation_prompt is off" in err


def test_colour_marks_each_role(messages_file, capsys):
    assert main(["chat", messages_file, "--template-name", "chatml", "--color"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[30;48;5;229m<|im_start|>system" in out  # system
    assert "\x1b[30;48;5;153m<|im_start|>user" in out  # user


def test_json_from_stdin_with_tools(monkeypatch, capsys):
    tool = {"type": "function", "function": {"name": "add"}}
    monkeypatch.setattr(
        sys,
        "stdin",
        io.TextIOWrapper(io.BytesIO(json.dumps({"messages": MESSAGES, "tools": [tool]}).encode())),
    )
    assert (
        main(
            [
                "chat",
                "-",
                "--template-name",
                "chatml_tools",
                "--generation-prompt",
                "-t",
                "cl100k_base",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert '"name": "add"' in data["text"] and data["text"].endswith("<|im_start|>assistant\n")
    assert data["total"] == len(data["tokens"]) == sum(data["counts"])


def test_a_template_file_and_its_error_line(tmp_path, messages_file, capsys):
    template = tmp_path / "t.jinja"
    template.write_text("ok\n{{ raise_exception('no system here') }}", encoding="utf-8")
    assert main(["chat", messages_file, "--template", str(template)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "line 2: raise_exception: no system here" in err


def test_bad_messages_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[{nope", encoding="utf-8")
    assert main(["chat", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "the messages are not valid JSON" in err and err.count("\n") == 1


def test_a_tokenizer_config_file(tmp_path, messages_file, capsys):
    config = tmp_path / "tokenizer_config.json"
    config.write_text(
        json.dumps(
            {
                "bos_token": "<B>",
                "chat_template": "{{ bos_token }}{% for m in messages %}{{ m.role }};{% endfor %}",
            }
        ),
        encoding="utf-8",
    )
    assert main(["chat", messages_file, "--config", str(config), "--no-color"]) == 0
    assert capsys.readouterr().out == "<B>system;user;\n"


@pytest.mark.heavy
def test_a_model_folder_brings_its_own_template(tmp_path, messages_file, capsys):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer.json").write_text(
        json.dumps(tc.load("qwen3").to_hf_json()), encoding="utf-8"
    )
    (folder / "chat_template.jinja").write_text(
        "{% for m in messages %}{{ m.role }}|{% endfor %}", encoding="utf-8"
    )
    assert main(["chat", messages_file, "-t", str(folder), "--no-color"]) == 0
    assert capsys.readouterr().out.startswith("system|user|\n")


@pytest.mark.heavy
@pytest.mark.skipif(not INTEROP, reason="../shared/data/interop is absent")
def test_the_llama3_chat_with_its_real_tokenizer_shows_the_double_bos(tmp_path, capsys):
    """Issue 21's bar: three messages through the Llama 3 template, tokenized by Llama 3's own
    tokenizer.json, whose post-processor adds <|begin_of_text|> again."""
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Hi!"},
                {"role": "assistant", "content": "Hello."},
            ]
        ),
        encoding="utf-8",
    )
    llama3 = os.path.join(INTEROP, "converted", "llama3.tokenizer.json")
    assert main(["chat", str(chat), "-t", llama3, "--no-color"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>"
    )
    assert "Two BOS tokens" in err and "<|begin_of_text|>" in err
