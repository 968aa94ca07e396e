"""A buggy student's adapters.py: the CS336 shape with the `no_special_split` bug
(cs336_bpe.BUGS)."""

from cs336_bpe import adapters

run_train_bpe, get_tokenizer = adapters("no_special_split")
