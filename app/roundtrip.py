"""Why decode(encode(text)) is not the text: the reasons the visualiser states under decode.

Pure function from a tokeniser, its input, the encoding and the decoded string to short
sentences (plain text; the template escapes them).
"""

from __future__ import annotations

import tokenizers_core as tc

from .display import unknown_tokens, visible, whole_tokens

MAX_EXAMPLES = 3


def _quote(items: list[str]) -> str:
    shown = ", ".join(f"“{visible(s)}”" for s in items[:MAX_EXAMPLES])
    return shown + (f" and {len(items) - MAX_EXAMPLES} more" if len(items) > MAX_EXAMPLES else "")


def _first_change(before: str, after: str, words: bool = True) -> tuple[str, str]:
    """The first word (or, `words=False` or if the words agree, stretch of characters) where
    `after` differs from `before`.

    >>> _first_change("Café au lait", "cafe au lait")
    ('Café', 'cafe')
    >>> _first_change("a  b", "a b", words=False)
    ('a  b', 'a b')
    """
    a, b = before.split(), after.split()
    for x, y in zip(a, b):
        if words and x != y:
            return x, y
    i = next(
        (k for k, (x, y) in enumerate(zip(before, after)) if x != y), min(len(before), len(after))
    )
    return before[max(0, i - 8) : i + 8], after[max(0, i - 8) : i + 8]


def round_trip_notes(tok: tc.Tokenizer, text: str, enc: tc.Encoding, decoded: str) -> list[str]:
    """What made `decoded` differ from `text` ([] when they are equal).

    The visualiser decodes as `decode` does by default: special tokens kept. Looks for, in
    order: special tokens read from the text that decode left out (a caller that decoded with
    skip_special_tokens=True), special tokens the post-processor added, unknown tokens,
    characters no token covers, and what the normaliser changed; then whether the decoder,
    given the tokens of the text alone, gives back something else than the normalised text
    (WordPiece's decoder joins "a , b" as "a, b"); if none of these explains the difference,
    says where it starts.
    """
    if decoded == text:
        return []
    notes: list[str] = []
    whole = whole_tokens(tok, enc, len(enc))
    skipped = [
        enc.tokens[i]
        for i in whole
        if enc.offsets[i][0] < enc.offsets[i][1] and enc.tokens[i].strip() not in decoded
    ]
    if skipped:
        notes.append(
            f"decode left out the special token{'s' if len(skipped) > 1 else ''} "
            f"{_quote(sorted(set(skipped)))} read from the text "
            "(skip_special_tokens=True)."
        )
    outside = {
        i
        for i, ((s, e), sp) in enumerate(zip(enc.offsets, enc.special_tokens_mask))
        if sp and s == e
    }  # the post-processor's tokens
    added = sorted({enc.tokens[i] for i in outside if enc.tokens[i] in decoded})
    if added:
        notes.append(
            f"decode keeps the special token{'s' if len(added) > 1 else ''} "
            f"{_quote(added)} the post-processor added."
        )
    unknown_at = unknown_tokens(tok, text, enc)
    unknown = [text[slice(*enc.offsets[i])] for i in sorted(unknown_at)]
    if unknown:
        word = tok.model.id_to_token(enc.ids[min(unknown_at)]) or enc.tokens[min(unknown_at)]
        notes.append(
            f"{len(unknown)} unknown token{'s' if len(unknown) > 1 else ''} "
            f"({word}) stood for {_quote(unknown)}: decode cannot give the text back."
        )
    covered = bytearray(len(text))
    for s, e in enc.offsets:  # special tokens read from the text cover it too
        covered[s:e] = b"\x01" * (e - s)
    gaps = sorted({c for c, hit in zip(text, covered) if not hit and not c.isspace()})
    if gaps:
        notes.append(
            f"{_quote(gaps)} {'is' if len(gaps) == 1 else 'are'} in no token: the "
            f"pre-tokeniser dropped {'it' if len(gaps) == 1 else 'them'}."
        )
    normalized = tok.normalize(text).normalized.replace("▁", " ")  # ▁: SentencePiece's space
    if normalized.split() != text.split():
        before, after = _first_change(text, normalized)
        notes.append(
            f"the normaliser changed the text before tokenising: "
            f"“{visible(before)}” became “{visible(after)}”."
        )
    elif normalized.strip() != text.strip():
        before, after = _first_change(text.strip(), normalized.strip(), words=False)
        notes.append(
            f"the normaliser rewrote the whitespace: “{visible(before)}” became “{visible(after)}”."
        )
    if not (skipped or unknown or gaps):
        # the tokens of the text alone, without the post-processor's
        plain = (
            tok.decode([i for k, i in enumerate(enc.ids) if k not in outside])
            if outside
            else decoded
        )
        if plain.split() != normalized.split():
            before, after = _first_change(normalized, plain.strip(), words=False)
            notes.append(
                f"the decoder joins the tokens its own way: “{visible(before)}” comes "
                f"back as “{visible(after)}”."
            )
    if not notes:
        before, after = _first_change(text, decoded)
        notes.append(f"decode gives “{visible(after)}” where the input has “{visible(before)}”.")
    return notes
