"""What an object a jitted function binds holds: a short digest of its attributes' values.

``watch_signature.function_bindings`` shows an object bound as ``self`` of a method or in a closure by its class and
identity (``<Env hashed by identity 7f...>``). Two function objects of one definition binding two objects of one
class compile the same program for each (a ``jax.jit(self.step)`` built per object); whether one object could have
served both calls depends on what the objects hold. The digest (``state=...`` in the binding) is equal for two
objects whose attributes have equal values (numbers and strings by value, NumPy arrays of up to ``MAX_ELEMENTS`` by
value (NumPy scalars too), ``jax.Array`` by shape and dtype; decided by type, so no property of a user object runs, containers and nested objects' attributes two levels down) and differs otherwise: two objects built with
another name or setting each are two functions, two environments built alike are one object made twice.

Cost: at each compile only (never per call); ``jax.Array`` values are never read (their shape and dtype only: a read
would cache a host copy and change how JAX traces them), nor NumPy arrays above ``MAX_ELEMENTS``. Never raises; an
object it cannot read gives no digest (and its binding shows none).
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

MAX_ELEMENTS = 1024
MAX_ATTRIBUTES = 32


def state_digest(obj: Any) -> str | None:
    """A 10-hex digest of ``obj``'s attribute values, or None when they cannot be read (no ``__dict__``, too many)."""
    try:
        text = _object(obj, 2)
    except Exception:  # noqa: BLE001 - an attribute that raises when read: no digest
        return None
    return None if text is None else hashlib.sha1(text.encode()).hexdigest()[:10]


def _object(obj: Any, depth: int) -> str | None:
    attrs = getattr(obj, "__dict__", None)
    if not isinstance(attrs, dict) or len(attrs) > MAX_ATTRIBUTES:
        return None
    return type(obj).__qualname__ + "{" + ",".join(f"{k}={_value(v, depth)}" for k, v in sorted(attrs.items())) + "}"


def _value(v: Any, depth: int) -> str:
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes)):
        return repr(v)[:200]
    if _is_array(v):  # by type: getattr(v, "shape") would run an arbitrary object's property
        return _array(v, v.shape, v.dtype)
    if isinstance(v, (tuple, list)) and len(v) <= 16 and depth > 0:
        return type(v).__name__ + "(" + ",".join(_value(x, depth - 1) for x in v) + ")"
    if isinstance(v, dict) and len(v) <= 16 and depth > 0:
        return "{" + ",".join(f"{k!r}:{_value(x, depth - 1)}" for k, x in v.items()) + "}"
    if callable(v) or isinstance(v, type):
        return f"<{getattr(v, '__qualname__', type(v).__qualname__)}>"  # a function or class by name
    nested = _object(v, depth - 1) if depth > 0 else None
    return nested if nested is not None else f"<{type(v).__qualname__}>"


def _is_array(v: Any) -> bool:
    """A NumPy array or scalar, or a ``jax.Array`` (tracers included), decided by type alone: no attribute of ``v``
    is read, so no user property runs (the modules are only looked up, never imported here)."""
    np, jax = sys.modules.get("numpy"), sys.modules.get("jax")
    if np is not None and isinstance(v, (np.ndarray, np.generic)):
        return True
    array = getattr(jax, "Array", None) if jax is not None else None
    return isinstance(array, type) and isinstance(v, array)


def _array(v: Any, shape: Any, dtype: Any) -> str:
    import numpy as np

    head = f"{np.dtype(dtype).name}{list(shape)}"
    size = int(np.prod(shape)) if len(shape) else 1
    # A jax.Array by shape and dtype only: reading its value caches a host copy on it, and JAX then traces it
    # into another program (a literal instead of a constant; seen on distrax's suite). Its value reaches the
    # program text when the method reads it (another program, not paired); as a pytree leaf it needs no equality.
    if size > MAX_ELEMENTS or not isinstance(v, (np.ndarray, np.generic)):
        return head
    return head + ":" + hashlib.sha1(np.ascontiguousarray(v).tobytes()).hexdigest()[:10]
