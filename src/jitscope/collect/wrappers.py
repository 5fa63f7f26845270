"""Library jit wrappers seen through: ``equinox.filter_jit`` and ``flax.nnx.jit`` as the user wrote them.

Both call ``jax.jit`` on a function of their own. ``equinox.filter_jit`` jits ``fun_wrapped``
(in ``equinox/_jit.py``) with three arguments, ``(dynamic_donate, dynamic_nodonate, static)``:
the user's function and arguments split into array leaves and everything else. Seen as is,
the function is defined in equinox and its arguments are named ``dynamic_nodonate['rest'][1]``.
``library_call`` puts them back together (equinox's own ``hashable_combine``: each leaf from
the static half unless it is None there) so the record names the user's function, its
definition and its parameters; under ``filter_jit`` every non-array leaf is static, so a
changed Python float is a static value change, not a "same signature" mystery.

``equinox.filter_pmap`` builds a new ``jax.pmap`` of a ``fun_wrapped`` closure (``equinox/_vmap_pmap.py``)
for each new static half and each new shape of the array half; seen as is, every recompile is a "new
function object" defined inside equinox. ``library_call`` combines the closure's static half with the
call's array half (equinox's own ``combine``) so the cause is named: a static field, a shape.

Under both, the function is itself a pytree argument (``function_parts``): a bound method of a module
or a callable module is keyed on by its function plus its fields (``self``), not by the object, which
equinox rebuilds at every call.

``flax.nnx.jit`` keeps the user's function reachable through ``__wrapped__`` (its name and
definition are already right); only its frames must not be taken for the call site, which
``is_wrapper_frame`` tells. Nothing here imports equinox or flax: a program that uses them
has them imported already, and one that does not never reaches this code's library paths.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

_EQX_JIT_FILE = os.path.join("equinox", "_jit.py")
_EQX_PMAP_FILE = os.path.join("equinox", "_vmap_pmap.py")
# Frames of these packages are the library's plumbing between the user's call and jax.jit.
_WRAPPER_PACKAGES = ("equinox.", "flax.nnx.", "flax.core.")


@dataclass
class LibraryCall:
    """The user's view of a call that a library routed through its own jitted function."""

    fun: Any
    args: tuple
    kwargs: dict[str, Any]
    arrays_only: bool  # only array leaves are traced; every other leaf is static (equinox)
    # What the wrapper's cache keys on for the function itself (``function_parts``): the plain function
    # under a bound method or a callable module. None: the function object (``fun``).
    identity: Any = None
    # The function's own pytree part, traced and keyed on like an argument (a module's fields):
    # ``("self", module)``; None for a plain function.
    bound: tuple[str, Any] | None = None
    options: dict[str, str] = field(default_factory=dict)  # the wrapper's cache-keying options (donation)
    wrapper: str = "jax.jit"  # the wrapper's qualified name as jaxmodel knows it


def function_parts(fun: Any) -> tuple[Any, tuple[str, Any] | None]:
    """(identity, bound part) of a function a filtered wrapper (``equinox.filter_jit``/``filter_pmap``)
    takes as a pytree: array leaves traced, the rest static by value. A plain function is hashed by
    identity; a bound method by its function, with its instance as ``self``; a callable module by
    its class, with its fields as ``self``. Equal identities and equal ``self`` signatures are one
    cache entry, however many times the wrapper is applied."""
    import jax

    func, owner = getattr(fun, "__func__", None), getattr(fun, "__self__", None)
    if func is not None and owner is not None:
        return func, ("self", owner)
    if getattr(fun, "__code__", None) is None and jax.tree_util.tree_leaves(fun):
        return type(fun), ("self", fun)
    return fun, None


def _combine(dynamic_leaves: Any, static: Any) -> Any:
    import jax

    static_leaves, treedef = static
    leaves = [d if s is None else s for d, s in zip(dynamic_leaves, static_leaves)]
    return jax.tree_util.tree_unflatten(treedef, leaves)


def _equinox_call(fun: Any, args: tuple, kwargs: dict[str, Any]) -> LibraryCall | None:
    code = getattr(fun, "__code__", None)
    if code is None or code.co_name != "fun_wrapped" or not code.co_filename.endswith(_EQX_JIT_FILE):
        return None
    if kwargs or len(args) != 3 or not all(isinstance(a, dict) for a in args[:2]):
        return None
    dynamic = {**args[0], **args[1]}
    static_fun, static_first, static_rest = args[2]
    user_fun = _combine(dynamic["fun"], static_fun)
    first = _combine(dynamic["first"], static_first)
    rest, user_kwargs = _combine(dynamic["rest"], static_rest)
    *user_args, dummy = (first, *rest)
    if dummy is not None:  # not the layout this code knows: say nothing rather than guess
        return None
    identity, bound = function_parts(user_fun)
    # filter_jit's ``donate`` puts leaves in the first (donated) or second dict: the keys say which.
    donated = ", ".join(k for k in ("first", "rest") if k in args[0])
    return LibraryCall(user_fun, tuple(user_args), dict(user_kwargs), arrays_only=True, identity=identity,
                       bound=bound, options={"donate": donated} if donated else {}, wrapper="equinox.filter_jit")


def _equinox_pmap_call(fun: Any, args: tuple, kwargs: dict[str, Any]) -> LibraryCall | None:
    """``equinox.filter_pmap``: jax.pmap of a ``fun_wrapped`` closing over the static half of
    ``(fun, args, dummy, out_axes)``, built anew for each new static value or shape; its one
    argument is the array half."""
    code = getattr(fun, "__code__", None)
    eqx = sys.modules.get("equinox")
    if (eqx is None or code is None or code.co_name != "fun_wrapped" or kwargs or len(args) != 1
            or not code.co_filename.endswith(_EQX_PMAP_FILE) or "static" not in code.co_freevars):
        return None
    static = fun.__closure__[code.co_freevars.index("static")].cell_contents
    user_fun, user_args, _, out_axes = eqx.combine(args[0], static)
    identity, bound = function_parts(user_fun)
    # in_axes and out_axes key equinox's cache of pmaps like the static half does
    options = {"out_axes": " ".join(repr(out_axes).split())[:200]}
    return LibraryCall(user_fun, tuple(user_args), {}, arrays_only=True, identity=identity, bound=bound,
                       options=options, wrapper="equinox.filter_pmap")


def library_call(fun: Any, args: tuple, kwargs: dict[str, Any]) -> LibraryCall | None:
    """The user's function and arguments behind a library's jitted call, or None for a plain jit."""
    try:
        return _equinox_call(fun, args, kwargs) or _equinox_pmap_call(fun, args, kwargs)
    except Exception:  # another equinox version's layout: the plain record is still right, if less clear
        return None


def is_wrapper_frame(frame: FrameType) -> bool:
    """A frame of a library's jit plumbing (equinox, flax.nnx): never the user's call site."""
    name = frame.f_globals.get("__name__", "")
    return isinstance(name, str) and name.startswith(_WRAPPER_PACKAGES)
