"""Golden files: stored outputs that carry their own inputs, and the command that makes them."""
