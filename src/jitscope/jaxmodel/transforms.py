"""Transformations and wrappers: what each makes of the arguments of the function it traces.

The kinds of value a traced function's array argument can be (docs/lint.md "The tracing model"):

* ``python``: not traced at all (a static argument, an ``in_axes=None`` argument, a closure).
* ``concrete``: a tracer that still carries its value, so Python control flow on it works
  (``grad``/``jvp``/``vjp``/``linearize`` outside any jit: JVPTracer/LinearizeTracer over a
  concrete primal; https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#python-control-flow-autodiff).
* ``abstract``: a tracer with only shape and dtype (``jit``, ``pmap``, ``eval_shape``,
  ``make_jaxpr``, ``checkpoint``, the bodies of ``scan``/``while_loop``/``cond``/``fori_loop``,
  ``shard_map``), and the batched tracer of ``vmap`` (its per-example value is not concrete
  either: ``bool()`` on it raises). Python control flow on it raises.

Under an abstract transformation everything nested is abstract: ``grad`` inside ``jit`` sees
abstract values. ``compose`` gives the kind of a function reached through several layers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ValueKind = Literal["python", "concrete", "abstract"]
_RANK = {"python": 0, "concrete": 1, "abstract": 2}


@dataclass(frozen=True)
class Transform:
    """One transformation or wrapper, as ``qualname`` spells it in the user's imports."""

    qualname: str  # "jax.jit", "equinox.filter_jit", "flax.nnx.jit"
    family: str  # the wrapper family module that defines it: "jax", "equinox", "flax"
    makes: ValueKind  # what the function's (non-static) array arguments become
    compiles: bool = False  # calling it compiles, caching an executable per function object
    static_options: tuple[str, ...] = ()  # keywords that mark arguments static
    donate_options: tuple[str, ...] = ()  # keywords that donate argument buffers
    # Non-array leaves of the arguments are static without being named (equinox's filter_*):
    # a Python float is then a compile-time constant, and a new value compiles again.
    static_by_type: bool = False
    # Positions of the function arguments a control-flow primitive traces (lax.scan: (0,)).
    body_args: tuple[int, ...] = ()
    body_keywords: tuple[str, ...] = ()
    # Positions traced when the transform takes ``argnums`` (grad: only argnums are differentiated;
    # the others are still passed through as they are).
    differentiates: bool = False
    doc: str = ""  # the documentation this row rests on
    aliases: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class CallContext:
    """A wrapper object whose inner ``jax.jit`` call runs inside one of its library's context managers, entered
    with the wrapper object itself. A warm-up that lowers the inner jit directly (``jitscope warmup``: what JAX
    keys its cache on is that call) must enter it too, or the library's traced function refuses to run."""

    wrapper: str  # module.qualname of the wrapper object's class
    attribute: str  # the wrapper's attribute holding the jax.jit object
    context: str  # module.qualname of the context manager factory, called with the wrapper object
    doc: str = ""  # the source this row rests on


def compose(outer: ValueKind, inner: ValueKind) -> ValueKind:
    """The kind of value a function sees when ``inner`` is applied under ``outer``.

    Abstract wins: ``jit(grad(f))`` traces ``f`` with abstract values; ``grad(f)`` alone with
    concrete ones; a Python value stays Python only when every layer leaves it alone.
    """
    return outer if _RANK[outer] >= _RANK[inner] else inner
