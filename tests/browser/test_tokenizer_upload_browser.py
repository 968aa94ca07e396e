"""Uploading your own tokenizer in a real browser: the picker, drag-and-drop, the options a
ranks file or a vocab.txt needs, errors in place, the new handle in every view, and markup in a
tokenizer's name or tokens shown as text."""

from __future__ import annotations

import base64
import io
from urllib.parse import quote

from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.openai_public import load_ranks

XSS = '<script>alert("x")</script>'


def small_ranks(n: int = 600) -> bytes:
    """The first `n` ranks of cl100k_base as a tiktoken file."""
    ranks = sorted(load_ranks("cl100k_base").items(), key=lambda kv: kv[1])[:n]
    return b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in ranks)


def script_model() -> bytes:
    """A tiny sentencepiece Unigram model with a user-defined piece that is markup."""
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(load_corpus("udhr/eng").splitlines()[:200]),
        model_writer=out,
        vocab_size=120,
        user_defined_symbols=[XSS],
        minloglevel=2,
    )
    return out.getvalue()


def byte_fallback_json() -> bytes:
    """A Llama-2-style tokenizer.json (▁ for spaces, byte_fallback) trained with `tokenizers`."""
    from tokenizers import Tokenizer, models, normalizers, trainers

    tok = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    specials = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)]
    tok.train_from_iterator(
        load_corpus("udhr/eng").splitlines(),
        trainers.BpeTrainer(vocab_size=400, special_tokens=specials, show_progress=False),
    )
    return tok.to_str().encode()


def open_upload(page):
    page.locator('[data-testid="upload-box"] summary').click()
    return page.locator('[data-testid="tokenizer-upload"]')


def chips(page) -> list[str]:
    return page.locator("#result .chip").all_inner_texts()


def test_upload_a_ranks_file_through_the_picker_and_encode(
    page, server_url, tmp_path, screenshot_dir
):
    path = tmp_path / "tokenizer.model"
    path.write_bytes(small_ranks())
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/?text={quote('Hello world, hello tokens')}")
    form = open_upload(page)
    ranks, casing = form.locator('[data-for="tiktoken"]'), form.locator('[data-for="vocab_txt"]')
    assert not ranks.is_visible() and not casing.is_visible()  # nothing asked before a file
    form.locator("#tok-file").set_input_files(str(path))
    page.wait_for_function(
        "() => document.querySelector('.tok-upload .sniffed').textContent.includes('tiktoken')"
    )
    assert ranks.is_visible() and not casing.is_visible()  # a ranks file asks for its pattern
    form.locator("#tok-pattern").select_option("cl100k")
    form.locator("#tok-special").fill('{"<|endoftext|>": 600}')
    form.locator("#tok-name").fill("Small ranks")
    page.screenshot(path=str(screenshot_dir / "upload-form-ranks-1400.png"), full_page=True)
    form.locator('button[type="submit"]').click()
    page.wait_for_url("**tokenizer=upload-*", timeout=90_000)  # a 2 MB parse on a busy machine
    assert "Hello world, hello tokens" == page.locator("#text").input_value()
    selected = page.locator("#tokenizer option:checked")
    assert selected.inner_text().startswith("Small ranks")
    assert selected.locator("xpath=..").get_attribute("label") == "Your tokenizers"
    assert "Small ranks" in page.locator('[data-testid="tokenizer-info"]').inner_text()
    assert "".join(chips(page)).replace("·", " ") == "Hello world, hello tokens"
    # typing re-encodes with the uploaded tokeniser (htmx), the URL keeps the handle
    page.locator("#text").fill("the the")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#result .chip')].map(c => c.textContent).join('|') === 'th|e|·the'"
    )
    assert "tokenizer=upload-" in page.url
    page.screenshot(path=str(screenshot_dir / "upload-visualiser-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    open_upload(page)
    page.screenshot(path=str(screenshot_dir / "upload-visualiser-390.png"), full_page=True)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, "the page scrolls sideways on a phone"
    # the same handle steps through BPE encoding
    handle = page.url.split("tokenizer=")[1].split("&")[0]
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/bpe/encode?tokenizer={handle}&text=lowest%20newer")
    assert page.locator('[data-testid="pieces"] .piece-row').count() == 2
    assert page.locator("#tokenizer option:checked").inner_text().startswith("Small ranks")
    page.screenshot(path=str(screenshot_dir / "upload-bpe-encode-1400.png"), full_page=True)
    page.goto(f"{server_url}/tokenizers")
    assert page.locator('[data-testid="stored-tokenizers"]').inner_text().count("Small ranks") == 1
    page.screenshot(path=str(screenshot_dir / "upload-tokenizers-page-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "upload-tokenizers-page-390.png"), full_page=True)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def test_drop_a_vocab_txt_and_choose_its_casing(page, server_url, screenshot_dir):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/wordpiece/encode?text=Playing")
    form = open_upload(page)
    page.evaluate("""() => {
        const dt = new DataTransfer();
        dt.items.add(new File(["[UNK]\\n[CLS]\\n[SEP]\\nPlay\\nplay\\n##ing\\n"], "vocab.txt"));
        const zone = document.querySelector('.tok-upload .drop-zone');
        zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: dt, bubbles: true, cancelable: true}));
        zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""")
    page.wait_for_function(
        "() => document.querySelector('.tok-upload .sniffed').textContent.includes('vocab.txt')"
    )
    assert form.locator('[data-for="vocab_txt"]').is_visible()
    assert not form.locator('[data-for="tiktoken"]').is_visible()
    form.locator('input[name="lowercase"][value="true"]').check()
    form.locator('button[type="submit"]').click()
    page.wait_for_url("**vocab=upload-*")
    assert page.locator('[data-testid="casing"]').inner_text().startswith("uncased")
    page.goto(page.url + "&step=99")
    assert page.locator('[data-testid="final"] code').all_inner_texts() == ["play", "##ing"]
    page.screenshot(path=str(screenshot_dir / "upload-wordpiece-1400.png"), full_page=True)


def test_a_bad_file_shows_its_error_in_place(page, server_url, tmp_path, screenshot_dir):
    path = tmp_path / "broken.model"
    path.write_bytes(b"\x0a\x05trunc")
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/compare?text=hi&col=word")
    form = open_upload(page)
    form.locator("#tok-file").set_input_files(str(path))
    form.locator('button[type="submit"]').click()
    error = page.locator('[data-testid="upload-error"]')
    error.wait_for()
    assert "sentencepiece model" in error.inner_text()
    assert "/compare" in page.url and "upload-" not in page.url  # still on the page
    page.screenshot(path=str(screenshot_dir / "upload-error-1400.png"), full_page=True)


def test_markup_in_a_name_or_token_is_text(page, server_url, tmp_path, screenshot_dir):
    path = tmp_path / "x.model"
    path.write_bytes(script_model())
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/compare?text={quote('say ' + XSS)}&col=word")
    form = open_upload(page)
    form.locator("#tok-file").set_input_files(str(path))
    form.locator("#tok-name").fill(XSS)
    form.locator('button[type="submit"]').click()
    page.wait_for_url("**col=upload-*")
    column = page.locator(".compare-col").nth(1)
    column.locator("h2").wait_for()
    assert XSS in column.locator("h2").inner_text()
    assert XSS in column.locator(".chip").all_inner_texts()
    handle = page.url.split("col=")[-1].split("&")[0]
    page.goto(f"{server_url}/?tokenizer={handle}&text={quote('say ' + XSS)}")
    assert XSS in chips(page)
    page.screenshot(path=str(screenshot_dir / "upload-xss-1400.png"), full_page=True)
    assert page.dialogs == []
    assert page.evaluate("[...document.scripts].every(s => !s.textContent.includes('alert'))")


def test_a_tokenizer_json_steps_through_byte_fallback(page, server_url, tmp_path, screenshot_dir):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(byte_fallback_json())
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server_url}/bpe/encode?text={quote('日本 the rights')}")
    form = open_upload(page)
    form.locator("#tok-file").set_input_files(str(path))
    page.wait_for_function(
        "() => document.querySelector('.tok-upload .sniffed').textContent.includes('tokenizer.json')"
    )
    assert not form.locator('[data-for="tiktoken"]').is_visible()
    form.locator('button[type="submit"]').click()
    page.wait_for_url("**tokenizer=upload-*", timeout=90_000)  # a 2 MB parse on a busy machine
    page.goto(page.url + "&step=1")
    assert "byte fallback" in page.locator('[data-testid="what"]').inner_text()
    replaced = page.locator('[data-testid="replaced"]').inner_text()
    assert "日" in replaced and "<0xE6>" in replaced
    page.screenshot(path=str(screenshot_dir / "upload-byte-fallback-1400.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "upload-byte-fallback-390.png"), full_page=True)


def test_a_raw_llama3_file_shows_progress_and_loads_as_llama3(
    page, server_url, screenshot_dir, shared_data
):
    from tests.shared_data import INTEROP

    path = INTEROP / "raw" / "llama3" / "tokenizer.model"
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/?text={quote('<|begin_of_text|>Hello')}")
    form = open_upload(page)
    form.locator("#tok-file").set_input_files(str(path))
    page.wait_for_function(
        "() => document.querySelector('.tok-upload .sniffed').textContent.includes('tiktoken')"
    )
    assert form.locator("#tok-special-preset option:checked").inner_text() == "from the rank count"
    page.screenshot(path=str(screenshot_dir / "upload-ranks-presets-390.png"), full_page=True)
    form.locator('button[type="submit"]').click()
    # the parse of 2 MB takes a while: the button is off and the progress line says so meanwhile
    form.locator('[data-testid="upload-progress"]').wait_for(state="visible")
    assert form.locator('button[type="submit"]').is_disabled()
    page.wait_for_url("**tokenizer=upload-*", timeout=90_000)  # a 2 MB parse on a busy machine
    note = page.locator('[data-testid="source-note"]').inner_text()
    assert "pattern preset 'llama3'" in note and "256 special tokens (preset 'llama3')" in note
    assert page.locator('[data-testid="load-warning"]').count() == 0
    page.screenshot(path=str(screenshot_dir / "upload-ranks-llama3-390.png"), full_page=True)
