"""The tokens part of `check`: a student's tokens for a text against the reference's.

The reference encodes the text; its tokens are grouped by word (the pre-tokeniser's words, or
for sentencepiece models the runs that start with ▁). Their tokens are read off word by word,
as many as spell the same characters (markers such as `</w>` and `##` do not count; an unknown
token stands for the rest of a WordPiece word, else one character). The first word whose tokens
differ is the divergence, with the reference's own steps for that word: the merges by rank
(BPE), the shrinking windows (WordPiece), or the lattice (Unigram).
"""

from __future__ import annotations

from typing import Any

from ..decoders import SentencePieceDecoder
from ..implementations.training import train
from ..models.bpe.model import token_text
from ..models.bpe.session import steps_function
from ..models.unigram.model import NORMAL, UNKNOWN, Unigram
from ..normalizers.sentencepiece import SentencePieceNormalizer
from ..pipeline import Tokenizer
from . import replay
from .report import MISTAKES, CheckReport, Mistake


def _surface(algorithm: str):
    if algorithm == "bpe":
        return lambda t: t.replace("</w>", "")
    if algorithm == "wordpiece":
        return lambda t: t[2:] if t.startswith("##") else t
    return lambda t: t


def _reference(
    algorithm: str,
    lines: list[str],
    vocab_size: int,
    options: dict[str, Any],
    pieces: list[tuple[str, float]] | None,
):
    if algorithm == "unigram" and pieces:
        if not any(p == "<unk>" for p, _s in pieces):
            pieces = [("<unk>", 0.0)] + list(pieces)
        model = Unigram(pieces, types=[UNKNOWN if p == "<unk>" else NORMAL for p, _s in pieces])
        return Tokenizer(
            model,
            normalizer=SentencePieceNormalizer(None),
            decoder=SentencePieceDecoder(),
            name="your pieces",
            algorithm="unigram",
        )
    return train(algorithm, lines, vocab_size, **options)


def _unk(tok) -> str | None:
    model = tok.model
    if getattr(model, "unk_id", None) is not None:
        return model.id_to_token(model.unk_id)
    return getattr(model, "unk_token", None)


def _our_words(tok, enc, algorithm: str, text: str) -> tuple[list[list[str]], list[str]]:
    """Our tokens grouped by word (unknown tokens spelled as the unknown token), and each word
    as the model sees it (the pre-tokenised piece; for sentencepiece models the ▁ run)."""
    unk = _unk(tok)
    unk_id = tok.model.token_to_id(unk) if unk else None
    tokens = [unk if unk and i == unk_id else t for t, i in zip(enc.tokens, enc.ids)]
    groups: list[list[str]] = []
    pieces: list[str] = []
    if algorithm in ("unigram", "sentencepiece_bpe"):
        for t, raw in zip(tokens, enc.tokens):  # an unknown token's text is its surface
            if not groups or t.startswith("▁"):
                groups.append([])
                pieces.append("")
            groups[-1].append(t)
            pieces[-1] += raw
        return groups, pieces
    words = [p.normalized for p in tok.pre_tokenize(text)]
    last = object()
    for t, w in zip(tokens, enc.word_ids):
        if w != last:
            groups.append([])
            pieces.append(words[w] if w is not None and w < len(words) else t)
            last = w
        groups[-1].append(t)
    return groups, pieces


def check_tokens(
    algorithm: str,
    lines: list[str],
    theirs: list[str],
    text: str,
    vocab_size: int,
    options: dict[str, Any],
    pieces: list[tuple[str, float]] | None,
) -> CheckReport:
    tok = _reference(algorithm, lines, vocab_size, options, pieces)
    enc = tok.encode(text, add_special_tokens=False)
    surface = _surface(algorithm)
    unk = _unk(tok)
    words, our_pieces = _our_words(tok, enc, algorithm, text)  # each word as our tokens spell it
    lengths = [_length(g, enc, surface, unk, start) for g, start in _starts(words)]
    common: dict[str, Any]  # CheckReport's fields shared by every outcome
    common = dict(
        algorithm=algorithm,
        kind="tokens",
        unit="word",
        compared=len(theirs),
        reference=len(enc.tokens),
    )
    p = 0
    for n, (ours, length) in enumerate(zip(words, lengths), 1):
        got, spelled = [], 0
        while p < len(theirs) and spelled < length:
            t = theirs[p]
            got.append(t)
            p += 1
            if t == unk:
                spelled += length - spelled if algorithm == "wordpiece" else 1
            else:
                spelled += len(surface(t))
        while p < len(theirs) and theirs[p] != unk and not surface(theirs[p]):
            got.append(theirs[p])  # a marker alone, e.g. a lone </w>
            p += 1
        if got != ours:
            return _divergence(
                tok, algorithm, n, ours, got, our_pieces, words, theirs, text, common
            )
    if p < len(theirs):
        return CheckReport(
            first_divergence=len(words) + 1,
            got=theirs[p:],
            explanation=(f"Your tokens go on after the text ends: {' '.join(theirs[p : p + 8])}"),
            **common,
        )
    return CheckReport(
        first_divergence=None,
        explanation=(
            f"All {len(words)} words are tokenised exactly as the reference does "
            f"({len(enc.tokens)} tokens)."
        ),
        **common,
    )


def _starts(words: list[list[str]]):
    i = 0
    for g in words:
        yield g, i
        i += len(g)


def _length(group: list[str], enc, surface, unk, start: int) -> int:
    n = 0
    for j, t in enumerate(group):
        if t == unk:
            a, b = enc.offsets[start + j]
            n += max(1, b - a)
        else:
            n += len(surface(t))
    return n


def _divergence(tok, algorithm, n, ours, got, pieces, words, theirs, text, common) -> CheckReport:
    word = pieces[n - 1]
    steps, why = _steps(tok, algorithm, word)
    sentence = (
        f"Word {n} ({_shown(word, algorithm)}) differs: the reference gives "
        f"{' '.join(ours)}, you give {' '.join(got) or 'nothing'}. {why}"
    )
    mistakes = _mistakes(tok, algorithm, words, pieces, theirs, text)
    return CheckReport(
        first_divergence=n,
        explanation=sentence,
        expected=ours,
        got=got,
        state={"word": word, "steps": steps},
        mistakes=mistakes,
        **common,
    )


def _shown(word: str, algorithm: str) -> str:
    if algorithm == "byte_bpe":
        return repr(token_text(word, True))
    return repr(word)


def _steps(tok, algorithm: str, word: str) -> tuple[list[dict[str, Any]], str]:
    model = tok.model
    if algorithm == "wordpiece":
        probes = [
            {"candidate": p.candidate, "status": p.status, "start": p.start, "end": p.end}
            for p in model.probes(word)
        ]
        hits = [p["candidate"] for p in probes if p["status"] == "hit"]
        return probes, (
            "At each start the window shrinks from the right until it is in the "
            f"vocabulary; the reference's windows hit {', '.join(hits) or 'nothing'} "
            f"after {len(probes)} probes."
        )
    if algorithm == "unigram":
        steps = [
            {
                "position": s.position,
                "best": s.best,
                "back": s.back,
                "piece": s.candidates[s.winner][1],
                "unknown": s.unknown,
            }
            for s in model.viterbi_steps(word)
            if s.kind == "viterbi"
        ]
        last = steps[-1] if steps else None
        return steps, (
            f"The best path scores {last['best']:.4f} (the sum of its pieces' "
            "log-probabilities); the lattice below shows best[i] and the back-pointer "
            "of every position."
            if last
            else ""
        )
    steps = [
        {
            "parts": list(s.parts),
            "merged": s.merged,
            "merge": s.rank + 1,
            "candidates": [[i, r + 1] for i, r in s.candidates],
        }
        for s in steps_function(tok)(word)
        if getattr(s, "action", "merge") == "merge"
    ]
    order = ", ".join(f"{s['merged']} (merge {s['merge']})" for s in steps[:6])
    return steps, (
        "The reference merges the known pair learned earliest (the lowest merge "
        f"number) first, again and again: {order or 'no merge applies'}."
    )


def _mistakes(
    tok, algorithm: str, words: list[list[str]], pieces: list[str], theirs: list[str], text: str
) -> tuple[Mistake, ...]:
    """Replays of the encoding mistakes over the whole text: named if one gives their tokens."""
    model = tok.model
    if algorithm in ("bpe", "byte_bpe"):
        by_count: list[str] = []
        for piece in pieces:
            by_count += replay.encode_by_count(model.initial_parts(piece), model.rank)
        if by_count == theirs:
            return (
                Mistake(
                    "count_order_encoding",
                    MISTAKES["count_order_encoding"],
                    "Encoding each word by merging the known pair that occurs most often "
                    "in it, rather than the merge learned first, gives exactly your "
                    "tokens.",
                    len(words),
                ),
            )
    if algorithm == "unigram":
        scores = {p: s for (p, s), t in zip(model.pieces, model.types) if t == NORMAL}
        unk = _unk(tok)
        normalized = tok.normalize(text).normalized
        no_penalty = [
            unk if u else normalized[a:b]
            for a, b, u in replay.viterbi(normalized, scores, unk_score=0.0)
        ]
        if no_penalty == theirs:
            return (
                Mistake(
                    "no_unk_penalty",
                    MISTAKES["no_unk_penalty"],
                    "Scoring an unknown character 0 instead of the lowest score minus 10 "
                    "makes <unk> cheap, and gives exactly your tokens.",
                    len(words),
                ),
            )
    return ()
