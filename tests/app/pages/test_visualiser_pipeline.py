"""The visualiser's pipeline panel on an uploaded tokenizer.json: one step per member of a
Sequence, and the truncate and pad steps (TestClient; the file is built by `tokenizers`)."""

from __future__ import annotations

import re

import pytest

T = pytest.importorskip("tokenizers")


def llama2_like() -> bytes:
    """Prepend + Replace (Llama 2's normaliser), BERT's processor, truncation and padding."""
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[PAD]": 3, "▁hello": 4, "▁world": 5, "!": 6}
    tok = T.Tokenizer(T.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = T.normalizers.Sequence(
        [T.normalizers.Prepend("▁"), T.normalizers.Replace(" ", "▁")]
    )
    tok.pre_tokenizer = T.pre_tokenizers.Split("▁", behavior="merged_with_next")
    tok.post_processor = T.processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    tok.add_special_tokens(["[CLS]", "[SEP]", "[PAD]"])
    tok.enable_truncation(4, stride=1)
    tok.enable_padding(length=6, pad_id=3, pad_token="[PAD]")
    return tok.to_str().encode()


# ---- the pipeline panel --------------------------------------------------------------------------
def test_sequence_members_truncation_and_padding_are_shown(store_client):
    r = store_client.post(
        "/api/tokenizers",
        files={"file": ("tokenizer.json", llama2_like())},
        data={"name": "llama2-like"},
    )
    assert r.status_code in (200, 201), r.text
    handle = r.json()["tokenizer"]
    page = store_client.get("/", params={"text": "hello world hello", "tokenizer": handle})
    assert page.status_code == 200
    html = page.text
    headings = re.findall(r"<h3>(.*?)<span", html)
    assert [h.strip() for h in headings] == [
        "1 · Normalise",
        "1 · Normalise",
        "2 · Pre-tokenise",
        "3 · Model",
        "Truncate",
        "4 · Post-process",
        "Pad",
    ]
    assert "(Prepend" in html and "(Replace" in html
    assert "overflowing window" in html and "[PAD]" in html


@pytest.mark.heavy
def test_pipeline_panel_in_a_browser(page, server_url, screenshot_dir):
    """Look at it: the panel opened, at desktop and phone widths."""
    import json
    import urllib.request

    boundary = "b2boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="tokenizer.json"\r\nContent-Type: application/json\r\n\r\n'
        ).encode()
        + llama2_like()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{server_url}/api/tokenizers",
        data=body,
        method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with urllib.request.urlopen(request) as response:
        handle = json.load(response)["tokenizer"]
    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{server_url}/?tokenizer={handle}&text=hello+world+hello")
        page.locator("details.pipeline summary").click()
        assert page.locator("details.pipeline .stage").count() == 7
        assert page.locator("[data-testid=overflow]").count() == 1
        page.locator("details.pipeline").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"pipeline-steps-{width}.png"), full_page=True)
