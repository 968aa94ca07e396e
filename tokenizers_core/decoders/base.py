"""What every decoder shares (`_Decoder`): `decode` joins what `decode_chain` leaves, and the
`tokenizer.json` form is the decoder's own options."""

from __future__ import annotations

from typing import Any, Iterable


class _Decoder:
    """What every decoder shares: `decode` joins what `decode_chain` leaves."""

    def decode_chain(self, tokens: list[str]) -> list[str]:  # pragma: no cover
        raise NotImplementedError

    def decode(self, tokens: Iterable[str]) -> str:
        return "".join(self.decode_chain(list(tokens)))

    def describe(self) -> str:
        return type(self).__name__

    def to_hf_config(self) -> dict[str, Any]:
        """This decoder as a `tokenizer.json` "decoder" entry (as Hugging Face writes it).

        >>> from tokenizers_core.decoders import Strip
        >>> Strip(" ", 1, 0).to_hf_config()
        {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0}
        """
        return {
            "type": type(self).__name__,
            **{k: v for k, v in vars(self).items() if not k.startswith("_")},
        }

    def __repr__(self) -> str:
        return self.describe()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(type(self).__name__)
