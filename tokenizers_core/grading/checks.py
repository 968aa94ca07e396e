"""The checks of a grading, each a named test with a score, compared as the course compares.
The training's are here; the encoder's (encode, decode, streaming) in `use_checks.py`.

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

from dataclasses import dataclass
from typing import Any

from .reference import MISTAKEN_TIES, TIES, train_reference
from .report import GradeTest
from .runner import ChildRun
from .shapes import Model, Shape
from .wording import (
    SHOWN,
    failed,
    failure,
    first_difference,
    ids_text,
    pair_text,
    passed,
    times,
    tokens_text,
)

REPLAY_MERGES = 2000  # a cause is replayed only for a divergence this early


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
        why = failure(res, run, "training")
        short = "training did not finish (see train: merges): " + why.split("\n")[0]
        return [
            failed("train: merges", why),
            failed("train: vocabulary", short),
            failed("train: time", short),
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
    k = first_difference(ours, theirs)
    unit = "merges dict" if ctx.shape.name == "minbpe" else "merges"
    if k is None:
        return passed(name, f"All {len(ours)} merges equal the reference's, in the same order.")
    lines = [_divergence(ctx, their_pairs, theirs, k)]
    lines.append(f"(compared as the course compares: the {unit}, in order)")
    return failed(name, "\n".join(lines))


def _divergence(ctx: Context, their_pairs: list, theirs: list, k: int) -> str:
    """The first divergent merge k (1-based), in /check's words, and its likely cause."""
    ours = ctx.model.pairs
    n_ours, n_theirs = len(ours), len(theirs)
    if k > n_theirs:
        return (
            f"You stopped after {n_theirs} merges; the reference goes on to {n_ours}. "
            f"Merge {k} should be {pair_text(ours[k - 1])} ({times(ctx.model.counts[k - 1])}). "
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
    text = f"Merge {k}: you merged {pair_text(got)}, the reference merges {pair_text(win)}. "
    if their_count is None:
        text += (
            f"{pair_text(got)} does not occur at that point (as the reference splits the corpus); "
            f"{pair_text(win)} occurs {count:,} times."
        )
    elif their_count < count:
        text += (
            f"{pair_text(win)} occurs {count:,} times and {pair_text(got)} only {their_count:,}."
        )
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
            return passed(name, f"The vocab dict equals the reference's ({len(ours)} ids).")
        wrong = [i for i in sorted(set(ours) & set(theirs)) if ours[i] != theirs[i]]
        missing = sorted(set(ours) - set(theirs))
        extra = sorted(set(theirs) - set(ours))
        lines = [f"Your vocab has {len(theirs)} ids, the reference's {len(ours)}."]
        if missing:
            lines.append(f"Missing ids: {ids_text(missing)}.")
        if extra:
            lines.append(f"Extra ids: {ids_text(extra)}.")
        for i in wrong[:SHOWN]:
            lines.append(f"id {i}: yours {theirs[i]!r}, the reference's {ours[i]!r}.")
        return failed(name, "\n".join(lines))
    keys_ok = set(theirs) == set(ours)
    their_values, our_values = set(theirs.values()), set(ours.values())
    if keys_ok and their_values == our_values:
        return passed(
            name,
            f"The vocabulary's ids and byte strings equal the reference's, as sets "
            f"({len(ours)} ids).",
        )
    lines = [f"Your vocabulary has {len(theirs)} ids, the reference's {len(ours)}."]
    if not keys_ok:
        gone, more = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
        lines.append(
            f"Its ids differ as a set (the reference's are 0..{len(ours) - 1}):"
            + (f" missing {ids_text(gone)}" if gone else "")
            + (";" if gone and more else "")
            + (f" extra {ids_text(more)}" if more else "")
            + "."
        )
    lacking = sorted(our_values - their_values, key=lambda b: (len(b), b))
    surplus = sorted(their_values - our_values, key=lambda b: (len(b), b))
    if lacking:
        lines.append(f"Byte strings of the reference you lack: {tokens_text(lacking)}.")
    if surplus:
        lines.append(f"Byte strings you have that it lacks: {tokens_text(surplus)}.")
    specials = [s for s in ctx.shape.specials if s.encode("utf-8") in lacking]
    if specials:
        lines.append(f"The special tokens belong in the vocabulary: {', '.join(specials)}.")
    return failed(name, "\n".join(lines))


def time_test(ctx: Context, seconds: float) -> GradeTest:
    name = "train: time"
    text = f"Training took {seconds:.2f} s; the limit is {ctx.time_limit:g} s."
    return passed(name, text) if seconds <= ctx.time_limit else failed(name, text)
