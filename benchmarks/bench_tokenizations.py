"""Benchmark: the space of tokenisations (issue 30) of a 2,000-byte text.

For o200k_base (200k byte-level tokens), cl100k_base, Mistral v1 (sentencepiece BPE with byte
fallback) and the Botchan Unigram (sentencepiece, 1k pieces), on a 2,000-byte multilingual text
(the first lines of 12 UDHR translations, cut at 2,000 bytes of UTF-8) and, for the Unigram, a
2,000-byte English one too:

- the vocabulary index, built once per tokenizer (cold: the first `tokenizations` call);
- lattice + count (warm: the index reused), the figure the issue asks for, against the
  reference library's own encode of the same text (tiktoken / sentencepiece), as a ratio;
- the `Lattice` value (what a view draws), shortest(100), sample(1000), `is_canonical` of a
  sample and `heal` of the English text (whose end every model can spell).

    .venv/bin/python benchmarks/bench_tokenizations.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGS = [
    "eng",
    "deu_1996",
    "rus",
    "cmn_hans",
    "jpn",
    "arb",
    "hin",
    "kor",
    "tha",
    "vie",
    "fin",
    "amh",
]


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _cut(text: str, limit: int) -> str:
    return text.encode()[:limit].decode("utf-8", "ignore")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import sentencepiece as spm
    import tiktoken

    import tokenizers_core as tc
    from tokenizers_core.corpora import load_corpus
    from tokenizers_core.formats.bundled_models import DATA_DIR
    from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
    from tokenizers_core.pre_tokenizers import PRESETS
    from tokenizers_core.tokenizations import (
        MAX_TEXT_BYTES,
        heal,
        is_canonical,
        tokenizations,
    )
    from tokenizers_core.tokenizations.space import space_of

    multilingual = _cut(" ".join(load_corpus(f"udhr/{c}")[:220] for c in LANGS), MAX_TEXT_BYTES)
    english = _cut(load_corpus("udhr/eng"), MAX_TEXT_BYTES)

    def tiktoken_ref(name):
        preset, specials = ENCODINGS[name]
        return tiktoken.Encoding(
            name, pat_str=PRESETS[preset], mergeable_ranks=load_ranks(name), special_tokens=specials
        )

    with gzip.open(DATA_DIR / "mistral_v1.model.gz", "rb") as fh:
        mistral_sp = spm.SentencePieceProcessor(model_proto=fh.read())
    with gzip.open(DATA_DIR.parent / "botchan_en_unigram_1000.model.gz", "rb") as fh:
        botchan_sp = spm.SentencePieceProcessor(model_proto=fh.read())
    cases = [
        ("o200k_base", multilingual, tiktoken_ref("o200k_base").encode_ordinary),
        ("cl100k_base", multilingual, tiktoken_ref("cl100k_base").encode_ordinary),
        ("mistral_v1", multilingual, mistral_sp.encode),
        ("botchan_en_unigram_1000", multilingual, botchan_sp.encode),
        ("botchan_en_unigram_1000", english, botchan_sp.encode),
    ]
    print(
        f"the space of tokenisations of a {len(multilingual.encode()):,}-byte multilingual text "
        f"({len(LANGS)} UDHR languages) and a {len(english.encode()):,}-byte English one "
        f"(best of {args.repeat}):"
    )
    for name, text, reference in cases:
        tok = tc.load(name)
        start = time.perf_counter()
        space_of(tok)
        index = time.perf_counter() - start
        t = tokenizations(tok, text)
        warm = _best(lambda: tokenizations(tok, text).count(), args.repeat)  # noqa: B023
        ref = _best(lambda: reference(text), args.repeat)  # noqa: B023
        value = _best(lambda: tokenizations(tok, text).lattice, args.repeat)  # noqa: B023
        k100 = _best(lambda: t.shortest(100), 1)  # noqa: B023
        n1000 = _best(lambda: t.sample(1000, seed=0), 1)  # noqa: B023
        sample = t.sample(1, seed=1)[0]
        canon = _best(lambda: is_canonical(tok, sample), args.repeat)  # noqa: B023
        healing = _best(lambda: heal(tok, english), args.repeat)  # noqa: B023
        which = "English" if text is english else "multilingual"
        print(f"  {name} ({which}, {t.lattice.unit} units: {len(t.units):,}):")
        print(f"    index (once per tokenizer) {index:.3f} s")
        print(
            f"    lattice + count            {warm * 1000:7.1f} ms  ({len(t.lattice.edges):,} "
            f"edges; count = 10^{t.log10():.1f}); {warm / ref:.0f}x the reference's encode "
            f"({ref * 1000:.2f} ms)"
        )
        print(f"    with the Lattice value     {value * 1000:7.1f} ms")
        print(f"    shortest(100)              {k100 * 1000:7.1f} ms")
        print(f"    sample(1000)               {n1000 * 1000:7.1f} ms")
        print(f"    is_canonical(a sample)     {canon * 1000:7.1f} ms")
        print(f"    heal(the English text)     {healing * 1000:7.1f} ms")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
