"""The checks of a grading, each a named test with a score, compared as the course compares.

- ``train: merges`` (3 points): the merges in order (CS336: `merges == reference`; minbpe: the
  `merges` dicts equal). On a difference: the first divergent merge, both candidates' counts at
  that point (the reference replayed to just before it), and the likely cause, named only when
  replaying it reproduces their merges through that point: the tie rule, the pre-tokenisation
  regex, special tokens merged across, byte order (`_causes`).
- ``train: vocabulary`` (1): CS336: its keys and its values as sets; minbpe: the dicts equal.
- ``train: time`` (1): the training call took at most the teacher's limit.
- ``encode: ...`` (1 each): the student's tokenizer, given the REFERENCE's vocabulary and
  merges (so a training bug does not fail these too), encodes held-out texts as the reference
  does: English and code, multilingual, emoji, special tokens, overlapping special tokens.
- ``decode: round trip`` (1): decode(the reference's ids) gives the text back, and a lone
  byte of a multi-byte character decodes to U+FFFD (both courses decode with errors="replace").
- ``encode_iterable: streams`` (1, CS336): a file of ~2 MB streamed through it gives the same
  ids as encode, yields its first id before reading half the file, and the memory traced while
  streaming stays under the bound (1 MB, as CS336's test bounds it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

from .reference import MISTAKEN_TIES, TIES, train_reference
from .report import GradeTest
from .runner import ChildRun, ItemResult
from .shapes import Model, Shape

SCORES = {"train: merges": 3.0}
SHOWN = 6  # differing items a failure lists
REPLAY_MERGES = 2000  # a cause is replayed only for a divergence this early

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


@dataclass
class Context:
    """What the checks share: the shape, the reference and its trainer's inputs."""

    shape: Shape
    cls: str
    text: str
    vocab_size: int
    ties: str
    model: Model
    time_limit: float
    specials: tuple[str, ...] = ()  # the teacher's (minbpe registers them after training)


# ---- training -------------------------------------------------------------------------------
def train_tests(ctx: Context, run: ChildRun) -> list[GradeTest]:
    res = run.result("train")
    if not res.ok:
        why = _failure(res, run, "training")
        short = "training did not finish (see train: merges): " + why.split("\n")[0]
        return [
            _fail("train: merges", why),
            _fail("train: vocabulary", short),
            _fail("train: time", short),
        ]
    value = res.value
    return [
        merges_test(ctx, value),
        vocab_test(ctx, value),
        time_test(ctx, value["seconds"]),
    ]


def _their_pairs(ctx: Context, value: dict) -> tuple[list[Any], list[tuple[bytes, bytes]]]:
    """Their merges as compared (minbpe: (a, b, id) sorted by id; CS336: (bytes, bytes)) and
    as byte strings (for the report)."""
    if ctx.shape.name == "cs336":
        pairs = [(bytes.fromhex(a), bytes.fromhex(b)) for a, b in value["merges"]]
        return list(pairs), pairs
    merges = sorted((tuple(m) for m in value["merges"]), key=lambda m: m[2])
    vocab = {int(i): bytes.fromhex(v) for i, v in value["vocab"].items()}
    tokens: dict[int, bytes] = {b: bytes([b]) for b in range(256)}
    out = []
    for a, b, i in merges:
        left = tokens.get(a, vocab.get(a, b"?"))
        right = tokens.get(b, vocab.get(b, b"?"))
        tokens[i] = left + right
        out.append((left, right))
    return list(merges), out


def merges_test(ctx: Context, value: dict) -> GradeTest:
    name = "train: merges"
    theirs, their_pairs = _their_pairs(ctx, value)
    ours = ctx.model.merges
    k = _first_difference(ours, theirs)
    unit = "merges dict" if ctx.shape.name == "minbpe" else "merges"
    if k is None:
        return _pass(name, f"All {len(ours)} merges equal the reference's, in the same order.")
    lines = [_divergence(ctx, their_pairs, theirs, k)]
    lines.append(f"(compared as the course compares: the {unit}, in order)")
    return _fail(name, "\n".join(lines))


def _divergence(ctx: Context, their_pairs: list, theirs: list, k: int) -> str:
    """The first divergent merge k (1-based), in /check's words, and its likely cause."""
    ours = ctx.model.pairs
    n_ours, n_theirs = len(ours), len(theirs)
    if k > n_theirs:
        return (
            f"You stopped after {n_theirs} merges; the reference goes on to {n_ours}. "
            f"Merge {k} should be {_pair(ours[k - 1])} ({_times(ctx.model.counts[k - 1])}). "
            f"{_size_note(ctx, n_theirs)}"
        )
    if k > n_ours:
        return (
            f"The reference stops after {n_ours} merges; you made {n_theirs}. Merge {k} and "
            f"later are extra. {_size_note(ctx, n_theirs)}"
        )
    got, win = their_pairs[k - 1], ours[k - 1]
    before = train_reference(ctx.shape.table(ctx.text), k - 1, ties=ctx.ties)
    tied = before.tied()
    count = before.counts[tied[0]]
    ids = {tok: i for i, tok in reversed(list(before.vocab.items()))}
    their_ids = (ids.get(got[0]), ids.get(got[1]))
    their_count = before.counts.get(their_ids) if None not in their_ids else None  # type: ignore[arg-type]
    text = f"Merge {k}: you merged {_pair(got)}, the reference merges {_pair(win)}. "
    if their_count is None:
        text += (
            f"{_pair(got)} does not occur at that point (as the reference splits the corpus); "
            f"{_pair(win)} occurs {count:,} times."
        )
    elif their_count < count:
        text += f"{_pair(win)} occurs {count:,} times and {_pair(got)} only {their_count:,}."
    else:
        text += (
            f"Both occur {count:,} times: a tie, and the tie-break decides. The rule: "
            f"{TIES[ctx.ties]}."
        )
        if len(tied) > 2:
            text += f" {len(tied)} pairs tie at {count:,}."
    causes = _causes(ctx, theirs, their_pairs, k, got, win)
    if causes:
        text += "\nLikely cause: " + " ".join(causes)
    return text


def _causes(
    ctx: Context, theirs: list, their_pairs: list, k: int, got: tuple, win: tuple
) -> list[str]:
    """The causes whose replay reproduces their merges through merge k."""
    if got == (win[1], win[0]):
        return [
            "byte order: your merge is the reference's pair with its two parts swapped "
            "(the pair is (left, right), in the order the bytes occur in the text)."
        ]
    if k > REPLAY_MERGES:
        return [f"(not replayed: merge {k} is past the first {REPLAY_MERGES})"]
    n = min(len(theirs), k + 50)
    best: tuple[int, str] = (0, "")
    for rule in (*TIES, *MISTAKEN_TIES):
        if rule == ctx.ties:
            continue
        agree = _agreement(ctx, ctx.shape.words, rule, their_pairs, n)
        if agree >= k and agree > best[0]:
            how = TIES.get(rule) or MISTAKEN_TIES[rule]
            best = (
                agree,
                f"the tie rule: replaying with another rule ({how}) reproduces "
                f"{_reach(agree, len(theirs))}; the reference's is {TIES[ctx.ties]}.",
            )
    if best[0]:
        return [best[1]]
    variants = {
        "gpt2_across": (
            "special tokens merged across: replaying without cutting the text at the special "
            "tokens first reproduces {reach}; cut the text at every special token before "
            "pre-tokenising, so no merge crosses one."
        ),
        "gpt4": (
            "the pre-tokenisation regex: replaying with GPT-4's split pattern (minbpe's "
            "RegexTokenizer) reproduces {reach}; this shape splits with {want}."
        ),
        "gpt2": (
            "the pre-tokenisation regex: replaying with GPT-2's split pattern reproduces "
            "{reach}; this shape splits with {want}."
        ),
        "basic": (
            "the pre-tokenisation regex: replaying with no split at all (the text as one "
            "sequence, as minbpe's BasicTokenizer) reproduces {reach}; this shape splits "
            "with {want}."
        ),
    }
    want = {"gpt2": "GPT-2's pattern", "gpt4": "GPT-4's pattern", "basic": "no split"}[
        ctx.shape.words
    ]
    for words, sentence in variants.items():
        if words == ctx.shape.words:
            continue
        if words == "gpt2_across" and (ctx.shape.words != "gpt2" or not ctx.shape.specials):
            continue
        agree = _agreement(ctx, words, ctx.ties, their_pairs, n)
        if agree >= k:
            return [sentence.format(reach=_reach(agree, len(theirs)), want=want)]
    return []


def _agreement(ctx: Context, words: str, ties: str, their_pairs: list, n: int) -> int:
    """How many of their first n merges a replay with these words and ties gives, in a row."""
    t = train_reference(ctx.shape.table(ctx.text, words), n, ties=ties)
    pairs = [(t.vocab[a], t.vocab[b]) for a, b in t.merges]
    agree = 0
    for ours, theirs in zip(pairs, their_pairs):
        if ours != theirs:
            break
        agree += 1
    return agree


def _reach(agree: int, total: int) -> str:
    if agree >= total:
        return f"all {total} of your merges"
    return "your first merge" if agree == 1 else f"your first {agree} merges"


def _size_note(ctx: Context, made: int) -> str:
    s = ctx.shape
    if s.name == "minbpe":
        return (
            f"vocab_size {ctx.vocab_size} means 256 byte tokens + {ctx.vocab_size - 256} "
            f"merges (minbpe: num_merges = vocab_size - 256); you made {made}."
        )
    n = len(s.specials)
    return (
        f"vocab_size {ctx.vocab_size} counts the {n} special token{'' if n == 1 else 's'}, the "
        f"256 bytes and the merges: {n} + 256 + {s.n_merges(ctx.vocab_size)} = "
        f"{ctx.vocab_size}; you made {made} merges."
    )


def vocab_test(ctx: Context, value: dict) -> GradeTest:
    name = "train: vocabulary"
    theirs = {int(i): bytes.fromhex(v) for i, v in value["vocab"].items()}
    ours = ctx.model.vocab
    if ctx.shape.name == "minbpe":
        if theirs == ours:
            return _pass(name, f"The vocab dict equals the reference's ({len(ours)} ids).")
        wrong = [i for i in sorted(set(ours) & set(theirs)) if ours[i] != theirs[i]]
        missing = sorted(set(ours) - set(theirs))
        extra = sorted(set(theirs) - set(ours))
        lines = [f"Your vocab has {len(theirs)} ids, the reference's {len(ours)}."]
        if missing:
            lines.append(f"Missing ids: {_ids(missing)}.")
        if extra:
            lines.append(f"Extra ids: {_ids(extra)}.")
        for i in wrong[:SHOWN]:
            lines.append(f"id {i}: yours {theirs[i]!r}, the reference's {ours[i]!r}.")
        return _fail(name, "\n".join(lines))
    keys_ok = set(theirs) == set(ours)
    their_values, our_values = set(theirs.values()), set(ours.values())
    if keys_ok and their_values == our_values:
        return _pass(
            name,
            f"The vocabulary's ids and byte strings equal the reference's, as sets "
            f"({len(ours)} ids).",
        )
    lines = [f"Your vocabulary has {len(theirs)} ids, the reference's {len(ours)}."]
    if not keys_ok:
        gone, more = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
        lines.append(
            f"Its ids differ as a set (the reference's are 0..{len(ours) - 1}):"
            + (f" missing {_ids(gone)}" if gone else "")
            + (";" if gone and more else "")
            + (f" extra {_ids(more)}" if more else "")
            + "."
        )
    lacking = sorted(our_values - their_values, key=lambda b: (len(b), b))
    surplus = sorted(their_values - our_values, key=lambda b: (len(b), b))
    if lacking:
        lines.append(f"Byte strings of the reference you lack: {_tokens(lacking)}.")
    if surplus:
        lines.append(f"Byte strings you have that it lacks: {_tokens(surplus)}.")
    specials = [s for s in ctx.shape.specials if s.encode("utf-8") in lacking]
    if specials:
        lines.append(f"The special tokens belong in the vocabulary: {', '.join(specials)}.")
    return _fail(name, "\n".join(lines))


def time_test(ctx: Context, seconds: float) -> GradeTest:
    name = "train: time"
    text = f"Training took {seconds:.2f} s; the limit is {ctx.time_limit:g} s."
    return _pass(name, text) if seconds <= ctx.time_limit else _fail(name, text)


# ---- encoding -------------------------------------------------------------------------------
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
            out.append(_fail(c.test, _failure(res, run, "encode")))
            continue
        theirs = res.value["ids"]
        if theirs == c.ids:
            out.append(_pass(c.test, f"{len(c.ids)} ids, equal to the reference's."))
            continue
        out.append(_fail(c.test, _encode_difference(ctx, c, theirs)))
    return out


def _encode_difference(ctx: Context, c: Case, theirs: list[int]) -> str:
    s, m = ctx.shape, ctx.model
    vocab = {**m.vocab, **{i: t.encode() for t, i in s.special_ids(m, c.specials).items()}}
    k = _first_difference(c.ids, theirs) or 1
    lo = max(0, k - 3)
    lines = [
        f"encode({_short(c.text)}) differs from the reference at id {k}:",
        f"  reference: {_spell(c.ids[lo : k + 3], vocab)}",
        f"  yours:     {_spell(theirs[lo : k + 3], vocab)}",
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
            return [_fail(name, _failure(res, run, "decode"))]
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
        return [_fail(name, "\n".join(problems[:SHOWN]))]
    return [_pass(name, f"decode(encode(text)) == text for {len(cases)} texts.")]


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
        return _fail(name, _failure(res, run, "encode_iterable"))
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
        return _fail(name, "\n".join([*problems, summary]))
    return _pass(name, summary)


# ---- helpers --------------------------------------------------------------------------------
def _failure(res: ItemResult, run: ChildRun, what: str) -> str:
    """Why an item failed: the student's exception with its traceback, or the process's fate;
    and what the student's code printed."""
    text = f"{what} raised {res.error}" if res.traceback else f"{what}: {res.error}"
    if res.traceback:
        text += "\n" + res.traceback.rstrip()
    if run.stdout.strip():
        text += "\nstdout:\n" + run.stdout.strip()[-1500:]
    return text


def _first_difference(ours: Sequence, theirs: Sequence) -> int | None:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return i + 1
    return None if len(ours) == len(theirs) else min(len(ours), len(theirs)) + 1


def _pair(pair: tuple[bytes, bytes]) -> str:
    return f"{pair[0]!r} + {pair[1]!r}"


def _times(n: int) -> str:
    return "1 occurrence" if n == 1 else f"{n:,} occurrences"


def _ids(ids: list[int]) -> str:
    shown = ", ".join(map(str, ids[:SHOWN]))
    return shown + (f" (and {len(ids) - SHOWN} more)" if len(ids) > SHOWN else "")


def _tokens(tokens: list[bytes]) -> str:
    shown = ", ".join(repr(t) for t in tokens[:SHOWN])
    return shown + (f" (and {len(tokens) - SHOWN} more)" if len(tokens) > SHOWN else "")


def _spell(ids: list[int], vocab: dict[int, bytes]) -> str:
    return " ".join(f"{i}:{vocab.get(i, b'?')!r}" for i in ids)


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _pass(name: str, output: str) -> GradeTest:
    m = SCORES.get(name, 1.0)
    return GradeTest(name, m, m, "passed", output)


def _fail(name: str, output: str) -> GradeTest:
    return GradeTest(name, 0.0, SCORES.get(name, 1.0), "failed", output)
