"""A chat rendered through its template, then cut into messages and tokens.

`render_chat` renders the messages as transformers' `apply_chat_template` does (see `runner`),
then finds what of the text each message produced: it renders the conversation's prefixes
(no messages, the first, the first two, ...) and a message's span runs from where the previous
prefix's render stops agreeing with the full one to where its own does. Text the template writes
before the first message ("<|begin_of_text|>") and the generation prompt after the last are
segments of their own. A template that rewrites earlier turns when a message is added (Mistral v3
moves the system prompt into the last user message) makes some prefixes disagree early; the
segments are then only the contents where they are found, and `spans_exact` is False.

With a tokenizer, the text is encoded as transformers encodes a chat: `add_special_tokens=False`,
special tokens typed in the text parsed as control tokens. Each token belongs to the segment its
first character is in; a token overlapping a `{% generation %}` span is in the assistant mask
(transformers' `return_assistant_tokens_mask`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..encoding import Encoding
from ..errors import InvalidInput
from ..formats.model_folder import with_config_tokens
from ..notebook import chat_html
from ..pipeline import Tokenizer
from . import lints, runner, templates
from .budget import TIME_LIMIT
from .encode import encode_chat
from .lints import Lint

TEMPLATE_ROLE = "template"  # the role of text written before the first message
PROMPT_ROLE = "generation prompt"


@dataclass(frozen=True)
class Segment:
    """A stretch of the rendered text: message `index`'s (None for the template's own text);
    `content` is where the message's content sits inside it (None if the template changed it
    past finding)."""

    index: int | None
    role: str
    start: int
    end: int
    content: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "role": self.role,
            "start": self.start,
            "end": self.end,
            "content": None if self.content is None else list(self.content),
        }


@dataclass(frozen=True)
class ChatToken:
    id: int
    token: str
    start: int
    end: int
    segment: int  # index into ChatRender.segments
    assistant: bool  # in the assistant mask

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "token": self.token,
            "start": self.start,
            "end": self.end,
            "segment": self.segment,
            "assistant": self.assistant,
        }


@dataclass(frozen=True)
class ChatRender:
    text: str
    segments: list[Segment]
    generation_spans: list[tuple[int, int]]
    spans_exact: bool
    tokens: list[ChatToken] | None = None  # None without a tokenizer
    lints: list[Lint] = field(default_factory=list)
    encoding: Encoding | None = None  # the tokens as an Encoding (for chips)

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens or ()]

    @property
    def assistant_mask(self) -> list[int]:
        """transformers' `assistant_masks`: 1 for each token in a `{% generation %}` span."""
        return [int(t.assistant) for t in self.tokens or ()]

    def _repr_html_(self) -> str:
        """Each message's stretch of the text, with its tokens as chips, in a notebook."""
        return chat_html(self)

    def counts(self) -> list[int]:
        """The number of tokens in each segment."""
        out = [0] * len(self.segments)
        for token in self.tokens or ():
            out[token.segment] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "segments": [s.to_dict() for s in self.segments],
            "generation_spans": [list(s) for s in self.generation_spans],
            "spans_exact": self.spans_exact,
            "tokens": None if self.tokens is None else [t.to_dict() for t in self.tokens],
            "counts": self.counts() if self.tokens is not None else None,
            "total": len(self.tokens) if self.tokens is not None else None,
            "lints": [lint.to_dict() for lint in self.lints],
        }


@dataclass(frozen=True)
class ChatInputs:
    """What a render needs, checked: the template's text and the variables it sees."""

    template: str
    messages: list[dict[str, Any]]
    variables: dict[str, Any]  # everything but messages and add_generation_prompt
    add_generation_prompt: bool
    end_of_turn: str | None


def prepare(
    messages: Any,
    *,
    chat_template: str | None = None,
    template_name: str | None = None,
    config: dict[str, Any] | None = None,
    add_generation_prompt: bool = False,
    tools: Any = None,
    documents: Any = None,
    special_tokens: dict[str, str] | None = None,
    tokenizer: Tokenizer | None = None,
    **extra: Any,
) -> ChatInputs:
    """Check the inputs and pick the template: `chat_template` (its text) first, then the
    config's (`template_name` picks among its named ones; with none, "tool_use" when `tools`
    are given and it has one, else "default", as transformers' `get_chat_template`), then the
    bundled `template_name`;
    given no text and no config, the `tokenizer`'s own tokenizer_config.json (its
    `tokenizer_config` attribute, which a model folder's loader keeps) comes before the bundled
    ones, unless `template_name` names a bundled template it does not have.
    The template sees the special tokens the `tokenizer`'s post-processor adds (its first as
    bos_token), overridden by the bundled format's, the config's, `special_tokens`, then by
    `extra` (as transformers merges `special_tokens_map` and kwargs)."""
    bundled = None
    if config is None and chat_template is None:
        config = _own_config(tokenizer, template_name)
    if chat_template is not None:
        template = chat_template
    elif config is not None and config.get("chat_template") is not None:
        template = templates.template_from_config(config, template_name, tools=tools)
    elif template_name is not None:
        bundled = templates.bundled_template(template_name)
        template = templates.template_source(template_name)
    else:
        raise InvalidInput(
            "give a chat template: its text, a tokenizer_config.json that has one, "
            "or the name of a bundled example"
        )
    if not isinstance(template, str):
        raise InvalidInput("a chat template must be a string")
    specials = {
        **(_post_processor_specials(tokenizer) if tokenizer else {}),
        **(bundled.special_tokens if bundled else {}),
        **(templates.special_tokens_of_config(config) if config else {}),
        **(special_tokens or {}),
    }
    variables = {
        **specials,
        **_plain(extra),
        "tools": _check_tools(tools),
        "documents": _check_documents(documents),
    }
    end_of_turn = bundled.end_of_turn if bundled else specials.get("eos_token")
    return ChatInputs(
        template, _check_messages(messages), variables, bool(add_generation_prompt), end_of_turn
    )


def render_text(
    inputs: ChatInputs, *, time_limit: float = TIME_LIMIT
) -> tuple[str, list[tuple[int, int]]]:
    """The rendered text and its `{% generation %}` spans (transformers'
    `render_jinja_template`)."""
    return runner.render(
        inputs.template,
        {
            **inputs.variables,
            "messages": inputs.messages,
            "add_generation_prompt": inputs.add_generation_prompt,
        },
        time_limit=time_limit,
    )


@dataclass(frozen=True)
class TemplateRender:
    """All that the template itself computes for a chat (and nothing else does): the text, its
    `{% generation %}` spans, each message's segment, and the text the template writes itself
    (its `literals`, for the lints). This is the part that runs untrusted code: a server
    computes it in a sandboxed process (`render_chat`'s `renderer`)."""

    text: str
    generation_spans: list[tuple[int, int]]
    segments: list[Segment]
    spans_exact: bool
    literals: tuple[str, ...]


def render_template(inputs: ChatInputs, *, time_limit: float = TIME_LIMIT) -> TemplateRender:
    """Render `inputs` and cut the text into its messages' segments (the template's work only).

    >>> done = render_template(prepare([{"role": "user", "content": "Hi"}], template_name="chatml"))
    >>> done.text, [s.role for s in done.segments], done.spans_exact
    ('<|im_start|>user\\nHi<|im_end|>\\n', ['user'], True)
    """
    text, generation_spans = render_text(inputs, time_limit=time_limit)
    segments, exact = _segments(inputs, text, time_limit)
    return TemplateRender(text, generation_spans, segments, exact, runner.literals(inputs.template))


Renderer = Callable[[ChatInputs, float], TemplateRender]


def _render_here(inputs: ChatInputs, time_limit: float) -> TemplateRender:
    return render_template(inputs, time_limit=time_limit)


def render_chat(
    messages: Any,
    *,
    tokenizer: Tokenizer | None = None,
    time_limit: float = TIME_LIMIT,
    renderer: Renderer = _render_here,
    **options: Any,
) -> ChatRender:
    """Render `messages` (see `prepare` for the options) and cut the text into messages and,
    with a `tokenizer`, into tokens; `lints` says what looks wrong (see `lints`). `renderer`
    runs the template's own work (`render_template`): here by default; a server passes one
    that runs it in a sandboxed process. A `config` given with the `tokenizer` adds its tokens
    to it first, as transformers does when it loads the two together (`with_config_tokens`:
    its `added_tokens_decoder`, then the named special tokens the tokenizer lacks).

    >>> chat = render_chat([{"role": "user", "content": "Hi"}], template_name="chatml")
    >>> chat.text
    '<|im_start|>user\\nHi<|im_end|>\\n'
    >>> [(s.role, chat.text[s.start:s.end]) for s in chat.segments]
    [('user', '<|im_start|>user\\nHi<|im_end|>\\n')]
    """
    if tokenizer is not None:
        tokenizer = with_config_tokens(tokenizer, options.get("config"))
    inputs = prepare(messages, tokenizer=tokenizer, **options)
    done = renderer(inputs, time_limit)
    text, segments, generation_spans = done.text, done.segments, done.generation_spans
    tokens = encoding = None
    if tokenizer is not None:
        encoding = encode_chat(tokenizer, text)
        tokens = _chat_tokens(encoding, segments, generation_spans)
    chat = ChatRender(text, segments, generation_spans, done.spans_exact, tokens)
    return ChatRender(
        text,
        segments,
        generation_spans,
        done.spans_exact,
        tokens,
        lints.find(chat, inputs, tokenizer, done.literals),
        encoding,
    )


# ---- spans --------------------------------------------------------------------------------
def _segments(inputs: ChatInputs, text: str, time_limit: float) -> tuple[list[Segment], bool]:
    """Each message's stretch of `text`: whole turns when every prefix of the conversation
    renders as a prefix of the text (True), else just the contents where they are found."""
    ends = _prefix_ends(inputs, text, time_limit)
    if ends is None:
        return _content_segments(inputs.messages, text), False
    return _turn_segments(inputs, text, ends), True


def _prefix_ends(inputs: ChatInputs, text: str, time_limit: float) -> list[int] | None:
    """Where the render of the first n messages ends, for n = 0 .. len(messages); None when
    one of them fails or is not a prefix of `text`, or when together they take more than
    `time_limit` seconds of CPU time (the render's own clock: see `budget.Budget`)."""
    deadline = time.thread_time() + time_limit
    ends = []
    for n in range(len(inputs.messages) + 1):
        left = deadline - time.thread_time()
        prefix = _prefix_render(inputs, inputs.messages[:n], left) if left > 0 else None
        if prefix is None or not text.startswith(prefix):
            return None
        ends.append(len(prefix))
    return ends


def _turn_segments(inputs: ChatInputs, text: str, ends: list[int]) -> list[Segment]:
    messages = inputs.messages
    segments = []
    if ends[0] > 0 or not messages:
        segments.append(Segment(None, TEMPLATE_ROLE, 0, ends[0] if messages else len(text)))
    for i, message in enumerate(messages):
        start, end = ends[i], ends[i + 1]
        if i == len(messages) - 1 and not inputs.add_generation_prompt:
            end = len(text)  # whatever the template closes the chat with
        segments.append(
            Segment(
                i,
                str(message.get("role", "")),
                start,
                end,
                _find_content(text, message.get("content"), start, end),
            )
        )
    if messages and inputs.add_generation_prompt and ends[-1] < len(text):
        segments.append(Segment(None, PROMPT_ROLE, ends[-1], len(text)))
    return [s for s in segments if s.end > s.start or s.index is not None]


def _content_segments(messages: list[dict[str, Any]], text: str) -> list[Segment]:
    """Segments for a template that moves text between turns: each message's content where it
    is found (the first occurrence not already taken), the rest the template's."""
    taken: list[tuple[int, int, int]] = []
    for i, message in enumerate(messages):
        span = _find_content(
            text, message.get("content"), 0, len(text), [(s, e) for s, e, _ in taken]
        )
        if span is not None:
            taken.append((*span, i))
    segments, position = [], 0
    for start, end, i in sorted(taken):
        if position < start:
            segments.append(Segment(None, TEMPLATE_ROLE, position, start))
        segments.append(Segment(i, str(messages[i].get("role", "")), start, end, (start, end)))
        position = end
    if position < len(text):
        segments.append(Segment(None, TEMPLATE_ROLE, position, len(text)))
    return segments


def _find_content(
    text: str, content: Any, start: int, end: int, taken: Sequence[tuple[int, int]] = ()
) -> tuple[int, int] | None:
    """Where `content` (or, as templates often trim it, its stripped text) is first in
    text[start:end] without overlapping a `taken` span.

    >>> _find_content("<|im_start|>user\\nHi<|im_end|>", " Hi ", 0, 29)
    (17, 19)
    """
    if not isinstance(content, str) or not content.strip():
        return None
    for wanted in (content, content.strip()):
        at = text.find(wanted, start, end)
        while at >= 0:
            if not any(at < e and s < at + len(wanted) for s, e in taken):
                return at, at + len(wanted)
            at = text.find(wanted, at + 1, end)
    return None


def _prefix_render(inputs: ChatInputs, messages: list[dict], time_limit: float) -> str | None:
    """The render of the first messages without the generation prompt (None if it fails)."""
    variables = {**inputs.variables, "messages": messages, "add_generation_prompt": False}
    try:
        return runner.render(inputs.template, variables, time_limit=time_limit)[0]
    except runner.TemplateFailure:
        return None


def _chat_tokens(
    encoding: Encoding, segments: list[Segment], generation_spans: list[tuple[int, int]]
) -> list[ChatToken]:
    out = []
    for id_, token, (start, end) in zip(encoding.ids, encoding.tokens, encoding.offsets):
        out.append(
            ChatToken(
                id_,
                token,
                start,
                end,
                _segment_at(segments, start),
                any(end > s and start < e for s, e in generation_spans),
            )
        )
    return out


def _segment_at(segments: list[Segment], position: int) -> int:
    for i, segment in enumerate(segments):
        if position < segment.end:
            return i
    return len(segments) - 1


def _own_config(tokenizer: Tokenizer | None, template_name: str | None) -> dict[str, Any] | None:
    """The tokenizer's own tokenizer_config.json when it has a chat template that
    `template_name` (None: its default) picks."""
    own = getattr(tokenizer, "tokenizer_config", None)
    if not own or own.get("chat_template") is None:
        return None
    if template_name is None or template_name in templates.template_names(own):
        return own
    return None


def _post_processor_specials(tokenizer: Tokenizer) -> dict[str, str]:
    """The BOS (and EOS) a tokenizer's post-processor puts around a text, as the special tokens
    a template may write: Llama 3's tokenizer.json adds <|begin_of_text|>, BERT's [CLS] ... [SEP].

    >>> import tokenizers_core as tc
    >>> _post_processor_specials(tc.load("bert-base-uncased"))
    {'bos_token': '[CLS]', 'eos_token': '[SEP]'}
    """
    encoding = encode_chat(tokenizer, "", add_special_tokens=True)
    added = [t for t, special in zip(encoding.tokens, encoding.special_tokens_mask) if special]
    out = {"bos_token": added[0]} if added else {}
    if len(added) > 1:
        out["eos_token"] = added[-1]
    return out


# ---- input checks -------------------------------------------------------------------------
def _check_messages(messages: Any) -> list[dict[str, Any]]:
    """The messages as plain data: a list of objects with a string `role`; keys whose value is
    None dropped and reasoning copied under its other names (as transformers does)."""
    if not isinstance(messages, (list, tuple)):
        raise InvalidInput("messages must be a list of {role, content} objects")
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise InvalidInput(f"message {i + 1} must be an object with a string 'role'")
        message = {k: v for k, v in _plain(message).items() if v is not None}
        reasoning = next(
            (
                message[k]
                for k in ("reasoning_content", "thinking", "reasoning")
                if message.get(k) is not None
            ),
            None,
        )
        if reasoning is not None:
            message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        out.append(message)
    return out


def _check_tools(tools: Any) -> list[dict] | None:
    if tools is None:
        return None
    if not isinstance(tools, (list, tuple)) or not all(isinstance(t, dict) for t in tools):
        raise InvalidInput("tools must be a list of JSON schemas (objects)")
    return _plain(list(tools))


def _check_documents(documents: Any) -> list[dict] | None:
    if documents is None:
        return None
    if not isinstance(documents, (list, tuple)) or not all(isinstance(d, dict) for d in documents):
        raise InvalidInput("documents must be a list of objects with 'title' and 'text'")
    return _plain(list(documents))


def _plain(value: Any) -> Any:
    """A copy made of JSON types only (what a template may see); anything else becomes a
    placeholder naming its type, as transformers' `_plain_template_data` does.

    >>> _plain({"a": (1, 2.5, True, None), "b": object})
    {'a': (1, 2.5, True, None), 'b': '<type>'}
    """
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    for kind in (str, int, float):
        if isinstance(value, kind):
            return kind(value)
    return f"<{type(value).__name__}>"
