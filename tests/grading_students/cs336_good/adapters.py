"""A good student's adapters.py (CS336's tests folder): the CS336 shape, no bug."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cs336_bpe import adapters  # noqa: E402

run_train_bpe, get_tokenizer = adapters()
