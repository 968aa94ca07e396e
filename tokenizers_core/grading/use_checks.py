"""The checks of the student's encoder, given the reference's vocabulary and merges: encode on
held-out texts, decode round trip, and `encode_iterable` streaming (`checks.py` says what each
checks and scores)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

from .checks import Context
from .report import GradeTest
from .runner import ChildRun
from .shapes import Model
from .wording import (
    SHOWN,
    failed,
    failure,
    first_difference,
    passed,
    short,
    spell,
)

HELD_OUT = {
    "english": (
        "The quick brown fox jumps over the lazy dog. It's 2026, isn't it? Don't panic!\n"
        "def f(x):\n    return x  *  2\n\n\n\tdone   \n"
    ),
    "multilingual": (
        "Ça va très bien, merci. Привет, как дела? 你好，世界。こんにちは、世界。"
        "مرحبا بالعالم. नमस्ते दुनिया। Γειά σου κόσμε. 안녕하세요."
    ),
    "emoji": "I ❤️ tokenizers 🤗🤗! Family: 👩‍👩‍👧‍👦, flag: 🇫🇷, thumbs: 👍🏽 ✨",
}
OVERLAP = ("<|endoftext|>", "<|endoftext|><|endoftext|>")


@dataclass(frozen=True)
class Case:
    """A held-out text, the special tokens its tokenizer has, and the reference's ids."""

    test: str
    name: str
    text: str
    specials: tuple[str, ...]
    ids: list[int]


def encode_cases(ctx: Context) -> list[Case]:
    s, m = ctx.shape, ctx.model
    specials = list(ctx.specials) or ["<|endoftext|>"]
    cases = [
        Case(f"encode: {key}", key, text, (), s.encode(m, text)) for key, text in HELD_OUT.items()
    ]
    if s.name == "cs336" or ctx.cls and "basic" not in ctx.cls.lower():
        tok = specials[0]
        text = f"Hello{tok}world, {tok} again.{tok}\n{tok}"
        cases.append(
            Case(
                "encode: special tokens",
                "special",
                text,
                tuple(specials),
                s.encode(m, text, specials),
            )
        )
    if s.name == "cs336":
        overlap = list(dict.fromkeys([*OVERLAP, *specials]))
        text = "a<|endoftext|><|endoftext|>b<|endoftext|>c <|endoftext|><|endoftext|>"
        cases.append(
            Case(
                "encode: overlapping special tokens",
                "overlap",
                text,
                tuple(overlap),
                s.encode(m, text, overlap),
            )
        )
    return cases


def encode_items(ctx: Context, cases: Sequence[Case]) -> list[dict[str, Any]]:
    return [
        {
            "name": c.name,
            "kind": "encode",
            "text": c.text,
            **ctx.shape.with_specials(ctx.model, c.specials),
        }
        for c in cases
    ]


def encode_tests(ctx: Context, cases: Sequence[Case], run: ChildRun) -> list[GradeTest]:
    out = []
    for c in cases:
        res = run.result(c.name)
        if not res.ok:
            out.append(failed(c.test, failure(res, run, "encode")))
            continue
        theirs = res.value["ids"]
        if theirs == c.ids:
            out.append(passed(c.test, f"{len(c.ids)} ids, equal to the reference's."))
            continue
        out.append(failed(c.test, _encode_difference(ctx, c, theirs)))
    return out


def _encode_difference(ctx: Context, c: Case, theirs: list[int]) -> str:
    s, m = ctx.shape, ctx.model
    vocab = {**m.vocab, **{i: t.encode() for t, i in s.special_ids(m, c.specials).items()}}
    k = first_difference(c.ids, theirs) or 1
    lo = max(0, k - 3)
    lines = [
        f"encode({short(c.text)}) differs from the reference at id {k}:",
        f"  reference: {spell(c.ids[lo : k + 3], vocab)}",
        f"  yours:     {spell(theirs[lo : k + 3], vocab)}",
    ]
    hints = []
    if c.specials and theirs == s.encode(m, c.text, c.specials, split=False):
        hints.append(
            "special tokens are not matched before pre-tokenising: each came out as ordinary "
            "bytes. Cut the text at the special tokens first and give each its own id."
        )
    elif c.specials and theirs == s.encode(m, c.text, c.specials, longest_first=s.name != "cs336"):
        hints.append(
            f"overlapping special tokens: {OVERLAP[1]} came out as two {OVERLAP[0]}. Match "
            "the longest special token first (sort them by length before building the "
            "pattern)."
        )
    else:
        for words in ("gpt2", "gpt4", "basic"):
            if words != s.words and theirs == s.encode(m, c.text, c.specials, words=words):
                hints.append(
                    f"pre-tokenisation: your ids are the reference's with the {words} "
                    "split instead of this shape's."
                )
                break
    if hints:
        lines.append("Likely cause: " + " ".join(hints))
    return "\n".join(lines)


def decode_items(ctx: Context, cases: Sequence[Case]) -> list[dict[str, Any]]:
    lone = _lone_byte_id(ctx.model)
    items = [
        {
            "name": f"decode {c.name}",
            "kind": "decode",
            "ids": c.ids,
            **ctx.shape.with_specials(ctx.model, c.specials),
        }
        for c in cases
    ]
    if lone is not None:
        items.append(
            {
                "name": "decode lone byte",
                "kind": "decode",
                "ids": [lone],
                **ctx.shape.with_specials(ctx.model, ()),
            }
        )
    return items


def decode_tests(ctx: Context, cases: Sequence[Case], run: ChildRun) -> list[GradeTest]:
    name = "decode: round trip"
    problems = []
    for c in cases:
        res = run.result(f"decode {c.name}")
        if not res.ok:
            return [failed(name, failure(res, run, "decode"))]
        got = res.value["text"]
        if got != c.text:
            problems.append(_decode_difference(ctx, c, got))
    lone = run.results.get("decode lone byte")
    if lone is not None:
        if not lone.ok:
            problems.append(
                "decode of a lone byte 0xE2 (part of a character) raised:\n" + lone.error
            )
        elif lone.value["text"] != "\ufffd":
            problems.append(
                f"decode of a lone byte 0xE2 (part of a character) gave {lone.value['text']!r}; "
                "both courses decode with errors='replace', which gives '\\ufffd'."
            )
    if problems:
        return [failed(name, "\n".join(problems[:SHOWN]))]
    return [passed(name, f"decode(encode(text)) == text for {len(cases)} texts.")]


def _decode_difference(ctx: Context, c: Case, got: str) -> str:
    k = next((i for i, (a, b) in enumerate(zip(c.text, got)) if a != b), min(len(c.text), len(got)))
    text = (
        f"decode gave back {len(got)} characters of {len(c.text)} for the {c.name} text; "
        f"first difference at character {k}: expected {c.text[k : k + 12]!r}, "
        f"got {got[k : k + 12]!r}."
    )
    vocab = ctx.model.vocab
    per_token = "".join(vocab.get(i, b"").decode("utf-8", errors="ignore") for i in c.ids)
    if got == per_token or len(got) < len(c.text):
        text += (
            " Likely cause: each token decoded on its own, dropping the bytes of a character "
            "split across tokens; join every token's bytes, then decode once with "
            "errors='replace'."
        )
    return text


def _lone_byte_id(model: Model) -> int | None:
    for i, tok in model.vocab.items():
        if tok == b"\xe2":
            return i
    return None


# ---- encode_iterable ------------------------------------------------------------------------
def iterable_text(ctx: Context, target_chars: int) -> str:
    """A file for encode_iterable: the corpus's lines, stripped and non-empty (so reading it
    line by line splits it as the whole text is split), the special token between every few
    lines, repeated to about `target_chars`."""
    lines = [line.strip() for line in ctx.text.splitlines() if line.strip()]
    lines = lines or ["hello world"]
    tok = ctx.shape.specials[0] if ctx.shape.specials else None
    out: list[str] = []
    size, i = 0, 0
    while size < target_chars:
        line = lines[i % len(lines)]
        if tok and i % 50 == 49:
            line += tok
        out.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(out) + "\n"


def iterable_item(ctx: Context) -> dict[str, Any]:
    return {
        "name": "iterable",
        "kind": "iterable",
        "path": "{dir}/stream.txt",
        **ctx.shape.with_specials(ctx.model, ctx.shape.specials),
    }


def iterable_test(ctx: Context, text: str, run: ChildRun, memory_mb: float) -> GradeTest:
    name = "encode_iterable: streams"
    res = run.result("iterable")
    if not res.ok:
        return failed(name, failure(res, run, "encode_iterable"))
    v = res.value
    ids = ctx.shape.encode(ctx.model, text, ctx.shape.specials)
    digest = hashlib.sha256()
    for i in ids:
        digest.update(int(i).to_bytes(8, "little", signed=True))
    problems = []
    if v["sha256"] != digest.hexdigest():
        problems.append(
            f"its ids differ from encode of the whole file ({v['n']:,} ids, the reference "
            f"{len(ids):,})."
        )
    first = v["first_at"]
    if first is not None and first > len(text) // 2:
        problems.append(
            f"it read {first:,} of the file's {len(text):,} characters before yielding its "
            "first id: it reads everything first instead of streaming line by line."
        )
    bound = memory_mb * 1_000_000
    if v["peak"] > bound:
        problems.append(
            f"the memory traced while streaming peaked at {v['peak'] / 1e6:.2f} MB, over the "
            f"{memory_mb:g} MB bound (CS336's): keep no more than a line (and a bounded "
            "cache) at a time."
        )
    summary = (
        f"{v['n']:,} ids from a {len(text) / 1e6:.1f} MB file; memory peak "
        f"{v['peak'] / 1e6:.2f} MB (bound {memory_mb:g} MB); first id after "
        f"{(first or 0):,} characters."
    )
    if problems:
        return failed(name, "\n".join([*problems, summary]))
    return passed(name, summary)
