"""A namespace checked against a typed record: the names a notebook's parameters cell defines
(papermill passes literals and only warns about unknown names) become a dataclass, and a
misspelt or unknown name, or a value of the wrong type, an error listing the known names."""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar, Union

from chessmoe._io.overrides import type_name

__all__ = ["ParameterError", "parameters", "parameters_or_defaults", "snapshot"]

D = TypeVar("D")


class ParameterError(TypeError):
    """An unknown, misspelt or mistyped notebook parameter."""


def snapshot(namespace: Mapping[str, Any]) -> frozenset[str]:
    """The names defined before the parameters cell."""
    return frozenset(namespace)


def _type_ok(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_type_ok(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (list, tuple):
        args = typing.get_args(hint)
        if not isinstance(value, (list, tuple)):
            return False
        item = args[0] if args else Any
        return all(_type_ok(v, item) for v in value)
    if origin is dict:
        key, val = typing.get_args(hint) or (Any, Any)
        return isinstance(value, dict) and all(
            _type_ok(k, key) and _type_ok(v, val) for k, v in value.items())
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def parameters(cls: type[D], namespace: Mapping[str, Any], before: Iterable[str]) -> D:
    """Collect the parameters defined since ``before`` into ``cls`` (a dataclass).

    Raises :class:`ParameterError` for a name ``cls`` does not declare (with the
    closest known names) or a value whose type does not match the declaration.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    known = [f.name for f in dataclasses.fields(cls)]
    new = [n for n in namespace if n not in set(before) and not n.startswith("_")
           and not isinstance(namespace[n], types.ModuleType)]
    unknown = [n for n in new if n not in known]
    if unknown:
        hints_text = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            hints_text.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ParameterError(f"unknown notebook parameter(s) {', '.join(hints_text)}; this "
                             f"notebook takes: {', '.join(known)}")
    values = {n: namespace[n] for n in known if n in namespace}
    for name, value in values.items():
        if not _type_ok(value, hints[name]):
            raise ParameterError(f"parameter {name!r} must be {type_name(hints[name])}, got "
                                 f"{value!r} ({type(value).__name__})")
    return cls(**values)


def parameters_or_defaults(cls: type[D], namespace: Mapping[str, Any], before: Iterable[str]
                           ) -> tuple[D, list[str]]:
    """:func:`parameters` for a page that must show itself whatever it is given (a Voila page
    hides a raised error behind a generic message): each unknown name or mistyped value is
    dropped for its declared default, and named in one line of the returned list."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    problems = []
    values = {}
    for name in namespace:
        if name in set(before) or name.startswith("_") or isinstance(namespace[name],
                                                                     types.ModuleType):
            continue
        if name not in fields:
            close = difflib.get_close_matches(name, list(fields), n=1)
            problems.append(f"unknown parameter {name!r}" + (f" (did you mean {close[0]!r}?)"
                                                             if close else "")
                            + f" is ignored; this page takes: {', '.join(fields)}")
            continue
        value = namespace[name]
        if _type_ok(value, hints[name]):
            values[name] = value
            continue
        f = fields[name]
        default = (f.default if f.default is not dataclasses.MISSING
                   else f.default_factory() if f.default_factory is not dataclasses.MISSING
                   else None)
        shown = f" ({name} = {value}, without quotes)" if (
            isinstance(value, str) and _type_ok(_literal(value), hints[name])) else ""
        problems.append(f"parameter {name!r} must be {type_name(hints[name])}{shown}, got "
                        f"{value!r} ({type(value).__name__}); the page uses {default!r}")
    return cls(**values), problems


def _literal(text: str) -> Any:
    """``text`` read as a Python number when it is one (to suggest the value without quotes)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text
