"""What the class tests share: a small corpus (trained within the request), the answers the
core's own trainers give for it (the reference a class must agree with, found another way than
the class's step views), and a helper that makes a class."""

from __future__ import annotations

from functools import lru_cache

import tokenizers_core as tc
from tokenizers_core.corpora import load_corpus

VOCAB = {"bpe": 200, "wordpiece": 200, "unigram": 150}
WORD = "botchan"  # Unigram's word: its split changes as rounds prune


@lru_cache(maxsize=1)
def corpus() -> str:
    """The first 80 lines of Botchan (about 5,000 characters: trained within the request)."""
    return "\n".join(load_corpus("botchan").splitlines()[:80])


@lru_cache(maxsize=None)
def merges(algorithm: str) -> list[tuple[str, str]]:
    """BPE's and WordPiece's merges, as `tc.train` learns them."""
    return list(tc.train(algorithm, corpus().splitlines(), VOCAB[algorithm]).model.merges)


@lru_cache(maxsize=None)
def splits(word: str = WORD) -> list[tuple[str, ...]]:
    """The word's best segmentation after each Unigram round (0: the seed)."""
    from tokenizers_core.models.unigram.trainer import UnigramTrainer

    trainer = UnigramTrainer(corpus().splitlines(), VOCAB["unigram"], sample_words=[word])
    return [dict(step.samples)[word] for step in trainer.run().steps]


def right_answer(algorithm: str, k: int) -> list[str]:
    return list(merges(algorithm)[k - 1]) if algorithm != "unigram" else list(splits()[k])


def wrong_answer(algorithm: str, k: int) -> list[str]:
    if algorithm == "unigram":
        best = splits()[k]
        return [best[0][0], "".join(best)[1:]] if len(best) > 1 else ["▁b", "otchan"]
    other = next(m for m in merges(algorithm)[k:] if m != merges(algorithm)[k - 1])
    return list(other)


def make_class(client, algorithm: str = "bpe", checkpoints=(1, 2, 3), **extra) -> dict:
    body = {
        "title": f"{algorithm} week 2",
        "algorithm": algorithm,
        "corpus_text": corpus(),
        "vocab_size": VOCAB[algorithm],
        "checkpoints": list(checkpoints),
        **({"word": WORD} if algorithm == "unigram" else {}),
        **extra,
    }
    r = client.post("/api/classes", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def answer(client, code: str, student: str, checkpoint: int, given) -> dict:
    r = client.post(
        f"/api/classes/{code}/answers",
        json={"student": student, "checkpoint": checkpoint, "answer": given},
    )
    assert r.status_code == 200, r.text
    return r.json()
