"""tokenizers_core: a stepwise, pure-Python tokenizer engine.

>>> import tokenizers_core as tc
>>> tc.load("char").encode("hi!").tokens
['h', 'i', '!']
"""
from __future__ import annotations

from .checker import check  # tc.check: a student's implementation vs ours
from .encoding import Encoding, Token
from .implementations.training import algorithms, train
from .normalized import NormalizedString
from .pipeline import Tokenizer
from .pretrained import load
from .steps import Step, Trace, register_step, step_from_dict

__all__ = ["Encoding", "NormalizedString", "Step", "Token", "Tokenizer", "Trace", "algorithms", "check",
           "load", "register_step", "step_from_dict", "train"]
