"""Layout a new user hit: at 1400x900 and at 390x844 the page itself never scrolls
sideways; wide things (the Unigram lattice, tables) scroll inside their own box."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

SIZES = {"wide": (1400, 900), "phone": (390, 844)}
SENTENCE = "The quick brown fox jumps over the lazy dog again."  # 50 characters


@pytest.fixture(params=sorted(SIZES))
def sized(request, browser):
    """A page at 1400x900 ("wide") and at 390x844 ("phone")."""
    width, height = SIZES[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    pg.size_name = request.param
    yield pg
    context.close()


def page_width(pg) -> int:
    return pg.evaluate("document.documentElement.scrollWidth")


def test_lattice_scrolls_in_its_box_keeps_the_current_position_in_view_and_aligns_its_table(
    sized, server_url, screenshot_dir
):
    pg = sized
    width = pg.viewport_size["width"]
    pg.goto(f"{server_url}/unigram/lattice?model=botchan_en_unigram_1000&text={SENTENCE}&step=44")
    assert page_width(pg) <= width, "the page scrolls sideways"
    box = pg.locator(".lattice-scroll")
    box.scroll_into_view_if_needed()
    frame = box.bounding_box()
    current = pg.locator("svg.lattice .pos.current circle").bounding_box()
    assert (
        frame["x"] <= current["x"]
        and current["x"] + current["width"] <= frame["x"] + frame["width"]
    )
    # the table's column of position i sits under the lattice's node i
    for i in (0, 44):
        node = pg.locator(f'svg.lattice .pos[data-i="{i}"] circle').bounding_box()
        head = pg.locator(f'[data-testid="positions"] th[data-i="{i}"]').bounding_box()
        assert abs((node["x"] + node["width"] / 2) - (head["x"] + head["width"] / 2)) <= 2
    pg.screenshot(path=str(screenshot_dir / f"lattice_sentence_{pg.size_name}.png"))
    # stepping on keeps the new end position in view
    pg.get_by_label("next step").click()
    pg.wait_for_url("**step=45*")
    pg.wait_for_selector('svg.lattice .pos.current[data-i="45"]')
    frame = box.bounding_box()
    current = pg.locator("svg.lattice .pos.current circle").bounding_box()
    assert (
        frame["x"] <= current["x"]
        and current["x"] + current["width"] <= frame["x"] + frame["width"]
    )
    assert page_width(pg) <= width


def test_lattice_of_cats_fits_a_phone(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(f"{server_url}/unigram/lattice?text=cats&step=3")
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.locator(".lattice-scroll").scroll_into_view_if_needed()
    pg.screenshot(path=str(screenshot_dir / f"lattice_cats_{pg.size_name}.png"))


def test_landing_text_draws_each_character_once(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/")
    chips = pg.locator("#result .chip").all_inner_texts()
    assert sum(t.count("東") for t in chips) == 1, chips
    assert pg.locator('[data-testid="partial-note"]').is_visible()
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.locator("#result .chip.partial").first.scroll_into_view_if_needed()
    pg.screenshot(path=str(screenshot_dir / f"visualiser_partial_{pg.size_name}.png"))


def test_docs_render_with_no_outside_request(sized, server_url, screenshot_dir):
    pg = sized
    outside: list[str] = []

    def only_local(route):
        if route.request.url.startswith(server_url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    pg.route("**/*", only_local)
    pg.goto(server_url + "/docs")
    pg.wait_for_selector(".swagger-ui .opblock", timeout=15_000)
    assert pg.locator(".swagger-ui .opblock").count() >= 5
    assert outside == []
    pg.screenshot(path=str(screenshot_dir / f"docs_{pg.size_name}.png"))


def test_unknown_tokens_are_marked_on_their_chips(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/?tokenizer=bert-base-uncased&text=I+%E2%98%83+%E2%98%83+snowmen")
    unk = pg.locator("#result .chip.mark-unk")
    assert unk.count() == 2
    assert unk.first.locator(".mark").inner_text() == "UNK"
    unk.first.hover()  # the popover fills with the chip's facts
    pop = pg.locator('[data-testid="chip-pop"] [data-testid="chip-facts"]')
    pop.wait_for()
    assert "no piece for" in pop.inner_text()
    pg.screenshot(path=str(screenshot_dir / f"visualiser_unk_{pg.size_name}.png"))


def test_round_trip_note_says_what_happened(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/?tokenizer=bert-base-uncased&text=Caf%C3%A9+%E2%98%83")
    note = pg.locator('[data-testid="round-trip"]')
    said = note.inner_text()
    assert "the post-processor added" in said
    assert "1 unknown token ([UNK]) stood for “☃”" in said
    assert "“Café” became “cafe”" in said
    note.scroll_into_view_if_needed()
    pg.screenshot(path=str(screenshot_dir / f"visualiser_round_trip_{pg.size_name}.png"))


def test_corpus_workflow_keeps_the_forms_choices(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/corpora")
    pg.fill("#corpus-name", f"notes {pg.size_name}")
    pg.fill("#corpus-text", f"low lower newest widest\nlow low lower {pg.size_name}\n")
    pg.get_by_role("button", name="Store").click()
    pg.wait_for_selector(".ok")
    pg.screenshot(path=str(screenshot_dir / f"corpora_{pg.size_name}.png"), full_page=True)
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.goto(server_url + "/bpe/train")
    labels = pg.locator("#corpus option").all_inner_texts()
    assert any(t.startswith(f"notes {pg.size_name} · ") for t in labels), labels[-5:]
    pg.select_option("#variant", "byte_bpe")
    pg.fill("#vocab_size", "280")
    pg.fill("#corpus_text", "aaa bbb aab\nabab\n")
    pg.get_by_role("button", name="Use this corpus").click()
    pg.wait_for_url("**variant=byte_bpe*")
    assert "vocab_size=280" in pg.url
    pg.screenshot(path=str(screenshot_dir / f"bpe_train_own_corpus_{pg.size_name}.png"))


def test_compare_refuses_a_column_past_the_most_and_the_reference_follows(
    sized, server_url, screenshot_dir
):
    from urllib.parse import urlencode

    from app.services.compare import MAX_COLUMNS
    from tokenizers_core import pretrained

    pg = sized
    bundled = list(pretrained.bundled())[:MAX_COLUMNS]
    first = bundled[:-1]
    pg.goto(f"{server_url}/compare?" + urlencode({"text": "naïve café", "col": first}, doseq=True))
    assert pg.locator("#ref option").count() == len(first)
    pg.locator(f'#compare-cols input[value="{bundled[-1]}"]').check()
    pg.wait_for_function(f"() => document.querySelectorAll('#ref option').length === {MAX_COLUMNS}")
    past = pg.locator('#compare-cols input[value="bpe"]')
    assert past.is_disabled()
    assert pg.locator('[data-testid="cols-full"]').is_visible()
    assert pg.locator(".compare-col").count() == MAX_COLUMNS
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.screenshot(path=str(screenshot_dir / f"compare_full_{pg.size_name}.png"))
    pg.locator('#compare-cols input[value="char"]').uncheck()
    pg.wait_for_function(
        f"() => document.querySelectorAll('#ref option').length === {MAX_COLUMNS - 1}"
    )
    assert not past.is_disabled()
    assert "char" not in " ".join(pg.locator("#ref option").all_inner_texts())


def fits(pg, selector: str) -> bool:
    """The element shows all of its content (nothing hidden behind its own scrollbar)."""
    return pg.evaluate(
        "s => { const e = document.querySelector(s); return e.scrollWidth <= e.clientWidth + 1; }",
        selector,
    )


def test_wordpiece_pair_table_is_whole_at_1400(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/wordpiece/train?corpus=botchan&vocab_size=1000&step=300")
    pg.locator('[data-testid="pair-table"]').wait_for(timeout=90_000)  # trained in the pool
    assert page_width(pg) <= pg.viewport_size["width"]
    if pg.size_name == "wide":
        assert pg.evaluate(
            "document.querySelector('[data-testid=pair-table]').parentElement"
            ".scrollWidth <= document.querySelector('[data-testid=pair-table]')"
            ".parentElement.clientWidth + 1"
        ), "the pair table is clipped"
    pg.locator('[data-testid="pair-table"]').scroll_into_view_if_needed()
    pg.screenshot(path=str(screenshot_dir / f"wordpiece_train_pairs_{pg.size_name}.png"))


def test_tax_table_and_chart_are_readable(sized, server_url, screenshot_dir):
    """Every bundled tokeniser's column (named: other tests' uploads would be columns too) fits
    a wide screen; on a phone the table scrolls in its own box."""
    from urllib.parse import urlencode

    from app.tax import vocab_tokenizers

    pg = sized
    pg.goto(server_url + "/tax?" + urlencode([("tok", n) for n in vocab_tokenizers()]))
    assert page_width(pg) <= pg.viewport_size["width"]
    if pg.size_name == "wide":
        assert fits(pg, ".table-wrap"), "the tax table hides columns behind a scrollbar"
    badge = pg.locator(".tax .unk-badge").first
    cell = badge.locator("xpath=..")
    b, c = badge.bounding_box(), cell.bounding_box()
    if pg.size_name == "wide":
        assert c["x"] <= b["x"] and b["x"] + b["width"] <= c["x"] + c["width"] + 1
    # on a phone the chart keeps a legible size and scrolls in its own box
    assert pg.locator(".chart svg").first.bounding_box()["width"] >= 600
    pg.screenshot(path=str(screenshot_dir / f"tax_{pg.size_name}.png"))
    pg.locator(".tax").scroll_into_view_if_needed()
    pg.screenshot(path=str(screenshot_dir / f"tax_table_{pg.size_name}.png"))


def test_unigram_training_chart_and_rounds(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/unigram/train?step=99")
    pg.wait_for_selector('[data-testid="rounds-note"]')
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.locator('[data-testid="curve"]').scroll_into_view_if_needed()
    pg.screenshot(path=str(screenshot_dir / f"unigram_train_rounds_{pg.size_name}.png"))


def test_sweep_results_are_readable(sized, server_url, screenshot_dir):
    import urllib.parse
    import urllib.request

    body = urllib.parse.urlencode(
        {
            "corpus": "udhr/eng",
            "heldout": "udhr/fra",
            "algo": ["bpe", "wordpiece"],
            "sizes": "100,150,200",
        },
        doseq=True,
    ).encode()
    urllib.request.urlopen(server_url + "/sweep/run", data=body, timeout=60).read()
    pg = sized
    pg.goto(
        server_url + "/sweep?corpus=udhr/eng&heldout=udhr/fra&algo=bpe&algo=wordpiece"
        "&sizes=100,150,200"
    )
    pg.wait_for_selector(".sweep-results", timeout=60_000)
    pg.wait_for_selector("text=Done", timeout=60_000)
    assert page_width(pg) <= pg.viewport_size["width"]
    assert pg.locator(".chart svg").first.bounding_box()["width"] >= 560
    pg.locator(".chart").first.scroll_into_view_if_needed()
    pg.screenshot(path=str(screenshot_dir / f"sweep_{pg.size_name}.png"))


def test_unicode_lab_tokens_read_as_text(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/unicode?text=caf%C3%A9%20%EF%AC%81nance&tok=cl100k_base&tok=r50k_base")
    pieces = " ".join(pg.locator(".piece").all_inner_texts())
    assert "Ġ" not in pieces and "Ã" not in pieces
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.screenshot(path=str(screenshot_dir / f"unicode_{pg.size_name}.png"))


def test_encoders_jump_word_by_word(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/bpe/encode?tokenizer=gpt2&text=lowest+newer+tokenization+works")
    assert pg.locator(".stepper .count b").first.inner_text() == "0"
    pg.get_by_label("next word").click()
    pg.wait_for_function("() => document.querySelector('.stepper .count b').textContent !== '0'")
    first = int(pg.locator(".stepper .count b").first.inner_text())
    pg.get_by_label("next word").click()
    pg.wait_for_function(
        f"() => +document.querySelector('.stepper .count b').textContent > {first}"
    )
    pg.get_by_label("previous word").click()
    pg.wait_for_function(
        f"() => +document.querySelector('.stepper .count b').textContent === {first}"
    )
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.screenshot(path=str(screenshot_dir / f"bpe_encode_words_{pg.size_name}.png"))
    pg.goto(server_url + "/wordpiece/encode?vocab=bert-base-uncased&text=unaffable+tokenization")
    pg.get_by_label("next word").click()
    pg.wait_for_function("() => document.querySelector('.stepper .count b').textContent !== '0'")
    pg.locator('[data-testid="speed"] a', has_text="4×").click()
    pg.wait_for_url("**speed=4*")
    pg.screenshot(path=str(screenshot_dir / f"wordpiece_encode_words_{pg.size_name}.png"))


def test_vocabulary_browser_from_a_chip(sized, server_url, screenshot_dir):
    pg = sized
    pg.goto(server_url + "/?tokenizer=cl100k_base&text=Hello+world")
    chip = pg.locator("#result .chip").nth(1)
    chip.focus()  # the popover opens; its link is a click (or Enter on the chip) away
    pg.locator('[data-testid="chip-pop"] [data-testid="vocab-link"]').click()
    pg.wait_for_selector('[data-testid="vocab-detail"]')
    assert "1917" in pg.locator('[data-testid="vocab-detail"] h2').inner_text()
    assert pg.locator('[data-testid="vocab-tree"] li').count() >= 3
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.screenshot(path=str(screenshot_dir / f"vocab_entry_{pg.size_name}.png"))
    pg.fill("#q", "token")
    pg.wait_for_function(
        "() => document.querySelector('[data-testid=vocab-found]').textContent"
        ".includes('match “token”')"
    )
    pg.select_option("#corpus", "botchan")
    pg.wait_for_selector(".vocab-table th:text('in corpus')")
    assert page_width(pg) <= pg.viewport_size["width"]
    pg.screenshot(path=str(screenshot_dir / f"vocab_search_{pg.size_name}.png"))


def test_compare_chip_opens_its_vocabulary_entry(sized, server_url):
    from urllib.parse import urlencode

    pg = sized
    pg.goto(
        f"{server_url}/compare?"
        + urlencode({"text": "Hello world", "col": ["char", "cl100k_base"]}, doseq=True)
    )
    assert pg.locator('.compare-col[data-col="0"] .chips[data-vocab]').count() == 0
    pg.locator('.compare-col[data-col="1"] .chip').nth(1).click()
    pg.wait_for_url("**/vocab?tokenizer=cl100k_base&id=1917")
    assert pg.locator('[data-testid="vocab-detail"]').count() == 1


STEP_PAGES = (
    "/bpe/train?step=5",
    "/bpe/train?variant=sentencepiece_bpe&step=3",
    "/bpe/encode?step=4",
    "/wordpiece/encode?step=8",
    "/wordpiece/train?step=3",
    "/unigram/lattice?step=3",
    "/unigram/train?step=1",
)


@pytest.mark.parametrize("path", STEP_PAGES)
def test_the_code_panel_scrolls_its_long_lines_inside_itself(sized, server_url, path):
    """The textbook source keeps its indentation and its long lines: the panel scrolls them
    sideways inside itself, the page does not; the lit line is drawn highlighted."""
    pg = sized
    width = pg.viewport_size["width"]
    pg.goto(server_url + path)
    assert page_width(pg) <= width, "the page scrolls sideways"
    box = pg.locator(".code-scroll")
    inner, outer = box.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert inner > outer, "the longest source lines fit: nothing to scroll"
    panel = pg.locator(".code-panel").bounding_box()
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= width
    lit = pg.locator(".code-scroll li.current")
    assert lit.count() == 1
    assert lit.evaluate("e => getComputedStyle(e).backgroundColor") not in (
        "rgba(0, 0, 0, 0)",
        "transparent",
    )
    assert lit.evaluate("e => getComputedStyle(e).whiteSpace") == "pre"  # indentation kept
