"""`tokvis encode` and `tokvis decode`: a text to chips, ids and counts, and ids back to text.

Each command takes the parsed arguments, prints its result on stdout (notes on stderr) and
returns the exit status.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import tokenizers_core as tc
from tokenizers_core.errors import InvalidInput

from .. import display
from .inputs import (
    colour_switch,
    load_tokenizer,
    read_text,
    special_switch,
    text_source,
    tokenizer_options,
)
from .terminal import chip_line, use_colour


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("encode", help="tokenise a text: chips, ids and counts")
    p.add_argument(
        "-t",
        "--tokenizer",
        default="cl100k_base",
        metavar="NAME|FILE",
        help="a bundled tokeniser (gpt2, cl100k_base, bert-base-uncased, ...) or a "
        "tokenizer file (default: cl100k_base)",
    )
    text_source(p)
    p.add_argument("--json", action="store_true", help='print {"ids", "tokens", "offsets"}')
    p.add_argument(
        "--count",
        action="store_true",
        help='print the token count alone (with --json: {"tokens", "characters", "bytes"})',
    )
    special_switch(p)
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
    colour_switch(p)
    tokenizer_options(p)
    p.set_defaults(run=encode)

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
    tokenizer_options(p)
    p.set_defaults(run=decode)


def encode(args: argparse.Namespace) -> int:
    tok = load_tokenizer(args.tokenizer, args)
    text = read_text(args.text, args.file)
    if args.words:
        return _encode_words(tok, _words(text), args)
    enc = tok.encode(
        text,
        add_special_tokens=not args.no_special_tokens,
        **_special(tok, args.special, text),
    )
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
        f"{n:,} token{'' if n == 1 else 's'} · {len(text):,} characters · "
        f"{len(text.encode('utf-8')):,} bytes · {per} characters/token ({tok.name})"
    )
    return 0


def _special(tok: tc.Tokenizer, special: bool | None, text: Any = None) -> dict[str, Any]:
    """The page's and the API's rule for `--special` / `--no-special` (left out: the
    tokenizer's own library's default; `display.special_options`)."""
    note = display.special_note(tok)
    if special is not None and note is not None:
        flag = "--special" if special else "--no-special"
        raise InvalidInput(f"{tok.name}: {flag} does nothing here. {note}")
    return display.special_options(tok, special, text)


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


def _encode_words(tok: tc.Tokenizer, words: list[str], args: argparse.Namespace) -> int:
    """`encode --words`: pre-tokenized input; a line of chips per word (offsets are in each
    word)."""
    enc = tok.encode(
        words,  # type: ignore[arg-type]  # a list of words: encode's `text` is typed str alone
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
            *(
                [getattr(enc, name)[k] for k in mine]
                for name in (
                    "ids",
                    "tokens",
                    "offsets",
                    "word_ids",
                    "attention_mask",
                    "special_tokens_mask",
                    "type_ids",
                )
            )
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
