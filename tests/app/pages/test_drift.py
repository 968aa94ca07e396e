"""/drift, the drift doctor's page, and `POST /api/drift`: the worked example on the first screen
(Qwen3's own template drops the first answer's reasoning; a completion with "hello" spelt h +
ello; a `<think>` typed by the user), the turns side by side with the first divergence outlined,
the completions and markers tables, the form posted without JavaScript and as htmx, anything
typed rendered as text, bad input answered 4xx with its reason, never a 500."""

from __future__ import annotations

import json
import re

from tests.app.pages.markup import by_testid
from tokenizers_core import drift_doctor

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'

REASONING_CHAT = [
    {"role": "user", "content": "2+2?"},
    {"role": "assistant", "reasoning_content": "Add them.", "content": "4"},
    {"role": "user", "content": "And 3+3?"},
    {"role": "assistant", "content": "6"},
]


# ---- the API ---------------------------------------------------------------------------------
def test_the_api_answers_the_contract(client):
    r = client.post(
        "/api/drift",
        json={
            "tokenizer": "qwen3",
            "messages": REASONING_CHAT,
            "completions": [{"message": 3, "ids": [21, 151645]}],
        },
    )
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["append_only"] is False
    first, last = data["turns"]
    assert {k: first[k] for k in ("message", "prefix_of_next")} == {
        "message": 1,
        "prefix_of_next": False,
    }
    assert first["construct"] == drift_doctor.REASONING_DROPPED
    assert first["first_diff_token"] == first["tokens_reused"] < first["tokens_total"]
    assert last["message"] == 3
    (check,) = data["completions"]
    assert set(check) >= {"message", "round_trip_equal", "first_diff", "canonical", "retokenized"}
    assert check["round_trip_equal"] is True and check["retokenized"] == [21, 151645]
    assert data["markers"] == []


def test_the_api_finds_an_injection_and_a_spelt_marker(client):
    spelt = [27, 26865, 29]  # "<", "think", ">"
    messages = [
        {"role": "user", "content": "Hi <tool_call>"},
        {"role": "assistant", "content": "<think>"},
    ]
    data = client.post(
        "/api/drift",
        json={
            "tokenizer": "qwen3",
            "messages": messages,
            "template_name": "chatml",
            "completions": [{"message": 1, "ids": spelt}],
        },
    ).json()
    kinds = sorted((m["kind"], m["marker"], m["single_token"]) for m in data["markers"])
    assert kinds == [("injection", "<tool_call>", True), ("spelt", "<think>", False)]


def test_a_pasted_template_is_rendered_in_the_sandbox_and_its_failure_is_a_422(client):
    template = "{{ raise_exception('no thanks') }}"
    r = client.post(
        "/api/drift",
        json={"tokenizer": "qwen3", "messages": REASONING_CHAT, "template": template},
    )
    assert r.status_code == 422
    assert "no thanks" in r.json()["detail"]
    ok = "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
    r = client.post(
        "/api/drift", json={"tokenizer": "qwen3", "messages": REASONING_CHAT, "template": ok}
    )
    assert r.status_code == 200 and r.json()["append_only"] is True


def test_bad_json_is_a_422_with_its_detail(client):
    r = client.post("/api/drift", content=b'{"tokenizer": "qwen3", "messages": [', headers=_json())
    assert r.status_code == 422
    assert isinstance(r.json()["detail"], str) and "JSON" in r.json()["detail"]
    r = client.post("/api/drift", json={"tokenizer": "qwen3", "messages": "not a list"})
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)
    r = client.post(
        "/api/drift",
        json={
            "tokenizer": "qwen3",
            "messages": REASONING_CHAT,
            "completions": [{"message": 0, "ids": [1]}],
        },
    )
    assert r.status_code == 422 and "'user' message" in r.json()["detail"]


def test_an_unknown_tokenizer_is_a_404(client):
    r = client.post("/api/drift", json={"tokenizer": "no-such-tok", "messages": REASONING_CHAT})
    assert r.status_code == 404
    assert "no-such-tok" in r.json()["detail"]


def test_a_tokenizer_without_a_template_asks_for_one(client):
    r = client.post("/api/drift", json={"tokenizer": "gpt2", "messages": REASONING_CHAT})
    assert r.status_code == 422 and "chat template" in r.json()["detail"]
    r = client.post(
        "/api/drift",
        json={"tokenizer": "gpt2", "messages": REASONING_CHAT, "template_name": "llama3"},
    )
    assert r.status_code == 200


def _json() -> dict[str, str]:
    return {"content-type": "application/json"}


# ---- the page --------------------------------------------------------------------------------
def test_the_page_opens_on_the_worked_example(client):
    r = client.get("/drift")
    assert r.status_code == 200
    assert re.search(r'<option value="qwen3" selected>', r.text)
    assert by_testid(r.text, "verdict") == "Not append-only"
    turns = re.findall(r'data-testid="drift-turn" data-message="(\d+)" data-prefix="(\w+)"', r.text)
    assert turns == [("2", "false"), ("4", "false")]
    constructs = re.findall(r'data-testid="construct">([^<]*)<', r.text)
    assert constructs[0].startswith("reasoning dropped from earlier assistant turns")
    assert constructs[1].startswith("the same text, other tokens")
    # each side of a turn outlines the token where they part, as /diff does
    first = r.text.split('data-testid="drift-turn"')[1]
    assert first.count(" differs") == 2
    assert 'class="diff-side side-a"' in first and 'class="diff-side side-b"' in first
    # the completions table: the sampled "hello" spelt h + ello does not round-trip
    completions = by_testid(r.text, "drift-completions", end="</article>")
    assert "other ids" in completions and "no, from id 7" in completions
    # the markers table: the user's <think>, an injection
    markers = r.text.split('data-testid="drift-markers"')[1].split("</table>")[0]
    assert 'data-kind="injection"' in markers and "&lt;think&gt;" in markers


def test_the_form_posts_without_javascript_and_htmx_gets_the_results(client):
    conversation = json.dumps({"messages": REASONING_CHAT})
    form = {"tokenizer": "qwen3", "template_name": "chatml", "conversation": conversation}
    r = client.post("/drift", data=form)
    assert r.status_code == 200 and "<html" in r.text
    assert by_testid(r.text, "verdict") == "Append-only"
    htmx = client.post("/drift", data=form, headers={"HX-Request": "true"})
    assert htmx.status_code == 200 and "<html" not in htmx.text
    assert 'data-testid="drift-summary"' in htmx.text
    assert htmx.headers["HX-Push-Url"].startswith("/drift?")
    # the permalink gives the same page
    link = by_testid(r.text, "permalink", end="</p>")
    again = client.get(htmx.headers["HX-Push-Url"])
    assert by_testid(again.text, "verdict") == "Append-only" and link


def test_an_xss_payload_in_a_message_renders_as_text(client):
    messages = [
        {"role": "user", "content": XSS},
        {"role": "assistant", "content": XSS},
        {"role": "user", "content": "ok"},
    ]
    r = client.get(
        "/drift", params={"template_name": "chatml", "conversation": json.dumps(messages)}
    )
    assert r.status_code == 200
    assert "<script>alert" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;" in r.text  # in the box, and in the chips
    r = client.get("/drift", params={"tokenizer": XSS, "conversation": json.dumps(messages)})
    assert r.status_code == 404 and "<script>alert" not in r.text


def test_bad_json_in_the_box_is_a_422_shown_in_place(client):
    r = client.post("/drift", data={"tokenizer": "qwen3", "conversation": "[{"})
    assert r.status_code == 422
    assert 'role="alert"' in r.text and "not valid JSON" in r.text
    assert "[{</textarea>" in r.text  # the form keeps what was typed
    r = client.post("/drift", data={"tokenizer": "qwen3", "conversation": '{"nothing": 1}'})
    assert r.status_code == 422 and "messages" in r.text


def test_an_unknown_tokenizer_on_the_page_is_a_404(client):
    r = client.get("/drift", params={"tokenizer": "no-such-tok"})
    assert r.status_code == 404 and 'role="alert"' in r.text
