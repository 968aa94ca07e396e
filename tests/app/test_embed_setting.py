"""The teacher's path: TOKVIS_FRAME_ANCESTORS is the CSP's frame-ancestors,
every page's footer gives the <iframe> code and says what the server allows, and an embed shows
the state first (no form, no introduction, the code panel folded)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from tests.conftest import make_settings
from tokenizers_core.errors import InvalidInput

HTMX = {"HX-Request": "true"}


def test_the_setting_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("TOKVIS_FRAME_ANCESTORS", "'self'   http://localhost:8080  file:")
    assert Settings.from_env().frame_ancestors == "'self' http://localhost:8080 file:"
    monkeypatch.delenv("TOKVIS_FRAME_ANCESTORS")
    assert Settings.from_env().frame_ancestors == "'self'"
    for bad in ("'self'; script-src *", "a.example, b.example"):
        monkeypatch.setenv("TOKVIS_FRAME_ANCESTORS", bad)
        with pytest.raises(InvalidInput, match="TOKVIS_FRAME_ANCESTORS"):
            Settings.from_env()


def test_the_default_frames_only_this_server(client):
    r = client.get("/bpe/train")
    assert "frame-ancestors 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "SAMEORIGIN"
    footer = r.text.split("<footer", 1)[1]
    policy = unescape(re.sub(r"<[^>]+>", "", footer.split('data-testid="frame-policy">')[1]))
    assert "This server lets 'self' show its pages in a frame: only its own pages" in policy
    assert "refused to connect" in policy and "TOKVIS_FRAME_ANCESTORS" in policy
    assert "file:" in policy


def test_another_origin_named_in_the_setting(tmp_path):
    from dataclasses import replace

    from app.main import create_app

    settings = replace(
        make_settings(tmp_path / "store.sqlite3"),
        frame_ancestors="'self' http://localhost:8080 file:",
    )
    with TestClient(create_app(settings)) as c:
        r = c.get("/bpe/train?embed=1")
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'self' http://localhost:8080 file:" in csp
        assert "X-Frame-Options" not in r.headers  # it knows SAMEORIGIN only
        page = c.get("/").text
        assert "lets <code>&#39;self&#39; http://localhost:8080 file:</code> show" in page
        assert "only its own pages" not in page


def test_the_embed_code_is_the_page_with_embed_1(client):
    r = client.get("/bpe/train", params={"step": "2", "corpus": "tiny"})
    snippet = unescape(r.text.split('data-testid="embed-snippet">', 1)[1].split("</pre>", 1)[0])
    assert snippet == (
        '<iframe src="http://testserver/bpe/train?step=2&corpus=tiny&embed=1" width="100%" '
        'height="600" title="Tokenizer Visualiser" loading="lazy"></iframe>'
    )
    assert 'data-copy="#embed-snippet" hidden>copy embed code</button>' in r.text
    embedded = client.get("/bpe/train", params={"step": "2", "embed": "1"})
    assert 'data-testid="embed-code"' not in embedded.text  # no footer in an embed


def test_the_embed_code_escapes_the_address(client):
    payload = '"><script>alert(1)</script>'
    r = client.get("/", params={"text": payload, "tokenizer": "word"})
    footer = r.text.split("<footer", 1)[1]
    assert "<script>" not in footer and "%3Cscript%3E" in footer  # the text, as a URL carries it


def test_an_embedded_step_view_shows_its_state_first(client):
    full = client.get("/bpe/train", params={"step": "2"}).text
    assert 'data-testid="train-form"' in full and 'class="muted step-intro"' in full
    assert 'data-testid="code-panel"' in full and 'data-testid="code-fold"' not in full
    assert 'data-testid="worksheet-link"' in full and 'data-testid="take-away"' in full
    embed = client.get("/bpe/train", params={"step": "2", "embed": "1"}).text
    assert 'data-testid="train-form"' not in embed and "step-intro" not in embed
    fold = embed.split('data-testid="code-fold">', 1)[1]
    assert fold.lstrip().startswith("<summary>bpe training: the code, at line ")
    assert 'data-testid="code-panel"' in fold  # folded, not gone
    assert 'data-testid="worksheet-link"' not in embed and 'data-testid="take-away"' not in embed
    assert embed.index('data-testid="pair-table"') > embed.index('class="stepper"')
    step = client.get("/bpe/train", params={"step": "3", "embed": "1"}, headers=HTMX).text
    assert 'data-testid="code-fold"' in step and "<html" not in step


@pytest.mark.parametrize("path", ["/wordpiece/train", "/unigram/lattice", "/bpe/encode"])
def test_every_step_view_folds_its_code_in_an_embed(client, path):
    embed = client.get(path, params={"embed": "1"}).text
    assert 'data-testid="code-fold"' in embed and 'data-testid="step-form"' not in embed
    full = client.get(path).text
    assert 'data-testid="code-fold"' not in full and 'data-testid="step-form"' in full


STEP_VIEWS = [
    "/bpe/train?step=2",
    "/bpe/train?variant=picky_bpe&corpus=botchan&vocab_size=300&step=2",
    "/wordpiece/train?step=2",
    "/unigram/train?step=1",
    "/bpe/encode?text=lowest&step=1",
    "/wordpiece/encode?text=unaffable&step=1",
    "/unigram/lattice?text=cats&step=1",
]


@pytest.mark.parametrize("path", STEP_VIEWS)
def test_every_embedded_step_view_keeps_to_its_state(client, path):
    """In a frame, no step view offers worksheets or downloads (they open in the full page,
    via "Open in the Tokenizer Visualiser"), and its code is folded."""
    from tests.polling import wait_until

    page = wait_until(
        lambda: (
            (t := client.get(path + "&embed=1").text) and 'data-testid="training"' not in t and t
        ),
        timeout=120,
    )
    assert 'data-testid="worksheet-link"' not in page and 'data-testid="take-away"' not in page
    assert 'data-testid="open-full"' in page
    if 'data-testid="code-panel"' in page:
        assert 'data-testid="code-fold"' in page
