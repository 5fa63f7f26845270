"""JAX's own transformations (https://docs.jax.dev/en/latest/jax.html).

Every row's ``makes`` and ``python_runs`` is checked against real JAX in tests/test_jaxmodel.py.
"""

from __future__ import annotations

from ..transforms import Transform

_JIT_DOC = "https://docs.jax.dev/en/latest/_autosummary/jax.jit.html"
_GOTCHAS = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#control-flow"
_CF = "https://docs.jax.dev/en/latest/control-flow.html"
_CUSTOM = "https://docs.jax.dev/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html"

TRANSFORMS = (
    Transform("jax.jit", "jax", "abstract", compiles=True, python_runs="once_per_compile",
              static_options=("static_argnums", "static_argnames"),
              donate_options=("donate_argnums", "donate_argnames"), traced_for=("jit",), doc=_JIT_DOC,
              options_checked_at_build=True, aliases=("jax.experimental.pjit.pjit", "jax.experimental.pjit")),
    Transform("jax.pmap", "jax", "abstract", compiles=True, python_runs="once_per_compile",
              static_options=("static_broadcasted_argnums",), donate_options=("donate_argnums",),
              donates_positional_only=True,
              axes_option=("in_axes", -1), traced_for=("pmap",), doc="https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html"),
    Transform("jax.vmap", "jax", "abstract", axes_option=("in_axes", 1),
              traced_for=("vmap",), doc="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html"),
    Transform("jax.grad", "jax", "concrete", differentiates=True, doc=_GOTCHAS),
    Transform("jax.value_and_grad", "jax", "concrete", differentiates=True, traced_for=("value_and_grad",), doc=_GOTCHAS),
    Transform("jax.jacfwd", "jax", "concrete", differentiates=True, traced_for=("jacfwd",), doc=_GOTCHAS),
    Transform("jax.jacrev", "jax", "concrete", differentiates=True, traced_for=("jacrev",), doc=_GOTCHAS),
    Transform("jax.hessian", "jax", "concrete", differentiates=True, doc=_GOTCHAS),
    Transform("jax.jvp", "jax", "concrete", traced_for=("jvp",), doc=_GOTCHAS),
    Transform("jax.vjp", "jax", "concrete", traced_for=("vjp",), doc=_GOTCHAS),
    Transform("jax.linearize", "jax", "concrete", traced_for=("linearize",), doc=_GOTCHAS),
    # checkpoint traces to a jaxpr even outside jit, and caches it per function object.
    Transform("jax.checkpoint", "jax", "abstract", python_runs="once_per_function", static_options=("static_argnums",),
              traced_for=("checkpoint / remat", "checkpoint", "remat"), doc="https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html",
              aliases=("jax.remat", "jax.ad_checkpoint.checkpoint", "jax.ad_checkpoint.remat")),
    Transform("jax.eval_shape", "jax", "abstract", python_runs="once_per_function", trace_only=True,
              doc="https://docs.jax.dev/en/latest/_autosummary/jax.eval_shape.html"),
    Transform("jax.make_jaxpr", "jax", "abstract", python_runs="once_per_function", trace_only=True,
              static_options=("static_argnums",),
              traced_for=("make_jaxpr",), doc="https://docs.jax.dev/en/latest/_autosummary/jax.make_jaxpr.html"),
    # Outside jit shard_map runs its body op by op on the shards' concrete values (Python control
    # flow works, a print runs on every call); under jit the body is traced like jit's.
    Transform("jax.shard_map", "jax", "concrete", specs_option=("in_specs", 2),
              traced_for=("shard_map",), doc="https://docs.jax.dev/en/latest/notebooks/shard_map.html",
              aliases=("jax.experimental.shard_map.shard_map",)),
    # Control-flow bodies: traced to a jaxpr on the spot (even outside jit), cached per function object.
    Transform("jax.lax.scan", "jax", "abstract", role="body", python_runs="once_per_function", body_args=(0,),
              body_keywords=("f",), body_operands=((1, 0), (2, 1)), body_arity=2, traced_for=("scan",), doc=_CF),
    Transform("jax.lax.fori_loop", "jax", "abstract", role="body", python_runs="once_per_function", body_args=(2,),
              body_keywords=("body_fun",), body_operands=((3, 1),), body_arity=2, traced_for=("fori_loop",), doc=_CF),
    Transform("jax.lax.while_loop", "jax", "abstract", role="body", python_runs="once_per_function",
              body_args=(0, 1), body_keywords=("cond_fun", "body_fun"), body_operands=((2, 0),), body_arity=1, traced_for=("while_cond", "while_body", "while_loop"), doc=_CF),
    Transform("jax.lax.cond", "jax", "abstract", role="body", python_runs="once_per_function", body_args=(1, 2),
              body_keywords=("true_fun", "false_fun"), body_operands=((3, 0), (4, 1), (5, 2)), body_arity=-3, traced_for=("cond",), doc=_CF),
    Transform("jax.lax.switch", "jax", "abstract", role="body", python_runs="once_per_function", body_args=(1,),
              body_keywords=("branches",), body_operands=((2, 0), (3, 1), (4, 2)), body_arity=-2, traced_for=("switch",), doc=_CF),
    # lax.map wraps its function in a new scan body on every call: traced again each time.
    Transform("jax.lax.map", "jax", "abstract", role="body", body_args=(0,), body_keywords=("f",),
              body_operands=((1, 0),), body_arity=1, doc=_CF),
    # associative_scan is written with jnp ops, not a primitive: outside jit its function runs on
    # concrete slices, on every call.
    Transform("jax.lax.associative_scan", "jax", "concrete", role="body", body_args=(0,), body_keywords=("fn",),
              doc="https://docs.jax.dev/en/latest/_autosummary/jax.lax.associative_scan.html"),
    # custom_jvp/custom_vjp do not trace: the function runs as called, with what its caller passes;
    # its rules run where it is differentiated (concrete values under an eager grad). nondiff_argnums
    # arguments are passed through as they are (a tracer stays a tracer, a Python value Python).
    Transform("jax.custom_jvp", "jax", "python", role="custom", nondiff_option="nondiff_argnums", traced_for=("custom_jvp fun",), doc=_CUSTOM),
    Transform("jax.custom_vjp", "jax", "python", role="custom", nondiff_option="nondiff_argnums",
              nondiff_rejects_tracers=True, traced_for=("custom_vjp fun",), doc=_CUSTOM),
    # Inside the block, jnp on non-tracer values computes concrete values even under jit.
    Transform("jax.ensure_compile_time_eval", "jax", "python", role="context",
              doc="https://docs.jax.dev/en/latest/_autosummary/jax.ensure_compile_time_eval.html",
              aliases=("jax.core.ensure_compile_time_eval",)),
)

# Pytree classes (lint/pytrees.py): registered with jax.tree_util, or a NamedTuple (a tuple pytree).
PYTREE_BASES = ("typing.NamedTuple", "NamedTuple")
PYTREE_DECORATORS = ("jax.tree_util.register_pytree_node_class", "jax.tree_util.register_dataclass",
                     "chex.dataclass")
# Calls that register the class given first as a pytree (`jax.tree_util.register_dataclass(State, ...)` at module
# level). Python's own `dataclasses.dataclass` makes no pytree: an instance handed to jit raises TypeError (not a
# valid JAX type) and one a jitted function closes over keeps its NumPy fields NumPy (tests/test_lint_plain_dataclass.py).
PYTREE_REGISTER_CALLS = ("jax.tree_util.register_pytree_node", "jax.tree_util.register_pytree_with_keys",
                         "jax.tree_util.register_dataclass", "jax.tree_util.register_pytree_node_class",
                         "jax.tree_util.register_pytree_with_keys_class")
PLAIN_DATACLASS = "dataclasses.dataclass"
ARRAY_ATTRIBUTES: dict[str, tuple[str, ...]] = {}
REBUILT_WHILE_TRACING: tuple[str, ...] = ()
