"""Unigram: the model (a lattice and Viterbi), its EM trainer and Hugging Face's variant."""

from ...deprecation import moved_names

# `models.unigram` was one module; the model is now model.py, its lattice lattice.py
_MODEL, _LATTICE = "tokenizers_core.models.unigram.model", "tokenizers_core.models.unigram.lattice"
_MOVED = {
    name: (_MODEL, name)
    for name in ("Unigram", "ViterbiStep", "ViterbiBacktrackStep", "lattice_steps", "sample")
}
_MOVED.update(
    {name: (_LATTICE, name) for name in ("Lattice", "Node", "f32", "nbest_paths", "sample_path")}
)
__getattr__ = moved_names(__name__, _MOVED)
