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

from typing import Any

from ...byte_level import str_to_byte_level
from ...errors import InvalidInput
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


def trainer_words(
    algorithm: str, counts: Counts, options: dict[str, Any]
) -> tuple[dict[str, int], dict[str, Any]]:
    """(the word table `algorithm`'s trainer starts from, the options with the counts' own
    counting options filled in). Raises InvalidInput, naming both, for counts made for another
    algorithm or under another pattern or normaliser."""
    if not isinstance(counts, Counts):
        raise InvalidInput("counts must be a Counts (tc.count, or tc.load_counts of a file)")
    if algorithm not in COUNTED_ALGORITHMS:
        raise InvalidInput(
            f"{algorithm} does not train on word counts: train it on the text (counts are "
            f"for {', '.join(COUNTED_ALGORITHMS)})"
        )
    theirs = counts.counted_under
    given = {k: options[k] for k in COUNTING_OPTIONS[algorithm] if k in options}
    own = _own_options(theirs) if theirs.algorithm == algorithm else {}
    wanted = counted_under(algorithm, **{**own, **given})
    if theirs.signature != wanted.signature:
        differs = "; ".join(
            f"{k} {their} in the counts, {mine} for {algorithm}"
            for k, their, mine in differences(theirs, wanted)
        )
        again = f"--algorithm {algorithm}" + "".join(
            f" --{k} {v}" for k, v in given.items() if k == "pattern"
        )
        raise InvalidInput(
            f"these counts were made for {theirs.algorithm}, and cannot train "
            f"{algorithm}{_asked(given)}: they differ in {differs}. Count the corpus again "
            f"with {again}"
        )
    options = {**options, **{k: v for k, v in own.items() if k not in options}}
    if algorithm == "byte_bpe":
        return {str_to_byte_level(w): n for w, n in counts.items()}, options
    return counts.to_dict(), options


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
