"""Printable worksheets (`/worksheet/bpe`, `/worksheet/wordpiece`): a range of training steps
as blank tables to fill in by hand (the pair counts, the merge, the new word table) and, at
`key=1`, the answer key. Likewise `/worksheet/unigram_train` (EM + pruning rounds),
`/worksheet/bpe_encode` (each word's ranked candidate pairs, the merge, the parts after),
`/worksheet/wordpiece_encode` (the longest-match probes) and `/worksheet/unigram_lattice`
(best[i] and back[i] per end position, then the best path). The encoding sheets reuse the
step-through routers' helpers (the tokeniser lookups, the BPE symbol display).

Every value comes from the engine's own steppers, the ones the step-through views read (the BPE
training session, the WordPiece and Unigram trainers, encode_trace, encode_steps,
lattice_steps); the print stylesheet (static/app.css, `@page a4` / `letter`) lays the sheet out
on A4 or US Letter.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

import tokenizers_core as tc
from tokenizers_core.corpora import corpus_names
from tokenizers_core.models.bpe.session import VARIANTS, training_session

from ..deps import BAD_INPUT, bad_input, check_step_text, resolve_tokenizer, store
from ..render import render
from .bpe import _after, _bpe_options, _shower
from .unigram import DEFAULT_TEXT as LATTICE_TEXT, _model, _model_options
from .wordpiece import DEFAULT_TEXT as WP_TEXT, SMALL_VOCAB, _encode_tokenizer, _vocab_options
from ..trained import corpus_text as corpus_by_ref

router = APIRouter(tags=["worksheets"])

TEXTBOOK = ("low low low low low\nlower lower\nnewest newest newest newest newest newest\n"
            "widest widest widest\n")
PAPERS = ("a4", "letter")
MAX_STEPS = 8
MAX_WORDS = 40
PAIR_ROWS = 8
MAX_SHEET_CHARS = 60           # an encoding worksheet's text
MAX_ENCODE_STEPS = 16          # merges on one BPE encoding worksheet
MAX_PROBES = 40                # probes (one table row each) on one WordPiece encoding worksheet
MAX_LATTICE_SHEET = 12         # normalised characters (rows) of a lattice worksheet
MAX_ROUNDS = 4                 # Unigram training rounds on one worksheet
MAX_UNIGRAM_CHARS = 5000       # a Unigram training worksheet's corpus (trained within the request)
UNIGRAM_CORPUS = ("the cat sat on the mat and the dog sat on the log\n"
                  "a quick brown fox jumps over the lazy dog\n"
                  "the rain in spain stays mainly in the plain\n"
                  "she sells sea shells on the sea shore\n"
                  "how much wood would a woodchuck chuck if a woodchuck could chuck wood\n"
                  "peter piper picked a peck of pickled peppers\n"
                  "the early bird catches the worm\n"
                  "a stitch in time saves nine\n")


def worksheet(text: str, variant: str, vocab_size: int, start: int, end: int,
              options: dict[str, Any]) -> dict[str, Any]:
    """The sheet for merges start..end (1-based, inclusive): the word table before `start`, and
    per merge the pair table, the merge and the word table after it."""
    _check_range(start, end)
    session = training_session(text, variant, vocab_size, **options)
    n_words = len(session.order)
    if n_words > MAX_WORDS:
        raise ValueError(f"this corpus has {n_words:,} distinct words; a worksheet to fill in by "
                         f"hand takes at most {MAX_WORDS} (paste a smaller corpus)")
    total = session.total_steps()
    if start < 1 or end > total:
        raise ValueError(f"this run makes {total} merges: choose a range within 1–{total}")
    show = session.show
    cols = ["pair", "count"]

    def table(k: int) -> list[dict[str, Any]]:
        rows, _ = session.word_rows(k, 0, MAX_WORDS)
        return [{"word": r.word, "count": r.count, "symbols": [show(s) for s in r.segments],
                 "changed": r.changed} for r in rows]

    steps = []
    for k in range(start, end + 1):
        merge = session.step(k)
        steps.append({
            "k": k,
            "pairs": [[f"{show(a)} {show(b)}", c] for a, b, c in session.pair_table(k)][:PAIR_ROWS],
            "winner": f"{show(merge.pair[0])} {show(merge.pair[1])}",
            "pair": [show(p) for p in merge.pair], "new": show(merge.new_symbol),
            "count": merge.count, "tied": [[show(a), show(b)] for a, b in merge.tied or ()],
            "words": table(k),
        })
    return {"given": table(start - 1), "steps": steps, "total": total, "rule": session.rule,
            "n_words": n_words, "cols": cols, "what": "count",
            "how": "Count every adjacent pair of symbols, adding the word's frequency each time; "
                   "merge the most frequent pair everywhere."}


def wordpiece_worksheet(text: str, vocab_size: int, start: int, end: int) -> dict[str, Any]:
    """The WordPiece sheet for merges start..end: pairs with count(ab), count(a), count(b) and
    the score count(ab) / (count(a) × count(b)), the merge, the word table after it."""
    from tokenizers_core.implementations.bert import count_words
    from tokenizers_core.models.wordpiece.trainer import WordPieceTrainer
    _check_range(start, end)
    words = count_words(text)
    if len(words) > MAX_WORDS:
        raise ValueError(f"this corpus has {len(words):,} distinct words; a worksheet to fill in "
                         f"by hand takes at most {MAX_WORDS} (paste a smaller corpus)")
    trainer = WordPieceTrainer(words, vocab_size=vocab_size).run(until=start - 1)

    def table() -> list[dict[str, Any]]:
        rows, _ = trainer.word_table(0, MAX_WORDS)
        return [{"word": r.word, "count": r.freq, "symbols": list(r.symbols)} for r in rows]

    given = table()
    steps = []
    for k in range(start, end + 1):
        rows = trainer.top_pairs(PAIR_ROWS)
        merge = trainer.step()
        if merge is None:
            raise ValueError(f"this run makes {k - 1} merges: choose a range within 1–{k - 1}")
        steps.append({
            "k": k, "winner": f"{merge.pair[0]} {merge.pair[1]}",
            "pairs": [[f"{r.pair[0]} {r.pair[1]}", r.count, r.freq_left, r.freq_right,
                       f"{r.count}/{r.freq_left * r.freq_right}"] for r in rows],
            "pair": list(merge.pair), "new": merge.new_symbol, "count": merge.count,
            "score": f"{merge.count}/{merge.freq_left * merge.freq_right}",
            "tied": [list(t) for t in merge.ties], "words": table()})
    return {"given": given, "steps": steps, "n_words": len(words), "what": "score",
            "cols": ["pair", "count(ab)", "count(a)", "count(b)", "score"],
            "rule": "the highest score, then the higher count, then the smaller ids",
            "how": "Each word starts as its first character and ##-continuations. Count every "
                   "pair and every symbol (times the word's frequency), score each pair "
                   "count(ab) / (count(a) × count(b)), merge the best pair everywhere."}


def bpe_encode_worksheet(tok: Any, text: str) -> dict[str, Any]:
    """The BPE encoding sheet: per word its first parts, then per merge the candidate pairs
    with their ranks (lowest first, at most PAIR_ROWS), the merge chosen and the parts after.
    Steps that are not merges (a whole word in the vocabulary, byte fallback) are given."""
    from tokenizers_core.models.bpe.session import encode_trace

    from ..display import visible
    _check_text(text)
    traces = encode_trace(tok, text)
    total = sum(len(t.steps) for t in traces)
    if total > MAX_ENCODE_STEPS:
        raise ValueError(f"this text takes {total} steps to encode; a worksheet holds at most "
                         f"{MAX_ENCODE_STEPS} (shorten the text)")
    show = _shower(bool(getattr(tok.model, "byte_level", False)))
    words, n = [], 0
    for t in traces:
        steps = []
        for s in t.steps:
            n += 1
            action = getattr(s, "action", "merge")
            ranked = sorted(s.candidates, key=lambda c: (c[1], c[0]))[:PAIR_ROWS]
            steps.append({
                "n": n, "action": action, "parts": [show(p) for p in s.parts],
                "pairs": [[f"{show(s.parts[i])} {show(s.parts[i + 1])}", r] for i, r in ranked],
                "winner": (f"{show(s.parts[s.chosen])} {show(s.parts[s.chosen + 1])}"
                           if action == "merge" else ""),
                "pair": ([show(s.parts[s.chosen]), show(s.parts[s.chosen + 1])]
                         if action == "merge" else []),
                "rank": s.rank, "new": show(s.merged), "after": [show(p) for p in _after(s)]})
        words.append({"text": visible(text[t.start:t.end]), "initial": [show(p) for p in t.initial],
                      "special": t.special, "steps": steps,
                      "tokens": [show(x) for x, _id in t.tokens]})
    return {"words": words, "total": total,
            "how": "each word starts as single symbols; at every step merge the adjacent pair with "
                   "the lowest rank (the merge learned earliest; the leftmost on a tie), until no "
                   "pair is a merge."}


def wordpiece_encode_worksheet(tok: Any, text: str) -> dict[str, Any]:
    """The WordPiece encoding sheet: per word every probe of greedy longest match (the window,
    the candidate substring, in the vocabulary or not, the piece taken) and the tokens."""
    from tokenizers_core.implementations.bert import encode_steps
    _check_text(text)
    words, steps = encode_steps(tok, text, max_steps=MAX_PROBES)
    rows: list[list[dict[str, Any]]] = [[] for _ in words]
    for n, (index, p) in enumerate(steps, 1):
        taken = p.pieces[-1] if p.status in ("hit", "unk", "too_long") else ""
        rows[index].append({"n": n, "window": f"{p.start}:{p.end}", "candidate": p.candidate,
                            "found": "yes" if p.found else "no", "status": p.status,
                            "taken": taken})
    model = tok.model
    return {"words": [{"text": w, "probes": r,
                       "tokens": _pieces(steps, i)}
                      for i, ((w, _s, _e), r) in enumerate(zip(words, rows))],
            "total": len(steps), "prefix": model.continuing_subword_prefix,
            "unk": model.unk_token,
            "how": f"match each word from its start: try the longest window first (with "
                   f"{model.continuing_subword_prefix} when it does not start the word) and "
                   f"shrink it by one character until it is in the vocabulary; keep that piece "
                   f"and go on after it. No window at all: the whole word is "
                   f"{model.unk_token}."}


def lattice_worksheet(tok: Any, text: str) -> dict[str, Any]:
    """The Unigram lattice sheet: the pieces that occur in the text with their log-probabilities
    (given), per end position i the best score best[i], the back-pointer back[i] and the piece
    text[back[i]:i], then the best path read from the back-pointers."""
    from tokenizers_core.models.unigram.model import lattice_steps

    from ..display import visible
    if not text.strip():
        raise ValueError("type a short text (a word or two)")
    size = len(tok.normalize(text.replace("▁", " ")))
    if size > MAX_LATTICE_SHEET:
        raise ValueError(f"the normalised text has {size} characters; a lattice worksheet takes "
                         f"at most {MAX_LATTICE_SHEET} (one row each)")
    normalized, steps = lattice_steps(tok, text.replace("▁", " "))
    forward = [s for s in steps if s.kind == "viterbi"]
    back = [s for s in steps if s.kind == "viterbi_backtrack"]
    pieces: dict[str, float] = {}
    for s in forward:
        for _j, piece, pid, score, _total in s.candidates:
            if pid != tok.model.unk_id:
                pieces.setdefault(piece, score)
    rows = [{"i": s.position, "char": visible(normalized[s.position - 1]),
             "best": f"{s.best:.2f}", "back": s.back,
             "piece": visible(normalized[s.back:s.position]), "unknown": s.unknown}
            for s in forward]
    return {"text": visible(normalized), "n": len(normalized), "rows": rows,
            "pieces": sorted(((visible(p), f"{v:.2f}") for p, v in pieces.items()),
                             key=lambda pv: (len(pv[0]), pv[0])),
            "unk": f"{tok.model.unk_score:.2f}",
            "path": [visible(s.piece) for s in reversed(back)],
            "score": f"{forward[-1].best:.2f}" if forward else "0.00",
            "how": "best[0] = 0. For i = 1 … N, every piece text[j:i] in the list is a candidate "
                   "best[j] + log P(piece); best[i] is the largest (on a tie the smaller j), and "
                   "back[i] is its j. A character no piece covers is <unk>. Then follow the "
                   "back-pointers from N to 0 and read the pieces left to right."}


def unigram_train_worksheet(text: str, vocab_size: int, start: int, end: int) -> dict[str, Any]:
    """The Unigram training sheet for rounds start..end: per round the piece count before and
    after, how many pieces EM dropped (expected count under 0.5) and pruning removed, the
    log-likelihood after the round's EM, and the pruned pieces with their loss."""
    from tokenizers_core.models.unigram.trainer import UnigramTrainer

    from ..display import visible
    if end < start:
        raise ValueError(f"the range {start}–{end} is empty: 'end' must be at least 'start'")
    if end - start + 1 > MAX_ROUNDS:
        raise ValueError(f"a worksheet holds at most {MAX_ROUNDS} rounds; {start}–{end} is "
                         f"{end - start + 1}")
    if start < 1:
        raise ValueError("rounds are numbered from 1 (round 0 is the seed vocabulary)")
    if len(text) > MAX_UNIGRAM_CHARS:
        raise ValueError(f"this corpus has {len(text):,} characters; a Unigram training worksheet "
                         f"takes at most {MAX_UNIGRAM_CHARS:,} (paste a smaller corpus)")
    trainer = UnigramTrainer(text.splitlines(), vocab_size).run()
    steps = trainer.steps
    total = len(steps) - 1
    if end > total:
        raise ValueError(f"this run has {total} round{'' if total == 1 else 's'}: choose a range "
                         f"within 1–{total}")
    rounds = []
    for k in range(start, end + 1):
        s, before = steps[k], steps[k - 1].vocab_size
        rounds.append({"k": k, "before": before, "after": s.vocab_size, "final": s.final,
                       "dropped": before - s.vocab_size - s.num_pruned, "num_pruned": s.num_pruned,
                       "loglik": f"{s.log_likelihood:.2f}",
                       "pruned": [[visible(p), f"{loss:.4f}"] for p, loss in s.pruned]})
    return {"rounds": rounds, "total": total, "seed": steps[0].vocab_size,
            "seed_loglik": f"{steps[0].log_likelihood:.2f}", "words": trainer.total_freq,
            "distinct": len(trainer.words)}


def _pieces(steps: list, index: int) -> list[str]:
    last = [p for i, p in steps if i == index]
    return list(last[-1].pieces) if last else []


def _check_text(text: str) -> None:
    if not text.strip():
        raise ValueError("type a short text to encode")
    if len(text) > MAX_SHEET_CHARS:
        raise ValueError(f"the text is {len(text):,} characters; an encoding worksheet takes at "
                         f"most {MAX_SHEET_CHARS}")


def _check_range(start: int, end: int) -> None:
    if end < start:
        raise ValueError(f"the range {start}–{end} is empty: 'end' must be at least 'start'")
    if end - start + 1 > MAX_STEPS:
        raise ValueError(f"a worksheet holds at most {MAX_STEPS} merges; "
                         f"{start}–{end} is {end - start + 1}")
    if start < 1:
        raise ValueError("merges are numbered from 1")


@router.get("/worksheet/bpe", response_class=HTMLResponse,
            summary="A printable BPE training worksheet (and its answer key)")
def bpe_worksheet(request: Request, corpus: str = "", variant: str = "bpe", vocab_size: int = 24,
                  pattern: str = "gpt2", start: int = 1, end: int = 3, paper: str = "a4",
                  key: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "variant": variant, "vocab_size": vocab_size,
              "pattern": pattern if variant == "byte_bpe" else None, "start": start, "end": end,
              "paper": paper}
    ctx: dict[str, Any] = {"params": params, "corpus": corpus, "variant": variant,
                           "vocab_size": vocab_size, "pattern": pattern, "start": start,
                           "end": end, "paper": paper, "key": key, "variants": VARIANTS,
                           "papers": PAPERS, "bundled": corpus_names(), "error": None,
                           "sheet": None, "algorithm": "bpe", "path": "/worksheet/bpe"}
    status = 200
    try:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
        if variant not in VARIANTS:
            raise ValueError(f"unknown BPE variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
        if not 1 <= vocab_size <= 5000:
            raise ValueError("vocab_size must be between 1 and 5,000 for a worksheet")
        text = TEXTBOOK if not corpus else corpus_by_ref(store(request), corpus)
        options = {"pattern": pattern} if variant == "byte_bpe" else {}
        ctx["sheet"] = worksheet(text, variant, vocab_size, start, end, options)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "worksheet.html", ctx, status_code=status)


@router.get("/worksheet/wordpiece", response_class=HTMLResponse,
            summary="A printable WordPiece training worksheet (and its answer key)")
def wordpiece_sheet(request: Request, corpus: str = "", vocab_size: int = 40, start: int = 1,
                    end: int = 3, paper: str = "a4", key: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "vocab_size": vocab_size, "start": start, "end": end,
              "paper": paper}
    ctx: dict[str, Any] = {"params": params, "corpus": corpus, "variant": "wordpiece",
                           "vocab_size": vocab_size, "start": start, "end": end, "paper": paper,
                           "key": key, "papers": PAPERS, "bundled": corpus_names(),
                           "error": None, "sheet": None, "algorithm": "wordpiece",
                           "path": "/worksheet/wordpiece"}
    status = 200
    try:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
        if not 1 <= vocab_size <= 5000:
            raise ValueError("vocab_size must be between 1 and 5,000 for a worksheet")
        text = TEXTBOOK if not corpus else corpus_by_ref(store(request), corpus)
        ctx["sheet"] = wordpiece_worksheet(text, vocab_size, start, end)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "worksheet.html", ctx, status_code=status)


@router.get("/worksheet/bpe_encode", response_class=HTMLResponse,
            summary="A printable BPE encoding worksheet (and its answer key)")
def bpe_encode_sheet(request: Request, tokenizer: str = "gpt2", text: str = "lowest newer",
                     paper: str = "a4", key: bool = False) -> HTMLResponse:
    tokenizer = tc.pretrained.canonical_name(tokenizer)
    params = {"tokenizer": tokenizer, "text": text, "paper": paper}
    ctx: dict[str, Any] = {"params": params, "tokenizer": tokenizer, "text": text,
                           "paper": paper, "key": key, "papers": PAPERS, "error": None,
                           "sheet": None, "algorithm": "bpe_encode", "max_chars": MAX_SHEET_CHARS,
                           "path": "/worksheet/bpe_encode", "view": "/bpe/encode",
                           "view_params": {"tokenizer": tokenizer, "text": text},
                           "field": "tokenizer",
                           "options": _bpe_options(request, tokenizer)}
    status = 200
    try:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
        check_step_text(request, text, status=422)
        ctx["sheet"] = bpe_encode_worksheet(resolve_tokenizer(request, tokenizer), text)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "worksheet_bpe_encode.html", ctx, status_code=status)


@router.get("/worksheet/wordpiece_encode", response_class=HTMLResponse,
            summary="A printable WordPiece encoding worksheet (and its answer key)")
def wordpiece_encode_sheet(request: Request, text: str = WP_TEXT, vocab: str = "small",
                           vocab_text: str = SMALL_VOCAB, paper: str = "a4",
                           key: bool = False) -> HTMLResponse:
    params = {"vocab": vocab, "text": text, "paper": paper}
    if vocab == "small" and vocab_text != SMALL_VOCAB:
        params["vocab_text"] = vocab_text
    ctx: dict[str, Any] = {"params": params, "tokenizer": vocab, "text": text, "paper": paper,
                           "key": key, "papers": PAPERS, "error": None, "sheet": None,
                           "algorithm": "wordpiece_encode", "max_chars": MAX_SHEET_CHARS,
                           "path": "/worksheet/wordpiece_encode", "view": "/wordpiece/encode",
                           "view_params": {k: v for k, v in params.items() if k != "paper"},
                           "options": _vocab_options(request, vocab), "field": "vocab",
                           "small_vocab": vocab_text.split() if vocab == "small" else None}
    status = 200
    try:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
        check_step_text(request, text, status=422)
        tok = _encode_tokenizer(request, vocab, vocab_text)
        ctx["sheet"] = wordpiece_encode_worksheet(tok, text)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "worksheet_wordpiece_encode.html", ctx, status_code=status)


@router.get("/worksheet/unigram_lattice", response_class=HTMLResponse,
            summary="A printable Unigram lattice (Viterbi) worksheet (and its answer key)")
def lattice_sheet(request: Request, model: str = "tiny", text: str = LATTICE_TEXT,
                  paper: str = "a4", key: bool = False) -> HTMLResponse:
    params = {"model": model, "text": text, "paper": paper}
    ctx: dict[str, Any] = {"params": params, "tokenizer": model, "text": text, "paper": paper,
                           "key": key, "papers": PAPERS, "error": None, "sheet": None,
                           "algorithm": "unigram_lattice", "max_chars": MAX_LATTICE_SHEET,
                           "path": "/worksheet/unigram_lattice", "view": "/unigram/lattice",
                           "view_params": {"model": model, "text": text},
                           "options": _model_options(model), "field": "model"}
    status = 200
    try:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
        check_step_text(request, text, status=422)
        ctx["sheet"] = lattice_worksheet(_model(request, model), text)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "worksheet_unigram_lattice.html", ctx, status_code=status)


@router.get("/worksheet/unigram_train", response_class=HTMLResponse,
            summary="A printable Unigram training worksheet (and its answer key)")
def unigram_train_sheet(request: Request, corpus: str = "", vocab_size: int = 30, start: int = 1,
                        end: int = 3, paper: str = "a4", key: bool = False) -> HTMLResponse:
    params = {"corpus": corpus or None, "vocab_size": vocab_size, "start": start, "end": end,
              "paper": paper}
    ctx: dict[str, Any] = {"params": params, "corpus": corpus, "vocab_size": vocab_size,
                           "start": start, "end": end, "paper": paper, "key": key,
                           "papers": PAPERS, "bundled": corpus_names(), "error": None,
                           "sheet": None, "path": "/worksheet/unigram_train",
                           "max_rounds": MAX_ROUNDS}
    status = 200
    try:
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}, not {paper!r}")
        if not 4 <= vocab_size <= 5000:
            raise ValueError("vocab_size must be between 4 and 5,000 for a worksheet")
        text = UNIGRAM_CORPUS if not corpus else corpus_by_ref(store(request), corpus)
        ctx["sheet"] = unigram_train_worksheet(text, vocab_size, start, end)
    except BAD_INPUT as exc:
        ctx["error"], status = bad_input(exc)
    return render(request, "worksheet_unigram_train.html", ctx, status_code=status)
