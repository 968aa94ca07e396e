"""BPE: the model (encoding by merge rank), its trainer, the step-through session, Hugging Face's
variant and sentencepiece's (encoding by piece score, and its trainer)."""

from ...deprecation import moved_names

# `models.bpe` was one module; its names now live in model.py (and the byte table in byte_level)
_MODEL = "tokenizers_core.models.bpe.model"
_MOVED = {name: (_MODEL, name) for name in ("BPE", "BpeEncodeStep", "show_bytes", "token_text")}
_MOVED.update(
    {
        name: ("tokenizers_core.byte_level", name)
        for name in ("to_byte_level", "byte_level_to_bytes")
    }
)
__getattr__ = moved_names(__name__, _MOVED)
