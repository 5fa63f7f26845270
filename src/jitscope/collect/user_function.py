"""The user's function behind a slow-path jit call, through the wrappers between it and ``jax.jit``.

``jax.jit`` is often handed a library's function that calls the user's: equinox's ``fun_wrapped``,
``jax.pmap``'s ``_fun``, checkify's ``checked_fun``, a ``functools.wraps`` layer, a bound ``Module.apply``.
What the trace runs of the *program* (its prints, its writes, its stores) is in the user's function, so
the trace probe watches that one (``collect/trace_probe.py``).
"""

from __future__ import annotations

import functools
import os
import types
from typing import Any


def _function_of(fun: Any) -> types.FunctionType | None:
    while isinstance(fun, functools.partial):
        fun = fun.func
    if isinstance(fun, types.MethodType):
        fun = fun.__func__
    return fun if isinstance(fun, types.FunctionType) else None


def user_function(call: Any) -> types.FunctionType | None:
    """The user's function behind a slow-path call, through every wrapper between it and ``jax.jit``: a
    library's jitted plumbing (``equinox.filter_jit``'s ``fun_wrapped``: ``wrappers.library_call``;
    ``jax.pmap``'s ``_fun``: ``pmap_user_call``), ``functools.wraps`` layers and partials (``flax.nnx.jit``
    keeps the user's function as ``__wrapped__``), and any other wrapper defined outside the program that
    holds the user's function in its closure (``checkify.checkify``, ``equinox.filter_vmap``, custom
    transformations) or is a method bound to an object of the program's class (``jax.jit(module.apply)``:
    the class's ``__call__``). Its effects are the ones to watch; the wrapper's own code names no ``print``."""
    from .._jaxcompat import is_user_file, pmap_user_call
    from .watch_signature import unwrap_function
    from .wrappers import library_call

    fun = call.fun
    lib = library_call(fun, call.args, call.kwargs)
    if lib is not None:
        fun = lib.fun
    else:
        pm = pmap_user_call(fun, call.args, call.kwargs)
        if pm is not None:
            fun = pm[0]
    fn = _function_of(unwrap_function(fun))
    if fn is None or is_user_file(fn.__code__.co_filename) and not _installed(fn.__code__.co_filename):
        return fn if fn is not None else _function_of(call.fun)
    return _program_function_inside(fun) or fn


def _installed(filename: str) -> bool:
    return any(f"{os.sep}{d}{os.sep}" in filename for d in ("site-packages", "dist-packages"))


def program_method_behind(fun: Any) -> tuple[str, types.FunctionType] | None:
    """For a library's method bound to an object of the program's class (``jax.jit(model.apply)`` with flax
    linen's ``Module.apply``, also under ``functools.partial``; flax marks its own files as not the user's):
    the name to show (``MLP.apply``) and the class's own ``__call__`` the method runs (through the library's
    ``functools.wraps`` layers); None otherwise."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    owner = getattr(fun, "__self__", None) if isinstance(fun, types.MethodType) else None
    if owner is None or isinstance(owner, type) or _program(fun.__func__) is not None:
        return None
    found = _program(vars(type(owner)).get("__call__"))
    return None if found is None else (f"{type(owner).__qualname__}.{fun.__name__}", found)


def _program(f: Any) -> types.FunctionType | None:
    """``f``, or the function a library's ``functools.wraps`` layers around it hold (flax linen wraps every
    method of a Module subclass, ``nn.compact`` included, in a function of flax/linen/module.py), when it
    is the program's own; else None."""
    from .._jaxcompat import is_user_file

    for _ in range(8):
        g = _function_of(f)
        if g is not None and is_user_file(g.__code__.co_filename) and not _installed(g.__code__.co_filename):
            return g
        f = getattr(f, "__wrapped__", None)
        if f is None:
            return None
    return None


def _program_function_inside(fun: Any, depth: int = 3) -> types.FunctionType | None:
    """A function of the program reachable from a library's wrapper: in its closure cells (a few levels
    down), or the ``__call__`` of the program's class it is a bound method of."""
    program = _program
    behind = program_method_behind(fun)  # the program's class's own __call__
    if behind is not None:
        return behind[1]
    owner = getattr(fun, "__self__", None)
    if owner is not None and not isinstance(owner, type):
        found = program(vars(type(owner)).get("__call__"))
        if found is not None:
            return found
    todo, seen = [(fun, 0)], set()
    while todo:
        f, d = todo.pop(0)
        if id(f) in seen or d > depth:
            continue
        seen.add(id(f))
        found = program(f)
        if found is not None and d > 0:
            return found
        g = _function_of(f)
        for cell in (getattr(g, "__closure__", None) or ()) if g is not None else ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if callable(value):
                todo.append((value, d + 1))
            inner = getattr(value, "f", None) or getattr(value, "fun", None)  # a linear_util.WrappedFun, a partial
            if callable(inner):
                todo.append((inner, d + 1))
    return None
