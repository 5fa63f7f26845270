"""Flax's lifted transformations (https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/transforms.html).

``nnx.jit`` takes ``jax.jit``'s static and donation options; graph nodes (Modules, Variables,
Rngs) are split into a static graph definition and a traced state, so a change in the graph
(a new submodule, a changed static attribute) compiles again.
"""

from __future__ import annotations

from ..transforms import CallContext, Transform

_NNX = "https://flax.readthedocs.io/en/latest/api_reference/flax.nnx/transforms.html"
_LINEN = "https://flax.readthedocs.io/en/latest/api_reference/flax.linen/transformations.html"

TRANSFORMS = (
    Transform("flax.nnx.jit", "flax", "abstract", compiles=True, python_runs="once_per_compile",
              static_options=("static_argnums", "static_argnames"),
              donate_options=("donate_argnums", "donate_argnames"), doc=_NNX),
    Transform("flax.nnx.vmap", "flax", "abstract", axes_option=("in_axes", -1), doc=_NNX),
    Transform("flax.nnx.grad", "flax", "concrete", differentiates=True, doc=_NNX),
    Transform("flax.nnx.value_and_grad", "flax", "concrete", differentiates=True, doc=_NNX),
    Transform("flax.nnx.remat", "flax", "abstract", python_runs="once_per_function", doc=_NNX),
    Transform("flax.nnx.eval_shape", "flax", "abstract", python_runs="once_per_function", trace_only=True, doc=_NNX),
    Transform("flax.linen.jit", "flax", "abstract", compiles=True, python_runs="once_per_compile",
              static_options=("static_argnums",), donate_options=("donate_argnums",), doc=_LINEN),
)

# nnx.jit's JitWrapped calls ``self.jitted_fn`` inside ``graphlib.update_context(self)``; its JitFn merges the
# graph back from that context (``extract.from_tree(..., ctxtag=self.ctxtag)``) and raises "No update context
# found for tag" outside it (flax/nnx/transforms/compilation.py, flax 0.12).
CALL_CONTEXTS = (
    CallContext("flax.nnx.transforms.compilation.JitWrapped", "jitted_fn", "flax.nnx.graphlib.update_context",
                doc="https://github.com/google/flax/blob/main/flax/nnx/transforms/compilation.py"),
)
# Classes whose instances are pytrees, and attributes of them that hold the array (lint/pytrees.py).
# (Modules are not listed: their methods are reached through their __call__ convention.)
PYTREE_BASES = ("flax.struct.PyTreeNode", "flax.nnx.Variable", "flax.nnx.Param")
PYTREE_DECORATORS = ("flax.struct.dataclass",)
ARRAY_ATTRIBUTES = {"flax.nnx.Variable": ("value",), "flax.nnx.Param": ("value",)}
# Classes whose instances JAX rebuilds while tracing (nnx splits and merges Variables under nnx.jit and
# friends): their __init__ runs on traced values too.
REBUILT_WHILE_TRACING = ("flax.nnx.Variable", "flax.nnx.Param")
# nnx keeps a Module's non-Variable attributes in its GraphDef, which nnx.jit's cache key compares with ==
# (equinox.py's STATIC_FIELD_BASES).
STATIC_FIELD_BASES = ("flax.nnx.Module", "flax.nnx.module.Module")
# A linen Module hashes by its fields while unbound, and refuses to be hashed once bound (inside `apply`/`init`,
# or after `bind`: "Can't call __hash__ on modules that hold variables"): `self` static in a jax.jit of its method
# raises "Non-hashable static arguments" whenever the method runs on a bound module (lint JS604;
# tests/test_lint_static_dataflow.py runs it under real flax and jax.jit).
UNHASHABLE_WHEN_BOUND = ("flax.linen.Module", "flax.linen.module.Module")
# nnx's lifted transforms hand a graph node argument (a Module, an Optimizer, a Metric: any nnx.Object) to the
# function as a live object and merge the state it ends with back into the caller's object (nnx.jit's
# `extract.from_tree` / `update_context`): `metrics.update(loss=loss)` or `optimizer.update(grads)` inside an
# `@nnx.jit` step changes the caller's object, which is how nnx code is written (Flax's nnx basics tutorial;
# tests/test_lint_binding_model.py runs it under real nnx.jit). A method call on such an argument is no lost
# mutation (lint JS403).
PROPAGATES_ARGUMENT_STATE = ("flax.nnx.jit", "flax.nnx.grad", "flax.nnx.value_and_grad", "flax.nnx.vmap",
                             "flax.nnx.remat", "flax.nnx.scan", "flax.nnx.cond", "flax.nnx.shard_map",
                             "flax.nnx.pmap")
