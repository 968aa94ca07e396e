"""BPE: the model (encoding by merge rank), its trainer, the step-through session, Hugging Face's
variant and sentencepiece's (encoding by piece score, and its trainer)."""
