"""Chat templates meet their budgets before they build.

Each template below used to build gigabytes, or to run for minutes inside a single filter
call, before any budget looked: Python's `sum` of lists copies the running total at every step,
and a list that holds one million-character string a thousand times has 1,000 items but 10^9
characters of text, so `tojson`, `pprint`, `join`, `string` or `{{ }}` of it wrote a gigabyte.
Now each size is worked out from the arguments first (`budget.weight` counts the characters of
nested values, and stops counting once past the limit), so each is a `TemplateFailure` naming
its line, and its peak memory (`tracemalloc`) stays in megabytes. Legitimate big renders still
render exactly as transformers renders them, and the clock counts CPU time, not waiting.
"""

from __future__ import annotations

import json
import time
import tracemalloc

import jinja2
import jinja2.ext
import jinja2.sandbox
import pytest

import tokenizers_core as tc
from tokenizers_core import chat
from tokenizers_core.chat import runner
from tokenizers_core.chat.budget import weight
from tokenizers_core.chat.runner import TemplateFailure

PEAK_LIMIT = 50_000_000  # bytes: each refused template stays far below this


def _refused(template: str, **variables) -> tuple[TemplateFailure, int]:
    """The failure `template` ends in, and the peak memory its render allocated. (The time
    budget is lifted: tracemalloc slows every allocation, and the check under test, not the
    clock, must be what stops the render.)"""
    tracemalloc.start()
    try:
        with pytest.raises(TemplateFailure) as caught:
            runner.render(template, {"messages": [], **variables}, time_limit=60)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return caught.value, peak


# ---- the issue's reproducers -------------------------------------------------------------------
# Each used to take 1 to 94 seconds and up to 3 GB in-process (see the issue). The runaway
# expression is on line 2. Most build their list with `[s] * 1000`, which `*` now weighs
# (1,000 times a million characters), so they stop right there.
S = "{% set s = 'x' * 1000000 %}\n"
ISSUE = {
    "sum of lists": (
        "{% set l = range(100000) | list %}\n{{ ([l] * 300) | sum(start=[]) | length }}",
        "multiplied a value",
    ),
    "lipsum": ("\n{{ lipsum(n=100000) }}", "lipsum was asked for up to 10,000,000 words"),
    "slice": ("\n{{ [1] | slice(10000000) | list }}", "slice was asked for 10,000,000 slices"),
    "batch": ("\n{{ [1] | batch(100000000, 0) | list }}", "batches of 100,000,000 items"),
    "wordwrap": (S + "{{ s | wordwrap(1) }}", "wordwrap takes at most 100,000 characters"),
    "urlize": (S + "{{ s | urlize }}", "urlize takes at most 100,000 characters"),
    "sort": (S + "{{ ([s] * 1000) | sort | length }}", "multiplied a value"),
    "tojson": (S + "{{ ([s] * 1000) | tojson | length }}", "multiplied a value"),
    "pprint": (S + "{{ ([s] * 1000) | pprint | length }}", "multiplied a value"),
    "join": (S + "{{ ([s] * 1000) | join | length }}", "multiplied a value"),
    "string": (S + "{{ ([s] * 1000) | string | length }}", "multiplied a value"),
    "list": (S + "{{ ([s] * 1000) | list }}", "multiplied a value"),
    "format": (S + "{{ '{0}'.format([s] * 1000) | length }}", "multiplied a value"),
    "%999999s": (
        "\n{{ (('%999999s' * 1000) % ((1,) * 1000)) | length }}",
        "% would build more than 1,000,000 characters",
    ),
    "indent": (
        "\n{{ ('\\n' * 1000) | indent(1000000, blank=true) | length }}",
        "indent would build",
    ),
    "expandtabs": ("\n{{ ('\\t' * 1000).expandtabs(1000000) | length }}", "expandtabs would build"),
    "center": (S + "{{ ([s] * 1000) | center(10) }}", "multiplied a value"),
    "truncate": (S + "{{ ([s] * 1000) | truncate(10) }}", "multiplied a value"),
    "replace": (S + "{{ ([s] * 1000) | replace('x', 'y') | length }}", "multiplied a value"),
    "~": (S + "{{ (([s] * 1000) ~ '') | length }}", "multiplied a value"),
    "*": (S + "{{ ([s] * 1000) * 1 }}", "multiplied a value"),
}


@pytest.mark.parametrize("case", ISSUE)
def test_the_issues_runaway_templates_are_refused_at_their_line(case):
    template, words = ISSUE[case]
    failure, peak = _refused(template)
    assert failure.line == 2
    assert str(failure).startswith("the chat template failed at line 2: it was stopped: ")
    assert words in failure.reason
    assert peak < PEAK_LIMIT, f"{case}: peak {peak / 1e6:.1f} MB"


# ---- each check on its own ---------------------------------------------------------------------
# The same heavy list built without `*` (a namespace grows it one item at a time; `+` counts
# items, and each step adds one), so that every filter's own check is the one that speaks.
HEAVY = (
    "{% set s = 'x' * 1000000 %}{% set ns = namespace(l=[]) %}"
    "{% for i in range(1000) %}{% set ns.l = ns.l + [s] %}{% endfor %}\n"
)
LISTS = (
    "{% set l = range(100000) | list %}{% set ns = namespace(l=[]) %}"
    "{% for i in range(300) %}{% set ns.l = ns.l + [l] %}{% endfor %}\n"
)
OWN = {
    "sum counts the lists it adds": (
        LISTS + "{{ ns.l | sum(start=[]) | length }}",
        "sum would build a value of more than 1,000,000 items",
    ),
    "tojson": (HEAVY + "{{ ns.l | tojson }}", "tojson would write more than"),
    "tojson counts its indentation": (
        "{% set ns = namespace(l=[]) %}{% for i in range(900) %}{% set ns.l = [ns.l] %}"
        "{% endfor %}\n{{ [ns.l] | tojson(indent=100) }}",
        "tojson would write more than",
    ),
    "pprint": (HEAVY + "{{ ns.l | pprint }}", "pprint would write a value of more than 100,000"),
    "join": (HEAVY + "{{ ns.l | join }}", "join would build more than"),
    "str.join": (HEAVY + "{{ ''.join(ns.l) }}", "join would build more than"),
    "string": (HEAVY + "{{ ns.l | string }}", "string would write a value of more than"),
    "printing a list": (HEAVY + "{{ ns.l | list }}", "printing it would write"),
    "printing a namespace": (HEAVY + "{{ ns }}", "printing it would write"),
    "~": (HEAVY + "{{ ns.l ~ '' }}", "it would write a value of more than"),
    "str.format": (HEAVY + "{{ '{0}'.format(ns.l) }}", "format would build more than"),
    "a field used a thousand times": (S + "{{ ('{0}' * 1000).format(s) }}", "format would build"),
    "widths taken from the arguments": (
        "\n{{ ('{:{}}' * 1000).format(*(['a', 999999] * 1000)) }}",
        "format would build",
    ),
    "%": (HEAVY + "{{ '%s' % (ns.l,) }}", "% would build more than"),
    "%*d": ("\n{{ ('%*d' * 1000) % ((999999, 1) * 1000) }}", "% would build more than"),
    "the format filter": (HEAVY + "{{ '%s' | format(ns.l) }}", "% would build more than"),
    "center": (HEAVY + "{{ ns.l | center(10) }}", "center would write"),
    "replace": (HEAVY + "{{ ns.l | replace('x', 'y') }}", "replace would write"),
    "upper": (HEAVY + "{{ ns.l | upper }}", "upper would write"),
    "*": (HEAVY + "{{ ns.l * 2 }}", "multiplied a value"),
    "sort by weight": (HEAVY + "{{ ns.l | sort | length }}", "sort takes values weighing"),
    "sort by items": (
        "{% set l = range(100000) | list %}\n{{ (l + l) | sort | length }}",
        "sort takes at most 100,000 items, not 200,000",
    ),
    "unique of an iterator": (
        "{% set l = range(100000) | list %}\n{{ (l + l) | map('abs') | unique | list | length }}",
        "unique takes at most 100,000 items",
    ),
    "groupby": (HEAVY + "{{ ns.l | groupby('x') | length }}", "groupby takes values weighing"),
    "max": (
        "{% set l = range(100000) | list %}\n{{ (l + l) | max }}",
        "max takes at most 100,000 items",
    ),
    "wordwrap's wrapstring": (
        "{% set s = 'x ' * 50000 %}\n{{ s | wordwrap(1, wrapstring='y' * 100) }}",
        "wordwrap would build",
    ),
    "urlize's target": (
        "{% set s = 'www.a.com ' * 9000 %}\n{{ s | urlize(target='x' * 1000) }}",
        "urlize would build",
    ),
    "indent by keyword": (
        "\n{{ ('\\n' * 1000) | indent(width=999999, blank=true) }}",
        "indent would build",
    ),
    "indent by a string": (
        "\n{{ ('\\n' * 1000) | indent('x' * 999999, blank=true) }}",
        "indent would build",
    ),
    "translate": (
        "{% set s = 'x' * 100000 %}\n{{ s.translate({120: 'y' * 1000}) }}",
        "translate would build",
    ),
    "lipsum's max": ("\n{{ lipsum(1, max=1000000000) }}", "lipsum was asked for"),
    "strftime_now": (
        "{% set f = '%c' * 100000 %}\n{{ strftime_now(f) }}",
        "strftime_now would build",
    ),
    "a product of integers": (
        "{% set ns = namespace(x=10**1000) %}{% for i in range(30) %}\n"
        "{% set ns.x = ns.x * ns.x %}{% endfor %}",
        "multiplied numbers past 100,000 bits",
    ),
    "a power of an integer": (
        "{% set x = 10 ** 1000 %}\n{{ (x ** 1000) % 7 }}",
        "power of more than 100,000 bits",
    ),
}


@pytest.mark.parametrize("case", OWN)
def test_each_check_refuses_before_it_builds(case):
    template, words = OWN[case]
    failure, peak = _refused(template)
    assert failure.line == 2
    assert words in failure.reason
    assert peak < PEAK_LIMIT, f"{case}: peak {peak / 1e6:.1f} MB"


def test_jinjas_own_asserts_are_template_failures():
    """`truncate` checks its arguments with `assert`: that is the template's error too, not an
    AssertionError escaping the render."""
    failure, _ = _refused("\n{{ 'abcdef' | truncate(1) }}")
    assert failure.line == 2 and "AssertionError: expected length >= 3, got 1" in str(failure)


# ---- weighing ---------------------------------------------------------------------------------
def test_weight_is_about_the_length_of_the_text():
    messages = [{"role": "user", "content": "Hello, world"}, {"role": "assistant", "content": "Hi"}]
    text = json.dumps(messages)
    # 2 items; each message 2 pairs and its characters: role, user, content, Hello, world (27)
    # and role, assistant, content, Hi (22)
    assert weight(messages) == 2 + (2 + 27) + (2 + 22)
    assert weight(messages) <= len(text) <= 3 * weight(messages)


def test_weighing_stops_once_past_the_limit():
    """A million references to a million-character string: 10^12 characters of text, found too
    heavy within three steps (weighing is bounded by its limit, not by the value)."""
    s = "x" * 1_000_000
    huge = [[s] * 1000] * 1000
    assert weight(huge, limit=10) == 1000  # the outer list's items
    assert weight(huge) == 1000 + 1000 + len(s)  # its first list, its first string


# ---- the clock --------------------------------------------------------------------------------
def test_waiting_is_not_charged_to_the_template():
    """On a busy server the rendering thread waits (for the interpreter lock, for a core); the
    budget counts its CPU time, so a render that waits 0.5 s fits a 0.2 s budget. (With the wall
    clock it failed.)"""
    text, _ = runner.render(
        "{{ wait() }}done", {"wait": lambda: time.sleep(0.5) or ""}, time_limit=0.2
    )
    assert text == "done"


def test_an_empty_loop_in_a_loop_reads_the_clock():
    """10^10 empty steps call nothing, so only the loop itself can read the clock."""
    template = (
        "{% set l = range(100000) | list %}\n"
        "{% for x in l %}{% for y in l %}{% endfor %}{% endfor %}"
    )
    with pytest.raises(TemplateFailure, match=r"line 2: .*ran for more than 0\.3 seconds"):
        runner.render(template, {}, time_limit=0.3)


# ---- legitimate renders ------------------------------------------------------------------------
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{i}",
            "description": f"Tool number {i}: " + "does something useful. " * 5,
            "parameters": {
                "type": "object",
                "required": ["city", "unit"],
                "properties": {
                    "city": {"type": "string", "description": "The city, e.g. Paris"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14},
                    "filters": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}, "value": {"type": "number"}},
                        },
                    },
                },
            },
        },
    }
    for i in range(40)
]


def _chat(n: int) -> list[dict]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"Message {i}: " + "the quick brown fox jumps over the lazy dog. " * 4,
        }
        for i in range(n)
    ]


@pytest.mark.parametrize("name", [t.name for t in chat.bundled_templates()])
def test_a_thousand_message_chat_renders_as_transformers(name):
    chat_template_utils = pytest.importorskip("transformers.utils.chat_template_utils")
    messages = _chat(1000)
    specials = chat.bundled_template(name).special_tokens
    theirs = chat_template_utils.render_jinja_template(
        conversations=[messages],
        tools=TOOLS,
        chat_template=chat.template_source(name),
        add_generation_prompt=True,
        **specials,
    )[0][0]
    ours = tc.apply_chat_template(
        None, messages, template_name=name, tools=TOOLS, add_generation_prompt=True
    )
    assert ours == theirs
    assert len(ours) > 200_000


def test_tools_as_json_are_written_as_json_dumps_writes_them():
    template = (
        "{{ tools | tojson(indent=4) }}\n"
        "{% for t in tools %}{{ t | tojson }}\n{% endfor %}"
        "{{ messages | tojson }}"
    )
    messages = _chat(1000)
    text, _ = runner.render(template, {"tools": TOOLS, "messages": messages})
    expected = (
        json.dumps(TOOLS, ensure_ascii=False, indent=4)
        + "\n"
        + "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in TOOLS)
        + json.dumps(messages, ensure_ascii=False)
    )
    assert text == expected


def _plain_jinja(template: str, **variables) -> str:
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    return env.from_string(template).render(**variables)


@pytest.mark.parametrize(
    "template",
    [
        "{{ [[1], [2, 3]] | sum(start=[]) }}|{{ [(1,), (2,)] | sum(start=()) }}|{{ [1, 2.5] | sum }}",
        "{{ messages | sum(attribute='n') }}|{{ messages | join(', ', attribute='role') }}",
        "{{ [1, 'a', none] | join('-') }}|{{ 'abc' | list }}|{{ {'b': 1, 'a': 2} | list }}",
        "{{ range(99999) | list | sort(reverse=true) | first }}|{{ ['b', 'A', 'a'] | unique | list }}",
        "{{ {'b': 1, 'A': 2} | dictsort }}|{{ messages | groupby('role') | map(attribute='grouper') | list }}",
        "{{ range(10) | batch(3, 0) | list }}|{{ range(10) | slice(3, 0) | list }}",
        "{{ ('word ' * 2000) | wordwrap(30) | length }}|{{ 'see www.example.com' | urlize }}",
        "{{ 'a\nb' | indent(3, true) }}|{{ '\tx'.expandtabs(4) }}|{{ 'x' | center(9) }}",
        "{{ '%s=%05.1f' % ('pi', 3.14159) }}|{{ '{0}{0}{1:>4}'.format('a', 7) }}|{{ '%s' | format(7) }}",
        "{{ ['b', 'A'] | max }}|{{ [3, 1] | min }}|{{ ('ab' * 3) ~ 1 }}|{{ [1, 2] * 3 }}",
        "{% for m in messages %}{{ loop.index }}/{{ loop.length }}{{ ',' if not loop.last }}{% endfor %}",
        "{{ lipsum(2, html=false) | wordcount > 0 }}|{{ 'ab'.translate({97: 'xy'}) }}|{{ 2 ** 100 }}",
    ],
)
def test_the_checked_filters_give_jinjas_results(template):
    messages = [{"role": "user", "n": 1}, {"role": "assistant", "n": 2}, {"role": "user", "n": 3}]
    assert runner.render(template, {"messages": messages})[0] == _plain_jinja(
        template, messages=messages
    )
