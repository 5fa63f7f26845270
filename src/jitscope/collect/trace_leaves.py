"""The abstract leaves of a parameter that is not itself a tracer (trace evidence, ``collect/trace_evidence.py``).

A jitted step often takes its state as a tuple, a dict, a dataclass or (equinox) ``self``: the value is not a
tracer, its leaves are. ``abstract_leaves`` names those leaves by the access a program writes to reach
them (``state[0]``, ``self.w``, ``params['b']``), so that lint can treat exactly those reads as traced.
It reads only what is stored (tuple items, dict entries, an instance's ``__dict__``): no property, no
``__getattr__``, nothing of the program runs.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from .. import _jaxcompat as compat

_SCALARS = (str, bytes, int, float, complex, bool, type(None))

LEAF_DEPTH = 3  # access steps followed into a parameter that is not a tracer (`self.layer.w`: two)
LEAF_WIDTH = 64  # items of one container looked at; larger ones are data, not a state or a module
LEAF_PATHS = 32  # abstract leaves recorded per parameter


def abstract_leaves(value: Any, tracer: type, prefix: str = "", depth: int = LEAF_DEPTH,
                    out: list[str] | None = None) -> list[str]:
    """Access paths (``.w``, ``[0]``, ``['k']``) of the abstract-tracer leaves of ``value``: the items of a
    tuple/list, the str/int keys of a dict, the instance attributes of an object with a ``__dict__`` (an
    equinox module, a dataclass, a ``self``) and a namedtuple's fields by name. Only what is stored is
    read (no properties, no ``__getattr__``); modules, classes and functions are not entered."""
    out = [] if out is None else out
    if depth <= 0 or len(out) >= LEAF_PATHS:
        return out
    if isinstance(value, (tuple, list)):
        fields = getattr(type(value), "_fields", None) if isinstance(value, tuple) else None
        items = [(f"[{i}]", v) for i, v in enumerate(value[:LEAF_WIDTH])]
        if isinstance(fields, tuple):
            items += [(f".{f}", v) for f, v in zip(fields, value) if isinstance(f, str)]
    elif isinstance(value, dict):
        if len(value) > LEAF_WIDTH:
            return out
        items = [(f"[{k!r}]", v) for k, v in value.items() if type(k) in (str, int)]
    elif isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType, functools.partial)):
        return out
    else:
        try:
            attrs = object.__getattribute__(value, "__dict__")
        except (AttributeError, TypeError):
            return out
        if type(attrs) is not dict or len(attrs) > LEAF_WIDTH:
            return out
        items = [(f".{k}", v) for k, v in attrs.items() if type(k) is str]
    for step, v in items:
        if len(out) >= LEAF_PATHS:
            break
        if isinstance(v, tracer):
            if compat.tracer_kind(v) != "concrete":
                out.append(prefix + step)
        elif not isinstance(v, _SCALARS):
            abstract_leaves(v, tracer, prefix + step, depth - 1, out)
    return out
