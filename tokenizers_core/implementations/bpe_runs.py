"""The new BPE family's training runs, whole, for the step views (`/bpe/train?variant=superbpe`,
`picky_bpe`, `parity_bpe`): every step the fast trainer takes, and what the views draw beside
them (SuperBPE's transition, Picky BPE's threshold, parity-aware BPE's languages).

A run is made once (in the request for a small corpus, in a job for a large one) and read at
any step: `run.steps[k - 1]` is merge k.

>>> run = family_run("picky_bpe", ["abc abc abc abd"], 262, threshold=0.6)
>>> run.total, [s.new_symbol for s in run.steps][:3], run.removals
(7, ['ab', 'Ġab', 'Ġabc'], 4)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ..corpora import ALL_UDHR
from ..errors import InvalidInput
from ..models.bpe.model import gc_paused
from ..models.bpe.picky import picky_bpe_trainer
from ..models.bpe.superbpe import superbpe_trainer
from .parity import by_language, parity_bpe_trainer, udhr_split

FAMILY = ("superbpe", "picky_bpe", "parity_bpe")
OPTIONS: dict[str, tuple[str, ...]] = {  # the options each variant's view takes
    "superbpe": ("transition", "pattern"),
    "picky_bpe": ("threshold", "pattern"),
    "parity_bpe": ("pattern",),
}


@dataclass
class FamilyRun:
    """A finished run: its `steps` (merge k is `steps[k - 1]`), the `vocab_size` asked for and
    the variant's own figures (`transition` for SuperBPE, `threshold` for Picky BPE, the
    `languages` and how they were measured for parity-aware BPE)."""

    variant: str
    vocab_size: int
    steps: list = field(default_factory=list)
    transition: int | None = None
    threshold: float | None = None
    languages: tuple[str, ...] = ()
    dev: str = ""  # parity: what each language's compression is measured on
    alphabet: int = 256
    stop_reason: str = ""  # why training stopped, in the trainer's words

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def removals(self) -> int:
        """Picky BPE: how many tokens were removed in all."""
        return sum(len(getattr(s, "removed", ())) for s in self.steps)

    def first_after_transition(self) -> int | None:
        """SuperBPE: the number of the first merge of stage 2 (None if there is none)."""
        return next((k for k, s in enumerate(self.steps, 1) if s.after_transition), None)


def family_run(
    variant: str,
    lines: Iterable[str] | None,
    vocab_size: int,
    *,
    corpus: str = "",
    words: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> FamilyRun:
    """Train `variant` on `lines` to `vocab_size`, keeping every step. For "parity_bpe" on the
    bundled `udhr/all` corpus the languages are the 33 UDHR texts, each with its own training
    part and the parallel development parts as the dev set (the paper's setting); on any other
    corpus, lines tagged "code<TAB>text" go by their tag and untagged lines by their script.
    `words`, in place of `lines`, is the word table already counted (a byte_bpe counts file's,
    `trainer_words`): for "parity_bpe" one table per language, each measured on its own
    counted text. "superbpe" needs the lines. `progress(k)` is called now and then while it
    trains."""
    if variant not in FAMILY:
        raise InvalidInput(f"unknown variant {variant!r}; choose one of: {', '.join(FAMILY)}")
    unknown = set(options) - set(OPTIONS[variant])
    if unknown:
        raise InvalidInput(f"{variant} takes no option {sorted(unknown)[0]!r}")
    lines = list(lines) if lines is not None else []
    run = FamilyRun(variant, vocab_size)
    trainer: Any
    if words is not None and variant == "superbpe":
        raise InvalidInput("superbpe trains on the lines, not on counted words")
    if variant == "superbpe":
        trainer = superbpe_trainer(lines, vocab_size, **options)
        run.transition = trainer.transition
    elif variant == "picky_bpe":
        trainer = picky_bpe_trainer(lines, vocab_size, words=words, **options)
        run.threshold = trainer.threshold
    elif words is not None:
        trainer = parity_bpe_trainer(None, vocab_size, words=words, **options)
        run.dev = "each language's own counted text"
    elif corpus == ALL_UDHR:
        parts = udhr_split()
        trainer = parity_bpe_trainer(
            {code: p.train for code, p in parts.items()},
            vocab_size,
            dev={code: p.dev for code, p in parts.items()},
            **options,
        )
        run.dev = "each language's development part (15% of its UDHR text, parallel)"
    else:
        trainer = parity_bpe_trainer(by_language(lines), vocab_size, **options)
        run.dev = "each language's own training text"
    with gc_paused:
        for step in trainer:
            run.steps.append(step)
            if progress is not None and len(run.steps) % 100 == 0:
                progress(len(run.steps))
    run.stop_reason = getattr(trainer, "stop_reason", "")
    if variant == "parity_bpe":
        run.languages = tuple(run.steps[0].languages) if run.steps else ()
    return run
