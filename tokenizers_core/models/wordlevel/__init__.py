"""WordLevel: a vocabulary lookup, one token a word."""

from ...deprecation import moved_names

# `models.wordlevel` was one module holding the model; its public home is now `models.WordLevel`
_MOVED = {"WordLevel": ("tokenizers_core.models", "WordLevel")}
__getattr__ = moved_names(__name__, _MOVED)
