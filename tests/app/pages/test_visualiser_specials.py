"""/, the visualiser's special tokens, ids and token budget: the "special tokens in text" switch
(`special`) for every tokenizer kind (left out, the tokenizer's own library's default: Hugging Face
matches them, tiktoken refuses the text; true, special tokens; false, ordinary text), disabled
with a reason where there are none to read, and the decode's note on Llama 3 chat text; "add
BOS/EOS" (the post-processor, add_special_tokens) for every tokenizer kind, disabled with a reason
where nothing is added, kept in the permalink; the paste-ids box (ids -> which tokens, the text
with and without special tokens, an unknown id an error in place); "split at N tokens" (the cut on
a character boundary, the chunks, the note that counts are not additive). The same box on
/compare is tested in test_compare.py, `tokvis encode --no-special-tokens` in
tests/app/test_cli.py."""

from __future__ import annotations

import html
import json
import re

import pytest

import tokenizers_core as tc
from app.roundtrip import round_trip_notes
from tests.app.pages.markup import box, by_testid, chips_of
from tests.shared_data import INTEROP

LLAMA3_JSON = INTEROP / "converted" / "llama3.tokenizer.json"
needs_llama3 = pytest.mark.skipif(not LLAMA3_JSON.is_file(), reason="shared/data/interop is absent")


def page(client, text, tokenizer, **params):
    r = client.get("/", params={"text": text, "tokenizer": tokenizer, **params})
    assert r.status_code == 200, r.text
    return r


def token_count(body: str) -> int:
    return int(by_testid(body, "token-count"))


# ---- add BOS/EOS ---------------------------------------------------------------------------
def test_bert_adds_cls_and_sep_only_when_the_box_is_on(client):
    on = page(client, "hi there", "bert-base-uncased").text
    off = page(client, "hi there", "bert-base-uncased", bos="false").text
    assert token_count(on) == 4 and token_count(off) == 2
    assert "[CLS]" in by_testid(on, "decoded") and "[CLS]" not in by_testid(off, "decoded")
    assert 'data-testid="bos-box" checked' in on and 'data-testid="bos-box" checked' not in off
    assert by_testid(on, "bos-what") == "Adds [CLS] before the text and [SEP] after it."


def test_the_box_is_kept_in_the_permalink(client):
    off = page(client, "hi there", "bert-base-uncased", bos="false")
    assert "bos=false" in off.headers["HX-Push-Url"]
    on = page(client, "hi there", "bert-base-uncased")
    assert "bos=" not in on.headers["HX-Push-Url"]


def test_the_trace_download_follows_the_box(client):
    off = page(client, "hi there", "bert-base-uncased", bos="false").text
    link = html.unescape(
        off.split('data-testid="download-trace"')[0].rsplit('href="', 1)[1].split('"')[0]
    )
    assert "bos=false" in link
    steps = [json.loads(line) for line in client.get(link).text.splitlines()]
    assert [t[0] for t in steps[-1]["tokens"]] == ["hi", "there"]


def test_the_form_sends_a_hidden_false_before_the_box(client):
    """Unticked, the form sends only the hidden bos=false; ticked, bos=true comes after it and
    wins."""
    form = {"text": "hi there", "tokenizer": "bert-base-uncased"}
    ticked = client.post(
        "/",
        content="&".join(f"{k}={v}" for k, v in [*form.items(), ("bos", "false"), ("bos", "true")]),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    unticked = client.post("/", data={**form, "bos": "false"})
    assert token_count(ticked.text) == 4 and token_count(unticked.text) == 2


@pytest.mark.parametrize("name", ["cl100k_base", "botchan_en_unigram_1000", "char", "word"])
def test_the_box_is_disabled_with_a_reason_where_nothing_is_added(client, name):
    body = page(client, "hi there", name).text
    assert "adds no special tokens" in by_testid(body, "bos-why")
    assert "disabled" in box(body, "bos-box")
    assert token_count(body) == token_count(page(client, "hi there", name, bos="false").text)


@pytest.fixture(scope="module")
def llama3(client):
    r = client.post("/api/tokenizers", files={"file": ("tokenizer.json", LLAMA3_JSON.read_bytes())})
    assert r.status_code == 201, r.text
    return r.json()["tokenizer"]


@pytest.mark.heavy
@needs_llama3
def test_llama3_adds_begin_of_text(client, llama3):
    on = page(client, "Hello", llama3).text
    off = page(client, "Hello", llama3, bos="false").text
    assert token_count(on) == token_count(off) + 1
    assert by_testid(on, "bos-what") == "Adds <|begin_of_text|> before the text."


@pytest.mark.parametrize(
    "source, filename, adds",
    [
        ("bert-base-uncased", "vocab.txt", "Adds [CLS] before the text and [SEP] after it."),
        ("botchan_en_unigram_1000", "spm.model", None),
    ],
)
def test_uploaded_files_follow_their_own_post_processor(
    store_client, tmp_path, source, filename, adds
):
    import tokenizers_core as tc

    path = tmp_path / filename
    tc.load(source).save(str(path))
    r = store_client.post("/api/tokenizers", files={"file": (filename, path.read_bytes())})
    assert r.status_code == 201, r.text
    body = page(store_client, "hi there", r.json()["tokenizer"]).text
    if adds:
        assert by_testid(body, "bos-what") == adds
    else:
        assert "adds no special tokens" in by_testid(body, "bos-why")


def test_htmx_gets_the_bos_box_and_the_ids_output_out_of_band(client):
    body = client.get(
        "/", params={"text": "hi", "tokenizer": "bert-base-uncased"}, headers={"HX-Request": "true"}
    ).text
    assert 'id="bos-box" hx-swap-oob="true"' in body and 'id="ids-out"' in body


# ---- the paste-ids box -----------------------------------------------------------------------
def test_ids_decode_with_and_without_specials_and_show_each_token(client):
    body = page(client, "x", "cl100k_base", decode="9906, 1917 100257").text
    assert by_testid(body, "ids-decoded") == "Hello·world<|endoftext|>"
    assert by_testid(body, "ids-decoded-plain") == "Hello·world"
    chips = body.split('data-testid="ids-chips"')[1].split("</ol>")[0]
    assert chips.count("<li") == 3 and chips.count("· special</span>") == 1
    assert "&lt;|endoftext|&gt;" in chips and "·world" in chips
    assert "<details" in body and 'id="ids-panel" open' in body


def test_ids_as_a_json_list_and_bert_specials(client):
    body = page(client, "x", "bert-base-uncased", decode="[101, 7632, 2045, 102]").text
    assert by_testid(body, "ids-decoded") == "[CLS]·hi·there·[SEP]"
    assert by_testid(body, "ids-decoded-plain") == "hi·there"


def test_a_character_cut_across_ids_is_drawn_once(client):
    """cl100k spells the parrot with three ids; the first two show their bytes."""
    ids = " ".join(map(str, __import__("tokenizers_core").load("cl100k_base").encode("🦜").ids))
    body = page(client, "x", "cl100k_base", decode=ids).text
    chips = body.split('data-testid="ids-chips"')[1].split("</ol>")[0]
    assert chips.count("partial") == 2 and "🦜" in chips and "&lt;F0 9F&gt;" in chips


@pytest.mark.parametrize(
    "typed, message",
    [
        ("9906 999999999", "id 999999999 is not in the vocabulary of cl100k_base"),
        ("1 two", "'two' is not a token id"),
        ("[1, 2", "not one"),
    ],
)
def test_a_bad_id_is_an_error_in_place(client, typed, message):
    r = page(client, "Hello", "cl100k_base", decode=typed)
    assert message in by_testid(r.text, "ids-error")
    assert token_count(r.text) == 1  # the rest of the page is unaffected


@pytest.mark.parametrize(
    "name, typed, decoded, labels",
    [
        ("botchan_en_unigram_1000", None, "the·cats", ["·the", "·c", "at", "s"]),
        (
            "bert-base-uncased",
            "[101, 2652, 14477, 102]",
            "[CLS]·playing·una·[SEP]",
            ["[CLS]", "playing", "una", "[SEP]"],
        ),
        ("char", "104 105", "hi", ["h", "i"]),
    ],
)
def test_ids_of_other_tokenizer_kinds(client, name, typed, decoded, labels):
    import tokenizers_core as tc

    typed = typed or " ".join(map(str, tc.load(name).encode("the cats").ids))
    body = page(client, "x", name, decode=typed).text
    assert by_testid(body, "ids-decoded") == decoded
    chips = body.split('data-testid="ids-chips"')[1].split("</ol>")[0]
    assert [html.unescape(t.split("</span>")[0]) for t in chips.split('class="tok">')[1:]] == labels


def test_a_tokenizer_without_fixed_ids_says_so(client):
    body = page(client, "x", "word", decode="0 1").text
    assert "no fixed ids to decode" in by_testid(body, "ids-error")


def test_the_ids_box_escapes_what_is_typed(client):
    payload = '<script>alert(1)</script>"><img src=x onerror=alert(1)>'
    body = page(client, payload, "cl100k_base", decode=payload, budget=payload).text
    assert "<script>alert(1)" not in body and "<img src=x" not in body
    assert "&lt;script&gt;" in body


# ---- the token budget ------------------------------------------------------------------------
def test_the_budget_cuts_where_the_first_n_tokens_end(client):
    body = page(client, "Hello big world", "cl100k_base", budget="2").text
    assert "end at character 9" in by_testid(body, "budget-cut")
    assert by_testid(body, "budget-head") == "Hello·big"
    assert by_testid(body, "budget-rest") == "·world"
    rows = body.split('data-testid="budget-chunks"')[1].split("</table>")[0]
    assert rows.count("<tr>") == 3  # header + 2 chunks


def test_a_cut_inside_a_character_moves_back_and_says_so(client):
    body = page(client, "a🦜b", "cl100k_base", budget="2").text
    assert "end at character 1" in by_testid(body, "budget-cut")
    assert "inside a character" in by_testid(body, "budget-inside")
    assert "alone takes 3 tokens" in by_testid(body, "budget-chunks-error")  # the parrot
    body = page(client, "a🦜b", "cl100k_base", budget="3").text
    rows = body.split('data-testid="budget-chunks"')[1].split("</table>")[0]
    assert rows.count("<tr>") == 4 and "🦜" in rows


def test_counts_that_do_not_add_up_show_both_numbers(client):
    body = page(client, "unaffable playing", "bert-base-uncased", budget="2").text
    assert "here 5 against 4" in by_testid(body, "budget-additive")


def test_the_whole_text_fits(client):
    body = page(client, "Hello", "cl100k_base", budget="5").text
    assert "The whole text fits" in by_testid(body, "budget-fits")


@pytest.mark.parametrize(
    "typed, message", [("0", "at least 1"), ("abc", "at least 1"), ("1", "alone takes")]
)
def test_a_bad_budget_is_an_error_in_place(client, typed, message):
    body = page(client, "🦜", "cl100k_base", budget=typed).text
    assert message in by_testid(body, "budget-error")


def test_the_budget_and_ids_are_kept_in_the_permalink(client):
    r = page(client, "Hello big world", "cl100k_base", budget="2", decode="1 2")
    assert "budget=2" in r.headers["HX-Push-Url"] and "decode=1+2" in r.headers["HX-Push-Url"]


def test_ids_a_tokenizer_json_lacks_are_dropped_and_named(store_client):
    """The paste-ids box decodes as Hugging Face does (the id left out) and says which."""
    from tests.app.test_api import gap_tokenizer_json

    r = store_client.post(
        "/api/tokenizers", files={"file": ("tokenizer.json", gap_tokenizer_json())}
    )
    body = page(store_client, "x", r.json()["tokenizer"], decode="263 265 264 266").text
    assert "ids-error" not in body
    assert by_testid(body, "ids-decoded") == "hello·world<|endoftext|>"
    assert "<code>265</code>" in body.split('data-testid="ids-dropped"')[1].split("</p>")[0]
    chips = body.split('data-testid="ids-chips"')[1].split("</ol>")[0]
    assert chips.count("<li") == 3  # a chip for each id that is a token


# ---- the special-tokens-in-text switch -----------------------------------------------------------
def test_special_tokens_toggle(client):
    params = {"text": "hi<|endoftext|>", "tokenizer": "cl100k_base"}
    off = client.get("/", params={**params, "special": "false"})
    assert "special" not in re.findall(r'<li class="chip([^"]*)"', off.text)[-1]
    on = client.get("/", params={**params, "special": "true"})
    assert re.findall(r'<li class="chip([^"]*)"', on.text)[-1].endswith("special")
    assert chips_of(on.text)[-1] == "<|endoftext|>"


def chat_text() -> str:
    return json.loads((INTEROP / "special_texts.json").read_text())["llama3.tokenizer.json"][0]


def switch_page(client, text, tokenizer, special=None, **headers):
    switch = {} if special is None else {"special": "true" if special else "false"}
    params = {"text": text, "tokenizer": tokenizer, **switch}
    return client.get("/", params=params, headers=headers).text


def decoded(body: str) -> str:
    return html.unescape(body.split('data-testid="decoded">')[1].split("</p>")[0])


@pytest.mark.heavy
@needs_llama3
def test_the_switch_changes_a_tokenizer_json(client, llama3):
    """Left out, Hugging Face's default: the typed specials are matched, as on."""
    text = chat_text()
    on, off = (
        switch_page(client, text, llama3, special=True),
        switch_page(client, text, llama3, special=False),
    )
    assert token_count(on) == 22 and token_count(off) > 40
    assert token_count(switch_page(client, text, llama3)) == 22
    assert 'data-testid="special-why"' not in on


@pytest.mark.heavy
@needs_llama3
def test_llama3_chat_decode_keeps_the_specials_and_the_note_names_the_post_processor(
    client, llama3
):
    text = chat_text()
    for body in (
        switch_page(client, text, llama3),
        switch_page(client, text, llama3, special=False),
    ):
        assert decoded(body).replace("·", " ").replace("↵", "\n") == "<|begin_of_text|>" + text
        notes = body.split('data-testid="round-trip">')[1].split("</ul>")[0]
        assert "the post-processor added" in notes and "&lt;|begin_of_text|&gt;" in notes
        assert "joins" not in notes and "left out" not in notes


@pytest.mark.heavy
@needs_llama3
def test_llama3_notes_say_which_decode_left_the_specials_out():
    tok = tc.load(str(LLAMA3_JSON))
    text = chat_text()
    enc = tok.encode(text)
    assert round_trip_notes(tok, text, enc, tok.decode(enc.ids)) == [
        "decode keeps the special token “<|begin_of_text|>” the post-processor added."
    ]
    skipped = round_trip_notes(tok, text, enc, tok.decode(enc.ids, skip_special_tokens=True))
    assert len(skipped) == 1 and "(skip_special_tokens=True)" in skipped[0]
    assert "<|eot_id|>" in skipped[0]


def test_bert_reads_typed_special_tokens_as_hugging_face_unless_switched_off(client):
    on, off, default = (
        switch_page(client, "[MASK] hi", "bert-base-uncased", special=True),
        switch_page(client, "[MASK] hi", "bert-base-uncased", special=False),
        switch_page(client, "[MASK] hi", "bert-base-uncased"),
    )
    assert token_count(on) == 4 and token_count(off) == 6 and token_count(default) == 4
    assert "default: special (Hugging Face)" in default


def test_openai_encodings_refuse_a_typed_special_token_by_default_as_tiktoken(client):
    on, off = (
        switch_page(client, "a<|endoftext|>", "cl100k_base", special=True),
        switch_page(client, "a<|endoftext|>", "cl100k_base", special=False),
    )
    assert token_count(on) == 2 and token_count(off) > 2
    r = client.get("/", params={"text": "a<|endoftext|>", "tokenizer": "cl100k_base"})
    assert r.status_code == 422
    assert "tiktoken&#39;s encode refuses" in r.text and "special=true" in r.text
    assert "default: refused (tiktoken)" in r.text  # the switch says what the default does


@pytest.mark.parametrize("name", ["botchan_en_unigram_1000", "char"])
def test_the_box_is_disabled_with_a_reason_where_it_cannot_apply(client, name):
    body = switch_page(client, "<s> hi", name, special=True)
    box = body.split('id="special-box"')[1].split("</div>")[0]
    select = box.split("<select")[1].split(">")[0]
    assert "disabled" in select
    assert "reads no special tokens from the text" in box


def test_htmx_gets_the_box_out_of_band(client):
    body = switch_page(client, "hi", "char", **{"HX-Request": "true"})
    assert 'id="special-box" hx-swap-oob="true"' in body and "disabled" in body
    body = switch_page(client, "hi", "bert-base-uncased", **{"HX-Request": "true"})
    assert 'id="special-box" hx-swap-oob="true"' in body
    assert "disabled" not in body.split('id="special-box"')[1].split("</div>")[0]
