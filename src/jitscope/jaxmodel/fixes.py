"""The catalogue of fixes: one sentence per pitfall, phrased for the wrapper the user wrote.

lint (``JSxxx``), watch (``JWxxx``) and inspect all phrase their fixes from here, so the same
code gets the same advice from every command (issue #24 item 5). A fix names only options the
user's wrapper has (``known.wrapper_options``) and only APIs that do not themselves cost
what the fix removes: ``jax.debug.print`` is not offered for a trace-time ``print`` in a hot
step, because a host callback takes the call off JAX's C++ fast path (JW501).
"""

from __future__ import annotations

from .known import lookup


def make_static(arg: str, wrapper: str = "jax.jit") -> str:
    """How to make ``arg`` a compile-time (static) value under ``wrapper``."""
    t = lookup(wrapper)
    if t is not None and t.static_by_type:
        return (f"under {wrapper} a non-array value is static already: pass {arg} as a Python value "
                f"(int, bool, str) rather than as an array")
    if t is not None and t.static_options:
        opt = "static_argnames" if "static_argnames" in t.static_options else t.static_options[0]
        value = f"('{arg}',)" if opt.endswith("names") else "(<position of " + arg + ">,)"
        return f"mark {arg} static: {wrapper}(f, {opt}={value})"
    return f"make {arg} a Python value outside the traced function (close over it)"


def make_traced(arg: str, wrapper: str = "jax.jit") -> str:
    """How to stop ``arg`` from being a compile-time value (each new value compiles again)."""
    t = lookup(wrapper)
    if t is not None and t.static_by_type:
        return f"pass {arg} as an array (jnp.asarray({arg})) so that {wrapper} traces it instead of keying on its value"
    if t is not None and t.static_options:
        return f"drop {arg} from {'/'.join(t.static_options)} so that it is traced"
    if t is not None and t.compiles:  # a wrapper with no static option: the value must be an argument
        return f"pass {arg} as an array argument (jnp.asarray({arg}))"
    return f"pass {arg} as an argument of the traced function instead of closing over it"
