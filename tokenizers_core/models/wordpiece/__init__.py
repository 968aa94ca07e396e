"""WordPiece: the model (greedy longest match), its trainer and the step-through session."""
