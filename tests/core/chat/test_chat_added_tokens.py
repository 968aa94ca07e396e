"""A tokenizer_config.json's added tokens count (InternLM2's and ChatGLM3's chat
tokens `<|im_start|>`, `[gMASK]`, `<|user|>` live only in their configs' `added_tokens_decoder`,
and were read as ordinary text). transformers' `PreTrainedTokenizerFast` adds them to the
tokenizer.json's tokenizer with their flags, appending those the vocabulary lacks at the next
free id (not at the id the config lists), then the named special tokens it still lacks.

Small synthetic tokenizer.json + tokenizer_config.json pairs, made as those packages' files are
(tokens in and not in the vocabulary, special and not, lstrip/rstrip, normalized under a
lowercasing normaliser, a token the tokenizer.json already has with other flags), checked
against Hugging Face `tokenizers` with the tokens added as transformers adds them, and against
transformers itself. The real files are checked by `benchmarks/verify_chat_added_tokens.py`.
"""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from tokenizers_core import chat
from tokenizers_core.added_tokens import AddedToken, config_added_tokens
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats.model_folder import with_config_tokens

hf = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

WORDS = ["<unk>", "<s>", "</s>", "hello", "world", "user", "x", "<", "|", ">", "[", "]", "_"]
WORDS += ["im", "start", "end", "gmask", "t", "pad", "extra", "assistant", "sop", "\n"]
TOKENIZER_JSON = {
    "version": "1.0",
    "added_tokens": [
        {"id": 0, "content": "<unk>", "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True},
        # already added, as ChatGLM3's and Command R+'s files have some: the config changes it
        {"id": len(WORDS), "content": "<T>", "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": False},
    ],
    "normalizer": {"type": "Lowercase"},
    "pre_tokenizer": {"type": "Whitespace"},
    "model": {"type": "WordLevel", "vocab": {w: i for i, w in enumerate(WORDS)},
              "unk_token": "<unk>"},
    "decoder": None,
}  # fmt: skip
NOT_IN_VOCAB = len(WORDS) + 1  # the first id transformers appends at (after <T>'s)


def entry(content: str, special: bool, normalized: bool, **flags: bool) -> dict:
    """One `added_tokens_decoder` entry as transformers writes it."""
    return {
        "content": content,
        "lstrip": flags.get("lstrip", False),
        "normalized": normalized,
        "rstrip": flags.get("rstrip", False),
        "single_word": flags.get("single_word", False),
        "special": special,
    }


CONFIG = {
    "added_tokens_decoder": {
        "0": entry("<unk>", True, False),  # the tokenizer.json's own: left as it is
        "1": entry("<s>", True, False),  # in the vocabulary, not yet added
        str(len(WORDS)): entry("<T>", True, False),  # added already, now special
        # not in the vocabulary: appended from NOT_IN_VOCAB on, whatever id the config says
        "92543": entry("<|im_start|>", True, False),
        "92542": entry("<|im_end|>", True, False, rstrip=True),
        "64790": entry("[gMASK]", False, True),  # matched in the lowercased text
        "64795": entry("<|user|>", False, True, lstrip=True),
    },
    "bos_token": "<s>",
    "eos_token": "</s>",  # in the vocabulary, in no list: added as special
    "pad_token": "<pad>",  # nowhere: appended as special
    "additional_special_tokens": ["<|extra|>", "<|im_start|>"],
    "chat_template": (
        "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}"
        "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}[gMASK]<|user|>{% endif %}"
    ),
}
TEXTS = [
    "<s><|im_start|>user\nhello <|im_end|>  \n world</s>",
    "HELLO [GMASK] [gMASK]x <|USER|>  <|user|> <T><t> <pad><|extra|>",
    "x<|im_start|><|im_start|>[gmask]sop</s>",
]


def reference_hf() -> hf.Tokenizer:
    """Hugging Face `tokenizers` with the config's tokens added as transformers adds them:
    `add_tokens` of the decoder's tokens (sorted by id, with their flags; the one it already
    has identical left out), then of the named and extra special tokens it lacks."""
    ref = hf.Tokenizer.from_str(json.dumps(TOKENIZER_JSON))
    ref.add_tokens(
        [
            hf.AddedToken("<s>", special=True, normalized=False),
            hf.AddedToken("<T>", special=True, normalized=False),
            hf.AddedToken("[gMASK]", special=False, normalized=True),
            hf.AddedToken("<|user|>", special=False, normalized=True, lstrip=True),
            hf.AddedToken("<|im_end|>", special=True, normalized=False, rstrip=True),
            hf.AddedToken("<|im_start|>", special=True, normalized=False),
            hf.AddedToken("</s>", special=True),
            hf.AddedToken("<pad>", special=True),
            hf.AddedToken("<|extra|>", special=True),
        ]
    )
    return ref


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("model")
    (root / "tokenizer.json").write_text(json.dumps(TOKENIZER_JSON), encoding="utf-8")
    (root / "tokenizer_config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def ours(folder):
    return tc.load(str(folder))


def added(tok) -> dict[int, tuple[str, bool]]:
    return {t.id: (t.content, t.special) for t in tok.added_tokens}


def test_a_folder_adds_its_configs_tokens_as_hugging_face_does(ours):
    ref = reference_hf()
    assert added(ours) == {
        i: (str(t), t.special) for i, t in ref.get_added_tokens_decoder().items()
    }
    # appended after the vocabulary in transformers' order, not at the config's ids
    assert ours.token_to_id("[gMASK]") == NOT_IN_VOCAB
    assert ours.token_to_id("<|im_start|>") == NOT_IN_VOCAB + 3
    assert ours.vocab_size == ref.get_vocab_size() == NOT_IN_VOCAB + 6
    for text in TEXTS:
        theirs = ref.encode(text, add_special_tokens=False)
        mine = ours.encode(text, add_special_tokens=False)
        assert (mine.ids, mine.tokens) == (theirs.ids, theirs.tokens), text
        assert mine.offsets == theirs.offsets, text
        assert ours.decode(mine.ids, skip_special_tokens=True) == ref.decode(
            theirs.ids, skip_special_tokens=True
        )


def test_the_same_as_transformers_from_the_folder(folder, ours):
    ref = transformers.PreTrainedTokenizerFast.from_pretrained(str(folder))
    assert added(ours) == {i: (str(t), t.special) for i, t in ref.added_tokens_decoder.items()}
    messages = [{"role": "user", "content": "HELLO [gMASK] <|user|>x"}]
    text = ref.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    done = chat.render_chat(messages, tokenizer=ours, add_generation_prompt=True)
    assert done.text == text
    assert done.encoding.ids == ref(text, add_special_tokens=False)["input_ids"]
    for t in TEXTS:
        assert (
            ours.encode(t, add_special_tokens=False).ids
            == ref(t, add_special_tokens=False)["input_ids"]
        )


def test_a_pasted_config_adds_its_tokens_to_the_chosen_tokenizer(folder):
    """/chat with a tokenizer and a pasted tokenizer_config.json: the ids as transformers
    gives them for the two loaded together."""
    tok = tc.load(json.dumps(TOKENIZER_JSON).encode())
    assert tok.token_to_id("<|im_start|>") is None
    messages = [{"role": "user", "content": "hello"}]
    done = chat.render_chat(messages, tokenizer=tok, config=CONFIG, add_generation_prompt=True)
    ref = transformers.PreTrainedTokenizerFast.from_pretrained(str(folder))
    assert done.encoding.ids == ref(done.text, add_special_tokens=False)["input_ids"]
    assert done.encoding.ids[:2] == [1, NOT_IN_VOCAB + 3]  # <s> <|im_start|>
    assert tok.token_to_id("<|im_start|>") is None  # the chosen tokenizer is not changed


def test_a_named_token_in_the_decoder_is_special():
    """transformers marks special any token it adds whose string a named token holds."""
    config = {
        "added_tokens_decoder": {"70": entry("[gMASK]", False, True)},
        "mask_token": "[gMASK]",
    }
    (token,) = config_added_tokens(config)
    assert (token.content, token.special, token.normalized) == ("[gMASK]", True, True)


def test_a_config_that_adds_nothing_leaves_the_tokenizer_as_it_is():
    tok = tc.load(json.dumps(TOKENIZER_JSON).encode())
    same = {"added_tokens_decoder": {"0": entry("<unk>", True, False)}, "unk_token": "<unk>"}
    assert with_config_tokens(tok, same) is tok
    assert with_config_tokens(tok, {}) is tok
    assert with_config_tokens(tc.load("cl100k_base"), CONFIG) is tc.load("cl100k_base")


@pytest.mark.parametrize(
    "config, message",
    [
        ({"added_tokens_decoder": []}, "an object"),
        ({"added_tokens_decoder": {"x": entry("a", True, False)}}, "not an id"),
        ({"added_tokens_decoder": {"5": {"special": True}}}, "content"),
        ({"added_tokens_decoder": {"5": {**entry("a", True, False), "lstrip": "yes"}}}, "lstrip"),
        ({"bos_token": {"content": 5}}, "content"),
    ],
)
def test_a_bad_added_tokens_decoder_says_what_is_wrong(config, message):
    with pytest.raises(InvalidInput, match=message):
        config_added_tokens(config, [AddedToken("<unk>", 0)])
