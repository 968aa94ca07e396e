"""WordPiece: the model (greedy longest match), its trainer and the step-through session."""

from ...deprecation import moved_names

# `models.wordpiece` was one module holding the model; its public home is now `models.WordPiece`
_MOVED = {
    "WordPiece": ("tokenizers_core.models", "WordPiece"),
    "vocab_from_text": ("tokenizers_core.models.wordpiece.model", "vocab_from_text"),
}
__getattr__ = moved_names(__name__, _MOVED)
