"""Each vocabulary entry's health: one primary category, with the reason (Land & Bartolo, 2024,
"Fishing for Magikarp", the categories that need only the tokenizer).

The categories, tried in this order (the first that holds is the entry's):

- ``special``: a special token (an added token marked special, or the model's own special
  tokens, tiktoken's and sentencepiece's) that the ordinary text path does not give back: typed
  as text, with special-token matching off, its string becomes other tokens. It occurs only
  when the caller asks for it as a special token. (The unknown token is one too, and the reason
  says that unknown characters also become it.)
- ``never``: no input text can produce the token at all. This is only said with a proof, one of:
  (1) *the model cannot build it*: a merge-based BPE (Hugging Face's BPE without
  ``ignore_merges``, the textbook BPE, sentencepiece's BPE) outputs a symbol only if it is a
  starting symbol (one character, with the continuation prefix or end-of-word suffix if the
  model has them; a byte-fallback ``<0xNN>`` piece; the unknown token) or the result of a merge
  of two symbols it can output. The tokens outside that closure (computed to a fixpoint) are
  never produced. (Rank-ordered BPE with a whole-word shortcut, tiktoken's and Llama 3's
  ``ignore_merges``, outputs any token that is a whole pre-tokenised piece, so this proof is not
  used there.) (2) *the pre-tokeniser always cuts it*: a pre-tokeniser that splits on
  whitespace and drops it (BERT's, Whitespace, WhitespaceSplit) never hands the model a piece
  with whitespace; BERT's also makes every punctuation character a piece of its own, so a token
  with punctuation beside anything else, or a continuation (``##,``) of a punctuation
  character, never appears; Whitespace (``\\w+|[^\\w\\s]+``) never puts a word character and
  another non-space character in one piece. An added token is matched whole before the model
  runs, so neither proof applies to it. The test suite checks soundness: on small
  vocabularies built for it and on BERT, no token that exhaustive or random (Hypothesis) texts
  produce is called ``never``.
- ``undecodable``: the token's bytes are not complete UTF-8 (a byte-level token 0x80-0xFF, a
  merged partial sequence such as the first two bytes of an emoji, a byte-fallback ``<0xE6>``):
  it has no text of its own, so it is always a part of a character spread over tokens.
- ``ok``: its decoded text, encoded again (no special tokens added, special-token matching off),
  is exactly this one token. A token that only occurs inside a word (a continuation ``##ing``;
  a sentencepiece piece without ``▁``; a piece without the end-of-word suffix ``</w>``) is
  also ok when its text beside a one-letter neighbour (``q`` + ``ing``) encodes to the
  neighbour's own tokens and it.
- ``unreachable``: its decoded text encodes to other tokens (kept as `reencoded`), and no proof
  says it never occurs: it may still occur inside some longer text (`seen` counts how often
  the corpus produced it).

` davidjl` (cl100k id 99944; Magikarp's best-known under-trained cl100k token) is ``ok`` here:
its string encodes back to it, and nothing the tokenizer alone can show marks it. Its
under-training shows only in the model's weights (Magikarp's unembedding indicators); what the
tokenizer and a corpus do say is that the bundled corpora never produce it (`seen` is 0, and
the audit's ``unseen`` flag).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import regex

from .. import byte_api
from ..pre_tokenizers import is_bert_punctuation

CATEGORIES = ("ok", "unreachable", "never", "undecodable", "special")

LABELS = {
    "ok": "OK",
    "unreachable": "Unreachable as a single token",
    "never": "Never produced",
    "undecodable": "Undecodable (partial UTF-8)",
    "special": "Special only",
}

# A token that occurs only inside a word is re-encoded beside one of these letters (the first
# that gives it back), rare ones first.
_NEIGHBOURS = "qxzjkvwyfbghpmcudlnrtsioae"


@dataclass(frozen=True)
class Health:
    """One entry's primary category, the reason in a sentence, its decoded text (None when
    its bytes are not complete UTF-8) and, for "unreachable", the ids its text encodes to."""

    id: int
    token: str
    text: str | None
    category: str
    reason: str
    reencoded: tuple[int, ...] = ()


def vocabulary_ids(tok: Any) -> list[int]:
    """Every id the tokenizer has a token for (the model's and the added tokens'), in order.

    >>> import tokenizers_core as tc
    >>> vocabulary_ids(tc.load("bert-base-uncased"))[:3]
    [0, 1, 2]
    """
    ids = set(range(tok.model.get_vocab_size()))
    ids.update(t.id for t in tok.added_tokens)
    for table in (getattr(tok.model, "vocab", None), getattr(tok.model, "special_tokens", None)):
        if isinstance(table, dict):  # ids need not be 0..size-1 (holes)
            ids.update(table.values())
    return sorted(i for i in ids if tok.id_to_token(i) is not None)


def token_bytes(tok: Any, id_: int, token: str) -> bytes:
    """The bytes a token stands for: a byte-level token's bytes, a byte-fallback piece's one
    byte (``<0xE6>``), else its text in UTF-8."""
    if byte_api.is_byte_level(tok) and not tok.is_special(token):
        return tok.decode_single_token_bytes(id_)
    if (
        getattr(tok.model, "byte_fallback", False)
        and len(token) == 6
        and token.startswith("<0x")
        and token.endswith(">")
    ):
        try:
            return bytes([int(token[3:5], 16)])
        except ValueError:
            pass
    return token.encode("utf-8")


def special_ids(tok: Any) -> dict[int, str]:
    """{id: token} of the special tokens: the special added tokens, else the model's own."""
    if tok.added_tokens:
        return {t.id: t.content for t in tok.added_tokens if t.special}
    special = getattr(tok.model, "special_tokens", None) or ()
    return {i: t for t in special if (i := tok.token_to_id(t)) is not None}


# ---- the proofs of "never" ----------------------------------------------------------------------
def model_closure(model: Any) -> set[str] | None:
    """The tokens a merge-based BPE can ever output (see the module docstring, proof 1), or
    None when the model offers no such proof (WordPiece, Unigram, a rank-ordered BPE with
    tiktoken's whole-piece shortcut, a Hugging Face BPE with ignore_merges).

    >>> from tokenizers_core.models.bpe.model import BPE
    >>> sorted(model_closure(BPE({"a": 0, "b": 1, "ab": 2, "ba": 3}, [("a", "b")])))
    ['a', 'ab', 'b']
    """
    kind = type(model).__name__
    if kind == "SentencePieceBpe":
        return _split_closure(model.vocab, _single_symbols(model, model.vocab))
    if (
        kind not in ("BPE", "HFBpe")
        or getattr(model, "rank_by", "merges") != "merges"
        or getattr(model, "ignore_merges", False)
    ):
        return None
    closure = _single_symbols(model, model.vocab)
    join = getattr(model, "_join", lambda a, b: a + b)
    merges = [(a, b, join(a, b)) for a, b in model.merges]
    grew = True
    while grew:  # one pass settles the usual merge list; odd ones loop
        grew = False
        for left, right, made in merges:
            if made not in closure and left in closure and right in closure:
                closure.add(made)
                grew = True
    return closure


def _single_symbols(model: Any, vocab: Iterable[str]) -> set[str]:
    """The tokens a model may start a word with: one character with its continuation prefix or
    end-of-word suffix, a byte-fallback piece, the unknown token, a user-defined piece."""
    prefix, suffix = continuation_prefix(model), end_of_word_suffix(model)
    out = set()
    for token in vocab:
        core = token
        if prefix and core.startswith(prefix) and len(core) > len(prefix):
            core = core[len(prefix) :]
        if suffix and core.endswith(suffix) and len(core) > len(suffix):
            core = core[: -len(suffix)]
        if len(core) == 1 or core == suffix or (len(token) == 6 and token.startswith("<0x")):
            out.add(token)
    unk = _unknown_token(model)
    if unk is not None:
        out.add(unk)
    out.update(getattr(model, "_user", None) or ())  # sentencepiece's user-defined pieces
    return out


def _split_closure(vocab: Iterable[str], start: set[str]) -> set[str]:
    """Tokens built by concatenating two built tokens (sentencepiece's BPE merges any adjacent
    pair whose concatenation is a piece), shortest first."""
    closure = set(start)
    for token in sorted(vocab, key=len):
        if token not in closure and any(
            token[:i] in closure and token[i:] in closure for i in range(1, len(token))
        ):
            closure.add(token)
    return closure


def cut_by_pre_tokenizer(tok: Any, token: str) -> str | None:
    """Why the pre-tokeniser never hands the model a piece holding `token` (module docstring,
    proof 2), or None when it may. Whitespace is the Unicode White_Space property, as the
    pre-tokenisers' own patterns read it.

    >>> import tokenizers_core as tc
    >>> cut_by_pre_tokenizer(tc.load("bert-base-uncased"), "a,b")
    'the pre-tokenizer makes every punctuation character a piece of its own'
    """
    kind = type(tok.pre_tokenizer).__name__
    if kind not in ("BertPreTokenizer", "Whitespace", "WhitespaceSplit"):
        return None
    prefix, suffix = continuation_prefix(tok.model), end_of_word_suffix(tok.model)
    core = (
        token[len(prefix) :] if prefix and token.startswith(prefix) and token != prefix else token
    )
    if suffix and core.endswith(suffix):  # the model's own mark, added after the cut
        core = core[: -len(suffix)]
    if _SPACE.search(core, concurrent=False) and not _SPACE.fullmatch(core, concurrent=False):
        return "the pre-tokenizer splits on whitespace and drops it"
    if (
        kind == "BertPreTokenizer"
        and any(is_bert_punctuation(c) for c in core)
        and (len(core) > 1 or core != token)
    ):
        return "the pre-tokenizer makes every punctuation character a piece of its own"
    if (
        kind == "Whitespace"
        and _WORD.search(core, concurrent=False)
        and _NOT_WORD.search(core, concurrent=False)
    ):
        return "the pre-tokenizer separates word characters from the others"
    return None


_SPACE = regex.compile(r"\s+")
_WORD = regex.compile(r"\w")
_NOT_WORD = regex.compile(r"[^\w\s]")


# ---- the classification --------------------------------------------------------------------------
class Classifier:
    """Classifies entries of one tokenizer; `classify(id)` -> `Health`. The proofs and the
    lookups it needs are worked out once."""

    def __init__(self, tok: Any) -> None:
        self.tok = tok
        self.special = special_ids(tok)
        self.added = {t.id for t in tok.added_tokens}  # matched whole, before the model
        self.closure = model_closure(tok.model)
        self.unk = _unknown_token(tok.model)
        self.prefix = continuation_prefix(tok.model)
        self.byte_level = byte_api.is_byte_level(tok)
        self.encode = ordinary_encoder(tok)
        self.suffix = end_of_word_suffix(tok.model)
        self.word_start = self._word_start_mark()
        self._neighbours: dict[str, list[int]] = {}
        if self.unk is not None and tok.token_to_id(self.unk) is not None:
            self.special.setdefault(tok.token_to_id(self.unk), self.unk)

    def _word_start_mark(self) -> str:
        """ "▁" when the tokenizer marks the start of a word with it (sentencepiece and
        Metaspace with a prepended "▁": a piece without it occurs only inside a word)."""
        if self.byte_level or self.prefix:
            return ""
        try:
            first = self.tok.encode("q", add_special_tokens=False).tokens
        except ValueError:
            return ""
        return "\u2581" if first and first[0].startswith("\u2581") else ""

    def classify(self, id_: int) -> Health:
        tok = self.tok
        token = tok.id_to_token(id_)
        raw = token_bytes(tok, id_, token)
        try:
            text: str | None = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if id_ in self.special:
            got = self._encode(token)
            if got != [id_]:
                return Health(
                    id_, token, token, "special", self._special_reason(token, got), tuple(got)
                )
        never = None if id_ in self.added else self._never(token)
        if never:
            return Health(id_, token, text, "never", f"No input can produce it: {never}.")
        if text is None:
            return Health(
                id_,
                token,
                None,
                "undecodable",
                f"Its bytes ({_hex(raw)}) are not complete UTF-8: it is only ever a "
                "part of a character that spans several tokens.",
            )
        decoded = self._decoded(id_, token, text)
        got = self._encode(decoded)
        if got == [id_]:
            return Health(id_, token, decoded, "ok", "Its text encodes back to this one token.")
        side = self._inside_word(token)
        start = side and self._in_context(id_, decoded, side)
        if start:
            where = f"after {start!r}" if side == "before" else f"before {start!r}"
            return Health(
                id_,
                token,
                decoded,
                "ok",
                f"A piece of a longer word: its text encodes back to it {where}.",
            )
        return Health(
            id_, token, decoded, "unreachable", self._unreachable_reason(decoded, got), tuple(got)
        )

    def _decoded(self, id_: int, token: str, text: str) -> str:
        """The entry's text as a decode of it alone gives it (a byte-level token's bytes; a
        continuation token's text without its prefix)."""
        if self.byte_level:
            if self.suffix and token.endswith(self.suffix) and len(token) > len(self.suffix):
                return text[: -len(self.suffix)]  # CLIP's "hello</w>": the word "hello"
            return text
        if self.prefix and token.startswith(self.prefix) and len(token) > len(self.prefix):
            return token[len(self.prefix) :]
        return self.tok.decode([id_])

    def _inside_word(self, token: str) -> str | None:
        """Where a token that only occurs inside a word needs a neighbour: "before" for a
        continuation (``##ing``; a sentencepiece piece without ``▁`` when the tokenizer
        marks word starts), "after" for a piece without the end-of-word suffix."""
        if self.prefix and token.startswith(self.prefix) and len(token) > len(self.prefix):
            return "before"
        if self.word_start and not token.startswith(self.word_start):
            return "before"
        if self.suffix and not token.endswith(self.suffix):
            return "after"
        return None

    def _in_context(self, id_: int, text: str, side: str) -> str | None:
        """The first one-letter neighbour next to which `text` encodes to this token (the
        neighbour's own tokens unchanged), or None."""
        for letter in _NEIGHBOURS:
            alone = self._neighbour_ids(letter)
            if side == "before" and self._encode(letter + text) == alone + [id_]:
                return letter
            if side == "after" and self._encode(text + letter) == [id_] + alone:
                return letter
        return None

    def _neighbour_ids(self, letter: str) -> list[int]:
        known = self._neighbours.get(letter)
        if known is None:
            known = self._neighbours[letter] = self._encode(letter)
        return known

    def _encode(self, text: str) -> list[int]:
        try:
            return self.encode(text)
        except ValueError:  # a file's pattern that times out on this text
            return []

    def _never(self, token: str) -> str | None:
        if token == self.unk:
            return None
        if self.closure is not None and token not in self.closure:
            return "no merge of tokens the model can make builds it"
        return cut_by_pre_tokenizer(self.tok, token)

    def _special_reason(self, token: str, got: list[int]) -> str:
        reason = (
            "A special token: typed as text it becomes other tokens, so it occurs only "
            "when asked for as a special token."
        )
        if token == self.unk:
            reason += " Characters outside the vocabulary also become it."
        return reason if got else "A special token: typed as text it gives no token at all."

    def _unreachable_reason(self, text: str, got: list[int]) -> str:
        if not got:
            return f"Its text {text!r} encodes to no token at all."
        n = len(got)
        return (
            f"Its text {text!r} encodes to {n} other token{'s' if n != 1 else ''}"
            "; it may still occur inside a longer text."
        )


def ordinary_encoder(tok: Any) -> Callable[[str], list[int]]:
    """text -> ids as ordinary text: no special tokens added, none matched in the text
    (tiktoken's `encode_ordinary`; Hugging Face's `encode_special_tokens`)."""
    if hasattr(tok, "check_disallowed"):  # a tiktoken-style encoding
        return lambda text: tok.encode(text, add_special_tokens=False, disallowed_special=()).ids
    return lambda text: tok.encode(text, add_special_tokens=False, encode_special_tokens=True).ids


def _unknown_token(model: Any) -> str | None:
    """The model's unknown token (Hugging Face's `unk_token`, sentencepiece's `unk_id`)."""
    unk = getattr(model, "unk_token", None)
    if isinstance(unk, str):
        return unk
    unk_id = getattr(model, "unk_id", None)
    return model.id_to_token(unk_id) if isinstance(unk_id, int) else None


def continuation_prefix(model: Any) -> str:
    """The model's continuation prefix (WordPiece's ``##``), or ""."""
    return getattr(model, "continuing_subword_prefix", None) or ""


def end_of_word_suffix(model: Any) -> str:
    """The model's end-of-word suffix or symbol (``</w>``), or ""."""
    return getattr(model, "end_of_word_suffix", None) or getattr(model, "end_of_word", None) or ""


def _hex(data: bytes) -> str:
    return " ".join(f"{b:02X}" for b in data)
