"""One text, one answer on every surface: Python (`tc.load`), the visualiser page, compare,
`POST /api/encode`, `tokvis encode` and `tokvis compare` give the ids the tokenizer's own
library gives, for special tokens typed in the text under the one switch named `special` (left
out: that library's default; true: special tokens; false: ordinary text).

The owner libraries: Hugging Face `tokenizers` for a tokenizer.json (Qwen3, bundled; Llama 3
from ../shared when present), whose `encode` matches special added tokens and whose
`encode_special_tokens = True` reads them as text; tiktoken for the OpenAI encodings, whose
`encode` refuses a text holding one (ValueError), `allowed_special="all"` reads them as special
and `disallowed_special=()` as text (`encode_ordinary`)."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
import subprocess
import sys

import pytest

import tokenizers_core as tc
from app.cli import main as cli_main
from tests.oracles import tiktoken_encoding
from tests.shared_data import INTEROP
from tokenizers_core.formats.bundled_models import DATA_DIR

hf = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")

SWITCH = {None: {}, True: {"special": "true"}, False: {"special": "false"}}
CLI_FLAG = {None: [], True: ["--special"], False: ["--no-special"]}


# ---- the surfaces ------------------------------------------------------------------------------
def page_ids(client, name, text, special):
    r = client.get("/", params={"text": text, "tokenizer": name, "ids": "true", **SWITCH[special]})
    if r.status_code != 200:
        return ("refused", r.status_code)
    found = re.search(r'id="ids-list" data-testid="ids">([^<]*)</p>', r.text)
    return [int(i) for i in found.group(1).split()]


def compare_ids(client, name, text, special):
    """The compare column's token count (its metrics are counted from the chips, so the
    column's length is the number of tokens; compare shows no ids)."""
    r = client.get("/api/compare", params={"text": text, "col": [name], **SWITCH[special]})
    assert r.status_code == 200, r.text
    (column,) = r.json()
    return ("refused", 422) if column["error"] else len(column["tokens"])


def api_ids(client, name, text, special):
    body = {"tokenizer": name, "text": text}
    if special is not None:
        body["special"] = special
    r = client.post("/api/encode", json=body)
    return r.json()["ids"] if r.status_code == 200 else ("refused", r.status_code)


def cli_ids(source, text, special, subprocess_=False):
    """`tokvis encode --json`: in this process (the same `main` the console script runs; a
    process each would load the tokenizer each time), or as its own process."""
    argv = ["encode", "-t", source, "--json", *CLI_FLAG[special], text]
    if subprocess_:
        proc = subprocess.run([sys.executable, "-m", "app.cli", *argv], capture_output=True)
        status, out, err = proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    else:
        out_buf, err_buf = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out_buf), contextlib.redirect_stderr(err_buf):
            status = cli_main(argv)
        out, err = out_buf.getvalue(), err_buf.getvalue()
    if status != 0:
        assert status == 1 and "Traceback" not in err and err.count("\n") == 1, err
        return ("refused", 422)
    return json.loads(out)["ids"]


def python_ids(tok, text, special):
    options = {None: {}, True: {"allowed_special": "all"}, False: {"disallowed_special": ()}}
    if not hasattr(tok, "strict_special"):
        options = {None: {}, True: {}, False: {"encode_special_tokens": True}}
    try:
        return tok.encode(text, **options[special]).ids
    except ValueError:
        return ("refused", 422)


def every_surface(client, name, source, tok, text, special):
    """{surface: ids} for one text; compare counts tokens only."""
    return {
        "python": python_ids(tok, text, special),
        "page": page_ids(client, name, text, special),
        "api": api_ids(client, name, text, special),
        "cli": cli_ids(source, text, special),
    }, compare_ids(client, name, text, special)


def agree(found, compared, expected):
    assert found == {k: expected for k in found}, (found, expected)
    assert compared == (expected if isinstance(expected, tuple) else len(expected))


# ---- the owner libraries ------------------------------------------------------------------------
def hf_ids(ref, text, special):
    ref.encode_special_tokens = special is False
    try:
        return ref.encode(text).ids
    finally:
        ref.encode_special_tokens = False


def tiktoken_ids(ref, text, special):
    try:
        if special is None:
            return ref.encode(text)
        if special:
            return ref.encode(text, allowed_special="all")
        return ref.encode(text, disallowed_special=())
    except ValueError:  # tiktoken's default refusal
        return ("refused", 422)


@pytest.fixture(scope="module")
def qwen3_ref():
    with gzip.open(DATA_DIR / "qwen3_tokenizer.json.gz", "rb") as fh:
        return hf.Tokenizer.from_str(fh.read().decode("utf-8"))


@pytest.fixture(scope="module")
def cl100k_ref():
    return tiktoken_encoding("cl100k_base")


QWEN_TEXTS = ["<|im_start|>user\nHi<|im_end|>", "naïve <|endoftext|>東京", "no specials here"]


@pytest.mark.parametrize("special", [None, True, False])
@pytest.mark.parametrize("text", QWEN_TEXTS)
def test_a_tokenizer_json_gives_hugging_faces_ids_everywhere(client, qwen3_ref, text, special):
    found, compared = every_surface(client, "qwen3", "qwen3", tc.load("qwen3"), text, special)
    agree(found, compared, hf_ids(qwen3_ref, text, special))


CL100K_TEXTS = ["<|endoftext|>Hi", "a <|fim_prefix|>b", "plain text, 東京"]


@pytest.mark.parametrize("special", [None, True, False])
@pytest.mark.parametrize("text", CL100K_TEXTS)
def test_an_openai_encoding_gives_tiktokens_ids_or_refusal_everywhere(
    client, cl100k_ref, text, special
):
    tok = tc.load("cl100k_base")
    found, compared = every_surface(client, "cl100k_base", "cl100k_base", tok, text, special)
    agree(found, compared, tiktoken_ids(cl100k_ref, text, special))


SP_MODELS = {  # name: its file, from the bundled vocabularies
    "botchan_en_unigram_1000": "../botchan_en_unigram_1000.model.gz",
    "mistral_v1": "mistral_v1.model.gz",
}
SP_TEXTS = ["Héllo ﬁne", "  two  spaces\tand\ttab", "東京 naïve ", "<s>Hi</s>"]


def page_offsets(client, name, text):
    """The page's chips: each one's (data-s, data-e)."""
    r = client.get("/", params={"text": text, "tokenizer": name})
    assert r.status_code == 200, r.text
    return [(int(s), int(e)) for s, e in re.findall(r'data-s="?(\d+)"? data-e="?(\d+)"?', r.text)]


@pytest.mark.parametrize("text", SP_TEXTS)
@pytest.mark.parametrize("name", sorted(SP_MODELS))
def test_a_sentencepiece_model_gives_its_ids_and_offsets_everywhere(client, name, text):
    """sentencepiece's `encode(text, out_type="offset_mapping")`: its ids on every surface and
    its character offsets in Python, the API, the CLI and the page's chips (a `.model` has no
    special switch: control pieces typed in the text are text, as in sentencepiece)."""
    spm = pytest.importorskip("sentencepiece")
    proto = gzip.decompress((DATA_DIR / SP_MODELS[name]).read_bytes())
    expected = spm.SentencePieceProcessor(model_proto=proto).encode(text, out_type="offset_mapping")
    offsets = [tuple(span) for span in expected["offsets"]]
    tok = tc.load(name)
    found, compared = every_surface(client, name, name, tok, text, None)
    agree(found, compared, expected["ids"])
    assert tok.encode(text).offsets == offsets
    api = client.post("/api/encode", json={"tokenizer": name, "text": text}).json()
    assert [tuple(span) for span in api["offsets"]] == offsets
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["encode", "-t", name, "--json", text]) == 0
    assert [tuple(span) for span in json.loads(out.getvalue())["offsets"]] == offsets
    assert page_offsets(client, name, text) == offsets


LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"


@pytest.mark.heavy
@pytest.mark.skipif(not LLAMA3_JSON.is_file(), reason="shared/data/interop is absent")
def test_the_real_llama3_tokenizer_json_the_same_everywhere(store_client):
    """The issue's case: `<|eot_id|>Hi` was 9 tokens on the page and in tokvis, 3 in the API
    and in Hugging Face. (The CLI runs as its own process once, reading the file itself.)"""
    r = store_client.post(
        "/api/tokenizers", files={"file": ("tokenizer.json", LLAMA3_JSON.read_bytes())}
    )
    assert r.status_code == 201, r.text
    handle = r.json()["tokenizer"]
    text = "<|eot_id|>Hi"
    ref, tok = hf.Tokenizer.from_file(str(LLAMA3_JSON)), tc.load(str(LLAMA3_JSON))
    for special in (None, False):
        expected = hf_ids(ref, text, special)
        assert len(expected) == (3 if special is None else 9)
        found = {
            "python": python_ids(tok, text, special),
            "page": page_ids(store_client, handle, text, special),
            "api": api_ids(store_client, handle, text, special),
            "cli": cli_ids(str(LLAMA3_JSON), text, special, subprocess_=special is None),
        }
        agree(found, compare_ids(store_client, handle, text, special), expected)


def test_tiktokens_refusal_names_the_one_switch(client):
    r = client.post("/api/encode", json={"tokenizer": "cl100k_base", "text": "<|endoftext|>"})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert "special=true" in detail and "--no-special" in detail
    r = client.post(
        "/api/encode", json={"tokenizer": "botchan_en_unigram_1000", "text": "<s>", "special": True}
    )
    assert r.status_code == 422 and "does nothing here" in r.json()["detail"]


# ---- the fingerprint ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["gpt2", "qwen3", "bert-base-uncased"])
def test_the_fingerprint_is_one_answer_in_python_the_api_the_page_and_the_cli(client, name):
    python = tc.fingerprint(name).to_dict()
    api = client.get("/api/fingerprint", params={"tokenizer": name}).json()
    assert api == {"tokenizer": name, **python}
    page = client.get("/fingerprint", params={"tokenizer": name}, headers={"HX-Request": "true"})
    for key in ("sha256", "behaviour", "chkhsh"):
        assert f'data-testid="fp-{key}">{python[key]}</code>' in page.text
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["fingerprint", name, "--json"]) == 0
    assert json.loads(out.getvalue()) == python
