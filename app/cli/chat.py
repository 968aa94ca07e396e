"""`tokvis chat MESSAGES.json|-`: a chat rendered through its template, each message's text
coloured by role, then the tokens (with -t), the counts per message and the lints."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tokenizers_core.chat import read_config, render_chat
from tokenizers_core.errors import InvalidInput

from .inputs import colour_switch, load_tokenizer, read_file, read_text, tokenizer_options
from .terminal import chip_line, table, use_colour

_ROLE_BACKGROUNDS = {
    "system": 229,
    "user": 153,
    "assistant": 158,
    "tool": 223,
    "generation prompt": 217,
}  # anything else (the template's text): 252


def register(sub: argparse._SubParsersAction) -> None:
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
    colour_switch(p)
    tokenizer_options(p)
    p.set_defaults(run=chat)


def chat(args: argparse.Namespace) -> int:
    """`tokvis chat MESSAGES.json|-`: the chat rendered through its template, each message's
    text coloured by role, then the tokens (with -t), the counts per message and the lints."""
    messages, tools = _chat_input(
        read_text(args.messages) if args.messages == "-" else read_file(args.messages)
    )
    tok = load_tokenizer(args.tokenizer, args) if args.tokenizer else None
    given = args.template or args.config or getattr(tok, "tokenizer_config", None)
    options: dict[str, Any] = {"template_name": args.template_name or (None if given else "llama3")}
    if args.template:
        options["chat_template"] = read_file(args.template)
    if args.config:
        options["config"] = read_config(read_file(args.config))
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
