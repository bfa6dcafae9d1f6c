"""``KEY=VALUE`` overrides of a typed config record, parsed by each field's declared type.

``--set model=tiny`` stays the string ``"tiny"`` (a value is never guessed as JSON from its
first letter), ``epochs=3`` becomes the field's ``float`` 3.0, ``amp=fp16`` a string,
``nesterov=no`` the bool ``False``, ``iterations=none`` ``None`` where the field allows it;
lists, tuples and dicts are read as JSON (``weights=[1,2,3]``), sequences also comma-separated.
A mistake (unknown key, a value of the wrong type) raises
:class:`~chessmoe._io.errors.KitError` with one line naming the key, the expected type and
close matches.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import types
import typing
from collections.abc import Sequence
from typing import Any, Literal, Union, get_args, get_origin

from chessmoe._io.errors import KitError

__all__ = ["parse_overrides", "parse_value", "type_name"]

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def type_name(tp: Any) -> str:
    """A type as an error message names it (``int``, ``list[str]``, ``str | None``)."""
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def parse_value(key: str, text: str, tp: Any) -> Any:
    """``text`` as a value of type ``tp`` (see the module doc)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        if type(None) in args and text.strip().lower() in ("none", "null", ""):
            return None
        for option in (a for a in args if a is not type(None)):
            try:
                return parse_value(key, text, option)
            except KitError:
                continue
        raise KitError(f"{key}={text!r}: expected {type_name(tp)}")
    if origin is Literal:
        if text in args:
            return text
        raise KitError(f"{key}={text!r}: expected one of {', '.join(map(str, args))}")
    if tp is bool:
        low = text.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise KitError(f"{key}={text!r}: expected true or false")
    if tp is int:
        try:
            return int(text)
        except ValueError:
            raise KitError(f"{key}={text!r}: expected an integer") from None
    if tp is float:
        try:
            return float(text)
        except ValueError:
            raise KitError(f"{key}={text!r}: expected a number") from None
    if tp is str:
        return text
    if origin in (tuple, list, Sequence) or tp in (tuple, list):
        if text.strip().startswith("["):
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as error:
                raise KitError(f"{key}={text!r}: not a JSON list ({error.msg})") from None
            items = [str(i) for i in raw]
        else:
            items = [s.strip() for s in text.split(",") if s.strip()]
        inner = args[0] if args else str
        values = [parse_value(key, item, inner) for item in items]
        return tuple(values) if origin is tuple or tp is tuple else values
    if origin is dict or tp is dict:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            raise KitError(f"{key}={text!r}: not a JSON object ({error.msg})") from None
        if not isinstance(value, dict):
            raise KitError(f"{key}={text!r}: expected a JSON object")
        return value
    raise KitError(f"{key}: fields of type {type_name(tp)} cannot be set from the command line")


def parse_overrides(record: type[Any], items: Sequence[str]) -> dict[str, Any]:
    """``["key=value", ...]`` as typed values for the dataclass ``record``'s fields."""
    hints = typing.get_type_hints(record)
    names = [f.name for f in dataclasses.fields(record)]
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise KitError(f"--set {item!r}: expected KEY=VALUE")
        if key not in names:
            close = difflib.get_close_matches(key, names, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KitError(f"--set {key}: no such field of {record.__name__}{hint}")
        out[key] = parse_value(key, text, hints[key])
    return out
