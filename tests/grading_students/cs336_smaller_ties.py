"""A buggy student's adapters.py: the CS336 shape with the `smaller_ties` bug (cs336_bpe.BUGS)."""

from cs336_bpe import adapters

run_train_bpe, get_tokenizer = adapters("smaller_ties")
