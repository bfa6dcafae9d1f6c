"""numba's compiler, typed for mypy as the functions it compiles (one home for the flags)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

__all__ = ["compiled", "inlined"]

_F = TypeVar("_F", bound=Callable[..., Any])


def compiled(fn: _F) -> _F:
    """``numba.njit(cache=True)``: compiled once, kept in numba's on-disk cache."""
    return cast(_F, numba.njit(cache=True)(fn))


def inlined(fn: _F) -> _F:
    """A small helper compiled into its callers."""
    return cast(_F, numba.njit(cache=True, inline="always")(fn))
