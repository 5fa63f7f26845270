"""Transformations and wrappers: what each makes of the arguments of the function it traces.

The kinds of value a traced function's argument can be (docs/lint.md "The tracing model"):

* ``python``: not traced at all (a static argument, an ``in_axes=None`` argument of an eager
  ``vmap``, a closure, a default the caller did not pass, a ``nondiff_argnums`` argument given
  a Python value).
* ``concrete``: a tracer that still carries its value, so Python control flow on it works
  (``grad``/``jvp``/``vjp``/``linearize`` outside any jit: JVPTracer/LinearizeTracer over a
  concrete primal; ``shard_map`` outside jit, which runs the body op by op;
  https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#python-control-flow-autodiff).
* ``abstract``: a tracer with only shape and dtype (``jit``, ``pmap``, ``eval_shape``,
  ``make_jaxpr``, ``checkpoint``, the bodies of ``scan``/``while_loop``/``cond``/``fori_loop``,
  ``shard_map`` under jit), and the batched tracer of ``vmap`` (its per-example value is not
  concrete either: ``bool()`` on it raises). Python control flow on it raises.

``Transform.makes`` is the kind a transform gives when its caller runs eagerly; under an
abstract caller everything nested is abstract (``grad`` inside ``jit`` sees abstract values):
``compose`` gives the kind of a function reached through several layers.

``Transform.python_runs`` says how often the traced function's Python body runs, which decides
whether a ``print`` in it "runs only while tracing": ``once_per_compile`` (jit: the trace is
cached with the executable), ``once_per_function`` (a ``lax.scan``/``cond`` body: the jaxpr is
cached per function object, so a lambda built per call runs every call), ``each_call`` (eager
``vmap``, ``grad``, ``shard_map``: the body runs on every call).
"""

from __future__ import annotations

from dataclasses import dataclass, field

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
# What a transform's first argument (or body arguments) is for: a function it returns a traced
# version of ("wrapper"), functions a control-flow primitive traces on the spot ("body"), a
# function whose derivative rules JAX calls while differentiating it ("custom"), or a context
# manager that changes what code inside it makes ("context"). At run time each alias is a str.
if TYPE_CHECKING:
    from typing import Literal

    ValueKind = Literal["python", "concrete", "abstract"]
    PythonRuns = Literal["each_call", "once_per_function", "once_per_compile"]
    Role = Literal["wrapper", "body", "custom", "context"]
else:
    ValueKind = PythonRuns = Role = str
_RANK = {"python": 0, "concrete": 1, "abstract": 2}


@dataclass(frozen=True)
class Transform:
    """One transformation or wrapper, as ``qualname`` spells it in the user's imports."""

    qualname: str  # "jax.jit", "equinox.filter_jit", "flax.nnx.jit"
    family: str  # the wrapper family module that defines it: "jax", "equinox", "flax"
    makes: ValueKind  # what the function's (non-static) array arguments become under an eager caller
    compiles: bool = False  # calling it compiles, caching an executable per function object
    python_runs: PythonRuns = "each_call"
    role: Role = "wrapper"
    static_options: tuple[str, ...] = ()  # keywords that mark arguments static
    donate_options: tuple[str, ...] = ()  # keywords that donate argument buffers
    # The static/donate options are checked against the function's signature when the wrapper is built:
    # jax.jit raises ValueError for a name no parameter has (or a positional-only one) and for a position
    # past the positional parameters (JAX 0.10 to 0.12; older releases warned). tests/test_lint_jit_option_names.py
    options_checked_at_build: bool = False
    # Donation applies to positional arguments only: an argument at a donated position passed by keyword
    # is not donated, silently (jax.pmap; jax.jit maps keywords onto its positions through the signature).
    donates_positional_only: bool = False
    # Non-array leaves of the arguments are static without being named (equinox's filter_*):
    # a Python float is then a compile-time constant, and a new value compiles again.
    static_by_type: bool = False
    # Positions of the function arguments a control-flow primitive traces (lax.scan: (0,)).
    body_args: tuple[int, ...] = ()
    body_keywords: tuple[str, ...] = ()
    # (position of an operand in the primitive's call, position of the body parameter that receives
    # it): lax.scan(f, init, xs) passes init as f's carry. A dict or tuple operand reaches the body as
    # the same Python container of traced leaves (its keys and length are static).
    body_operands: tuple[tuple[int, int], ...] = ()
    # How many positional arguments the primitive passes its bodies (lax.scan: 2, carry and x); -k:
    # the call's positional arguments after its first k (lax.cond(pred, t, f, *operands): -3). A
    # body's parameter with a default beyond those keeps its Python default.
    body_arity: int | None = None
    # Positions traced when the transform takes ``argnums`` (grad: only argnums are differentiated;
    # the others are passed through as they are, Python values staying Python values).
    differentiates: bool = False
    # vmap/pmap: the keyword and position of ``in_axes``; an argument whose entry is None is not
    # mapped and reaches the function as the caller passed it.
    axes_option: tuple[str, int] | None = None
    # shard_map: the keyword and position of ``in_specs``; an argument whose entry is None is passed through
    # as the caller passed it (a Python bool stays a bool, eager or under jit: JAX 0.4.35 to 0.10).
    specs_option: tuple[str, int] | None = None
    # custom_jvp/custom_vjp: the keyword naming arguments that are not differentiated; they reach the
    # function and its rules as the caller passed them (a Python function stays a Python function).
    nondiff_option: str = ""
    # custom_vjp: a tracer passed at a non-differentiated position raises (UnexpectedTracerError "Found a JAX
    # Tracer object passed as an argument to a custom_vjp function in a position indicated by nondiff_argnums"),
    # under jit or any transformation of the caller; custom_jvp accepts one (tests/test_lint_traced_nondiff.py).
    nondiff_rejects_tracers: bool = False
    trace_only: bool = False  # traced to learn shapes or the graph, never run (eval_shape, make_jaxpr)
    # JAX's own names for the traces this transform runs (``DebugInfo.traced_for``: "jit", "vmap",
    # "while_body", ...; "linearize" for grad/vjp from JAX 0.10 on): how watch's trace evidence names
    # the transform that traced a function (collect/trace_evidence.py).
    traced_for: tuple[str, ...] = field(default=(), compare=False)
    doc: str = ""  # the documentation this row rests on
    aliases: tuple[str, ...] = field(default=(), compare=False)

    def makes_under(self, caller: ValueKind) -> ValueKind:
        """What the function's traced arguments become when the transformed function is called
        from code that runs with values of kind ``caller`` (``python``: eager code)."""
        return compose(caller, self.makes)


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
