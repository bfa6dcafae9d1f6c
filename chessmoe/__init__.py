"""chessmoe: a notebook-driven kit reproducing "Checkmating One, by Using Many".

The package is thin and typed; every computation the notebooks show lives here.
Modules follow the data flow PGN -> phases/statistics -> datasets -> experts ->
search -> tournaments -> figures.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
