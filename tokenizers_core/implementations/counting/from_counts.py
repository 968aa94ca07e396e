"""From a counts file to the word table a trainer starts from, refusing counts made otherwise.

A trainer may start from counts only when they were counted as it would count the text: the
same algorithm (its word form), pre-tokeniser, pattern and normaliser. `trainer_words` checks that
and names both sides when they differ.

>>> from .counts_file import Counts
>>> c = Counts.from_words({"hi": 2, " hi": 1}, counted_under("byte_bpe"))
>>> trainer_words("byte_bpe", c, {})
({'Ġhi': 1, 'hi': 2}, {'pattern': 'gpt2'})
"""

from __future__ import annotations

from typing import Any, Mapping

from ...byte_level import str_to_byte_level
from ...errors import InvalidInput
from ...pre_tokenizers import PRESETS
from .counts_file import Counts
from .under import (
    COUNTED_ALGORITHMS,
    CountedUnder,
    counted_under,
    differences,
    lowercase_of,
    preset_of,
)

# the training option each algorithm counts under (the rest are the merge loop's own)
COUNTING_OPTIONS = {
    "bpe": (),
    "byte_bpe": ("pattern",),
    "sentencepiece_bpe": (),
    "wordpiece": ("lowercase",),
}


# the BPE family: Picky BPE and parity-aware BPE train on byte_bpe's words, so they start from
# byte_bpe counts (parity_bpe from one counts file per language)
COUNTED_AS = {"picky_bpe": "byte_bpe", "parity_bpe": "byte_bpe"}
COUNTING_OPTIONS.update({name: COUNTING_OPTIONS[alg] for name, alg in COUNTED_AS.items()})
FROM_COUNTS = (*COUNTED_ALGORITHMS, *COUNTED_AS)

SUPERBPE_NEEDS_TEXT = (
    "superbpe cannot train from counts: its stage 2 cuts each line into pieces that span "
    "whitespace (runs of words and the spaces between them), and pre-token counts do not say "
    "which words stood side by side in a line. Train superbpe on the text"
)
CUSTOM_PATTERN_SIZES = (
    "parity_bpe from counts takes counts made under a preset pattern (gpt2, cl100k, o200k): it "
    "measures each language's text in bytes, and a pattern of your own may leave characters out "
    "of the pre-tokens. Count with --pattern gpt2, cl100k or o200k, or train on the text"
)


def trainer_words(
    algorithm: str, counts: Any, options: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """(the word table `algorithm`'s trainer starts from, the options with the counts' own
    counting options filled in). Raises InvalidInput, naming both, for counts made for another
    algorithm or under another pattern or normaliser, and for superbpe (`SUPERBPE_NEEDS_TEXT`).
    parity_bpe takes a mapping language -> Counts (and its `dev` option may be one too) and
    gives a mapping language -> word table."""
    if algorithm == "superbpe":
        raise InvalidInput(SUPERBPE_NEEDS_TEXT)
    if algorithm == "parity_bpe":
        return _parity_words(counts, options)
    return _words(algorithm, counts, options)


def _words(algorithm: str, counts: Any, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """One counts file's word table for `algorithm`, checked (see `trainer_words`)."""
    if not isinstance(counts, Counts):
        raise InvalidInput("counts must be a Counts (tc.count, or tc.load_counts of a file)")
    counted = COUNTED_AS.get(algorithm, algorithm)
    if counted not in COUNTED_ALGORITHMS:
        raise InvalidInput(
            f"{algorithm} does not train on word counts: train it on the text (counts are "
            f"for {', '.join(FROM_COUNTS)})"
        )
    theirs = counts.counted_under
    given = {k: options[k] for k in COUNTING_OPTIONS[algorithm] if k in options}
    own = _own_options(theirs) if theirs.algorithm == counted else {}
    wanted = counted_under(counted, **{**own, **given})
    if theirs.signature != wanted.signature:
        differs = "; ".join(
            f"{k} {their} in the counts, {mine} for {algorithm}"
            for k, their, mine in differences(theirs, wanted)
        )
        again = f"--algorithm {counted}" + "".join(
            f" --{k} {v}" for k, v in given.items() if k == "pattern"
        )
        raise InvalidInput(
            f"these counts were made for {theirs.algorithm}, and cannot train "
            f"{algorithm}{_asked(given)}: they differ in {differs}. Count the corpus again "
            f"with {again}"
        )
    options = {**options, **{k: v for k, v in own.items() if k not in options}}
    if counted == "byte_bpe":
        return {str_to_byte_level(w): n for w, n in counts.items()}, options
    return counts.to_dict(), options


def _parity_words(counts: Any, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """parity_bpe: each language's word table (and the dev set's, from `dev`'s counts), all
    counted under one preset pattern."""
    if not isinstance(counts, Mapping) or not counts:
        raise InvalidInput(
            "parity_bpe trains from one counts file per language: give counts={language: "
            "counts, ...} (tokvis train parity_bpe --from-counts eng=eng.counts ...)"
        )
    options = dict(options)
    dev = options.pop("dev", None)
    words: dict[str, dict[str, int]] = {}
    for lang, part in counts.items():
        words[str(lang)], options = _words("parity_bpe", part, options)
    if options.get("pattern") not in PRESETS:
        raise InvalidInput(CUSTOM_PATTERN_SIZES)
    if dev is not None:
        if not isinstance(dev, Mapping):
            raise InvalidInput("dev must map each language to its counts")
        options["dev_words"] = {str(k): _words("parity_bpe", v, options)[0]
                                for k, v in dev.items()}  # fmt: skip
    return words, options


def _own_options(under: CountedUnder) -> dict[str, Any]:
    """The counting options the counts were made with (byte_bpe: the pattern's preset name, or
    its regex; wordpiece: lowercase)."""
    if under.algorithm == "byte_bpe":
        return {"pattern": preset_of(under)}
    if under.algorithm == "wordpiece":
        return {"lowercase": lowercase_of(under)}
    return {}


def _asked(given: dict[str, Any]) -> str:
    return "" if not given else " with " + ", ".join(f"{k}={v!r}" for k, v in given.items())
