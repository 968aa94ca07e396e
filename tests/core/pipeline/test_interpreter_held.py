"""An encode keeps the interpreter from start to end: none of its regex searches lets go of it.

By default the `regex` module releases the GIL during every match and takes it back after; beside
one busy thread each taking back waits up to a switch interval (5 ms), so a 2 KB text that needs
a millisecond took seconds on a busy server, and the CPU time a user's pattern was charged grew
with the number of threads waiting (tokenizers_core/user_regex.py). The package's searches pass
`concurrent=False`, as the stdlib's `re` behaves.

How it is seen, without a clock: a second thread waits for the interpreter and counts each time
it gets it (then hands it straight back); the switch interval is set to 5 s, so while the code
under test runs, the counter moves only if that code lets go of the interpreter itself. Each
check runs in a fresh interpreter of its own (`alone`): the threads other tests leave behind in
a test process would take the interpreter too.
"""

from __future__ import annotations

import copy
import gc
import json
import subprocess
import sys
import threading
import time
from typing import Any, Callable

import regex

import tokenizers_core as tc
from tests.shared_data import BUNDLED, REPO
from tokenizers_core.formats.hf_json import from_dict, to_hf_json
from tokenizers_core.incremental import reencode
from tokenizers_core.pretrained import bundled
from tokenizers_core.user_regex import TimedPattern, shared_budget

MODULE = "tests.core.pipeline.test_interpreter_held"
TEXT = (
    "Hello world's 123 4567 naïve ﬁle café\tTabs  and   spaces\n\n"
    "Всеобщая декларация прав человека. 人人生而自由，在尊严和权利上一律平等。"
    " Ἀρχὴ σοφίας. ΣΊΣΥΦΟΣ İstanbul \u0301x क़ ꯍ 😀👍🏽 <s> [CLS] [SEP] "
)

# long enough that each search runs for milliseconds: a search that lets go is seen (the waiting
# thread wakes well within it), one that does not cannot be
LONG = TEXT * 60


def times_let_go(work: Callable[[], Any]) -> int:
    """How many times `work` let another thread have the interpreter (0: it held it)."""
    got, stop, ready = [0], [False], threading.Event()

    def waiter() -> None:
        ready.set()
        while not stop[0]:
            got[0] += 1
            time.sleep(0)  # hands it back at once

    thread = threading.Thread(target=waiter, daemon=True)
    thread.start()
    ready.wait()
    interval = sys.getswitchinterval()
    # A collection during `work` may run a finaliser that closes a file, which lets go of the
    # interpreter but is not the work's own; and a wait the waiter began under the old switch
    # interval would take the interpreter when it ran out: let it begin its waits anew.
    gc.collect()
    gc.disable()
    sys.setswitchinterval(5.0)
    time.sleep(0.02)
    try:
        before = got[0]
        work()
        return got[0] - before
    finally:
        sys.setswitchinterval(interval)
        gc.enable()
        stop[0] = True
        thread.join()


def alone(check: str) -> Any:
    """What `check` (the name of a function of this module) returns, run in a fresh interpreter."""
    code = f"import json, {MODULE} as m; print(json.dumps(m.{check}()))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


# ---- the checks, each run alone --------------------------------------------------------------
def detector_on_a_plain_search() -> list[int]:
    """A search that backtracks for some 30 ms in one match: letting go for that long, it is
    seen even beside a CPU hog (the waiting thread is given a core within it)."""
    pattern, text = regex.compile(r"(?:a|a)*$"), "a" * 18 + "!"
    return [
        times_let_go(lambda: pattern.search(text)),
        times_let_go(lambda: pattern.search(text, concurrent=False)),
    ]


def bundled_tokenizers_that_let_go() -> dict[str, int]:
    """{name: times} of each bundled tokenizer whose encode, batch encode or decode let go."""
    found = {}
    text = LONG
    for name in sorted(bundled()):
        tok = tc.load(name)
        ids = tok.encode(text).ids  # (the first calls may read tables from disk)
        tok.encode_batch([text[:50], text[50:]])
        decodes = name not in ("word", "sentence")  # (their ids are the text's own words)
        if decodes:
            tok.decode(ids)

        def work() -> None:
            tok.encode(text)
            tok.encode_batch([text[:50], text[50:]])
            if decodes:
                tok.decode(ids)

        if times := times_let_go(work):
            found[name] = times
    return found


def user_patterns_let_go() -> int:
    tok = _a_pipeline_of_user_patterns()
    text = LONG
    tok.encode(text)
    return times_let_go(lambda: tok.encode(text))


def timed_searches_let_go() -> int:
    pattern = TimedPattern(regex.compile(r"\p{L}+|\p{N}+|\s+|."), timeout=5.0)

    def work() -> None:
        with shared_budget():
            pattern.finditer(LONG)
            pattern.findall(LONG)
            pattern.search(LONG, 5)
            pattern.sub("x", LONG)

    return times_let_go(work)


def re_encoding_lets_go() -> int:
    tok = tc.load("cl100k_base")
    old = (BUNDLED / "corpora" / "udhr" / "eng.txt").read_text(encoding="utf-8") * 4
    new = old[:5000] + " an edit " + old[5000:]
    before = tok.encode(old)
    reencode(tok, old, before, new)
    return times_let_go(lambda: reencode(tok, old, before, new))


def _a_pipeline_of_user_patterns() -> tc.Tokenizer:
    """Qwen3's pipeline with a Replace normaliser, a Split of the user's own and added tokens that
    are single words or strip the space around them: the patterns are `TimedPattern`s."""
    config = copy.deepcopy(to_hf_json(tc.load("qwen3")))
    config["normalizer"] = {
        "type": "Sequence",
        "normalizers": [
            {"type": "NFC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ],
    }
    config["pre_tokenizer"]["pretokenizers"].insert(
        0,
        {"type": "Split", "pattern": {"Regex": r"\d{2}"}, "behavior": "Isolated", "invert": False},
    )
    last = max(t["id"] for t in config["added_tokens"])
    for i, (content, single, lstrip) in enumerate([("[CLS]", True, False), ("<s>", False, True)]):
        config["added_tokens"].append(
            {
                "id": last + 1 + i,
                "content": content,
                "single_word": single,
                "lstrip": lstrip,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        )
    return from_dict(config, name="user patterns")


# ---- the tests ---------------------------------------------------------------------------------
def test_the_detector_sees_a_search_that_lets_go():
    let_go, held = alone("detector_on_a_plain_search")
    assert let_go > 0 and held == 0


def test_every_bundled_tokenizer_encodes_and_decodes_holding_it():
    assert alone("bundled_tokenizers_that_let_go") == {}


def test_user_patterns_and_added_tokens_are_searched_holding_it():
    assert alone("user_patterns_let_go") == 0


def test_a_timed_search_holds_it_and_is_charged_its_own_time():
    assert alone("timed_searches_let_go") == 0


def test_re_encoding_an_edit_holds_it():
    assert alone("re_encoding_lets_go") == 0
