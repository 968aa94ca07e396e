"""/compare, tokenizers side by side, and its JSON endpoint: columns with their metrics and marks,
a fragment and a permalink, a trained column a placeholder until it is trained; the results come
first, each chosen column is a chip whose link drops it, and every column lists the same metrics
(the browser half is in tests/browser/test_finish_layouts_browser.py). The columns add the
post-processor's tokens as the BOS/EOS box says, and read typed special tokens as the "special
tokens in text" switch says, a ranks file's column too."""

from __future__ import annotations

import json
import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from app.services.compare import MAX_COLUMNS
from tests.app.pages.markup import box, by_testid, chips_of
from tests.shared_data import INTEROP
from tokenizers_core import pretrained

XSS = '<script>alert(1)</script> "quoted" <img src=x onerror=alert(2)>'


def drop_links(html: str) -> dict[str, dict[str, list[str]]]:
    """Each chosen column's label and the query of its "remove" link."""
    found = re.findall(
        r'<li class="chosen-col[^"]*" data-testid="chosen-col">([^<]+)'
        r'.*?<a class="drop" href="([^"]+)"',
        html,
        flags=re.S,
    )
    return {label.strip(): parse_qs(urlsplit(unescape(href)).query) for label, href in found}


# ---- /compare ----------------------------------------------------------------------------------
def test_compare_puts_the_results_before_the_list_of_columns(client):
    """The 26 boxes filled the first screen; now the text, the chosen columns as chips and the
    columns come first, and the boxes (joined to the form by `form=`) after the results."""
    html = client.get("/compare").text
    assert html.index('id="compare-chosen"') < html.index('id="columns"')
    assert html.index('id="columns"') < html.index('id="compare-cols"')
    picker = html.split('id="compare-cols"', 1)[1].split("</fieldset>", 1)[0]
    boxes = re.findall(r'<input type="checkbox"[^>]*name="col"[^>]*>', picker)
    assert len(boxes) >= 26 and all('form="compare-form"' in b for b in boxes)
    assert 'name="ref" form="compare-form"' in picker
    # the form listens for the boxes' changes on their stable wrapper
    assert "change from:#col-picker" in html.split('id="compare-form"', 1)[1].split(">", 1)[0]
    assert len(drop_links(html)) == 5


def test_each_chosen_column_is_a_chip_whose_link_drops_it_and_keeps_the_reference(client):
    params = {"text": "naïve café", "col": ["word", "char", "sentence"], "ref": 2}
    links = drop_links(client.get("/compare", params=params).text)
    assert list(links) == ["Words and punctuation", "Characters (code points)", "Sentences"]
    assert links["Words and punctuation"]["col"] == ["char", "sentence"]
    assert links["Words and punctuation"]["ref"] == ["1"]  # still the sentence column
    assert links["Sentences"]["col"] == ["word", "char"]
    assert links["Sentences"]["ref"] == ["0"]  # the reference dropped: the first column
    assert links["Characters (code points)"]["text"] == ["naïve café"]


def test_a_single_column_has_no_remove_link(client):
    html = client.get("/compare", params={"text": "x", "col": ["word"]}).text
    assert html.count('data-testid="chosen-col"') == 1 and 'class="drop"' not in html


def test_the_columns_fragment_sends_the_chosen_chips_out_of_band(client):
    r = client.get(
        "/compare", params={"text": "x", "col": ["word", "char"]}, headers={"HX-Request": "true"}
    )
    chosen = r.text.split('id="compare-chosen"', 1)[1].split("</div>", 1)[0]
    assert 'hx-swap-oob="true"' in chosen and chosen.count('data-testid="chosen-col"') == 2


def test_every_compare_column_lists_the_same_metrics_in_the_same_order(client):
    """So that their rows line up (the reference says "(reference)" where the others count
    the tokens that differ from it)."""
    params = {"text": "Dr. Who left.", "col": ["word", "char", "bert-base-uncased"], "ref": 1}
    html = client.get("/compare", params=params).text
    columns = html.split('<article class="compare-col')[1:]
    names = [re.findall(r"<dt>([^<]+)</dt>", c) for c in columns]
    assert len(names) == 3 and names[0] == names[1] == names[2]
    assert names[0][-2:] == ["special", "differs"]
    assert "(reference)" in columns[1] and "(reference)" not in columns[0]


def test_a_hostile_column_name_is_text_in_the_chips(client):
    r = client.get("/compare", params={"text": "x", "col": ["word", XSS]})
    assert "<script>alert(1)" not in r.text and "<img src=x" not in r.text


SMALL = (
    "low low low low low lower lower newest newest newest newest newest newest "
    "widest widest widest\n"
) * 3


@pytest.fixture(scope="module")
def small_corpus(client) -> str:
    return client.post("/api/corpora", json={"text": SMALL}).json()["sha256"]


def metric(html: str, name: str) -> list[int]:
    return [int(v) for v in re.findall(rf'data-metric="{name}">(\d+)<', html)]


def test_compare_bundled_columns_with_metrics_and_marks(client):
    r = client.get(
        "/compare", params={"text": "Dr. Who left.", "col": ["word", "char", "sentence"], "ref": 0}
    )
    assert r.status_code == 200
    # word: Dr . Who left . = 5; char: 13; sentence: 1
    assert metric(r.text, "tokens") == [5, 13, 1]
    # char cuts inside words where word does not: D, r, W, h, o, l, e, f, t each have a cut
    # the word tokeniser lacks -> 9 differ; sentence's cuts (0 and 13) are all word cuts
    assert metric(r.text, "differs") == [9, 0]
    assert 'class="chip differs"' not in r.text.split('data-col="1"')[0]


def test_compare_fragment_and_permalink(client):
    params = {"text": "naïve café", "col": ["word", "char"]}
    frag = client.get("/compare", params=params, headers={"HX-Request": "true"})
    assert "<html" not in frag.text and "compare-col" in frag.text
    full = client.get("/compare", params=params)
    assert "naïve café</textarea>" in full.text


def test_trained_column_is_a_placeholder_then_trains(client, small_corpus):
    params = {
        "text": "lowest widest",
        "col": ["bpe", "word"],
        "corpus": small_corpus,
        "vocab": 40,
        "ref": 1,
    }
    page = client.get("/compare", params=params)
    assert page.status_code == 200 and "/compare/column?" in page.text and "training" in page.text
    col = client.get("/compare/column", params={**params, "i": 0}, headers={"HX-Request": "true"})
    assert col.status_code == 200 and metric(col.text, "tokens")
    # now cached: the page renders the column directly
    again = client.get("/compare", params=params)
    assert "/compare/column?" not in again.text and len(metric(again.text, "tokens")) == 2


def test_compare_api(client, small_corpus):
    r = client.get(
        "/api/compare",
        params={
            "text": "lowest",
            "col": ["bpe", "char"],
            "corpus": small_corpus,
            "vocab": 40,
            "ref": 1,
        },
    )
    assert r.status_code == 200
    bpe, char = r.json()
    assert char["tokens"] == list("lowest") and char["differs"] == []
    assert "".join(t.replace("</w>", "") for t in bpe["tokens"]) == "lowest"
    assert bpe["metrics"]["tokens"] == len(bpe["tokens"])


def test_compare_bad_input(client):
    r = client.get("/compare", params={"text": "x", "col": ["nope", "word"]})
    assert r.status_code == 200 and "unknown tokeniser" in r.text  # one column fails, not the page
    r = client.get("/compare", params={"text": "x", "col": ["word"], "vocab": 0})
    assert r.status_code == 422 and "vocab size" in r.text
    r = client.get("/compare", params={"text": "x", "col": ["word"] * (MAX_COLUMNS + 1)})
    assert r.status_code == 422 and "at most" in r.text
    r = client.get(
        "/api/compare", params={"text": "x", "col": ["bpe"], "corpus": "nope", "vocab": 50}
    )
    assert r.status_code == 200 and "unknown corpus" in r.json()[0]["error"]


def test_columns_wait_for_a_reference_that_is_still_training(client, small_corpus):
    params = {
        "text": "lowest newer",
        "col": ["word", "bpe"],
        "corpus": small_corpus,
        "vocab": 45,
        "ref": 1,
    }
    page = client.get("/compare", params=params)
    # the word column cannot be compared yet: it is a placeholder too, not "differs 0"
    assert page.text.count("/compare/column?") == 2 and "differs" not in page.text
    col = client.get("/compare/column", params={**params, "i": 0}, headers={"HX-Request": "true"})
    assert metric(col.text, "differs") and metric(col.text, "tokens") == [2]


def test_compare_fragment_sends_the_column_picker_out_of_band(client):
    """The Reference dropdown lists exactly the ticked columns after every change (issue 13)."""
    r = client.get(
        "/compare",
        params={"text": "x", "col": ["word", "char", "cl100k_base"], "ref": 2},
        headers={"HX-Request": "true"},
    )
    picker = r.text.split('id="compare-cols"', 1)[1].split("</fieldset>", 1)[0]
    assert 'hx-swap-oob="true"' in picker
    assert picker.count("<option") == 3 and '<option value="2" selected>3. cl100k_base' in picker
    r = client.get(
        "/compare", params={"text": "x", "col": ["word"], "ref": 2}, headers={"HX-Request": "true"}
    )
    assert '<option value="0" selected>1. word' in r.text  # the reference was unticked


@pytest.mark.heavy
def test_compare_form_disables_a_column_past_the_most(client):
    full = [n for n in pretrained.bundled()][:MAX_COLUMNS]
    html = client.get("/compare", params={"text": "x", "col": full}).text
    picker = html.split('id="compare-cols"', 1)[1].split("</fieldset>", 1)[0]
    assert picker.count(" checked") == MAX_COLUMNS and " disabled" in picker
    assert "untick one to add another" in picker
    assert 'data-testid="cols-full" hidden' not in picker


def test_chips_show_the_tokens_a_normaliser_made_with_the_text_on_hover(client):
    """BERT uncased reads "Café Llama" as `cafe`, `ll`, `##ama`: its chips say so (not the
    input's "Café", "Ll"), and the popover names the characters they came from."""
    params = {"text": "Café Llama", "col": ["bert-base-uncased"]}
    page = client.get("/compare", params=params).text
    assert chips_of(page) == ["[CLS]", "cafe", "ll", "ama", "[SEP]"]
    said = client.post("/compare/token?column=0", data={**params, "i": 1}).text
    assert "from the text “Café”" in said
    said = client.post("/compare/token?column=0", data={**params, "i": 2}).text
    assert "from the text “Ll”" in said
    visualiser = client.get("/", params={"text": "Café", "tokenizer": "bert-base-uncased"}).text
    assert chips_of(visualiser) == ["[CLS]", "cafe", "[SEP]"]
    form = {"text": "Café", "tokenizer": "bert-base-uncased", "i": 1}  # 0 is [CLS]
    facts = client.post("/visualiser/token", data=form).text  # the chip's popover
    assert "from the text “Café”" in facts


def test_a_compare_column_fetched_alone_follows_the_box(client):
    r = client.get(
        "/compare/column",
        params={"i": 0, "text": "hi there", "col": ["bert-base-uncased"], "bos": "false"},
    )
    assert r.status_code == 200 and r.text.count('<li class="chip') == 2


def test_compare_adds_the_post_processors_tokens_as_the_box_says(client):
    cols = ["bert-base-uncased", "cl100k_base"]
    for bos, bert_special in ((None, 2), ("false", 0)):
        r = client.get(
            "/api/compare",
            params={"text": "hi there", "col": cols, **({"bos": bos} if bos else {})},
        )
        assert [c["metrics"]["special"] for c in r.json()] == [bert_special, 0]
    body = client.get("/compare", params={"text": "hi there", "col": cols, "bos": "false"}).text
    assert 'data-testid="bos-box">' in body and "disabled" not in box(body, "bos-box")
    only_openai = client.get("/compare", params={"text": "hi", "col": ["cl100k_base"]}).text
    assert "No column" in by_testid(only_openai, "bos-why")


def compare_specials(client, text, cols, special):
    switch = {} if special is None else {"special": "true" if special else "false"}
    params = {"text": text, "col": cols, **switch}
    r = client.get("/api/compare", params=params)
    assert r.status_code == 200, r.text
    return [(c["error"], c["metrics"] and c["metrics"]["special"]) for c in r.json()]


def test_compare_reads_special_tokens_as_the_switch_says(client):
    text = "Hi <|endoftext|> [CLS] there"
    cols = ["bert-base-uncased", "cl100k_base"]
    assert compare_specials(client, text, cols, False) == [(None, 2), (None, 0)]
    assert compare_specials(client, text, cols, True) == [(None, 3), (None, 1)]
    # left out, each column's own library: BERT matches [CLS], tiktoken refuses the text
    (bert, cl100k) = compare_specials(client, text, cols, None)
    assert bert == (None, 3) and "tiktoken's encode refuses" in cl100k[0]
    page = client.get("/compare", params={"text": text, "col": cols, "special": "true"}).text
    assert '<option value="true" selected>' in page


LLAMA3_RANKS = INTEROP / "raw" / "llama3" / "tokenizer.model"


@pytest.mark.heavy
@pytest.mark.skipif(not LLAMA3_RANKS.is_file(), reason="shared/data/interop is absent")
def test_a_ranks_file_column_takes_typed_special_tokens_either_way(store_client):
    r = store_client.post(
        "/api/tokenizers",
        files={"file": ("tokenizer.model", LLAMA3_RANKS.read_bytes())},
        data={"pattern": "llama3", "special_tokens": json.dumps({"<|begin_of_text|>": 128000})},
    )
    assert r.status_code == 201, r.text
    handle = r.json()["tokenizer"]
    text = "<|begin_of_text|>Hi"
    assert compare_specials(store_client, text, [handle], False) == [(None, 0)]
    assert compare_specials(store_client, text, [handle], True) == [(None, 1)]


def test_a_compare_chip_s_popover_says_its_facts_and_whether_it_differs(client):
    """The columns' slim chips carry text, id and offsets; the popover (POST /compare/token)
    says the rest, as the visualiser's does, with the reference's verdict."""
    params = {"text": "Dr. Who left.", "col": ["word", "char"], "ref": 0}
    page = client.get("/compare", params=params).text
    assert 'data-pop="/compare/token?column=1"' in page and "title=" not in page.split("<ol")[1]
    said = client.post("/compare/token?column=1", data={**params, "i": 1}).text
    assert "offsets 1–2" in said and "boundary differs from the reference" in said
    said = client.post("/compare/token?column=0", data={**params, "i": 0}).text
    assert "offsets 0–2" in said and "differs" not in said


def test_a_compare_popover_refuses_what_is_not_there(client):
    params = {"text": "ab", "col": ["char"]}
    r = client.post("/compare/token?column=3", data={**params, "i": 0})
    assert r.status_code == 422 and "column 3 does not exist" in r.text
    r = client.post("/compare/token?column=0", data={**params, "i": 9})
    assert r.status_code == 422 and "no chip 9" in r.text
    r = client.post("/compare/token?column=0", data={**params, "i": 0, "id": 12345})
    assert r.status_code == 422 and "the text has changed" in r.text
