"""Check the bundled Mistral templates against mistral-common's own encoder (the reference of
the format: `InstructTokenizerV3` and `V7`), on conversations with a system prompt, several
turns, tools, a tool call and its result.

mistral-common encodes each piece with its tokenizer; its `Tokenized.text` spells the pieces as
sentencepiece does (`▁` for a space, `<0x0A>` for a newline, and `▁` at the start of each
separately encoded piece). We compare our rendered text with that text read back: `▁` as a
space, `<0x0A>` as a newline, and for v7 (written in its Tekken form, which adds no prefix
space) without the prefix space after a control token.

Needs mistral-common 1.12.0 importable (not a dependency of tokvis; e.g. `pip install
mistral_common==1.12.0` in a scratch environment). Run: python benchmarks/verify_chat_mistral.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tokenizers_core as tc  # noqa: E402

try:
    import mistral_common
    from mistral_common.protocol.instruct.messages import (
        AssistantMessage,
        SystemMessage,
        ToolMessage,
        UserMessage,
    )
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.protocol.instruct.tool_calls import Function, FunctionCall, Tool, ToolCall
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
except ImportError as exc:
    sys.exit(f"mistral-common is not importable ({exc}); install mistral_common==1.12.0")

DATA = Path(mistral_common.__file__).parent / "data"
FILES = {
    "mistral_v3": "mistral_instruct_tokenizer_240323.model.v3",
    "mistral_v7": "mistral_instruct_tokenizer_241114.model.v7",
}
TOOL = Tool(
    function=Function(
        name="get_weather",
        description="The weather in a city.",
        parameters={
            "type": "object",
            "required": ["city"],
            "properties": {"city": {"type": "string"}},
        },
    )
)
CALL = ToolCall(
    id="abc123XYZ", function=FunctionCall(name="get_weather", arguments='{"city": "Paris"}')
)
CONVERSATIONS = {
    "one user": [UserMessage(content="Hello, who are you?")],
    "system and turns": [
        SystemMessage(content="You are terse."),
        UserMessage(content="Name a prime."),
        AssistantMessage(content="Seven."),
        UserMessage(content="Another?"),
    ],
    "tool call and result": [
        UserMessage(content="Weather?"),
        AssistantMessage(tool_calls=[CALL]),
        ToolMessage(content="18 C", tool_call_id="abc123XYZ"),
        AssistantMessage(content="It is 18 C."),
        UserMessage(content="Thanks"),
    ],
}


def as_dicts(messages: list) -> list[dict]:
    """The messages as transformers' chat dicts (tool calls with their arguments as objects)."""
    out = []
    for m in messages:
        message = {"role": m.role}
        if getattr(m, "content", None) is not None:
            message["content"] = m.content
        if getattr(m, "tool_calls", None):
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": {"city": "Paris"}},
                }
                for c in m.tool_calls
            ]
        if getattr(m, "tool_call_id", None):
            message["tool_call_id"] = m.tool_call_id
        out.append(message)
    return out


def theirs_as_text(text: str, name: str) -> str:
    if name == "mistral_v7":
        text = text.replace("]\u2581", "]")
    return text.replace("\u2581", " ").replace("<0x0A>", "\n")


def main() -> int:
    failures = 0
    for name, filename in FILES.items():
        tokenizer = MistralTokenizer.from_file(str(DATA / filename))
        for conversation, messages in CONVERSATIONS.items():
            for tools in (None, [TOOL]):
                request = ChatCompletionRequest(messages=messages, tools=tools)
                theirs = theirs_as_text(tokenizer.encode_chat_completion(request).text, name)
                schemas = [t.model_dump(exclude={"function": {"strict"}}) for t in tools or ()]
                ours = tc.apply_chat_template(
                    None, as_dicts(messages), template_name=name, tools=schemas or None
                )
                same = ours == theirs
                failures += not same
                print(
                    f"{name:<11} {conversation:<22} tools={bool(tools)!s:<6} "
                    f"{'same' if same else 'DIFFERENT'}"
                )
                if not same:
                    print(f"  mistral-common: {theirs!r}\n  ours:           {ours!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
