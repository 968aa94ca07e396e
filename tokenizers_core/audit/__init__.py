"""Vocabulary forensics: what a tokenizer's vocabulary says about itself, without model weights.

Each module answers one question from research on tokenizers alone (see each module's docstring).
"""
