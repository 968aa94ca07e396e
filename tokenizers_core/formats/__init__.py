"""Reading (and writing) the tokenizer file formats other libraries use: one module per format."""
