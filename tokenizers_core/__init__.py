"""tokenizers_core: a stepwise, pure-Python tokenizer engine.

>>> import tokenizers_core as tc
>>> tc.load("char").encode("hi!").tokens
['h', 'i', '!']

The stages are packages named as in Hugging Face `tokenizers`, each exporting Hugging Face's
spellings: `tokenizers_core.normalizers`, `.pre_tokenizers`, `.models`, `.processors`,
`.decoders`, and `tokenizers_core.trainers` (`BpeTrainer`, ..., for
`Tokenizer.train_from_iterator`).
The names each public module exports are pinned by `tests/core/test_public_api.py`; a name that
moves keeps working for a release with a `DeprecationWarning` (`deprecation.py`).
"""

from __future__ import annotations

from typing import Any, Iterable

from .audit import audit  # eager: importing the audit package later would rebind tc.audit
from .encoding import Encoding, Token
from .errors import InvalidInput, NotFound
from .fingerprints import fingerprint
from .grading import grade  # eager, as audit: the package's module names differ from grade
from .locks import lock, verify
from .normalized import NormalizedString
from .pipeline import Tokenizer
from .pretrained import encoding_for_model, encoding_name_for_model, load
from .runtime_parity import parity
from .steps import Step, Trace, register_step, step_from_dict
from .tokenizations import is_canonical, tokenizations  # eager, as audit: the package's name
from .version import version

__all__ = [
    "Encoding",
    "InvalidInput",
    "NormalizedString",
    "NotFound",
    "Step",
    "Token",
    "Tokenizer",
    "Trace",
    "algorithms",
    "apply_chat_template",
    "audit",
    "check",
    "count",
    "drift",
    "encoding_for_model",
    "encoding_name_for_model",
    "fingerprint",
    "grade",
    "is_canonical",
    "load",
    "load_counts",
    "lock",
    "merge_counts",
    "parity",
    "register_step",
    "step_from_dict",
    "tokenizations",
    "train",
    "verify",
]


__version__ = version()


def check(
    algorithm: str, lines: Iterable[str], theirs: Any, *, vocab_size: int, **options: Any
) -> Any:
    """`tc.check`: a student's implementation against ours (see `tokenizers_core.checker.check`)."""
    from .checker import check as run_check  # lazy: the checker loads the textbook's sources

    return run_check(algorithm, lines, theirs, vocab_size=vocab_size, **options)


def drift(tok: Any, messages: Any, *, completions: Any = None, **options: Any) -> Any:
    """`tc.drift`: the drift doctor of a conversation: whether each assistant turn, as it was
    generated, is a token prefix of the next turn's render, whether sampled completions
    round-trip, and the markers spelt or injected (see `tokenizers_core.drift_doctor.drift`)."""
    from .drift_doctor import drift as run_drift  # lazy: jinja2 loads only for chat templates

    return run_drift(tok, messages, completions=completions, **options)


def apply_chat_template(
    tok_or_config: Any,
    messages: Any,
    *,
    chat_template: str | None = None,
    add_generation_prompt: bool = False,
    tools: Any = None,
    **options: Any,
) -> str:
    """`tc.apply_chat_template`: the chat as transformers' apply_chat_template(tokenize=False)
    renders it (see `tokenizers_core.chat.apply_chat_template`; `render_chat` there gives the
    spans, tokens and lints too)."""
    from .chat import apply_chat_template as render  # lazy: jinja2 loads only for chat templates

    return render(
        tok_or_config,
        messages,
        chat_template=chat_template,
        add_generation_prompt=add_generation_prompt,
        tools=tools,
        **options,
    )


def train(
    algorithm: str,
    lines: Iterable[str] | None = None,
    vocab_size: int | None = None,
    *,
    counts: Any = None,
    **options: Any,
) -> Tokenizer:
    """`tc.train`: a tokeniser trained with one of `algorithms()` on an iterable of lines, or on
    the `counts` of a corpus (`tc.count`, `tc.load_counts`; see
    `tokenizers_core.implementations.training`)."""
    from .implementations import training  # lazy: the trainers load on first use

    return training.train(algorithm, lines, vocab_size, counts=counts, **options)


def count(lines: Iterable[str] | None = None, algorithm: str = "byte_bpe", **options: Any) -> Any:
    """`tc.count`: the pre-token counts of a corpus (lines, or `files=[...]` on `processes=N`)
    for a trainer that trains on word counts, to save as a counts file (`.save(path)`), merge
    (`tc.merge_counts`) and train from (`tc.train(..., counts=...)`); see
    `tokenizers_core.implementations.counting`."""
    from .implementations import training  # lazy: the trainers load on first use

    return training.count(lines, algorithm, **options)


def load_counts(path: Any) -> Any:
    """`tc.load_counts`: a counts file read back (`tokvis count` or `Counts.save` wrote it)."""
    from .implementations import training  # lazy: the trainers load on first use

    return training.load_counts(path)


def merge_counts(parts: Iterable[Any], *, min_frequency: int = 0) -> Any:
    """`tc.merge_counts`: the sum of the counts of shards, the same as counting them together."""
    from .implementations import training  # lazy: the trainers load on first use

    return training.merge_counts(parts, min_frequency=min_frequency)


def algorithms() -> list[str]:
    """The algorithms `train` accepts."""
    from .implementations import training  # lazy: the trainers load on first use

    return training.algorithms()
