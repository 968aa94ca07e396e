"""The drift doctor: what an RL or agent loop's chat looks like token by token, turn after turn.

Three checks on one conversation (`drift`):

- **Turns.** For each assistant message i, the conversation as it was when i was generated
  (messages[:i] rendered with the generation prompt, then i's completion: its sampled ids when
  given, else the encoding of what the template writes for it) must be a token prefix of the
  conversation one turn later (messages[:j], j the next assistant message or the end, rendered
  normally). Where it is not, a prefix cache keeps only the common prefix (`tokens_reused`), the
  loss mask of turn i no longer lines up with the next turn's tokens, and `construct` names the
  template's habit that did it when it can be named (Qwen3 and DeepSeek R1 drop the reasoning
  of earlier assistant turns; a generation prompt that opens the turn otherwise than the
  history writes it; a template that rewrites earlier messages).
- **Completions.** encode(decode(sampled ids)) must give the sampled ids back; where it does
  not, the loss and the KL are computed on another sequence than the one sampled. `canonical`
  is the engine's canonicality check (`tokenizations.is_canonical`) on the ordinary runs of the
  ids, between the added and special tokens.
- **Markers.** The tokenizer's tag-like added tokens (`<tool_call>`, `<think>`, gpt-oss's
  `<|channel|>`, ...) spelt by sampled ids from ordinary sub-tokens (a tool-call parser that
  looks for the one token finds no call), and the ones typed inside user or tool content that
  the template and the tokenizer turn into the control token (an injection).

Renders go through `chat.render` exactly as `render_chat` does (the same `prepare`, the same
encoding: `add_special_tokens=False`, special tokens typed in the text parsed); `renderer` is
`render_chat`'s: a server passes one that runs the template in a sandboxed child.

>>> import tokenizers_core as tc
>>> chat = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
...         {"role": "user", "content": "Bye"}, {"role": "assistant", "content": "Bye!"}]
>>> report = drift(tc.load("qwen3"), chat, template_name="chatml")
>>> report.append_only, [t.prefix_of_next for t in report.turns]
(True, [True, True])
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Any, Iterator

from .chat import render as chat_render
from .chat.budget import TIME_LIMIT
from .chat.encode import control_tokens, encode_chat
from .chat.runner import TemplateFailure
from .errors import InvalidInput
from .formats.model_folder import with_config_tokens
from .notebook import drift_html
from .tokenizations import is_canonical
from .tokenizations.canonical import MAX_IDS
from .tokenizations.space import ordinary_ids

DRIFT_TIME_LIMIT = 20.0  # seconds for all of one conversation's renders together

# a marker looks like a tag: <|channel|>, <think>, </tool_call>, [TOOL_CALLS], DeepSeek's <｜…｜>
MARKER_SHAPE = re.compile(
    r"<\|[^|<>\s]{1,40}\|>|</?[A-Za-z_][\w.:-]{0,40}>|\[/?[A-Z][A-Z_]{1,40}\]|<｜[^｜]{1,40}｜>"
)
NOT_MARKERS = ("reserved", "unused", "pad", "placeholder")  # tags that mark nothing
AUTHORED_ROLES = ("assistant", "system", "developer")  # not where an injection comes from

# what `construct` says, when it can say it
REASONING_DROPPED = (
    "reasoning dropped from earlier assistant turns: the template writes an assistant "
    "message's reasoning only while it is the latest turn"
)
RETOKENIZED = (
    "the same text, other tokens: the next turn encodes this turn's text otherwise than its "
    "ids (a non-canonical completion, or a token merged across the turn's end)"
)
GENERATION_PROMPT = (
    "the generation prompt is not how the template writes the turn's opening once it is "
    "in the history (e.g. an empty <think></think> written only in the prompt)"
)
EARLIER_REWRITTEN = (
    "the template rewrites earlier messages when a message is added (e.g. it moves the "
    "system prompt, or renders a message by its place in the conversation)"
)
SAMPLED_REWRITTEN = (
    "the template writes this assistant message otherwise than its sampled ids spell it "
    "(the logged content differs from the ids, or the template trims or rewrites it)"
)
ASSISTANT_REWRITTEN = (
    "the template writes this assistant message otherwise once a later message is added "
    "(its content trimmed or rewritten)"
)


# ---- the report ---------------------------------------------------------------------------
@dataclass(frozen=True)
class DriftTurn:
    """Assistant message `message` as generated (`ids`: the generation prompt's `prompt_tokens`
    tokens, then the completion: the turn's loss mask is [prompt_tokens, tokens_total)) against
    the render one turn later (`next_ids`: messages[:next_message]). `first_diff_token` is the
    first position where they differ (None when `ids` is a prefix of `next_ids`);
    `diff_tokens` the two tokens there (None past the end of one side); `tokens_moved` how many
    of the loss mask's tokens are not at their place in the next turn."""

    message: int
    prefix_of_next: bool
    first_diff_token: int | None
    tokens_reused: int
    tokens_total: int
    construct: str | None
    next_message: int
    prompt_tokens: int
    tokens_moved: int
    diff_tokens: tuple[str | None, str | None] | None
    ids: tuple[int, ...]
    next_ids: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "prefix_of_next": self.prefix_of_next,
            "first_diff_token": self.first_diff_token,
            "tokens_reused": self.tokens_reused,
            "tokens_total": self.tokens_total,
            "construct": self.construct,
            "next_message": self.next_message,
            "loss_mask": [self.prompt_tokens, self.tokens_total],
            "tokens_moved": self.tokens_moved,
            "diff_tokens": None if self.diff_tokens is None else list(self.diff_tokens),
        }


@dataclass(frozen=True)
class CompletionCheck:
    """Sampled ids of assistant message `message`: whether encode(decode(ids)) gives them back
    (`retokenized` is what it gives; `first_diff` the first index where it differs), and
    whether they are canonical (`first_break`: the first index where not; `canonical` None
    when the engine cannot tell for this model)."""

    message: int
    round_trip_equal: bool
    first_diff: int | None
    canonical: bool | None
    retokenized: tuple[int, ...]
    first_break: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "round_trip_equal": self.round_trip_equal,
            "first_diff": self.first_diff,
            "canonical": self.canonical,
            "retokenized": list(self.retokenized),
            "first_break": self.first_break,
        }


@dataclass(frozen=True)
class MarkerHit:
    """A marker where it should not be. `kind` "spelt": sampled ids of assistant message
    `message` spell it from ordinary sub-tokens (`single_token` False, `position` the index of
    its first token in those ids); "injection": typed inside message `message`'s user or tool
    content, where the template and the tokenizer make it the control token (`single_token`
    True, `position` its character in the content)."""

    message: int
    marker: str
    single_token: bool
    position: int
    kind: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "marker": self.marker,
            "single_token": self.single_token,
            "position": self.position,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class DriftReport:
    append_only: bool
    turns: tuple[DriftTurn, ...]
    completions: tuple[CompletionCheck, ...]
    markers: tuple[MarkerHit, ...]
    marker_tokens: tuple[str, ...]  # the tokenizer's markers that were looked for

    @property
    def ok(self) -> bool:
        """Append-only, every sampled completion round-trips, and no marker is misplaced."""
        return (
            self.append_only
            and all(c.round_trip_equal for c in self.completions)
            and not self.markers
        )

    def _repr_html_(self) -> str:
        """The report as tables of chips in a notebook (`tokenizers_core.notebook`)."""
        return drift_html(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "append_only": self.append_only,
            "turns": [t.to_dict() for t in self.turns],
            "completions": [c.to_dict() for c in self.completions],
            "markers": [m.to_dict() for m in self.markers],
            "marker_tokens": list(self.marker_tokens),
        }


# ---- the doctor ---------------------------------------------------------------------------
def drift(
    tok: Any,
    messages: Any,
    *,
    completions: Any = None,
    chat_template: str | None = None,
    template_name: str | None = None,
    config: dict[str, Any] | None = None,
    tools: Any = None,
    renderer: chat_render.Renderer | None = None,
    time_limit: float = DRIFT_TIME_LIMIT,
    **extra: Any,
) -> DriftReport:
    """The drift report of `messages` (a whole conversation) through `tok` and its chat
    template (picked as `chat.render.prepare` picks it: `chat_template`, a `config`'s, the
    tokenizer's own, or the bundled `template_name`). `completions`: `[{"message": i, "ids":
    [...]}]`, the ids sampled for assistant message i. `renderer`: as `render_chat`'s (None:
    here); all the renders together get `time_limit` seconds. Bad input is InvalidInput; a
    template that fails on one of the conversation's prefixes says which.

    >>> import tokenizers_core as tc
    >>> tok = tc.load("qwen3")
    >>> chat = [{"role": "user", "content": "2+2?"},
    ...         {"role": "assistant", "reasoning_content": "Add them.", "content": "4"},
    ...         {"role": "user", "content": "And 3+3?"}]
    >>> turn = drift(tok, chat).turns[0]  # Qwen3's own template
    >>> turn.prefix_of_next, turn.construct.startswith("reasoning dropped")
    (False, True)
    >>> tok.decode([tok.token_to_id("h"), tok.token_to_id("ello")])
    'hello'
    >>> spelt = drift(tok, chat, completions=[{"message": 1, "ids": [71, 4791]}])
    >>> check = spelt.completions[0]
    >>> check.round_trip_equal, check.first_diff, check.canonical, check.retokenized
    (False, 0, False, (14990,))
    """
    tok = with_config_tokens(tok, config)
    inputs = chat_render.prepare(
        messages,
        chat_template=chat_template,
        template_name=template_name,
        config=config,
        tools=tools,
        tokenizer=tok,
        **extra,
    )
    sampled = _sampled(tok, inputs.messages, completions)
    renders = _Renders(tok, inputs, renderer, time_limit)
    turns = tuple(_turn(renders, i, sampled.get(i)) for i in _assistant_indices(inputs.messages))
    checks = tuple(_completion_check(tok, i, ids) for i, ids in sorted(sampled.items()))
    markers = marker_tokens(tok)
    hits = (
        *(hit for i, ids in sorted(sampled.items()) for hit in _spelt(tok, markers, i, ids)),
        *_injections(renders, markers),
    )
    return DriftReport(
        all(t.prefix_of_next for t in turns), turns, checks, tuple(hits), tuple(markers)
    )


def marker_tokens(tok: Any) -> dict[str, int]:
    """The tokenizer's markers, `{text: id}`: its added tokens (or, for tiktoken and
    sentencepiece files, its special tokens) shaped like a tag, those that mark nothing
    (reserved, unused, padding) left out.

    >>> import tokenizers_core as tc
    >>> sorted(m for m in marker_tokens(tc.load("qwen3")) if "think" in m or "tool" in m)
    ['</think>', '</tool_call>', '</tool_response>', '<think>', '<tool_call>', '<tool_response>']
    """
    added = [a.content for a in getattr(tok, "added_tokens", ())] or control_tokens(tok)
    out = {}
    for text in added:
        id_ = tok.token_to_id(text)
        if id_ is not None and _looks_like_marker(text):
            out[text] = id_
    return out


def _looks_like_marker(text: str) -> bool:
    """Shaped like a tag, and not one of the tags that mark nothing.

    >>> [_looks_like_marker(t) for t in ("<think>", "<|channel|>", "[TOOL_CALLS]", "hi")]
    [True, True, True, False]
    """
    lowered = text.lower()
    return bool(MARKER_SHAPE.fullmatch(text)) and not any(w in lowered for w in NOT_MARKERS)


# ---- the renders --------------------------------------------------------------------------
class _Renders:
    """The conversation's prefixes rendered and encoded, each once: `text(k, prompt)` is
    messages[:k] rendered (with the generation prompt when `prompt`), `ids(...)` its encoding;
    `whole()` the full conversation's render with its segments (for the injections)."""

    def __init__(
        self,
        tok: Any,
        inputs: chat_render.ChatInputs,
        renderer: chat_render.Renderer | None,
        time_limit: float,
    ) -> None:
        self.tok = tok
        self.inputs = inputs
        self.renderer = renderer
        self.deadline = time.monotonic() + time_limit
        self._texts: dict[tuple[int, bool], str] = {}
        self._ids: dict[tuple[int, bool], list[int]] = {}

    def text(self, k: int, prompt: bool) -> str:
        key = (k, prompt)
        if key not in self._texts:
            self._texts[key] = self._render(k, prompt).text
        return self._texts[key]

    def ids(self, k: int, prompt: bool) -> list[int]:
        key = (k, prompt)
        if key not in self._ids:
            self._ids[key] = encode_ids(self.tok, self.text(k, prompt))
        return self._ids[key]

    def whole(self) -> chat_render.TemplateRender:
        return self._render(len(self.inputs.messages), False, segments=True)

    def _render(self, k: int, prompt: bool, segments: bool = False) -> Any:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise InvalidInput(
                "the conversation's renders took longer than the drift doctor's time limit; "
                "check fewer turns at once"
            )
        inputs = replace(
            self.inputs, messages=self.inputs.messages[:k], add_generation_prompt=prompt
        )
        budget = min(left, TIME_LIMIT)
        try:
            if self.renderer is not None:
                return self.renderer(inputs, budget)
            if segments:
                return chat_render.render_template(inputs, time_limit=budget)
            return _TextOnly(chat_render.render_text(inputs, time_limit=budget)[0])
        except TemplateFailure as exc:
            with_prompt = " with the generation prompt" if prompt else ""
            raise InvalidInput(f"rendering messages 1–{k}{with_prompt}: {exc}") from None


@dataclass(frozen=True)
class _TextOnly:
    text: str


def encode_ids(tok: Any, text: str) -> list[int]:
    """`text`'s ids as transformers encodes a rendered chat (`chat.encode.encode_chat`)."""
    return encode_chat(tok, text).ids


# ---- turns --------------------------------------------------------------------------------
def _assistant_indices(messages: list[dict[str, Any]]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.get("role") == "assistant"]


def _next_turn(messages: list[dict[str, Any]], i: int) -> int:
    """Where the next turn's render stops: the next assistant message, else the end."""
    return next(
        (j for j in range(i + 1, len(messages)) if messages[j].get("role") == "assistant"),
        len(messages),
    )


def _turn(renders: _Renders, i: int, sampled: list[int] | None) -> DriftTurn:
    """Assistant message i as generated, against the conversation one turn later."""
    prompt = renders.text(i, True)
    prompt_ids = renders.ids(i, True)
    if sampled is None:
        completion = _completion_text(renders, i, prompt)
        completion_ids = encode_ids(renders.tok, completion)
    else:
        completion, completion_ids = renders.tok.decode(sampled), sampled
    ids = prompt_ids + completion_ids
    j = _next_turn(renders.inputs.messages, i)
    next_ids = renders.ids(j, False)
    reused = common_prefix(ids, next_ids)
    prefix = reused == len(ids)
    construct = None
    if not prefix:
        construct = _construct(renders, i, prompt, completion, renders.text(j, False), sampled)
    return DriftTurn(
        message=i,
        prefix_of_next=prefix,
        first_diff_token=None if prefix else reused,
        tokens_reused=reused,
        tokens_total=len(ids),
        construct=construct,
        next_message=j,
        prompt_tokens=len(prompt_ids),
        tokens_moved=0 if prefix else len(ids) - max(reused, len(prompt_ids)),
        diff_tokens=None if prefix else _tokens_at(renders.tok, reused, ids, next_ids),
        ids=tuple(ids),
        next_ids=tuple(next_ids),
    )


def _completion_text(renders: _Renders, i: int, prompt: str) -> str:
    """What the model wrote for assistant message i, as the template writes it: the render of
    messages[:i + 1] after the generation prompt (after the part it shares with the prompt,
    when the template opens the turn otherwise), up to the end of the turn's last end-of-turn
    token (the model stops there; the template's newline after it is the next turn's)."""
    written = renders.text(i + 1, False)
    start = len(prompt) if written.startswith(prompt) else common_prefix(prompt, written)
    completion = written[start:]
    end = renders.inputs.end_of_turn
    if end and end in completion:
        completion = completion[: completion.rindex(end) + len(end)]
    return completion


def common_prefix(a: Any, b: Any) -> int:
    """The length of the longest common prefix of two sequences.

    >>> common_prefix([1, 2, 3], [1, 2, 4, 5]), common_prefix("abc", "abc")
    (2, 3)
    """
    n = min(len(a), len(b))
    return next((k for k in range(n) if a[k] != b[k]), n)


def _tokens_at(tok: Any, k: int, ids: list[int], next_ids: list[int]) -> tuple[Any, Any]:
    def at(seq: list[int]) -> str | None:
        return tok.id_to_token(seq[k]) if k < len(seq) else None

    return at(ids), at(next_ids)


def _construct(
    renders: _Renders,
    i: int,
    prompt: str,
    completion: str,
    next_text: str,
    sampled: list[int] | None,
) -> str:
    """The template habit that makes turn i no prefix of the next, named from the texts: the
    same text tokenized otherwise, or by where the texts part: inside the generation prompt,
    in earlier messages, at reasoning the next turn no longer has, in the completion."""
    text = prompt + completion
    parted = common_prefix(text, next_text)
    if parted == len(text):
        return RETOKENIZED
    if parted < len(prompt):
        opens_at = common_prefix(renders.text(i, False), prompt)
        return GENERATION_PROMPT if parted >= opens_at else EARLIER_REWRITTEN
    message = renders.inputs.messages[i]
    if _reasoning_dropped(message, text[parted:], next_text[parted:]):
        return REASONING_DROPPED
    return SAMPLED_REWRITTEN if sampled is not None else ASSISTANT_REWRITTEN


_THINK = re.compile(r"<think>.*?</think>", re.S)


def _reasoning_dropped(message: dict[str, Any], turn_rest: str, next_rest: str) -> bool:
    """Whether the turn's reasoning (the message's `reasoning_content`, which `prepare` copies
    from `thinking` and `reasoning`; else a <think> block, even an empty one) is in what is
    left of the turn after the texts part, and not in what is left of the next.

    >>> _reasoning_dropped({}, "<think>\\n\\n</think>\\n\\nHi", "Hi<|im_end|>")
    True
    """
    given = message.get("reasoning_content")
    if isinstance(given, str) and given.strip():
        return given.strip() in turn_rest and given.strip() not in next_rest
    block = _THINK.search(turn_rest)
    return block is not None and block.group(0) not in next_rest


# ---- completions --------------------------------------------------------------------------
def _sampled(tok: Any, messages: list[dict[str, Any]], completions: Any) -> dict[int, list[int]]:
    """`completions` checked: {assistant message index: its sampled ids}."""
    if completions is None:
        return {}
    if not isinstance(completions, (list, tuple)):
        raise InvalidInput('completions must be a list of {"message": i, "ids": [...]} objects')
    out: dict[int, list[int]] = {}
    for n, entry in enumerate(completions):
        where = f"completion {n + 1}"
        if not isinstance(entry, dict) or "message" not in entry or "ids" not in entry:
            raise InvalidInput(f'{where} must be an object with "message" and "ids"')
        i, ids = entry["message"], entry["ids"]
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(messages):
            raise InvalidInput(f"{where}: message must be an index from 0 to {len(messages) - 1}")
        if messages[i].get("role") != "assistant":
            raise InvalidInput(f"{where}: message {i} is a {messages[i].get('role')!r} message")
        if i in out:
            raise InvalidInput(f"{where}: message {i} has two completions")
        out[i] = _checked_ids(tok, ids, where)
    return out


def _checked_ids(tok: Any, ids: Any, where: str) -> list[int]:
    if not isinstance(ids, (list, tuple)):
        raise InvalidInput(f"{where}: ids must be a list of token ids")
    for id_ in ids:
        if not isinstance(id_, int) or isinstance(id_, bool) or id_ < 0:
            raise InvalidInput(f"{where}: {id_!r} is not a token id")
        if tok.id_to_token(id_) is None:
            raise InvalidInput(f"{where}: id {id_} is not in the tokenizer's vocabulary")
    return list(ids)


def _completion_check(tok: Any, message: int, ids: list[int]) -> CompletionCheck:
    retokenized = encode_ids(tok, tok.decode(ids))
    differs = common_prefix(ids, retokenized)
    same = differs == len(ids) == len(retokenized)
    canonical, first_break = _canonicality(tok, ids)
    return CompletionCheck(
        message, same, None if same else differs, canonical, tuple(retokenized), first_break
    )


def _canonicality(tok: Any, ids: list[int]) -> tuple[bool | None, int | None]:
    """(canonical, the first index where not) of the ordinary runs of `ids` between its added
    and special tokens, each checked by `is_canonical` (a run past its MAX_IDS by the whole
    re-encode alone); (None, None) when the engine cannot tell for this model."""
    for start, run in _ordinary_runs(tok, ids):
        try:
            if len(run) <= MAX_IDS:
                found = is_canonical(tok, run)
                index = None if found is None else found.index
            else:
                index = _first_difference(run, ordinary_ids(tok, tok.decode(run)))
        except InvalidInput:
            return None, None
        if index is not None:
            return False, start + index
    return True, None


def _ordinary_runs(tok: Any, ids: list[int]) -> Iterator[tuple[int, list[int]]]:
    """(start, ids) of each stretch of `ids` without an added or special token.

    >>> import tokenizers_core as tc
    >>> list(_ordinary_runs(tc.load("qwen3"), [151667, 71, 4791, 151668]))
    [(1, [71, 4791])]
    """
    control = _control_ids(tok)
    start = 0
    for k, id_ in enumerate([*ids, None]):
        if id_ is None or id_ in control:
            if k > start:
                yield start, ids[start:k]
            start = k + 1


def _control_ids(tok: Any) -> set[int]:
    added = {a.id for a in getattr(tok, "added_tokens", ()) if a.id is not None}
    return added | {i for t in control_tokens(tok) if (i := tok.token_to_id(t)) is not None}


def _first_difference(a: list[int], b: list[int]) -> int | None:
    k = common_prefix(a, b)
    return None if k == len(a) == len(b) else k


# ---- markers ------------------------------------------------------------------------------
def _spelt(tok: Any, markers: dict[str, int], message: int, ids: list[int]) -> Iterator[MarkerHit]:
    """The markers that `ids` spell from several tokens, each at the index of its first."""
    pieces = tok.decode_tokens_bytes(ids)
    starts, position = [], 0
    for piece in pieces:
        starts.append(position)
        position += len(piece)
    joined = b"".join(pieces)
    found = []
    for marker, id_ in markers.items():
        needle = marker.encode("utf-8")
        at = joined.find(needle)
        while at >= 0:
            k = bisect_right(starts, at) - 1
            if ids[k] != id_:
                found.append(MarkerHit(message, marker, False, k, "spelt"))
            at = joined.find(needle, at + len(needle))
    return iter(sorted(found, key=lambda h: h.position))


def _injections(renders: _Renders, markers: dict[str, int]) -> list[MarkerHit]:
    """Markers typed in user or tool content that the rendered conversation's tokens hold as
    the control token: each with its message and its character in the content."""
    typed = [m["content"] for m in renders.inputs.messages if _typed(m)]
    if not any(marker in content for marker in markers for content in typed):
        return []  # no marker's text typed: no render needed
    done = renders.whole()
    encoding = encode_chat(renders.tok, done.text)
    by_id = {id_: marker for marker, id_ in markers.items()}
    contents = [
        (s.index, s.content)
        for s in done.segments
        if s.index is not None
        and s.content is not None
        and _typed(renders.inputs.messages[s.index])
    ]
    hits = []
    for id_, (start, _end) in zip(encoding.ids, encoding.offsets):
        marker = by_id.get(id_)
        if marker is None:
            continue
        for index, (c_start, c_end) in contents:
            if c_start <= start < c_end:
                hits.append(MarkerHit(index, marker, True, start - c_start, "injection"))
    return hits


def _typed(message: dict[str, Any]) -> bool:
    """A message whose content someone else typed (a user, a tool's output)."""
    return message.get("role") not in AUTHORED_ROLES and isinstance(message.get("content"), str)
