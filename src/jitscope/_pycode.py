"""Reading Python code objects: what a function names and which same-module helpers it reaches; finding a
module without leaving files behind.

Ground floor (standard library only): both the trace-time side-effect collector and the jaxpr
analyzers need it, and neither may import the other.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import types
from collections.abc import Iterator
from typing import Any


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (inner functions, comprehensions, lambdas)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def functions_reached(fn: Any, depth: int = 3) -> list[types.FunctionType]:
    """``fn`` plus same-module Python functions it names as globals, a few levels deep."""
    seen: dict[int, types.FunctionType] = {}
    frontier = [fn]
    module = getattr(fn, "__module__", None)
    for _ in range(depth):
        nxt = []
        for f in frontier:
            if not isinstance(f, types.FunctionType) or id(f) in seen:
                continue
            seen[id(f)] = f
            for c in code_objects(f.__code__):
                for name in c.co_names:
                    g = f.__globals__.get(name)
                    if isinstance(g, types.FunctionType) and g.__module__ == module:
                        nxt.append(g)
        frontier = nxt
    return list(seen.values())


def entry_code(fn: Any) -> Any:
    """The code object where the traced function starts (functions, partials, callable objects)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if isinstance(fn, types.FunctionType):
        return fn.__code__
    call = type(fn).__dict__.get("__call__") or getattr(type(fn), "__call__", None)  # noqa: B004
    return getattr(call, "__code__", None)


def find_spec_writing_nothing(name: str) -> Any:
    """``importlib.util.find_spec(name)`` (a dotted name imports its parent packages, as ``python -m`` would)
    without writing their bytecode: a command that checks a target and refuses has created no file (Python
    3.12+ writes ``__pycache__`` even for an empty ``__init__.py``). Raises what ``find_spec`` raises."""
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        return importlib.util.find_spec(name)
    finally:
        sys.dont_write_bytecode = writes
