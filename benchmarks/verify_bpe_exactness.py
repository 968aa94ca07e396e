"""One-off verification (too slow for the test suite): our BPE family against the references on
every bundled corpus.

- byte_bpe merges + vocab == Hugging Face BpeTrainer (ByteLevel(add_prefix_space=False),
  initial_alphabet=ByteLevel.alphabet()), V = 1000 and 4000, botchan + 33 UDHR texts;
- sentencepiece_bpe pieces == SentencePieceTrainer.train(model_type="bpe", vocab_size=V,
  character_coverage=1.0, normalization_rule_name="identity"), same corpora and sizes (where
  sentencepiece itself refuses a size -- too few pieces -- we must refuse too);
- r50k_base / cl100k_base / o200k_base ids == tiktoken (built offline from the same files);
- the byte_bpe and bpe trainers with annotated steps (as the views use them) make the same merges
  as plain training, on every corpus above and on the 1 MB English text of the training benchmark (where
  byte_bpe is also checked against Hugging Face at V = 4000).

    .venv/bin/python benchmarks/verify_bpe_exactness.py [--sizes 1000 4000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _stepping_agrees(make, lines, size, merges=None) -> bool:
    """A trainer whose steps are annotated (the views' way: ties looked up) makes the same
    merges as plain training, and as `merges` when given."""
    stepped = make(lines, size).run()
    plain = make(lines, size, annotate=False).run()
    ok = stepped.merges == plain.merges
    return ok and (merges is None or stepped.merge_strings() == merges)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 4000])
    args = parser.parse_args()
    import sentencepiece as spm
    import tiktoken
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    import tokenizers_core as tc
    from tokenizers_core.corpora import corpus_names, load_corpus
    from tokenizers_core.implementations.openai_public import ENCODINGS, load_ranks
    from tokenizers_core.models.bpe.trainer import bpe_trainer, byte_bpe_trainer
    from tokenizers_core.pre_tokenizers import PRESETS

    failures = 0
    checked = 0
    tmp = Path(tempfile.mkdtemp())
    for name in corpus_names():
        lines = load_corpus(name).splitlines()
        for size in args.sizes:
            hf = Tokenizer(models.BPE())
            hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            hf.train_from_iterator(
                lines,
                trainers.BpeTrainer(
                    vocab_size=size,
                    show_progress=False,
                    initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                ),
            )
            model = json.loads(hf.to_str())["model"]
            merges = [
                tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]
            ]
            ours = tc.train("byte_bpe", lines, vocab_size=size)
            ok = ours.model.merges == merges and ours.model.vocab == model["vocab"]
            ok = ok and _stepping_agrees(byte_bpe_trainer, lines, size, merges)
            ok = ok and _stepping_agrees(bpe_trainer, lines, size)
            checked += 1
            failures += not ok
            print(
                f"byte_bpe          {name:16s} V={size:5d} {'OK' if ok else 'DIFFERENT'}",
                flush=True,
            )

            path = tmp / "input.txt"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            try:
                spm.SentencePieceTrainer.train(
                    input=str(path),
                    model_prefix=str(tmp / "m"),
                    model_type="bpe",
                    vocab_size=size,
                    character_coverage=1.0,
                    normalization_rule_name="identity",
                    minloglevel=2,
                )
                sp = spm.SentencePieceProcessor(model_file=str(tmp / "m.model"))
                ref = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
            except RuntimeError:
                ref = None
            try:
                got = tc.train("sentencepiece_bpe", lines, vocab_size=size).model.pieces
            except ValueError:
                got = None
            ok = got == ref
            checked += 1
            failures += not ok
            verdict = "OK" if ok else "DIFFERENT"
            if ref is None and ok:
                verdict += " (both refuse: too few pieces)"
            print(f"sentencepiece_bpe {name:16s} V={size:5d} {verdict}", flush=True)
    # the 1 MB English text the training benchmark uses (benchmarks/corpus.py)
    from benchmarks.corpus import english_1mb_lines

    lines = english_1mb_lines()
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.train_from_iterator(
        lines,
        trainers.BpeTrainer(
            vocab_size=4000,
            show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    merges = [
        tuple(m) if isinstance(m, list) else tuple(m.split(" "))
        for m in json.loads(hf.to_str())["model"]["merges"]
    ]
    ok = _stepping_agrees(byte_bpe_trainer, lines, 4000, merges)
    ok = ok and _stepping_agrees(bpe_trainer, lines, 4000)
    checked += 1
    failures += not ok
    print(f"byte_bpe, bpe     english 1 MB     V= 4000 {'OK' if ok else 'DIFFERENT'}", flush=True)
    for enc_name, (preset, specials) in ENCODINGS.items():
        ref = tiktoken.Encoding(
            enc_name,
            pat_str=PRESETS[preset],
            mergeable_ranks=load_ranks(enc_name),
            special_tokens=specials,
        )
        ours = tc.load(enc_name)
        for name in corpus_names():
            text = load_corpus(name)
            ok = ours.encode(text).ids == ref.encode_ordinary(text)
            ok = ok and ours.decode(ours.encode(text).ids) == text
            checked += 1
            failures += not ok
            if not ok:
                print(f"{enc_name} {name} DIFFERENT", flush=True)
        print(f"{enc_name:17s} ids == tiktoken on {len(corpus_names())} corpora", flush=True)
    print(f"{checked - failures} of {checked} checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
