"""Unigram: the model (a lattice and Viterbi), its EM trainer and Hugging Face's variant."""
