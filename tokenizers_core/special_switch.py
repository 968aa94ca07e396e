"""The one switch for special tokens typed in a text, on every surface (the page's and the API's
`special`, `tokvis --special` / `--no-special`, a lock's options): None is the owner library's
default, True reads them as special tokens, False as ordinary text. `special_options` turns it
into the keywords of `tok.encode` for each kind of tokenizer."""

from __future__ import annotations

from typing import Any

from .errors import InvalidInput


def special_note(tok: Any) -> str | None:
    """Why the `special` switch does nothing for `tok` (None: it applies). It applies to the
    OpenAI encodings and ranks files given special tokens, and to every tokenizer with special
    added tokens (tokenizer.json files, BERT, GGUF); sentencepiece models read no token from the
    text (`<s>` typed is text), and the rule tokenisers have none."""
    if getattr(tok, "special_tokens", None) or getattr(tok.added_vocabulary, "special", None):
        return None
    return "This tokenizer reads no special tokens from the text: typed, they are ordinary text."


def is_tiktoken(tok: Any) -> bool:
    return bool(getattr(tok, "special_tokens", None)) and hasattr(tok, "strict_special")


def special_default(tok: Any) -> str | None:
    """What the owner library does, by default, with a special token typed in the text (the
    page's label for the switch left out); None where the switch does not apply."""
    if special_note(tok) is not None:
        return None
    if is_tiktoken(tok):
        if tok.strict_special:
            return "refused (tiktoken)"
        return "ordinary text"
    return "special (Hugging Face)"


def special_options(
    tok: Any, special: bool | None, text: str | list | None = None
) -> dict[str, Any]:
    """The keywords of `tok.encode` / `tok.trace` for the `special` switch: None is the owner
    library's default (no keywords: Hugging Face matches special added tokens, tiktoken refuses
    them, which raises here with the switch's name when `text` holds one); True reads them as
    special tokens (tiktoken's `allowed_special="all"`, Hugging Face's default); False as
    ordinary text (`disallowed_special=()`, Hugging Face's `encode_special_tokens=True`)."""
    if special_note(tok) is not None:
        return {}
    if is_tiktoken(tok):
        if special is None:
            _refuse_typed_special(tok, text)
            return {}
        return {"allowed_special": "all"} if special else {"disallowed_special": ()}
    return {} if special is None else {"encode_special_tokens": not special}


def _refuse_typed_special(tok: Any, text: str | list | None) -> None:
    """tiktoken's default refusal of a special token typed in the text, said in the words of
    the surfaces' switch (the core's own message names tiktoken's keywords)."""
    if not tok.strict_special or text is None:
        return
    texts = [text] if isinstance(text, str) else [t for t in text if isinstance(t, str)]
    for token in sorted(tok.special_tokens, key=lambda t: (-len(t), t)):
        if any(token in t for t in texts):
            raise InvalidInput(
                f"the text holds the special token {token!r}, which tiktoken's encode refuses "
                f"by default ({tok.name} is a tiktoken encoding): turn the special switch on "
                "(special=true; tokvis --special) to read it as one special token, or off "
                "(special=false; tokvis --no-special) to read it as ordinary text"
            )
