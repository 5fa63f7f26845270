"""Library jit wrappers seen through: ``equinox.filter_jit`` and ``flax.nnx.jit`` as the user wrote them.

Both call ``jax.jit`` on a function of their own. ``equinox.filter_jit`` jits ``fun_wrapped``
(in ``equinox/_jit.py``) with three arguments, ``(dynamic_donate, dynamic_nodonate, static)``:
the user's function and arguments split into array leaves and everything else. Seen as is,
the function is defined in equinox and its arguments are named ``dynamic_nodonate['rest'][1]``.
``library_call`` puts them back together (equinox's own ``hashable_combine``: each leaf from
the static half unless it is None there) so the record names the user's function, its
definition and its parameters; under ``filter_jit`` every non-array leaf is static, so a
changed Python float is a static value change, not a "same signature" mystery.

``flax.nnx.jit`` keeps the user's function reachable through ``__wrapped__`` (its name and
definition are already right); only its frames must not be taken for the call site, which
``is_wrapper_frame`` tells. Nothing here imports equinox or flax: a program that uses them
has them imported already, and one that does not never reaches this code's library paths.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import FrameType
from typing import Any

_EQX_JIT_FILE = os.path.join("equinox", "_jit.py")
# Frames of these packages are the library's plumbing between the user's call and jax.jit.
_WRAPPER_PACKAGES = ("equinox.", "flax.nnx.", "flax.core.")


@dataclass
class LibraryCall:
    """The user's view of a call that a library routed through its own jitted function."""

    fun: Any
    args: tuple
    kwargs: dict[str, Any]
    arrays_only: bool  # only array leaves are traced; every other leaf is static (equinox)


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
    return LibraryCall(user_fun, tuple(user_args), dict(user_kwargs), arrays_only=True)


def library_call(fun: Any, args: tuple, kwargs: dict[str, Any]) -> LibraryCall | None:
    """The user's function and arguments behind a library's jitted call, or None for a plain jit."""
    try:
        return _equinox_call(fun, args, kwargs)
    except Exception:  # another equinox version's layout: the plain record is still right, if less clear
        return None


def is_wrapper_frame(frame: FrameType) -> bool:
    """A frame of a library's jit plumbing (equinox, flax.nnx): never the user's call site."""
    name = frame.f_globals.get("__name__", "")
    return isinstance(name, str) and name.startswith(_WRAPPER_PACKAGES)
