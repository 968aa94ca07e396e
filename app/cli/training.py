"""`tokvis train` and `tokvis trace`: train a tokeniser on a corpus, and print every step of
the training as JSON Lines.

Both take the same training options (`_training`), which go to `training_run` as its
keywords where the algorithm takes them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from tokenizers_core.errors import InvalidInput
from tokenizers_core.implementations.counting import Counts
from tokenizers_core.implementations.stepping import TrainingRun, resume, training_run
from tokenizers_core.models.unigram.trainer import UnigramRoundStep

from .inputs import CorpusLines, case_switch, json_option, save
from .terminal import Progress, pairs_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train a tokeniser; save it with -o")
    _training(p)
    p.add_argument("-o", "--output", metavar="OUT", help="save the tokeniser here")
    p.add_argument(
        "--checkpoint-every",
        type=int,
        metavar="N",
        help="bpe, byte_bpe, wordpiece: write a checkpoint every N merges (to --checkpoint)",
    )
    p.add_argument(
        "--checkpoint",
        metavar="CKPT",
        help="where --checkpoint-every writes (default: OUT.ckpt, else tokvis-train.ckpt)",
    )
    p.add_argument(
        "--format",
        dest="out_format",
        metavar="F",
        help="the saved format (default: from OUT's extension)",
    )
    bar = p.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show the progress bar even when stderr is not a terminal",
    )
    bar.add_argument("--no-progress", dest="progress", action="store_false")
    p.set_defaults(run=train, parser=p)

    p = sub.add_parser("trace", help="training steps as JSON Lines on stdout")
    _training(p)
    p.add_argument(
        "--steps",
        metavar="A:B",
        help="only steps A to B (as a Python slice of the steps: 0:10 is the first ten)",
    )
    p.set_defaults(run=trace, parser=p)


def _training(p: argparse.ArgumentParser) -> None:
    """ALGO, CORPUS, --vocab-size and the options some algorithms take."""
    p.add_argument(
        "algorithm",
        metavar="ALGO",
        help="bpe, byte_bpe, sentencepiece_bpe, wordpiece, unigram, char_bpe, wordlevel, "
        "superbpe, picky_bpe or parity_bpe",
    )
    p.add_argument(
        "corpus",
        metavar="CORPUS",
        nargs="?",
        help="a text file (read as a stream: no limit but memory), - for stdin, or a bundled "
        "corpus (botchan, udhr/eng, ...)",
    )
    p.add_argument(
        "--from-counts",
        metavar="C.counts",
        action="append",
        help="bpe, byte_bpe, sentencepiece_bpe, wordpiece, picky_bpe (byte_bpe counts): train "
        "from a counts file (`tokvis count`) in place of CORPUS: the same merges as training on "
        "the text; parity_bpe: LANG=C.counts, once per language",
    )
    p.add_argument(
        "--resume",
        metavar="CKPT",
        help="bpe, byte_bpe, wordpiece: go on from a checkpoint (`tokvis train --checkpoint`) in "
        "place of CORPUS, to the same merges as a run that never stopped (a checkpoint is a "
        "pickle: resume only your own)",
    )
    p.add_argument("--vocab-size", type=int, required=True, metavar="N")
    g = p.add_argument_group("training options (where the algorithm takes them)")
    g.add_argument("--pattern", help="byte_bpe: the split pattern (gpt2, cl100k, o200k)")
    g.add_argument(
        "--transition",
        type=int,
        metavar="N",
        help="superbpe: merges may cross spaces once the vocabulary holds N tokens",
    )
    g.add_argument(
        "--threshold", type=float, metavar="TAU", help="picky_bpe: remove a token above this IoS"
    )
    g.add_argument(
        "--min-frequency",
        type=int,
        metavar="N",
        help="bpe, byte_bpe, wordpiece: merge only pairs seen at least N times",
    )
    g.add_argument(
        "--special-tokens",
        metavar="JSON",
        help="byte_bpe, wordpiece: special tokens first, e.g. '[\"<|endoftext|>\"]'",
    )
    case_switch(g)
    g.add_argument(
        "--limit-alphabet",
        type=int,
        metavar="N",
        help="BPE kinds, wordpiece: keep only the N most frequent characters",
    )
    g.add_argument(
        "--initial-alphabet",
        metavar="CHARS",
        help="BPE kinds, wordpiece: characters always in the alphabet, e.g. 'éß'",
    )
    g.add_argument(
        "--max-token-length",
        type=int,
        metavar="N",
        help="BPE kinds: make no token of N characters or more (as Hugging Face)",
    )
    g.add_argument(
        "--continuing-subword-prefix",
        metavar="P",
        help="byte_bpe, char_bpe: spell a word's later characters with P, e.g. ##",
    )
    g.add_argument(
        "--end-of-word-suffix",
        metavar="S",
        help="byte_bpe, char_bpe: glue S to a word's last character, e.g. </w>",
    )


def _training_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.pattern:
        options["pattern"] = args.pattern
    if args.min_frequency is not None:
        options["min_frequency"] = args.min_frequency
    specials = json_option(args.special_tokens, list, "'[\"<|endoftext|>\"]'")
    if specials is not None:
        options["special_tokens"] = specials
    if args.lowercase is not None:
        options["lowercase"] = args.lowercase
    for name in (
        "transition",
        "threshold",
        "limit_alphabet",
        "max_token_length",
        "continuing_subword_prefix",
        "end_of_word_suffix",
    ):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if args.initial_alphabet is not None:
        options["initial_alphabet"] = list(args.initial_alphabet)
    return options


def _run(args: argparse.Namespace) -> tuple[TrainingRun, CorpusLines | None]:
    """The training run of the arguments: on CORPUS's lines as a stream, or on --from-counts."""
    given = [x for x in (args.corpus, args.from_counts, args.resume) if x is not None]
    if len(given) != 1:
        args.parser.error(
            "give the corpus to train on: CORPUS, --from-counts C.counts or --resume CKPT"
        )
    options = _training_options(args)
    if args.resume:
        with open(args.resume, "rb") as fh:
            run = resume(fh.read())
        algorithm, vocab_size = run.algorithm, run.vocab_size
        if (algorithm, vocab_size) != (args.algorithm, args.vocab_size) or options:
            raise InvalidInput(
                f"{args.resume} is a checkpoint of {algorithm} to {vocab_size:,}: resume it as "
                f"tokvis train {algorithm} --resume {args.resume} --vocab-size {vocab_size} "
                "(its options are in it)"
            )
        return run, None
    if args.from_counts:
        counts = _counts(args)
        return training_run(args.algorithm, None, args.vocab_size, counts=counts, **options), None
    lines = CorpusLines(args.corpus)
    return training_run(args.algorithm, lines, args.vocab_size, **options), lines


def _counts(args: argparse.Namespace) -> Counts | dict[str, Counts]:
    """The counts file of --from-counts; parity_bpe: each LANG=FILE's, by language."""
    given = args.from_counts
    if args.algorithm != "parity_bpe":
        if len(given) > 1:
            args.parser.error(f"{args.algorithm} trains from one counts file: merge them first")
        return Counts.load(given[0])
    by_language: dict[str, Counts] = {}
    for item in given:
        lang, eq, path = item.partition("=")
        if not eq or not lang or not path or lang in by_language:
            args.parser.error(
                "parity_bpe takes --from-counts LANG=C.counts once per language, e.g. "
                "--from-counts eng=eng.counts --from-counts fra=fra.counts"
            )
        by_language[lang] = Counts.load(path)
    return by_language


def _checkpoints(args: argparse.Namespace) -> tuple[int, str]:
    """(every how many merges, where) a checkpoint is written; (0, "") for none."""
    every = args.checkpoint_every or 0
    if every < 0 or (args.checkpoint and not every):
        args.parser.error("--checkpoint-every takes a whole number >= 1 (and --checkpoint a file)")
    if every and args.algorithm not in ("bpe", "byte_bpe", "wordpiece"):
        args.parser.error("only bpe, byte_bpe and wordpiece trainings make checkpoints")
    where = args.checkpoint or (f"{args.output}.ckpt" if args.output else "tokvis-train.ckpt")
    return every, where


def _write_checkpoint(run: TrainingRun, where: str) -> None:
    """The run's checkpoint at `where`, whole or not at all (written beside it, then moved)."""
    part = f"{where}.part"
    with open(part, "wb") as fh:
        fh.write(run.checkpoint())
    os.replace(part, where)


def train(args: argparse.Namespace) -> int:
    start = time.monotonic()
    run, lines = _run(args)
    forced = args.progress is True
    unit = "" if run.expected is None else "merges"
    bar = Progress(
        f"training {args.algorithm}",
        run.expected,
        unit,
        enabled=sys.stderr.isatty() if args.progress is None else args.progress,
        delay=0.0 if forced else 0.5,
    )
    note = ""
    every, where = _checkpoints(args)
    for step in run:
        if isinstance(step, UnigramRoundStep):  # unigram: rounds, the vocabulary shrinking
            note = f"round {step.round}: {step.vocab_size:,} pieces"
        bar.update(run.done, note)
        if every and run.done % every == 0:
            _write_checkpoint(run, where)
    tok = run.tokenizer()
    bar.close(run.done, note)
    seconds = time.monotonic() - start
    if args.output:
        written = save(tok, args.output, args.out_format)
        print(
            f"wrote {args.output} ({written}, {tok.vocab_size:,} tokens, {args.algorithm}, "
            f"{seconds:.1f} s)",
            file=sys.stderr,
        )
        return 0
    read = (
        f"{lines.label}: {lines.lines:,} lines, {lines.chars:,} characters"
        if lines is not None
        else f"the counts in {', '.join(args.from_counts)}"
        if args.from_counts
        else f"the checkpoint {args.resume} and on"
    )
    print(f"{args.algorithm} trained on {read}, in {seconds:.1f} s")
    merges = getattr(tok.model, "merges", None)
    if merges is not None and args.algorithm != "unigram":
        print(f"vocabulary: {tok.vocab_size:,} tokens, {len(merges):,} merges")
        print("first merges:", pairs_text(merges[:8]))
        print("last merges: ", pairs_text(merges[-8:]))
    else:
        pieces = sorted(getattr(tok.model, "pieces", []), key=lambda p: -p[1])
        print(
            f"vocabulary: {tok.vocab_size:,} pieces, after {run.done} steps (seed, EM + pruning "
            "rounds, final)"
        )
        print("most likely pieces:", ", ".join(p for p, _s in pieces[:12]))
    print("(save it with -o tokenizer.json, or see every step with `tokvis trace`)")
    return 0


def _slice(raw: str | None) -> slice:
    if raw is None:
        return slice(0, None)
    a, sep, b = raw.partition(":")
    try:
        start = int(a) if a.strip() else 0
        stop = int(b) if b.strip() else None
        if not sep:
            raise ValueError
    except ValueError:
        raise InvalidInput(f"--steps takes A:B (e.g. 0:10, 100:, :5), got {raw!r}") from None
    if start < 0 or (stop is not None and stop < 0):
        raise InvalidInput(f"--steps counts from the first step: no negative numbers ({raw!r})")
    return slice(start, stop)


def trace(args: argparse.Namespace) -> int:
    wanted = _slice(args.steps)
    run, _lines = _run(args)
    out = sys.stdout
    for i, step in enumerate(run):
        if wanted.stop is not None and i >= wanted.stop:
            break  # the rest is not needed: stop training
        if i >= wanted.start:
            out.write(json.dumps(step.to_dict(), ensure_ascii=False) + "\n")
    out.flush()
    return 0
