"""The bundled corpora: "botchan" (an English novel, 279 KB), the Universal Declaration of
Human Rights in 33 languages ("udhr/eng", "udhr/cmn_hans", ...; the same 30 articles in each),
all 33 one after another ("udhr/all", a multilingual corpus), and "wagahai" (Sōseki's
吾輩は猫である in Japanese, 1.1 MB: the real 1 MB corpus the step-through views are built for).

>>> "botchan" in corpus_names() and "udhr/eng" in corpus_names()
True
>>> load_corpus("udhr/eng").splitlines()[0][:9]
'Universal'

Also the textbook corpus of Sennrich et al. (2016), the worked example of BPE, written once
here for every view, lesson and check that starts from it:

>>> from collections import Counter
>>> Counter(SENNRICH.split())
Counter({'newest': 6, 'low': 5, 'widest': 3, 'lower': 2})
"""

from __future__ import annotations

import functools
import gzip
from dataclasses import dataclass
from pathlib import Path

from .errors import InvalidInput

DATA_DIR = Path(__file__).parent / "data" / "corpora"

# Sennrich, Haddow and Birch (2016), "Neural Machine Translation of Rare Words with Subword
# Units": low x5, lower x2, newest x6, widest x3, one word's repeats a line.
SENNRICH = (
    "low low low low low\nlower lower\nnewest newest newest newest newest newest\n"
    "widest widest widest\n"
)


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    tag: str
    direction: str  # "ltr" or "rtl"


@functools.lru_cache(maxsize=1)
def udhr_languages() -> tuple[Language, ...]:
    """The UDHR languages in the order of languages.tsv (English first)."""
    rows = (DATA_DIR / "udhr" / "languages.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return tuple(Language(*row.split("\t")[:4]) for row in rows if row.strip())


ALL_UDHR = "udhr/all"  # the 33 translations one after another: a multilingual corpus
WAGAHAI = "wagahai"  # 吾輩は猫である, 1,120,576 bytes of Japanese
LARGE = (WAGAHAI,)  # over 1 MB: what a test that runs every corpus whole may leave out


def corpus_names() -> list[str]:
    udhr = [f"udhr/{lang.code}" for lang in udhr_languages()]
    return ["botchan", *udhr, ALL_UDHR, WAGAHAI]


@functools.lru_cache(maxsize=64)
def load_corpus(name: str) -> str:
    """The text of a bundled corpus, by name."""
    if name in ("botchan", WAGAHAI):
        with gzip.open(DATA_DIR / f"{name}.txt.gz", "rt", encoding="utf-8") as f:
            return f.read()
    if name == ALL_UDHR:
        return "".join(load_corpus(f"udhr/{lang.code}") for lang in udhr_languages())
    if name.startswith("udhr/") and name[5:] in {lang.code for lang in udhr_languages()}:
        return (DATA_DIR / "udhr" / f"{name[5:]}.txt").read_text(encoding="utf-8")
    raise InvalidInput(
        f"unknown corpus {name!r}; bundled corpora are: botchan, wagahai, udhr/<code> "
        f"(e.g. udhr/eng, udhr/cmn_hans) and udhr/all"
    )
