"""Token healing at a prompt's end (Guidance's `token_healing`; Phan et al., arXiv 2410.09303,
"Understanding and Mitigating Tokenization Bias in Language Models").

A prompt that ends mid-word ends on a token the model rarely saw there: "The quick bro" ends
with " bro", where the text would go on as " brown", one token. Healing backs off one token and
constrains the next to extend the removed text: the healed prompt is the canonical ids without
the last token, and the allowed next tokens are the vocabulary tokens whose surface starts with
the removed token's surface (in the lattice's units, so a byte-level token may extend it by part
of a character; a word-initial WordPiece token is extended only by word-initial tokens). Under a
model with an end-of-word suffix (CLIP's `</w>`) the prompt's last word is complete, so only
tokens ending the word there extend it.

>>> from tokenizers_core.models.bpe.model import BPE
>>> from tokenizers_core.pipeline import Tokenizer
>>> tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2, "abb": 3}, [("a", "b"), ("ab", "b")]))
>>> h = heal(tok, "aab")
>>> h.ids, h.healed_ids, h.removed, h.allowed
((0, 2), (0,), 'ab', ((2, 'ab'), (3, 'abb')))
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InvalidInput
from .canonical import token_texts
from .space import Space, check_text, ordinary_ids, space_of, surface_bytes

MAX_ALLOWED = 200


@dataclass(frozen=True)
class Healing:
    """A healed prompt: the prompt's canonical `ids`, `healed_ids` (without the last token),
    the removed token (`removed_id`, its text `removed`), the allowed next tokens as (id, text)
    (by their bytes, then id; at most the `limit` asked for) and how many there are in all
    (`n_allowed`; the removed token itself is one of them)."""

    prompt: str
    ids: tuple[int, ...]
    healed_ids: tuple[int, ...]
    removed_id: int
    removed: str
    allowed: tuple[tuple[int, str], ...]
    n_allowed: int

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ids"], data["healed_ids"] = list(self.ids), list(self.healed_ids)
        data["allowed"] = [list(a) for a in self.allowed]
        return data


def heal(tok: Any, prompt: str, *, limit: int = MAX_ALLOWED) -> Healing:
    """Heal the end of `prompt` (see the module docstring). InvalidInput for an empty prompt,
    one ending with an unknown token, or one over `tokenizations.MAX_TEXT_BYTES`.

    >>> import tokenizers_core as tc
    >>> h = heal(tc.load("cl100k_base"), "The quick bro")
    >>> h.removed, h.n_allowed > 10, all(t.startswith(" bro") for _i, t in h.allowed)
    (' bro', True, True)
    """
    check_text(prompt, "prompt")
    if not isinstance(limit, int) or not 1 <= limit <= MAX_ALLOWED:
        raise InvalidInput(f"limit must be between 1 and {MAX_ALLOWED}")
    space = space_of(tok)
    ids = ordinary_ids(tok, prompt)
    if not ids:
        raise InvalidInput("the prompt is empty: there is no last token to heal")
    last = ids[-1]
    surface = space.surface_of.get(last)
    if surface is None:
        raise InvalidInput(
            f"the prompt ends with {tok.id_to_token(last)!r}, which is no text of the "
            "vocabulary (the unknown token or an added token): nothing to extend"
        )
    extending = _extending(space, surface)
    ordered = sorted(extending, key=lambda pair: (surface_bytes(space, pair[1]), pair[0]))
    shown = [i for i, _s in ordered[:limit]]
    return Healing(
        prompt=prompt,
        ids=tuple(ids),
        healed_ids=tuple(ids[:-1]),
        removed_id=last,
        removed=token_texts(tok, space, [last])[0],
        allowed=tuple(zip(shown, token_texts(tok, space, shown))),
        n_allowed=len(ordered),
    )


def _extending(space: Space, surface: str) -> list[tuple[int, str]]:
    """(id, surface) of every token whose surface starts with `surface`: a bisect into the
    sorted surfaces, then the run that shares the prefix."""
    ordered = space.ordered
    out: list[tuple[int, str]] = []
    for s in ordered[bisect_left(ordered, surface) :]:
        if not s.startswith(surface):
            break
        out.extend((i, s) for i in space.surfaces[s])
    return out
