"""`tokvis count` and `tokvis train --from-counts` as a user runs them: a file counted on two
processes, shards merged to the same file as counting them together, the counts described, a
training from counts saved to the same tokenizer.json as training on the text, and the refusals
(another algorithm's counts, pruned counts merged, no corpus at all) with their exit status."""

from __future__ import annotations

import pytest

from app.cli import main
from tokenizers_core.corpora import load_corpus

TEXT = load_corpus("botchan")


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "botchan.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def test_train_from_counts_saves_the_tokenizer_training_on_the_text_saves(tmp_path, corpus, capsys):
    counts = tmp_path / "b.counts"
    assert main(["count", "--algorithm", "byte_bpe", str(corpus), "-o", str(counts)]) == 0
    assert "distinct pre-tokens" in capsys.readouterr().err
    on_text, from_counts = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["train", "byte_bpe", str(corpus), "--vocab-size", "500", "-o", str(on_text)]) == 0
    args = ["train", "byte_bpe", "--from-counts", str(counts), "--vocab-size", "500"]
    assert main([*args, "-o", str(from_counts)]) == 0
    assert from_counts.read_bytes() == on_text.read_bytes()
    assert main(args) == 0
    assert f"byte_bpe trained on the counts in {counts}" in capsys.readouterr().out


def test_shards_counted_apart_and_merged_are_the_file_counted_whole(tmp_path, corpus):
    lines = TEXT.splitlines(keepends=True)
    half = len(lines) // 2
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(lines[:half]), encoding="utf-8")
    b.write_text("".join(lines[half:]), encoding="utf-8")
    for name, source in (("a", a), ("b", b)):
        assert (
            main(
                [
                    "count",
                    "--algorithm",
                    "wordpiece",
                    str(source),
                    "-o",
                    str(tmp_path / f"{name}.counts"),
                ]
            )
            == 0
        )
    merged, whole = tmp_path / "m.counts", tmp_path / "w.counts"
    assert (
        main(
            [
                "count",
                "--merge",
                str(tmp_path / "a.counts"),
                str(tmp_path / "b.counts"),
                "-o",
                str(merged),
            ]
        )
        == 0
    )
    assert (
        main(
            ["count", "--algorithm", "wordpiece", str(corpus), "--processes", "2", "-o", str(whole)]
        )
        == 0
    )
    assert merged.read_bytes() == whole.read_bytes()


def test_show_describes_a_counts_file(tmp_path, capsys):
    path = tmp_path / "c.counts"
    assert (
        main(["count", "--algorithm", "bpe", "botchan", "--min-frequency", "2", "-o", str(path)])
        == 0
    )
    capsys.readouterr()
    assert main(["count", "--show", str(path), "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "counted under: bpe: normaliser none; pre-tokeniser Whitespace" in out
    assert "pruned: pre-tokens seen fewer than 2 times left out" in out
    assert len([line for line in out.splitlines() if line.startswith(" ")]) == 2


def test_the_refusals_and_their_exit_status(tmp_path, capsys):
    counts = tmp_path / "byte.counts"
    pruned = tmp_path / "pruned.counts"
    assert main(["count", "--algorithm", "byte_bpe", "botchan", "-o", str(counts)]) == 0
    assert (
        main(
            [
                "count",
                "--algorithm",
                "byte_bpe",
                "botchan",
                "--min-frequency",
                "3",
                "-o",
                str(pruned),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["train", "bpe", "--from-counts", str(counts), "--vocab-size", "300"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "tokvis train: error: these counts were made for byte_bpe, and cannot train bpe"
    )
    assert (
        main(["count", "--merge", str(counts), str(pruned), "-o", str(tmp_path / "m.counts")]) == 1
    )
    assert "pruned at a minimum frequency of 3" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["train", "bpe", "--vocab-size", "300"])
    assert exit_.value.code == 2
    with pytest.raises(SystemExit) as exit_:
        main(["count", "botchan", "-o", str(tmp_path / "x.counts")])
    assert exit_.value.code == 2
    assert main(["count", "--show", str(tmp_path / "missing.counts")]) == 1
    (tmp_path / "junk.counts").write_bytes(b"junk")
    assert main(["count", "--show", str(tmp_path / "junk.counts")]) == 1
    assert "is not a tokvis counts file" in capsys.readouterr().err


@pytest.mark.parametrize("algorithm", ["bpe", "byte_bpe", "wordpiece"])
def test_a_training_resumed_from_a_checkpoint_saves_what_an_unbroken_one_saves(tmp_path, algorithm):
    whole, resumed, ckpt = tmp_path / "whole", tmp_path / "resumed", tmp_path / "t.ckpt"
    # a folder of vocab.json + merges.txt (the textbook bpe has no tokenizer.json form)
    saved = ["--format", "vocab_merges" if algorithm == "bpe" else "hf_json"]
    args = ["train", algorithm, "botchan", "--vocab-size", "700", *saved]
    assert (
        main([*args, "-o", str(whole), "--checkpoint-every", "150", "--checkpoint", str(ckpt)]) == 0
    )
    assert ckpt.read_bytes().startswith(b"tokvis-checkpoint 1\n")
    again = ["train", algorithm, "--resume", str(ckpt), "--vocab-size", "700", *saved]
    assert main([*again, "-o", str(resumed)]) == 0
    if algorithm != "bpe":
        assert resumed.read_bytes() == whole.read_bytes()
        return
    files = sorted(p.name for p in whole.iterdir())
    assert files and files == sorted(p.name for p in resumed.iterdir())
    assert all((whole / f).read_bytes() == (resumed / f).read_bytes() for f in files)


@pytest.mark.slow
def test_a_training_killed_mid_run_goes_on_from_its_last_checkpoint(tmp_path):
    """A real process, killed once a checkpoint is on disk: resumed, it saves the same file."""
    import os
    import signal
    import subprocess
    import sys

    from tests.polling import wait_until

    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT * 3, encoding="utf-8")
    ckpt, resumed, whole = tmp_path / "t.ckpt", tmp_path / "resumed.json", tmp_path / "whole.json"
    args = ["train", "wordpiece", str(corpus), "--vocab-size", "6000"]
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli",
            *args,
            "--checkpoint-every",
            "50",
            "--checkpoint",
            str(ckpt),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_until(lambda: ckpt.exists(), timeout=120), "no checkpoint appeared"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert not (tmp_path / "t.ckpt.part").exists() or ckpt.exists()
    assert (
        main(
            [
                "train",
                "wordpiece",
                "--resume",
                str(ckpt),
                "--vocab-size",
                "6000",
                "-o",
                str(resumed),
            ]
        )
        == 0
    )
    assert main([*args, "-o", str(whole)]) == 0
    assert resumed.read_bytes() == whole.read_bytes()


def test_resume_refuses_another_training_and_a_foreign_file(tmp_path, capsys):
    ckpt = tmp_path / "t.ckpt"
    assert (
        main(
            [
                "train",
                "bpe",
                "botchan",
                "--vocab-size",
                "300",
                "--checkpoint-every",
                "10",
                "--checkpoint",
                str(ckpt),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["train", "bpe", "--resume", str(ckpt), "--vocab-size", "400"]) == 1
    assert "is a checkpoint of bpe to 300" in capsys.readouterr().err
    (tmp_path / "junk.ckpt").write_bytes(b"junk")
    assert (
        main(["train", "bpe", "--resume", str(tmp_path / "junk.ckpt"), "--vocab-size", "300"]) == 1
    )
    assert "not a tokvis training checkpoint" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["train", "unigram", "botchan", "--vocab-size", "300", "--checkpoint-every", "5"])
    assert exit_.value.code == 2


def _merges_said(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(("vocabulary:", "first", "last"))]


def test_the_bpe_family_trains_from_counts_as_on_the_text(tmp_path, corpus, capsys):
    counts = tmp_path / "b.counts"
    assert main(["count", "--algorithm", "byte_bpe", str(corpus), "-o", str(counts)]) == 0
    picky = ["--vocab-size", "500", "--threshold", "0.8"]
    assert main(["train", "picky_bpe", str(corpus), *picky]) == 0
    on_text = _merges_said(capsys.readouterr().out)
    assert main(["train", "picky_bpe", "--from-counts", str(counts), *picky]) == 0
    assert _merges_said(capsys.readouterr().out) == on_text and on_text
    rus = tmp_path / "rus.txt"
    rus.write_text(load_corpus("udhr/rus"), encoding="utf-8")
    tagged = tmp_path / "tagged.txt"
    tagged.write_text(
        "".join(
            f"{lang}\t{line}\n"
            for lang, path in (("en", corpus), ("ru", rus))
            for line in path.read_text(encoding="utf-8").splitlines()
        ),  # fmt: skip
        encoding="utf-8",
    )
    rus_counts = tmp_path / "rus.counts"
    assert main(["count", "--algorithm", "byte_bpe", str(rus), "-o", str(rus_counts)]) == 0
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["train", "parity_bpe", str(tagged), "--vocab-size", "600", "-o", str(a)]) == 0
    by_language = ["--from-counts", f"en={counts}", "--from-counts", f"ru={rus_counts}"]
    assert main(["train", "parity_bpe", *by_language, "--vocab-size", "600", "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_the_bpe_family_refusals(tmp_path, capsys):
    counts = tmp_path / "b.counts"
    assert main(["count", "--algorithm", "byte_bpe", "botchan", "-o", str(counts)]) == 0
    capsys.readouterr()
    assert main(["train", "superbpe", "--from-counts", str(counts), "--vocab-size", "400"]) == 1
    assert "superbpe cannot train from counts: its stage 2" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["train", "parity_bpe", "--from-counts", str(counts), "--vocab-size", "400"])
    assert exit_.value.code == 2
    assert "--from-counts LANG=C.counts once per language" in capsys.readouterr().err
