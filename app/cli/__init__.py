"""The `tokvis` command: serve the app, and encode / train / trace / compare / export from a
terminal.

    tokvis serve [--host H] [--port P] [--workers N] [--db FILE]
    tokvis encode -t NAME|FILE [--json] [--count] [--special | --no-special] TEXT|-|-f FILE
    tokvis train ALGO CORPUS --vocab-size N [-o OUT] [--format F]
    tokvis trace ALGO CORPUS --vocab-size N [--steps A:B]
    tokvis compare -t A -t B [...] [--special | --no-special] TEXT|-|-f FILE
    tokvis diff -a A -b B [--corpus NAME|FILE | --text T | --stress] [--json]
    tokvis export NAME|FILE -o OUT [--format F] [--lossy]
    tokvis chat MESSAGES.json|- [-t NAME|FILE] [--template-name N | --template FILE] [--json]
    tokvis audit NAME|FILE [--category C] [--show N] [--json]

`--format` is always the format written; `--from` names a tokenizer file's own format.

Stdlib `argparse`: six subcommands and a dozen options need nothing more, and the command then
starts without importing a framework (only `serve` imports FastAPI and uvicorn). Errors are one
line on stderr and exit status 1 (2 for a usage error, 130 for Ctrl-C, 70 for a bug: set
TOKVIS_DEBUG=1 to see its traceback), never a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any, Sequence

from tokenizers_core import __version__

from ..setup_errors import SetupError
from . import audit, commands, deploy, tokenizations, vocab_diff


def _text_source(p: argparse.ArgumentParser) -> None:
    """The text of `encode` and `compare`: TEXT, `-` for stdin, or `-f FILE` (one of them)."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("text", nargs="?", metavar="TEXT|-", help="the text, or - to read stdin")
    source.add_argument(
        "-f", "--file", metavar="FILE", help="read the text from FILE (UTF-8) instead of TEXT"
    )


def _special_switch(p: argparse.ArgumentParser) -> None:
    """`--special` / `--no-special`: the one switch for special tokens typed in the text, as
    the page's and the API's `special` (left out: the tokenizer's own library's default)."""
    p.add_argument(
        "--special",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="special tokens typed in the text (<|endoftext|>, <|eot_id|>, [CLS]): --special "
        "reads them as special tokens, --no-special as ordinary text; left out, as the "
        "tokenizer's own library does (Hugging Face matches them, tiktoken refuses the text)",
    )
    # the old spelling of --special, kept working
    p.add_argument(
        "--allow-special", dest="special", action="store_const", const=True, help=argparse.SUPPRESS
    )


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (and a pointer to --help)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _tokenizer_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("tokenizer files (not the bundled names)")
    g.add_argument(
        "--from",
        dest="in_format",
        metavar="F",
        help="the file's format, if sniffing its content is not enough: hf_json, "
        "tiktoken, sentencepiece, vocab_txt",
    )
    g.add_argument(
        "--pattern",
        help="a tiktoken ranks file's split pattern: a preset (gpt2, "
        "cl100k, o200k, llama3, ...) or a regex",
    )
    g.add_argument(
        "--special-tokens",
        metavar="JSON",
        help="a tiktoken ranks file's special tokens, "
        """e.g. '{"<|endoftext|>": 100257}'""",
    )
    _case(g)


def _case(g) -> None:
    case = g.add_mutually_exclusive_group()
    case.add_argument(
        "--lowercase",
        dest="lowercase",
        action="store_true",
        default=None,
        help="lowercase the text first (WordPiece)",
    )
    case.add_argument(
        "--cased", dest="lowercase", action="store_false", help="keep the case (WordPiece)"
    )


def _colour(p: argparse.ArgumentParser) -> None:
    c = p.add_mutually_exclusive_group()
    c.add_argument(
        "--color",
        "--colour",
        dest="colour",
        action="store_true",
        default=None,
        help="colour the chips even when the output is not a terminal",
    )
    c.add_argument(
        "--no-color",
        "--no-colour",
        dest="colour",
        action="store_false",
        help="never colour (also: NO_COLOR=1)",
    )


def _training(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "algorithm",
        metavar="ALGO",
        help="bpe, byte_bpe, sentencepiece_bpe, wordpiece, unigram, char_bpe or wordlevel",
    )
    p.add_argument(
        "corpus",
        metavar="CORPUS",
        help="a text file, - for stdin, or a bundled corpus (botchan, udhr/eng, ...)",
    )
    p.add_argument("--vocab-size", type=int, required=True, metavar="N")
    g = p.add_argument_group("training options (where the algorithm takes them)")
    g.add_argument("--pattern", help="byte_bpe: the split pattern (gpt2, cl100k, o200k)")
    g.add_argument(
        "--min-frequency",
        type=int,
        metavar="N",
        help="bpe, byte_bpe, wordpiece: merge only pairs seen at least N times",
    )
    g.add_argument(
        "--special-tokens",
        metavar="JSON",
        help="byte_bpe, wordpiece: special tokens first, e.g. '[\"<|endoftext|>\"]'",
    )
    _case(g)
    g.add_argument(
        "--limit-alphabet",
        type=int,
        metavar="N",
        help="BPE kinds, wordpiece: keep only the N most frequent characters",
    )
    g.add_argument(
        "--initial-alphabet",
        metavar="CHARS",
        help="BPE kinds, wordpiece: characters always in the alphabet, e.g. 'éß'",
    )
    g.add_argument(
        "--max-token-length",
        type=int,
        metavar="N",
        help="BPE kinds: make no token of N characters or more (as Hugging Face)",
    )
    g.add_argument(
        "--continuing-subword-prefix",
        metavar="P",
        help="byte_bpe, char_bpe: spell a word's later characters with P, e.g. ##",
    )
    g.add_argument(
        "--end-of-word-suffix",
        metavar="S",
        help="byte_bpe, char_bpe: glue S to a word's last character, e.g. </w>",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tokvis",
        description="Watch tokenisers work: the web app, and the same engine from a terminal.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("serve", help="run the web app")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--db",
        metavar="URL|FILE",
        help="the store: a database URL or an SQLite file (default: $TOKVIS_DATABASE_URL, "
        "else $TOKVIS_DB, else ~/.local/share/tokvis/store.sqlite3)",
    )
    p.add_argument(
        "--limit-concurrency",
        type=int,
        default=commands.LIMIT_CONCURRENCY,
        metavar="N",
        help="open connections per worker past which new ones get 503 "
        f"(default {commands.LIMIT_CONCURRENCY}; uvicorn has no header-read timeout, "
        "so this is what bounds clients that send headers slowly)",
    )
    p.set_defaults(run=commands.serve)

    p = sub.add_parser("encode", help="tokenise a text: chips, ids and counts")
    p.add_argument(
        "-t",
        "--tokenizer",
        default="cl100k_base",
        metavar="NAME|FILE",
        help="a bundled tokeniser (gpt2, cl100k_base, bert-base-uncased, ...) or a "
        "tokenizer file (default: cl100k_base)",
    )
    _text_source(p)
    p.add_argument("--json", action="store_true", help='print {"ids", "tokens", "offsets"}')
    p.add_argument(
        "--count",
        action="store_true",
        help='print the token count alone (with --json: {"tokens", "characters", "bytes"})',
    )
    _special_switch(p)
    p.add_argument(
        "--no-special-tokens",
        action="store_true",
        help="leave out the special tokens the post-processor adds (BERT's [CLS] and "
        "[SEP], Llama 3's <|begin_of_text|>): add_special_tokens=False",
    )
    p.add_argument(
        "--words",
        action="store_true",
        help='TEXT is pre-tokenized input: a JSON list of words, \'["Hello", "world"]\'',
    )
    _colour(p)
    _tokenizer_options(p)
    p.set_defaults(run=commands.encode)

    p = sub.add_parser("decode", help="token ids back to text (or to bytes, as hex)")
    p.add_argument(
        "-t",
        "--tokenizer",
        default="cl100k_base",
        metavar="NAME|FILE",
        help="as in encode (default: cl100k_base)",
    )
    p.add_argument("ids", nargs="+", metavar="ID", help="token ids, e.g. 9906 1917 (or 9906,1917)")
    p.add_argument(
        "--bytes",
        action="store_true",
        help="print the tokens' bytes joined, as hex (partial characters kept)",
    )
    p.add_argument("--skip-special", action="store_true", help="leave special tokens out")
    _tokenizer_options(p)
    p.set_defaults(run=commands.decode)

    p = sub.add_parser("train", help="train a tokeniser; save it with -o")
    _training(p)
    p.add_argument("-o", "--output", metavar="OUT", help="save the tokeniser here")
    p.add_argument(
        "--format",
        dest="out_format",
        metavar="F",
        help="the saved format (default: from OUT's extension)",
    )
    bar = p.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show the progress bar even when stderr is not a terminal",
    )
    bar.add_argument("--no-progress", dest="progress", action="store_false")
    p.set_defaults(run=commands.train)

    p = sub.add_parser("trace", help="training steps as JSON Lines on stdout")
    _training(p)
    p.add_argument(
        "--steps",
        metavar="A:B",
        help="only steps A to B (as a Python slice of the steps: 0:10 is the first ten)",
    )
    p.set_defaults(run=commands.trace)

    p = sub.add_parser("compare", help="several tokenisers on one text")
    p.add_argument(
        "-t",
        "--tokenizer",
        dest="tokenizers",
        action="append",
        required=True,
        metavar="NAME|FILE",
        help="give it two or more times",
    )
    _text_source(p)
    _special_switch(p)
    _colour(p)
    _tokenizer_options(p)
    p.set_defaults(run=commands.compare)

    p = sub.add_parser(
        "diff",
        help="where two tokenisers first differ, text by text (exit 0: identical, 1: they differ)",
    )
    p.add_argument("-a", required=True, metavar="NAME|FILE")
    p.add_argument("-b", required=True, metavar="NAME|FILE")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--corpus",
        metavar="NAME|FILE",
        help="a bundled corpus or a text file (- for stdin), one text a line",
    )
    src.add_argument("--text", metavar="TEXT|-", help="texts, one a line (- for stdin)")
    src.add_argument("--stress", action="store_true", help="the generated stress set (the default)")
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.add_argument(
        "--show",
        type=int,
        default=5,
        metavar="N",
        help="print the first N differing texts (default 5)",
    )
    _tokenizer_options(p)
    p.set_defaults(run=commands.diff)

    p = sub.add_parser(
        "vocab-diff",
        help="two vocabularies compared by bytes: shared tokens, "
        "tokens only one has, where the ids part (exit 0: "
        "the same, 1: they differ)",
    )
    p.add_argument("a", metavar="A", help="a bundled name or a tokenizer file")
    p.add_argument("b", metavar="B", help="a bundled name or a tokenizer file")
    p.add_argument(
        "--corpus",
        metavar="NAME|FILE",
        help="also list the words of this corpus "
        "(bundled, a file, - for stdin) the "
        "two split differently",
    )
    p.add_argument(
        "--show",
        type=int,
        default=10,
        metavar="N",
        help="print the N most frequent differing words (default 10)",
    )
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.add_argument(
        "--limit",
        type=int,
        default=100,
        metavar="N",
        help="--json: list at most N entries of each list (default 100)",
    )
    _tokenizer_options(p)
    p.set_defaults(run=vocab_diff.run)

    p = sub.add_parser(
        "export",
        help="convert a tokeniser (bundled or a file) to another format "
        "(.json, .tiktoken, .model, .txt, .zip, .gguf)",
    )
    p.add_argument("source", metavar="NAME|FILE")
    p.add_argument("-o", "--output", required=True, metavar="OUT")
    p.add_argument(
        "--format",
        dest="out_format",
        metavar="F",
        help="the saved format (default: from OUT's extension)",
    )
    p.add_argument(
        "--lossy",
        action="store_true",
        help="write a format that does not reproduce the tokeniser exactly",
    )
    p.add_argument(
        "--gguf-pre",
        metavar="NAME",
        help="a .gguf's tokenizer.ggml.pre: one of "
        "llama.cpp's pre-tokenizer names instead of the one that splits text most "
        "like the tokeniser (e.g. default, to see what a wrong one does)",
    )
    _tokenizer_options(p)
    p.set_defaults(run=commands.export)

    p = sub.add_parser("chat", help="a chat through its template: the text, tokens and lints")
    p.add_argument(
        "messages",
        metavar="MESSAGES.json|-",
        help='a JSON list of {"role", "content"} (or {"messages", "tools"})',
    )
    p.add_argument("-t", "--tokenizer", metavar="NAME|FILE", help="tokenize the rendered chat")
    p.add_argument(
        "--template-name",
        help="a bundled template (llama3 unless --template, "
        "--config or the tokenizer gives one: a model folder's tokenizer_config.json, "
        "Qwen3's own): llama3, mistral_v3, mistral_v7, chatml, chatml_tools, "
        "gemma, llama2_strict; with --config, one of its named templates",
    )
    p.add_argument("--template", metavar="FILE", help="a chat template file (Jinja) instead")
    p.add_argument(
        "--config",
        metavar="FILE",
        help="a tokenizer_config.json: its chat_template "
        "(--template-name picks a named one) and special tokens",
    )
    p.add_argument(
        "--generation-prompt",
        action="store_true",
        help="add_generation_prompt: open the assistant's turn at the end",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    _colour(p)
    _tokenizer_options(p)
    p.set_defaults(run=commands.chat)

    audit.add_parser(sub, _tokenizer_options)
    tokenizations.add_parser(sub, _tokenizer_options)
    deploy.add_parsers(sub)
    return parser


LONG_RUNNING = ("serve", "worker")  # servers: their own SIGINT handling shuts them down


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command not in LONG_RUNNING and argv is None:  # a process of its own, not a test's
        signal.signal(signal.SIGINT, _interrupted)
    try:
        return args.run(args) or 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tokvis trace ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (ValueError, OSError, LookupError, SetupError) as exc:
        sys.stderr.write(f"tokvis {args.command}: error: {_one_line(exc)}\n")
        return 1
    except Exception as exc:  # a bug, not bad input: still one line, unless asked
        if _unreachable_database(exc):
            sys.stderr.write(
                f"tokvis {args.command}: error: the store's database cannot be "
                f"reached: {_one_line(exc.__cause__ or exc)}\n"
            )
            return 1
        if os.environ.get("TOKVIS_DEBUG"):
            raise
        sys.stderr.write(
            f"tokvis {args.command}: internal error: {type(exc).__name__}: "
            f"{_one_line(exc)} (TOKVIS_DEBUG=1 shows the traceback)\n"
        )
        return 70


def _interrupted(signum: int, frame: Any) -> None:
    """Ctrl-C: stop now, quietly, with the status a shell gives (130). What was printed is
    flushed; nothing runs after (no finaliser, no thread, no `finally` to be interrupted half-way
    and print a traceback, which a KeyboardInterrupt landing anywhere could). A second Ctrl-C
    during the flush stops at once."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    try:
        sys.stdout.flush()
    except Exception:  # a closed pipe: nothing more to say
        pass
    os._exit(130)


def _unreachable_database(exc: BaseException) -> bool:
    """SQLAlchemy's OperationalError: the database is down, or the URL names no server."""
    errors = sys.modules.get("sqlalchemy.exc")  # loaded if the command used the store
    return errors is not None and isinstance(exc, errors.OperationalError)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.strip("'\"") if isinstance(exc, KeyError) else text
