"""WordLevel: a vocabulary lookup, one token a word."""
