"""What each `tokvis` subcommand does (the parser is in `app/cli/__init__.py`).

Each function takes the parsed arguments, prints its result on stdout (progress and notes on
stderr) and returns the exit status; bad input is a ValueError or OSError with a message the
user can act on (`main` prints it as one line).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, TypedDict

import tokenizers_core as tc
from tokenizers_core import diff as tc_diff
from tokenizers_core import formats, pretrained
from tokenizers_core.chat import read_config, render_chat
from tokenizers_core.corpora import corpus_names, load_corpus
from tokenizers_core.errors import InvalidInput
from tokenizers_core.formats import gguf_writer
from tokenizers_core.formats.exactness import Exactness, exactness
from tokenizers_core.implementations.stepping import training_run

from .. import display
from .terminal import Progress, chip_line, pairs_text, table, use_colour


# ---- inputs ------------------------------------------------------------------------------------
def read_text(arg: str | None, path: str | None = None) -> str:
    """The TEXT argument, stdin for `-`, or the file `path` (`-f FILE`), read as UTF-8."""
    if path is not None:
        if arg is not None:
            raise InvalidInput("give the text as TEXT or as -f FILE, not both")
        try:
            with open(path, "rb") as fh:
                return _utf8(fh.read(), path)
        except OSError as exc:
            raise InvalidInput(f"{path}: {exc.strerror or exc}") from None
    if arg is None:
        raise InvalidInput("give the text: TEXT, - to read stdin, or -f FILE")
    if arg != "-":
        return arg
    return _utf8(sys.stdin.buffer.read(), "stdin")


def read_corpus(arg: str) -> tuple[str, str]:
    """(text, label) of a CORPUS argument: `-` (stdin), a file, or a bundled corpus name."""
    if arg == "-":
        return _utf8(sys.stdin.buffer.read(), "stdin"), "stdin"
    if os.path.isfile(arg):
        with open(arg, "rb") as fh:
            return _utf8(fh.read(), arg), arg
    if arg in corpus_names():
        return load_corpus(arg), arg
    raise InvalidInput(
        f"{arg}: no such file, and not a bundled corpus (botchan, udhr/eng, udhr/<code>, ...)"
    )


def _utf8(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{where} is not UTF-8 text (byte {exc.start})") from None


def _json_option(raw: str | None, kind: type, example: str) -> Any:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--special-tokens is not JSON ({exc.msg}); e.g. {example}") from None
    if not isinstance(value, kind):
        raise InvalidInput(f"--special-tokens must be a JSON {kind.__name__}, e.g. {example}")
    return value


def load_tokenizer(source: str, args: argparse.Namespace) -> tc.Tokenizer:
    """A bundled tokeniser by name, or a tokenizer file with the file options given."""
    options: dict[str, Any] = {}
    specials = _json_option(args.special_tokens, dict, "'{\"<|endoftext|>\": 100257}'")
    if specials is not None:
        options["special_tokens"] = specials
    if args.pattern:
        options["pattern"] = args.pattern
    if args.lowercase is not None:
        options["lowercase"] = args.lowercase
    if args.in_format:
        options["format"] = args.in_format
    if options and pretrained.is_bundled(source) and not os.path.isfile(source):
        flags = {
            "special_tokens": "--special-tokens",
            "pattern": "--pattern",
            "lowercase": "--lowercase/--cased",
            "format": "--from",
        }
        given = ", ".join(flags[k] for k in options)
        verb = "apply" if len(options) > 1 else "applies"
        raise InvalidInput(
            f"{given} {verb} only to tokenizer files; {source} is a bundled tokeniser"
        )
    if not pretrained.is_bundled(source) and not os.path.exists(source):
        raise InvalidInput(
            f"{source}: no such file, and not a bundled tokeniser (e.g. gpt2, "
            f"cl100k_base, o200k_base, bert-base-uncased)"
        )
    return tc.load(source, **options)


def _encode(
    tok: tc.Tokenizer, text: str, special: bool | None, add_special_tokens: bool
) -> tc.Encoding:
    return tok.encode(text, add_special_tokens=add_special_tokens, **_special(tok, special, text))


def _special(tok: tc.Tokenizer, special: bool | None, text: Any = None) -> dict[str, Any]:
    """The page's and the API's rule for `--special` / `--no-special` (left out: the
    tokenizer's own library's default; `display.special_options`)."""
    note = display.special_note(tok)
    if special is not None and note is not None:
        flag = "--special" if special else "--no-special"
        raise InvalidInput(f"{tok.name}: {flag} does nothing here. {note}")
    return display.special_options(tok, special, text)


def _save(tok: tc.Tokenizer, path: str, fmt: str | None) -> str:
    """Write `tok` (the format from `fmt` or the extension); returns the format written."""
    save = getattr(tok, "save", None)
    if save is None:  # until Tokenizer.save wraps it
        from tokenizers_core import formats

        return formats.save(tok, path, fmt)
    return save(path, format=fmt) or fmt or ""


def _write_bytes(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise InvalidInput(f"cannot write {path!r}: {exc.strerror}") from None


# ---- the commands ------------------------------------------------------------------------------
def serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise InvalidInput(f"--port must be between 0 and 65535, got {args.port}")
    if args.workers < 1:
        raise InvalidInput(f"--workers must be at least 1, got {args.workers}")
    if args.db:  # a database URL, or an SQLite file (as `tokvis db` and `worker` read --db)
        os.environ["TOKVIS_DATABASE_URL"] = (
            args.db if "://" in args.db else f"sqlite:///{os.path.abspath(args.db)}"
        )
    if args.limit_concurrency < 1:
        raise InvalidInput(f"--limit-concurrency must be at least 1, got {args.limit_concurrency}")
    from .deploy import preflight

    preflight()  # an outdated store or a missing secret: one line, before serving
    import uvicorn

    bounds = uvicorn_bounds(args.limit_concurrency)
    # uvicorn's h11 protocol with a deadline for a request's head (TOKVIS_HEADER_TIMEOUT): a
    # connection that sends its headers a byte at a time is closed (app/serving.py)
    from app.serving import HeaderTimeoutProtocol  # a bad TOKVIS_HEADER_TIMEOUT fails here

    if args.workers == 1:
        from app.main import app  # a bad setting fails here, as one line

        uvicorn.run(app, host=args.host, port=args.port, http=HeaderTimeoutProtocol, **bounds)
    else:
        uvicorn.run(
            "app.main:app",
            host=args.host,
            port=args.port,
            workers=args.workers,
            http="app.serving:HeaderTimeoutProtocol",
            **bounds,
        )
    return 0


LIMIT_CONCURRENCY = 500  # open connections (and requests) per worker


class UvicornBounds(TypedDict):
    """`uvicorn_bounds`' keywords, typed one by one so that `uvicorn.run(**bounds)` checks."""

    timeout_keep_alive: int
    limit_concurrency: int
    h11_max_incomplete_event_size: int


def uvicorn_bounds(limit_concurrency: int = LIMIT_CONCURRENCY) -> UvicornBounds:
    """What uvicorn offers against clients that hold connections open, beside the header-read
    timeout of our own protocol (`app.serving`, which uvicorn lacks): idle keep-alive
    connections close after 5 s, a request's headers may not exceed 16 KiB while incomplete,
    and past `limit_concurrency` connections new ones get 503 instead of exhausting the
    worker's file descriptors. (The Makefile's `run` line says the same.)"""
    return {
        "timeout_keep_alive": 5,
        "limit_concurrency": limit_concurrency,
        "h11_max_incomplete_event_size": 16 * 1024,
    }


def encode(args: argparse.Namespace) -> int:
    tok = load_tokenizer(args.tokenizer, args)
    text = read_text(args.text, args.file)
    if args.words:
        return _encode_words(tok, _words(text), args)
    enc = _encode(tok, text, args.special, not args.no_special_tokens)
    if args.count:
        return _print_count(tok, text, enc, args.json)
    if args.json:
        print(
            json.dumps(
                {"ids": enc.ids, "tokens": enc.tokens, "offsets": [list(o) for o in enc.offsets]},
                ensure_ascii=False,
            )
        )
        return 0
    colour = use_colour(args.colour, sys.stdout)
    print(chip_line(tok, text, enc, colour))
    print("ids:", " ".join(map(str, enc.ids)))
    n = len(enc)
    per = f"{len(text) / n:.2f}" if n else "-"
    print(
        f"{n:,} token{'' if n == 1 else 's'} · {len(text):,} characters · {len(text.encode('utf-8')):,} bytes · "
        f"{per} characters/token ({tok.name})"
    )
    return 0


def _print_count(tok: tc.Tokenizer, text: str, enc: tc.Encoding, as_json: bool) -> int:
    """`encode --count`: the number of tokens alone (the page's big count), or with `--json`
    the page's counts as `{"tokens", "characters", "bytes"}`."""
    if as_json:
        counts = {"tokens": len(enc), "characters": len(text), "bytes": len(text.encode("utf-8"))}
        print(json.dumps({"tokenizer": tok.name, **counts}))
    else:
        print(len(enc))
    return 0


def _words(text: str) -> list[str]:
    """The words of `encode --words`: a JSON list of strings."""
    try:
        words = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f'--words takes a JSON list of words ({exc.msg}); e.g. \'["Hello", "world"]\''
        ) from None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise InvalidInput('--words takes a JSON list of strings, e.g. \'["Hello", "world"]\'')
    return words


def _encode_words(tok: tc.Tokenizer, words: list, args: argparse.Namespace) -> int:
    """`encode --words`: pre-tokenized input; a line of chips per word (offsets are in each word)."""
    enc = tok.encode(
        words,
        is_pretokenized=True,
        add_special_tokens=not args.no_special_tokens,
        **_special(tok, args.special, words),
    )
    if args.json:
        print(
            json.dumps(
                {
                    "ids": enc.ids,
                    "tokens": enc.tokens,
                    "word_ids": enc.word_ids,
                    "offsets": [list(o) for o in enc.offsets],
                },
                ensure_ascii=False,
            )
        )
        return 0
    colour = use_colour(args.colour, sys.stdout)
    for i, word in enumerate(words):
        mine = [k for k, w in enumerate(enc.word_ids) if w == i]
        part = tc.Encoding(
            **{
                name: [getattr(enc, name)[k] for k in mine]
                for name in (
                    "ids",
                    "tokens",
                    "offsets",
                    "word_ids",
                    "attention_mask",
                    "special_tokens_mask",
                    "type_ids",
                )
            }
        )
        print(f"{i}: {chip_line(tok, word, part, colour)}")
    print("ids:", " ".join(map(str, enc.ids)))
    print(
        f"{len(enc):,} token{'' if len(enc) == 1 else 's'} · {len(words):,} "
        f"word{'' if len(words) == 1 else 's'} ({tok.name})"
    )
    return 0


def decode(args: argparse.Namespace) -> int:
    """`tokvis decode -t NAME IDS...`: the text; `--bytes` the raw bytes as hex (tiktoken's
    decode_bytes: a character cut across tokens keeps its partial bytes)."""
    tok = load_tokenizer(args.tokenizer, args)
    ids = []
    for part in " ".join(args.ids).replace(",", " ").split():
        try:
            ids.append(int(part))
        except ValueError:
            raise InvalidInput(
                f"{part!r} is not a token id: give whole numbers, e.g. 9906 1917"
            ) from None
    if args.bytes:
        print(tok.decode_bytes(ids).hex())
    else:
        print(tok.decode(ids, skip_special_tokens=args.skip_special))
    dropped = tok.unknown_ids(ids) if tok.drops_unknown_ids else []
    if dropped:  # a tokenizer.json's: dropped as Hugging Face's decode drops them
        print(
            f"dropped {len(dropped)} id{'s' * (len(dropped) != 1)} not in the vocabulary "
            f"(as Hugging Face's decode drops them): {' '.join(map(str, dropped))}",
            file=sys.stderr,
        )
    return 0


def _training_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.pattern:
        options["pattern"] = args.pattern
    if args.min_frequency is not None:
        options["min_frequency"] = args.min_frequency
    specials = _json_option(args.special_tokens, list, "'[\"<|endoftext|>\"]'")
    if specials is not None:
        options["special_tokens"] = specials
    if args.lowercase is not None:
        options["lowercase"] = args.lowercase
    for name in (
        "limit_alphabet",
        "max_token_length",
        "continuing_subword_prefix",
        "end_of_word_suffix",
    ):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if args.initial_alphabet is not None:
        options["initial_alphabet"] = list(args.initial_alphabet)
    return options


def train(args: argparse.Namespace) -> int:
    text, label = read_corpus(args.corpus)
    start = time.monotonic()
    run = training_run(
        args.algorithm, text.splitlines(), args.vocab_size, **_training_options(args)
    )
    forced = args.progress is True
    unit = "" if run.expected is None else "merges"
    bar = Progress(
        f"training {args.algorithm}",
        run.expected,
        unit,
        enabled=sys.stderr.isatty() if args.progress is None else args.progress,
        delay=0.0 if forced else 0.5,
    )
    note = ""
    for step in run:
        if run.expected is None:  # unigram: rounds, the vocabulary shrinking
            note = f"round {step.round}: {step.vocab_size:,} pieces"
        bar.update(run.done, note)
    tok = run.tokenizer()
    bar.close(run.done, note)
    seconds = time.monotonic() - start
    if args.output:
        written = _save(tok, args.output, args.out_format)
        print(
            f"wrote {args.output} ({written}, {tok.vocab_size:,} tokens, {args.algorithm}, "
            f"{seconds:.1f} s)",
            file=sys.stderr,
        )
        return 0
    print(
        f"{args.algorithm} trained on {label}: {len(text.splitlines()):,} lines, "
        f"{len(text):,} characters, in {seconds:.1f} s"
    )
    merges = getattr(tok.model, "merges", None)
    if merges is not None and args.algorithm != "unigram":
        print(f"vocabulary: {tok.vocab_size:,} tokens, {len(merges):,} merges")
        print("first merges:", pairs_text(merges[:8]))
        print("last merges: ", pairs_text(merges[-8:]))
    else:
        pieces = sorted(getattr(tok.model, "pieces", []), key=lambda p: -p[1])
        print(
            f"vocabulary: {tok.vocab_size:,} pieces, after {run.done} steps (seed, EM + pruning "
            "rounds, final)"
        )
        print("most likely pieces:", ", ".join(p for p, _s in pieces[:12]))
    print("(save it with -o tokenizer.json, or see every step with `tokvis trace`)")
    return 0


def _slice(raw: str | None) -> slice:
    if raw is None:
        return slice(0, None)
    a, sep, b = raw.partition(":")
    try:
        start = int(a) if a.strip() else 0
        stop = int(b) if b.strip() else None
        if not sep:
            raise ValueError
    except ValueError:
        raise InvalidInput(f"--steps takes A:B (e.g. 0:10, 100:, :5), got {raw!r}") from None
    if start < 0 or (stop is not None and stop < 0):
        raise InvalidInput(f"--steps counts from the first step: no negative numbers ({raw!r})")
    return slice(start, stop)


def trace(args: argparse.Namespace) -> int:
    wanted = _slice(args.steps)
    text, _label = read_corpus(args.corpus)
    run = training_run(
        args.algorithm, text.splitlines(), args.vocab_size, **_training_options(args)
    )
    out = sys.stdout
    for i, step in enumerate(run):
        if wanted.stop is not None and i >= wanted.stop:
            break  # the rest is not needed: stop training
        if i >= wanted.start:
            out.write(json.dumps(step.to_dict(), ensure_ascii=False) + "\n")
    out.flush()
    return 0


def compare(args: argparse.Namespace) -> int:
    if len(args.tokenizers) < 2:
        raise InvalidInput("give two or more tokenisers to compare: -t A -t B")
    text = read_text(args.text, args.file)
    colour = use_colour(args.colour, sys.stdout)
    results = []
    for source, label in zip(args.tokenizers, column_labels(args.tokenizers)):
        tok = load_tokenizer(source, args)
        # --special applies to the columns that read special tokens at all, as on the page
        options = display.special_options(tok, args.special, text)
        results.append((label, tok, tok.encode(text, **options)))
    rows = [
        (name, len(enc), f"{len(text) / len(enc):.2f}" if len(enc) else "-")
        for name, _tok, enc in results
    ]
    print(table(rows, ("tokenizer", "tokens", "chars/token")))
    for name, tok, enc in results:
        print(f"\n{name}:")
        print(chip_line(tok, text, enc, colour))
    return 0


def diff(args: argparse.Namespace) -> int:
    """Two tokenisers on the same texts (a corpus or --text, one text a line, or the stress
    set): exit status 0 when every text is tokenised identically, 1 when some differ, 2 for
    bad input (as diff(1))."""
    try:
        tok_a, tok_b = (load_tokenizer(s, _file_options(s, args)) for s in (args.a, args.b))
        texts, label = _diff_texts(args)
    except (ValueError, OSError, LookupError) as exc:
        sys.stderr.write(f"tokvis diff: error: {' '.join(str(exc).split())}\n")
        return 2
    report = tc_diff.diff(tok_a, tok_b, texts, names=(args.a, args.b))
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        print(
            f"{args.a} vs {args.b} on {label}: {report.identical:,} of {report.texts:,} "
            f"texts identical ({100 * report.share_identical:.1f}%)"
        )
        for stage, n in report.by_stage.items():
            print(f"  first differ at the {stage}: {n:,}")
        for d in report.differences[: args.show]:
            print(
                f"\nline {d.index + 1}, character {d.position}: {d.stage} "
                f"(different: {', '.join(d.differs)})"
            )
            print(f"  text: {display.visible(d.text[:120])}")
            print(f"  {args.a}: {_window_line(d.text, d.window_a, d.token_a)}")
            print(f"  {args.b}: {_window_line(d.text, d.window_b, d.token_b)}")
            print(f"  evidence: {json.dumps(d.evidence, ensure_ascii=False)}")
    return 0 if report.identical == report.texts else 1


def _window_line(text: str, window: tuple, first: int) -> str:
    """The tokens around a divergence, by the text they cover (a special token by its name),
    the first differing one in [brackets].

    >>> _window_line("ab c", ((0, "ab", 5, 0, 2, False), (1, "Ġc", 9, 2, 4, False)), 1)
    'ab [·c]'
    """
    parts = []
    spans = [(s, e) for _, _, _, s, e, _ in window]
    for i, token, _id, s, e, special in window:
        shared = spans.count((s, e)) > 1  # bytes of one character: the tokens
        label = token if special or s == e or shared else display.visible(text[s:e])
        parts.append(f"[{label}]" if i == first else label)
    return " ".join(parts)


def _file_options(source: str, args: argparse.Namespace) -> argparse.Namespace:
    """`args` for loading `source`: the file options go to the files that take them (a ranks
    file's --pattern), not to a bundled tokeniser or a tokenizer.json, which has them all."""
    if os.path.isfile(source) and not args.in_format:
        with open(source, "rb") as fh:
            takes = formats.sniff(fh.read(4096)) != "hf_json"
    else:
        takes = not pretrained.is_bundled(source) or os.path.isfile(source)
    return (
        args
        if takes
        else argparse.Namespace(special_tokens=None, pattern=None, lowercase=None, in_format=None)
    )


def _diff_texts(args: argparse.Namespace) -> tuple[list[str], str]:
    if args.corpus is not None:
        text, label = read_corpus(args.corpus)
        return tc_diff.corpus_texts(text), f"the corpus {label}"
    if args.text is not None:
        return tc_diff.corpus_texts(read_text(args.text)), "the text"
    return tc_diff.stress_texts(), "the stress set"


def column_labels(sources: list[str]) -> list[str]:
    """A compare column's label: a file by its name (not the whole path), a bundled tokeniser
    by the name given; two files of the same name keep the paths given.

    >>> column_labels(["gpt2", "/tmp/a/tokenizer.json", "/tmp/b/vocab.txt"])
    ['gpt2', 'tokenizer.json', 'vocab.txt']
    """
    names = [os.path.basename(s) if os.sep in s or "/" in s else s for s in sources]
    return [n if names.count(n) == 1 else s for n, s in zip(names, sources)]


def export(args: argparse.Namespace) -> int:
    """Write the tokeniser in another format; a format that does not reproduce it exactly
    needs --lossy (else exit status 2 and what would change)."""
    tok = load_tokenizer(args.source, args)
    fmt = formats.format_for_path(args.output, args.out_format)
    if args.gguf_pre is not None and fmt != "gguf":
        raise InvalidInput("--gguf-pre names a GGUF file's pre-tokenizer: write a .gguf")
    said = (
        exactness(tok, fmt)
        if args.gguf_pre is None
        else Exactness(fmt, changes=tuple(gguf_writer.changes(tok, pre=args.gguf_pre)))
    )
    if said.lossy and not args.lossy:
        print(
            f"tokvis export: error: {args.output} ({fmt}) would not reproduce {args.source} "
            f"exactly: {' '.join(said.changes)} Give --lossy to write it anyway.",
            file=sys.stderr,
        )
        return 2
    if args.gguf_pre is None:
        written = _save(tok, args.output, fmt)
    else:
        written = fmt
        _write_bytes(args.output, gguf_writer.dump_bytes(tok, pre=args.gguf_pre))
    print(f"wrote {args.output} ({written}, {tok.vocab_size:,} tokens)", file=sys.stderr)
    for change in said.changes:
        print(f"  changed: {change}", file=sys.stderr)
    if said.pattern is not None:
        preset = getattr(tok, "preset", None)
        print(
            f"  load it with the pattern {preset or said.pattern} and the special tokens "
            "again (the file holds neither)",
            file=sys.stderr,
        )
    return 0


# ---- chat ----------------------------------------------------------------------------------
_ROLE_BACKGROUNDS = {
    "system": 229,
    "user": 153,
    "assistant": 158,
    "tool": 223,
    "generation prompt": 217,
}  # anything else (the template's text): 252


def chat(args: argparse.Namespace) -> int:
    """`tokvis chat MESSAGES.json|-`: the chat rendered through its template, each message's
    text coloured by role, then the tokens (with -t), the counts per message and the lints."""
    messages, tools = _chat_input(
        read_text(args.messages) if args.messages == "-" else _read_file(args.messages)
    )
    tok = load_tokenizer(args.tokenizer, args) if args.tokenizer else None
    given = args.template or args.config or getattr(tok, "tokenizer_config", None)
    options: dict[str, Any] = {"template_name": args.template_name or (None if given else "llama3")}
    if args.template:
        options["chat_template"] = _read_file(args.template)
    if args.config:
        options["config"] = read_config(_read_file(args.config))
    rendered = render_chat(
        messages,
        tokenizer=tok,
        tools=tools,
        add_generation_prompt=args.generation_prompt,
        **options,
    )
    if args.json:
        print(json.dumps(rendered.to_dict(), ensure_ascii=False))
        return 0
    colour = use_colour(args.colour, sys.stdout)
    print(_coloured_render(rendered, colour))
    # the rendering carries an encoding and its tokens exactly when it was given a tokenizer;
    # the test is on both so that a rendering without them prints no chips instead of failing
    if tok is not None and rendered.encoding is not None and rendered.tokens is not None:
        print()
        print(chip_line(tok, rendered.text, rendered.encoding, colour))
        rows = [
            (s.role if s.index is None else f"{s.index + 1} {s.role}", n)
            for s, n in zip(rendered.segments, rendered.counts())
        ]
        print()
        print(table(rows + [("total", len(rendered.tokens))], ("message", "tokens")))
    for lint in rendered.lints:
        print(f"note: {lint.message}", file=sys.stderr)
    return 0


def _read_file(path: str) -> str:
    with open(path, "rb") as fh:
        return _utf8(fh.read(), path)


def _chat_input(raw: str) -> tuple[Any, Any]:
    """A JSON list of messages, or an object with "messages" (and "tools"), as JSON gives them:
    `render_chat` checks their shapes (a missing "messages" is its one-line error)."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"the messages are not valid JSON ({exc.msg}); give a list such as "
            '[{"role": "user", "content": "Hi"}]'
        ) from None
    if isinstance(data, dict):
        return data.get("messages"), data.get("tools")
    return data, None


def _coloured_render(rendered: Any, colour: bool) -> str:
    """The rendered text, each segment on the background of its role (plain without colour)."""
    if not colour:
        return rendered.text
    out = []
    for s in rendered.segments:
        background = _ROLE_BACKGROUNDS.get(s.role, 252)
        piece = rendered.text[s.start : s.end]
        out.append(
            "\n".join(
                f"\x1b[30;48;5;{background}m{line}\x1b[0m" if line else ""
                for line in piece.split("\n")
            )
        )
    return "".join(out)
