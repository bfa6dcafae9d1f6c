"""numba's compiler, typed for mypy as the functions it compiles (one home for the flags)."""

from __future__ import annotations

import hashlib
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

import numba

__all__ = ["compiled", "compiled_rebound", "inlined"]

_F = TypeVar("_F", bound=Callable[..., Any])


def compiled(fn: _F) -> _F:
    """``numba.njit(cache=True)``: compiled once, kept in numba's on-disk cache."""
    return cast(_F, numba.njit(cache=True)(fn))


def inlined(fn: _F) -> _F:
    """A small helper compiled into its callers."""
    return cast(_F, numba.njit(cache=True, inline="always")(fn))


def _code_key(values: Iterable[Any]) -> str:
    """A digest of the bytecode and constants of ``values`` (functions, compiled or not)."""
    digest = hashlib.sha256()
    for value in values:
        code = getattr(getattr(value, "py_func", value), "__code__", None)
        digest.update(repr(value).encode() if code is None
                      else code.co_code + repr(code.co_consts).encode())
    return digest.hexdigest()[:12]


def compiled_rebound(module: types.ModuleType, *, compile: Iterable[str], keep: Iterable[str] = (),
                     bindings: Mapping[str, Any]) -> dict[str, Callable[..., Any]]:
    """Copies of ``module``'s functions that see ``bindings`` in place of the module's own
    names (e.g. a tree's accessors bound to arrays): those named in ``compile`` compiled, which
    also makes their calls to one another (recursion included) go to the compiled copies,
    those in ``keep`` left as Python. The module itself is unchanged, so its Python callers
    and the compiled ones read one source.

    numba's cache notices a change of ``module``'s file only, so each compiled copy is named
    after a digest of the bindings' code: changed bindings compile afresh."""
    scope = dict(vars(module))
    scope.update(bindings)
    key = _code_key(bindings[name] for name in sorted(bindings))
    copies: dict[str, Callable[..., Any]] = {}
    for name in (*compile, *keep):
        fn = getattr(module, name)
        copy = types.FunctionType(fn.__code__, scope, name, fn.__defaults__, fn.__closure__)
        if name in compile:
            copy.__qualname__ = f"{name}_{key}"
            copies[name] = numba.njit(cache=True)(copy)
        else:
            copies[name] = copy
    scope.update(copies)
    return copies
