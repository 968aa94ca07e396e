"""The lattice of a text: every vocabulary token that matches at each position, as edges
(start, end, id) over the text's units (see `space` for what a unit is in each family), with the
canonical path (what `encode` gives) marked. Shaped like the Unigram lattice view's own
(`app/views/unigram_lattice.py`: positions 0..n, arcs from j to i each carrying a piece), so a
view can draw it the same way.

Finding the tokens is a dictionary lookup per candidate length: `Space.lengths` holds, for each
first two units, the lengths of the surfaces that start so (83 at most for o200k's 200k tokens),
so a 2,000-byte text costs a few tens of thousands of lookups, not one per token per position
(2,000 spaces under cl100k_base, the densest case, 168,281 edges in ~0.1 s). A lattice has
at most `MAX_EDGES` edges (a crafted vocabulary could give millions).

>>> from tokenizers_core.models.bpe.model import BPE
>>> from tokenizers_core.pipeline import Tokenizer
>>> tok = Tokenizer(BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
>>> lat = build_lattice(tok, "abab")
>>> [(e.start, e.end, e.token, e.canonical) for e in lat.edges if e.start < 2]
[(0, 1, 'a', False), (0, 2, 'ab', True), (1, 2, 'b', False)]
>>> Lattice.from_dict(lat.to_dict()) == lat
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InvalidInput
from ..models.bpe.model import show_bytes
from .space import SENTINEL, SPACE, Space, space_of, spell, surface_bytes, unit_label

Adjacency = list[list[tuple[int, int]]]  # out[i] = [(end, id), ...] by end, then id
# the most edges a lattice may have: 2,000 spaces under cl100k_base (85 tokens are runs of
# spaces, the longest 128) have 168,281, the densest of the bundled tokenisers
MAX_EDGES = 500_000


@dataclass(frozen=True)
class Edge:
    """One token matching the text: units `start`..`end`, the vocabulary entry `token` (as the
    model stores it: `Ġworld`, `##aff`, `<0xE6>`), what it stands for, `text` (bytes that are
    only part of a character shown as `<E6>`), whether it is on the canonical path, and whether
    it is the unknown token (which stands for the text the canonical encoding gave it)."""

    start: int
    end: int
    id: int
    token: str
    text: str
    canonical: bool
    unknown: bool = False


@dataclass(frozen=True)
class Lattice:
    """The lattice as a value a view draws: the input `text`, the model `family`, the `unit`
    ("byte" or "char"), a label per unit (`units`: a character, a byte as its ASCII character
    or hex 'E6', '' for a word mark), the characters over byte units (`chars`: (start, end,
    character), a word mark left out), the positions of the word marks (`boundaries`), the
    `edges` by (start, end, id), and the `canonical` ids."""

    text: str
    family: str
    unit: str
    units: tuple[str, ...]
    chars: tuple[tuple[int, int, str], ...]
    boundaries: tuple[int, ...]
    edges: tuple[Edge, ...]
    canonical: tuple[int, ...]

    @property
    def n(self) -> int:
        """The number of units (positions run 0..n)."""
        return len(self.units)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: lists for tuples, each edge a dict."""
        return {
            "text": self.text,
            "family": self.family,
            "unit": self.unit,
            "units": list(self.units),
            "chars": [list(c) for c in self.chars],
            "boundaries": list(self.boundaries),
            "edges": [asdict(e) for e in self.edges],
            "canonical": list(self.canonical),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Lattice":
        return cls(
            text=data["text"],
            family=data["family"],
            unit=data["unit"],
            units=tuple(data["units"]),
            chars=tuple((s, e, c) for s, e, c in data["chars"]),
            boundaries=tuple(data["boundaries"]),
            edges=tuple(Edge(**e) for e in data["edges"]),
            canonical=tuple(data["canonical"]),
        )


def find_edges(space: Space, units: str, path: tuple[tuple[int, int, int], ...]) -> Adjacency:
    """out[i]: the (end, id) of every token matching at unit i, by end then id; the canonical
    path's unknown-token edges added where it has them. InvalidInput past `MAX_EDGES` edges.

    >>> import tokenizers_core as tc
    >>> s = space_of(tc.load("cl100k_base"))
    >>> find_edges(s, "Ġhi", ((0, 3, 15960),))[0]
    [(1, 220), (2, 305), (3, 15960)]
    """
    get = space.surfaces.get
    lengths = space.lengths.get
    n = len(units)
    out: Adjacency = []
    edges = 0
    for i in range(n):
        ids = get(units[i])
        here = [(i + 1, t) for t in ids] if ids else []
        for size in lengths(units[i : i + 2], ()):
            end = i + size
            if end > n:
                break
            ids = get(units[i:end])
            if ids:
                here.extend([(end, t) for t in ids])
        out.append(here)
        edges += len(here)
        if edges > MAX_EDGES:
            raise InvalidInput(
                f"the first {i + 1:,} units of this text already match more than "
                f"{MAX_EDGES:,} tokens: the space of tokenisations is computed for lattices of "
                "at most that many edges (try a shorter text)"
            )
    if space.not_first and out:
        out[0] = [(end, id_) for end, id_ in out[0] if id_ not in space.not_first]
    for start, end, id_ in path:
        if space.surface_of.get(id_) is None and (end, id_) not in out[start]:
            out[start].append((end, id_))  # an unknown token
            out[start].sort()
    return out


def build_lattice(tok: Any, text: str) -> Lattice:
    """The lattice of `text` (no bound here: `tokenizations` checks the text's size)."""
    space = space_of(tok)
    units, path = spell(tok, space, text)
    return lattice_value(tok, space, text, units, find_edges(space, units, path), path)


def lattice_value(
    tok: Any,
    space: Space,
    text: str,
    units: str,
    out: Adjacency,
    path: tuple[tuple[int, int, int], ...],
) -> Lattice:
    """The `Lattice` value of an adjacency (what `Tokenizations.lattice` builds on demand)."""
    on_path = set(path)
    known: dict[int, tuple[str, str]] = {}
    edges = []
    for start, here in enumerate(out):
        for end, id_ in here:
            label = known.get(id_)
            unknown = space.surface_of.get(id_) is None
            if label is None or unknown:
                label = (tok.model.id_to_token(id_) or "", edge_text(space, units[start:end]))
                if not unknown:
                    known[id_] = label
            edges.append(
                Edge(start, end, id_, label[0], label[1], (start, end, id_) in on_path, unknown)
            )
    return Lattice(
        text=text,
        family=space.family,
        unit=space.unit,
        units=tuple(unit_label(space, u) for u in units),
        chars=_chars(space, units),
        boundaries=tuple(i for i, u in enumerate(units) if u == SENTINEL),
        edges=tuple(edges),
        canonical=tuple(id_ for _s, _e, id_ in path),
    )


def edge_text(space: Space, surface: str) -> str:
    """What a stretch of units stands for, honest about bytes that are part of a character."""
    if space.unit == "char":
        return surface.replace(SENTINEL, "")
    text = show_bytes(surface_bytes(space, surface))
    return text.replace(" ", SPACE) if space.spaces else text


def _chars(space: Space, units: str) -> tuple[tuple[int, int, str], ...]:
    """Each character as (start unit, end unit, character); word marks left out."""
    out = []
    i = 0
    n = len(units)
    while i < n:
        if units[i] == SENTINEL:
            i += 1
            continue
        size = 1
        if space.unit == "byte":
            size = utf8_size(surface_bytes(space, units[i])[0])
        out.append((i, i + size, edge_text(space, units[i : i + size])))
        i += size
    return tuple(out)


def utf8_size(lead: int) -> int:
    """How many bytes a UTF-8 character with this first byte takes (1 for a stray byte)."""
    return 4 if lead >= 0xF0 else 3 if lead >= 0xE0 else 2 if lead >= 0xC0 else 1
