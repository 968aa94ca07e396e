"""A model's tokenizer folder (tokenizer.json + tokenizer_config.json, chat_template.jinja,
additional_chat_templates/), from disk and zipped: the tokenizer loads as its tokenizer.json, and
the chat template it carries renders as transformers' `from_pretrained(folder)` renders it."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

import tokenizers_core as tc
from tokenizers_core.formats import TooLarge, model_folder, sniff

transformers = pytest.importorskip("transformers")

CHAT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hi there"},
    {"role": "assistant", "content": "Hello!"},
]
TEXT = "Hello world, 12345 <|im_start|> ünïcödé\n\n  spaces"
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def qwen3_json() -> bytes:
    return json.dumps(tc.load("qwen3").to_hf_json()).encode()


def write_folder(root, files: dict[str, bytes | str]):
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def zipped(files: dict[str, bytes | str], prefix: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, content in files.items():
            zf.writestr(prefix + name, content)
    return out.getvalue()


def theirs(folder):
    return transformers.AutoTokenizer.from_pretrained(str(folder))


def test_a_folder_loads_its_tokenizer_json_and_keeps_the_config(tmp_path, qwen3_json):
    config = {"chat_template": CHATML, "eos_token": "<|im_end|>", "bos_token": None}
    folder = write_folder(
        tmp_path, {"tokenizer.json": qwen3_json, "tokenizer_config.json": json.dumps(config)}
    )
    tok = tc.load(str(folder))
    assert tok.encode(TEXT).ids == tc.load("qwen3").encode(TEXT).ids
    assert tok.tokenizer_config == config
    ours = tc.apply_chat_template(tok, CHAT, add_generation_prompt=True)
    assert ours == theirs(folder).apply_chat_template(
        CHAT, tokenize=False, add_generation_prompt=True
    )


def test_the_template_files_win_over_the_configs_as_in_transformers(tmp_path, qwen3_json):
    folder = write_folder(
        tmp_path,
        {
            "tokenizer.json": qwen3_json,
            "tokenizer_config.json": json.dumps(
                {"chat_template": "CONFIG {{ messages | length }}"}
            ),
            "chat_template.jinja": CHATML,
            "additional_chat_templates/short.jinja": "{{ messages[-1].content }}",
        },
    )
    tok = tc.load(str(folder))
    assert tc.chat.template_names(tok.tokenizer_config) == ["default", "short"]
    hf = theirs(folder)
    for name in (None, "short"):
        assert tc.apply_chat_template(tok, CHAT, template_name=name) == hf.apply_chat_template(
            CHAT, tokenize=False, chat_template=name
        )


def test_a_single_template_file_is_the_template(tmp_path, qwen3_json):
    folder = write_folder(tmp_path, {"tokenizer.json": qwen3_json, "chat_template.jinja": CHATML})
    tok = tc.load(str(folder))
    assert tok.tokenizer_config == {"chat_template": CHATML}
    assert tc.apply_chat_template(tok, CHAT) == theirs(folder).apply_chat_template(
        CHAT, tokenize=False
    )


def test_the_legacy_special_tokens_map_fills_the_named_tokens(tmp_path, qwen3_json):
    template = "{{ bos_token }}|{{ eos_token }}|{{ messages[0].content }}"
    folder = write_folder(
        tmp_path,
        {
            "tokenizer.json": qwen3_json,
            "tokenizer_config.json": json.dumps({"chat_template": template}),
            "special_tokens_map.json": json.dumps(
                {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"}
            ),
        },
    )
    tok = tc.load(str(folder))
    assert (
        tc.apply_chat_template(tok, CHAT)
        == theirs(folder).apply_chat_template(CHAT, tokenize=False)
        == "<|im_start|>|<|im_end|>|Be brief."
    )


@pytest.mark.parametrize("prefix", ["", "Qwen3-0.6B/"])
def test_a_zip_of_the_folder_loads_the_same(qwen3_json, prefix):
    files = {
        "tokenizer.json": qwen3_json,
        "chat_template.jinja": CHATML,
        "README.md": "not read",
        "model.safetensors": b"\0" * 64,
    }
    data = zipped(files, prefix)
    assert sniff(data) == "model_folder"
    tok = tc.load(data)
    assert tok.encode(TEXT).ids == tc.load("qwen3").encode(TEXT).ids
    assert tok.tokenizer_config == {"chat_template": CHATML}


def test_the_bundled_qwen3_carries_its_own_template():
    tok = tc.load("qwen3")
    rendered = tc.apply_chat_template(tok, CHAT, add_generation_prompt=True)
    hf = transformers.PreTrainedTokenizerFast(
        tokenizer_object=__import__("tokenizers").Tokenizer.from_str(json.dumps(tok.to_hf_json())),
        chat_template=tok.tokenizer_config["chat_template"],
    )
    assert rendered == hf.apply_chat_template(CHAT, tokenize=False, add_generation_prompt=True)
    assert rendered.startswith("<|im_start|>system\nBe brief.<|im_end|>")
    # a bundled template named explicitly still wins
    assert tc.apply_chat_template(tok, CHAT, template_name="llama3").startswith("<|begin_of_text|>")


@pytest.mark.parametrize(
    "files,message",
    [
        ({"tokenizer_config.json": "{}"}, "holds no vocab.json"),  # a zip: no tokenizer
        ({"tokenizer.json": b"{}"}, 'no "model" object'),
        ({"tokenizer.json": None, "tokenizer_config.json": "[1]"}, "must hold a JSON object"),
        ({"tokenizer.json": None, "tokenizer_config.json": "{"}, "not valid JSON"),
        ({"tokenizer.json": None, "chat_template.jinja": b"\xff"}, "not UTF-8"),
    ],
)
def test_bad_folders_say_what_is_wrong(qwen3_json, files, message):
    files = {k: (qwen3_json if v is None else v) for k, v in files.items()}
    with pytest.raises(ValueError, match=message):
        tc.load(zipped(files))


def test_a_zip_bomb_stops_at_the_cap(qwen3_json, monkeypatch):
    monkeypatch.setattr(model_folder, "MAX_BYTES", len(qwen3_json) + 100)
    data = zipped({"tokenizer.json": qwen3_json, "chat_template.jinja": "x" * 10_000})
    with pytest.raises(TooLarge, match="more than"):
        model_folder.load_bytes(data)
