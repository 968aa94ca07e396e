"""The web layer: parse input, call `tokenizers_core`, render templates. Nothing algorithmic."""
