"""`tokvis drift FILE.jsonl` as a CI job or an RL run's check runs it: one record a line, the exit
status (0 every record append-only with round-tripping completions, 1 any not, 2 unreadable
input), the report for people and `--json` (one report a line, the Python answer)."""

from __future__ import annotations

import json

import pytest

import tokenizers_core as tc
from app.cli import main

APPENDS = {
    "messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "Bye"},
    ]
}
DROPS_REASONING = {
    "messages": [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "reasoning_content": "Add them.", "content": "4"},
        {"role": "user", "content": "3+3?"},
    ]
}


def jsonl(tmp_path, *records, name="rollouts.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_append_only_records_exit_0(tmp_path, capsys):
    path = jsonl(tmp_path, APPENDS, APPENDS)
    assert main(["drift", path, "-t", "qwen3", "--template-name", "chatml"]) == 0
    out = capsys.readouterr().out
    assert out.count("append-only") == 2 and "NOT" not in out
    assert "messages[1]: a prefix of the next turn" in out


def test_a_template_that_drops_reasoning_exits_1_and_says_why(tmp_path, capsys):
    path = jsonl(tmp_path, APPENDS, DROPS_REASONING)
    assert main(["drift", path, "-t", "qwen3"]) == 1  # Qwen3's own template
    out = capsys.readouterr().out
    assert "record 2 (line 2): NOT append-only -- fails" in out
    assert "reasoning dropped from earlier assistant turns" in out


def test_a_completion_that_does_not_round_trip_exits_1(tmp_path, capsys):
    tok = tc.load("qwen3")
    spelt = [tok.token_to_id("h"), tok.token_to_id("ello"), tok.token_to_id("<|im_end|>")]
    record = {
        "tokenizer": "qwen3",
        "messages": [
            {"role": "user", "content": "Say hello"},
            {"role": "assistant", "content": "hello"},
        ],
        "completions": [{"message": 1, "ids": spelt}],
    }
    assert main(["drift", jsonl(tmp_path, record), "--template-name", "chatml"]) == 1
    out = capsys.readouterr().out
    assert "encode(decode(ids)) differs at id 0, not canonical from id 0" in out


def test_json_is_one_report_a_line_and_the_python_answer(tmp_path, capsys):
    path = jsonl(tmp_path, APPENDS, DROPS_REASONING)
    assert main(["drift", path, "-t", "qwen3", "--json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    reports = [json.loads(line) for line in lines]
    # Qwen3's template writes an empty <think></think> into the latest turn even without
    # reasoning, and drops it one turn later: neither record is append-only
    assert [(r["record"], r["line"], r["append_only"]) for r in reports] == [
        (1, 1, False),
        (2, 2, False),
    ]
    assert all(r["turns"][0]["construct"].startswith("reasoning dropped") for r in reports)
    expected = tc.drift(tc.load("qwen3"), DROPS_REASONING["messages"]).to_dict()
    assert {k: v for k, v in reports[1].items() if k not in ("record", "line")} == expected


def test_a_template_file_is_used(tmp_path, capsys):
    template = tmp_path / "t.jinja"
    template.write_text("{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}")
    path = jsonl(tmp_path, DROPS_REASONING)
    assert main(["drift", path, "-t", "qwen3", "--template", str(template)]) == 0


@pytest.mark.parametrize(
    "content, says",
    [
        ("{not json\n", "line 1 is not JSON"),
        ('{"messages": [], "model": "x"}\n', "unknown key 'model'"),
        ("[1, 2]\n", 'a JSON object with a "messages" list'),
        (json.dumps(APPENDS) + "\n", "names no tokenizer"),
        (
            json.dumps(
                {**APPENDS, "completions": [{"message": 0, "ids": [1]}], "tokenizer": "qwen3"}
            )
            + "\n",
            "line 1: completion 1: message 0 is a 'user' message",
        ),
        (json.dumps({**APPENDS, "tokenizer": "no-such-tokenizer"}) + "\n", "no such file"),
    ],
)
def test_unreadable_input_exits_2_saying_why(tmp_path, capsys, content, says):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    assert main(["drift", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tokvis drift: cannot read: ") and says in err


def test_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["drift", str(tmp_path / "none.jsonl"), "-t", "qwen3"]) == 2
    assert "No such file" in capsys.readouterr().err


def test_blank_lines_are_skipped_and_lines_counted(tmp_path, capsys):
    path = tmp_path / "gaps.jsonl"
    path.write_text("\n" + json.dumps(APPENDS) + "\n\n", encoding="utf-8")
    assert main(["drift", str(path), "-t", "qwen3", "--template-name", "chatml"]) == 0
    assert "record 1 (line 2)" in capsys.readouterr().out
