"""A model's tokenizer folder (tokenizer.json + tokenizer_config.json, chat_template.jinja,
additional_chat_templates/), from disk and zipped: the tokenizer loads as its tokenizer.json, and
the chat template it carries renders as transformers' `from_pretrained(folder)` renders it."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

import tokenizers_core as tc
from tests.shared_data import INTEROP
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


@pytest.mark.heavy
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


@pytest.mark.heavy
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


@pytest.mark.heavy
def test_a_single_template_file_is_the_template(tmp_path, qwen3_json):
    folder = write_folder(tmp_path, {"tokenizer.json": qwen3_json, "chat_template.jinja": CHATML})
    tok = tc.load(str(folder))
    assert tok.tokenizer_config == {"chat_template": CHATML}
    assert tc.apply_chat_template(tok, CHAT) == theirs(folder).apply_chat_template(
        CHAT, tokenize=False
    )


@pytest.mark.heavy
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


@pytest.mark.heavy
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


# ---- a tokenizer_class that transformers 5 rebuilds ------------------------------------------
# A class with an `__init__` of its own (GPT2Tokenizer ...) keeps the tokenizer.json's vocabulary,
# merges and post-processor but builds its own normaliser, pre-tokenizer and decoder, and brings
# its own named special tokens: a cl100k-style file named GPT2Tokenizer splits at GPT-2's regex.
def multilingual_texts() -> list[str]:
    from tokenizers_core.corpora import corpus_names, load_corpus

    names = [n for n in corpus_names() if n.startswith("udhr/")][::4]
    texts = [load_corpus(n)[:400] for n in names]
    return texts + [
        ".\n",
        "Hello world.\nNext line.\n\n",
        "  two  spaces\t\ttabs 12345 67890 don't WE'LL",
        "<|endoftext|>Hi<|fim_prefix|> <s>x</s> [CLS] ça hi <mask> there [MASK]",
        "emoji 🙂👍🏽 مرحبا 日本語。\n中文 Straße İstanbul",
    ]


@pytest.fixture(scope="module")
def cl100k_file(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("cl100k") / "tokenizer.json"
    tc.load("cl100k_base").save(str(path))
    return path.read_bytes()


def as_class(root, data: bytes, klass: str, **config):
    return write_folder(
        root,
        {
            "tokenizer.json": data,
            "tokenizer_config.json": json.dumps({"tokenizer_class": klass, **config}),
        },
    )


def assert_same_ids(folder, texts):
    ours, ref = tc.load(str(folder)), theirs(folder)
    for text in texts:
        for add in (True, False):
            assert (
                ours.encode(text, add_special_tokens=add).ids
                == ref(text, add_special_tokens=add)["input_ids"]
            ), (text, add)
        ids = ref(text)["input_ids"]
        assert ours.decode(ids) == ref.decode(ids)
    return ours, ref


@pytest.fixture(scope="module")
def small_file() -> bytes:
    """A small cl100k-style tokenizer.json: byte-level BPE trained with cl100k's pattern, its
    special token in the vocabulary one id past a gap, as our save writes cl100k."""
    from tokenizers_core.corpora import load_corpus

    lines = load_corpus("udhr/all").splitlines()[::3]
    tok = tc.train("byte_bpe", lines, vocab_size=1200, pattern="cl100k")
    data = tok.to_hf_json()
    data["model"]["vocab"]["<|endoftext|>"] = tok.vocab_size + 1
    data["added_tokens"] = [
        {
            "id": tok.vocab_size + 1,
            "content": "<|endoftext|>",
            "special": True,
            "normalized": False,
            "lstrip": False,
            "rstrip": False,
            "single_word": False,
        }
    ]
    return json.dumps(data).encode()


REBUILDING = [
    ("GPT2Tokenizer", {}),
    ("GPT2TokenizerFast", {"add_prefix_space": True}),
    ("Qwen2Tokenizer", {}),
    ("Qwen3_5Tokenizer", {}),
    ("GPTNeoXTokenizer", {"add_bos_token": True}),  # beside a tokenizer.json: ignored
    ("CodeGenTokenizer", {}),
    ("BlenderbotTokenizer", {}),
    ("RobertaTokenizer", {}),
    ("RobertaTokenizerFast", {"bos_token": "<|endoftext|>", "cls_token": "<|endoftext|>"}),
    ("DebertaTokenizer", {}),
    ("CohereTokenizer", {}),
]
AS_IT_IS = [("LlamaTokenizerFast", {}), ("PreTrainedTokenizerFast", {})]


@pytest.mark.parametrize("klass, config", REBUILDING + AS_IT_IS)
def test_a_rebuilding_class_gives_transformers_ids(tmp_path, small_file, klass, config):
    ours, _ = assert_same_ids(as_class(tmp_path, small_file, klass, **config), multilingual_texts())
    rebuilt = (klass, config) in REBUILDING
    assert (ours.class_rebuild is not None) == rebuilt
    if rebuilt:
        assert ours.class_rebuild.followed and "pre-tokenizer" in ours.class_rebuild.note()


@pytest.mark.heavy
@pytest.mark.parametrize("klass", ["GPT2Tokenizer", "Qwen2Tokenizer", "RobertaTokenizer"])
def test_cl100ks_own_file_under_a_class_gives_transformers_ids(tmp_path, cl100k_file, klass):
    assert_same_ids(as_class(tmp_path, cl100k_file, klass), multilingual_texts())


@pytest.mark.heavy
def test_gpt2tokenizer_splits_a_full_stop_and_newline_in_two(tmp_path, cl100k_file):
    """cl100k's regex keeps ".\\n" one piece (one token, 627); GPT-2's splits it (13, 198)."""
    plain = tc.load(str(write_folder(tmp_path / "plain", {"tokenizer.json": cl100k_file})))
    gpt2 = tc.load(str(as_class(tmp_path / "gpt2", cl100k_file, "GPT2Tokenizer")))
    assert plain.encode(".\n").ids == [627]
    assert gpt2.encode(".\n").ids == theirs(tmp_path / "gpt2")(".\n")["input_ids"] == [13, 198]
    note = gpt2.class_rebuild.note()
    assert "GPT2Tokenizer" in note and "ByteLevel (GPT-2's regex)" in note


@pytest.mark.parametrize(
    "klass",
    ["BertTokenizer", "DistilBertTokenizer", "DPRReaderTokenizer", "DPRContextEncoderTokenizer"],
)
@pytest.mark.parametrize("config", [{}, {"do_lower_case": False, "strip_accents": False}])
def test_bert_tokenizers_rebuild_their_normaliser(tmp_path, klass, config):
    """BertTokenizer lowercases unless the config says do_lower_case false, whatever the file;
    the DPR classes swallow do_lower_case, so they always lowercase."""
    data = json.dumps(tc.load("bert-base-uncased").to_hf_json()).encode()
    texts = [*multilingual_texts()[:6], "Héllo WORLD, naïve café"]
    ours, _ = assert_same_ids(as_class(tmp_path, data, klass, **config), texts)
    cased = config and not klass.startswith("DPR")
    assert ("BertNormalizer (cased)" in (ours.class_rebuild.note() or "")) == bool(cased)


@pytest.fixture(scope="module")
def mistral_json() -> bytes:
    return json.dumps(tc.load("mistral_v1").to_hf_json()).encode()


@pytest.mark.parametrize(
    "klass, config, says",
    [
        ("LlamaTokenizer", {}, "normaliser none instead of the file's Sequence[Prepend]"),
        ("LlamaTokenizerFast", {"legacy": True}, "Metaspace (prepend always, no split)"),
        ("LlamaTokenizer", {"add_prefix_space": False}, "Metaspace (prepend never, no split)"),
        ("GemmaTokenizer", {}, "normaliser Replace instead of the file's Sequence[Prepend]"),
    ],
)
def test_sentencepiece_style_classes_rebuild_the_file(tmp_path, mistral_json, klass, config, says):
    """Mistral 7B v0.1's tokenizer as a tokenizer.json (a Prepend normaliser, Metaspace):
    LlamaTokenizer drops the normaliser, prepends at the first word only, and has no unk
    token in its model; GemmaTokenizer replaces spaces with ▁ instead; as transformers 5."""
    texts = [*multilingual_texts(), " leading space", "two  spaces", "<unk> and </s> x"]
    ours, _ = assert_same_ids(as_class(tmp_path, mistral_json, klass, **config), texts)
    assert says in ours.class_rebuild.note()


@pytest.mark.parametrize(
    "klass, config",
    [
        ("XLMRobertaTokenizer", {}),
        ("XLMRobertaTokenizer", {"add_prefix_space": False}),
        ("T5Tokenizer", {}),
        ("T5Tokenizer", {"extra_ids": 3}),
        ("T5Tokenizer", {"additional_special_tokens": ["<extra_id_0>", "<x>"]}),
    ],
)
def test_unigram_classes_rebuild_the_file(tmp_path, klass, config):
    """botchan's Unigram as a tokenizer.json: XLMRobertaTokenizer keeps only its Precompiled
    charsmap, splits at whitespace, numbers the unknown token 3 whatever the file says, and
    wraps a text in <s> ... </s>; T5Tokenizer numbers it 2, adds <extra_id_0> ... and ends a
    text with </s>; as transformers 5 builds them."""
    data = json.dumps(tc.load("botchan_en_unigram_1000").to_hf_json()).encode()
    texts = [*multilingual_texts(), "x <extra_id_0> y <extra_id_99>z <x>"]
    ours, _ = assert_same_ids(as_class(tmp_path, data, klass, **config), texts)
    assert "post-processor the class's own" in ours.class_rebuild.note()


def test_openai_gpt_tokenizer_rebuilds_a_word_end_bpe(tmp_path):
    """A BPE whose word ends carry </w> (trained by Hugging Face on botchan, Whitespace
    pre-tokenizer): OpenAIGPTTokenizer lowercases with BERT's normaliser and splits as BERT
    does, as transformers 5 builds it."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers

    from tokenizers_core.corpora import load_corpus

    ref = HFTokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>"))
    ref.pre_tokenizer = pre_tokenizers.Whitespace()
    ref.decoder = decoders.BPEDecoder()
    trainer = trainers.BpeTrainer(
        vocab_size=800, special_tokens=["<unk>"], end_of_word_suffix="</w>"
    )
    ref.train_from_iterator(load_corpus("botchan").splitlines()[:3000], trainer)
    data = ref.to_str().encode()
    ours, _ = assert_same_ids(as_class(tmp_path, data, "OpenAIGPTTokenizer"), multilingual_texts())
    assert "BertNormalizer (lowercasing) instead of the file's none" in ours.class_rebuild.note()


def test_a_class_we_do_not_rebuild_says_so(tmp_path, cl100k_file):
    ours = tc.load(str(as_class(tmp_path, cl100k_file, "CLIPTokenizer")))
    assert not ours.class_rebuild.followed and "does not follow" in ours.class_rebuild.note()
    assert ours.encode(".\n").ids == [627]  # the file as it is


needs_llama3 = pytest.mark.skipif(
    not (INTEROP / "converted" / "llama3.tokenizer.json").is_file(),
    reason="shared/data/interop is absent",
)


@pytest.mark.heavy
@needs_llama3
def test_the_real_llama3_file_named_gpt2tokenizer(tmp_path):
    """A post-processor of its own (BOS) kept, `ignore_merges` dropped, as transformers does."""
    data = (INTEROP / "converted" / "llama3.tokenizer.json").read_bytes()
    ours, _ = assert_same_ids(as_class(tmp_path, data, "GPT2Tokenizer"), multilingual_texts())
    assert "ignore_merges=False" in ours.class_rebuild.note()


@pytest.mark.heavy
def test_qwen3s_own_config_names_a_class_that_changes_nothing(tmp_path, qwen3_json):
    """Qwen3's real tokenizer_config.json names Qwen2Tokenizer, whose components are its file's:
    no note, and transformers' ids."""
    import gzip
    from importlib.resources import files

    config = gzip.decompress(
        files("tokenizers_core.data.vocab").joinpath("qwen3_tokenizer_config.json.gz").read_bytes()
    )
    folder = write_folder(tmp_path, {"tokenizer.json": qwen3_json, "tokenizer_config.json": config})
    ours, _ = assert_same_ids(folder, multilingual_texts()[-5:])
    assert ours.class_rebuild.followed and ours.class_rebuild.note() is None
