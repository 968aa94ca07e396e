"""Whole tokenisers: each wires the pipeline's stages (normalizers, pre_tokenizers, models,
processors, decoders) into a `Tokenizer`, as Hugging Face's `tokenizers.implementations` does. The
stages never import these modules; only these, `formats/` and the top-level API build tokenisers."""
