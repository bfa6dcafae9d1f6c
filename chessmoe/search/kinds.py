"""Which tree search plays: the compiled one (default) or the Python reference, said once.

``native`` is :class:`~chessmoe.search.native.search.NativeMCTS` (numba); ``python`` is
:class:`~chessmoe.search.mcts.MCTS`, the reference the native search is tested against move for
move. Both take the same evaluator and :class:`~chessmoe.search.mcts.SearchConfig`.
"""

from __future__ import annotations

from typing import Literal

from chessmoe._io.errors import error_cause
from chessmoe.search.mcts import MCTS, Evaluator, SearchConfig, TreeSearch

__all__ = ["DEFAULT_SEARCH", "SEARCH_KINDS", "SearchKind", "check_search_kind", "make_search",
           "native_problem"]

SearchKind = Literal["native", "python"]
SEARCH_KINDS: tuple[SearchKind, ...] = ("native", "python")
DEFAULT_SEARCH: SearchKind = "native"


def check_search_kind(kind: str) -> SearchKind:
    """``kind`` if it names a search, else a one-line ValueError listing the known ones."""
    if kind not in SEARCH_KINDS:
        raise ValueError(f"unknown search {kind!r}; known: {', '.join(SEARCH_KINDS)}")
    return kind


def make_search(evaluator: Evaluator, config: SearchConfig | None = None,
                kind: str = DEFAULT_SEARCH) -> TreeSearch:
    """A tree search of ``kind`` over ``evaluator``."""
    if check_search_kind(kind) == "python":
        return MCTS(evaluator, config)
    from chessmoe.search.native.search import NativeMCTS

    return NativeMCTS(evaluator, config)


def native_problem() -> str | None:
    """Why the compiled search cannot run here, in one line (``None``: it can, and every
    function it uses is now compiled or loaded from numba's cache): numba cannot be imported,
    ``NUMBA_DISABLE_JIT`` is set (the core would run as interpreted Python), or the core
    cannot be compiled or cached (e.g. no writable cache directory)."""
    try:
        import numba
    except ImportError as error:
        return f"numba cannot be imported ({error_cause(error)})"
    if getattr(numba.config, "DISABLE_JIT", False):
        return "NUMBA_DISABLE_JIT is set, so numba would not compile it"
    try:
        from chessmoe.search.native.search import warm_up

        warm_up()
    except Exception as error:  # e.g. "cannot cache function ...: no locator available"
        return f"it cannot be compiled or cached ({error_cause(error)})"
    return None
