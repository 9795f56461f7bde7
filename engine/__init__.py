"""ubao's engine: the rules of every game and the alpha-beta game-tree search (pure, no I/O)."""
