"""Diff two tokenizers on the same texts: which texts they tokenise identically, and for each
text they do not, the first divergence and the pipeline stage it comes from.

This is the question llama.cpp users ask when a converted tokenizer (a GGUF, a ranks file
with a guessed pattern) is "almost" the original: on which text does it first go wrong, and
why? The answer follows the pipeline (`pipeline.py`), stage by stage, as `Tokenizer.trace`
records it:

    added tokens    the spans of the text matched as added tokens (`<|endoftext|>`, `[MASK]`)
    normaliser      the normalised text              (the last "normalize" step's output)
    pre-tokenizer   the pieces, by their spans       (the last "pre_tokenize" step's pieces)
    model           each piece's tokens              (the "model" step's tokens)
    post-processor  the tokens it adds (BOS, EOS)    (the "post_process" step)

The stage reported is the first stage, in pipeline order, whose outputs differ at or before
the first token where the two models' outputs differ, or inside it (Qwen3's NFC makes "e" and a
combining accent one character, so "café" ends in the token "fé" where llama.cpp, with no
normaliser, gives "fe" and the accent: the tokens part at "f", the normalised texts one
character later, inside both tokens; a later difference may only be its echo,
and an earlier one that leaves the tokens alone does not matter). When the models' tokens are
the same, the post-processor did it; when they are the same strings numbered differently, the
model did. A tokenizer whose trace lacks a stage (no normaliser: a tiktoken encoding) passes
the text through it unchanged, so the two still compare.

Speed: every text is encoded once by each tokenizer (`encode_batch`); only the texts whose
encodings differ are traced (not even those whose tokens are only numbered differently, or
differ only by the special tokens a post-processor added), and a text repeated in the input is
diagnosed once.

>>> import tokenizers_core as tc
>>> report = diff(tc.load("cl100k_base"), tc.load("o200k_base"), ["Hello world", "x" * 3])
>>> report.identical, len(report.differences)
(0, 2)
>>> report.differences[0].differs
('ids',)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .diff_stress import stress_texts
from .encoding import Encoding
from .errors import InvalidInput
from .steps import describe

__all__ = [
    "STAGES",
    "Divergence",
    "DiffReport",
    "diff",
    "corpus_texts",
    "stress_texts",
    "first_difference",
]

STAGES = ("added tokens", "normaliser", "pre-tokenizer split", "model", "post-processor")
WINDOW = 3  # tokens drawn either side of a divergence
SNIPPET = 12  # characters of a normalised text shown either side of a divergence
META = "\u2581"  # sentencepiece's ▁, which stands for a space


@dataclass(frozen=True)
class Divergence:
    """Where two tokenizers first part on one text.

    `differs` names what differs between the two encodings ("ids", "tokens", "offsets");
    `stage` the first pipeline stage whose outputs differ (one of STAGES); `position` the
    character of the text where that stage's outputs first differ; `evidence` what the stage
    gave on each side (JSON-safe); `token_a`, `token_b` the index of the token at `position`
    in each encoding, and `window_a`, `window_b` the tokens around it as
    `(index, token, id, start, end, special)`.
    """

    index: int
    text: str
    differs: tuple[str, ...]
    stage: str
    position: int
    evidence: dict[str, Any]
    token_a: int
    token_b: int
    window_a: tuple[tuple[int, str, int, int, int, bool], ...]
    window_b: tuple[tuple[int, str, int, int, int, bool], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text": self.text,
            "differs": list(self.differs),
            "stage": self.stage,
            "position": self.position,
            "evidence": self.evidence,
            "token_a": self.token_a,
            "token_b": self.token_b,
            "window_a": [list(t) for t in self.window_a],
            "window_b": [list(t) for t in self.window_b],
        }


@dataclass(frozen=True)
class DiffReport:
    """The texts two tokenizers `a` and `b` were run on, how many came out identical, and one
    `Divergence` per other text, most informative first (see `_informative`)."""

    a: str
    b: str
    texts: int
    identical: int
    differences: tuple[Divergence, ...]
    by_stage: dict[str, int] = field(default_factory=dict)

    @property
    def share_identical(self) -> float:
        """The share of texts tokenised identically (1.0 for no texts)."""
        return self.identical / self.texts if self.texts else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "texts": self.texts,
            "identical": self.identical,
            "share_identical": self.share_identical,
            "by_stage": dict(self.by_stage),
            "differences": [d.to_dict() for d in self.differences],
        }


def corpus_texts(text: str) -> list[str]:
    """A corpus as texts: one per line, empty lines left out, a "\\r" kept (so CRLF is tested).

    >>> corpus_texts("one\\r\\n\\ntwo\\n")
    ['one\\r', 'two']
    """
    return [line for line in text.split("\n") if line]


def diff(
    a: Any, b: Any, texts: Iterable[str], *, names: tuple[str, str] | None = None
) -> DiffReport:
    """Run `a` and `b` (Tokenizers) on every text and report where they differ.

    Each tokenizer encodes as its `encode` does by default (its post-processor applied; a
    tokenizer.json matches its added tokens), but for a tiktoken encoding, which reads
    special-token strings as ordinary text (its `encode_ordinary`: its `encode` would refuse
    the text). Raises ValueError for a text that is not a str.
    """
    texts = list(texts)
    for t in texts:
        if not isinstance(t, str):
            raise InvalidInput(f"every text to diff must be a str, not {type(t).__name__}")
    encs_a = a.encode_batch(texts, **_as_text(a))
    encs_b = b.encode_batch(texts, **_as_text(b))
    seen: dict[str, Divergence] = {}
    out: list[Divergence] = []
    for i, (text, x, y) in enumerate(zip(texts, encs_a, encs_b)):
        if _same(x, y):
            continue
        if text not in seen:
            seen[text] = (
                _renumbered(a, b, text, x, y, i)
                or _added_only(text, x, y, i)
                or diagnose(a, b, text, index=i)
            )
        out.append(_at(seen[text], i))
    out.sort(key=_informative)
    by_stage = {s: n for s in STAGES if (n := sum(d.stage == s for d in out))}
    return DiffReport(
        a=names[0] if names else a.name,
        b=names[1] if names else b.name,
        texts=len(texts),
        identical=len(texts) - len(out),
        differences=tuple(out),
        by_stage=by_stage,
    )


def _informative(d: Divergence) -> tuple[bool, int, int, int]:
    """Most informative first: texts tokenised differently before texts only numbered
    differently, then by stage in pipeline order, then the shorter text."""
    return d.differs == ("ids",), STAGES.index(d.stage), len(d.text), d.index


def _same(x: Encoding, y: Encoding) -> bool:
    return x.ids == y.ids and x.tokens == y.tokens and x.offsets == y.offsets


def _at(d: Divergence, index: int) -> Divergence:
    """`d` for the same text met again at `index`."""
    if d.index == index:
        return d
    return Divergence(
        index,
        d.text,
        d.differs,
        d.stage,
        d.position,
        d.evidence,
        d.token_a,
        d.token_b,
        d.window_a,
        d.window_b,
    )


def first_difference(x: Encoding, y: Encoding) -> int | None:
    """The index of the first token where two encodings part: first by token and offsets,
    else (the same tokens, numbered differently) by id; None when they are identical.

    Tokens are compared as strings, so two vocabularies written in the same alphabet compare
    even when their ids differ.
    """
    n = min(len(x), len(y))
    for i in range(n):
        if x.tokens[i] != y.tokens[i] or x.offsets[i] != y.offsets[i]:
            return i
    if len(x) != len(y):
        return n
    return next((i for i in range(n) if x.ids[i] != y.ids[i]), None)


def _as_text(tok: Any) -> dict[str, Any]:
    """The keywords that make a tiktoken encoding read special-token strings as ordinary text
    (`disallowed_special=()`); none for the other kinds."""
    return {"disallowed_special": ()} if hasattr(tok, "strict_special") else {}


def diagnose(a: Any, b: Any, text: str, index: int = 0) -> Divergence:
    """The first divergence of `a` and `b` on `text` (which they must tokenise differently),
    found by tracing both pipelines and comparing their stages in order."""
    x, trace_a = a.trace(text, **_as_text(a))
    y, trace_b = b.trace(text, **_as_text(b))
    sa, sb = _stages(a, text, trace_a), _stages(b, text, trace_b)
    differs = _differs(x, y)
    stage, found = "model", _model(text, sa, sb)
    if found is None:  # the same model tokens: the post-processor's work
        stage, found = "post-processor", _post_processor(text, x, y)
    elif differs != ("ids",):  # (renumbered tokens are the model's alone)
        earlier = ((name, check(text, sa, sb)) for name, check in _EARLIER)
        reach = max(found[0] + 1, _first_tokens_end(sa, sb))
        stage, found = next(
            ((name, f) for name, f in earlier if f is not None and f[0] < reach), (stage, found)
        )
    position, evidence = found
    if stage == "post-processor":
        first = first_difference(x, y) or 0
        ia = ib = first
    else:
        ia, ib = _token_at(x, position), _token_at(y, position)
    return Divergence(
        index=index,
        text=text,
        differs=differs,
        stage=stage,
        position=position,
        evidence=evidence,
        token_a=ia,
        token_b=ib,
        window_a=_window(x, ia),
        window_b=_window(y, ib),
    )


def _renumbered(
    a: Any, b: Any, text: str, x: Encoding, y: Encoding, index: int
) -> Divergence | None:
    """The divergence of encodings with the same tokens numbered differently (two
    vocabularies), found without tracing: the model's; None when the tokens differ or the
    first renumbered token is one a post-processor added."""
    if x.tokens != y.tokens or x.offsets != y.offsets:
        return None
    k = first_difference(x, y)
    if k is None or x.special_tokens_mask[k] or y.special_tokens_mask[k]:
        return None
    evidence = {
        "token": x.tokens[k],
        "id_a": x.ids[k],
        "id_b": y.ids[k],
        "a_name": describe(a.model),
        "b_name": describe(b.model),
    }
    return Divergence(
        index=index,
        text=text,
        differs=("ids",),
        stage="model",
        position=x.offsets[k][0],
        evidence=evidence,
        token_a=k,
        token_b=k,
        window_a=_window(x, k),
        window_b=_window(y, k),
    )


def _added_only(text: str, x: Encoding, y: Encoding, index: int) -> Divergence | None:
    """The divergence of encodings that are the same but for the special tokens their
    post-processors added (a BOS), found without tracing; None otherwise."""

    def own(enc: Encoding) -> list[tuple[str, int, tuple[int, int]]]:
        return [
            (t, i, o)
            for t, i, o, m in zip(enc.tokens, enc.ids, enc.offsets, enc.special_tokens_mask)
            if not m
        ]

    if own(x) != own(y):
        return None
    position, evidence = _post_processor(text, x, y)
    k = first_difference(x, y) or 0
    return Divergence(
        index=index,
        text=text,
        differs=_differs(x, y),
        stage="post-processor",
        position=position,
        evidence=evidence,
        token_a=k,
        token_b=k,
        window_a=_window(x, k),
        window_b=_window(y, k),
    )


def _differs(x: Encoding, y: Encoding) -> tuple[str, ...]:
    """Which of ids, tokens and offsets differ between two encodings."""
    return tuple(
        name
        for name, u, v in (
            ("ids", x.ids, y.ids),
            ("tokens", x.tokens, y.tokens),
            ("offsets", x.offsets, y.offsets),
        )
        if u != v
    )


@dataclass(frozen=True)
class _Stages:
    """One pipeline's stage outputs on one text (a missing stage passes the text through)."""

    normalized: str
    alignments: tuple[tuple[int, int], ...]
    normalizer: str
    pieces: tuple[tuple[str, int, int], ...]
    pre_tokenizer: str
    tokens: tuple[tuple[str, int, int, int, int], ...]
    model: str
    added: tuple[tuple[int, int], ...]


def _stages(tok: Any, text: str, trace: Sequence[Any]) -> _Stages:
    last = {step.kind: step for step in trace}
    norm, pre, model = last.get("normalize"), last.get("pre_tokenize"), last.get("model")
    names = {
        kind: " → ".join(_name(s) for s in trace if s.kind == kind)
        for kind in ("normalize", "pre_tokenize")
    }
    identity = tuple((i, i + 1) for i in range(len(text)))
    tokens = tuple(model.tokens) if model else ()
    contents = _added_contents(tok)
    added = tuple(
        (s, e)
        for value, _, s, e, _ in tokens
        if e > s and text[s:e] == value and (value in contents or tok.is_special(value))
    )
    return _Stages(
        normalized=norm.output if norm else text,
        alignments=tuple(norm.alignments) if norm else identity,
        normalizer=names["normalize"] or "none",
        pieces=tuple(pre.pieces) if pre else ((text, 0, len(text)),),
        pre_tokenizer=names["pre_tokenize"] or "none",
        tokens=tokens,
        model=model.model if model else "none",
        added=added,
    )


def _name(step: Any) -> str:
    return getattr(step, "normalizer", "") or getattr(step, "pre_tokenizer", "")


def _added_contents(tok: Any) -> frozenset[str]:
    """`tok`'s added tokens (matched in the text before normalising)."""
    return frozenset(t.content for t in getattr(tok, "added_tokens", ()))


def _added(text: str, a: _Stages, b: _Stages) -> tuple[int, dict] | None:
    if a.added == b.added:
        return None
    k = _first_unequal(a.added, b.added)
    spans = [s for s in (_get(a.added, k), _get(b.added, k)) if s]
    position = min(s for s, _ in spans)
    return position, {
        "a": _span_text(text, _get(a.added, k)),
        "b": _span_text(text, _get(b.added, k)),
    }


def _normaliser(text: str, a: _Stages, b: _Stages) -> tuple[int, dict] | None:
    """Where the normalised texts first differ. A space and sentencepiece's `▁` count as the
    same: where a pipeline swaps one for the other (its normaliser, as sentencepiece does, or
    its Metaspace pre-tokenizer, as a tokenizer.json does) is no difference in the tokens."""
    norm_a, norm_b = (n.normalized.replace(META, " ") for n in (a, b))
    if norm_a == norm_b:
        return None
    k = _first_unequal(norm_a, norm_b)
    position = a.alignments[k][0] if k < len(a.alignments) else len(text)
    lo = max(0, k - SNIPPET)
    return position, {
        "a": a.normalized[lo : k + SNIPPET],
        "b": b.normalized[lo : k + SNIPPET],
        "a_name": a.normalizer,
        "b_name": b.normalizer,
    }


def _pre_tokenizer(text: str, a: _Stages, b: _Stages) -> tuple[int, dict] | None:
    """Where the pre-tokenizers' pieces differ in a way the tokens show: a piece boundary of
    one side that falls inside a token of the other (a coarser split whose tokens still
    respect the finer one's boundaries, as a sentencepiece model's one piece against
    Metaspace's words, is no difference); or the same split, the pieces written differently
    (ByteLevel's `Ġ` on one side only)."""
    spans_a = [(s, e) for _, s, e in a.pieces]
    spans_b = [(s, e) for _, s, e in b.pieces]
    if spans_a == spans_b:
        written_a, written_b = [p for p, _, _ in a.pieces], [p for p, _, _ in b.pieces]
        if written_a == written_b:
            return None
        k = _first_unequal(written_a, written_b)
        pa, pb = a.pieces[k], b.pieces[k]
        return pa[1], {
            "a": _piece(text, pa),
            "b": _piece(text, pb),
            "same_split": True,
            "a_name": a.pre_tokenizer,
            "b_name": b.pre_tokenizer,
        }
    crossed = [
        p for p in (_crossing(spans_a, b.tokens), _crossing(spans_b, a.tokens)) if p is not None
    ]
    if not crossed:
        return None
    cut = min(crossed)
    before_a, before_b = _piece_before(a.pieces, cut), _piece_before(b.pieces, cut)
    position = min(p[1] for p in (before_a, before_b) if p)
    return position, {
        "a": _piece(text, before_a),
        "b": _piece(text, before_b),
        "same_split": False,
        "a_name": a.pre_tokenizer,
        "b_name": b.pre_tokenizer,
    }


def _crossing(
    spans: Sequence[tuple[int, int]], tokens: Sequence[tuple[str, int, int, int, int]]
) -> int | None:
    """The first piece boundary in `spans` that falls strictly inside one of `tokens`."""
    inside = {p for _, _, s, e, _ in tokens for p in range(s + 1, e)}
    return min((p for span in spans for p in span if p in inside), default=None)


def _piece_before(pieces: Sequence[tuple[str, int, int]], cut: int) -> tuple[str, int, int] | None:
    """The piece that holds the character before `cut` (ends at it, or runs across it)."""
    return next((p for p in pieces if p[1] < cut <= p[2]), None)


def _model(text: str, a: _Stages, b: _Stages) -> tuple[int, dict] | None:
    ta = [(v, s, e) for v, _, s, e, _ in a.tokens]
    tb = [(v, s, e) for v, _, s, e, _ in b.tokens]
    if ta == tb:
        ids_a, ids_b = [t[1] for t in a.tokens], [t[1] for t in b.tokens]
        if ids_a == ids_b:
            return None
        k = _first_unequal(ids_a, ids_b)  # the same tokens, numbered differently
        value, id_a, s, _, _ = a.tokens[k]
        return s, {
            "token": value,
            "id_a": id_a,
            "id_b": ids_b[k],
            "a_name": a.model,
            "b_name": b.model,
        }
    k = _first_unequal(ta, tb)
    position = min(t[1] for t in (_get(ta, k), _get(tb, k)) if t)
    start, end = _word_at(a.pieces, position, text)
    word_a = [(v, s, e) for v, s, e in ta if start <= s < end or s == e == start]
    word_b = [(v, s, e) for v, s, e in tb if start <= s < end or s == e == start]
    evidence = {
        "word": text[start:end],
        "start": start,
        "end": end,
        "a": [v for v, _, _ in word_a],
        "b": [v for v, _, _ in word_b],
        "a_name": a.model,
        "b_name": b.model,
    }
    if evidence["a"] == evidence["b"]:  # the same tokens, over different characters
        evidence["offsets_a"] = [[s, e] for _, s, e in word_a]
        evidence["offsets_b"] = [[s, e] for _, s, e in word_b]
    return position, evidence


def _first_tokens_end(a: _Stages, b: _Stages) -> int:
    """Where the first two differing model tokens both end (the shorter's end): a stage that
    differs before it differs inside both."""
    ta = [(v, s, e) for v, _, s, e, _ in a.tokens]
    tb = [(v, s, e) for v, _, s, e, _ in b.tokens]
    k = _first_unequal(ta, tb)
    ends = [t[2] for t in (_get(ta, k), _get(tb, k)) if t]
    return min(ends) if ends else 0


def _post_processor(text: str, x: Encoding, y: Encoding) -> tuple[int, dict]:
    """The tokens each post-processor added, as "BOS ..." / "... EOS" sides."""
    first = first_difference(x, y) or 0
    position = x.offsets[first][0] if first < len(x) else len(text)

    def added(enc: Encoding) -> dict[str, list[str]]:
        n = len(enc)
        lead = next((i for i in range(n) if not enc.special_tokens_mask[i]), n)
        trail = next((n - i for i in range(n) if not enc.special_tokens_mask[n - 1 - i]), 0)
        return {"before": enc.tokens[:lead], "after": enc.tokens[lead + max(0, n - lead - trail) :]}

    return position, {"a": added(x), "b": added(y)}


_EARLIER = (
    ("added tokens", _added),
    ("normaliser", _normaliser),
    ("pre-tokenizer split", _pre_tokenizer),
)


def _first_unequal(u: Sequence[Any], v: Sequence[Any]) -> int:
    """The first index where two unequal sequences differ (a prefix differs at its end)."""
    return next((i for i, (p, q) in enumerate(zip(u, v)) if p != q), min(len(u), len(v)))


def _get(seq: Sequence[Any], k: int) -> Any:
    return seq[k] if k < len(seq) else None


def _span_text(text: str, span: tuple[int, int] | None) -> str | None:
    return text[span[0] : span[1]] if span else None


def _piece(text: str, piece: tuple[str, int, int] | None) -> dict[str, Any] | None:
    """A pre-tokenizer piece: its text in the input, as the pre-tokenizer wrote it, its span."""
    if piece is None:
        return None
    value, s, e = piece
    return {"text": text[s:e], "piece": value, "start": s, "end": e}


def _word_at(pieces: Sequence[tuple[str, int, int]], position: int, text: str) -> tuple[int, int]:
    """The span of the pre-tokenizer piece that holds `position` (the whole text if none)."""
    for _, s, e in pieces:
        if s <= position < e:
            return s, e
    return 0, len(text)


def _token_at(enc: Encoding, position: int) -> int:
    """The first token that ends after `position` (the last token if none)."""
    for i, (s, e) in enumerate(enc.offsets):
        if e > position:
            return i
    return max(0, len(enc) - 1)


def _window(enc: Encoding, i: int) -> tuple[tuple[int, str, int, int, int, bool], ...]:
    lo, hi = max(0, i - WINDOW), min(len(enc), i + WINDOW + 1)
    return tuple(
        (
            k,
            enc.tokens[k],
            enc.ids[k],
            enc.offsets[k][0],
            enc.offsets[k][1],
            bool(enc.special_tokens_mask[k]),
        )
        for k in range(lo, hi)
    )
