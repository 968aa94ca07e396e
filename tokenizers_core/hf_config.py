"""Reading one stage's entry of a tokenizer.json: what every stage's `from_hf_config` does first.

An entry is a JSON object whose "type" names the component ({"type": "NFC"}, {"type": "Split",
...}); null means the stage is absent. Each stage (normalizers, pre_tokenizers, processors,
decoders) keeps a table of builders, one per type it supports, and hands its entries here, so
that an entry of the wrong shape, an unknown type and a bad option are reported in one way:

>>> builders = {"Upper": lambda config: str.upper}
>>> from_entry({"type": "Upper"}, "normalizer", builders)("a")
'A'
>>> from_entry(None, "normalizer", builders) is None
True
>>> from_entry({"type": "Lower"}, "normalizer", builders)
Traceback (most recent call last):
...
tokenizers_core.errors.InvalidInput: normalizer type 'Lower' is not supported (supported: Upper)
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .errors import InvalidInput

__all__ = ["from_entry"]

Builder = Callable[[Any], Any]


def from_entry(
    config: Any, stage: str, builders: Mapping[str, Builder], *, named: tuple[str, ...] = ()
) -> Any:
    """The component `builders[config["type"]](config)` builds (None for a null entry).

    `stage` is the entry's key in a tokenizer.json ("normalizer", "pre_tokenizer",
    "post_processor", "decoder"). InvalidInput when the entry is not an object with a string
    "type", or no builder has that type; a ValueError of the builder becomes InvalidInput
    "bad <type> <stage> config: <message>", unless its message already names where it came
    from: it starts with "<stage> " or "bad " (a nested entry's), or with one of `named`.

    >>> from_entry({"type": "Half", "n": "x"}, "decoder", {"Half": lambda c: float(c["n"])})
    ...                                               # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    tokenizers_core.errors.InvalidInput: bad Half decoder config: could not convert string to
    float: 'x'
    """
    if config is None:
        return None
    if not isinstance(config, Mapping) or not isinstance(config.get("type"), str):
        raise InvalidInput(f'a {stage} config is a JSON object with a "type", not {config!r}')
    kind = config["type"]
    if kind not in builders:
        raise InvalidInput(
            f"{stage} type {kind!r} is not supported (supported: {', '.join(builders)})"
        )
    try:
        return builders[kind](config)
    except ValueError as err:
        if str(err).startswith((f"{stage} ", "bad ", *named)):
            raise
        raise InvalidInput(f"bad {kind} {stage} config: {err}") from None
