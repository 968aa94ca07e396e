"""A buggy student's adapters.py: the CS336 shape with the `iterable_reads_all` bug
(cs336_bpe.BUGS)."""

from cs336_bpe import adapters

run_train_bpe, get_tokenizer = adapters("iterable_reads_all")
