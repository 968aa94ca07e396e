"""/bpe/train and /bpe/encode, BPE's step views, and their JSON API: full pages, htmx
fragments, permalinks and bad input (a 4xx with the message on the page and the input kept); a
late training step lists the words its merge changed first, the encoder opens at step zero, jumps
by word and plays at a chosen speed; every training view's vocabulary-size field says that view's
limit, the pattern field is for byte_bpe only and min_frequency for bpe and byte_bpe; the
worksheet link is an icon. The BPE family's variants (`?variant=superbpe|picky_bpe|parity_bpe`)
show the trainer's own step k and what each variant adds: SuperBPE's transition and superwords,
Picky BPE's IoS and removals, parity-aware BPE's languages and Gini."""

from __future__ import annotations

import html
import re
import time

import pytest

from app.views.common import shower
from tokenizers_core.corpora import load_corpus
from tokenizers_core.implementations.bpe_runs import family_run


def test_late_bpe_training_steps_list_the_words_the_merge_changed_first(client):
    for _ in range(600):  # botchan is large enough to train in the job pool
        html = client.get(
            "/bpe/train", params={"corpus": "botchan", "vocab_size": 1200, "step": 600}
        ).text
        if 'data-testid="training"' not in html:
            break
        time.sleep(0.1)
    table = html.split('data-testid="word-table"', 1)[1].split("</table>", 1)[0]
    assert "changed by merge 600" in table
    first_row = table.split("changed by merge 600", 1)[1].split("</tr>", 2)[1]
    assert 'class="changed"' in first_row


def test_bpe_encode_opens_at_step_zero_like_the_other_views(client):
    html = client.get("/bpe/encode", params={"tokenizer": "gpt2", "text": "lowest"}).text
    assert "step <b>0</b>" in html


def test_encoders_jump_by_word_and_play_at_a_chosen_speed(client):
    html = client.get(
        "/wordpiece/encode",
        params={"vocab": "bert-base-uncased", "text": "unaffable tokenization", "step": 1},
    ).text
    nxt = re.search(r'href="([^"]*)"[^>]*aria-label="next word"', html).group(1)
    assert "step=" in nxt
    html = client.get(
        "/bpe/encode",
        params={"tokenizer": "gpt2", "text": "lowest newer", "step": 1, "play": 1, "speed": 4},
    ).text
    assert 'hx-trigger="load delay:175ms"' in html and '<b aria-current="true">4×</b>' in html
    assert (
        client.get("/bpe/encode", params={"tokenizer": "gpt2", "text": "x", "speed": 3}).status_code
        == 422
    )


def test_vocab_size_fields_say_each_views_limit(client):
    """The number field stops what the view would refuse, before the form is sent."""
    from app.routers import bpe, unigram, wordpiece
    from app.services import check

    for path, limit in (
        ("/bpe/train", bpe.MAX_VIEW_VOCAB),
        ("/wordpiece/train", wordpiece.MAX_TRAIN_VOCAB),
        ("/unigram/train", unigram.MAX_TRAIN_VOCAB),
        ("/check", check.MAX_VOCAB),
    ):
        html = client.get(path).text
        field = re.search(r'<input id="vocab_size"[^>]*>', html).group(0)
        assert f'max="{limit}"' in field, (path, field)


# ---- the worksheet link's icon ------------------------------------------------------------------
def test_the_worksheet_link_draws_an_svg_icon_not_a_glyph(client):
    r = client.get("/bpe/train", params={"step": 1})
    link = r.text.split('data-testid="worksheet-link"')[1].split("</a>")[0]
    assert "<svg" in link and "🖶" not in link and "⎙" not in link
    assert 'aria-hidden="true"' in link


HX = {"HX-Request": "true"}


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_train_page_default_corpus(client):
    r = client.get("/bpe/train")
    assert r.status_code == 200
    assert "BPE training" in r.text and 'data-testid="word-table"' in r.text
    assert "low low low low low" in r.text  # the editable default corpus
    assert "Nothing merged yet" in r.text
    # step 0: the next merge is e + s (9, tied with s t and t </w>)
    assert re.search(r'class="winner">\s*<td class="mono">e s</td>', r.text)
    assert r.text.count('class="tie"') == 2


def test_train_step_shows_merge_ties_and_changed_rows(client):
    r = client.get("/bpe/train?step=2")
    assert r.status_code == 200
    text = _text(r.text)
    assert "Merged t + &lt;/w&gt; → t&lt;/w&gt;, 9 occurrences" in text
    assert "1 other pair tied at 9" in text
    assert r.text.count('<tr class="changed">') == 2  # newest, widest
    assert re.search(r'aria-current="step"', r.text)  # the pseudocode line


def test_fragment_is_only_the_step_block(client):
    r = client.get("/bpe/train?step=1", headers=HX)
    assert r.status_code == 200
    assert "<html" not in r.text and 'class="stepper"' in r.text
    assert 'data-testid="pair-table"' in r.text


def test_permalink_reproduces_the_state(client):
    a = client.get("/bpe/train?variant=byte_bpe&vocab_size=270&step=7")
    b = client.get("/bpe/train?variant=byte_bpe&vocab_size=270&step=6")
    c = client.get("/bpe/train?variant=byte_bpe&vocab_size=270&step=7")
    assert a.status_code == b.status_code == c.status_code == 200
    assert a.text == c.text and a.text != b.text


def test_edited_corpus_is_stored_and_redirected(client):
    r = client.post(
        "/bpe/train",
        data={"corpus_text": "aaa aab aab\nbaa", "variant": "bpe", "vocab_size": "8"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    url = r.headers["location"]
    assert re.search(r"corpus=[0-9a-f]{64}", url)
    page = client.get(url + "&step=1")
    assert page.status_code == 200 and "aaa aab aab" in page.text


@pytest.mark.parametrize("variant,vocab", [("sentencepiece_bpe", 150), ("byte_bpe", 300)])
def test_other_variants_on_udhr(client, variant, vocab):
    r = client.get(f"/bpe/train?corpus=udhr/eng&variant={variant}&vocab_size={vocab}&step=5")
    assert r.status_code == 200
    assert 'data-testid="merge-list"' in r.text


@pytest.mark.parametrize(
    "query,status,message",
    [
        ("variant=nope", 422, "unknown BPE variant"),
        ("vocab_size=3", 422, "below the 12 symbols"),
        ("variant=byte_bpe&vocab_size=100", 422, "below the 256"),
        ("variant=byte_bpe&pattern=zzz", 422, "unknown pattern"),
        ("corpus=" + "0" * 64, 404, "no stored corpus"),
        ("corpus=nonsense", 404, "unknown corpus"),
    ],
)
def test_bad_training_input(client, query, status, message):
    r = client.get(f"/bpe/train?{query}")
    assert r.status_code == status
    assert message in _text(r.text).replace("&#39;", "'")
    assert 'name="vocab_size"' in r.text  # the form is still there


def test_empty_edited_corpus_keeps_the_form(client):
    r = client.post("/bpe/train", data={"corpus_text": "   ", "variant": "bpe", "vocab_size": "30"})
    assert r.status_code == 422 and "empty" in r.text and "<textarea" in r.text


def test_encode_page_steps_and_trees(client):
    r = client.get("/bpe/encode?tokenizer=gpt2&text=lowest&step=99")
    assert r.status_code == 200
    assert 'data-testid="trees"' in r.text and "these are the tokens" in r.text
    first = client.get("/bpe/encode?tokenizer=gpt2&text=lowest&step=1")
    assert "Merged e + s → es" in _text(first.text)
    frag = client.get("/bpe/encode?tokenizer=gpt2&text=lowest&step=1", headers=HX)
    assert "<html" not in frag.text and 'data-testid="candidates"' in frag.text


def test_encode_page_shows_partial_bytes_not_replacement_chars(client):
    r = client.get("/bpe/encode", params={"tokenizer": "cl100k_base", "text": "𝔘"})
    assert r.status_code == 200
    assert "&lt;F0" in r.text and "\ufffd" not in r.text


def test_visualiser_chip_link_works_for_aliases_and_trained_handles(client):
    assert (
        client.get("/bpe/encode", params={"tokenizer": "gpt-4o", "text": " world"}).status_code
        == 200
    )
    handle = client.post(
        "/api/train", json={"algorithm": "bpe", "corpus": "low lower newest\n", "vocab_size": 20}
    ).json()["tokenizer"]
    r = client.get("/bpe/encode", params={"tokenizer": handle, "text": "lowest"})
    assert r.status_code == 200 and "&lt;/w&gt;" in r.text


@pytest.mark.parametrize(
    "params,status",
    [
        ({"tokenizer": "nope", "text": "x"}, 404),
        ({"tokenizer": "bert-base-uncased", "text": "x"}, 422),
        ({"tokenizer": "gpt2", "text": "x" * 3000}, 422),
    ],
)
def test_bad_encode_input(client, params, status):
    r = client.get("/bpe/encode", params=params)
    assert r.status_code == status
    assert 'role="alert"' in r.text and "<textarea" in r.text


@pytest.mark.parametrize("algorithm", ["bpe", "byte_bpe", "sentencepiece_bpe"])
def test_api_train_and_encode(client, algorithm):
    corpus = "\n".join(["low low low lower lowest newer wider"] * 3 + ["ünïcode text 日本"])
    vocab = {"bpe": 30, "byte_bpe": 270, "sentencepiece_bpe": 30}[algorithm]
    r = client.post(
        "/api/train", json={"algorithm": algorithm, "corpus": corpus, "vocab_size": vocab}
    )
    assert r.status_code == 200, r.text
    handle = r.json()["tokenizer"]
    enc = client.post("/api/encode", json={"tokenizer": handle, "text": "lowest wider"})
    assert enc.status_code == 200 and enc.json()["tokens"]


def test_api_train_bad_input(client):
    r = client.post("/api/train", json={"algorithm": "byte_bpe", "corpus": "abc", "vocab_size": 10})
    assert r.status_code == 422 and "below" in r.json()["detail"]
    r = client.post(
        "/api/train",
        json={"algorithm": "byte_bpe", "corpus": "abc", "vocab_size": 300, "pattern": "(("},
    )
    assert r.status_code == 422


def test_encode_special_tokens_option(client):
    plain = client.get(
        "/bpe/encode", params={"tokenizer": "cl100k_base", "text": "a<|endoftext|>b"}
    )
    assert plain.status_code == 200 and ">special</span>" not in plain.text
    r = client.get(
        "/bpe/encode", params={"tokenizer": "cl100k_base", "text": "a<|endoftext|>b", "special": 1}
    )
    assert r.status_code == 200 and ">special</span>" in r.text
    assert "&lt;|endoftext|&gt;" in r.text


def test_blank_vocab_size_means_the_default(client):
    r = client.get("/bpe/train?corpus=udhr/eng&variant=bpe&vocab_size=&pattern=gpt2&step=2")
    assert r.status_code == 200 and "of 1,000" in r.text
    r = client.get("/bpe/train?vocab_size=lots")
    assert r.status_code == 422 and "whole number" in r.text


def test_long_training_shows_progress_then_the_step(client, monkeypatch):
    import time as _time

    from app.jobs import runs as step_jobs
    from app.routers import bpe as bpe_router

    monkeypatch.setattr(bpe_router, "SYNC_SECONDS", 0.0)
    monkeypatch.setattr(step_jobs, "IN_REQUEST_CHARS", 0)  # trained in the job pool
    url = "/bpe/train?corpus=udhr/fra&variant=byte_bpe&vocab_size=700&step=3"
    r = client.get(url)
    assert r.status_code == 200 and 'data-testid="training"' in r.text
    deadline = _time.monotonic() + 120  # a busy machine may take long; poll, never assume
    while 'data-testid="training"' in r.text and _time.monotonic() < deadline:
        # the worker first counts the words, then reports merges: either way the panel polls
        assert ("counting words" in r.text or "merges so far" in r.text) and "hx-trigger" in r.text
        _time.sleep(0.05)
        r = client.get(url, headers=HX)
    assert 'data-testid="pair-table"' in r.text


def test_json_step_apis(client):
    r = client.get("/api/bpe/train_steps")
    assert r.status_code == 200
    steps = r.json()["steps"]
    assert steps[0]["kind"] == "bpe_merge" and steps[0]["pair"] == ["e", "s"]
    from tokenizers_core.steps import step_from_dict

    assert step_from_dict(steps[1]).new_symbol == "t</w>"
    assert client.get("/api/bpe/train_steps?variant=zzz").status_code == 422
    assert client.get("/api/bpe/train_steps?corpus=" + "a" * 64).status_code == 404
    r = client.get("/api/bpe/encode_steps", params={"tokenizer": "gpt2", "text": "lowest"})
    assert r.status_code == 200
    piece = r.json()["pieces"][0]
    assert (
        piece["tokens"] == [["low", 9319], ["est", 395]]
        and piece["steps"][0]["kind"] == "bpe_encode"
    )
    assert (
        client.get("/api/bpe/encode_steps", params={"tokenizer": "x", "text": "a"}).status_code
        == 404
    )


show = shower(True)


def what(page: str) -> str:
    found = re.search(r'data-testid="what">([^<]*)<', page)
    assert found, page[:2000]
    return html.unescape(found.group(1))


def test_superbpe_shows_its_stages_and_superwords(client):
    params = {"variant": "superbpe", "corpus": "udhr/eng", "vocab_size": 700, "transition": 600}
    run = family_run("superbpe", load_corpus("udhr/eng").splitlines(), 700, transition=600)
    first = run.first_after_transition()
    assert first is not None
    before = client.get("/bpe/train", params={**params, "step": first - 1}).text
    assert "Stage 1" in before
    k = next(i for i, s in enumerate(run.steps, 1) if s.superword)
    page = client.get("/bpe/train", params={**params, "step": k}).text
    step = run.steps[k - 1]
    assert what(page).startswith(f"Merge {k}: {show(step.pair[0])} + {show(step.pair[1])}")
    assert "a superword" in what(page) and "Stage 2" in page
    assert html.escape(show(step.new_symbol)) in page.split('data-testid="superwords"')[1]


def test_picky_bpe_shows_ios_and_each_removal(client):
    params = {"variant": "picky_bpe", "corpus": "udhr/eng", "vocab_size": 600, "threshold": 0.6}
    run = family_run("picky_bpe", load_corpus("udhr/eng").splitlines(), 600, threshold=0.6)
    k = next(i for i, s in enumerate(run.steps, 1) if s.removed)
    page = client.get("/bpe/train", params={**params, "step": k}).text
    removed = run.steps[k - 1].removed[0]
    assert f"{show(removed[0])} removed (IoS {removed[1]:.2f})" in what(page)
    assert 'data-testid="removed-now"' in page
    assert f"merge {k}:" in page.split('data-testid="removals"')[1]


def test_parity_bpe_groups_an_untagged_corpus_by_script(store_client):
    text = load_corpus("udhr/eng")[:3000] + "\n" + load_corpus("udhr/rus")[:3000]
    sha = store_client.post("/api/corpora", json={"text": text}).json()["sha256"]
    page = store_client.get(
        "/bpe/train", params={"variant": "parity_bpe", "corpus": sha, "vocab_size": 300, "step": 5}
    ).text
    bars = page.split('data-testid="lang-bars"')[1].split("</ol>")[0]
    assert bars.count("<li") == 2 and "Latin" in bars and "Cyrillic" in bars
    assert "chosen for" in what(page) and 'data-testid="gini-curve"' in page


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"variant": "superbpe", "vocab_size": 500, "transition": 900}, "transition must be"),
        ({"variant": "superbpe", "transition": "nan"}, "transition must be a number"),
        ({"variant": "superbpe", "transition": "inf"}, "transition must be between"),
        ({"variant": "superbpe", "transition": "-inf"}, "transition must be between"),
        ({"variant": "picky_bpe", "threshold": "many"}, "threshold must be a number"),
        ({"variant": "picky_bpe", "threshold": "NaN"}, "threshold must be a number"),
        ({"variant": "picky_bpe", "threshold": 0}, "threshold"),
        ({"variant": "parity_bpe", "vocab_size": 100}, "between 257"),
    ],
)
def test_bad_options_are_shown_in_place(client, params, message):
    r = client.get("/bpe/train", params={"corpus": "udhr/eng", **params})
    assert r.status_code == 422
    assert message in r.text and 'id="train-form"' in r.text


def test_the_family_trains_by_name_and_appears_in_compare(client):
    r = client.get(
        "/api/compare",
        params={"text": "of the people", "col": ["byte_bpe", "superbpe"], "corpus": "udhr/eng",
                "vocab": 600},
    )  # fmt: skip
    plain, superbpe = r.json()
    assert superbpe["error"] is None and superbpe["title"] == "SuperBPE"
    assert "".join(superbpe["tokens"]) == "".join(plain["tokens"])  # the same bytes


def test_the_bpe_training_form_offers_the_family_and_sends_it_to_its_view(client):
    page = client.get("/bpe/train").text
    assert '<option value="superbpe"' in page and '<option value="parity_bpe"' in page
    r = client.post(
        "/bpe/train",
        data={"variant": "picky_bpe", "corpus": "udhr/eng", "use": "pick"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert r.headers["location"] == "/bpe/train?variant=picky_bpe&corpus=udhr%2Feng"


@pytest.mark.parametrize("variant", ["superbpe", "picky_bpe", "parity_bpe"])
def test_each_view_opens_before_its_first_merge(client, variant):
    r = client.get(
        "/bpe/train", params={"variant": variant, "corpus": "udhr/eng", "vocab_size": 300}
    )
    assert r.status_code == 200 and what(r.text).startswith("Before any merge")


def test_picky_bpe_says_why_it_stops_and_numbers_removals_in_order(client):
    """udhr/eng runs out of pairs at 816 of 1,000 tokens (855 removals freed ids): the last
    step says so in the engine's words; "Removed so far" numbers each removal in the order it
    happened (the newest, shown first, has the highest number), not the newest as 1."""
    params = {"variant": "picky_bpe", "corpus": "udhr/eng", "vocab_size": 1000}
    run = family_run("picky_bpe", load_corpus("udhr/eng").splitlines(), 1000)
    last = client.get("/bpe/train", params={**params, "step": run.total}).text
    stop = html.unescape(re.search(r'data-testid="stop-reason">([^<]*)<', last).group(1))
    assert stop.startswith(f"Training stopped after merge {run.total:,}: no pair is left to merge")
    assert "the vocabulary at 816 of 1,000" in stop and f"{run.removals:,} removals" in stop
    assert f"step <b>{run.total:,}</b> / {run.total:,}" in last  # the stepper's, as the rest
    removals = last.split('data-testid="removals"')[1].split("</ol>")[0]
    numbers = [int(n) for n in re.findall(r'<li value="(\d+)">', removals)]
    assert numbers[0] == run.removals and numbers == sorted(numbers, reverse=True)
    assert (
        "newest first" in last
        and 'data-testid="stop-reason"'
        not in client.get("/bpe/train", params={**params, "step": 3}).text
    )


def test_the_family_form_shows_its_defaults_and_counts_read_alike(client):
    """The vocab_size box's default is in its label (the box read "defau"), and every count has
    separators and its noun in the singular for 1 ("1 occurrence", not "1 occurrences")."""
    page = client.get("/bpe/train", params={"variant": "picky_bpe", "step": 0}).text
    assert re.search(r'vocab_size <span class="muted small">\(default 1,000\)</span>', page)
    assert 'placeholder="1000"' in page and "default (" not in page
    params = {"variant": "picky_bpe", "corpus": "udhr/eng", "vocab_size": 1000}
    run = family_run("picky_bpe", load_corpus("udhr/eng").splitlines(), 1000)
    page = client.get("/bpe/train", params={**params, "step": run.total}).text
    assert f"vocabulary 816 of 1,000 · {run.total:,} merges in all" in page
    from app.views.bpe_train import sentence
    from tokenizers_core.models.bpe.session import training_session

    once = training_session("ab", "bpe", 20)  # one word, once: each merge occurs once
    assert sentence(once, 1).startswith("Merged a + b → ab, 1 occurrence; 1 other pair tied")


def test_the_pattern_field_is_for_byte_bpe_only(client):
    def fields(variant: str) -> dict[str, str]:
        html = client.get("/bpe/train", params={"variant": variant}).text
        tag = r'<div class="field variant-field"[^>]*data-testid="{}"[^>]*>'
        return {
            name: re.search(tag.format(name), html).group(0)
            for name in ("pattern-field", "min-frequency-field")
        }

    bpe = fields("bpe")
    assert " hidden" in bpe["pattern-field"] and " hidden" not in bpe["min-frequency-field"]
    assert 'data-when="byte_bpe"' in bpe["pattern-field"]
    byte = fields("byte_bpe")
    assert " hidden" not in byte["pattern-field"] and " hidden" not in byte["min-frequency-field"]
    sp = fields("sentencepiece_bpe")
    assert " hidden" in sp["pattern-field"] and " hidden" in sp["min-frequency-field"]
    html = client.get("/bpe/train", params={"variant": "bpe"}).text
    assert '<select id="variant" name="variant" data-shows=".variant-field"' in html
    assert '<select id="pattern" name="pattern" disabled>' in html  # not sent while hidden
    assert "pattern (byte_bpe)" not in html
